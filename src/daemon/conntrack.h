/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * conntrack.h: the conntrack adapter. Gives each packet seen on the WAN
 * side of a NAT its connection's pre-NAT addresses and ports (for CAKE's
 * `nat` keyword) and its conntrack mark (for `fwmark`), from a cache
 * filled by conntrack events and asynchronous queries over nfnetlink.
 * The packet path never waits for netlink.
 */
#ifndef CAKED_DAEMON_CONNTRACK_H
#define CAKED_DAEMON_CONNTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/natcache.h"

#define CONNTRACK_INFLIGHT_MAX	64	/* queries awaiting an answer */
#define CONNTRACK_QUERY_RATE	2000	/* queries per second at most */
#define CONNTRACK_QUERY_TIMEOUT_NS (1000ULL * 1000 * 1000)

struct cake_pkt;
struct event_base;

enum conntrack_state {
	CONNTRACK_OK = 0,
	CONNTRACK_DEGRADED,	/* queries fail: backing off */
};

struct conntrack_stats {
	enum conntrack_state	state;
	uint64_t	events_new;
	uint64_t	events_update;
	uint64_t	events_destroy;
	uint64_t	queries;	/* sent on cache misses */
	uint64_t	answers;	/* connection found */
	uint64_t	not_found;	/* ENOENT: no such connection */
	uint64_t	query_failures;	/* other errors, send or reply */
	uint64_t	query_skipped;	/* rate, in-flight cap or back-off */
	uint64_t	query_timeouts;	/* no answer within a second */
	uint64_t	enobufs;	/* event socket overruns */
	uint64_t	parse_errors;
	uint32_t	in_flight;
	struct natcache_stats cache;
};

struct conntrack;

/*
 * Opens the netlink sockets, subscribes to conntrack events, checks with
 * one query that conntrack answers, and creates the cache. NULL when
 * conntrack cannot be used; the reason (one line) is then in why.
 */
struct conntrack *conntrack_open(struct event_base *base,
		    uint32_t cache_size, uint64_t expiry_ns, char *why,
		    size_t whylen);
void		 conntrack_close(struct conntrack *ct);
void		 conntrack_set_expiry(struct conntrack *ct,
		    uint64_t expiry_ns);

/*
 * Called for each parsed packet before it is queued: on a cache hit sets
 * the pre-NAT hash tuple (if nat) and the mark (if use_mark); on a miss
 * sends a query (never waits) and leaves the packet as it is. inbound:
 * the packet came from the WAN (download).
 */
void		 conntrack_classify(struct conntrack *ct, struct cake_pkt *pkt,
		    bool inbound, bool nat, bool use_mark, uint64_t now_ns);

/*
 * threads = 2, on main: sends a query a packet thread's cache missed
 * (natcache_classify() gave t), within the same limits.
 */
void		 conntrack_ask(struct conntrack *ct,
		    const struct cake_tuple *t, uint64_t now_ns);

/*
 * threads = 2: what answers and events teach goes to fn (which posts it
 * to each packet thread's cache) instead of ct's own cache.
 */
typedef void	 conntrack_sink_fn(void *arg, const struct natcache_msg *m);
void		 conntrack_set_sink(struct conntrack *ct,
		    conntrack_sink_fn *fn, void *arg);

void		 conntrack_get_stats(const struct conntrack *ct,
		    struct conntrack_stats *st);
const char	*conntrack_state_name(enum conntrack_state state);
/* Logs the counters at LOG_INFO (SIGUSR1). */
void		 conntrack_log_stats(const struct conntrack_stats *st);

#endif /* CAKED_DAEMON_CONNTRACK_H */
