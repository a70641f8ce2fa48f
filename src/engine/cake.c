/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * cake.c: one CAKE instance: its configuration's defaults and validation,
 * creation, live parameter changes (as `tc qdisc change`), and the small
 * helpers the enqueue and dequeue paths share (shaper clocks, popping a
 * queue's head, the dropped list).
 *
 * All memory is allocated in cake_create(); nothing here allocates or
 * frees a packet buffer. Numbers come from doc/cake.md §1-§5.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/flows.h"
#include "engine/instance.h"

#define NS_PER_US		1000ULL
#define US_PER_S		1000000ULL
#define MIN_BUFFER_BYTES	(4ULL << 20)	/* §5: at least 4 MiB */
#define LIMIT_PKTS		10240ULL	/* §5: kernel sch->limit */

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void
inst_drop_pkt(struct cake *c, struct cake_pkt *pkt,
    enum cake_drop_reason reason)
{
	pkt->drop_reason = (uint8_t)reason;
	pkt->next = NULL;
	if (c->dropped_tail != NULL)
		c->dropped_tail->next = pkt;
	else
		c->dropped_head = pkt;
	c->dropped_tail = pkt;
}

struct cake_pkt *
cake_take_dropped(struct cake *c)
{
	struct cake_pkt	*list = c->dropped_head;

	c->dropped_head = NULL;
	c->dropped_tail = NULL;
	return list;
}

/* Removes the head packet of a queue, keeping every backlog counter right. */
struct cake_pkt *
inst_pop(struct cake *c, unsigned int tin, unsigned int idx)
{
	struct cake_tin		*t = &c->tins[tin];
	struct cake_flow	*f = &t->flows[idx];
	struct cake_pkt		*pkt = f->head;

	if (pkt == NULL)
		return NULL;
	f->head = pkt->next;
	if (f->head == NULL)
		f->tail = NULL;
	pkt->next = NULL;
	f->qlen--;
	t->backlog_bytes -= pkt->len;
	t->backlogs[idx] -= pkt->len;
	c->backlog_bytes -= pkt->len;
	c->backlog_pkts--;
	c->buffer_used -= pkt->truesize;
	if (overflow_active(&c->heap))
		overflow_update(&c->heap, c->backlogs,
		    inst_entry(c, tin, idx));
	return pkt;
}

/*
 * Charges a packet to the global and the tin's shaper clocks (§2).
 * Returns the adjusted length, which the caller takes off the deficits.
 */
uint32_t
inst_advance_shaper(struct cake *c, struct cake_tin *t,
    const struct cake_pkt *pkt, uint64_t now_ns, bool drop)
{
	uint64_t	tin_dur, dur;

	c->charged_bytes += pkt->adj_len;
	if (c->rate.ns == 0)
		return pkt->adj_len;
	tin_dur = shaper_duration_ns(&t->rate, pkt->adj_len);
	dur = shaper_duration_ns(&c->rate, pkt->adj_len);
	if (t->time_next_ns < now_ns)
		t->time_next_ns += tin_dur;
	else if (t->time_next_ns < now_ns + tin_dur)
		t->time_next_ns = now_ns + tin_dur;
	c->time_next_ns += dur;
	if (!drop)
		c->failsafe_next_ns += dur + (dur >> 1);
	return pkt->adj_len;
}

/* §1: the defaults, as tc's `cake` with no keyword. */
void
cake_config_default(struct cake_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->rate_Bps = 0;			/* unlimited */
	cfg->diffserv = CAKE_DIFFSERV3;
	cfg->flow_mode = CAKE_FLOW_TRIPLE;
	cfg->nat = false;
	cfg->wash = false;
	cfg->ingress = false;
	cfg->ack_filter = CAKE_ACK_NONE;
	cfg->split_gso = true;			/* as sch_cake, at every rate */
	cfg->rtt_us = 100000;			/* internet: 100 ms */
	cfg->target_us = 5000;			/* 5 ms */
	cfg->raw = true;
	cfg->overhead = 0;
	cfg->mpu = 0;
	cfg->atm = CAKE_ATM_NONE;
	cfg->memlimit_bytes = 0;
	cfg->fwmark_mask = 0;
	cfg->queues = CAKE_QUEUES_DEFAULT;	/* as the kernel's fixed 1024 */
}

static int
validate(const struct cake_config *cfg)
{
	if ((unsigned int)cfg->diffserv > CAKE_PRECEDENCE ||
	    (unsigned int)cfg->flow_mode > CAKE_FLOW_TRIPLE ||
	    (unsigned int)cfg->atm > CAKE_ATM_PTM ||
	    (unsigned int)cfg->ack_filter > CAKE_ACK_AGGRESSIVE)
		return CAKE_ERR_INVAL;
	if (cfg->overhead < -64 || cfg->overhead > 256 || cfg->mpu > 256)
		return CAKE_ERR_INVAL;
	if (cfg->rtt_us == 0 || cfg->target_us == 0)
		return CAKE_ERR_INVAL;
	if (!cake_queues_valid(cfg->queues))
		return CAKE_ERR_INVAL;
	return CAKE_OK;
}

/* §4: a tin's quantum and COBALT parameters from its threshold rate. */
static void
tin_set_rate(struct cake *c, struct cake_tin *t, uint64_t rate_Bps,
    uint16_t weight)
{
	uint64_t	target_ns = c->cfg.target_us * NS_PER_US;
	uint64_t	rtt_ns = c->cfg.rtt_us * NS_PER_US;
	uint64_t	mtu_bytes, mtu_ns;

	mtu_bytes = c->env.mtu + (c->env.link == CAKE_LINK_ETHERNET ? 14 : 0);
	shaper_rate_set(&t->rate, rate_Bps);
	t->rate_Bps = rate_Bps;
	mtu_ns = shaper_duration_ns(&t->rate, mtu_bytes);
	t->tin_quantum = weight;
	t->flow_quantum = 1514;
	if (rate_Bps != 0) {
		uint64_t	q = rate_Bps >> 12;

		t->flow_quantum = (uint16_t)(q < 300 ? 300 : q > 1514 ?
		    1514 : q);
	}
	t->cparams.mtu_time_ns = mtu_ns;
	t->cparams.target_ns = mtu_ns * 3 / 2 > target_ns ? mtu_ns * 3 / 2 :
	    target_ns;
	t->cparams.interval_ns = rtt_ns + t->cparams.target_ns - target_ns;
	if (t->cparams.interval_ns < 2 * t->cparams.target_ns)
		t->cparams.interval_ns = 2 * t->cparams.target_ns;
	t->cparams.p_inc = COBALT_P_INC;
	t->cparams.p_dec = COBALT_P_DEC;
}

/* §5: the memory limit. */
static uint64_t
buffer_limit(const struct cake *c)
{
	uint64_t	mtu_bytes, cap, lim;

	if (c->cfg.memlimit_bytes != 0)
		return c->cfg.memlimit_bytes;
	mtu_bytes = c->env.mtu + (c->env.link == CAKE_LINK_ETHERNET ? 14 : 0);
	cap = LIMIT_PKTS * mtu_bytes;
	if (c->cfg.rate_Bps == 0)
		return cap;
	if (__builtin_mul_overflow(c->cfg.rate_Bps, 4ULL * c->cfg.rtt_us,
	    &lim))
		lim = UINT64_MAX;
	else
		lim /= US_PER_S;
	if (lim < MIN_BUFFER_BYTES)
		lim = MIN_BUFFER_BYTES;
	return lim < cap ? lim : cap;
}

/* Moves every packet of tin i to the dropped list and rests its flows. */
static void
tin_flush(struct cake *c, unsigned int i, enum cake_drop_reason reason)
{
	struct cake_tin	*t = &c->tins[i];
	unsigned int	 q;

	for (q = 0; q < c->queues; q++) {
		struct cake_flow	*f = &t->flows[q];
		struct cake_pkt		*pkt;

		while ((pkt = inst_pop(c, i, q)) != NULL) {
			c->dropped_pkts++;
			inst_drop_pkt(c, pkt, reason);
		}
		if (list_linked(&f->chain))
			list_del(&f->chain);
		if (f->set == FLOW_SET_BULK)
			flows_bulk_dec(c, t, f);
		f->set = FLOW_SET_NONE;
		f->deficit = 0;
		cobalt_vars_init(&f->cvars);
	}
	t->sparse_flows = 0;
	t->bulk_flows = 0;
	t->decaying_flows_n = 0;
	t->unresponsive_flows = 0;
	t->bulk_srchosts = 0;
	t->bulk_dsthosts = 0;
	memset(t->hosts, 0, c->queues * sizeof(*t->hosts));
}

/* Applies the rate of c->cfg to every tin's threshold and parameters. */
static void
apply_tin_rates(struct cake *c)
{
	unsigned int	i;

	tins_layout(c->cfg.diffserv, c->cfg.rate_Bps, &c->layout);
	for (i = 0; i < c->layout.count; i++)
		tin_set_rate(c, &c->tins[i], c->layout.rate_Bps[i],
		    c->layout.weight[i]);
	c->rate = c->tins[0].rate;
}

/* Applies the rate-dependent parameters of c->cfg, memory limit included. */
static void
apply_rates(struct cake *c)
{
	apply_tin_rates(c);
	c->buffer_limit = buffer_limit(c);
}

/* A clock's time still owed after now_ns, scaled by num / den. */
static void
rescale_clock(uint64_t *clock_ns, uint64_t now_ns, uint64_t num,
    uint64_t den)
{
	unsigned __int128	owed;

	if (*clock_ns <= now_ns)
		return;
	owed = (unsigned __int128)(*clock_ns - now_ns) * num / den;
	*clock_ns = owed > CAKE_TIME_NEVER - now_ns ? CAKE_TIME_NEVER :
	    now_ns + (uint64_t)owed;
}

void
inst_set_rate(struct cake *c, uint64_t rate_Bps, uint64_t now_ns)
{
	uint64_t	old_Bps = c->cfg.rate_Bps;
	unsigned int	i;

	if (rate_Bps == old_Bps)
		return;
	c->cfg.rate_Bps = rate_Bps;
	apply_tin_rates(c);
	if (old_Bps == 0 || rate_Bps == 0)
		return;
	/* Bytes owed at the old rate take their time at the new one. */
	rescale_clock(&c->time_next_ns, now_ns, old_Bps, rate_Bps);
	rescale_clock(&c->failsafe_next_ns, now_ns, old_Bps, rate_Bps);
	for (i = 0; i < c->layout.count; i++)
		rescale_clock(&c->tins[i].time_next_ns, now_ns, old_Bps,
		    rate_Bps);
}

static void
apply_config(struct cake *c, const struct cake_config *cfg)
{
	unsigned int	old_count = c->layout.count, i;

	c->cfg = *cfg;
	apply_rates(c);
	for (i = c->layout.count; i < old_count; i++)
		tin_flush(c, i, CAKE_DROP_TIN_GONE);
	if (c->cur_tin >= c->layout.count)
		c->cur_tin = 0;
	c->framing.compensate = !cfg->raw;
	c->framing.overhead = cfg->overhead;
	c->framing.mpu = cfg->mpu;
	c->framing.atm = cfg->atm;
	if (!cfg->autorate_ingress || c->peak_Bps == 0)
		c->peak_Bps = cfg->rate_Bps;
}

/*
 * The instance's tables, in one allocation: per tin, queues flows, host
 * slots and tags; then the backlogs and the overflow heap over every
 * queue of every tin. Largest alignment first, so each part stays aligned.
 */
static int
alloc_tables(struct cake *c)
{
	size_t		 n = (size_t)CAKE_MAX_TINS * c->queues;
	size_t		 flows = n * sizeof(struct cake_flow);
	size_t		 hosts = n * sizeof(struct cake_host);
	size_t		 words = n * sizeof(uint32_t);
	uint8_t		*p;
	unsigned int	 i, q;

	if ((p = calloc(1, flows + hosts + 4 * words)) == NULL)
		return -1;
	c->tables = p;
	c->backlogs = (uint32_t *)(void *)(p + flows + hosts + words);
	overflow_init(&c->heap, c->backlogs + n, c->backlogs + 2 * n,
	    (uint32_t)n);
	for (i = 0; i < CAKE_MAX_TINS; i++) {
		struct cake_tin	*t = &c->tins[i];

		t->flows = (struct cake_flow *)(void *)p +
		    (size_t)i * c->queues;
		t->hosts = (struct cake_host *)(void *)(p + flows) +
		    (size_t)i * c->queues;
		t->tags = (uint32_t *)(void *)(p + flows + hosts) +
		    (size_t)i * c->queues;
		t->backlogs = c->backlogs + (size_t)i * c->queues;
		list_init(&t->new_flows);
		list_init(&t->old_flows);
		list_init(&t->decaying_flows);
		for (q = 0; q < c->queues; q++) {
			list_init(&t->flows[q].chain);
			cobalt_vars_init(&t->flows[q].cvars);
		}
	}
	return 0;
}

struct cake *
cake_create(const struct cake_config *cfg, const struct cake_env *env,
    int *err)
{
	struct cake	*c;
	uint64_t	 s;

	*err = validate(cfg);
	if (*err != CAKE_OK)
		return NULL;
	if (env->mtu < 68 || env->mtu > 65535 ||
	    (unsigned int)env->link > CAKE_LINK_IP) {
		*err = CAKE_ERR_INVAL;
		return NULL;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		*err = CAKE_ERR_NOMEM;
		return NULL;
	}
	c->queues = cfg->queues;
	if (alloc_tables(c) == -1) {
		free(c);
		*err = CAKE_ERR_NOMEM;
		return NULL;
	}
	c->env = *env;
	s = env->seed;
	c->hash_key[0] = splitmix64(&s);
	c->hash_key[1] = splitmix64(&s);
	c->rng = splitmix64(&s) | 1;
	c->min_netlen = UINT32_MAX;
	c->min_adjlen = UINT32_MAX;
	apply_config(c, cfg);
	return c;
}

void
cake_destroy(struct cake *c)
{
	if (c == NULL)
		return;
	free(c->tables);
	free(c);
}

void
cake_set_alloc(struct cake *c, struct cake_pkt *(*alloc)(void *arg,
    uint32_t cap), void *alloc_arg)
{
	c->env.alloc = alloc;
	c->env.alloc_arg = alloc_arg;
}

int
cake_change(struct cake *c, const struct cake_config *cfg, uint64_t now_ns)
{
	int	err = validate(cfg);

	if (err != CAKE_OK)
		return err;
	if (cfg->queues != c->queues)
		return CAKE_ERR_QUEUES;
	if (cfg->autorate_ingress && !c->cfg.autorate_ingress)
		c->last_reconfig_ns = now_ns;
	apply_config(c, cfg);
	return CAKE_OK;
}

/* Autorate-ingress (§7): sets the rate to 15/16 of the estimate. */
void
inst_autorate_apply(struct cake *c, uint64_t now_ns)
{
	c->cfg.rate_Bps = c->peak_Bps * 15 / 16;
	c->last_reconfig_ns = now_ns;
	apply_rates(c);
}

const char *
cake_strerror(int err)
{
	switch (err) {
	case CAKE_OK:
		return "no error";
	case CAKE_ERR_INVAL:
		return "a parameter out of range";
	case CAKE_ERR_NOMEM:
		return "out of memory";
	case CAKE_ERR_QUEUES:
		return "the number of queues is fixed when the instance is "
		    "created";
	default:
		return "unknown error";
	}
}

void
cake_get_config(const struct cake *c, struct cake_config *cfg)
{
	*cfg = c->cfg;
}

void
cake_flush(struct cake *c)
{
	unsigned int	i;

	for (i = 0; i < c->layout.count; i++)
		tin_flush(c, i, CAKE_DROP_FLUSH);
}
