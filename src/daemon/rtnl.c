/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * rtnl.c: the adapter for rtnetlink. caked configures its own devices
 * (MTU, administratively up) with one RTM_NEWLINK request each, instead of
 * running ip(8), and waits for the kernel's acknowledgement.
 *
 * Startup only: the socket is opened and closed per call, and calls block.
 */
#include <sys/socket.h>

#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "daemon/rtnl.h"

#define RTNL_BUF_BYTES	8192	/* MNL_SOCKET_BUFFER_SIZE is not a constant */

static int
rtnl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh, char *buf,
    size_t len)
{
	unsigned int	portid = mnl_socket_get_portid(nl);
	unsigned int	seq = nlh->nlmsg_seq;
	ssize_t		n;
	int		rv;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) == -1)
		return -1;
	while ((n = mnl_socket_recvfrom(nl, buf, len)) > 0) {
		/* The ack is an NLMSG_ERROR: code 0 stops, others set errno. */
		rv = mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL);
		if (rv == MNL_CB_ERROR)
			return -1;
		if (rv == MNL_CB_STOP)
			return 0;
	}
	return -1;
}

int
rtnl_link_up(const char *name, uint32_t mtu)
{
	char			 buf[RTNL_BUF_BYTES];
	struct mnl_socket	*nl;
	struct nlmsghdr		*nlh;
	struct ifinfomsg	*ifi;
	unsigned int		 ifindex;
	int			 rv, saved;

	if ((ifindex = if_nametoindex(name)) == 0)
		return -1;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);

	if ((nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL)
		return -1;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) == -1) {
		saved = errno;
		mnl_socket_close(nl);
		errno = saved;
		return -1;
	}
	rv = rtnl_talk(nl, nlh, buf, sizeof(buf));
	saved = errno;
	mnl_socket_close(nl);
	errno = saved;
	return rv;
}
