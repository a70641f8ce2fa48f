/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_mnl.c: the link-time fake of libmnl's socket calls, for the
 * conntrack adapter (src/daemon/conntrack.c). The program still links
 * libmnl for its message builders and libnetfilter_conntrack for the
 * parser; the definitions here take the place of the library's
 * mnl_socket_* functions. Each "netlink socket" is a local datagram
 * socket pair, so poll(2), setsockopt(2) and fake_event.c see a real fd,
 * and no netlink or CAP_NET_ADMIN is needed. Queries sent are recorded
 * (their sequence numbers) and answered by the test, late, twice or
 * never, with entries and errors built here as the kernel lays them out;
 * the first auto_enoent queries (conntrack_open()'s probe) are answered
 * "no such connection" at once.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>

#include "caked/cake.h"
#include "fake/fake_mnl.h"

struct mnl_socket {
	int	app;		/* what conntrack.c reads */
	int	kernel;		/* where the fake kernel writes */
};

struct fake_mnl	fake_mnl;

void
fake_mnl_reset(void)
{
	memset(&fake_mnl, 0, sizeof(fake_mnl));
}

int
fake_mnl_deliver(struct mnl_socket *nl, const void *msg, size_t len)
{
	return send(nl->kernel, msg, len, MSG_DONTWAIT) == (ssize_t)len ?
	    0 : -1;
}

struct mnl_socket *
mnl_socket_open2(int bus, int flags)
{
	struct mnl_socket	*nl;
	int			 sv[2];

	(void)bus;
	if ((nl = calloc(1, sizeof(*nl))) == NULL)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_DGRAM | flags, 0, sv) == -1) {
		free(nl);
		return NULL;
	}
	nl->app = sv[0];
	nl->kernel = sv[1];
	return nl;
}

int
mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	(void)pid;
	if (groups != 0)
		fake_mnl.events = nl;
	else
		fake_mnl.queries = nl;
	return 0;
}

int
mnl_socket_close(struct mnl_socket *nl)
{
	if (fake_mnl.events == nl)
		fake_mnl.events = NULL;
	if (fake_mnl.queries == nl)
		fake_mnl.queries = NULL;
	close(nl->app);
	close(nl->kernel);
	free(nl);
	return 0;
}

int
mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return nl->app;
}

ssize_t
mnl_socket_sendto(const struct mnl_socket *nl, const void *req, size_t siz)
{
	const struct nlmsghdr	*nlh = req;
	uint8_t			 ans[FAKE_MNL_MSG_MAX];
	size_t			 len;

	if (fake_mnl.send_errno != 0) {
		errno = fake_mnl.send_errno;
		return -1;
	}
	if (siz < sizeof(*nlh)) {
		errno = EINVAL;
		return -1;
	}
	if (fake_mnl.nqueries < FAKE_MNL_QUERIES)
		fake_mnl.seqs[fake_mnl.nqueries++] = nlh->nlmsg_seq;
	if (fake_mnl.auto_enoent > 0) {
		fake_mnl.auto_enoent--;
		len = fake_mnl_error(ans, nlh->nlmsg_seq, ENOENT);
		if (fake_mnl_deliver((struct mnl_socket *)(uintptr_t)nl, ans,
		    len) == -1)
			return -1;
	}
	return (ssize_t)siz;
}

ssize_t
mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t siz)
{
	return recv(nl->app, buf, siz, MSG_DONTWAIT);
}

size_t
fake_mnl_error(uint8_t *buf, uint32_t seq, int err)
{
	struct nlmsghdr	*nlh;
	struct nlmsgerr	*e;

	memset(buf, 0, FAKE_MNL_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = seq;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -err;
	e->msg.nlmsg_seq = seq;
	return nlh->nlmsg_len;
}

static void
fake_mnl_tuple(struct nlmsghdr *nlh, uint16_t type,
    const struct cake_tuple *t)
{
	struct nlattr	*tuple, *nest;

	tuple = mnl_attr_nest_start(nlh, type);
	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	mnl_attr_put(nlh, CTA_IP_V4_SRC, 4, t->src + 12);
	mnl_attr_put(nlh, CTA_IP_V4_DST, 4, t->dst + 12);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, t->proto);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(t->sport));
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(t->dport));
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, tuple);
}

size_t
fake_mnl_entry(uint8_t *buf, uint32_t seq, const struct cake_tuple *orig,
    const struct cake_tuple *reply, uint32_t status, uint32_t mark)
{
	struct nlmsghdr	*nlh;
	struct nfgenmsg	*nfg;

	memset(buf, 0, FAKE_MNL_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_INET;
	nfg->version = NFNETLINK_V0;
	fake_mnl_tuple(nlh, CTA_TUPLE_ORIG, orig);
	fake_mnl_tuple(nlh, CTA_TUPLE_REPLY, reply);
	mnl_attr_put_u32(nlh, CTA_STATUS, htonl(status));
	mnl_attr_put_u32(nlh, CTA_MARK, htonl(mark));
	return nlh->nlmsg_len;
}
