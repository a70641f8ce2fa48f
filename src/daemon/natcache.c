/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * natcache.c: the NAT lookup cache. A fixed array of entries, chained in
 * a power-of-two bucket table by index, and kept on one doubly linked
 * LRU list (most recently used first). All memory is allocated by
 * natcache_create(); when the cache is full the least recently used
 * entry is evicted. Entries are either positive (a pre-NAT tuple and a
 * conntrack mark; they expire after a configurable idle time) or
 * negative ("asked, no answer yet or none"; they expire after
 * NATCACHE_NEG_TTL_NS, which also limits how often one tuple is queried).
 *
 * This module is pure: no I/O, no clock, no logging. It knows nothing of
 * netlink; conntrack.c fills it and datapath.c reads it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "daemon/natcache.h"

#define NATCACHE_PROTO_TCP	6
#define NATCACHE_PROTO_UDP	17

#define NATCACHE_NIL	UINT32_MAX

enum natcache_kind {
	KIND_FREE = 0,
	KIND_POSITIVE,
	KIND_NEGATIVE,
};

struct natcache_entry {
	struct cake_tuple	key;		/* as on the wire */
	struct cake_tuple	orig;		/* pre-NAT, to hash */
	uint64_t		expires_ns;
	uint32_t		mark;
	uint32_t		hnext;		/* bucket chain */
	uint32_t		prev;		/* LRU list */
	uint32_t		next;
	uint8_t			kind;		/* enum natcache_kind */
};

struct natcache {
	struct natcache_entry	*e;
	uint32_t		*bucket;
	uint32_t		 size;
	uint32_t		 mask;		/* buckets - 1 */
	uint32_t		 head;		/* most recently used */
	uint32_t		 tail;		/* least recently used */
	uint32_t		 free;		/* free list, through hnext */
	uint64_t		 expiry_ns;
	uint64_t		 seed;
	struct natcache_stats	 st;
};

/* 64-bit mix over the tuple's fields (splitmix64 finaliser). */
static uint64_t
natcache_mix(uint64_t h)
{
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	return h ^ (h >> 31);
}

static uint32_t
natcache_hash(const struct natcache *c, const struct cake_tuple *t)
{
	uint64_t	h = c->seed, w;
	size_t		i;

	for (i = 0; i < 16; i += 8) {
		memcpy(&w, t->src + i, sizeof(w));
		h = natcache_mix(h ^ w);
		memcpy(&w, t->dst + i, sizeof(w));
		h = natcache_mix(h ^ w);
	}
	w = (uint64_t)t->sport << 32 | (uint64_t)t->dport << 16 |
	    (uint64_t)t->proto << 8 | t->family;
	return (uint32_t)natcache_mix(h ^ w) & c->mask;
}

static bool
natcache_same(const struct cake_tuple *a, const struct cake_tuple *b)
{
	return a->family == b->family && a->proto == b->proto &&
	    a->sport == b->sport && a->dport == b->dport &&
	    memcmp(a->src, b->src, sizeof(a->src)) == 0 &&
	    memcmp(a->dst, b->dst, sizeof(a->dst)) == 0;
}

void
natcache_reverse(const struct cake_tuple *t, struct cake_tuple *out)
{
	struct cake_tuple	r;

	memcpy(r.src, t->dst, sizeof(r.src));
	memcpy(r.dst, t->src, sizeof(r.dst));
	r.sport = t->dport;
	r.dport = t->sport;
	r.proto = t->proto;
	r.family = t->family;
	*out = r;
}

struct natcache *
natcache_create(uint32_t size, uint64_t expiry_ns, uint64_t seed)
{
	struct natcache	*c;
	uint32_t	 buckets = 1, i;

	if (size < NATCACHE_SIZE_MIN || size > NATCACHE_SIZE_MAX)
		return NULL;
	while (buckets < size)
		buckets <<= 1;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->e = calloc(size, sizeof(*c->e));
	c->bucket = calloc(buckets, sizeof(*c->bucket));
	if (c->e == NULL || c->bucket == NULL) {
		natcache_destroy(c);
		return NULL;
	}
	c->size = size;
	c->mask = buckets - 1;
	c->expiry_ns = expiry_ns;
	c->seed = seed;
	c->st.size = size;
	for (i = 0; i < buckets; i++)
		c->bucket[i] = NATCACHE_NIL;
	c->head = c->tail = NATCACHE_NIL;
	for (i = 0; i < size; i++)
		c->e[i].hnext = i + 1 < size ? i + 1 : NATCACHE_NIL;
	c->free = 0;
	return c;
}

void
natcache_destroy(struct natcache *c)
{
	if (c == NULL)
		return;
	free(c->e);
	free(c->bucket);
	free(c);
}

void
natcache_set_expiry(struct natcache *c, uint64_t expiry_ns)
{
	c->expiry_ns = expiry_ns;
}

/* ---- the LRU list ------------------------------------------------------ */

static void
natcache_lru_unlink(struct natcache *c, uint32_t i)
{
	struct natcache_entry	*e = &c->e[i];

	if (e->prev != NATCACHE_NIL)
		c->e[e->prev].next = e->next;
	else
		c->head = e->next;
	if (e->next != NATCACHE_NIL)
		c->e[e->next].prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NATCACHE_NIL;
}

static void
natcache_lru_front(struct natcache *c, uint32_t i)
{
	struct natcache_entry	*e = &c->e[i];

	e->prev = NATCACHE_NIL;
	e->next = c->head;
	if (c->head != NATCACHE_NIL)
		c->e[c->head].prev = i;
	c->head = i;
	if (c->tail == NATCACHE_NIL)
		c->tail = i;
}

/* ---- entries ----------------------------------------------------------- */

/* Index of the entry for t, or NATCACHE_NIL; *pp gets the link to it. */
static uint32_t
natcache_find(struct natcache *c, const struct cake_tuple *t, uint32_t **pp)
{
	uint32_t	*p = &c->bucket[natcache_hash(c, t)];

	while (*p != NATCACHE_NIL && !natcache_same(&c->e[*p].key, t))
		p = &c->e[*p].hnext;
	if (pp != NULL)
		*pp = p;
	return *p;
}

/* Unlinks entry i (found through its chain link p) and frees it. */
static void
natcache_drop(struct natcache *c, uint32_t *p, uint32_t i)
{
	*p = c->e[i].hnext;
	natcache_lru_unlink(c, i);
	c->e[i].kind = KIND_FREE;
	c->e[i].hnext = c->free;
	c->free = i;
	c->st.entries--;
}

static void
natcache_evict(struct natcache *c)
{
	uint32_t	i = c->tail, *p;

	if (i == NATCACHE_NIL)
		return;
	(void)natcache_find(c, &c->e[i].key, &p);
	natcache_drop(c, p, i);
	c->st.evictions++;
}

/* The entry for t, created (evicting if full) when absent. */
static struct natcache_entry *
natcache_slot(struct natcache *c, const struct cake_tuple *t)
{
	uint32_t	*p, i;

	if ((i = natcache_find(c, t, &p)) != NATCACHE_NIL) {
		natcache_lru_unlink(c, i);
		natcache_lru_front(c, i);
		c->st.updates++;
		return &c->e[i];
	}
	if (c->free == NATCACHE_NIL) {
		natcache_evict(c);
		(void)natcache_find(c, t, &p);	/* the chain may have changed */
	}
	i = c->free;
	c->free = c->e[i].hnext;
	c->e[i].key = *t;
	c->e[i].hnext = NATCACHE_NIL;
	*p = i;
	natcache_lru_front(c, i);
	c->st.entries++;
	c->st.inserts++;
	return &c->e[i];
}

enum natcache_result
natcache_lookup(struct natcache *c, const struct cake_tuple *wire,
    uint64_t now_ns, struct cake_tuple *orig, uint32_t *mark)
{
	struct natcache_entry	*e;
	uint32_t		*p, i;

	if ((i = natcache_find(c, wire, &p)) == NATCACHE_NIL) {
		c->st.misses++;
		return NATCACHE_MISS;
	}
	e = &c->e[i];
	if (now_ns >= e->expires_ns) {
		natcache_drop(c, p, i);
		c->st.expiries++;
		c->st.misses++;
		return NATCACHE_MISS;
	}
	if (e->kind == KIND_NEGATIVE) {
		c->st.neg_hits++;
		return NATCACHE_NEGATIVE;
	}
	natcache_lru_unlink(c, i);
	natcache_lru_front(c, i);
	e->expires_ns = now_ns + c->expiry_ns;
	*orig = e->orig;
	*mark = e->mark;
	c->st.hits++;
	return NATCACHE_HIT;
}

void
natcache_put(struct natcache *c, const struct cake_tuple *wire,
    const struct cake_tuple *orig, uint32_t mark, uint64_t now_ns)
{
	struct natcache_entry	*e = natcache_slot(c, wire);

	e->kind = KIND_POSITIVE;
	e->orig = *orig;
	e->mark = mark;
	e->expires_ns = now_ns + c->expiry_ns;
}

void
natcache_put_negative(struct natcache *c, const struct cake_tuple *wire,
    uint64_t now_ns)
{
	struct natcache_entry	*e;
	uint32_t		 i;

	i = natcache_find(c, wire, NULL);
	if (i != NATCACHE_NIL && c->e[i].kind == KIND_POSITIVE &&
	    now_ns < c->e[i].expires_ns)
		return;
	e = natcache_slot(c, wire);
	e->kind = KIND_NEGATIVE;
	e->mark = 0;
	e->expires_ns = now_ns + NATCACHE_NEG_TTL_NS;
}

void
natcache_put_conn(struct natcache *c, const struct cake_tuple *lan_out,
    const struct cake_tuple *wan_in, uint32_t mark, uint64_t now_ns)
{
	struct cake_tuple	wire_out, lan_in;

	natcache_reverse(wan_in, &wire_out);
	natcache_reverse(lan_out, &lan_in);
	natcache_put(c, &wire_out, lan_out, mark, now_ns);
	natcache_put(c, wan_in, &lan_in, mark, now_ns);
}

/* Removes the entry for wire; true if there was one. */
static bool
natcache_remove(struct natcache *c, const struct cake_tuple *wire)
{
	uint32_t	*p, i;

	if ((i = natcache_find(c, wire, &p)) == NATCACHE_NIL)
		return false;
	natcache_drop(c, p, i);
	return true;
}

void
natcache_remove_conn(struct natcache *c, const struct cake_tuple *lan_out,
    const struct cake_tuple *wan_in)
{
	struct cake_tuple	wire_out;

	(void)lan_out;	/* the keys are the WAN-side tuples */
	natcache_reverse(wan_in, &wire_out);
	if (natcache_remove(c, &wire_out))
		c->st.removals++;
	if (natcache_remove(c, wan_in))
		c->st.removals++;
}

void
natcache_flush(struct natcache *c)
{
	while (c->tail != NATCACHE_NIL)
		(void)natcache_remove(c, &c->e[c->tail].key);
}

void
natcache_get_stats(const struct natcache *c, struct natcache_stats *st)
{
	*st = c->st;
}

/* Only TCP and UDP packets with ports of their own are looked up. */
static bool
natcache_wanted(const struct cake_pkt *pkt)
{
	const struct cake_tuple	*w = &pkt->meta.tuple;

	return pkt->meta_valid && w->family != 0 &&
	    (w->proto == NATCACHE_PROTO_TCP ||
	    w->proto == NATCACHE_PROTO_UDP) &&
	    !(pkt->meta.flags & (CAKE_META_FRAG | CAKE_META_6IN4));
}

bool
natcache_classify(struct natcache *c, struct cake_pkt *pkt, bool inbound,
    bool nat, bool use_mark, uint64_t now_ns, struct cake_tuple *ask)
{
	const struct cake_tuple	*w = &pkt->meta.tuple;
	struct cake_tuple	 orig;
	uint32_t		 mark;

	if ((!nat && !use_mark) || !natcache_wanted(pkt))
		return false;
	switch (natcache_lookup(c, w, now_ns, &orig, &mark)) {
	case NATCACHE_HIT:
		if (nat) {
			pkt->hash_tuple = orig;
			pkt->hash_valid = true;
		}
		if (use_mark)
			pkt->mark = mark;
		return false;
	case NATCACHE_NEGATIVE:
		return false;
	case NATCACHE_MISS:
		break;
	}
	natcache_put_negative(c, w, now_ns);
	/*
	 * An inbound packet carries a tuple of the connection as it is;
	 * an outbound one was translated, so its reverse is the tuple
	 * conntrack knows (the reply of a masqueraded connection).
	 */
	if (inbound)
		*ask = *w;
	else
		natcache_reverse(w, ask);
	return true;
}

bool
natcache_apply(struct natcache *c, const struct natcache_msg *m)
{
	switch (m->kind) {
	case NATCACHE_MSG_PUT:
		natcache_put_conn(c, &m->lan_out, &m->wan_in, m->mark,
		    m->now_ns);
		return true;
	case NATCACHE_MSG_REMOVE:
		natcache_remove_conn(c, &m->lan_out, &m->wan_in);
		return true;
	}
	return false;
}
