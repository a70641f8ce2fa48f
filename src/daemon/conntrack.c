/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * conntrack.c: the conntrack adapter (libmnl, libnetfilter_conntrack).
 *
 * Two NETLINK_NETFILTER sockets, both non-blocking and close-on-exec: one
 * subscribed to conntrack NEW, UPDATE and DESTROY events, one for
 * IPCTNL_MSG_CT_GET queries sent when a packet's tuple is not in the
 * cache. Answers and events are read by libevent callbacks and entered in
 * the cache (natcache.c); the packet that missed is hashed by its own
 * header, and a negative entry keeps its tuple from being asked again for
 * NATCACHE_NEG_TTL_NS. Queries are capped in flight and per second and
 * back off exponentially while they fail. An event socket overrun
 * (ENOBUFS) is counted; entries lost then are found again by queries.
 *
 * With threads = 2 the sockets stay on main while each packet thread
 * owns a cache: a thread's misses reach conntrack_ask() through main,
 * and what is learnt goes to a sink that posts it to every thread
 * (loop.c), so no cache is ever shared between threads.
 *
 * For a masqueraded connection conntrack's original tuple is the LAN
 * side and its reply tuple the WAN side; for one that was only
 * destination-NATed (a port forward) it is the other way round.
 *
 * Needs CAP_NET_ADMIN for as long as it runs (the kernel checks it at
 * every send). It must never block and never log per packet.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>

#include "caked/cake.h"
#include "daemon/conntrack.h"
#include "daemon/log.h"
#include "daemon/natcache.h"
#include "daemon/timer.h"

#define CONNTRACK_BUF_BYTES	65536
#define CONNTRACK_RCVBUF_BYTES	(4 * 1024 * 1024)
#define CONNTRACK_READS_MAX	64	/* datagrams per wakeup */
#define CONNTRACK_PROBE_MS	1000
#define CONNTRACK_BURST		64	/* query tokens */
#define CONNTRACK_BACKOFF_MIN_NS (100ULL * 1000 * 1000)
#define CONNTRACK_BACKOFF_MAX_NS (10ULL * 1000 * 1000 * 1000)
#define CONNTRACK_GROUPS	(NF_NETLINK_CONNTRACK_NEW | \
	NF_NETLINK_CONNTRACK_UPDATE | NF_NETLINK_CONNTRACK_DESTROY)
#define PROTO_TCP		6
#define PROTO_UDP		17

struct conntrack_query {
	uint32_t	seq;
	uint64_t	sent_ns;
	bool		used;
};

struct conntrack {
	struct mnl_socket	*ev_nl;		/* events */
	struct mnl_socket	*q_nl;		/* queries */
	struct event		*ev_events;
	struct event		*ev_answers;
	struct natcache		*cache;	/* none with a sink */
	conntrack_sink_fn	*sink;
	void			*sink_arg;
	struct conntrack_query	 q[CONNTRACK_INFLIGHT_MAX];
	uint32_t		 seq;
	uint64_t		 tokens_ns;	/* token bucket, in time */
	uint64_t		 backoff_ns;
	uint64_t		 quiet_until_ns;
	struct conntrack_stats	 st;
	uint8_t			 buf[CONNTRACK_BUF_BYTES];
};

const char *
conntrack_state_name(enum conntrack_state state)
{
	return state == CONNTRACK_OK ? "ok" : "degraded";
}

/* ---- tuples ------------------------------------------------------------ */

static const uint8_t conntrack_v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

/* One direction of a parsed conntrack entry as a struct cake_tuple. */
static int
conntrack_tuple(const struct nf_conntrack *ct, bool reply,
    struct cake_tuple *t)
{
	uint8_t		l3 = nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO);
	uint32_t	a;

	memset(t, 0, sizeof(*t));
	if (l3 == AF_INET) {
		if (!nfct_attr_is_set(ct, reply ? ATTR_REPL_IPV4_SRC :
		    ATTR_ORIG_IPV4_SRC))
			return -1;
		memcpy(t->src, conntrack_v4mapped, 12);
		memcpy(t->dst, conntrack_v4mapped, 12);
		a = nfct_get_attr_u32(ct, reply ? ATTR_REPL_IPV4_SRC :
		    ATTR_ORIG_IPV4_SRC);
		memcpy(t->src + 12, &a, 4);
		a = nfct_get_attr_u32(ct, reply ? ATTR_REPL_IPV4_DST :
		    ATTR_ORIG_IPV4_DST);
		memcpy(t->dst + 12, &a, 4);
		t->family = 4;
	} else if (l3 == AF_INET6) {
		if (!nfct_attr_is_set(ct, reply ? ATTR_REPL_IPV6_SRC :
		    ATTR_ORIG_IPV6_SRC))
			return -1;
		memcpy(t->src, nfct_get_attr(ct, reply ? ATTR_REPL_IPV6_SRC :
		    ATTR_ORIG_IPV6_SRC), 16);
		memcpy(t->dst, nfct_get_attr(ct, reply ? ATTR_REPL_IPV6_DST :
		    ATTR_ORIG_IPV6_DST), 16);
		t->family = 6;
	} else
		return -1;
	t->proto = nfct_get_attr_u8(ct, reply ? ATTR_REPL_L4PROTO :
	    ATTR_ORIG_L4PROTO);
	if (t->proto == PROTO_TCP || t->proto == PROTO_UDP) {
		t->sport = ntohs(nfct_get_attr_u16(ct, reply ?
		    ATTR_REPL_PORT_SRC : ATTR_ORIG_PORT_SRC));
		t->dport = ntohs(nfct_get_attr_u16(ct, reply ?
		    ATTR_REPL_PORT_DST : ATTR_ORIG_PORT_DST));
	}
	return 0;
}

/*
 * The LAN-side outbound and WAN-side inbound tuples of an entry: only
 * a connection that was destination-NATed alone (a port forward) began
 * on the WAN side.
 */
static int
conntrack_sides(const struct nf_conntrack *ct, struct cake_tuple *lan_out,
    struct cake_tuple *wan_in)
{
	uint32_t	status = 0;
	bool		from_wan;

	if (nfct_attr_is_set(ct, ATTR_STATUS))
		status = nfct_get_attr_u32(ct, ATTR_STATUS);
	from_wan = (status & IPS_DST_NAT) && !(status & IPS_SRC_NAT);
	if (conntrack_tuple(ct, from_wan, lan_out) == -1 ||
	    conntrack_tuple(ct, !from_wan, wan_in) == -1)
		return -1;
	return 0;
}

/* ---- reading ----------------------------------------------------------- */

static void
conntrack_answered(struct conntrack *ct, uint32_t seq)
{
	size_t	i;

	if (seq == 0)
		return;		/* an event */
	for (i = 0; i < CONNTRACK_INFLIGHT_MAX; i++) {
		if (ct->q[i].used && ct->q[i].seq == seq) {
			ct->q[i].used = false;
			ct->st.in_flight--;
			return;
		}
	}
}

static void
conntrack_failing(struct conntrack *ct, int err, uint64_t now_ns)
{
	ct->st.query_failures++;
	ct->backoff_ns = ct->backoff_ns == 0 ? CONNTRACK_BACKOFF_MIN_NS :
	    ct->backoff_ns * 2;
	if (ct->backoff_ns > CONNTRACK_BACKOFF_MAX_NS)
		ct->backoff_ns = CONNTRACK_BACKOFF_MAX_NS;
	ct->quiet_until_ns = now_ns + ct->backoff_ns;
	if (ct->st.state == CONNTRACK_OK)
		log_warnx("conntrack queries failing (%s): packets are hashed "
		    "by their own headers meanwhile", strerror(err));
	ct->st.state = CONNTRACK_DEGRADED;
}

static void
conntrack_working(struct conntrack *ct)
{
	ct->backoff_ns = 0;
	if (ct->st.state == CONNTRACK_DEGRADED)
		log_info("conntrack queries answered again");
	ct->st.state = CONNTRACK_OK;
}

static void
conntrack_error_msg(struct conntrack *ct, const struct nlmsghdr *nlh,
    uint64_t now_ns)
{
	const struct nlmsgerr	*e = mnl_nlmsg_get_payload(nlh);
	int			 err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		ct->st.parse_errors++;
		return;
	}
	conntrack_answered(ct, nlh->nlmsg_seq);
	err = -e->error;
	if (err == 0)
		return;		/* an acknowledgement */
	if (err == ENOENT) {
		ct->st.not_found++;
		conntrack_working(ct);
	} else
		conntrack_failing(ct, err, now_ns);
}

/* Into the cache, or to the sink that fills the packet threads' caches. */
static void
conntrack_learnt(struct conntrack *ct, enum natcache_msg_kind kind,
    const struct cake_tuple *lan_out, const struct cake_tuple *wan_in,
    uint32_t mark, uint64_t now_ns)
{
	struct natcache_msg	m = { .lan_out = *lan_out, .wan_in = *wan_in,
				    .now_ns = now_ns, .mark = mark,
				    .kind = kind };

	if (ct->sink != NULL)
		ct->sink(ct->sink_arg, &m);
	else
		(void)natcache_apply(ct->cache, &m);
}

static void
conntrack_entry_msg(struct conntrack *ct, const struct nlmsghdr *nlh,
    uint64_t now_ns)
{
	struct nf_conntrack	*e;
	struct cake_tuple	 lan_out, wan_in;
	uint8_t			 type = nlh->nlmsg_type & 0xff;
	uint32_t		 mark;

	if ((e = nfct_new()) == NULL || nfct_nlmsg_parse(nlh, e) < 0 ||
	    conntrack_sides(e, &lan_out, &wan_in) == -1) {
		ct->st.parse_errors++;
		if (e != NULL)
			nfct_destroy(e);
		return;
	}
	mark = nfct_attr_is_set(e, ATTR_MARK) ?
	    nfct_get_attr_u32(e, ATTR_MARK) : 0;
	nfct_destroy(e);
	if (type == IPCTNL_MSG_CT_DELETE) {
		ct->st.events_destroy++;
		conntrack_learnt(ct, NATCACHE_MSG_REMOVE, &lan_out, &wan_in,
		    0, now_ns);
		return;
	}
	if (nlh->nlmsg_seq != 0) {
		conntrack_answered(ct, nlh->nlmsg_seq);
		ct->st.answers++;
		conntrack_working(ct);
	} else if (nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL))
		ct->st.events_new++;
	else
		ct->st.events_update++;
	conntrack_learnt(ct, NATCACHE_MSG_PUT, &lan_out, &wan_in, mark,
	    now_ns);
}

static void
conntrack_datagram(struct conntrack *ct, size_t len, uint64_t now_ns)
{
	const struct nlmsghdr	*nlh = (const struct nlmsghdr *)ct->buf;
	int			 left = (int)len;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		if (nlh->nlmsg_type == NLMSG_ERROR)
			conntrack_error_msg(ct, nlh, now_ns);
		else if (nlh->nlmsg_type >> 8 == NFNL_SUBSYS_CTNETLINK &&
		    ((nlh->nlmsg_type & 0xff) == IPCTNL_MSG_CT_NEW ||
		    (nlh->nlmsg_type & 0xff) == IPCTNL_MSG_CT_DELETE))
			conntrack_entry_msg(ct, nlh, now_ns);
	}
}

static void
conntrack_read(struct conntrack *ct, struct mnl_socket *nl)
{
	uint64_t	now_ns = timer_now_ns();
	ssize_t		n;
	int		i;

	for (i = 0; i < CONNTRACK_READS_MAX; i++) {
		n = mnl_socket_recvfrom(nl, ct->buf, sizeof(ct->buf));
		if (n == -1) {
			if (errno == ENOBUFS) {
				ct->st.enobufs++;
				continue;
			}
			break;	/* EAGAIN, or nothing to do about it */
		}
		conntrack_datagram(ct, (size_t)n, now_ns);
	}
}

static void
conntrack_on_events(evutil_socket_t fd, short what, void *arg)
{
	struct conntrack	*ct = arg;

	(void)fd;
	(void)what;
	conntrack_read(ct, ct->ev_nl);
}

static void
conntrack_on_answers(evutil_socket_t fd, short what, void *arg)
{
	struct conntrack	*ct = arg;

	(void)fd;
	(void)what;
	conntrack_read(ct, ct->q_nl);
}

/* ---- queries ----------------------------------------------------------- */

static void
conntrack_put_addr(struct nlmsghdr *nlh, uint16_t type, const uint8_t *a,
    uint8_t family)
{
	if (family == 4)
		mnl_attr_put(nlh, type, 4, a + 12);
	else
		mnl_attr_put(nlh, type, 16, a);
}

/* A CT_GET request for the connection that has tuple t (either way). */
static size_t
conntrack_build_get(uint8_t *buf, const struct cake_tuple *t, uint32_t seq)
{
	struct nlmsghdr	*nlh;
	struct nfgenmsg	*nfg;
	struct nlattr	*tuple, *nest;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = t->family == 4 ? AF_INET : AF_INET6;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	tuple = mnl_attr_nest_start(nlh, CTA_TUPLE_ORIG);
	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	conntrack_put_addr(nlh, t->family == 4 ? CTA_IP_V4_SRC :
	    CTA_IP_V6_SRC, t->src, t->family);
	conntrack_put_addr(nlh, t->family == 4 ? CTA_IP_V4_DST :
	    CTA_IP_V6_DST, t->dst, t->family);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, t->proto);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(t->sport));
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(t->dport));
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, tuple);
	return nlh->nlmsg_len;
}

/* A free in-flight slot (expiring stale ones), or NULL. */
static struct conntrack_query *
conntrack_slot(struct conntrack *ct, uint64_t now_ns)
{
	struct conntrack_query	*free_q = NULL;
	size_t			 i;

	for (i = 0; i < CONNTRACK_INFLIGHT_MAX; i++) {
		if (ct->q[i].used && now_ns - ct->q[i].sent_ns >
		    CONNTRACK_QUERY_TIMEOUT_NS) {
			ct->q[i].used = false;
			ct->st.in_flight--;
			ct->st.query_timeouts++;
		}
		if (!ct->q[i].used && free_q == NULL)
			free_q = &ct->q[i];
	}
	return free_q;
}

/* Token bucket: CONNTRACK_QUERY_RATE per second, CONNTRACK_BURST deep. */
static bool
conntrack_may_send(struct conntrack *ct, uint64_t now_ns)
{
	const uint64_t	cost = 1000000000ULL / CONNTRACK_QUERY_RATE;
	const uint64_t	depth = cost * CONNTRACK_BURST;

	if (now_ns < ct->quiet_until_ns)
		return false;
	if (ct->tokens_ns + depth < now_ns)
		ct->tokens_ns = now_ns - depth;
	if (ct->tokens_ns + cost > now_ns)
		return false;
	ct->tokens_ns += cost;
	return true;
}

static void
conntrack_query(struct conntrack *ct, const struct cake_tuple *t,
    uint64_t now_ns)
{
	uint8_t			 msg[256];
	struct conntrack_query	*q;
	size_t			 len;

	if (!conntrack_may_send(ct, now_ns) ||
	    (q = conntrack_slot(ct, now_ns)) == NULL) {
		ct->st.query_skipped++;
		return;
	}
	if (++ct->seq == 0)
		ct->seq = 1;
	len = conntrack_build_get(msg, t, ct->seq);
	if (mnl_socket_sendto(ct->q_nl, msg, len) == -1) {
		conntrack_failing(ct, errno, now_ns);
		return;
	}
	q->used = true;
	q->seq = ct->seq;
	q->sent_ns = now_ns;
	ct->st.in_flight++;
	ct->st.queries++;
}

void
conntrack_classify(struct conntrack *ct, struct cake_pkt *pkt, bool inbound,
    bool nat, bool use_mark, uint64_t now_ns)
{
	struct cake_tuple	q;

	if (ct != NULL && natcache_classify(ct->cache, pkt, inbound, nat,
	    use_mark, now_ns, &q))
		conntrack_query(ct, &q, now_ns);
}

void
conntrack_ask(struct conntrack *ct, const struct cake_tuple *t,
    uint64_t now_ns)
{
	conntrack_query(ct, t, now_ns);
}

void
conntrack_set_sink(struct conntrack *ct, conntrack_sink_fn *fn, void *arg)
{
	ct->sink = fn;
	ct->sink_arg = arg;
}

/* ---- setup ------------------------------------------------------------- */

/* One query for a connection that cannot exist: ENOENT means it works. */
static int
conntrack_probe(struct conntrack *ct, char *why, size_t whylen)
{
	struct cake_tuple	 t;
	struct pollfd		 pfd;
	const struct nlmsgerr	*e;
	const struct nlmsghdr	*nlh = (const struct nlmsghdr *)ct->buf;
	size_t			 len;
	ssize_t			 n;

	memset(&t, 0, sizeof(t));
	t.family = 4;
	t.proto = PROTO_TCP;
	len = conntrack_build_get(ct->buf, &t, ++ct->seq);
	if (mnl_socket_sendto(ct->q_nl, ct->buf, len) == -1) {
		(void)snprintf(why, whylen, "query: %s", strerror(errno));
		return -1;
	}
	pfd.fd = mnl_socket_get_fd(ct->q_nl);
	pfd.events = POLLIN;
	if (poll(&pfd, 1, CONNTRACK_PROBE_MS) != 1 ||
	    (n = mnl_socket_recvfrom(ct->q_nl, ct->buf, sizeof(ct->buf))) <
	    (ssize_t)sizeof(*nlh)) {
		(void)snprintf(why, whylen, "no answer to a query");
		return -1;
	}
	if (nlh->nlmsg_type != NLMSG_ERROR)
		return 0;	/* an entry: it works */
	e = mnl_nlmsg_get_payload(nlh);
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) || (e->error != 0 &&
	    -e->error != ENOENT)) {
		(void)snprintf(why, whylen, "query: %s",
		    mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) ?
		    "bad answer" : strerror(-e->error));
		return -1;
	}
	return 0;
}

static struct mnl_socket *
conntrack_socket(unsigned int groups, const char *what, char *why,
    size_t whylen)
{
	struct mnl_socket	*nl;
	int			 sz = CONNTRACK_RCVBUF_BYTES;

	if ((nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) == NULL) {
		(void)snprintf(why, whylen, "%s socket: %s", what,
		    strerror(errno));
		return NULL;
	}
	if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) == -1) {
		(void)snprintf(why, whylen, "%s: %s", what, strerror(errno));
		mnl_socket_close(nl);
		return NULL;
	}
	/* Bursts of events must not overrun it; FORCE needs CAP_NET_ADMIN. */
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &sz,
	    sizeof(sz)) == -1)
		(void)setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF,
		    &sz, sizeof(sz));
	return nl;
}

struct conntrack *
conntrack_open(struct event_base *base, uint32_t cache_size,
    uint64_t expiry_ns, char *why, size_t whylen)
{
	struct conntrack	*ct;
	uint64_t		 seed = timer_now_ns();

	if ((ct = calloc(1, sizeof(*ct))) == NULL) {
		(void)snprintf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	seed ^= (uint64_t)(uintptr_t)ct;
	if ((ct->cache = natcache_create(cache_size, expiry_ns, seed)) ==
	    NULL) {
		(void)snprintf(why, whylen, "cannot allocate the NAT cache");
		goto fail;
	}
	if ((ct->ev_nl = conntrack_socket(CONNTRACK_GROUPS, "event "
	    "subscription", why, whylen)) == NULL ||
	    (ct->q_nl = conntrack_socket(0, "query", why, whylen)) == NULL ||
	    conntrack_probe(ct, why, whylen) == -1)
		goto fail;
	ct->ev_events = event_new(base, mnl_socket_get_fd(ct->ev_nl),
	    EV_READ | EV_PERSIST, conntrack_on_events, ct);
	ct->ev_answers = event_new(base, mnl_socket_get_fd(ct->q_nl),
	    EV_READ | EV_PERSIST, conntrack_on_answers, ct);
	if (ct->ev_events == NULL || ct->ev_answers == NULL ||
	    event_add(ct->ev_events, NULL) == -1 ||
	    event_add(ct->ev_answers, NULL) == -1) {
		(void)snprintf(why, whylen, "cannot add events");
		goto fail;
	}
	return ct;
fail:
	conntrack_close(ct);
	return NULL;
}

void
conntrack_close(struct conntrack *ct)
{
	if (ct == NULL)
		return;
	if (ct->ev_events != NULL)
		event_free(ct->ev_events);
	if (ct->ev_answers != NULL)
		event_free(ct->ev_answers);
	if (ct->ev_nl != NULL)
		mnl_socket_close(ct->ev_nl);
	if (ct->q_nl != NULL)
		mnl_socket_close(ct->q_nl);
	natcache_destroy(ct->cache);
	free(ct);
}

void
conntrack_set_expiry(struct conntrack *ct, uint64_t expiry_ns)
{
	natcache_set_expiry(ct->cache, expiry_ns);
}

void
conntrack_get_stats(const struct conntrack *ct, struct conntrack_stats *st)
{
	*st = ct->st;
	natcache_get_stats(ct->cache, &st->cache);
}

void
conntrack_log_stats(const struct conntrack_stats *st)
{
	const struct conntrack_stats	s = *st;

	log_info("nat: conntrack=%s cache_entries=%u/%u hits=%" PRIu64
	    " misses=%" PRIu64 " neg_hits=%" PRIu64 " evictions=%" PRIu64
	    " expiries=%" PRIu64 " events_new=%" PRIu64 " events_update=%"
	    PRIu64 " events_destroy=%" PRIu64 " queries=%" PRIu64
	    " answers=%" PRIu64 " not_found=%" PRIu64 " query_failures=%"
	    PRIu64 " query_skipped=%" PRIu64 " query_timeouts=%" PRIu64
	    " enobufs=%" PRIu64 " parse_errors=%" PRIu64,
	    conntrack_state_name(s.state), s.cache.entries, s.cache.size,
	    s.cache.hits, s.cache.misses, s.cache.neg_hits,
	    s.cache.evictions, s.cache.expiries, s.events_new,
	    s.events_update, s.events_destroy, s.queries, s.answers,
	    s.not_found, s.query_failures, s.query_skipped,
	    s.query_timeouts, s.enobufs, s.parse_errors);
}
