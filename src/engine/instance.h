/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * instance.h: the layout of one CAKE instance, shared by the engine's
 * instance modules (cake.c, dequeue.c, stats.c) and nothing else. The
 * daemon sees only the opaque struct cake of include/caked/cake.h.
 */
#ifndef CAKED_ENGINE_INSTANCE_H
#define CAKED_ENGINE_INSTANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"
#include "engine/cobalt.h"
#include "engine/list.h"
#include "engine/overflow.h"
#include "engine/shaper.h"
#include "engine/tins.h"

/* DRR++ states of a flow queue (doc/cake.md §3). */
enum flow_set {
	FLOW_SET_NONE = 0,
	FLOW_SET_SPARSE,
	FLOW_SET_SPARSE_WAIT,	/* counted sparse, already on old_flows */
	FLOW_SET_BULK,
	FLOW_SET_DECAYING,
};

struct cake_flow {
	struct cake_pkt		*head;
	struct cake_pkt		*tail;
	struct list_node	chain;		/* new, old or decaying list */
	int32_t			deficit;
	uint32_t		qlen;
	uint16_t		srchost;	/* host slot indices in the tin */
	uint16_t		dsthost;
	uint8_t			set;		/* enum flow_set */
	struct cobalt_vars	cvars;
	/* Statistics since the queue was last given to another flow. */
	struct cake_tuple	keys;		/* as hashed (pre-NAT if supplied) */
	uint64_t		bytes;
	uint64_t		pkts;
	uint32_t		drops;
	uint32_t		marks;
};

struct cake_host {
	uint32_t	srchost_tag;
	uint32_t	dsthost_tag;
	uint16_t	srchost_bulk;	/* bulk flows with this source */
	uint16_t	dsthost_bulk;	/* bulk flows with this destination */
};

/*
 * The tables are c->queues long each (flow queues and host slots alike),
 * carved out of the instance's one table allocation (cake.c).
 */
struct cake_tin {
	struct cake_flow	*flows;
	uint32_t		*tags;
	struct cake_host	*hosts;
	uint32_t		*backlogs;	/* its part of c->backlogs */
	struct list_node	new_flows;
	struct list_node	old_flows;
	struct list_node	decaying_flows;

	/* Parameters derived from the tin's threshold rate. */
	struct shaper_rate	rate;
	uint64_t		rate_Bps;
	struct cobalt_params	cparams;
	uint16_t		flow_quantum;
	uint16_t		tin_quantum;

	/* State. */
	uint64_t		time_next_ns;	/* tin's own shaper clock */
	int32_t			tin_deficit;
	uint32_t		sparse_flows;
	uint32_t		bulk_flows;
	uint32_t		decaying_flows_n;
	uint32_t		unresponsive_flows;
	uint32_t		bulk_srchosts;	/* slots: srchost_bulk > 0 */
	uint32_t		bulk_dsthosts;	/* slots: dsthost_bulk > 0 */
	uint64_t		backlog_bytes;

	/* Statistics (§8). */
	uint64_t		pkts;
	uint64_t		bytes;
	uint64_t		drops;
	uint64_t		ecn_marks;
	uint64_t		ack_drops;
	uint64_t		way_directs;
	uint64_t		way_inds;
	uint64_t		way_miss;
	uint64_t		way_cols;
	uint64_t		peak_delay_ns;
	uint64_t		avg_delay_ns;
	uint64_t		base_delay_ns;
	uint32_t		max_len;
};

struct cake {
	struct cake_config	cfg;
	struct cake_env		env;
	struct tins_layout	layout;
	struct shaper_framing	framing;
	struct shaper_rate	rate;		/* global shaper, = tin 0's */
	uint64_t		hash_key[2];
	uint64_t		rng;		/* xorshift64* state */
	uint32_t		queues;		/* per tin, a power of 2 (§3) */
	void			*tables;	/* the block of every table */

	/* Shaper clocks (§2). */
	uint64_t		time_next_ns;
	uint64_t		failsafe_next_ns;
	unsigned int		cur_tin;	/* unlimited mode: DRR position */

	/* Memory (§5). */
	uint64_t		buffer_used;
	uint64_t		buffer_max_used;
	uint64_t		buffer_limit;
	uint64_t		backlog_pkts;
	uint64_t		backlog_bytes;
	uint64_t		backlog_since_ns; /* when it last left 0 */
	uint32_t		*backlogs;	/* by inst_entry() */
	struct overflow		heap;

	/* Autorate-ingress (§7). */
	uint64_t		last_packet_ns;
	uint64_t		avg_gap_ns;
	uint64_t		window_begin_ns;
	uint64_t		window_bytes;
	uint64_t		peak_Bps;
	uint64_t		last_reconfig_ns;

	/* Global statistics. */
	uint64_t		sent_bytes;
	uint64_t		sent_pkts;
	uint64_t		charged_bytes;	/* adjusted bytes the shaper
						 * was charged (group.c) */
	uint64_t		charged_sparse_bytes;	/* of them, sent
						 * from flows not bulk */
	uint64_t		dropped_pkts;
	uint64_t		overlimits;
	uint64_t		non_ip_pkts;
	uint64_t		gso_splits;
	uint64_t		gso_whole;	/* left whole at once (enqueue.c) */
	uint32_t		min_netlen;
	uint32_t		max_netlen;
	uint32_t		min_adjlen;
	uint32_t		max_adjlen;
	uint64_t		avg_netoff;	/* EWMA of offset << 16 */

	struct cake_pkt		*dropped_head;	/* dropped list for the caller */
	struct cake_pkt		*dropped_tail;

	struct cake_tin		tins[CAKE_MAX_TINS];
};

/* The backlogs[] and overflow heap index of queue idx of tin. */
static inline uint32_t
inst_entry(const struct cake *c, unsigned int tin, unsigned int idx)
{
	return tin * c->queues + idx;
}

/*
 * Arithmetic on the instance's state, inline here so that the modules
 * that need it (flows.c, enqueue.c, dequeue.c) do not call back into
 * cake.c, which calls them.
 */
static inline uint64_t
inst_ewma(uint64_t avg, uint64_t sample, unsigned int shift)
{
	return avg - (avg >> shift) + (sample >> shift);
}

/* xorshift64*: the dither of host quanta and BLUE's coin. */
static inline uint32_t
inst_rand(struct cake *c)
{
	uint64_t	x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Shared between the instance modules (defined in cake.c). */
void		inst_drop_pkt(struct cake *c, struct cake_pkt *pkt,
		    enum cake_drop_reason reason);
struct cake_pkt	*inst_pop(struct cake *c, unsigned int tin, unsigned int idx);
uint32_t	inst_advance_shaper(struct cake *c, struct cake_tin *t,
		    const struct cake_pkt *pkt, uint64_t now_ns, bool drop);
void		inst_autorate_apply(struct cake *c, uint64_t now_ns);
/*
 * Sets the shaped rate alone (a worker group's lent rate): the tins'
 * thresholds follow, the memory limit stays, and the time still owed on
 * the shaper clocks is rescaled so the bytes owed stay the same.
 */
void		inst_set_rate(struct cake *c, uint64_t rate_Bps,
		    uint64_t now_ns);

#endif /* CAKED_ENGINE_INSTANCE_H */
