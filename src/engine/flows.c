/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * flows.c: which queue a packet goes to (doc/cake.md §3).
 *
 * A keyed hash of the packet's keys (the 5-tuple, or host addresses,
 * depending on the isolation mode; the caller's pre-NAT tuple when it
 * supplies one) picks a set of 8 queues; a queue whose tag equals the full
 * hash is reused, else an empty one, else the collision is accepted. In
 * the dual and triple modes each queue also records its source and
 * destination host slots, whose bulk-flow counts divide its quantum.
 */
#include <string.h>

#include "engine/flows.h"

#define FLOWS_MIX	0x9E3779B97F4A7C15ULL

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint32_t
flows_hash(const uint64_t key[2], const void *p, size_t len)
{
	const uint8_t	*b = p;
	uint64_t	h = key[0] ^ (len * FLOWS_MIX);
	uint64_t	w;
	size_t		i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		h = mix64(h ^ w ^ key[1]);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, b + i, len - i);
		h = mix64(h ^ w ^ key[1]);
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Symmetric 5-tuple hash: both directions of a connection hash alike. */
static uint32_t
tuple_hash(const uint64_t key[2], const struct cake_tuple *t)
{
	struct {
		uint8_t		a[16];
		uint8_t		b[16];
		uint16_t	pa, pb;
		uint8_t		proto, family;
	}		k;
	int		cmp;

	memset(&k, 0, sizeof(k));
	cmp = memcmp(t->src, t->dst, 16);
	if (cmp < 0 || (cmp == 0 && t->sport <= t->dport)) {
		memcpy(k.a, t->src, 16);
		memcpy(k.b, t->dst, 16);
		k.pa = t->sport;
		k.pb = t->dport;
	} else {
		memcpy(k.a, t->dst, 16);
		memcpy(k.b, t->src, 16);
		k.pa = t->dport;
		k.pb = t->sport;
	}
	k.proto = t->proto;
	k.family = t->family;
	return flows_hash(key, &k, sizeof(k));
}

static uint32_t
host_hash(const uint64_t key[2], const struct cake_tuple *t, const uint8_t *a)
{
	if (t->family == 0)
		return 0;
	return flows_hash(key, a, 16);
}

static const struct cake_tuple *
keys_of(const struct cake_pkt *pkt)
{
	return pkt->hash_valid ? &pkt->hash_tuple : &pkt->meta.tuple;
}

static bool
dual_src(enum cake_flow_mode m)
{
	return m == CAKE_FLOW_DUAL_SRC || m == CAKE_FLOW_TRIPLE;
}

static bool
dual_dst(enum cake_flow_mode m)
{
	return m == CAKE_FLOW_DUAL_DST || m == CAKE_FLOW_TRIPLE;
}

/*
 * Adds delta (+1 or -1) to a host slot's bulk count, saturating at both
 * ends, and keeps the tin's count of slots with a bulk flow, which a
 * worker group (group.c) weighs its workers by.
 */
static void
host_bulk_add(struct cake_tin *t, uint16_t slot, bool src, int delta)
{
	struct cake_host	*hs = &t->hosts[slot];
	uint16_t		*n = src ? &hs->srchost_bulk :
				    &hs->dsthost_bulk;
	uint32_t		*hosts = src ? &t->bulk_srchosts :
				    &t->bulk_dsthosts;

	if (delta > 0 && *n < UINT16_MAX) {
		if ((*n)++ == 0)
			(*hosts)++;
	} else if (delta < 0 && *n > 0) {
		if (--(*n) == 0)
			(*hosts)--;
	}
}

/*
 * Finds the host slot for hash h by tag, else one with no bulk flows (§3).
 * A tin has as many host slots as queues, a power of two.
 */
static uint16_t
host_slot(const struct cake *c, struct cake_tin *t, uint32_t h, bool src)
{
	unsigned int	idx = h & (c->queues - 1);
	unsigned int	inner = idx % CAKE_SET_WAYS, outer = idx - inner;
	unsigned int	i, k;

	for (i = 0, k = inner; i < CAKE_SET_WAYS; i++) {
		struct cake_host *hs = &t->hosts[outer + k];

		if ((src ? hs->srchost_tag : hs->dsthost_tag) == h)
			return (uint16_t)(outer + k);
		k = (k + 1) % CAKE_SET_WAYS;
	}
	for (i = 0; i < CAKE_SET_WAYS; i++) {
		struct cake_host *hs = &t->hosts[outer + k];

		if ((src ? hs->srchost_bulk : hs->dsthost_bulk) == 0)
			break;
		k = (k + 1) % CAKE_SET_WAYS;
	}
	if (src)
		t->hosts[outer + k].srchost_tag = h;
	else
		t->hosts[outer + k].dsthost_tag = h;
	return (uint16_t)(outer + k);
}

static uint32_t
mode_flow_hash(const struct cake *c, const struct cake_tuple *t)
{
	switch (c->cfg.flow_mode) {
	case CAKE_FLOW_SRCHOST:
		return host_hash(c->hash_key, t, t->src);
	case CAKE_FLOW_DSTHOST:
		return host_hash(c->hash_key, t, t->dst);
	case CAKE_FLOW_HOSTS:
		return host_hash(c->hash_key, t, t->src) ^
		    host_hash(c->hash_key, t, t->dst);
	default:
		return tuple_hash(c->hash_key, t);
	}
}

/* Set-associative search; returns the way's index and whether hosts need allocating. */
static unsigned int
find_way(const struct cake *c, struct cake_tin *t, uint32_t h, bool *fresh)
{
	unsigned int	idx = h & (c->queues - 1);
	unsigned int	inner = idx % CAKE_SET_WAYS, outer = idx - inner;
	unsigned int	i, k;

	if (t->tags[idx] == h && t->flows[idx].set != FLOW_SET_NONE) {
		t->way_directs++;
		*fresh = false;
		return idx;
	}
	for (i = 0, k = inner; i < CAKE_SET_WAYS; i++) {
		if (t->tags[outer + k] == h) {
			if (i > 0)
				t->way_inds++;
			*fresh = t->flows[outer + k].set == FLOW_SET_NONE;
			return outer + k;
		}
		k = (k + 1) % CAKE_SET_WAYS;
	}
	for (i = 0; i < CAKE_SET_WAYS; i++) {
		if (t->flows[outer + k].set == FLOW_SET_NONE) {
			t->way_miss++;
			*fresh = true;
			return outer + k;
		}
		k = (k + 1) % CAKE_SET_WAYS;
	}
	t->way_cols++;
	*fresh = true;
	return outer + k;
}

unsigned int
flows_lookup(struct cake *c, struct cake_tin *t, const struct cake_pkt *pkt)
{
	const struct cake_tuple	*keys = keys_of(pkt);
	enum cake_flow_mode	 mode = c->cfg.flow_mode;
	struct cake_flow	*f;
	unsigned int		 idx;
	uint32_t		 h;
	bool			 fresh;

	if (mode == CAKE_FLOW_BLIND) {
		memset(&t->flows[0].keys, 0, sizeof(t->flows[0].keys));
		return 0;
	}
	h = mode_flow_hash(c, keys);
	idx = find_way(c, t, h, &fresh);
	f = &t->flows[idx];
	if (fresh && t->tags[idx] != h && f->set == FLOW_SET_BULK)
		flows_bulk_dec(c, t, f);	/* collision: the old hosts lose it */
	else if (!fresh) {
		t->tags[idx] = h;
		return idx;
	}
	if (t->tags[idx] != h) {
		/* Another flow now: its statistics start afresh. */
		f->keys = *keys;
		f->bytes = 0;
		f->pkts = 0;
		f->drops = 0;
		f->marks = 0;
	}
	t->tags[idx] = h;
	if (dual_src(mode)) {
		f->srchost = host_slot(c, t, host_hash(c->hash_key, keys,
		    keys->src), true);
		if (f->set == FLOW_SET_BULK)
			host_bulk_add(t, f->srchost, true, 1);
	}
	if (dual_dst(mode)) {
		f->dsthost = host_slot(c, t, host_hash(c->hash_key, keys,
		    keys->dst), false);
		if (f->set == FLOW_SET_BULK)
			host_bulk_add(t, f->dsthost, false, 1);
	}
	return idx;
}

void
flows_bulk_inc(const struct cake *c, struct cake_tin *t,
    const struct cake_flow *f)
{
	if (dual_src(c->cfg.flow_mode))
		host_bulk_add(t, f->srchost, true, 1);
	if (dual_dst(c->cfg.flow_mode))
		host_bulk_add(t, f->dsthost, false, 1);
}

void
flows_bulk_dec(const struct cake *c, struct cake_tin *t,
    const struct cake_flow *f)
{
	/* Saturate at 0: a live mode change may leave counts short. */
	if (dual_src(c->cfg.flow_mode))
		host_bulk_add(t, f->srchost, true, -1);
	if (dual_dst(c->cfg.flow_mode))
		host_bulk_add(t, f->dsthost, false, -1);
}

uint32_t
flows_steer_hash(const uint64_t key[2], const struct cake_pkt *pkt,
    enum flows_steer by)
{
	const struct cake_tuple	*keys = keys_of(pkt);

	switch (by) {
	case FLOWS_STEER_SRC:
		return host_hash(key, keys, keys->src);
	case FLOWS_STEER_DST:
		return host_hash(key, keys, keys->dst);
	default:
		return keys->family == 0 ? 0 : tuple_hash(key, keys);
	}
}

int32_t
flows_quantum(struct cake *c, const struct cake_tin *t,
    const struct cake_flow *f)
{
	uint32_t	load = 1, div;

	if (dual_src(c->cfg.flow_mode) && t->hosts[f->srchost].srchost_bulk > load)
		load = t->hosts[f->srchost].srchost_bulk;
	if (dual_dst(c->cfg.flow_mode) && t->hosts[f->dsthost].dsthost_bulk > load)
		load = t->hosts[f->dsthost].dsthost_bulk;
	div = 65535 / load;
	return (int32_t)(((uint32_t)t->flow_quantum * div +
	    (inst_rand(c) & 0xffff)) >> 16);
}
