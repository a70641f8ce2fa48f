/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * dequeue.c: cake_dequeue(), choosing the next packet to leave.
 *
 * The shaper decides whether anything may leave now; then a tin is chosen
 * (shaped: the highest-priority tin within its threshold, else the one
 * whose clock comes first; unlimited: weighted DRR), then a flow by DRR++
 * (new flows before old, decaying ones aged on the way), then COBALT
 * decides the packet's fate (doc/cake.md §2-§5).
 */
#include "engine/flows.h"
#include "engine/instance.h"
#include "engine/packet.h"

static bool
tin_active(const struct cake_tin *t)
{
	return t->sparse_flows + t->bulk_flows > 0;
}

/* Shaped mode (§4): returns the tin to serve by until_ns, or -1. */
static int
pick_tin_shaped(struct cake *c, uint64_t until_ns)
{
	int		best = -1;
	uint64_t	best_ns = UINT64_MAX;
	int		i;

	for (i = (int)c->layout.count - 1; i >= 0; i--) {
		const struct cake_tin	*t = &c->tins[i];

		if (!tin_active(t))
			continue;
		if (t->time_next_ns <= until_ns)
			return i;
		if (t->time_next_ns < best_ns) {
			best_ns = t->time_next_ns;
			best = i;
		}
	}
	return best;
}

/* Unlimited mode (§4): weighted DRR between tins; -1 if all are idle. */
static int
pick_tin_drr(struct cake *c)
{
	unsigned int	passes = 0;

	for (;;) {
		struct cake_tin	*t = &c->tins[c->cur_tin];

		if (t->tin_deficit > 0 && tin_active(t))
			return (int)c->cur_tin;
		if (t->tin_deficit <= 0)
			t->tin_deficit += t->tin_quantum;
		if (++c->cur_tin >= c->layout.count) {
			c->cur_tin = 0;
			/* Weights are >= 64, so a few passes always suffice. */
			if (++passes > 2 * 1024)
				return -1;
		}
	}
}

/* The flow list to serve in tin t (§3); NULL when all are empty. */
static struct cake_flow *
pick_flow(struct cake_tin *t, bool first)
{
	struct list_node	*head = &t->decaying_flows;

	if (!first || list_empty(head)) {
		head = &t->new_flows;
		if (list_empty(head)) {
			head = &t->old_flows;
			if (list_empty(head)) {
				head = &t->decaying_flows;
				if (list_empty(head))
					return NULL;
			}
		}
	}
	return LIST_ENTRY(head->next, struct cake_flow, chain);
}

/* A flow found empty rests on the decaying list or leaves the lists. */
static void
retire(struct cake *c, struct cake_tin *t, struct cake_flow *f,
    uint64_t now_ns)
{
	if (cobalt_queue_empty(&f->cvars, &t->cparams, now_ns) &&
	    t->unresponsive_flows > 0)
		t->unresponsive_flows--;
	if (f->set == FLOW_SET_BULK) {
		t->bulk_flows--;
		flows_bulk_dec(c, t, f);
	} else if (f->set == FLOW_SET_SPARSE ||
	    f->set == FLOW_SET_SPARSE_WAIT)
		t->sparse_flows--;
	else if (f->set == FLOW_SET_DECAYING)
		t->decaying_flows_n--;

	if (f->cvars.p_drop != 0 || f->cvars.count != 0 ||
	    now_ns < f->cvars.drop_next_ns) {
		list_move_tail(&f->chain, &t->decaying_flows);
		t->decaying_flows_n++;
		f->set = FLOW_SET_DECAYING;
	} else {
		list_del(&f->chain);
		f->set = FLOW_SET_NONE;
	}
}

/* A flow out of deficit: refill it and move it to the old list. */
static void
refill(struct cake *c, struct cake_tin *t, struct cake_flow *f)
{
	if (f->set == FLOW_SET_SPARSE) {
		if (f->head != NULL) {
			t->sparse_flows--;
			t->bulk_flows++;
			flows_bulk_inc(c, t, f);
			f->set = FLOW_SET_BULK;
		} else
			f->set = FLOW_SET_SPARSE_WAIT;
	}
	f->deficit += flows_quantum(c, t, f);
	list_move_tail(&f->chain, &t->old_flows);
}

static void
record_delay(struct cake_tin *t, uint64_t delay_ns)
{
	t->avg_delay_ns = inst_ewma(t->avg_delay_ns, delay_ns, 8);
	t->peak_delay_ns = inst_ewma(t->peak_delay_ns, delay_ns,
	    delay_ns > t->peak_delay_ns ? 2 : 8);
	t->base_delay_ns = inst_ewma(t->base_delay_ns, delay_ns,
	    delay_ns < t->base_delay_ns ? 2 : 8);
}

/*
 * Pulls packets from flow f through COBALT until one may be delivered.
 * Returns it, or NULL with *again set when the caller must pick anew.
 * A drop charges the shaper at until_ns, as dequeue_once() does.
 */
static struct cake_pkt *
pull(struct cake *c, unsigned int tin, struct cake_flow *f, uint64_t now_ns,
    uint64_t until_ns, bool *again)
{
	struct cake_tin		*t = &c->tins[tin];
	unsigned int		 idx = (unsigned int)(f - t->flows);
	uint32_t		 bulk = c->cfg.ingress ? t->bulk_flows : 0;
	struct cake_pkt		*pkt;
	enum cobalt_verdict	 v;

	for (;;) {
		if ((pkt = inst_pop(c, tin, idx)) == NULL) {
			retire(c, t, f, now_ns);
			*again = true;
			return NULL;
		}
		v = cobalt_should_drop(&f->cvars, &t->cparams, now_ns,
		    now_ns - pkt->enqueue_ns, bulk, packet_is_ect(&pkt->meta),
		    inst_rand(c));
		if (v == COBALT_MARK && !packet_set_ce(pkt))
			f->cvars.ecn_marked = false;
		/* The last packet of a queue is never dropped (§5). */
		if (v == COBALT_PASS || v == COBALT_MARK || f->head == NULL)
			return pkt;
		t->drops++;
		f->drops++;
		c->dropped_pkts++;
		if (c->cfg.ingress) {
			uint32_t len = inst_advance_shaper(c, t, pkt,
			    until_ns, true);

			f->deficit -= (int32_t)len;
			t->tin_deficit -= (int32_t)len;
			inst_drop_pkt(c, pkt, CAKE_DROP_AQM);
			*again = true;
			return NULL;
		}
		inst_drop_pkt(c, pkt, CAKE_DROP_AQM);
	}
}

/*
 * Selects tin and flow and returns the next packet, or NULL. The shaper
 * (tin thresholds and clocks) decides as at until_ns, the horizon, so a
 * tin's share within a batch is what it would be at that instant;
 * COBALT and the sojourn times see the real now_ns.
 */
static struct cake_pkt *
dequeue_once(struct cake *c, uint64_t now_ns, uint64_t until_ns)
{
	struct cake_flow	*f;
	struct cake_pkt		*pkt = NULL;
	bool			 first = true, again;
	int			 tin;

	while (c->backlog_pkts > 0) {
		tin = c->rate.ns != 0 ? pick_tin_shaped(c, until_ns) :
		    pick_tin_drr(c);
		if (tin < 0)
			return NULL;
		for (;;) {
			struct cake_tin	*t = &c->tins[tin];

			/* An active tin always has a listed flow. */
			if ((f = pick_flow(t, first)) == NULL)
				return NULL;
			first = false;
			if (f->deficit <= 0) {
				refill(c, t, f);
				continue;
			}
			again = false;
			pkt = pull(c, (unsigned int)tin, f, now_ns, until_ns,
			    &again);
			if (pkt != NULL) {
				uint32_t len;

				if (f->cvars.ecn_marked) {
					t->ecn_marks++;
					f->marks++;
				}
				record_delay(t, now_ns - pkt->enqueue_ns);
				len = inst_advance_shaper(c, t, pkt, until_ns,
				    false);
				if (f->set != FLOW_SET_BULK)
					c->charged_sparse_bytes += len;
				f->deficit -= (int32_t)len;
				t->tin_deficit -= (int32_t)len;
				return pkt;
			}
			break;
		}
	}
	return NULL;
}

struct cake_pkt *
cake_dequeue(struct cake *c, uint64_t now_ns)
{
	return cake_dequeue_ahead(c, now_ns, 0);
}

/*
 * A packet whose departure falls by now_ns + ahead_ns leaves now. The
 * shaper's clock still advances by each packet's duration from where it
 * was, so the long-run rate is unchanged and packets lead their time by
 * at most ahead_ns; sojourn times and COBALT see the real now_ns.
 */
struct cake_pkt *
cake_dequeue_ahead(struct cake *c, uint64_t now_ns, uint64_t ahead_ns)
{
	struct cake_pkt	*pkt;
	uint64_t	 until_ns;

	if (c->backlog_pkts == 0)
		return NULL;
	until_ns = ahead_ns > CAKE_TIME_NEVER - now_ns ? CAKE_TIME_NEVER :
	    now_ns + ahead_ns;
	if (c->rate.ns != 0 && c->time_next_ns > until_ns &&
	    c->failsafe_next_ns > until_ns) {
		c->overlimits++;
		return NULL;
	}
	pkt = dequeue_once(c, now_ns, until_ns);
	if (pkt != NULL) {
		c->sent_pkts += pkt->segs ? pkt->segs : 1;
		c->sent_bytes += pkt->len;
		overflow_tick(&c->heap);
	}
	return pkt;
}

uint64_t
cake_next_ns(const struct cake *c, uint64_t now_ns)
{
	uint64_t	t;

	if (c->backlog_pkts == 0)
		return CAKE_TIME_NEVER;
	if (c->rate.ns == 0)
		return now_ns;
	t = c->time_next_ns < c->failsafe_next_ns ? c->time_next_ns :
	    c->failsafe_next_ns;
	return t > now_ns ? t : now_ns;
}
