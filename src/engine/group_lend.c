/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * group_lend.c: lending a group's rate to its workers (doc/workers.md).
 *
 * Every period the lender looks at what each worker used (the adjusted
 * bytes its shaper was charged), what it holds queued and how many hosts
 * (or flows) are active in it, and shares the rate out again: a worker
 * that kept up with what it was lent gets what it used and a quarter more
 * (at most its weighted fair share); the rest goes to the workers that
 * could not keep up, in proportion to their active hosts, so hosts are
 * treated alike across workers as CAKE treats them within one. Rate a
 * light worker was lent and left unused while others queued is carried
 * to the next period as credit (bounded), so the group's long-run rate is
 * the configured one and not less.
 *
 * The only cross-worker step: workers publish, the lender writes rates,
 * each worker applies its own (group_int.h). Never locks, never blocks.
 */
#include "engine/group_int.h"
#include "engine/instance.h"

#define NS_PER_S		1000000000ULL
#define LEND_FLOOR_DIV		1024	/* an idle worker keeps 1/1024 */
#define LEND_HEADROOM_DIV	4	/* a light worker: used + 1/4 */
#define LEND_REPAY_PERIODS	4	/* credit repaid over 4 periods */
/*
 * Credit is bounded by a period of the rate, and never below a few
 * full-size frames: a worker is charged a whole packet when it leaves,
 * so at 10 Mbit (1.2 ms a frame) a period sees 0, 1 or 2 of them, and a
 * bound under a frame clipped that noise unevenly (5 % of the rate lost).
 */
#define LEND_CREDIT_MIN_BYTES	(4 * 1514)
#define LEND_STALE_PERIODS	4	/* a longer gap starts afresh */
#define LEND_QUIET_PERIODS	8	/* idle after this many quiet ones */
#define LEND_MIN_BPS		64	/* the shaper's own minimum */

/* What the lender saw of one worker over the last period. */
struct lend_view {
	uint64_t	used_Bps;	/* rate it was charged */
	uint64_t	want_Bps;	/* a light worker's demand; 0 = busy */
	uint64_t	sparse_Bps;	/* a busy one's sparse flows' need */
	uint64_t	units;		/* weight: active hosts or flows */
	uint64_t	rate_Bps;	/* what it gets next */
	bool		done;		/* rate settled (water-filling) */
	bool		active;		/* carried traffic lately */
};

static uint64_t
mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128	r = (unsigned __int128)a * b / c;

	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

/* A worker's active hosts on the steered side, or its active flows. */
static uint64_t
units(const struct group *g, const struct cake *c)
{
	enum cake_flow_mode	mode = g->cfg.flow_mode;
	bool			hosts = mode == CAKE_FLOW_DUAL_SRC ||
				    mode == CAKE_FLOW_DUAL_DST ||
				    mode == CAKE_FLOW_TRIPLE;
	uint64_t		n = 0;
	unsigned int		i;

	for (i = 0; i < c->layout.count; i++) {
		const struct cake_tin	*t = &c->tins[i];

		if (!hosts)
			n += t->bulk_flows + t->sparse_flows;
		else if (g->steer == FLOWS_STEER_DST)
			n += t->bulk_dsthosts;
		else
			n += t->bulk_srchosts;
	}
	return n > 0 ? n : 1;
}

static bool
lending(const struct group *g)
{
	return g->n > 1 && g->cfg.rate_Bps != 0;
}

void
group_lend_sync(struct group *g, unsigned int i, uint64_t now_ns)
{
	struct group_slot	*s = &g->slots[i];
	uint64_t		 lent;

	if (!lending(g))
		return;
	lent = atomic_load_explicit(&s->lent_Bps, memory_order_relaxed);
	if (lent != s->applied_Bps) {
		inst_set_rate(s->c, lent, now_ns);
		s->applied_Bps = lent;
	}
	atomic_store_explicit(&s->charged_bytes, s->c->charged_bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&s->sparse_bytes, s->c->charged_sparse_bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&s->backlog_bytes, s->c->backlog_bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&s->units, units(g, s->c),
	    memory_order_relaxed);
}

/*
 * Worker i's share of a new rate: the same part of it as it was lent of
 * the old one (autorate changes the rate often, and each change must
 * not undo the lending), or an equal part when there was none.
 */
static uint64_t
reshare(const struct group *g, unsigned int i, uint64_t old_Bps)
{
	uint64_t	lent = atomic_load_explicit(&g->slots[i].lent_Bps,
			    memory_order_relaxed);

	if (!lending(g))
		return g->cfg.rate_Bps;
	if (old_Bps == 0 || lent == 0)
		return g->cfg.rate_Bps / g->n;
	lent = mul_div(lent, g->cfg.rate_Bps, old_Bps);
	return lent < LEND_MIN_BPS ? LEND_MIN_BPS : lent;
}

void
group_lend_reset(struct group *g, uint64_t old_Bps, uint64_t now_ns)
{
	unsigned int	i;

	for (i = 0; i < g->n; i++) {
		struct group_slot	*s = &g->slots[i];
		uint64_t		 share = reshare(g, i, old_Bps);

		atomic_store_explicit(&s->lent_Bps, share,
		    memory_order_relaxed);
		if (lending(g))
			inst_set_rate(s->c, share, now_ns);
		s->applied_Bps = share;
		s->seen_bytes = s->c->charged_bytes;
		s->seen_sparse = s->c->charged_sparse_bytes;
		atomic_store_explicit(&s->sparse_bytes, s->seen_sparse,
		    memory_order_relaxed);
		s->quiet = 0;
		atomic_store_explicit(&s->charged_bytes, s->seen_bytes,
		    memory_order_relaxed);
	}
	g->credit_bytes = 0;
	g->last_lend_ns = now_ns;
	g->next_lend_ns = now_ns;
}

uint64_t
group_lend_rate_Bps(const struct group *g, unsigned int i)
{
	if (i >= g->n)
		return 0;
	return atomic_load_explicit(&g->slots[i].lent_Bps,
	    memory_order_relaxed);
}

/*
 * Reads what each worker published. A worker is busy (wants more than it
 * has) when it holds a queue and either used 7/8 of what it was lent or
 * holds more than a period of it; else it is light and wants what it
 * used plus headroom. Returns the number of busy workers; *used_bytes
 * gets the bytes the whole group was charged.
 */
static unsigned int
observe(struct group *g, struct lend_view *v, uint64_t dt_ns,
    uint64_t *used_bytes)
{
	uint64_t	floor_Bps = g->cfg.rate_Bps / LEND_FLOOR_DIV;
	unsigned int	i, busy = 0;

	*used_bytes = 0;
	for (i = 0; i < g->n; i++) {
		struct group_slot	*s = &g->slots[i];
		uint64_t		 charged, used, backlog, lent;
		uint64_t		 lent_bytes, sparse;

		charged = atomic_load_explicit(&s->charged_bytes,
		    memory_order_relaxed);
		backlog = atomic_load_explicit(&s->backlog_bytes,
		    memory_order_relaxed);
		lent = atomic_load_explicit(&s->lent_Bps,
		    memory_order_relaxed);
		used = charged - s->seen_bytes;
		s->seen_bytes = charged;
		sparse = atomic_load_explicit(&s->sparse_bytes,
		    memory_order_relaxed);
		v[i].sparse_Bps = mul_div(sparse - s->seen_sparse, NS_PER_S,
		    dt_ns);
		v[i].sparse_Bps += v[i].sparse_Bps / LEND_HEADROOM_DIV;
		s->seen_sparse = sparse;
		*used_bytes += used;
		lent_bytes = mul_div(lent, dt_ns, NS_PER_S);
		v[i].used_Bps = mul_div(used, NS_PER_S, dt_ns);
		/* 0 until the worker's first sync (threads). */
		v[i].units = atomic_load_explicit(&s->units,
		    memory_order_relaxed);
		if (v[i].units == 0)
			v[i].units = 1;
		v[i].done = false;
		s->quiet = used > 0 || backlog > 0 ? 0 : s->quiet + 1;
		v[i].active = s->quiet < LEND_QUIET_PERIODS;
		v[i].want_Bps = v[i].used_Bps +
		    v[i].used_Bps / LEND_HEADROOM_DIV + floor_Bps;
		if (backlog > 0 && (used * 8 >= lent_bytes * 7 ||
		    backlog > mul_div(lent, GROUP_LEND_PERIOD_NS, NS_PER_S))) {
			v[i].want_Bps = 0;
			busy++;
		}
	}
	return busy;
}

/*
 * Carries the rate left unused while some worker was busy (or taken in
 * excess) into the next periods, within a period of the rate.
 */
static void
settle_credit(struct group *g, uint64_t dt_ns, unsigned int busy,
    uint64_t used_bytes)
{
	int64_t	cap = (int64_t)mul_div(g->cfg.rate_Bps, GROUP_LEND_PERIOD_NS,
		    NS_PER_S);
	int64_t	allowed;

	if (cap < LEND_CREDIT_MIN_BYTES)
		cap = LEND_CREDIT_MIN_BYTES;
	if (busy == 0 || dt_ns > LEND_STALE_PERIODS * GROUP_LEND_PERIOD_NS) {
		g->credit_bytes = 0;
		return;
	}
	allowed = (int64_t)mul_div(g->cfg.rate_Bps, dt_ns, NS_PER_S);
	g->credit_bytes += allowed - (int64_t)used_bytes;
	if (g->credit_bytes > cap)
		g->credit_bytes = cap;
	if (g->credit_bytes < -cap)
		g->credit_bytes = -cap;
}

/*
 * Weighted water-filling: a light worker whose demand is within its
 * weighted share of what is left gets its demand, and leaves the rest;
 * repeated until none does. Returns the rate left for the others.
 */
static uint64_t
fill_light(const struct group *g, struct lend_view *v, uint64_t avail)
{
	uint64_t	weights;
	unsigned int	i;
	bool		again = true;

	while (again) {
		again = false;
		weights = 0;
		for (i = 0; i < g->n; i++)
			if (!v[i].done)
				weights += v[i].units;
		for (i = 0; i < g->n; i++) {
			if (v[i].done || v[i].want_Bps == 0 ||
			    v[i].want_Bps > mul_div(avail, v[i].units,
			    weights))
				continue;
			v[i].rate_Bps = v[i].want_Bps;
			v[i].done = true;
			avail -= v[i].want_Bps;
			again = true;
			break;
		}
	}
	return avail;
}

/*
 * A busy worker's units are its bulk hosts; what its sparse flows (hosts
 * below their fair share) send comes first, as in one instance, where
 * sparse flows are served before bulk ones: it is set aside for them,
 * with headroom, before the bulk hosts share the rest. At most half of
 * what is left is set aside. Returns what is left for the bulk hosts.
 */
static uint64_t
reserve_sparse(const struct group *g, struct lend_view *v, uint64_t rest)
{
	uint64_t	sum = 0;
	unsigned int	i;

	for (i = 0; i < g->n; i++)
		if (!v[i].done)
			sum += v[i].sparse_Bps;
	for (i = 0; i < g->n && sum > rest / 2; i++)
		if (!v[i].done)
			v[i].sparse_Bps = mul_div(v[i].sparse_Bps, rest / 2,
			    sum);
	for (i = 0; i < g->n; i++)
		if (!v[i].done)
			rest -= v[i].sparse_Bps;
	return rest;
}

/*
 * Shares what is left by weight among the unsettled workers. When every
 * worker got its want, the spare goes to those that carried traffic
 * lately (by weight), so that one whose packets are sparser than the
 * period (one per 1.2 ms at 10 Mbit) is not cut to its last period's
 * count, and an idle one keeps its floor alone; with none such, evenly.
 */
static void
share_rest(const struct group *g, struct lend_view *v, uint64_t rest)
{
	uint64_t	weights = 0, active = 0;
	unsigned int	i, open = 0;

	for (i = 0; i < g->n; i++) {
		if (!v[i].done) {
			weights += v[i].units;
			open++;
		}
		if (v[i].active)
			active += v[i].units;
	}
	for (i = 0; i < g->n; i++) {
		if (open > 0) {
			if (!v[i].done)
				v[i].rate_Bps = v[i].sparse_Bps +
				    mul_div(rest, v[i].units, weights);
		} else if (active == 0)
			v[i].rate_Bps += rest / g->n;
		else if (v[i].active)
			v[i].rate_Bps += mul_div(rest, v[i].units, active);
		if (v[i].rate_Bps < LEND_MIN_BPS)
			v[i].rate_Bps = LEND_MIN_BPS;
	}
}

void
group_lend(struct group *g, uint64_t now_ns)
{
	struct lend_view	v[GROUP_WORKERS_MAX];
	uint64_t		dt_ns, used_bytes, avail;
	unsigned int		i, busy;
	int64_t			extra;

	if (!lending(g) || now_ns <= g->last_lend_ns)
		return;
	dt_ns = now_ns - g->last_lend_ns;
	busy = observe(g, v, dt_ns, &used_bytes);
	settle_credit(g, dt_ns, busy, used_bytes);
	extra = g->credit_bytes * (int64_t)NS_PER_S /
	    (int64_t)(GROUP_LEND_PERIOD_NS * LEND_REPAY_PERIODS);
	/* At low rates the frame-sized bound exceeds a period's bytes. */
	if (extra > (int64_t)g->cfg.rate_Bps)
		extra = (int64_t)g->cfg.rate_Bps;
	if (extra < -(int64_t)(g->cfg.rate_Bps / 2))
		extra = -(int64_t)(g->cfg.rate_Bps / 2);
	avail = (uint64_t)((int64_t)g->cfg.rate_Bps + extra);
	share_rest(g, v, reserve_sparse(g, v, fill_light(g, v, avail)));
	for (i = 0; i < g->n; i++)
		atomic_store_explicit(&g->slots[i].lent_Bps, v[i].rate_Bps,
		    memory_order_relaxed);
	g->last_lend_ns = now_ns;
}

void
group_lend_tick(struct group *g, uint64_t now_ns)
{
	unsigned int	i;

	if (!lending(g) || now_ns < g->next_lend_ns)
		return;
	for (i = 0; i < g->n; i++)
		group_lend_sync(g, i, now_ns);
	group_lend(g, now_ns);
	for (i = 0; i < g->n; i++)
		group_lend_sync(g, i, now_ns);
	g->next_lend_ns = now_ns + GROUP_LEND_PERIOD_NS;
}
