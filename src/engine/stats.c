/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * stats.c: the statistics snapshot of an instance (doc/cake.md §8) and the
 * invariant check that recomputes every counter from the queues
 * themselves (doc/hacking.md, "Invariants"). Read-only: nothing here
 * changes state.
 */
#include <string.h>

#include "engine/instance.h"

#define NS_PER_US	1000ULL

static void
tin_stats(const struct cake *c, unsigned int internal,
    struct cake_tin_stats *ts, unsigned int display)
{
	const struct cake_tin	*t = &c->tins[internal];
	const char		*name = cake_tin_name(c->cfg.diffserv, display);

	memset(ts, 0, sizeof(*ts));
	if (name != NULL) {
		size_t	n = strlen(name);

		if (n >= sizeof(ts->name))
			n = sizeof(ts->name) - 1;
		memcpy(ts->name, name, n);
	}
	ts->threshold_Bps = t->rate_Bps;
	ts->target_us = (uint32_t)(t->cparams.target_ns / NS_PER_US);
	ts->interval_us = (uint32_t)(t->cparams.interval_ns / NS_PER_US);
	ts->peak_delay_us = (uint32_t)(t->peak_delay_ns / NS_PER_US);
	ts->avg_delay_us = (uint32_t)(t->avg_delay_ns / NS_PER_US);
	ts->base_delay_us = (uint32_t)(t->base_delay_ns / NS_PER_US);
	ts->backlog_bytes = t->backlog_bytes;
	ts->pkts = t->pkts;
	ts->bytes = t->bytes;
	ts->way_inds = t->way_inds;
	ts->way_miss = t->way_miss;
	ts->way_cols = t->way_cols;
	ts->drops = t->drops;
	ts->ecn_marks = t->ecn_marks;
	ts->ack_drops = t->ack_drops;
	ts->sparse_flows = t->sparse_flows + t->decaying_flows_n;
	ts->bulk_flows = t->bulk_flows;
	ts->unresponsive_flows = t->unresponsive_flows;
	ts->max_pkt_len = t->max_len;
	ts->flow_quantum = t->flow_quantum;
}

void
cake_get_stats(const struct cake *c, struct cake_stats *st)
{
	unsigned int	i;

	memset(st, 0, sizeof(*st));
	st->sent_bytes = c->sent_bytes;
	st->sent_pkts = c->sent_pkts;
	st->dropped_pkts = c->dropped_pkts;
	st->overlimits = c->overlimits;
	st->backlog_bytes = c->backlog_bytes;
	st->backlog_pkts = c->backlog_pkts;
	st->memory_used = c->buffer_max_used;
	st->memory_limit = c->buffer_limit;
	st->memory_now = c->buffer_used;
	st->capacity_estimate_Bps = c->peak_Bps;
	st->min_netlen = c->min_netlen == UINT32_MAX ? 65535 : c->min_netlen;
	st->max_netlen = c->max_netlen;
	st->min_adjlen = c->min_adjlen == UINT32_MAX ? 65535 : c->min_adjlen;
	st->max_adjlen = c->max_adjlen;
	st->avg_netoff = (uint32_t)((c->avg_netoff + 0x8000) >> 16);
	st->non_ip_pkts = c->non_ip_pkts;
	st->gso_splits = c->gso_splits;
	st->gso_whole = c->gso_whole;
	st->tin_count = c->layout.count;
	for (i = 0; i < c->layout.count; i++)
		tin_stats(c, c->layout.display[i], &st->tins[i], i);
}

/* Counts the flows on a list by state; returns -1 if the list is broken. */
static int
count_list(const struct cake *c, const struct cake_tin *t,
    const struct list_node *head, uint32_t *sparse, uint32_t *bulk,
    uint32_t *decaying)
{
	const struct list_node	*n;
	uint32_t		 seen = 0;

	for (n = head->next; n != head; n = n->next) {
		const struct cake_flow *f = LIST_ENTRY(n, struct cake_flow,
		    chain);

		if (f < t->flows || f >= t->flows + c->queues ||
		    n->next->prev != n || ++seen > c->queues)
			return -1;
		if (f->set == FLOW_SET_SPARSE || f->set == FLOW_SET_SPARSE_WAIT)
			(*sparse)++;
		else if (f->set == FLOW_SET_BULK)
			(*bulk)++;
		else if (f->set == FLOW_SET_DECAYING)
			(*decaying)++;
		else
			return -1;
	}
	return 0;
}

/* Checks one flow's queue; adds its bytes/packets/truesize to the sums. */
static int
check_flow(const struct cake *c, unsigned int tin, unsigned int q,
    uint64_t *bytes, uint64_t *pkts, uint64_t *truesize)
{
	const struct cake_flow	*f = &c->tins[tin].flows[q];
	const struct cake_pkt	*p, *last = NULL;
	uint64_t		 fb = 0;
	uint32_t		 n = 0;

	for (p = f->head; p != NULL; p = p->next) {
		fb += p->len;
		*truesize += p->truesize;
		last = p;
		if (++n > c->backlog_pkts)
			return -1;
	}
	if (last != f->tail || n != f->qlen ||
	    fb != c->backlogs[inst_entry(c, tin, q)])
		return -1;
	/* A queue holding packets must be scheduled. */
	if (n > 0 && (f->set == FLOW_SET_NONE || f->set == FLOW_SET_DECAYING))
		return -1;
	if (f->set != FLOW_SET_NONE && !list_linked(&f->chain))
		return -1;
	*bytes += fb;
	*pkts += n;
	return 0;
}

/* Host slots of a tin with a bulk flow, on the source or destination side. */
static uint32_t
count_bulk_hosts(const struct cake *c, const struct cake_tin *t, bool src)
{
	uint32_t	n = 0;
	unsigned int	q;

	for (q = 0; q < c->queues; q++)
		if ((src ? t->hosts[q].srchost_bulk :
		    t->hosts[q].dsthost_bulk) != 0)
			n++;
	return n;
}

static int
check_tin(const struct cake *c, unsigned int tin, uint64_t *bytes,
    uint64_t *pkts, uint64_t *truesize)
{
	const struct cake_tin	*t = &c->tins[tin];
	uint32_t		 sp = 0, bk = 0, dc = 0;
	uint64_t		 tb = 0, tp = 0;
	unsigned int		 q;

	for (q = 0; q < c->queues; q++)
		if (check_flow(c, tin, q, &tb, &tp, truesize) != 0)
			return __LINE__;
	if (tb != t->backlog_bytes)
		return __LINE__;
	if (count_list(c, t, &t->new_flows, &sp, &bk, &dc) != 0 ||
	    count_list(c, t, &t->old_flows, &sp, &bk, &dc) != 0 ||
	    count_list(c, t, &t->decaying_flows, &sp, &bk, &dc) != 0)
		return __LINE__;
	if (sp != t->sparse_flows || bk != t->bulk_flows ||
	    dc != t->decaying_flows_n)
		return __LINE__;
	if (count_bulk_hosts(c, t, true) != t->bulk_srchosts ||
	    count_bulk_hosts(c, t, false) != t->bulk_dsthosts)
		return __LINE__;
	*bytes += tb;
	*pkts += tp;
	return 0;
}

int
cake_check_invariants(const struct cake *c)
{
	uint64_t	bytes = 0, pkts = 0, truesize = 0;
	unsigned int	i;
	int		line;

	for (i = 0; i < CAKE_MAX_TINS; i++)
		if ((line = check_tin(c, i, &bytes, &pkts, &truesize)) != 0)
			return line;
	if (bytes != c->backlog_bytes || pkts != c->backlog_pkts)
		return __LINE__;
	if (truesize != c->buffer_used)
		return __LINE__;
	if (c->buffer_used > c->buffer_max_used)
		return __LINE__;
	if (!overflow_check(&c->heap, c->backlogs))
		return __LINE__;
	return 0;
}

static uint8_t
flow_state(const struct cake_flow *f)
{
	switch (f->set) {
	case FLOW_SET_SPARSE:
	case FLOW_SET_SPARSE_WAIT:
		return CAKE_FLOW_STATE_SPARSE;
	case FLOW_SET_BULK:
		return CAKE_FLOW_STATE_BULK;
	case FLOW_SET_DECAYING:
		return CAKE_FLOW_STATE_DECAYING;
	default:
		return CAKE_FLOW_STATE_IDLE;
	}
}

unsigned int
cake_get_flows(const struct cake *c, struct cake_flow_stats *out,
    unsigned int max)
{
	unsigned int	d, q, n = 0;

	for (d = 0; d < c->layout.count; d++) {
		unsigned int		 tin = c->layout.display[d];
		const struct cake_tin	*t = &c->tins[tin];

		for (q = 0; q < c->queues && n < max; q++) {
			const struct cake_flow	*f = &t->flows[q];
			struct cake_flow_stats	*fs = &out[n];

			if (f->pkts == 0)
				continue;
			memset(fs, 0, sizeof(*fs));
			fs->keys = f->keys;
			fs->tin = (uint8_t)d;
			fs->state = flow_state(f);
			fs->qlen = f->qlen;
			fs->backlog_bytes = c->backlogs[inst_entry(c, tin, q)];
			fs->bytes = f->bytes;
			fs->pkts = f->pkts;
			fs->drops = f->drops;
			fs->marks = f->marks;
			n++;
		}
	}
	return n;
}
