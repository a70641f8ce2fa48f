/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tsrtt.c: passive delay from TCP timestamps (doc/passive.md has the
 * reasoning and the rules).
 *
 * A TSval leaving caked is remembered with the time it left (after
 * caked's queue); the first segment coming back that echoes it in TSecr
 * gives a round trip of the path beyond caked (before caked's queue on
 * the way back), so caked's own queueing is never part of it. The LAN
 * host's TSvals, echoed from the WAN, measure the WAN side; the WAN
 * host's, echoed from the LAN, the LAN side.
 *
 * The WAN host's TSval also tells when that host sent the segment, on its
 * own clock: once the clock's rate is learnt (1 ms a tick on most
 * systems), arrival time minus TSval times tick is the download path's
 * one-way delay plus an unknown constant, so its rise over its minimum is
 * the download queue; the round trip's rise minus that is the upload
 * queue's. Each direction keeps the minimum over a short window of these
 * per-flow rises: a delayed ACK or a host's scheduling only ever adds
 * delay, a queue adds it to every sample.
 *
 * Rules that keep the samples honest (Karn): a TSval counts only at the
 * first segment that carries it; a TSval carried by a retransmission
 * gives no sample; each TSval gives at most one sample, at its first
 * echo, and an echo of a TSval older than one already echoed gives none.
 */
#include <string.h>

#include "engine/tsrtt.h"

#define TSRTT_PROTO_TCP		6
#define TSRTT_TCP_MIN		20	/* header bytes without options */
#define TSRTT_OPT_EOL		0
#define TSRTT_OPT_NOP		1
#define TSRTT_OPT_TS		8
#define TSRTT_OPT_TS_LEN	10
#define TSRTT_TH_SYN		0x02
#define TSRTT_TH_RST		0x04
#define TSRTT_TH_FIN		0x01
#define TSRTT_TH_ACK		0x10
#define TSRTT_TICK_SLACK_PCT	20	/* a learnt rate within this of ... */

/* ... one of the clock rates TCP stacks use, in ns per TSval unit. */
static const uint32_t tsrtt_ticks[] = { 1000000, 4000000, 10000000, 1000 };

/* Serial-number order (RFC 1982) of 32-bit TSvals and sequence numbers. */
static bool
tsrtt_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static uint32_t
tsrtt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Time from then to now; 0 if the clock seems to have gone back. */
static uint64_t
tsrtt_since(uint64_t now_ns, uint64_t then_ns)
{
	return now_ns > then_ns ? now_ns - then_ns : 0;
}


void
tsrtt_init(struct tsrtt *t)
{
	memset(t, 0, sizeof(*t));
}

/* ---- parsing ------------------------------------------------------------ */

/*
 * Walks the options o[0..len) for a timestamp. 1: found, 0: none,
 * -1: malformed (a length running past the header, or below 2).
 */
static int
tsrtt_options(const uint8_t *o, uint32_t len, struct tsrtt_seg *s)
{
	uint32_t	i = 0;

	while (i < len) {
		if (o[i] == TSRTT_OPT_EOL)
			return 0;
		if (o[i] == TSRTT_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len || o[i + 1] < 2 || o[i + 1] > len - i)
			return -1;
		if (o[i] == TSRTT_OPT_TS) {
			if (o[i + 1] != TSRTT_OPT_TS_LEN)
				return -1;
			s->tsval = tsrtt_be32(o + i + 2);
			s->tsecr = tsrtt_be32(o + i + 6);
			return 1;
		}
		i += o[i + 1];
	}
	return 0;
}

/* The TCP header of m within data[0..len), or NULL. */
static const uint8_t *
tsrtt_tcp(const uint8_t *data, uint32_t len, const struct cake_pkt_meta *m,
    uint32_t *hdr)
{
	const uint8_t	*th;

	if (m->tuple.proto != TSRTT_PROTO_TCP || m->l4_off == 0 ||
	    (m->flags & (CAKE_META_FRAG | CAKE_META_MALFORMED |
	    CAKE_META_TRUNCATED)) || (m->tuple.family != 4 &&
	    m->tuple.family != 6) || m->l4_len < TSRTT_TCP_MIN ||
	    (uint32_t)m->l4_off + m->l4_len > len)
		return NULL;
	th = data + m->l4_off;
	*hdr = (uint32_t)(th[12] >> 4) * 4;
	if (*hdr < TSRTT_TCP_MIN || *hdr > m->l4_len)
		return NULL;
	return th;
}

/* Frames going to the WAN have the LAN host as their source. */
static bool
tsrtt_from_lan(enum tsrtt_event ev)
{
	return ev == TSRTT_LAN_ARRIVE || ev == TSRTT_WAN_DEPART;
}

bool
tsrtt_parse(struct tsrtt *t, enum tsrtt_event ev, const uint8_t *data,
    uint32_t len, const struct cake_pkt_meta *m, struct tsrtt_seg *s)
{
	return tsrtt_parse_counted(&t->c, ev, data, len, m, s);
}

bool
tsrtt_parse_counted(struct tsrtt_counters *c, enum tsrtt_event ev,
    const uint8_t *data, uint32_t len, const struct cake_pkt_meta *m,
    struct tsrtt_seg *s)
{
	const struct cake_tuple	*k = &m->tuple;
	const uint8_t		*th;
	uint32_t		 hdr;
	int			 rc;

	if ((th = tsrtt_tcp(data, len, m, &hdr)) == NULL)
		return false;
	memset(s, 0, sizeof(*s));
	if ((rc = tsrtt_options(th + TSRTT_TCP_MIN, hdr - TSRTT_TCP_MIN,
	    s)) != 1) {
		if (rc == -1)
			c->bad_option++;
		else
			c->no_timestamp++;
		return false;
	}
	memcpy(s->lan, tsrtt_from_lan(ev) ? k->src : k->dst, 16);
	memcpy(s->wan, tsrtt_from_lan(ev) ? k->dst : k->src, 16);
	s->lan_port = tsrtt_from_lan(ev) ? k->sport : k->dport;
	s->wan_port = tsrtt_from_lan(ev) ? k->dport : k->sport;
	s->family = k->family;
	s->flags = th[13];
	s->seq = tsrtt_be32(th + 4);
	s->ack = tsrtt_be32(th + 8);
	s->payload = m->l4_len - hdr;
	return true;
}

/* ---- the flow table ----------------------------------------------------- */

static uint32_t
tsrtt_hash(const struct tsrtt_seg *s)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */
	int		i;

	for (i = 0; i < 16; i++)
		h = (h ^ s->lan[i] ^ (uint32_t)s->wan[i] << 8) * 16777619u;
	h = (h ^ s->lan_port ^ (uint32_t)s->wan_port << 16) * 16777619u;
	return (h ^ h >> 16) % TSRTT_SETS;
}

static bool
tsrtt_same(const struct tsrtt_flow *f, const struct tsrtt_seg *s)
{
	return f->family == s->family && f->lan_port == s->lan_port &&
	    f->wan_port == s->wan_port && memcmp(f->lan, s->lan, 16) == 0 &&
	    memcmp(f->wan, s->wan, 16) == 0;
}

/* s's flow; a new one in a free, idle or else the oldest slot. */
static struct tsrtt_flow *
tsrtt_flow(struct tsrtt *t, const struct tsrtt_seg *s, uint64_t now_ns)
{
	struct tsrtt_flow	*set, *v;
	int			 i;

	set = &t->flows[tsrtt_hash(s) * TSRTT_WAYS];
	for (i = 0; i < TSRTT_WAYS; i++)
		if (tsrtt_same(&set[i], s))
			return &set[i];
	for (v = set, i = 1; i < TSRTT_WAYS && v->family != 0; i++)
		if (set[i].family == 0 || set[i].last_ns < v->last_ns)
			v = &set[i];
	if (v->family != 0 &&
	    tsrtt_since(now_ns, v->last_ns) < TSRTT_FLOW_IDLE_NS)
		t->c.evictions++;
	memset(v, 0, sizeof(*v));
	memcpy(v->lan, s->lan, 16);
	memcpy(v->wan, s->wan, 16);
	v->lan_port = s->lan_port;
	v->wan_port = s->wan_port;
	v->family = s->family;
	return v;
}

/* ---- per-direction delay ------------------------------------------------ */

static void
tsrtt_delay_close(struct tsrtt_delay *d, uint64_t now_ns)
{
	if (d->win_samples == 0 ||
	    tsrtt_since(now_ns, d->win_start_ns) < TSRTT_WINDOW_NS)
		return;
	d->recent_ns = d->win_min_ns;
	d->recent_at_ns = d->win_last_ns;
	d->win_samples = 0;
}

static void
tsrtt_delay_feed(struct tsrtt_delay *d, int64_t delay_ns, uint64_t now_ns)
{
	tsrtt_delay_close(d, now_ns);
	if (d->win_samples == 0 || delay_ns < d->win_min_ns)
		d->win_min_ns = delay_ns;
	if (d->win_samples++ == 0)
		d->win_start_ns = now_ns;
	d->win_last_ns = now_ns;
	d->samples++;
}

static bool
tsrtt_delay_fresh(struct tsrtt_delay *d, uint64_t now_ns)
{
	tsrtt_delay_close(d, now_ns);
	return d->recent_at_ns != 0 && tsrtt_since(now_ns, d->recent_at_ns) <=
	    TSRTT_FRESH_NS;
}

bool
tsrtt_delay(struct tsrtt *t, int dir, uint64_t now_ns, int64_t *delay_ns)
{
	if (dir < 0 || dir >= TSRTT_DIRS)
		return false;
	if (!tsrtt_delay_fresh(&t->dir[dir], now_ns))
		dir = TSRTT_TOTAL;
	if (!tsrtt_delay_fresh(&t->dir[dir], now_ns))
		return false;
	*delay_ns = t->dir[dir].recent_ns > 0 ? t->dir[dir].recent_ns : 0;
	return true;
}

/* ---- departures: remember new TSvals ------------------------------------ */

/* A free slot (an expired one is freed and counted), or NULL. */
static struct tsrtt_pending *
tsrtt_slot(struct tsrtt *t, struct tsrtt_end *e, uint64_t now_ns)
{
	int	i;

	for (i = 0; i < TSRTT_PENDING; i++) {
		if (e->pend[i].used &&
		    tsrtt_since(now_ns, e->pend[i].sent_ns) >=
		    TSRTT_PENDING_NS) {
			e->pend[i].used = false;
			t->c.expired++;
		}
		if (!e->pend[i].used)
			return &e->pend[i];
	}
	return NULL;
}

/* A segment that repeats sequence space already sent: no sample from it. */
static bool
tsrtt_retrans(struct tsrtt *t, struct tsrtt_end *e, const struct tsrtt_seg *s)
{
	uint32_t	len = s->payload;
	int		i;

	if (s->flags & (TSRTT_TH_SYN | TSRTT_TH_FIN))
		len++;
	if (len == 0 || !e->seen || tsrtt_after(s->seq + len, e->seq_end))
		return false;
	t->c.retrans++;
	for (i = 0; i < TSRTT_PENDING; i++)
		if (e->pend[i].used && e->pend[i].tsval == s->tsval)
			e->pend[i].retrans = true;
	return true;
}

static void
tsrtt_depart(struct tsrtt *t, struct tsrtt_end *e, const struct tsrtt_seg *s,
    uint64_t now_ns, uint64_t *sent)
{
	struct tsrtt_pending	*p;
	uint32_t		 end = s->seq + s->payload +
	    ((s->flags & (TSRTT_TH_SYN | TSRTT_TH_FIN)) != 0);
	bool			 newer;

	if (tsrtt_retrans(t, e, s))
		return;
	newer = !e->seen || tsrtt_after(s->tsval, e->last_tsval);
	if (!e->seen || tsrtt_after(end, e->seq_end)) {
		/* new sequence space: counted from the second segment on */
		if (e->seen && sent != NULL)
			*sent += end - e->seq_end;
		e->seq_end = end;
	}
	if (!newer)
		return;		/* not the first segment with this TSval */
	e->last_tsval = s->tsval;
	e->seen = true;
	if ((p = tsrtt_slot(t, e, now_ns)) == NULL)
		return;
	p->used = true;
	p->retrans = false;
	p->tsval = s->tsval;
	p->sent_ns = now_ns;
}

/* ---- arrivals: echoes and the WAN host's clock -------------------------- */

/*
 * The echo tsecr of e's TSvals arrived: the round trip in *rtt_ns if it
 * gives a sample. Every TSval up to tsecr is done with.
 */
static bool
tsrtt_echo(struct tsrtt_end *e, uint32_t tsecr,
    uint64_t now_ns, uint64_t *rtt_ns)
{
	bool	got = false;
	int	i;

	if (e->echoed && !tsrtt_after(tsecr, e->last_echoed))
		return false;	/* an older echo: a delayed ACK's, say */
	e->echoed = true;
	e->last_echoed = tsecr;
	for (i = 0; i < TSRTT_PENDING; i++) {
		if (!e->pend[i].used || tsrtt_after(e->pend[i].tsval, tsecr))
			continue;
		if (e->pend[i].tsval == tsecr && !e->pend[i].retrans) {
			*rtt_ns = tsrtt_since(now_ns, e->pend[i].sent_ns);
			got = true;
		}
		e->pend[i].used = false;
	}
	return got;
}

/*
 * Feeds v into floor f; returns the baseline: the minimum over the last
 * half to whole TSRTT_BASE_WINDOW_NS. A lower value counts at once; a
 * path that got longer (a route change, a satellite's new hop) is learnt
 * within the window, while a queue that lasts less than half of it never
 * becomes the baseline (the controller drains a queue well within that).
 */
static int64_t
tsrtt_floor(struct tsrtt_floor *f, int64_t v, uint64_t now_ns)
{
	uint64_t	half = TSRTT_BASE_WINDOW_NS / 2, age;

	age = tsrtt_since(now_ns, f->start_ns);
	if (!f->set || age >= 2 * half) {
		f->cur = f->prev = v;
		f->start_ns = now_ns;
		f->set = true;
	} else if (age >= half) {
		f->prev = f->cur;
		f->cur = v;
		f->start_ns = now_ns;
	} else if (v < f->cur)
		f->cur = v;
	return f->cur < f->prev ? f->cur : f->prev;
}

/* Folds a round trip into e; returns its rise over e's baseline. */
static int64_t
tsrtt_rtt(struct tsrtt *t, struct tsrtt_end *e, uint64_t rtt_ns,
    uint64_t now_ns)
{
	if (e->samples++ == 0)
		e->srtt_ns = rtt_ns;
	else
		e->srtt_ns = (uint64_t)((int64_t)e->srtt_ns +
		    ((int64_t)rtt_ns - (int64_t)e->srtt_ns) /
		    (1 << TSRTT_SRTT_SHIFT));
	e->rtt_base_ns = (uint64_t)tsrtt_floor(&e->rtt_floor, (int64_t)rtt_ns,
	    now_ns);
	e->last_sample_ns = now_ns;
	t->c.samples++;
	return (int64_t)(rtt_ns - e->rtt_base_ns);
}

/* The known clock rate closest to ns per unit, or 0 if none is close. */
static uint32_t
tsrtt_tick(uint64_t span_ns, uint32_t units)
{
	uint64_t	per = span_ns / units, lo, hi;
	size_t		i;

	for (i = 0; i < sizeof(tsrtt_ticks) / sizeof(tsrtt_ticks[0]); i++) {
		lo = (uint64_t)tsrtt_ticks[i] * (100 - TSRTT_TICK_SLACK_PCT);
		hi = (uint64_t)tsrtt_ticks[i] * (100 + TSRTT_TICK_SLACK_PCT);
		if (per * 100 >= lo && per * 100 <= hi)
			return tsrtt_ticks[i];
	}
	return 0;
}

/* Learns the WAN host's clock rate; true once it is known. */
static bool
tsrtt_clock(struct tsrtt *t, struct tsrtt_clock *c, uint32_t tsval,
    uint64_t now_ns)
{
	uint32_t	units;

	if (!c->ref) {
		c->ref = true;
		c->ref_ns = now_ns;
		c->ref_ts = tsval;
	}
	if (c->tick_ns != 0)
		return true;
	units = tsval - c->ref_ts;
	if (tsrtt_since(now_ns, c->ref_ns) < TSRTT_TICK_LEARN_NS ||
	    units == 0 || units > INT32_MAX)
		return false;
	if ((c->tick_ns = tsrtt_tick(tsrtt_since(now_ns, c->ref_ns),
	    units)) == 0) {
		t->c.ticks_unknown++;
		c->ref = false;		/* try again from here */
	}
	return c->tick_ns != 0;
}

/*
 * A TSval of the WAN host arrived: if it is new and the clock rate is
 * known, its one-way delay's rise over the flow's baseline in *owd_ns.
 */
static bool
tsrtt_owd(struct tsrtt *t, struct tsrtt_clock *c, uint32_t tsval,
    uint64_t now_ns, int64_t *owd_ns)
{
	uint32_t	units;
	int64_t		raw;

	if (c->arrived && !tsrtt_after(tsval, c->last_ts))
		return false;	/* not the first segment with this TSval */
	c->arrived = true;
	c->last_ts = tsval;
	if (!tsrtt_clock(t, c, tsval, now_ns))
		return false;
	if ((units = tsval - c->ref_ts) > INT32_MAX)
		return false;	/* before the reference: reordered */
	raw = (int64_t)tsrtt_since(now_ns, c->ref_ns) -
	    (int64_t)units * c->tick_ns;
	c->base_ns = tsrtt_floor(&c->floor, raw, now_ns);
	c->base_set = true;
	c->last_ns = now_ns;
	c->rise_ns = raw - c->base_ns;
	*owd_ns = c->rise_ns;
	return c->samples++ >= TSRTT_MATURE;
}

/*
 * A segment from the WAN host: the WAN round trip (if it echoes a TSval
 * of the LAN host) and the download one-way delay (if its TSval is new),
 * split into the upload and download directions.
 */
/*
 * An ACK for e's data arrived: the bytes it newly acknowledges (of those
 * seen leaving) into *acked. An ACK beyond what left is not counted.
 */
static void
tsrtt_acked(struct tsrtt_end *e, uint32_t ack, uint64_t *acked)
{
	if (!e->seen)
		return;
	if (tsrtt_after(ack, e->seq_end))
		ack = e->seq_end;
	if (e->ack_seen && tsrtt_after(ack, e->acked))
		*acked += ack - e->acked;
	if (!e->ack_seen || tsrtt_after(ack, e->acked))
		e->acked = ack;
	e->ack_seen = true;
}

static void
tsrtt_wan_arrive(struct tsrtt *t, struct tsrtt_flow *f,
    const struct tsrtt_seg *s, uint64_t now_ns)
{
	uint64_t	rtt;
	int64_t		rise = 0, owd = 0;
	bool		have_rtt = false, have_owd;

	if (s->flags & TSRTT_TH_ACK)
		tsrtt_acked(&f->lan_host, s->ack, &t->c.up_acked);
	if ((s->flags & TSRTT_TH_ACK) && tsrtt_echo(&f->lan_host, s->tsecr,
	    now_ns, &rtt)) {
		rise = tsrtt_rtt(t, &f->lan_host, rtt, now_ns);
		have_rtt = f->lan_host.samples > TSRTT_MATURE;
	}
	have_owd = tsrtt_owd(t, &f->clk, s->tsval, now_ns, &owd);
	if (have_rtt)
		tsrtt_delay_feed(&t->dir[TSRTT_TOTAL], rise, now_ns);
	if (have_owd)
		tsrtt_delay_feed(&t->dir[TSRTT_DOWNLOAD], owd, now_ns);
	if (have_rtt && have_owd)
		tsrtt_delay_feed(&t->dir[TSRTT_UPLOAD],
		    rise > owd ? rise - owd : 0, now_ns);
}

/* A segment from the LAN host: the LAN round trip, if it echoes. */
static void
tsrtt_lan_arrive(struct tsrtt *t, struct tsrtt_flow *f,
    const struct tsrtt_seg *s, uint64_t now_ns)
{
	uint64_t	rtt;

	if ((s->flags & TSRTT_TH_ACK) && tsrtt_echo(&f->wan_host, s->tsecr,
	    now_ns, &rtt))
		(void)tsrtt_rtt(t, &f->wan_host, rtt, now_ns);
}

void
tsrtt_segment(struct tsrtt *t, enum tsrtt_event ev,
    const struct tsrtt_seg *s, uint64_t now_ns)
{
	struct tsrtt_flow	*f;

	t->c.segments++;
	if (s->flags & TSRTT_TH_RST)
		return;		/* may carry anything */
	f = tsrtt_flow(t, s, now_ns);
	f->last_ns = now_ns;
	switch (ev) {
	case TSRTT_LAN_ARRIVE:
		tsrtt_lan_arrive(t, f, s, now_ns);
		break;
	case TSRTT_WAN_DEPART:
		tsrtt_depart(t, &f->lan_host, s, now_ns, &t->c.up_sent);
		break;
	case TSRTT_WAN_ARRIVE:
		tsrtt_wan_arrive(t, f, s, now_ns);
		break;
	case TSRTT_LAN_DEPART:
		tsrtt_depart(t, &f->wan_host, s, now_ns, NULL);
		break;
	}
}

void
tsrtt_frame(struct tsrtt *t, enum tsrtt_event ev, const uint8_t *data,
    uint32_t len, const struct cake_pkt_meta *m, uint64_t now_ns)
{
	struct tsrtt_seg	s;

	if (tsrtt_parse(t, ev, data, len, m, &s))
		tsrtt_segment(t, ev, &s, now_ns);
}

/* ---- views -------------------------------------------------------------- */

/* Flows with a WAN round trip lately, and the lowest baseline of them. */
static uint32_t
tsrtt_flows_sampled(const struct tsrtt *t, uint64_t now_ns,
    uint64_t *base_ns)
{
	const struct tsrtt_end	*e;
	uint32_t		 i, n = 0;

	*base_ns = 0;
	for (i = 0; i < TSRTT_FLOWS_MAX; i++) {
		e = &t->flows[i].lan_host;
		if (t->flows[i].family == 0 || e->samples == 0 ||
		    tsrtt_since(now_ns, e->last_sample_ns) > TSRTT_FRESH_NS)
			continue;
		if (n++ == 0 || e->rtt_base_ns < *base_ns)
			*base_ns = e->rtt_base_ns;
	}
	return n;
}

void
tsrtt_view(struct tsrtt *t, int dir, uint64_t now_ns, struct tsrtt_view *v)
{
	memset(v, 0, sizeof(*v));
	v->delay_ns = -1;
	if (dir < 0 || dir >= TSRTT_DIRS)
		return;
	v->split = dir == TSRTT_TOTAL ||
	    tsrtt_delay_fresh(&t->dir[dir], now_ns);
	v->fresh = tsrtt_delay(t, dir, now_ns, &v->delay_ns);
	if (!v->fresh)
		v->delay_ns = -1;
	v->samples = t->dir[dir].samples;
	v->flows = tsrtt_flows_sampled(t, now_ns, &v->baseline_ns);
}

/* Sums e's smoothed RTT into sum/n if e was sampled within age_ns. */
static void
tsrtt_host_add(const struct tsrtt_end *e, uint64_t now_ns, uint64_t age_ns,
    uint64_t *sum, uint32_t *n)
{
	if (e->samples == 0 || tsrtt_since(now_ns, e->last_sample_ns) > age_ns)
		return;
	*sum += e->srtt_ns;
	(*n)++;
}

/*
 * The mean smoothed RTT of addr's flows on one side (wan: beyond caked),
 * over the flows sampled within age_ns; 0 if none.
 */
static uint64_t
tsrtt_host_mean(const struct tsrtt *t, const uint8_t addr[16],
    uint8_t family, bool wan, uint64_t now_ns, uint64_t age_ns)
{
	const struct tsrtt_flow	*f;
	uint64_t		 sum = 0;
	uint32_t		 i, n = 0;

	for (i = 0; i < TSRTT_FLOWS_MAX; i++) {
		f = &t->flows[i];
		if (f->family == 0 || f->family != family ||
		    memcmp(f->lan, addr, 16) != 0)
			continue;
		tsrtt_host_add(wan ? &f->lan_host : &f->wan_host, now_ns,
		    age_ns, &sum, &n);
	}
	return n == 0 ? 0 : sum / n;
}

/* The flows active now if there are any, else those of the last 10 s. */
static uint64_t
tsrtt_host_side(const struct tsrtt *t, const uint8_t addr[16],
    uint8_t family, bool wan, uint64_t now_ns)
{
	uint64_t	v;

	v = tsrtt_host_mean(t, addr, family, wan, now_ns, TSRTT_FRESH_NS);
	return v != 0 ? v : tsrtt_host_mean(t, addr, family, wan, now_ns,
	    TSRTT_FLOW_IDLE_NS);
}

void
tsrtt_host(const struct tsrtt *t, const uint8_t addr[16], uint8_t family,
    uint64_t now_ns, uint64_t *lan_ns, uint64_t *wan_ns)
{
	*lan_ns = tsrtt_host_side(t, addr, family, false, now_ns);
	*wan_ns = tsrtt_host_side(t, addr, family, true, now_ns);
}
