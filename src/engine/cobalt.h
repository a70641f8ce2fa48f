/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * cobalt.h: COBALT, CoDel + BLUE, the per-flow AQM of CAKE (doc/cake.md
 * §5). Pure arithmetic on per-flow state;
 * the caller supplies the time and the random number for BLUE.
 */
#ifndef CAKED_ENGINE_COBALT_H
#define CAKED_ENGINE_COBALT_H

#include <stdbool.h>
#include <stdint.h>

/* Per-tin parameters, derived from the tin's threshold rate. */
struct cobalt_params {
	uint64_t	interval_ns;
	uint64_t	target_ns;
	uint64_t	mtu_time_ns;
	uint32_t	p_inc;		/* Q0.32: 1/256 */
	uint32_t	p_dec;		/* Q0.32: 1/4096 */
};

/* Per-flow state. */
struct cobalt_vars {
	uint32_t	count;
	uint32_t	rec_inv_sqrt;	/* Q0.32 */
	uint64_t	drop_next_ns;
	uint64_t	blue_timer_ns;
	uint32_t	p_drop;		/* Q0.32 */
	bool		dropping;
	bool		ecn_marked;
};

/* Verdict for one dequeued packet. */
enum cobalt_verdict {
	COBALT_PASS = 0,
	COBALT_MARK,		/* deliver with CE set (the caller marks) */
	COBALT_DROP_CODEL,
	COBALT_DROP_BLUE,
};

#define COBALT_P_INC	(1U << 24)
#define COBALT_P_DEC	(1U << 20)

/* Resets a flow's state. */
void	cobalt_vars_init(struct cobalt_vars *v);
/*
 * Decides the fate of a packet at dequeue. sojourn_ns is now minus its
 * enqueue time; bulk_flows is the tin's bulk count in ingress mode, else 0;
 * ect says the packet can carry CE; rnd is 32 random bits for BLUE.
 */
enum cobalt_verdict cobalt_should_drop(struct cobalt_vars *v,
	    const struct cobalt_params *p, uint64_t now_ns, uint64_t sojourn_ns,
	    uint32_t bulk_flows, bool ect, uint32_t rnd);
/* A memory-limit drop hit this flow: BLUE up. True if p_drop left zero. */
bool	cobalt_queue_full(struct cobalt_vars *v, const struct cobalt_params *p,
	    uint64_t now_ns);
/* The flow was found empty: BLUE down, CoDel decays. True if p_drop reached zero. */
bool	cobalt_queue_empty(struct cobalt_vars *v, const struct cobalt_params *p,
	    uint64_t now_ns);
/* 1/sqrt(count) in Q0.32 as the engine keeps it (exposed for tests). */
uint32_t cobalt_inv_sqrt(uint32_t count, uint32_t prev);
/* t + interval / sqrt(count), the next signal time (exposed for tests). */
uint64_t cobalt_control(uint64_t t_ns, uint64_t interval_ns,
	    uint32_t rec_inv_sqrt);

#endif /* CAKED_ENGINE_COBALT_H */
