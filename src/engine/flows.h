/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * flows.h: flow and host hashing with the set-associative tables of
 * doc/cake.md §3 (1024 queues and 1024 host slots per tin, or as many as
 * caked's "queues" sets; 8 ways), and the
 * per-host bulk-flow counts that scale a flow's DRR quantum.
 */
#ifndef CAKED_ENGINE_FLOWS_H
#define CAKED_ENGINE_FLOWS_H

#include <stdint.h>

#include "engine/instance.h"

/* Finds (or allocates) the queue for pkt in tin t; returns its index. */
unsigned int	flows_lookup(struct cake *c, struct cake_tin *t,
		    const struct cake_pkt *pkt);
/* A flow joined / left the bulk set: adjust its hosts' bulk counts. */
void		flows_bulk_inc(const struct cake *c, struct cake_tin *t,
		    const struct cake_flow *f);
void		flows_bulk_dec(const struct cake *c, struct cake_tin *t,
		    const struct cake_flow *f);
/* What a worker group steers a packet by (group.c). */
enum flows_steer {
	FLOWS_STEER_SRC = 0,		/* its source host */
	FLOWS_STEER_DST,		/* its destination host */
	FLOWS_STEER_TUPLE,		/* its 5-tuple, both directions alike */
};
/*
 * The keyed hash of pkt's keys (pre-NAT when supplied) that picks its
 * worker: the same host and tuple hashes the tables use, under the
 * group's own key. 0 for a packet without an IP address.
 */
uint32_t	flows_steer_hash(const uint64_t key[2],
		    const struct cake_pkt *pkt, enum flows_steer by);
/* The flow's DRR quantum divided by its host load, with dither (§3). */
int32_t		flows_quantum(struct cake *c, const struct cake_tin *t,
		    const struct cake_flow *f);

#endif /* CAKED_ENGINE_FLOWS_H */
