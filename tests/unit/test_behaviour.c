/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_behaviour.c: CAKE's promises measured on the engine with a fake
 * clock: host fairness in every dual
 * and triple mode, DiffServ shares and priority, the ACK filter and GSO
 * handling inside an instance, and autorate-ingress convergence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "caked/cake.h"
#include "harness.h"

#define MS	1000000ULL
#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define HOST_A	IP(10, 200, 0, 1)
#define HOST_B	IP(10, 200, 0, 2)
#define SRV_X	IP(10, 201, 0, 1)
#define SRV_Y	IP(10, 201, 0, 2)

static void
sim_init(struct h_sim *s, const char *kw)
{
	memset(s, 0, sizeof(*s));
	s->c = h_create(kw, CAKE_LINK_IP);
	assert_non_null(s->c);
}

static void
sim_done(struct h_sim *s)
{
	assert_int_equal(cake_check_invariants(s->c), 0);
	cake_flush(s->c);
	h_free_dropped(s->c);
	cake_destroy(s->c);
}

/* Host A: 1 flow from a to x; host B: 4 flows from b to y. Returns A's share. */
static double
hosts_split(const char *kw, uint32_t a, uint32_t x, uint32_t b, uint32_t y)
{
	struct h_sim	s;
	double		share;
	int		i;

	sim_init(&s, kw);
	h_add_flow(&s, 6, a, x, 1000, 1500);
	for (i = 0; i < 4; i++)
		h_add_flow(&s, 6, b, y, (uint16_t)(2000 + i), 1500);
	h_run(&s, 10000 * MS, MS);
	share = h_share(&s, 0, 1);
	print_message("%-50s A gets %.1f%%\n", kw, 100 * share);
	sim_done(&s);
	return share;
}

static void
dual_srchost_splits_hosts_evenly(void **state)
{
	(void)state;
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort "
	    "dual-srchost", HOST_A, SRV_X, HOST_B, SRV_X), 0.50, 0.02);
}

static void
flows_mode_splits_by_flow(void **state)
{
	(void)state;
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort flows",
	    HOST_A, SRV_X, HOST_B, SRV_X), 0.20, 0.02);
}

static void
dual_dsthost_splits_destinations_evenly(void **state)
{
	(void)state;
	/* Download: one server sends to A (1 flow) and to B (4 flows). */
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort "
	    "dual-dsthost", SRV_X, HOST_A, SRV_X, HOST_B), 0.50, 0.02);
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort flows",
	    SRV_X, HOST_A, SRV_X, HOST_B), 0.20, 0.02);
}

static void
triple_isolate_splits_host_pairs_both_ways(void **state)
{
	(void)state;
	/* A<->X with 1 flow, B<->Y with 4, in each direction. */
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort "
	    "triple-isolate", HOST_A, SRV_X, HOST_B, SRV_Y), 0.50, 0.02);
	assert_float_equal(hosts_split("bandwidth 10mbit besteffort "
	    "triple-isolate", SRV_X, HOST_A, SRV_Y, HOST_B), 0.50, 0.02);
}

/* Saturating flows in two DSCPs; returns the first one's share and the total rate. */
static double
dscp_split(const char *kw, uint8_t tos_a, uint8_t tos_b, bool with_b,
    double *rate_bps)
{
	struct h_sim	 s;
	struct h_flow	*f;
	double		 share;

	sim_init(&s, kw);
	f = h_add_flow(&s, 17, HOST_A, SRV_X, 1000, 1500);
	f->tos = tos_a;
	if (with_b) {
		f = h_add_flow(&s, 17, HOST_B, SRV_X, 2000, 1500);
		f->tos = tos_b;
	}
	h_run(&s, 10000 * MS, MS);
	share = h_share(&s, 0, 1);
	*rate_bps = 8.0 * (double)(s.flows[0].sent_bytes +
	    (with_b ? s.flows[1].sent_bytes : 0)) / 10.0;
	print_message("%-30s tos %#x share %.1f%% total %.2f Mbit/s\n", kw,
	    tos_a, 100 * share, *rate_bps / 1e6);
	sim_done(&s);
	return share;
}

#define TOS_EF		(46 << 2)
#define TOS_AF41	(34 << 2)
#define TOS_CS1		(8 << 2)

static void
voice_alone_gets_the_whole_link(void **state)
{
	double	rate;

	(void)state;
	(void)dscp_split("bandwidth 10mbit diffserv3", TOS_EF, 0, false, &rate);
	assert_float_equal(rate, 10e6, 0.2e6);
}

static void
voice_gets_its_quarter_with_priority(void **state)
{
	double	rate, share;

	(void)state;
	share = dscp_split("bandwidth 10mbit diffserv3", TOS_EF, 0, true,
	    &rate);
	assert_float_equal(share, 0.25, 0.03);
	assert_float_equal(rate, 10e6, 0.2e6);
}

static void
video_gets_its_half(void **state)
{
	double	rate, share;

	(void)state;
	share = dscp_split("bandwidth 10mbit diffserv4", TOS_AF41, 0, true,
	    &rate);
	assert_float_equal(share, 0.50, 0.03);
}

static void
bulk_gets_a_sixteenth(void **state)
{
	double	rate, share;

	(void)state;
	share = dscp_split("bandwidth 10mbit diffserv3", TOS_CS1, 0, true,
	    &rate);
	assert_float_equal(share, 1.0 / 16, 0.02);
	/* Alone, Bulk still gets everything: the shaper is work conserving. */
	(void)dscp_split("bandwidth 10mbit diffserv3", TOS_CS1, 0, false,
	    &rate);
	assert_float_equal(rate, 10e6, 0.2e6);
}

/* A sparse Voice flow waits under 1 ms while Best Effort saturates (at
 * 20 Mbit, one MTU takes 0.6 ms: the wait for the packet on the wire). */
static void
sparse_voice_sees_no_queue(void **state)
{
	struct h_sim	 s;
	struct h_flow	*v;

	(void)state;
	sim_init(&s, "bandwidth 20mbit diffserv3");
	h_add_flow(&s, 17, HOST_A, SRV_X, 1000, 1500)->depth = 50;
	v = h_add_flow(&s, 17, HOST_B, SRV_X, 2000, 200);
	v->tos = TOS_EF;
	v->every_ns = 20 * MS;
	h_run(&s, 5000 * MS, 100000);
	assert_true(v->sent_pkts > 200);
	print_message("voice max delay %.3f ms\n", v->max_delay_ns / 1e6);
	assert_true(v->max_delay_ns < MS);
	sim_done(&s);
}

/* Unlimited: tins share by DRR weight (BE 1024 : Voice 256). */
static void
unlimited_tins_share_by_weight(void **state)
{
	struct h_sim	 s;
	struct h_flow	*v;

	(void)state;
	sim_init(&s, "diffserv3");
	h_add_flow(&s, 17, HOST_A, SRV_X, 1000, 1000)->depth = 20;
	v = h_add_flow(&s, 17, HOST_B, SRV_X, 2000, 1000);
	v->tos = TOS_EF;
	v->depth = 20;
	/* An unlimited instance releases everything: let the link take 10 a step. */
	s.max_per_step = 10;
	h_run(&s, 4000 * MS, MS);
	assert_float_equal(h_share(&s, 1, 2), 256.0 / 1280, 0.02);
	sim_done(&s);
}

/* fwmark picks the tin (display order, 1-based) before DSCP. */
static void
fwmark_selects_tin(void **state)
{
	struct cake	  *c = h_create("bandwidth 10mbit diffserv4 fwmark 0xf0",
			      CAKE_LINK_IP);
	struct cake_stats  st;
	struct h_flow	   f;
	struct cake_pkt	  *p;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.len = 100;
	f.tos = TOS_EF;			/* would be Voice */
	f.mark = 0x10;			/* 1 -> Bulk */
	p = h_ipv4(&f, false);
	(void)cake_enqueue(c, p, 0);
	f.mark = 0x30;			/* 3 -> Video */
	(void)cake_enqueue(c, h_ipv4(&f, false), 0);
	f.mark = 0x50;			/* 5: out of range -> DSCP -> Voice */
	(void)cake_enqueue(c, h_ipv4(&f, false), 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.tins[0].pkts, 1);
	assert_int_equal(st.tins[2].pkts, 1);
	assert_int_equal(st.tins[3].pkts, 1);
	cake_flush(c);
	h_free_dropped(c);
	cake_destroy(c);
}

/* wash classifies by DSCP first, then clears it and keeps ECN. */
static void
wash_clears_dscp_after_classifying(void **state)
{
	struct cake	  *c = h_create("bandwidth 10mbit diffserv3 wash",
			      CAKE_LINK_IP);
	struct cake_stats  st;
	struct h_flow	   f;
	struct cake_pkt	  *p;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.len = 100;
	f.tos = TOS_EF | 0x02;
	(void)cake_enqueue(c, h_ipv4(&f, false), 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.tins[2].pkts, 1);		/* Voice */
	p = cake_dequeue(c, 0);
	assert_non_null(p);
	assert_int_equal(p->data[1], 0x02);
	assert_true(h_ipv4_csum_ok(p->data));
	h_free(p);
	cake_destroy(c);
}

/* ARP is CS7 (Voice in diffserv3); other non-IP is best effort. */
static void
arp_counts_as_cs7(void **state)
{
	struct cake	  *c = h_create("bandwidth 10mbit", CAKE_LINK_ETHERNET);
	struct cake_pkt	  *p = h_alloc(42);
	struct cake_stats  st;

	(void)state;
	p->data[12] = 0x08;
	p->data[13] = 0x06;
	(void)cake_enqueue(c, p, 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.tins[2].pkts, 1);
	cake_flush(c);
	h_free_dropped(c);
	cake_destroy(c);
}

/* A stream of pure ACKs behind a slow link is thinned inside the instance. */
static void
ack_filter_thins_queued_acks(void **state)
{
	struct cake	  *c = h_create("bandwidth 100kbit besteffort "
			      "ack-filter", CAKE_LINK_IP);
	struct cake_stats  st;
	uint32_t	   ack;
	unsigned int	   dropped = 0;
	struct cake_pkt	  *p, *next;

	(void)state;
	for (ack = 1000; ack < 1000 + 50 * 1448; ack += 1448) {
		p = h_tcp_ack(HOST_A, SRV_X, 40000, 443, ack, 0x10);
		(void)cake_enqueue(c, p, 0);
		for (p = cake_take_dropped(c); p != NULL; p = next) {
			next = p->next;
			assert_int_equal(p->drop_reason, CAKE_DROP_ACK_FILTER);
			dropped++;
			h_free(p);
		}
	}
	/* A FIN after them is never dropped (it may make an older ACK redundant). */
	(void)cake_enqueue(c, h_tcp_ack(HOST_A, SRV_X, 40000, 443, ack,
	    0x11), 0);
	for (p = cake_take_dropped(c); p != NULL; p = next) {
		next = p->next;
		assert_int_equal(p->data[33], 0x10);
		dropped++;
		h_free(p);
	}
	cake_get_stats(c, &st);
	assert_true(dropped >= 45);
	assert_int_equal(st.tins[0].ack_drops, dropped);
	assert_int_equal(st.tins[0].drops, 0);
	assert_int_equal(st.dropped_pkts, dropped);
	assert_int_equal(cake_check_invariants(c), 0);
	/* The FIN is still queued at the tail. */
	assert_true(st.backlog_pkts >= 2);
	cake_flush(c);
	h_free_dropped(c);
	cake_destroy(c);
}

/* Builds a TCPv4 GSO super-packet of payload bytes with the given MSS. */
static struct cake_pkt *
gso_packet(uint32_t payload, uint16_t mss)
{
	struct h_flow	 f;
	struct cake_pkt	*p;

	memset(&f, 0, sizeof(f));
	f.proto = 6;
	f.src = HOST_A;
	f.dst = SRV_X;
	f.sport = 40000;
	f.dport = 80;
	f.len = 40 + payload;
	p = h_ipv4(&f, false);
	p->gso_type = CAKE_GSO_TCPV4;
	p->gso_size = mss;
	return p;
}

static void
gso_split_or_charged_per_segment(void **state)
{
	struct cake	  *c = h_create("bandwidth 10mbit besteffort",
			      CAKE_LINK_IP);
	struct cake_stats  st;

	(void)state;
	assert_int_equal(cake_enqueue(c, gso_packet(2000, 500), 0),
	    CAKE_ENQ_QUEUED);
	assert_int_equal(h_free_dropped(c), 0);	/* the super-packet: not a loss */
	cake_get_stats(c, &st);
	assert_int_equal(st.gso_splits, 1);
	assert_int_equal(st.backlog_pkts, 4);
	assert_int_equal(st.tins[0].pkts, 4);
	assert_int_equal(st.max_adjlen, 540);
	assert_int_equal(cake_check_invariants(c), 0);
	cake_flush(c);
	h_free_dropped(c);
	cake_destroy(c);

	c = h_create("bandwidth 10mbit besteffort no-split-gso", CAKE_LINK_IP);
	assert_int_equal(cake_enqueue(c, gso_packet(2000, 500), 0),
	    CAKE_ENQ_QUEUED);
	cake_get_stats(c, &st);
	assert_int_equal(st.gso_splits, 0);
	assert_int_equal(st.backlog_pkts, 1);
	assert_int_equal(st.max_adjlen, 4 * 540);
	h_free(cake_dequeue(c, 0));
	cake_get_stats(c, &st);
	assert_int_equal(st.sent_pkts, 4);	/* counted as wire packets */
	cake_destroy(c);
}

/*
 * split-gso is the default at every rate, as in sch_cake, but unlimited
 * a super-packet whose segments would leave back to back anyway stays
 * whole (enqueue.c, leaves_at_once()): into an empty instance, one
 * holding only what came at the same instant, or one holding only its
 * own flow's packets. Once another flow has waited since an earlier
 * instant, or under a shaped rate, it is cut as the kernel cuts it.
 */
static void
gso_kept_whole_only_when_it_leaves_at_once(void **state)
{
	struct cake	  *c = h_create("besteffort", CAKE_LINK_IP);
	struct cake_stats  st;
	struct h_flow	   f;

	(void)state;
	(void)cake_enqueue(c, gso_packet(2000, 500), 0);
	(void)cake_enqueue(c, gso_packet(2000, 500), 0);	/* same batch */
	(void)cake_enqueue(c, gso_packet(2000, 500), 1000);	/* own flow */
	cake_get_stats(c, &st);
	assert_int_equal(st.gso_whole, 3);
	assert_int_equal(st.gso_splits, 0);
	assert_int_equal(st.backlog_pkts, 3);
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = HOST_B;
	f.dst = SRV_X;
	f.len = 100;
	(void)cake_enqueue(c, h_ipv4(&f, false), 1000);	/* another flow */
	(void)cake_enqueue(c, gso_packet(2000, 500), 2000);
	cake_get_stats(c, &st);
	assert_int_equal(st.gso_whole, 3);
	assert_int_equal(st.gso_splits, 1);
	assert_int_equal(st.backlog_pkts, 8);
	assert_int_equal(h_destroy(c), 0);

	c = h_create("bandwidth 1gbit besteffort", CAKE_LINK_IP);
	(void)cake_enqueue(c, gso_packet(2000, 500), 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.gso_whole, 0);
	assert_int_equal(st.gso_splits, 1);
	assert_int_equal(h_destroy(c), 0);
}

/*
 * max_len is sch_cake's max_skblen: the largest qdisc_pkt_len() seen at
 * enqueue, before any split. qdisc_pkt_len_init() (net/core/dev.c) gives
 * a GSO packet its length plus the headers of its other segments:
 * 2000 bytes of payload in 500-byte segments behind 20 + 20 bytes of
 * IPv4 and TCP is 2040 + 3 x 40 = 2160, split or not; a plain 1000-byte
 * packet is 1000.
 */
static void
max_len_is_the_packet_as_enqueued(void **state)
{
	static const char *const modes[] = {
		"bandwidth 10mbit besteffort",
		"bandwidth 10mbit besteffort no-split-gso",
		"besteffort",
	};
	struct cake	  *c;
	struct cake_stats  st;
	struct h_flow	   f;
	size_t		   i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		c = h_create(modes[i], CAKE_LINK_IP);
		memset(&f, 0, sizeof(f));
		f.proto = 17;
		f.src = HOST_A;
		f.dst = SRV_X;
		f.len = 1000;
		(void)cake_enqueue(c, h_ipv4(&f, false), 0);
		cake_get_stats(c, &st);
		assert_int_equal(st.tins[0].max_pkt_len, 1000);
		(void)cake_enqueue(c, gso_packet(2000, 500), 0);
		cake_get_stats(c, &st);
		if (st.tins[0].max_pkt_len != 2160)
			fail_msg("%s: max_len %u", modes[i],
			    (unsigned int)st.tins[0].max_pkt_len);
		assert_int_equal(h_destroy(c), 0);
	}
}

/*
 * overlimits as sch_cake counts them: cake_dequeue() adds one each time
 * the global shaper refuses (both clocks in the future), and
 * cake_enqueue() adds one when a packet comes into an empty qdisc whose
 * clocks are both still in the future (it arms the watchdog). At 1 Mbit
 * a 1000-byte packet sent at 0 holds the clocks until 8 ms (failsafe
 * 12 ms): a packet at 1 ms counts 1 at enqueue, refused dequeues at 1 and
 * 2 ms count 2 more, and the one at 20 ms goes: 3 in all.
 */
static void
overlimits_count_refusals_at_enqueue_and_dequeue(void **state)
{
	struct cake	  *c = h_create("bandwidth 1mbit besteffort",
			      CAKE_LINK_IP);
	struct cake_stats  st;
	struct h_flow	   f;
	const uint64_t	   ms = 1000000;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = HOST_A;
	f.dst = SRV_X;
	f.len = 1000;
	(void)cake_enqueue(c, h_ipv4(&f, false), 0);
	h_free(cake_dequeue(c, 0));
	cake_get_stats(c, &st);
	assert_int_equal(st.overlimits, 0);
	(void)cake_enqueue(c, h_ipv4(&f, false), 1 * ms);
	cake_get_stats(c, &st);
	assert_int_equal(st.overlimits, 1);
	assert_null(cake_dequeue(c, 1 * ms));
	assert_null(cake_dequeue(c, 2 * ms));
	cake_get_stats(c, &st);
	assert_int_equal(st.overlimits, 3);
	h_free(cake_dequeue(c, 20 * ms));
	cake_get_stats(c, &st);
	assert_int_equal(st.overlimits, 3);
	assert_int_equal(st.sent_pkts, 2);
	assert_int_equal(h_destroy(c), 0);
}

/*
 * Floods 4 flows of frames of len bytes (Ethernet) into a 100000-byte
 * memlimit, each charged cake_truesize(len) as the daemon charges it;
 * returns the largest backlog in bytes, and checks that memlimit, not
 * anything else, is what dropped.
 */
static uint64_t
memlimit_backlog(uint32_t len)
{
	struct cake	  *c = h_create("bandwidth 1mbit besteffort "
			      "memlimit 100000", CAKE_LINK_ETHERNET);
	struct cake_stats  st;
	struct cake_pkt	  *p;
	struct h_flow	   f;
	uint64_t	   most = 0;
	unsigned int	   i, n = 3 * 100000 / len + 64;

	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = HOST_A;
	f.dst = SRV_X;
	f.len = len - 14;
	for (i = 0; i < n; i++) {
		f.sport = (uint16_t)(1000 + i % 4);
		p = h_ipv4(&f, true);
		p->truesize = cake_truesize(p->len);
		(void)cake_enqueue(c, p, 0);
		cake_get_stats(c, &st);
		if (st.backlog_bytes > most)
			most = st.backlog_bytes;
	}
	assert_true(st.dropped_pkts > 0);
	assert_true(st.memory_used <= 100000 + cake_truesize(len));
	assert_int_equal(h_destroy(c), 0);
	return most;
}

/*
 * sch_cake drops when the packets' truesize passes memlimit
 * (cake_enqueue(): q->buffer_used > q->buffer_limit), truesize being
 * the memory a packet really holds. caked's frames hold their bytes, in
 * cache lines (cake_truesize()), so 64-byte floods reach the same byte
 * backlog as 1514-byte ones, within 10 %; charged a whole pool buffer
 * each, as before, 64-byte frames stopped at about a twentieth of it.
 */
static void
memlimit_binds_at_the_same_bytes_for_small_and_full_frames(void **state)
{
	uint64_t	small, full;

	(void)state;
	small = memlimit_backlog(64);
	full = memlimit_backlog(1514);
	print_message("memlimit 100000: backlog %llu bytes with 64-byte "
	    "frames, %llu with 1514-byte frames\n", (unsigned long long)small,
	    (unsigned long long)full);
	assert_true(small * 10 >= full * 9 && small * 10 <= full * 11);
	assert_true(full > 90000 && full <= 100000);
	assert_int_equal(cake_truesize(64), 64);
	assert_int_equal(cake_truesize(65), 128);
	assert_int_equal(cake_truesize(1514), 1536);
}

/*
 * The caller's buffers bound the queue too (cake_env.max_pkts): past
 * it the engine drops from the fattest flow, as for memlimit, so a
 * flood of small frames never empties the daemon's pool.
 */
static void
max_pkts_drops_from_the_fattest_flow(void **state)
{
	struct cake_config cfg;
	struct cake_env	   env;
	struct cake_stats  st;
	struct cake	  *c;
	struct h_flow	   f;
	unsigned int	   i;
	int		   e;

	(void)state;
	cake_config_default(&cfg);
	cfg.rate_Bps = 125000;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.max_pkts = 100;
	assert_non_null(c = cake_create(&cfg, &env, &e));
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = HOST_A;
	f.dst = SRV_X;
	f.len = 64;
	for (i = 0; i < 300; i++) {
		f.sport = (uint16_t)(i < 250 ? 1 : 2 + i);	/* one fat flow */
		(void)cake_enqueue(c, h_ipv4(&f, false), 0);
	}
	cake_get_stats(c, &st);
	assert_int_equal(st.backlog_pkts, 100);
	assert_int_equal(st.dropped_pkts, 200);
	/* the 50 one-packet flows all stayed: only the fat one lost */
	assert_int_equal(st.tins[1].sparse_flows + st.tins[1].bulk_flows, 51);
	assert_int_equal(h_destroy(c), 0);
}

/* autorate-ingress settles within 10% of a bursty 5 Mbit arrival rate. */
static void
autorate_ingress_converges(void **state)
{
	struct cake		*c = h_create("bandwidth 1mbit autorate-ingress "
				    "besteffort", CAKE_LINK_IP);
	struct cake_config	 cfg;
	struct cake_stats	 st;
	struct h_flow		 f;
	struct cake_pkt		*p;
	uint64_t		 now;
	int			 i;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.len = 1000;
	/* Bursts of 10 x 1000 bytes every 16 ms: 5 Mbit/s on average. */
	for (now = 0; now < 10000 * MS; now += 16 * MS) {
		for (i = 0; i < 10; i++)
			(void)cake_enqueue(c, h_ipv4(&f, false), now + i * 1000);
		while ((p = cake_dequeue(c, now + 10000)) != NULL)
			h_free(p);
		h_free_dropped(c);
	}
	cake_get_stats(c, &st);
	cake_get_config(c, &cfg);
	print_message("capacity estimate %.2f Mbit/s, rate %.2f Mbit/s\n",
	    st.capacity_estimate_Bps * 8 / 1e6, cfg.rate_Bps * 8 / 1e6);
	assert_float_equal((double)st.capacity_estimate_Bps, 625000, 62500);
	assert_float_equal((double)cfg.rate_Bps,
	    st.capacity_estimate_Bps * 15.0 / 16, 1000);
	cake_flush(c);
	h_free_dropped(c);
	cake_destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dual_srchost_splits_hosts_evenly),
		cmocka_unit_test(flows_mode_splits_by_flow),
		cmocka_unit_test(dual_dsthost_splits_destinations_evenly),
		cmocka_unit_test(triple_isolate_splits_host_pairs_both_ways),
		cmocka_unit_test(voice_alone_gets_the_whole_link),
		cmocka_unit_test(voice_gets_its_quarter_with_priority),
		cmocka_unit_test(video_gets_its_half),
		cmocka_unit_test(bulk_gets_a_sixteenth),
		cmocka_unit_test(sparse_voice_sees_no_queue),
		cmocka_unit_test(unlimited_tins_share_by_weight),
		cmocka_unit_test(fwmark_selects_tin),
		cmocka_unit_test(wash_clears_dscp_after_classifying),
		cmocka_unit_test(arp_counts_as_cs7),
		cmocka_unit_test(ack_filter_thins_queued_acks),
		cmocka_unit_test(gso_split_or_charged_per_segment),
		cmocka_unit_test(gso_kept_whole_only_when_it_leaves_at_once),
		cmocka_unit_test(max_len_is_the_packet_as_enqueued),
		cmocka_unit_test(overlimits_count_refusals_at_enqueue_and_dequeue),
		cmocka_unit_test(
		    memlimit_binds_at_the_same_bytes_for_small_and_full_frames),
		cmocka_unit_test(max_pkts_drops_from_the_fattest_flow),
		cmocka_unit_test(autorate_ingress_converges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
