/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * natcache.h: a bounded cache from the addresses and ports of a packet as
 * seen on the WAN side of a NAT to the connection's LAN-side (pre-NAT)
 * addresses and ports and its conntrack mark. Pure: no I/O, no clock
 * (every call that needs the time takes now_ns).
 */
#ifndef CAKED_DAEMON_NATCACHE_H
#define CAKED_DAEMON_NATCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"

#define NATCACHE_SIZE_MIN	16U
#define NATCACHE_SIZE_MAX	(1U << 22)	/* 4 Mi entries */
#define NATCACHE_SIZE_DEFAULT	16384U
#define NATCACHE_EXPIRY_DEFAULT_S 120U		/* idle positive entries */
#define NATCACHE_EXPIRY_MAX_S	86400U
#define NATCACHE_NEG_TTL_NS	(1000ULL * 1000 * 1000)	/* "not known" */

/* What natcache_lookup() found. */
enum natcache_result {
	NATCACHE_MISS = 0,	/* nothing (or expired): ask conntrack */
	NATCACHE_HIT,		/* *orig and *mark are filled */
	NATCACHE_NEGATIVE,	/* asked recently, no answer yet or none */
};

struct natcache_stats {
	uint64_t	hits;
	uint64_t	neg_hits;	/* negative entries found */
	uint64_t	misses;
	uint64_t	inserts;	/* new entries, positive or negative */
	uint64_t	updates;	/* existing entries rewritten */
	uint64_t	evictions;	/* least recently used, when full */
	uint64_t	expiries;
	uint64_t	removals;	/* connection destroyed */
	uint32_t	entries;	/* now */
	uint32_t	size;		/* maximum */
};

struct natcache;

/*
 * Creates a cache of at most size entries (NATCACHE_SIZE_MIN..MAX);
 * positive entries expire after expiry_ns without use. seed keys the
 * hash. NULL if out of range or out of memory.
 */
struct natcache	*natcache_create(uint32_t size, uint64_t expiry_ns,
		    uint64_t seed);
void		 natcache_destroy(struct natcache *c);
/* Changes the idle expiry of positive entries (on reload). */
void		 natcache_set_expiry(struct natcache *c, uint64_t expiry_ns);

/*
 * Looks up a tuple as on the wire. A hit refreshes the entry's expiry
 * and fills *orig (the tuple to hash) and *mark.
 */
enum natcache_result natcache_lookup(struct natcache *c,
		    const struct cake_tuple *wire, uint64_t now_ns,
		    struct cake_tuple *orig, uint32_t *mark);

/* Maps wire to orig with mark (inserting or replacing). */
void		 natcache_put(struct natcache *c,
		    const struct cake_tuple *wire,
		    const struct cake_tuple *orig, uint32_t mark,
		    uint64_t now_ns);
/*
 * Records "asked, no answer": lookups return NATCACHE_NEGATIVE for
 * NATCACHE_NEG_TTL_NS. A positive entry for wire is left alone.
 */
void		 natcache_put_negative(struct natcache *c,
		    const struct cake_tuple *wire, uint64_t now_ns);

/*
 * Enters one connection: lan_out is its LAN-side tuple in the outbound
 * direction (LAN host to the far end, before source NAT); wan_in is its
 * WAN-side tuple in the inbound direction (far end to the router, before
 * destination un-NAT). Two entries result: the outbound wire tuple
 * (wan_in reversed) maps to lan_out, and wan_in maps to lan_out
 * reversed. For a masqueraded connection lan_out is conntrack's
 * original tuple and wan_in its reply tuple.
 */
void		 natcache_put_conn(struct natcache *c,
		    const struct cake_tuple *lan_out,
		    const struct cake_tuple *wan_in, uint32_t mark,
		    uint64_t now_ns);
/* Forgets both entries of a connection (same arguments). */
void		 natcache_remove_conn(struct natcache *c,
		    const struct cake_tuple *lan_out,
		    const struct cake_tuple *wan_in);
/* Empties the cache (counters kept). */
void		 natcache_flush(struct natcache *c);
void		 natcache_get_stats(const struct natcache *c,
		    struct natcache_stats *st);

/*
 * The packet path's use of the cache, for a packet as parsed (inbound:
 * it came from the WAN): on a hit sets the pre-NAT hash tuple (if nat)
 * and the mark (if use_mark); on a miss enters a negative entry, fills
 * *ask with the tuple to query conntrack for and returns true (the
 * caller sends or posts the query; the packet is hashed as it is).
 */
bool		 natcache_classify(struct natcache *c, struct cake_pkt *pkt,
		    bool inbound, bool nat, bool use_mark, uint64_t now_ns,
		    struct cake_tuple *ask);

/*
 * What conntrack learnt, as a message to a cache on another thread
 * (threads = 2: main reads conntrack, each packet thread owns a cache).
 */
enum natcache_msg_kind {
	NATCACHE_MSG_PUT = 1,	/* natcache_put_conn() */
	NATCACHE_MSG_REMOVE,	/* natcache_remove_conn() */
};

struct natcache_msg {
	struct cake_tuple	lan_out;
	struct cake_tuple	wan_in;
	uint64_t		now_ns;
	uint32_t		mark;
	uint8_t			kind;	/* enum natcache_msg_kind */
};

/* Applies m to c; false (nothing done) for an unknown kind. */
bool		 natcache_apply(struct natcache *c,
		    const struct natcache_msg *m);

/* Swaps source and destination (addresses and ports) into out. */
void		 natcache_reverse(const struct cake_tuple *t,
		    struct cake_tuple *out);

#endif /* CAKED_DAEMON_NATCACHE_H */
