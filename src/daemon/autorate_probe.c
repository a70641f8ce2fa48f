/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_probe.c: the ICMP adapter of autorate. One socket per address
 * family for all reflectors: a raw ICMP (ICMPv6) socket when caked may open
 * one (root or CAP_NET_RAW at startup), else a "ping socket" (SOCK_DGRAM;
 * the kernel then owns the identifier and filters replies for us).
 *
 * Two kinds of probe. An echo request (IPv4 or IPv6) carries an identifier,
 * a sequence number and a magic. A timestamp request (ICMP type 13, IPv4
 * only, and only on a raw socket: ping sockets send echo alone) carries
 * our originate timestamp, milliseconds since midnight UTC; its reply (type
 * 14) adds the reflector's receive and transmit timestamps, from which
 * autorate takes the one-way delay out and back (its clock offset is
 * unknown: only the variation counts, see autorate.c). Both kinds have
 * their send time and target remembered in a ring of PROBE_INFLIGHT_MAX
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
 * It must not interpret the delays, and must not block.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>

#include <netinet/icmp6.h>
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
#define PROBE_TS_LEN	20		/* ICMP header + three timestamps */
#define PROBE_DAY_MS	86400000ULL

struct ap_slot {
	uint64_t	send_ns;
	uint32_t	originate_ms;	/* timestamp requests */
	uint16_t	seq;
	uint8_t		idx;
	uint8_t		kind;
	uint8_t		used;
};

struct ap_payload {
	uint32_t	magic;
	uint32_t	idx;
	uint64_t	send_ns;
};

struct autorate_probe {
	int			fd;
	int			fd6;		/* -1: no IPv6 */
	int			raw;		/* 1: raw socket, IP header */
	int			raw6;
	uint16_t		ident;
	uint16_t		seq;
	unsigned int		ntargets;
	struct autorate_addr	target[PROBE_TARGETS_MAX];
	struct ap_slot		slot[PROBE_INFLIGHT_MAX];
	struct autorate_probe_stats	st;
};

/* A raw socket of family/proto, else a ping socket; sets *raw. */
static int
ap_socket(int family, int proto, int *raw)
{
	int	fd, one = 1;

	*raw = 1;
	fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (fd == -1) {
		*raw = 0;
		fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, proto);
	}
	if (fd == -1)
		return -1;
	/* without it, arrival = read time (see above); not fatal */
	(void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	return fd;
}

/* A raw ICMPv6 socket sees every ICMPv6 message: echo replies only. */
static void
ap_filter6(int fd)
{
	struct icmp6_filter	f;

	ICMP6_FILTER_SETBLOCKALL(&f);
	ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &f);
	(void)setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f));
}

struct autorate_probe *
autorate_probe_open(void)
{
	struct autorate_probe	*p;
	int			 fd, raw, saved;

	if ((fd = ap_socket(AF_INET, IPPROTO_ICMP, &raw)) == -1)
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	p->fd = fd;
	p->raw = raw;
	p->fd6 = ap_socket(AF_INET6, IPPROTO_ICMPV6, &p->raw6);
	if (p->fd6 != -1 && p->raw6)
		ap_filter6(p->fd6);
	p->ident = (uint16_t)(getpid() ^ 0x5ca1);
	return p;
}

const char *
autorate_probe_kind(const struct autorate_probe *p)
{
	return p->raw ? "raw" : "ping socket";
}

bool
autorate_probe_can_timestamp(const struct autorate_probe *p)
{
	return p->raw != 0;
}

int
autorate_probe_fd(const struct autorate_probe *p)
{
	return p->fd;
}

int
autorate_probe_fd6(const struct autorate_probe *p)
{
	return p->fd6;
}

void
autorate_probe_set_targets(struct autorate_probe *p,
    const struct autorate_addr *a, unsigned int n)
{
	if (n > PROBE_TARGETS_MAX)
		n = PROBE_TARGETS_MAX;
	memcpy(p->target, a, n * sizeof(*a));
	p->ntargets = n;
	memset(p->slot, 0, sizeof(p->slot));
}

/* Milliseconds since midnight UTC now (ICMP timestamps, RFC 792). */
static uint32_t
ap_realtime_ms(void)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)((((uint64_t)ts.tv_sec * 1000ULL) +
	    (uint64_t)ts.tv_nsec / 1000000ULL) % PROBE_DAY_MS);
}

/* Builds the request into pkt; returns its length. */
static size_t
ap_build(struct autorate_probe *p, unsigned int idx, int kind,
    uint64_t now_ns, unsigned char *pkt, uint32_t *orig)
{
	struct ap_payload	pl;
	uint32_t		ts[3];
	int			v6 = p->target[idx].family == AF_INET6;

	memset(pkt, 0, 8);
	pkt[0] = v6 ? ICMP6_ECHO_REQUEST : kind == PROBE_TIMESTAMP ?
	    ICMP_TIMESTAMP : ICMP_ECHO;
	csum_put16(pkt + 4, p->ident);
	csum_put16(pkt + 6, p->seq);
	if (kind == PROBE_TIMESTAMP) {
		*orig = ap_realtime_ms();
		ts[0] = htonl(*orig);
		ts[1] = ts[2] = 0;
		memcpy(pkt + 8, ts, sizeof(ts));
		csum_put16(pkt + 2, csum_fold(csum_add(0, pkt,
		    PROBE_TS_LEN)));
		return PROBE_TS_LEN;
	}
	pl.magic = PROBE_MAGIC;
	pl.idx = idx;
	pl.send_ns = now_ns;
	memcpy(pkt + 8, &pl, sizeof(pl));
	/* the kernel sums ICMPv6 itself (it covers a pseudo-header) */
	if (!v6)
		csum_put16(pkt + 2, csum_fold(csum_add(0, pkt,
		    8 + sizeof(pl))));
	return 8 + sizeof(pl);
}

/* Sends len bytes of pkt to target idx on the socket of its family. */
static int
ap_sendto(struct autorate_probe *p, unsigned int idx,
    const unsigned char *pkt, size_t len)
{
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;
	const struct autorate_addr *a = &p->target[idx];

	if (a->family == AF_INET6) {
		if (p->fd6 == -1) {
			errno = EAFNOSUPPORT;
			return -1;
		}
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_addr = a->u.v6;
		return (int)sendto(p->fd6, pkt, len, 0,
		    (struct sockaddr *)&sin6, sizeof(sin6));
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr = a->u.v4;
	return (int)sendto(p->fd, pkt, len, 0, (struct sockaddr *)&sin,
	    sizeof(sin));
}

int
autorate_probe_send(struct autorate_probe *p, unsigned int idx, int kind,
    uint64_t now_ns)
{
	unsigned char	 pkt[64];
	struct ap_slot	*s;
	uint32_t	 orig = 0;
	size_t		 len;

	if (idx >= p->ntargets || (kind == PROBE_TIMESTAMP &&
	    (p->target[idx].family != AF_INET || !p->raw))) {
		errno = EINVAL;
		p->st.send_errors++;
		return -1;
	}
	p->seq++;
	len = ap_build(p, idx, kind, now_ns, pkt, &orig);
	if (ap_sendto(p, idx, pkt, len) == -1) {
		p->st.send_errors++;
		return -1;
	}
	s = &p->slot[p->seq % PROBE_INFLIGHT_MAX];
	s->send_ns = now_ns;
	s->originate_ms = orig;
	s->seq = p->seq;
	s->idx = (uint8_t)idx;
	s->kind = (uint8_t)kind;
	s->used = 1;
	p->st.sent++;
	return 0;
}

/* Whether from is target idx's address. */
static int
ap_from(const struct autorate_probe *p, unsigned int idx,
    const struct sockaddr_storage *from)
{
	const struct autorate_addr	*a = &p->target[idx];
	const struct sockaddr_in	*s4 = (const void *)from;
	const struct sockaddr_in6	*s6 = (const void *)from;

	if (a->family != from->ss_family)
		return 0;
	if (a->family == AF_INET)
		return a->u.v4.s_addr == s4->sin_addr.s_addr;
	return memcmp(&a->u.v6, &s6->sin6_addr, sizeof(a->u.v6)) == 0;
}

/* The ICMP type a reply to kind has in family. */
static unsigned int
ap_reply_type(int family, int kind)
{
	if (family == AF_INET6)
		return ICMP6_ECHO_REPLY;
	return kind == PROBE_TIMESTAMP ? ICMP_TIMESTAMPREPLY : ICMP_ECHOREPLY;
}

/*
 * Matches one received message (ICMP header at m, len bytes); returns the
 * slot or NULL, and the reply's timestamps into rep.
 */
static struct ap_slot *
ap_match(struct autorate_probe *p, const unsigned char *m, size_t len,
    const struct sockaddr_storage *from, int raw,
    struct autorate_probe_reply *rep)
{
	struct ap_payload	 pl;
	struct ap_slot		*s;
	uint32_t		 ts[3];
	uint16_t		 seq;

	if (len < 8)
		return NULL;
	seq = (uint16_t)(m[6] << 8 | m[7]);
	s = &p->slot[seq % PROBE_INFLIGHT_MAX];
	if (!s->used || s->seq != seq || s->idx >= p->ntargets ||
	    !ap_from(p, s->idx, from) ||
	    m[0] != ap_reply_type(from->ss_family, s->kind) ||
	    (raw && (uint16_t)(m[4] << 8 | m[5]) != p->ident))
		return NULL;
	if (s->kind == PROBE_TIMESTAMP) {
		if (len < PROBE_TS_LEN)
			return NULL;
		memcpy(ts, m + 8, sizeof(ts));
		if (ntohl(ts[0]) != s->originate_ms)
			return NULL;
		rep->originate_ms = ntohl(ts[0]);
		rep->receive_ms = ntohl(ts[1]);
		rep->transmit_ms = ntohl(ts[2]);
		return s;
	}
	if (len < 8 + sizeof(pl))
		return NULL;
	memcpy(&pl, m + 8, sizeof(pl));
	if (pl.magic != PROBE_MAGIC || pl.idx != s->idx)
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

/* One matched reply: its round trip and arrival, to fn. */
static void
ap_deliver(struct autorate_probe *p, struct ap_slot *s, struct msghdr *mh,
    uint64_t now_ns, uint64_t realtime_ns, struct autorate_probe_reply *rep,
    autorate_probe_reply_fn *fn, void *arg)
{
	uint64_t	rtt, waited;

	s->used = 0;
	p->st.replies++;
	rtt = now_ns > s->send_ns ? now_ns - s->send_ns : 0;
	waited = ap_waited_ns(mh, realtime_ns);
	if (waited >= rtt)
		waited = 0;	/* a clock step: trust the read time */
	if (waited != 0)
		p->st.kernel_stamps++;
	rep->idx = s->idx;
	rep->kind = s->kind;
	rep->rtt_ns = rtt - waited;
	rep->now_ns = now_ns - waited;
	rep->arrival_ms = (uint32_t)((realtime_ns - waited) / 1000000ULL %
	    PROBE_DAY_MS);
	fn(arg, rep);
}

/* Reads the waiting replies of fd (a raw socket if raw). */
static void
ap_recv_fd(struct autorate_probe *p, int fd, int raw, uint64_t now_ns,
    uint64_t realtime_ns, autorate_probe_reply_fn *fn, void *arg)
{
	unsigned char		 buf[PROBE_PKT_MAX];
	union {
		struct cmsghdr	 align;
		unsigned char	 b[CMSG_SPACE(sizeof(struct timespec)) + 64];
	}			 ctl;
	struct autorate_probe_reply rep;
	struct sockaddr_storage	 from;
	struct iovec		 iov;
	struct msghdr		 mh;
	struct ap_slot		*s;
	size_t			 off;
	ssize_t			 n;
	int			 i;

	/* bounded, so a flood of ICMP cannot hold the loop */
	for (i = 0; i < 64; i++) {
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		memset(&mh, 0, sizeof(mh));
		memset(&from, 0, sizeof(from));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		if ((n = recvmsg(fd, &mh, 0)) == -1)
			break;	/* EAGAIN, or an ICMP error: next time */
		memset(&rep, 0, sizeof(rep));
		/* only a raw IPv4 socket hands over the IP header */
		off = raw && from.ss_family == AF_INET && n > 0 ?
		    (size_t)(buf[0] & 0x0f) * 4 : 0;
		if ((size_t)n < off || (s = ap_match(p, buf + off,
		    (size_t)n - off, &from, raw, &rep)) == NULL) {
			p->st.unmatched++;
			continue;
		}
		ap_deliver(p, s, &mh, now_ns, realtime_ns, &rep, fn, arg);
	}
}

void
autorate_probe_recv(struct autorate_probe *p, uint64_t now_ns,
    autorate_probe_reply_fn *fn, void *arg)
{
	struct timespec	rt;
	uint64_t	realtime_ns;

	(void)clock_gettime(CLOCK_REALTIME, &rt);
	realtime_ns = (uint64_t)rt.tv_sec * 1000000000ULL +
	    (uint64_t)rt.tv_nsec;
	ap_recv_fd(p, p->fd, p->raw, now_ns, realtime_ns, fn, arg);
	if (p->fd6 != -1)
		ap_recv_fd(p, p->fd6, p->raw6, now_ns, realtime_ns, fn, arg);
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
	if (p->fd6 != -1)
		close(p->fd6);
	free(p);
}
