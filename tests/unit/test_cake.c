/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_cake.c: the engine instance as a whole, driven through the public
 * API with a fake clock: shaper release times, DRR++ sparse-flow priority,
 * the memory limit, COBALT marks and drops, the set-associative table,
 * live changes, and the invariant check after every operation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "caked/cake.h"
#include "harness.h"

#define MS	1000000ULL
#define US	1000ULL
#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static struct h_flow
flow4(uint16_t sport, uint32_t len)
{
	struct h_flow	f;

	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = IP(10, 200, 0, 1);
	f.dst = IP(10, 200, 1, 1);
	f.sport = sport;
	f.dport = 53;
	f.len = len;
	return f;
}

static void
enq(struct cake *c, const struct h_flow *f, uint64_t now)
{
	struct cake_pkt	*p = h_ipv4(f, false);

	assert_non_null(p);
	assert_int_equal(cake_enqueue(c, p, now), CAKE_ENQ_QUEUED);
	assert_int_equal(cake_check_invariants(c), 0);
}

/* One 100-byte packet on each of n UDP flows, source ports 1000 on. */
static void
enq_flows(struct cake *c, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		struct h_flow f = flow4((uint16_t)(1000 + i), 100);

		enq(c, &f, 0);
	}
}

static uint16_t
sport_of(const struct cake_pkt *p)
{
	return (uint16_t)(p->data[20] << 8 | p->data[21]);
}

static void
destroy(struct cake *c)
{
	assert_int_equal(h_destroy(c), 0);
}

static void
create_rejects_bad_parameters(void **state)
{
	struct cake_config	cfg;
	struct cake_env		env = { CAKE_LINK_IP, 1500, 1, NULL, NULL, false,
				    0 };
	int			err;

	(void)state;
	cake_config_default(&cfg);
	cfg.overhead = 300;
	assert_null(cake_create(&cfg, &env, &err));
	assert_int_equal(err, CAKE_ERR_INVAL);
	cake_config_default(&cfg);
	cfg.mpu = 257;
	assert_null(cake_create(&cfg, &env, &err));
	cake_config_default(&cfg);
	env.mtu = 20;
	assert_null(cake_create(&cfg, &env, &err));
	assert_int_equal(err, CAKE_ERR_INVAL);
}

static void
empty_instance_sleeps(void **state)
{
	struct cake	*c = h_create("bandwidth 10mbit", CAKE_LINK_IP);

	(void)state;
	assert_non_null(c);
	assert_null(cake_dequeue(c, 0));
	assert_true(cake_next_ns(c, 0) == CAKE_TIME_NEVER);
	destroy(c);
}

/* 1000-byte packets at 1 Mbit leave exactly every 8 ms. */
static void
release_times_follow_the_rate(void **state)
{
	struct cake	*c = h_create("bandwidth 1mbit besteffort", CAKE_LINK_IP);
	struct h_flow	 f = flow4(1000, 1000);
	struct cake_pkt	*p;
	int		 i;

	(void)state;
	for (i = 0; i < 4; i++)
		enq(c, &f, 0);
	p = cake_dequeue(c, 0);
	assert_non_null(p);
	h_free(p);
	assert_true(cake_next_ns(c, 0) == 8 * MS);
	assert_null(cake_dequeue(c, 8 * MS - 1));
	p = cake_dequeue(c, 8 * MS);
	assert_non_null(p);
	h_free(p);
	assert_true(cake_next_ns(c, 8 * MS) == 16 * MS);
	destroy(c);
}

/* No credit builds up while the link is idle (§2). */
static void
no_credit_while_idle(void **state)
{
	struct cake	*c = h_create("bandwidth 1mbit besteffort", CAKE_LINK_IP);
	struct h_flow	 f = flow4(1000, 1000);
	struct cake_pkt	*p;

	(void)state;
	enq(c, &f, 0);
	h_free(cake_dequeue(c, 0));
	/* One second idle, then a burst: only one packet may leave now. */
	enq(c, &f, 1000 * MS);
	enq(c, &f, 1000 * MS);
	enq(c, &f, 1000 * MS);
	p = cake_dequeue(c, 1000 * MS);
	assert_non_null(p);
	h_free(p);
	assert_null(cake_dequeue(c, 1000 * MS));
	assert_true(cake_next_ns(c, 1000 * MS) == 1008 * MS);
	destroy(c);
}

static void
unlimited_releases_at_once(void **state)
{
	struct cake	*c = h_create(NULL, CAKE_LINK_IP);
	struct h_flow	 f = flow4(1000, 1500);
	struct cake_pkt	*p;
	int		 i, n = 0;

	(void)state;
	for (i = 0; i < 50; i++)
		enq(c, &f, 0);
	assert_true(cake_next_ns(c, 5) == 5);
	while ((p = cake_dequeue(c, 0)) != NULL) {
		h_free(p);
		n++;
	}
	assert_int_equal(n, 50);
	destroy(c);
}

/* A sparse flow's packet overtakes a backlogged bulk flow (§3). */
static void
sparse_flow_goes_first(void **state)
{
	struct cake	*c = h_create("bandwidth 10mbit besteffort flows",
			    CAKE_LINK_IP);
	struct h_flow	 bulk = flow4(1000, 1500), sparse = flow4(2000, 100);
	struct cake_pkt	*p;
	uint64_t	 now = 0;
	int		 i;

	(void)state;
	for (i = 0; i < 100; i++)
		enq(c, &bulk, 0);
	for (i = 0; i < 5; i++, now += 2 * MS)
		h_free(cake_dequeue(c, now));
	enq(c, &sparse, now);
	p = cake_dequeue(c, cake_next_ns(c, now));
	assert_non_null(p);
	assert_int_equal(sport_of(p), 2000);
	h_free(p);
	destroy(c);
}

/* A flood loses packets at the memory limit, a small flow loses none (§5). */
static void
flood_drops_at_memlimit_not_small_flow(void **state)
{
	struct cake	 *c = h_create("bandwidth 1mbit besteffort flows "
			     "memlimit 64kb", CAKE_LINK_IP);
	struct h_flow	  flood = flow4(1000, 1500), small = flow4(2000, 200);
	struct cake_stats st;
	struct cake_pkt	 *p, *next;
	unsigned int	  flood_drops = 0;
	int		  i;

	(void)state;
	for (i = 0; i < 200; i++) {
		struct cake_pkt *q = h_ipv4(&flood, false);

		/* 1 ms apart: BLUE reacts at most once per target (5 ms). */
		(void)cake_enqueue(c, q, (uint64_t)i * MS);
		if (i % 20 == 0)
			enq(c, &small, (uint64_t)i * MS);
		for (p = cake_take_dropped(c); p != NULL; p = next) {
			next = p->next;
			assert_int_equal(sport_of(p), 1000);
			assert_int_equal(p->drop_reason, CAKE_DROP_OVERLIMIT);
			flood_drops++;
			h_free(p);
		}
		assert_int_equal(cake_check_invariants(c), 0);
	}
	cake_get_stats(c, &st);
	assert_true(flood_drops > 150);
	assert_true(st.memory_now <= 64 * 1024);
	assert_true(st.memory_used <= 64 * 1024 + 2048);
	assert_int_equal(st.tins[0].drops, flood_drops);
	/* BLUE was told: the flood is now an unresponsive flow. */
	assert_int_equal(st.tins[0].unresponsive_flows, 1);
	destroy(c);
}

/*
 * Zero-length packets over the memory limit: the longest queue by bytes is
 * then an empty one and nothing can be evicted. Enqueue must return (fuzz
 * finding tests/fuzz/corpus/engine/finding-memlimit-loop-zero-length-packet:
 * it used to spin forever) and the packets still come out.
 */
static void
memlimit_with_zero_length_packets_returns(void **state)
{
	struct cake	*c = h_create("bandwidth 10mbit memlimit 1000",
			    CAKE_LINK_IP);
	struct cake_pkt	*p;
	unsigned int	 i, out = 0;

	(void)state;
	for (i = 0; i < 3; i++) {
		p = h_alloc(0);
		assert_non_null(p);
		assert_int_equal(cake_enqueue(c, p, MS), CAKE_ENQ_QUEUED);
		assert_int_equal(cake_check_invariants(c), 0);
	}
	assert_int_equal(h_free_dropped(c), 0);
	while ((p = cake_dequeue(c, 10 * MS)) != NULL) {
		h_free(p);
		out++;
	}
	assert_int_equal(out, 3);
	destroy(c);
}

/* The default memory limit (§5). */
static void
memory_limit_defaults(void **state)
{
	struct cake_stats st;
	struct cake	 *c;

	(void)state;
	c = h_create("bandwidth 100mbit", CAKE_LINK_ETHERNET);
	cake_get_stats(c, &st);
	assert_int_equal(st.memory_limit, 5000000);
	destroy(c);
	c = h_create("bandwidth 5mbit", CAKE_LINK_ETHERNET);
	cake_get_stats(c, &st);
	assert_int_equal(st.memory_limit, 4 << 20);
	destroy(c);
	c = h_create(NULL, CAKE_LINK_ETHERNET);
	cake_get_stats(c, &st);
	assert_int_equal(st.memory_limit, 15503360);
	destroy(c);
	c = h_create("bandwidth 5mbit memlimit 100000", CAKE_LINK_ETHERNET);
	cake_get_stats(c, &st);
	assert_int_equal(st.memory_limit, 100000);
	destroy(c);
}

/* A standing queue of ECT packets is marked, not dropped (§5). */
static void
codel_marks_ect_packets(void **state)
{
	struct h_sim	  s;
	struct cake_stats st;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.c = h_create("bandwidth 2mbit besteffort flows", CAKE_LINK_IP);
	s.check = true;
	h_add_flow(&s, 17, IP(10, 200, 0, 1), IP(10, 200, 1, 1), 1000, 1000);
	s.flows[0].tos = 0x02;		/* ECT(0) */
	s.flows[0].depth = 100;		/* 400 ms of queue at 2 Mbit */
	h_run(&s, 3000 * MS, 1 * MS);
	cake_get_stats(s.c, &st);
	assert_true(st.tins[0].ecn_marks > 5);
	assert_int_equal(st.tins[0].drops, 0);
	assert_true(s.marks >= st.tins[0].ecn_marks);
	destroy(s.c);
}

/* The same queue without ECT is controlled by drops. */
static void
codel_drops_not_ect_packets(void **state)
{
	struct h_sim	  s;
	struct cake_stats st;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.c = h_create("bandwidth 2mbit besteffort flows", CAKE_LINK_IP);
	s.check = true;
	h_add_flow(&s, 17, IP(10, 200, 0, 1), IP(10, 200, 1, 1), 1000, 1000);
	s.flows[0].depth = 100;
	h_run(&s, 3000 * MS, 1 * MS);
	cake_get_stats(s.c, &st);
	assert_true(st.tins[0].drops > 5);
	assert_int_equal(st.tins[0].ecn_marks, 0);
	assert_int_equal(s.flows[0].dropped, st.tins[0].drops);
	destroy(s.c);
}

/* A marked IPv4 packet still has a valid header checksum. */
static void
ce_mark_keeps_checksum_valid(void **state)
{
	struct cake	*c = h_create("bandwidth 1mbit besteffort flows",
			    CAKE_LINK_IP);
	struct h_flow	 f = flow4(1000, 1000);
	struct cake_pkt	*p;
	uint64_t	 now;
	int		 i, marked = 0;

	(void)state;
	f.tos = 0x01;			/* ECT(1) */
	for (i = 0; i < 60; i++)
		enq(c, &f, 0);
	for (now = 0; now < 2000 * MS; now += MS) {
		while ((p = cake_dequeue(c, now)) != NULL) {
			assert_true(h_ipv4_csum_ok(p->data));
			if ((p->data[1] & 3) == 3)
				marked++;
			h_free(p);
		}
		if (now % (8 * MS) == 0)
			enq(c, &f, now);
	}
	assert_true(marked > 0);
	destroy(c);
}

/* 200 flows in 1024 queues: 8 ways absorb every hash collision (§3). */
static void
set_associative_ways_avoid_collisions(void **state)
{
	struct cake	  *c = h_create("besteffort flows", CAKE_LINK_IP);
	struct cake_stats  st;

	(void)state;
	enq_flows(c, 200);
	cake_get_stats(c, &st);
	assert_int_equal(st.tins[0].way_cols, 0);
	assert_int_equal(st.tins[0].way_miss, 200);
	assert_int_equal(st.tins[0].sparse_flows, 200);
	/* Again the same flows: they find their queues by tag. */
	enq_flows(c, 200);
	cake_get_stats(c, &st);
	assert_int_equal(st.tins[0].way_miss, 200);
	assert_int_equal(st.tins[0].way_cols, 0);
	assert_true(st.tins[0].way_inds > 0);
	destroy(c);
}

/* More flows than queues must collide, and be counted. */
static void
too_many_flows_collide(void **state)
{
	struct cake	  *c = h_create("besteffort flows", CAKE_LINK_IP);
	struct cake_stats  st;

	(void)state;
	enq_flows(c, 2000);
	cake_get_stats(c, &st);
	assert_true(st.tins[0].way_cols >= 2000 - 1024);
	assert_true(st.tins[0].way_miss <= 1024);
	assert_int_equal(st.tins[0].way_cols + st.tins[0].way_miss, 2000);
	destroy(c);
}

/* flowblind puts every packet into one queue, in order. */
static void
flowblind_is_fifo(void **state)
{
	struct cake	*c = h_create("besteffort flowblind", CAKE_LINK_IP);
	struct cake_pkt	*p;
	int		 i;

	(void)state;
	enq_flows(c, 20);
	for (i = 0; i < 20; i++) {
		p = cake_dequeue(c, 0);
		assert_non_null(p);
		assert_int_equal(sport_of(p), 1000 + i);
		h_free(p);
	}
	destroy(c);
}

/* cake_change keeps queued packets; fewer tins drop the packets of the lost ones. */
static void
change_keeps_queued_packets(void **state)
{
	struct cake		*c = h_create("bandwidth 1mbit diffserv8",
				    CAKE_LINK_IP);
	struct cake_config	 cfg;
	struct cake_stats	 st;
	struct h_flow		 be = flow4(1000, 500), cs7 = flow4(2000, 500);
	int			 i;

	(void)state;
	be.tos = 1 << 2;		/* LE: diffserv8 tin 0 */
	cs7.tos = 56 << 2;
	for (i = 0; i < 10; i++) {
		enq(c, &be, 0);
		enq(c, &cs7, 0);
	}
	cake_get_config(c, &cfg);
	cfg.rate_Bps = 1000000;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_OK);
	assert_int_equal(cake_check_invariants(c), 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.backlog_pkts, 20);
	/* diffserv8 -> besteffort: tins 1..7 go, with the CS7 packets in tin 7. */
	cfg.diffserv = CAKE_BESTEFFORT;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_OK);
	assert_int_equal(cake_check_invariants(c), 0);
	cake_get_stats(c, &st);
	assert_int_equal(st.tin_count, 1);
	assert_int_equal(h_free_dropped(c), 10);
	destroy(c);
	/* A bad change is refused and changes nothing. */
	c = h_create("bandwidth 1mbit", CAKE_LINK_IP);
	cake_get_config(c, &cfg);
	cfg.overhead = -65;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_ERR_INVAL);
	cake_get_config(c, &cfg);
	assert_int_equal(cfg.overhead, 0);
	destroy(c);
}

/* Ingress mode: packets dropped by the AQM still advance the shaper (§7). */
static void
ingress_drops_advance_the_shaper(void **state)
{
	struct h_sim	  s, e;
	struct cake_stats si, se;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	s.c = h_create("bandwidth 2mbit besteffort flows ingress", CAKE_LINK_IP);
	e.c = h_create("bandwidth 2mbit besteffort flows", CAKE_LINK_IP);
	h_add_flow(&s, 17, IP(10, 200, 0, 1), IP(10, 200, 1, 1), 1000, 1000);
	h_add_flow(&e, 17, IP(10, 200, 0, 1), IP(10, 200, 1, 1), 1000, 1000);
	s.flows[0].depth = e.flows[0].depth = 200;
	h_run(&s, 5000 * MS, MS);
	h_run(&e, 5000 * MS, MS);
	cake_get_stats(s.c, &si);
	cake_get_stats(e.c, &se);
	assert_true(si.tins[0].drops > 0);
	assert_true(se.tins[0].drops > 0);
	/* Egress sends the full rate; ingress sends less: drops used the link. */
	assert_true(se.sent_bytes > si.sent_bytes);
	assert_true((double)si.sent_bytes >= 0.6 * (double)se.sent_bytes);
	destroy(s.c);
	destroy(e.c);
}

/* Statistics: sizes, header offset and the tin table (§8). */
static void
stats_report_sizes_and_tins(void **state)
{
	struct cake	  *c = h_create("bandwidth 20mbit ethernet",
			      CAKE_LINK_ETHERNET);
	struct cake_stats  st;
	struct h_flow	   f = flow4(1000, 1500);
	struct cake_pkt	  *p;

	(void)state;
	cake_get_stats(c, &st);
	assert_int_equal(st.min_netlen, 65535);
	assert_int_equal(st.tin_count, 3);
	assert_string_equal(st.tins[0].name, "Bulk");
	assert_string_equal(st.tins[1].name, "Best Effort");
	assert_string_equal(st.tins[2].name, "Voice");
	assert_int_equal(st.tins[1].threshold_Bps, 2500000);
	assert_int_equal(st.tins[0].threshold_Bps, 156250);
	/* Bulk at 1.25 Mbit: target ~14.5 ms, interval ~109.5 ms (§4). */
	assert_in_range(st.tins[0].target_us, 14300, 14700);
	assert_in_range(st.tins[0].interval_us, 109000, 110200);
	assert_int_equal(st.tins[1].target_us, 5000);
	assert_int_equal(st.tins[1].interval_us, 100000);
	assert_int_equal(st.tins[0].flow_quantum, 300);
	assert_int_equal(st.tins[1].flow_quantum, 610);

	p = h_ipv4(&f, true);
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
	f.len = 28;
	p = h_ipv4(&f, true);
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
	cake_get_stats(c, &st);
	assert_int_equal(st.max_netlen, 1500);
	assert_int_equal(st.min_netlen, 28);
	assert_int_equal(st.max_adjlen, 1538);
	assert_int_equal(st.min_adjlen, 84);
	assert_int_equal(st.tins[1].pkts, 2);
	assert_int_equal(st.tins[1].bytes, 1514 + 42);
	assert_int_equal(st.backlog_pkts, 2);
	assert_int_equal(st.avg_netoff, 0);	/* EWMA still rising from 0 */
	destroy(c);
}

/* Non-IP frames are queued as best effort and counted. */
static void
non_ip_is_best_effort(void **state)
{
	struct cake	  *c = h_create("bandwidth 10mbit", CAKE_LINK_ETHERNET);
	struct cake_pkt	  *p = h_alloc(60);
	struct cake_stats  st;

	(void)state;
	p->data[12] = 0x88;
	p->data[13] = 0xcc;		/* LLDP */
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
	cake_get_stats(c, &st);
	assert_int_equal(st.non_ip_pkts, 1);
	assert_int_equal(st.tins[1].pkts, 1);
	p = h_alloc(3);			/* shorter than a MAC header */
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
	cake_get_stats(c, &st);
	assert_int_equal(st.non_ip_pkts, 2);
	assert_int_equal(cake_check_invariants(c), 0);
	destroy(c);
}

/* Per-flow statistics: keys as hashed (pre-NAT when supplied), counters. */
static void
flow_stats_report_keys_and_counters(void **state)
{
	struct cake		*c = h_create("bandwidth 10mbit besteffort flows",
				    CAKE_LINK_IP);
	struct cake_flow_stats	 fs[8];
	struct h_flow		 a = flow4(1000, 500), b = flow4(2000, 300);
	struct cake_pkt		*p;
	unsigned int		 n, i;
	int			 k;

	(void)state;
	assert_int_equal(cake_get_flows(c, fs, 8), 0);
	for (k = 0; k < 3; k++)
		enq(c, &a, 0);
	p = h_ipv4(&b, false);
	p->hash_valid = true;		/* as the daemon does with conntrack */
	cake_parse(p->data, p->len, CAKE_LINK_IP, &p->meta);
	p->meta_valid = true;
	p->hash_tuple = p->meta.tuple;
	p->hash_tuple.src[15] = 99;	/* the pre-NAT host */
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
	n = cake_get_flows(c, fs, 8);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		if (fs[i].keys.sport == 1000) {
			assert_int_equal(fs[i].pkts, 3);
			assert_int_equal(fs[i].bytes, 1500);
			assert_int_equal(fs[i].qlen, 3);
			assert_int_equal(fs[i].backlog_bytes, 1500);
			assert_int_equal(fs[i].state, CAKE_FLOW_STATE_SPARSE);
		} else {
			assert_int_equal(fs[i].keys.sport, 2000);
			assert_int_equal(fs[i].keys.src[15], 99);
			assert_int_equal(fs[i].pkts, 1);
		}
	}
	assert_int_equal(cake_get_flows(c, fs, 1), 1);
	destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_rejects_bad_parameters),
		cmocka_unit_test(empty_instance_sleeps),
		cmocka_unit_test(release_times_follow_the_rate),
		cmocka_unit_test(no_credit_while_idle),
		cmocka_unit_test(unlimited_releases_at_once),
		cmocka_unit_test(sparse_flow_goes_first),
		cmocka_unit_test(flood_drops_at_memlimit_not_small_flow),
		cmocka_unit_test(memlimit_with_zero_length_packets_returns),
		cmocka_unit_test(memory_limit_defaults),
		cmocka_unit_test(codel_marks_ect_packets),
		cmocka_unit_test(codel_drops_not_ect_packets),
		cmocka_unit_test(ce_mark_keeps_checksum_valid),
		cmocka_unit_test(set_associative_ways_avoid_collisions),
		cmocka_unit_test(too_many_flows_collide),
		cmocka_unit_test(flowblind_is_fifo),
		cmocka_unit_test(change_keeps_queued_packets),
		cmocka_unit_test(ingress_drops_advance_the_shaper),
		cmocka_unit_test(stats_report_sizes_and_tins),
		cmocka_unit_test(non_ip_is_best_effort),
		cmocka_unit_test(flow_stats_report_keys_and_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
