/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_probe.c: the ICMP echo adapter of autorate. One socket for all
 * reflectors: a raw ICMP socket when caked may open one (root or
 * CAP_NET_RAW at startup), else a "ping socket" (SOCK_DGRAM, IPPROTO_ICMP;
 * the kernel then owns the identifier and filters replies for us).
 *
 * Each request carries an identifier, a sequence number and a magic; the
 * send time and the target are remembered in a ring of PROBE_INFLIGHT_MAX
 * entries indexed by sequence number, so a late reply is still matched as
 * long as its entry has not been reused (a reply late by seconds is the
 * very signal autorate needs). Replies from another address, with another
 * identifier or a forgotten sequence are counted and ignored.
 *
 * A reply's arrival time is the kernel's receive timestamp (SO_TIMESTAMPNS)
 * where the socket gives one, not the time caked got round to reading it:
 * a daemon starved of CPU for a few milliseconds must not mistake its own
 * lateness for delay on the path (and cut the rate for it).
 *
 * It must not interpret the round-trip times, and must not block.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/autorate_probe.h"
#include "engine/csum.h"

#define PROBE_MAGIC	0x63616b65U	/* "cake" */
#define PROBE_PKT_MAX	256		/* bytes of a reply we look at */

struct ap_slot {
	uint64_t	send_ns;
	uint16_t	seq;
	uint8_t		idx;
	uint8_t		used;
};

struct ap_payload {
	uint32_t	magic;
	uint32_t	idx;
	uint64_t	send_ns;
};

struct autorate_probe {
	int			fd;
	int			raw;		/* 1: raw socket, IP header */
	uint16_t		ident;
	uint16_t		seq;
	unsigned int		ntargets;
	struct in_addr		target[PROBE_TARGETS_MAX];
	struct ap_slot	slot[PROBE_INFLIGHT_MAX];
	struct autorate_probe_stats	st;
};

struct autorate_probe *
autorate_probe_open(void)
{
	struct autorate_probe	*p;
	int		 fd, raw = 1, saved, one = 1;

	fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    IPPROTO_ICMP);
	if (fd == -1) {
		raw = 0;
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, IPPROTO_ICMP);
	}
	if (fd == -1)
		return NULL;
	/* without it, arrival = read time (see above); not fatal */
	(void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	p->fd = fd;
	p->raw = raw;
	p->ident = (uint16_t)(getpid() ^ 0x5ca1);
	return p;
}

const char *
autorate_probe_kind(const struct autorate_probe *p)
{
	return p->raw ? "raw" : "ping socket";
}

int
autorate_probe_fd(const struct autorate_probe *p)
{
	return p->fd;
}

void
autorate_probe_set_targets(struct autorate_probe *p, const struct in_addr *a,
    unsigned int n)
{
	if (n > PROBE_TARGETS_MAX)
		n = PROBE_TARGETS_MAX;
	memcpy(p->target, a, n * sizeof(*a));
	p->ntargets = n;
	memset(p->slot, 0, sizeof(p->slot));
}

int
autorate_probe_send(struct autorate_probe *p, unsigned int idx, uint64_t now_ns)
{
	unsigned char		 pkt[sizeof(struct icmphdr) +
				    sizeof(struct ap_payload)];
	struct icmphdr		 ih;
	struct ap_payload	 pl;
	struct ap_slot	*s;
	struct sockaddr_in	 sin;

	if (idx >= p->ntargets) {
		errno = EINVAL;
		return -1;
	}
	memset(&ih, 0, sizeof(ih));
	ih.type = ICMP_ECHO;
	ih.un.echo.id = htons(p->ident);
	ih.un.echo.sequence = htons(++p->seq);
	pl.magic = PROBE_MAGIC;
	pl.idx = idx;
	pl.send_ns = now_ns;
	memcpy(pkt, &ih, sizeof(ih));
	memcpy(pkt + sizeof(ih), &pl, sizeof(pl));
	csum_put16(pkt + offsetof(struct icmphdr, checksum),
	    csum_fold(csum_add(0, pkt, sizeof(pkt))));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr = p->target[idx];
	if (sendto(p->fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1) {
		p->st.send_errors++;
		return -1;
	}
	s = &p->slot[p->seq % PROBE_INFLIGHT_MAX];
	s->send_ns = now_ns;
	s->seq = p->seq;
	s->idx = (uint8_t)idx;
	s->used = 1;
	p->st.sent++;
	return 0;
}

/* Matches one received message; returns the slot or NULL. */
static struct ap_slot *
ap_match(struct autorate_probe *p, const unsigned char *buf, size_t len,
    const struct sockaddr_in *from)
{
	struct icmphdr		 ih;
	struct ap_payload	 pl;
	struct ap_slot	*s;
	size_t			 off = 0;
	uint16_t		 seq;

	if (p->raw) {
		if (len < sizeof(struct iphdr))
			return NULL;
		off = (size_t)(buf[0] & 0x0f) * 4;
	}
	if (len < off + sizeof(ih) + sizeof(pl))
		return NULL;
	memcpy(&ih, buf + off, sizeof(ih));
	memcpy(&pl, buf + off + sizeof(ih), sizeof(pl));
	if (ih.type != ICMP_ECHOREPLY || pl.magic != PROBE_MAGIC)
		return NULL;
	if (p->raw && ntohs(ih.un.echo.id) != p->ident)
		return NULL;
	seq = ntohs(ih.un.echo.sequence);
	s = &p->slot[seq % PROBE_INFLIGHT_MAX];
	if (!s->used || s->seq != seq || s->idx >= p->ntargets ||
	    pl.idx != s->idx ||
	    p->target[s->idx].s_addr != from->sin_addr.s_addr)
		return NULL;
	return s;
}

/*
 * How long the message in mh waited in the socket before we read it, from
 * its kernel timestamp and realtime_ns (read once per batch); 0 if none.
 */
static uint64_t
ap_waited_ns(struct msghdr *mh, uint64_t realtime_ns)
{
	struct cmsghdr	*c;
	struct timespec	 ts;
	uint64_t	 rx_ns;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET ||
		    c->cmsg_type != SCM_TIMESTAMPNS ||
		    c->cmsg_len < CMSG_LEN(sizeof(ts)))
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		rx_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
		    (uint64_t)ts.tv_nsec;
		/* a clock step could put it in the future: then ignore it */
		return realtime_ns > rx_ns ? realtime_ns - rx_ns : 0;
	}
	return 0;
}

void
autorate_probe_recv(struct autorate_probe *p, uint64_t now_ns,
    autorate_probe_reply_fn *fn, void *arg)
{
	unsigned char		 buf[PROBE_PKT_MAX];
	union {
		struct cmsghdr	 align;
		unsigned char	 b[CMSG_SPACE(sizeof(struct timespec)) + 64];
	}			 ctl;
	struct sockaddr_in	 from;
	struct iovec		 iov;
	struct msghdr		 mh;
	struct ap_slot	*s;
	struct timespec		 rt;
	uint64_t		 realtime_ns, rtt, waited;
	ssize_t			 n;
	int			 i;

	(void)clock_gettime(CLOCK_REALTIME, &rt);
	realtime_ns = (uint64_t)rt.tv_sec * 1000000000ULL +
	    (uint64_t)rt.tv_nsec;
	/* bounded, so a flood of ICMP cannot hold the loop */
	for (i = 0; i < 64; i++) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		n = recvmsg(p->fd, &mh, 0);
		if (n == -1)
			break;	/* EAGAIN, or an ICMP error: next time */
		if (mh.msg_namelen < sizeof(from) ||
		    (s = ap_match(p, buf, (size_t)n, &from)) == NULL) {
			p->st.unmatched++;
			continue;
		}
		s->used = 0;
		p->st.replies++;
		rtt = now_ns > s->send_ns ? now_ns - s->send_ns : 0;
		waited = ap_waited_ns(&mh, realtime_ns);
		if (waited >= rtt)
			waited = 0;	/* a clock step: trust the read time */
		if (waited != 0)
			p->st.kernel_stamps++;
		fn(arg, s->idx, rtt - waited, now_ns - waited);
	}
}

void
autorate_probe_stats(const struct autorate_probe *p,
    struct autorate_probe_stats *st)
{
	*st = p->st;
}

void
autorate_probe_close(struct autorate_probe *p)
{
	if (p == NULL)
		return;
	close(p->fd);
	free(p);
}
