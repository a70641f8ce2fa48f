/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_tsrtt.c: the passive delay from TCP timestamps (src/engine/tsrtt.c)
 * driven by scripted TCP conversations on a modelled path: the exact
 * round trip of a clean flow, delayed ACKs, retransmissions, a flow that
 * stops, a queue in one direction showing in that direction only, TSvals
 * wrapping around, and garbage options (with a seeded random run of
 * 10^5 frames through the parser).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/tsrtt.h"

#define MS		1000000ULL
#define SEC		(1000 * MS)
#define EVENTS_MAX	65536
#define TH_ACK		0x10

/* The modelled path: one-way delays beyond caked, changing at step_ns. */
struct path {
	uint64_t	up_ns, down_ns, lan_ns;
	uint64_t	step_ns;	/* from then on, add: */
	uint64_t	up_extra_ns, down_extra_ns;
	uint32_t	ts_lan_off, ts_wan_off;	/* clock offsets (ticks) */
	unsigned int	ack_every;	/* WAN host ACKs every n-th segment */
	unsigned int	hold_every;	/* ... and holds every n-th ACK ... */
	uint64_t	hold_ns;	/* ... this long (delayed ACK timer) */
};

struct event {
	uint64_t		at_ns;
	enum tsrtt_event	ev;
	struct tsrtt_seg	seg;
};

static struct event	events[EVENTS_MAX];
static unsigned int	nevents;
static struct tsrtt	ts;

static void
seg_keys(struct tsrtt_seg *s, uint8_t lan_last, uint16_t lan_port)
{
	memset(s, 0, sizeof(*s));
	s->lan[10] = s->lan[11] = s->wan[10] = s->wan[11] = 0xff;
	s->lan[12] = 10;
	s->lan[15] = lan_last;
	s->wan[12] = 192;
	s->wan[15] = 1;
	s->lan_port = lan_port;
	s->wan_port = 443;
	s->family = 4;
}

static void
push(uint64_t at_ns, enum tsrtt_event ev, const struct tsrtt_seg *s)
{
	assert_true(nevents < EVENTS_MAX);
	events[nevents].at_ns = at_ns;
	events[nevents].ev = ev;
	events[nevents].seg = *s;
	nevents++;
}

static int
event_cmp(const void *a, const void *b)
{
	const struct event	*x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x < y ? -1 : 1;
}

/* Feeds the scripted events in time order. */
static void
play(void)
{
	unsigned int	i;

	qsort(events, nevents, sizeof(events[0]), event_cmp);
	for (i = 0; i < nevents; i++)
		tsrtt_segment(&ts, events[i].ev, &events[i].seg,
		    events[i].at_ns);
	nevents = 0;
}

static uint64_t
path_up(const struct path *p, uint64_t t)
{
	return p->up_ns + (p->step_ns != 0 && t >= p->step_ns ?
	    p->up_extra_ns : 0);
}

static uint64_t
path_down(const struct path *p, uint64_t t)
{
	return p->down_ns + (p->step_ns != 0 && t >= p->step_ns ?
	    p->down_extra_ns : 0);
}

/* WAN ACKs on their way to the LAN host, oldest first. */
#define FIFO_MAX	4096
static struct {
	uint64_t	back_ns;
	uint32_t	tsval;
} fifo[FIFO_MAX];
static unsigned int	fifo_head, fifo_tail;

/* The newest WAN TSval the LAN host has by t (one LAN hop each way). */
static uint32_t
lan_echo(const struct path *p, uint64_t t, uint32_t cur)
{
	while (fifo_head != fifo_tail &&
	    fifo[fifo_head % FIFO_MAX].back_ns + 2 * p->lan_ns <= t)
		cur = fifo[fifo_head++ % FIFO_MAX].tsval;
	return cur;
}

/* The WAN host's ACK of the segment sent at t, echoing echo_ts. */
static void
wan_ack(const struct path *p, uint64_t t, uint32_t echo_ts, uint8_t host,
    bool hold)
{
	struct tsrtt_seg	a;
	uint64_t		at_w, back;

	at_w = t + path_up(p, t) + (hold ? p->hold_ns : 0);
	seg_keys(&a, host, 40000);
	a.flags = TH_ACK;
	a.seq = 7;
	a.tsval = (uint32_t)(at_w / MS) + p->ts_wan_off;
	a.tsecr = echo_ts;
	back = at_w + path_down(p, at_w);
	push(back, TSRTT_WAN_ARRIVE, &a);
	push(back, TSRTT_LAN_DEPART, &a);
	assert_true(fifo_tail - fifo_head < FIFO_MAX);
	fifo[fifo_tail % FIFO_MAX].back_ns = back;
	fifo[fifo_tail++ % FIFO_MAX].tsval = a.tsval;
}

/*
 * An upload: the LAN host sends a 1000-byte segment every ms from from_ns
 * to to_ns (seen by caked at that time: caked's queue is empty), the WAN
 * host ACKs as p says, echoing the first unacknowledged TSval (RFC 7323);
 * the LAN host echoes the newest WAN TSval it has.
 */
static void
upload(const struct path *p, uint64_t from_ns, uint64_t to_ns, uint8_t host)
{
	struct tsrtt_seg	d;
	uint64_t		t;
	uint32_t		seq = 1, wan_ts = 0, sent = 0, acks = 0;
	uint32_t		first_ts = 0;

	fifo_head = fifo_tail = 0;
	for (t = from_ns; t < to_ns; t += MS, sent++) {
		seg_keys(&d, host, 40000);
		d.flags = TH_ACK;
		d.seq = seq;
		d.payload = 1000;
		d.tsval = (uint32_t)(t / MS) + p->ts_lan_off;
		d.tsecr = wan_ts = lan_echo(p, t, wan_ts);
		seq += 1000;
		push(t, TSRTT_LAN_ARRIVE, &d);
		push(t, TSRTT_WAN_DEPART, &d);
		if (sent % p->ack_every == 0)
			first_ts = d.tsval;
		if (sent % p->ack_every != p->ack_every - 1)
			continue;
		acks++;
		wan_ack(p, t, first_ts, host, p->hold_every != 0 &&
		    acks % p->hold_every == 0);
	}
}

static void
path_default(struct path *p)
{
	memset(p, 0, sizeof(*p));
	p->up_ns = 10 * MS;
	p->down_ns = 10 * MS;
	p->lan_ns = 1 * MS;
	p->ts_lan_off = 12345;
	p->ts_wan_off = 777777;
	p->ack_every = 1;
}

static uint8_t lan_host[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2
};

static int
setup(void **state)
{
	(void)state;
	tsrtt_init(&ts);
	nevents = 0;
	return 0;
}

/* A clean flow: the WAN round trip exactly, and no extra delay. */
static void
test_clean_exact(void **state)
{
	struct path	p;
	uint64_t	lan, wan;
	int64_t		d;

	(void)state;
	path_default(&p);
	upload(&p, SEC, 4 * SEC, 2);
	play();
	tsrtt_host(&ts, lan_host, 4, 5 * SEC, &lan, &wan);
	assert_int_equal(wan, 20 * MS);
	assert_int_equal(lan, 2 * MS);
	assert_true(tsrtt_delay(&ts, TSRTT_TOTAL, 4 * SEC, &d));
	assert_int_equal(d, 0);
	assert_true(tsrtt_delay(&ts, TSRTT_UPLOAD, 4 * SEC, &d));
	assert_int_equal(d, 0);
	assert_true(tsrtt_delay(&ts, TSRTT_DOWNLOAD, 4 * SEC, &d));
	assert_int_equal(d, 0);
	assert_true(ts.c.samples > 2000);
	assert_int_equal(ts.c.retrans, 0);
}

/* Delayed ACKs: echoes of the older TSval of a pair, some held 40 ms. */
static void
test_delayed_ack(void **state)
{
	struct path	p;
	uint64_t	lan, wan;
	int64_t		d;
	int		dir;

	(void)state;
	path_default(&p);
	p.ack_every = 2;
	p.hold_every = 5;
	p.hold_ns = 40 * MS;
	upload(&p, SEC, 6 * SEC, 2);
	play();
	/* Each sample is at most the pair's spacing (1 ms) or a hold late. */
	tsrtt_host(&ts, lan_host, 4, 7 * SEC, &lan, &wan);
	assert_true(wan >= 21 * MS);
	assert_true(wan <= 21 * MS + 40 * MS / 4);
	/* The direction delays take a window's minimum: holds vanish. */
	for (dir = 0; dir < TSRTT_DIRS; dir++) {
		assert_true(tsrtt_delay(&ts, dir, 6 * SEC + 100 * MS, &d));
		assert_int_equal(d, 0);
	}
}

static void
script(uint64_t at_ns, enum tsrtt_event ev, uint32_t seq, uint32_t payload,
    uint32_t tsval, uint32_t tsecr)
{
	struct tsrtt_seg	s;

	seg_keys(&s, 2, 40000);
	s.flags = TH_ACK;
	s.seq = seq;
	s.payload = payload;
	s.tsval = tsval;
	s.tsecr = tsecr;
	tsrtt_segment(&ts, ev, &s, at_ns);
}

/* Retransmitted segments give no sample (Karn), whatever their TSval. */
static void
test_retransmission(void **state)
{
	uint64_t	lan, wan;

	(void)state;
	/* Resent with a new TSval: the echo of either gives nothing. */
	script(0, TSRTT_WAN_DEPART, 1000, 100, 100, 0);
	script(200 * MS, TSRTT_WAN_DEPART, 1000, 100, 150, 0);
	script(230 * MS, TSRTT_WAN_ARRIVE, 1, 0, 9000, 150);
	assert_int_equal(ts.c.samples, 0);
	/* Resent with the same TSval: its echo gives nothing. */
	script(SEC, TSRTT_WAN_DEPART, 2000, 100, 300, 0);
	script(SEC + 100 * MS, TSRTT_WAN_DEPART, 2000, 100, 300, 0);
	script(SEC + 130 * MS, TSRTT_WAN_ARRIVE, 1, 0, 9100, 300);
	assert_int_equal(ts.c.samples, 0);
	assert_int_equal(ts.c.retrans, 2);
	/* New data: one sample, the exact 30 ms. */
	script(2 * SEC, TSRTT_WAN_DEPART, 2100, 100, 400, 0);
	script(2 * SEC + 30 * MS, TSRTT_WAN_ARRIVE, 1, 0, 9200, 400);
	assert_int_equal(ts.c.samples, 1);
	/* A second echo of it (a duplicate ACK) gives nothing more. */
	script(2 * SEC + 31 * MS, TSRTT_WAN_ARRIVE, 1, 0, 9201, 400);
	assert_int_equal(ts.c.samples, 1);
	tsrtt_host(&ts, lan_host, 4, 3 * SEC, &lan, &wan);
	assert_int_equal(wan, 30 * MS);
	assert_int_equal(lan, 0);
}

/* A flow that stops: its delay goes stale, its TSvals and host expire. */
static void
test_flow_stops(void **state)
{
	struct path	p;
	uint64_t	lan, wan;
	int64_t		d;

	(void)state;
	path_default(&p);
	upload(&p, SEC, 4 * SEC, 2);
	play();
	assert_true(tsrtt_delay(&ts, TSRTT_UPLOAD, 4 * SEC + 500 * MS, &d));
	assert_false(tsrtt_delay(&ts, TSRTT_UPLOAD, 5 * SEC + 100 * MS, &d));
	assert_false(tsrtt_delay(&ts, TSRTT_TOTAL, 5 * SEC + 100 * MS, &d));
	tsrtt_host(&ts, lan_host, 4, 13 * SEC, &lan, &wan);
	assert_int_equal(wan, 20 * MS);
	assert_int_equal(lan, 2 * MS);
	tsrtt_host(&ts, lan_host, 4, 15 * SEC, &lan, &wan);
	assert_int_equal(wan, 0);
	assert_int_equal(lan, 0);
	/* A TSval never echoed is given up after TSRTT_PENDING_NS. */
	script(20 * SEC, TSRTT_WAN_DEPART, 1 << 30, 100, 1 << 20, 0);
	assert_int_equal(ts.c.expired, 0);
	script(23 * SEC, TSRTT_WAN_DEPART, (1 << 30) + 100, 100,
	    (1 << 20) + 1, 0);
	assert_int_equal(ts.c.expired, 1);
}

/* A queue of 30 ms in one direction from 5 s on, seen at at_ns. */
static void
queue_at(uint64_t up_extra_ns, uint64_t down_extra_ns, uint64_t at_ns,
    int64_t *up, int64_t *down, int64_t *total)
{
	struct path	p;

	path_default(&p);
	p.step_ns = 5 * SEC;
	p.up_extra_ns = up_extra_ns;
	p.down_extra_ns = down_extra_ns;
	upload(&p, SEC, at_ns - 100 * MS, 2);
	play();
	assert_true(tsrtt_delay(&ts, TSRTT_UPLOAD, at_ns, up));
	assert_true(tsrtt_delay(&ts, TSRTT_DOWNLOAD, at_ns, down));
	assert_true(tsrtt_delay(&ts, TSRTT_TOTAL, at_ns, total));
}

static void
queue_in(uint64_t up_extra_ns, uint64_t down_extra_ns, int64_t *up,
    int64_t *down, int64_t *total)
{
	queue_at(up_extra_ns, down_extra_ns, 6 * SEC + 100 * MS, up, down,
	    total);
}

/* A second into the queue, all of it shows, in its own direction. */
static void
test_download_queue(void **state)
{
	int64_t	up, down, total;

	(void)state;
	queue_in(0, 30 * MS, &up, &down, &total);
	assert_true(down >= (int64_t)(29 * MS) && down <= (int64_t)(30 * MS));
	assert_true(total >= (int64_t)(29 * MS) &&
	    total <= (int64_t)(30 * MS));
	assert_true(up <= (int64_t)(1 * MS));
}

static void
test_upload_queue(void **state)
{
	int64_t	up, down, total;

	(void)state;
	queue_in(30 * MS, 0, &up, &down, &total);
	assert_true(up >= (int64_t)(29 * MS) && up <= (int64_t)(30 * MS));
	assert_true(total >= (int64_t)(29 * MS) &&
	    total <= (int64_t)(30 * MS));
	assert_true(down <= (int64_t)(1 * MS));
}

/*
 * A path that stays 30 ms longer is the new baseline once a whole
 * TSRTT_BASE_WINDOW_NS has passed, and not before half of it.
 */
static void
test_longer_path(void **state)
{
	int64_t	up, down, total;

	(void)state;
	queue_at(0, 30 * MS, 5 * SEC + TSRTT_BASE_WINDOW_NS / 2 - 100 * MS,
	    &up, &down, &total);
	assert_true(down >= (int64_t)(29 * MS));
	setup(NULL);
	queue_at(0, 30 * MS, 5 * SEC + TSRTT_BASE_WINDOW_NS + 200 * MS,
	    &up, &down, &total);
	assert_true(down <= (int64_t)(1 * MS));
	assert_true(total <= (int64_t)(1 * MS));
}

/* Both hosts' TSvals wrap around 2^32 during the flow. */
static void
test_wrap(void **state)
{
	struct path	p;
	uint64_t	lan, wan;
	int64_t		d;
	int		dir;

	(void)state;
	path_default(&p);
	p.ts_lan_off = UINT32_MAX - 2500;	/* wraps at 3.5 s */
	p.ts_wan_off = UINT32_MAX - 1800;	/* while learning its rate */
	upload(&p, SEC, 6 * SEC, 2);
	play();
	tsrtt_host(&ts, lan_host, 4, 7 * SEC, &lan, &wan);
	assert_int_equal(wan, 20 * MS);
	assert_int_equal(lan, 2 * MS);
	for (dir = 0; dir < TSRTT_DIRS; dir++) {
		assert_true(tsrtt_delay(&ts, dir, 6 * SEC + 100 * MS, &d));
		assert_int_equal(d, 0);
	}
	assert_int_equal(ts.c.ticks_unknown, 0);
}

/* A table full of flows evicts the oldest, counted. */
static void
test_eviction(void **state)
{
	struct tsrtt_seg	s;
	unsigned int		i, used = 0;

	(void)state;
	for (i = 0; i < 8 * TSRTT_FLOWS_MAX; i++) {
		seg_keys(&s, (uint8_t)(i & 0xff), (uint16_t)(1024 + i));
		s.flags = TH_ACK;
		s.tsval = i;
		tsrtt_segment(&ts, TSRTT_WAN_DEPART, &s, SEC + i * 1000);
	}
	for (i = 0; i < TSRTT_FLOWS_MAX; i++)
		used += ts.flows[i].family != 0;
	assert_true(ts.c.evictions >= 6 * TSRTT_FLOWS_MAX);
	assert_int_equal(used, TSRTT_FLOWS_MAX);
}

/* ---- frames through cake_parse() and tsrtt_parse() ---------------------- */

#define FRAME_MAX	128

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* IPv4 10.0.0.2:40000 -> 192.0.2.1:443, TCP with opts; its length. */
static uint32_t
frame(uint8_t *f, const uint8_t *opts, uint32_t optlen, uint32_t payload)
{
	uint32_t	hdr = 20 + ((optlen + 3) & ~3u);
	uint32_t	len = 20 + hdr + payload;

	memset(f, 0, FRAME_MAX);
	f[0] = 0x45;
	f[2] = (uint8_t)(len >> 8);
	f[3] = (uint8_t)len;
	f[8] = 64;
	f[9] = 6;
	f[12] = 10;
	f[15] = 2;
	f[16] = 192;
	f[19] = 1;
	f[20] = 40000 >> 8;
	f[21] = 40000 & 0xff;
	f[23] = 443 & 0xff;
	f[22] = 443 >> 8;
	put32(f + 24, 1000);		/* seq */
	put32(f + 28, 5000);		/* ack */
	f[32] = (uint8_t)(hdr / 4 << 4);
	f[33] = TH_ACK;
	memcpy(f + 40, opts, optlen);
	return len;
}

static bool
parse(const uint8_t *f, uint32_t len, enum tsrtt_event ev,
    struct tsrtt_seg *s)
{
	struct cake_pkt_meta	m;

	cake_parse(f, len, CAKE_LINK_IP, &m);
	return tsrtt_parse(&ts, ev, f, len, &m, s);
}

static void
test_parse(void **state)
{
	const uint8_t	ok[12] = { 1, 1, 8, 10, 0, 0, 0, 7, 0xff, 0, 0, 9 };
	uint8_t		f[FRAME_MAX];
	struct tsrtt_seg s;
	uint32_t	len;

	(void)state;
	len = frame(f, ok, sizeof(ok), 10);
	assert_true(parse(f, len, TSRTT_WAN_DEPART, &s));
	assert_int_equal(s.tsval, 7);
	assert_int_equal(s.tsecr, 0xff000009u);
	assert_int_equal(s.seq, 1000);
	assert_int_equal(s.ack, 5000);
	assert_int_equal(s.payload, 10);
	assert_int_equal(s.lan_port, 40000);
	assert_int_equal(s.wan_port, 443);
	assert_int_equal(s.lan[12], 10);
	/* Coming from the WAN, the same addresses swap roles. */
	assert_true(parse(f, len, TSRTT_WAN_ARRIVE, &s));
	assert_int_equal(s.lan_port, 443);
	assert_int_equal(s.lan[12], 192);
	assert_int_equal(ts.c.bad_option, 0);
	/* Cut inside the options: not parsed as TCP at all. */
	assert_false(parse(f, 45, TSRTT_WAN_DEPART, &s));
}

/* One upload segment of a LAN host, or the WAN host's ACK of it. */
static void
up_seg(enum tsrtt_event ev, uint32_t seq, uint32_t payload, uint32_t ack,
    uint32_t tsval, uint64_t at_ns)
{
	struct tsrtt_seg	s;

	seg_keys(&s, 2, 40100);
	s.flags = TH_ACK;
	s.seq = seq;
	s.payload = payload;
	s.ack = ack;
	s.tsval = tsval;
	s.tsecr = tsval;
	tsrtt_segment(&ts, ev, &s, at_ns);
}

/*
 * The upload delivery counters: new payload leaving, and what the WAN
 * host acknowledges of it; repeats, retransmissions, ACKs beyond what
 * left and download data count nothing.
 */
static void
test_upload_delivery(void **state)
{
	uint32_t	i, seq = 0xfffff000u;	/* wraps on the way */

	(void)state;
	for (i = 0; i < 10; i++)
		up_seg(TSRTT_WAN_DEPART, seq + i * 1000, 1000, 0, i + 1,
		    (i + 1) * MS);
	/* the first segment only sets the start */
	assert_int_equal(ts.c.up_sent, 9000);
	/* a retransmission of segment 3 */
	up_seg(TSRTT_WAN_DEPART, seq + 3000, 1000, 0, 11, 20 * MS);
	assert_int_equal(ts.c.up_sent, 9000);
	/* ACKs: the first sets the start, then 4000 and a repeat */
	up_seg(TSRTT_WAN_ARRIVE, 1, 0, seq + 2000, 100, 50 * MS);
	assert_int_equal(ts.c.up_acked, 0);
	up_seg(TSRTT_WAN_ARRIVE, 1, 0, seq + 6000, 101, 60 * MS);
	up_seg(TSRTT_WAN_ARRIVE, 1, 0, seq + 6000, 102, 61 * MS);
	up_seg(TSRTT_WAN_ARRIVE, 1, 0, seq + 5000, 103, 62 * MS);
	assert_int_equal(ts.c.up_acked, 4000);
	/* beyond what left: counted up to the end only */
	up_seg(TSRTT_WAN_ARRIVE, 1, 0, seq + 50000, 104, 70 * MS);
	assert_int_equal(ts.c.up_acked, 8000);
	/* download data towards the LAN is not upload */
	up_seg(TSRTT_LAN_DEPART, 77, 1000, 0, 105, 80 * MS);
	up_seg(TSRTT_LAN_DEPART, 1077, 1000, 0, 106, 81 * MS);
	assert_int_equal(ts.c.up_sent, 9000);
}

/* Options that are wrong are counted and ignored, never read past. */
static void
test_garbage_options(void **state)
{
	static const struct {
		uint8_t		opt[12];
		uint32_t	len;
		int		bad;	/* 1: bad_option, 0: no_timestamp */
	} cases[] = {
		{ { 2, 0 }, 2, 1 },			/* length 0 */
		{ { 2, 1, 1, 1 }, 4, 1 },		/* length 1 */
		{ { 1, 1, 2, 40 }, 4, 1 },		/* past the header */
		{ { 8, 9, 0, 0, 0, 1, 0, 0, 0, 2 }, 10, 1 }, /* TS of 9 */
		{ { 1, 1, 1, 8 }, 4, 1 },		/* kind, no length */
		{ { 0, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 11, 0 }, /* EOL */
		{ { 1, 1, 1, 1 }, 4, 0 },		/* only NOPs */
		{ { 2, 4, 5, 0xb4 }, 4, 0 },		/* MSS only */
	};
	uint8_t		f[FRAME_MAX];
	struct tsrtt_seg s;
	size_t		i;
	uint64_t	bad = 0, none = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_false(parse(f, frame(f, cases[i].opt, cases[i].len, 0),
		    TSRTT_WAN_ARRIVE, &s));
		bad += cases[i].bad;
		none += !cases[i].bad;
		assert_int_equal(ts.c.bad_option, bad);
		assert_int_equal(ts.c.no_timestamp, none);
	}
	/* A data offset below 5 words, or past the packet: not TCP. */
	frame(f, cases[0].opt, 0, 0);
	f[32] = 4 << 4;
	assert_false(parse(f, 40, TSRTT_WAN_ARRIVE, &s));
	f[32] = 15 << 4;
	assert_false(parse(f, 40, TSRTT_WAN_ARRIVE, &s));
	assert_int_equal(ts.c.segments, 0);
}

/* From the WAN host: addresses and ports swapped. */
static void
swap_ends(uint8_t *f)
{
	uint8_t	t[4];

	memcpy(t, f + 12, 4);
	memcpy(f + 12, f + 16, 4);
	memcpy(f + 16, t, 4);
	memcpy(t, f + 20, 2);
	memcpy(f + 20, f + 22, 2);
	memcpy(f + 22, t, 2);
}

static uint64_t	prng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	prng ^= prng << 13;
	prng ^= prng >> 7;
	prng ^= prng << 17;
	return (uint32_t)(prng >> 16);
}

/*
 * 10^5 frames: a valid TCP frame with timestamps whose bytes after the
 * IP addresses are randomised (more or fewer), its length cut at random,
 * TSvals and echoes close to a rising count (so that some match), at random
 * events and times. Nothing may crash (ASan and UBSan in CI) and the
 * counters must add up.
 */
static void
test_random_frames(void **state)
{
	const uint8_t	ok[12] = { 1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9 };
	uint8_t		f[FRAME_MAX];
	struct cake_pkt_meta m;
	uint64_t	now = SEC, parsed = 0;
	enum tsrtt_event ev;
	uint32_t	len, i, j, n;
	int64_t		d;

	(void)state;
	for (i = 0; i < 100000; i++) {
		len = frame(f, ok, sizeof(ok), 20);
		put32(f + 44, i / 8 + rnd() % 4);
		put32(f + 48, i / 8 - rnd() % 4);
		put32(f + 24, rnd());
		f[15] = (uint8_t)(rnd() % 4);
		n = rnd() % 8 == 0 ? 40 : rnd() % 4;
		for (j = 0; j < n; j++)
			f[20 + rnd() % (FRAME_MAX - 20)] = (uint8_t)rnd();
		if (rnd() % 4 == 0)
			len = rnd() % FRAME_MAX;
		now += rnd() % (50 * MS);
		ev = (enum tsrtt_event)(rnd() % 4);
		if (ev == TSRTT_WAN_ARRIVE || ev == TSRTT_LAN_DEPART)
			swap_ends(f);
		cake_parse(f, len, CAKE_LINK_IP, &m);
		parsed += m.tuple.proto == 6 && m.l4_off != 0;
		tsrtt_frame(&ts, ev, f, len, &m, now);
		if (i % 1000 == 0)
			(void)tsrtt_delay(&ts, (int)(rnd() % 4), now, &d);
	}
	assert_true(ts.c.segments > 10000);
	assert_true(ts.c.bad_option > 100);
	assert_true(ts.c.samples > 10);
	assert_true(ts.c.segments + ts.c.no_timestamp + ts.c.bad_option <=
	    parsed);
	for (i = 0; i < TSRTT_FLOWS_MAX; i++)
		assert_true(ts.flows[i].family == 0 ||
		    ts.flows[i].family == 4 || ts.flows[i].family == 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_clean_exact, setup),
		cmocka_unit_test_setup(test_delayed_ack, setup),
		cmocka_unit_test_setup(test_retransmission, setup),
		cmocka_unit_test_setup(test_flow_stops, setup),
		cmocka_unit_test_setup(test_download_queue, setup),
		cmocka_unit_test_setup(test_upload_queue, setup),
		cmocka_unit_test_setup(test_longer_path, setup),
		cmocka_unit_test_setup(test_wrap, setup),
		cmocka_unit_test_setup(test_eviction, setup),
		cmocka_unit_test_setup(test_upload_delivery, setup),
		cmocka_unit_test_setup(test_parse, setup),
		cmocka_unit_test_setup(test_garbage_options, setup),
		cmocka_unit_test_setup(test_random_frames, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
