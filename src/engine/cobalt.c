/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * cobalt.c: COBALT (CoDel + BLUE) for one flow queue.
 *
 * CoDel signals a standing queue: once a packet's sojourn stays over target,
 * a signal (CE mark for ECT packets, else a drop) is due every
 * interval/sqrt(count). BLUE handles flows that ignore signals: its drop
 * probability rises on memory-limit drops and falls when the queue is found
 * empty. Numbers from doc/cake.md §5; the fixed-point forms follow the
 * kernel's so that timings match. This module never touches packets: it
 * returns a verdict and the caller marks or drops.
 */
#include "engine/cobalt.h"

/* 1/sqrt(n) in Q0.32 for n = 0..15, as CAKE precomputes them. */
static const uint32_t inv_sqrt_table[16] = {
	0xFFFFFFFF, 0xFFFFFFFF, 3037000500u, 2479700525u,
	2147483647u, 1920767767u, 1753413056u, 1623345051u,
	1518500250u, 1431655765u, 1358187914u, 1294981364u,
	1239850263u, 1191209601u, 1147878294u, 1108955788u,
};

void
cobalt_vars_init(struct cobalt_vars *v)
{
	v->count = 0;
	v->rec_inv_sqrt = inv_sqrt_table[0];
	v->drop_next_ns = 0;
	v->blue_timer_ns = 0;
	v->p_drop = 0;
	v->dropping = false;
	v->ecn_marked = false;
}

/*
 * One Newton step towards 1/sqrt(count) from the previous estimate:
 * x' = x * (3 - count * x^2) / 2, all in Q0.32. count moves by one between
 * calls, so one step keeps the estimate close.
 */
uint32_t
cobalt_inv_sqrt(uint32_t count, uint32_t prev)
{
	unsigned __int128	x2, val, next;

	if (count < 16)
		return inv_sqrt_table[count];
	x2 = ((unsigned __int128)prev * prev) >> 32;		/* Q0.32 */
	val = ((unsigned __int128)3 << 32) - (unsigned __int128)count * x2;
	if ((__int128)val < 0)
		val = 0;
	next = (val * prev) >> 33;
	if (next > 0xFFFFFFFFu)
		next = 0xFFFFFFFFu;
	return (uint32_t)next;
}

uint64_t
cobalt_control(uint64_t t_ns, uint64_t interval_ns, uint32_t rec_inv_sqrt)
{
	return t_ns + (uint64_t)(((unsigned __int128)interval_ns *
	    rec_inv_sqrt) >> 32);
}

static void
count_up(struct cobalt_vars *v)
{
	if (v->count < UINT32_MAX)
		v->count++;
	v->rec_inv_sqrt = cobalt_inv_sqrt(v->count, v->rec_inv_sqrt);
}

static void
count_down(struct cobalt_vars *v)
{
	if (v->count > 0)
		v->count--;
	v->rec_inv_sqrt = cobalt_inv_sqrt(v->count, v->rec_inv_sqrt);
}

bool
cobalt_queue_full(struct cobalt_vars *v, const struct cobalt_params *p,
    uint64_t now_ns)
{
	bool	up = false;

	if (now_ns - v->blue_timer_ns > p->target_ns) {
		up = v->p_drop == 0;
		if (v->p_drop > UINT32_MAX - p->p_inc)
			v->p_drop = UINT32_MAX;
		else
			v->p_drop += p->p_inc;
		v->blue_timer_ns = now_ns;
	}
	v->dropping = true;
	v->drop_next_ns = now_ns;
	if (v->count == 0)
		v->count = 1;
	return up;
}

bool
cobalt_queue_empty(struct cobalt_vars *v, const struct cobalt_params *p,
    uint64_t now_ns)
{
	bool	down = false;

	if (v->p_drop != 0 && now_ns - v->blue_timer_ns > p->target_ns) {
		if (v->p_drop < p->p_dec)
			v->p_drop = 0;
		else
			v->p_drop -= p->p_dec;
		v->blue_timer_ns = now_ns;
		down = v->p_drop == 0;
	}
	v->dropping = false;
	if (v->count != 0 && now_ns >= v->drop_next_ns) {
		count_down(v);
		v->drop_next_ns = cobalt_control(v->drop_next_ns, p->interval_ns,
		    v->rec_inv_sqrt);
	}
	return down;
}

/* CoDel's half: updates the dropping state; true when a signal is due now. */
static bool
codel_signal_due(struct cobalt_vars *v, const struct cobalt_params *p,
    uint64_t now_ns, uint64_t sojourn_ns, uint32_t bulk_flows)
{
	bool	over_target, next_due;

	over_target = sojourn_ns > p->target_ns &&
	    sojourn_ns > p->mtu_time_ns * bulk_flows * 2 &&
	    sojourn_ns > p->mtu_time_ns * 4;
	next_due = v->count != 0 && now_ns >= v->drop_next_ns;

	if (over_target) {
		if (!v->dropping) {
			v->dropping = true;
			v->drop_next_ns = cobalt_control(now_ns, p->interval_ns,
			    v->rec_inv_sqrt);
		}
		if (v->count == 0)
			v->count = 1;
	} else if (v->dropping)
		v->dropping = false;

	if (next_due && v->dropping)
		return true;
	/* Not dropping: let count decay one step per elapsed interval. */
	while (next_due) {
		count_down(v);
		v->drop_next_ns = cobalt_control(v->drop_next_ns,
		    p->interval_ns, v->rec_inv_sqrt);
		next_due = v->count != 0 && now_ns >= v->drop_next_ns;
	}
	return false;
}

enum cobalt_verdict
cobalt_should_drop(struct cobalt_vars *v, const struct cobalt_params *p,
    uint64_t now_ns, uint64_t sojourn_ns, uint32_t bulk_flows, bool ect,
    uint32_t rnd)
{
	enum cobalt_verdict	verdict = COBALT_PASS;

	v->ecn_marked = false;
	if (codel_signal_due(v, p, now_ns, sojourn_ns, bulk_flows)) {
		if (ect) {
			verdict = COBALT_MARK;
			v->ecn_marked = true;
		} else
			verdict = COBALT_DROP_CODEL;
		count_up(v);
		v->drop_next_ns = cobalt_control(v->drop_next_ns,
		    p->interval_ns, v->rec_inv_sqrt);
	}

	/* BLUE: unresponsive flows lose packets with probability p_drop. */
	if (verdict != COBALT_DROP_CODEL && v->p_drop != 0 && rnd < v->p_drop)
		verdict = COBALT_DROP_BLUE;

	/* Without a signal pending, arm CoDel's activity timeout. */
	if (v->count == 0)
		v->drop_next_ns = now_ns + p->interval_ns;
	else if (v->drop_next_ns < now_ns && verdict != COBALT_DROP_CODEL &&
	    verdict != COBALT_DROP_BLUE)
		v->drop_next_ns = now_ns;
	return verdict;
}

