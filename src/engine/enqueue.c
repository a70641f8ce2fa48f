/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * enqueue.c: cake_enqueue(), a packet's way into the instance.
 *
 * Parse (once), split GSO super-packets, choose the tin (fwmark, then
 * DSCP; wash after reading it), find the flow queue, compute the adjusted
 * length, queue it, run the ACK filter, move the flow between DRR++ sets,
 * feed autorate-ingress, and enforce the memory limit by dropping from the
 * longest queue (doc/cake.md §2-§7). Never allocates; every packet it does
 * not keep goes to the dropped list.
 */
#include <string.h>

#include "engine/ackfilter.h"
#include "engine/flows.h"
#include "engine/gso.h"
#include "engine/instance.h"
#include "engine/packet.h"

#define NS_PER_S		1000000000ULL
#define AUTORATE_MIN_NS		250000000ULL	/* §7: at most every 250 ms */
#define AUTORATE_MIN_WINDOW_NS	1000000ULL	/* 1 ms: shorter windows say nothing */
#define DSCP_CS7		56		/* §4: ARP counts as CS7 */

/* The internal tin for a packet (§4); washes it when asked. */
static unsigned int
classify(struct cake *c, struct cake_pkt *pkt)
{
	unsigned int	dscp, v;

	if (pkt->meta.l3 == CAKE_L3_ARP)
		dscp = DSCP_CS7;
	else
		dscp = packet_dscp(&pkt->meta);
	if (c->cfg.wash && dscp != 0 && pkt->meta.l3 != CAKE_L3_ARP)
		packet_wash(pkt);
	if (c->cfg.diffserv == CAKE_BESTEFFORT)
		return 0;
	if (c->cfg.fwmark_mask != 0) {
		v = (pkt->mark & c->cfg.fwmark_mask) >>
		    __builtin_ctz(c->cfg.fwmark_mask);
		if (v >= 1 && v <= c->layout.count)
			return c->layout.display[v - 1];
	}
	return tins_from_dscp(c->cfg.diffserv, dscp);
}

/* §2: adjusted length, charging an unsplit GSO packet per segment. */
static void
charge(struct cake *c, struct cake_pkt *pkt)
{
	uint32_t	off = pkt->meta.net_off, netlen, adj;
	unsigned int	segs = gso_segs(pkt);

	netlen = shaper_netlen(&c->framing, pkt->len, off);
	if (segs > 1) {
		uint32_t	seg_len = pkt->gso_size + gso_hdr_len(pkt);
		uint32_t	last = pkt->len - pkt->gso_size * (segs - 1);

		adj = shaper_adjust(&c->framing, seg_len, off) * (segs - 1) +
		    shaper_adjust(&c->framing, last, off);
	} else
		adj = shaper_adjust(&c->framing, pkt->len, off);
	pkt->segs = (uint16_t)segs;
	pkt->adj_len = adj;
	if (netlen < c->min_netlen)
		c->min_netlen = netlen;
	if (netlen > c->max_netlen)
		c->max_netlen = netlen;
	if (adj < c->min_adjlen)
		c->min_adjlen = adj;
	if (adj > c->max_adjlen)
		c->max_adjlen = adj;
	c->avg_netoff = inst_ewma(c->avg_netoff, (uint64_t)off << 16, 8);
}

static void
append(struct cake *c, unsigned int tin, unsigned int idx,
    struct cake_pkt *pkt)
{
	struct cake_tin		*t = &c->tins[tin];
	struct cake_flow	*f = &t->flows[idx];

	pkt->next = NULL;
	if (f->tail != NULL)
		f->tail->next = pkt;
	else
		f->head = pkt;
	f->tail = pkt;
	f->qlen++;
	f->bytes += pkt->len;
	f->pkts++;
	t->backlog_bytes += pkt->len;
	t->backlogs[idx] += pkt->len;
	c->backlog_bytes += pkt->len;
	if (c->backlog_pkts == 0)
		c->backlog_since_ns = pkt->enqueue_ns;
	c->backlog_pkts++;
	c->buffer_used += pkt->truesize;
	if (overflow_active(&c->heap))
		overflow_update(&c->heap, c->backlogs,
		    inst_entry(c, tin, idx));
}

/* §6: drops one ACK that the new tail makes redundant, if any. */
static void
ack_filter(struct cake *c, unsigned int tin, unsigned int idx,
    struct cake_pkt *trigger, uint64_t now_ns)
{
	struct cake_tin		*t = &c->tins[tin];
	struct cake_flow	*f = &t->flows[idx];
	struct cake_pkt		*ack, *prev, *saved;

	ack = ackfilter_find(f->head, trigger, c->cfg.ack_filter, &prev);
	if (ack == NULL || ack == trigger)
		return;
	/* Unlink it by making it the head for a moment: inst_pop keeps the counters. */
	if (prev != NULL) {
		saved = f->head;
		prev->next = ack->next;
		ack->next = saved;
		f->head = ack;
	}
	(void)inst_pop(c, tin, idx);
	t->ack_drops++;
	c->dropped_pkts++;
	if (c->cfg.ingress)
		(void)inst_advance_shaper(c, t, ack, now_ns, true);
	inst_drop_pkt(c, ack, CAKE_DROP_ACK_FILTER);
}

/* DRR++ (§3): an idle or decaying flow becomes sparse; a waiting one bulk. */
static void
activate(struct cake *c, struct cake_tin *t, struct cake_flow *f)
{
	if (f->set == FLOW_SET_NONE || f->set == FLOW_SET_DECAYING) {
		if (f->set == FLOW_SET_DECAYING)
			t->decaying_flows_n--;
		if (list_linked(&f->chain))
			list_del(&f->chain);
		list_add_tail(&f->chain, &t->new_flows);
		t->sparse_flows++;
		f->set = FLOW_SET_SPARSE;
		f->deficit = flows_quantum(c, t, f);
	} else if (f->set == FLOW_SET_SPARSE_WAIT) {
		t->sparse_flows--;
		t->bulk_flows++;
		flows_bulk_inc(c, t, f);
		f->set = FLOW_SET_BULK;
	}
}

/*
 * §7: the arrival-rate estimator of autorate-ingress. A gap longer than
 * the average ends a burst window; the window's bytes over its length is a
 * sample of the link's capacity. Unlike the kernel, the packet that ends
 * the gap opens the next window instead of inflating the last one, and a
 * window shorter than AUTORATE_MIN_WINDOW_NS is not sampled (at start-up
 * the average gap is 0, and microsecond windows gave absurd samples).
 */
static void
autorate(struct cake *c, uint32_t len, uint64_t now_ns)
{
	uint64_t	gap, window, sample;

	if (!c->cfg.autorate_ingress) {
		c->window_bytes = 0;
		c->window_begin_ns = now_ns;
		c->last_packet_ns = now_ns;
		return;
	}
	gap = now_ns - c->last_packet_ns;
	if (gap > NS_PER_S)
		gap = NS_PER_S;
	c->avg_gap_ns = inst_ewma(c->avg_gap_ns, gap,
	    gap > c->avg_gap_ns ? 2 : 8);
	c->last_packet_ns = now_ns;
	window = now_ns - c->window_begin_ns;
	if (gap <= c->avg_gap_ns || window < AUTORATE_MIN_WINDOW_NS) {
		c->window_bytes += len;
		return;
	}
	sample = (uint64_t)(((unsigned __int128)c->window_bytes * NS_PER_S) /
	    window);
	c->peak_Bps = inst_ewma(c->peak_Bps, sample,
	    sample > c->peak_Bps ? 2 : 8);
	c->window_bytes = len;
	c->window_begin_ns = now_ns;
	if (now_ns - c->last_reconfig_ns >= AUTORATE_MIN_NS && c->peak_Bps > 0)
		inst_autorate_apply(c, now_ns);
}

#define DROP_NONE	UINT32_MAX	/* drop_fattest(): nothing dropped */

/*
 * §5: drops the head of the longest queue; returns its entry, or DROP_NONE
 * if that queue is empty: the longest by bytes can be an empty one when
 * only zero-length packets are queued (fuzz finding: the memlimit loop in
 * enqueue_one() then spun forever).
 */
static uint32_t
drop_fattest(struct cake *c, uint64_t now_ns)
{
	uint32_t		 entry = overflow_top(&c->heap, c->backlogs);
	unsigned int		 tin = entry / c->queues;
	unsigned int		 idx = entry % c->queues;
	struct cake_tin		*t = &c->tins[tin];
	struct cake_flow	*f = &t->flows[idx];
	struct cake_pkt		*pkt;

	pkt = inst_pop(c, tin, idx);
	if (pkt == NULL)
		return DROP_NONE;
	if (cobalt_queue_full(&f->cvars, &t->cparams, now_ns))
		t->unresponsive_flows++;
	t->drops++;
	f->drops++;
	c->dropped_pkts++;
	if (c->cfg.ingress)
		(void)inst_advance_shaper(c, t, pkt, now_ns, true);
	inst_drop_pkt(c, pkt, CAKE_DROP_OVERLIMIT);
	return entry;
}

/*
 * The length sch_cake sees for a packet: qdisc_pkt_len(), which
 * qdisc_pkt_len_init() (net/core/dev.c) sets for a GSO packet to its
 * length plus the headers of every segment after the first, i.e. the
 * bytes its segments will have on the wire, L2 header included.
 */
static uint32_t
qdisc_len(const struct cake_pkt *pkt)
{
	unsigned int	segs = gso_segs(pkt);

	if (pkt->gso_type == CAKE_GSO_NONE || segs <= 1)
		return pkt->len;
	return pkt->len + (segs - 1) * gso_hdr_len(pkt);
}

/*
 * §2: no credit accumulates while idle. Into an empty instance whose
 * clocks are both in the future (a packet has just left), sch_cake's
 * cake_enqueue() arms the watchdog and counts an overlimit, as its
 * dequeue does when the shaper refuses: caked counts both the same way.
 */
static void
enqueue_idle_clocks(struct cake *c, uint64_t now_ns)
{
	if (c->backlog_pkts != 0)
		return;
	if (c->time_next_ns < now_ns) {
		c->time_next_ns = now_ns;
		c->failsafe_next_ns = now_ns;
	} else if (c->rate.ns != 0 && c->time_next_ns > now_ns &&
	    c->failsafe_next_ns > now_ns)
		c->overlimits++;
}

/*
 * Queues one packet into flow queue idx of tin (chosen once for a
 * super-packet, as sch_cake classifies before it splits). skblen is the
 * length sch_cake's max_len statistic sees (qdisc_len() of the packet as
 * it came, before any split), or 0 for the second and later segments.
 */
static int
enqueue_one(struct cake *c, struct cake_pkt *pkt, unsigned int tin,
    unsigned int idx, uint64_t now_ns, bool may_filter, uint32_t skblen)
{
	struct cake_tin	*t = &c->tins[tin];
	uint32_t	 entry;
	bool		 self = false;

	charge(c, pkt);
	pkt->tin = (uint8_t)tin;
	pkt->enqueue_ns = now_ns;
	pkt->drop_reason = CAKE_DROP_NONE;

	enqueue_idle_clocks(c, now_ns);
	if (t->backlog_bytes == 0 && t->time_next_ns < now_ns)
		t->time_next_ns = now_ns;

	append(c, tin, idx, pkt);
	t->pkts++;
	t->bytes += pkt->len;
	if (skblen > t->max_len)
		t->max_len = skblen;
	if (may_filter && c->cfg.ack_filter != CAKE_ACK_NONE &&
	    pkt->meta.tuple.proto == 6 && pkt->meta.l4_off != 0)
		ack_filter(c, tin, idx, pkt, now_ns);
	activate(c, t, &t->flows[idx]);
	autorate(c, pkt->len, now_ns);

	if (c->buffer_used > c->buffer_max_used)
		c->buffer_max_used = c->buffer_used;
	while ((c->buffer_used > c->buffer_limit || (c->env.max_pkts != 0 &&
	    c->backlog_pkts > c->env.max_pkts)) && c->backlog_pkts > 0) {
		entry = drop_fattest(c, now_ns);
		if (entry == DROP_NONE)
			break;
		if (entry == inst_entry(c, tin, idx))
			self = true;
	}
	return self ? CAKE_ENQ_DROPPED : CAKE_ENQ_QUEUED;
}

/* §7: cuts a GSO super-packet into segments and queues each. */
static int
enqueue_split(struct cake *c, struct cake_pkt *pkt, unsigned int tin,
    unsigned int idx, uint64_t now_ns)
{
	struct cake_pkt	*segs = NULL, *s, *next;
	uint32_t	 skblen = qdisc_len(pkt);
	int		 n, ret = CAKE_ENQ_QUEUED;

	n = gso_split(pkt, &c->env, &segs);
	if (n < 0) {
		for (s = segs; s != NULL; s = next) {
			next = s->next;
			inst_drop_pkt(c, s, CAKE_DROP_SPLIT);
		}
		c->dropped_pkts++;
		inst_drop_pkt(c, pkt, CAKE_DROP_GSO_FAIL);
		return CAKE_ENQ_DROPPED;
	}
	c->gso_splits++;
	for (s = segs; s != NULL; s = next) {
		next = s->next;
		if (enqueue_one(c, s, tin, idx, now_ns, false, skblen) ==
		    CAKE_ENQ_DROPPED)
			ret = CAKE_ENQ_DROPPED;
		skblen = 0;
	}
	inst_drop_pkt(c, pkt, CAKE_DROP_SPLIT);
	return ret;
}

/*
 * With split-gso, whether a super-packet for flow queue idx of tin may
 * stay whole because its segments would leave back to back anyway. Only
 * unlimited (a shaped rate spaces segments out), and only when no other
 * flow's packet could go between them: the queues are empty, or hold
 * only what arrived at this same instant (the caller's current batch,
 * which its next dequeue pass sends in full), or hold nothing but this
 * flow's own packets, whose segments DRR would send in a row (and the
 * daemon writes consecutive segments of a flow as one super-packet
 * again). Cutting it would then change nothing but cost the copy. Its
 * bytes are charged per segment either way; as soon as another flow has
 * something queued, or under any shaped rate, it is cut as in sch_cake.
 */
static bool
leaves_at_once(const struct cake *c, unsigned int tin, unsigned int idx,
    uint64_t now_ns)
{
	if (c->rate.ns != 0)
		return false;
	return c->backlog_pkts == 0 || c->backlog_since_ns == now_ns ||
	    c->tins[tin].backlogs[idx] == c->backlog_bytes;
}

int
cake_enqueue(struct cake *c, struct cake_pkt *pkt, uint64_t now_ns)
{
	unsigned int	tin, idx;
	bool		gso;

	if (!pkt->meta_valid) {
		cake_parse(pkt->data, pkt->len, c->env.link, &pkt->meta);
		pkt->meta_valid = true;
	}
	if (pkt->meta.l3 == CAKE_L3_NONE)
		c->non_ip_pkts++;
	tin = classify(c, pkt);
	idx = flows_lookup(c, &c->tins[tin], pkt);
	gso = pkt->gso_type != CAKE_GSO_NONE && pkt->gso_size != 0 &&
	    gso_segs(pkt) > 1;
	if (gso && c->cfg.split_gso) {
		if (!leaves_at_once(c, tin, idx, now_ns))
			return enqueue_split(c, pkt, tin, idx, now_ns);
		c->gso_whole++;
	}
	return enqueue_one(c, pkt, tin, idx, now_ns,
	    pkt->gso_type == CAKE_GSO_NONE, qdisc_len(pkt));
}
