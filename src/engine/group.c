/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * group.c: a group of CAKE instances shaping one direction
 * (doc/workers.md): creation, steering a packet to its worker, and the
 * whole group driven from one thread (enqueue, dequeue, statistics).
 * Lending the rate is group_lend.c's.
 *
 * A worker is chosen by a keyed hash of the host the flow mode isolates
 * on, so every flow of a host meets in one worker and CAKE's per-host
 * fairness stays whole there; the flow modes hash the 5-tuple. The
 * workers are ordinary instances: nothing here reaches into their
 * queues, only their counters.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/group_int.h"
#include "engine/instance.h"
#include "engine/tins.h"

#define GROUP_SEED_STEP	0x9E3779B97F4A7C15ULL
#define GROUP_KEY_SALT	0xC2B2AE3D27D4EB4FULL

/* The packet field a mode isolates hosts on (doc/workers.md). */
static enum flows_steer
steer_by(enum cake_flow_mode mode, enum group_side side)
{
	switch (mode) {
	case CAKE_FLOW_SRCHOST:
	case CAKE_FLOW_DUAL_SRC:
		return FLOWS_STEER_SRC;
	case CAKE_FLOW_DSTHOST:
	case CAKE_FLOW_DUAL_DST:
		return FLOWS_STEER_DST;
	case CAKE_FLOW_HOSTS:
	case CAKE_FLOW_TRIPLE:
		return side == GROUP_SIDE_DST ? FLOWS_STEER_DST :
		    FLOWS_STEER_SRC;
	default:
		return FLOWS_STEER_TUPLE;
	}
}

static int
create_workers(struct group *g, const struct cake_config *cfg,
    const struct cake_env *env)
{
	struct cake_env	wenv = *env;
	unsigned int	i;
	int		err = CAKE_OK;

	for (i = 0; i < g->n; i++) {
		/* Worker 0 keeps the seed: a group of one is one instance. */
		wenv.seed = env->seed + i * GROUP_SEED_STEP;
		g->slots[i].c = cake_create(cfg, &wenv, &err);
		if (g->slots[i].c == NULL)
			return err;
	}
	return CAKE_OK;
}

struct group *
group_create(const struct cake_config *cfg, const struct cake_env *env,
    unsigned int workers, enum group_side side, int *err)
{
	struct group	*g;
	unsigned int	 i;

	if (workers < 1 || workers > GROUP_WORKERS_MAX ||
	    (workers > 1 && cfg->autorate_ingress) ||
	    (unsigned int)side > GROUP_SIDE_DST) {
		*err = CAKE_ERR_INVAL;
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		*err = CAKE_ERR_NOMEM;
		return NULL;
	}
	g->n = workers;
	g->side = side;
	g->link = env->link;
	if ((*err = create_workers(g, cfg, env)) != CAKE_OK) {
		for (i = 0; i < g->n; i++)
			cake_destroy(g->slots[i].c);
		free(g);
		return NULL;
	}
	g->cfg = *cfg;
	g->steer = steer_by(cfg->flow_mode, side);
	/* Its own key: worker tables index by the low bits of their hash. */
	g->key[0] = env->seed ^ GROUP_KEY_SALT;
	g->key[1] = (env->seed + GROUP_KEY_SALT) * GROUP_SEED_STEP;
	group_lend_reset(g, 0, 0);
	return g;
}

void
group_destroy(struct group *g)
{
	unsigned int	i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		cake_destroy(g->slots[i].c);
	free(g);
}

int
group_change(struct group *g, const struct cake_config *cfg,
    uint64_t now_ns)
{
	uint64_t	old_Bps = g->cfg.rate_Bps;
	unsigned int	i;
	int		err;

	if (g->n > 1 && cfg->autorate_ingress)
		return CAKE_ERR_INVAL;
	/* The first worker vets the parameters for all: they are alike. */
	for (i = 0; i < g->n; i++)
		if ((err = cake_change(g->slots[i].c, cfg, now_ns)) != CAKE_OK)
			return err;
	g->cfg = *cfg;
	g->steer = steer_by(cfg->flow_mode, g->side);
	group_lend_reset(g, old_Bps, now_ns);
	return CAKE_OK;
}

void
group_get_config(const struct group *g, struct cake_config *cfg)
{
	/* Autorate-ingress (one worker only) moves the rate itself. */
	if (g->n == 1)
		cake_get_config(g->slots[0].c, cfg);
	else
		*cfg = g->cfg;
}

unsigned int
group_workers(const struct group *g)
{
	return g->n;
}

struct cake *
group_worker(struct group *g, unsigned int i)
{
	return i < g->n ? g->slots[i].c : NULL;
}

unsigned int
group_steer(const struct group *g, struct cake_pkt *pkt)
{
	uint32_t	h;

	if (g->n == 1)
		return 0;
	if (!pkt->meta_valid) {
		cake_parse(pkt->data, pkt->len, g->link, &pkt->meta);
		pkt->meta_valid = true;
	}
	h = flows_steer_hash(g->key, pkt, g->steer);
	/* Multiply-shift: the hash's high bits pick the worker. */
	return (unsigned int)(((uint64_t)h * g->n) >> 32);
}

int
group_enqueue(struct group *g, struct cake_pkt *pkt, uint64_t now_ns)
{
	unsigned int	i = group_steer(g, pkt);

	group_lend_tick(g, now_ns);
	return cake_enqueue(g->slots[i].c, pkt, now_ns);
}

struct cake_pkt *
group_dequeue(struct group *g, uint64_t now_ns)
{
	return group_dequeue_ahead(g, now_ns, 0);
}

/*
 * Takes from the workers in turn, asking only one whose clock allows a
 * packet by then: a refused cake_dequeue() counts an overlimit, and the
 * group must count what one instance would.
 */
struct cake_pkt *
group_dequeue_ahead(struct group *g, uint64_t now_ns, uint64_t ahead_ns)
{
	struct cake_pkt	*pkt;
	uint64_t	 until_ns;
	unsigned int	 k, i;

	group_lend_tick(g, now_ns);
	until_ns = ahead_ns > CAKE_TIME_NEVER - now_ns ? CAKE_TIME_NEVER :
	    now_ns + ahead_ns;
	for (k = 0; k < g->n; k++) {
		i = (g->rr + k) % g->n;
		if (g->n > 1 && cake_next_ns(g->slots[i].c, now_ns) > until_ns)
			continue;
		pkt = cake_dequeue_ahead(g->slots[i].c, now_ns, ahead_ns);
		if (pkt != NULL) {
			g->rr = (i + 1) % g->n;
			return pkt;
		}
	}
	return NULL;
}

uint64_t
group_next_ns(const struct group *g, uint64_t now_ns)
{
	uint64_t	next = CAKE_TIME_NEVER, t;
	unsigned int	i;

	for (i = 0; i < g->n; i++) {
		t = cake_next_ns(g->slots[i].c, now_ns);
		if (t < next)
			next = t;
	}
	/* While anything is queued, the lending must go on. */
	if (next != CAKE_TIME_NEVER && g->n > 1 && g->cfg.rate_Bps != 0 &&
	    g->next_lend_ns < next)
		next = g->next_lend_ns > now_ns ? g->next_lend_ns : now_ns;
	return next;
}

struct cake_pkt *
group_take_dropped(struct group *g)
{
	struct cake_pkt	*head = NULL, **tail = &head, *list;
	unsigned int	 i;

	for (i = 0; i < g->n; i++) {
		if ((list = cake_take_dropped(g->slots[i].c)) == NULL)
			continue;
		*tail = list;
		while (*tail != NULL)
			tail = &(*tail)->next;
	}
	return head;
}

void
group_flush(struct group *g)
{
	unsigned int	i;

	for (i = 0; i < g->n; i++)
		cake_flush(g->slots[i].c);
}

int
group_check_invariants(const struct group *g)
{
	unsigned int	i;
	int		line;

	for (i = 0; i < g->n; i++)
		if ((line = cake_check_invariants(g->slots[i].c)) != 0)
			return line;
	return 0;
}

unsigned int
group_get_flows(const struct group *g, struct cake_flow_stats *out,
    unsigned int max)
{
	unsigned int	i, n = 0;

	for (i = 0; i < g->n && n < max; i++)
		n += cake_get_flows(g->slots[i].c, out + n, max - n);
	return n;
}

static uint32_t
max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Adds one worker's tin to the sum; delays keep the worst worker's. */
static void
add_tin(struct cake_tin_stats *sum, const struct cake_tin_stats *t)
{
	sum->peak_delay_us = max32(sum->peak_delay_us, t->peak_delay_us);
	sum->avg_delay_us = max32(sum->avg_delay_us, t->avg_delay_us);
	sum->base_delay_us = max32(sum->base_delay_us, t->base_delay_us);
	sum->backlog_bytes += t->backlog_bytes;
	sum->pkts += t->pkts;
	sum->bytes += t->bytes;
	sum->way_inds += t->way_inds;
	sum->way_miss += t->way_miss;
	sum->way_cols += t->way_cols;
	sum->drops += t->drops;
	sum->ecn_marks += t->ecn_marks;
	sum->ack_drops += t->ack_drops;
	sum->sparse_flows += t->sparse_flows;
	sum->bulk_flows += t->bulk_flows;
	sum->unresponsive_flows += t->unresponsive_flows;
	sum->max_pkt_len = max32(sum->max_pkt_len, t->max_pkt_len);
}

static void
add_stats(struct cake_stats *sum, const struct cake_stats *w)
{
	unsigned int	i;

	sum->sent_bytes += w->sent_bytes;
	sum->sent_pkts += w->sent_pkts;
	sum->dropped_pkts += w->dropped_pkts;
	sum->overlimits += w->overlimits;
	sum->backlog_bytes += w->backlog_bytes;
	sum->backlog_pkts += w->backlog_pkts;
	sum->memory_used += w->memory_used;
	sum->memory_limit += w->memory_limit;
	sum->memory_now += w->memory_now;
	if (w->min_netlen < sum->min_netlen)
		sum->min_netlen = w->min_netlen;
	sum->max_netlen = max32(sum->max_netlen, w->max_netlen);
	if (w->min_adjlen < sum->min_adjlen)
		sum->min_adjlen = w->min_adjlen;
	sum->max_adjlen = max32(sum->max_adjlen, w->max_adjlen);
	sum->non_ip_pkts += w->non_ip_pkts;
	sum->gso_splits += w->gso_splits;
	sum->gso_whole += w->gso_whole;
	for (i = 0; i < w->tin_count && i < CAKE_MAX_TINS; i++)
		add_tin(&sum->tins[i], &w->tins[i]);
}

void
group_get_stats(const struct group *g, struct cake_stats *st)
{
	struct cake_stats	w;
	struct tins_layout	l;
	unsigned int		i;

	/* Worker 0 gives what is alike in all (names, targets, quanta). */
	cake_get_stats(g->slots[0].c, st);
	if (g->n == 1)
		return;
	st->capacity_estimate_Bps = g->cfg.rate_Bps;
	for (i = 1; i < g->n; i++) {
		cake_get_stats(g->slots[i].c, &w);
		add_stats(st, &w);
	}
	/* Thresholds are the group's, not the sum of what was lent. */
	tins_layout(g->cfg.diffserv, g->cfg.rate_Bps, &l);
	for (i = 0; i < st->tin_count && i < l.count; i++)
		st->tins[i].threshold_Bps = l.rate_Bps[l.display[i]];
}
