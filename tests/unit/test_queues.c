/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_queues.c: caked's "queues N" extension (struct cake_config.queues):
 * an instance made with N flow queues per tin really has N queues and N
 * host slots, memory-limit drops reach queues whose entry number does not
 * fit in 16 bits, and cake_change() refuses another queue count while
 * leaving the instance as it was. The keyword itself is tested in
 * test_keywords.c; the host slots (as many as queues) by the simulator's
 * hosts-1000, which falls to Jain 0.90-0.93 with 1024 host slots even
 * with 16384 queues.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "caked/cake.h"
#include "harness.h"

#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define MANY_FLOWS	3000	/* collide in 1024 queues, not in 16384 */

/* UDP flow i: one host pair, 3000 source ports. */
static struct h_flow
flow_n(unsigned int i, uint8_t tos, uint32_t len)
{
	struct h_flow	f;

	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = IP(10, 0, 0, 1);
	f.dst = IP(10, 9, 0, 1);
	f.sport = (uint16_t)(1024 + i);
	f.dport = 5201;
	f.tos = tos;
	f.len = len;
	return f;
}

static void
enq(struct cake *c, const struct h_flow *f)
{
	struct cake_pkt	*p = h_ipv4(f, false);

	assert_non_null(p);
	assert_int_equal(cake_enqueue(c, p, 0), CAKE_ENQ_QUEUED);
}

static void
destroy(struct cake *c)
{
	assert_int_equal(h_destroy(c), 0);
}

static void
create_accepts_powers_of_two_from_1024_to_65536_only(void **state)
{
	static const uint32_t	bad[] = { 0, 1, 512, 1000, 1536, 3072,
				    131072, UINT32_MAX };
	struct cake_config	cfg;
	struct cake_env		env;
	struct cake		*c;
	uint32_t		q;
	size_t			i;
	int			err;

	(void)state;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = 1;
	cake_config_default(&cfg);
	assert_int_equal(cfg.queues, CAKE_QUEUES_DEFAULT);
	assert_int_equal(CAKE_QUEUES_DEFAULT, 1024);
	for (q = CAKE_QUEUES_MIN; q <= CAKE_QUEUES_MAX; q *= 2) {
		cfg.queues = q;
		c = cake_create(&cfg, &env, &err);
		assert_non_null(c);
		cake_get_config(c, &cfg);
		assert_int_equal(cfg.queues, q);
		assert_int_equal(cake_check_invariants(c), 0);
		cake_destroy(c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.queues = bad[i];
		assert_null(cake_create(&cfg, &env, &err));
		assert_int_equal(err, CAKE_ERR_INVAL);
	}
}

/*
 * Flows that overflow 1024 queues each get their own queue among 16384:
 * no collision, every flow listed on its own with its one packet, every
 * packet back on flush.
 */
static void
more_flows_than_1024_get_distinct_queues(void **state)
{
	static struct cake_flow_stats	fs[MANY_FLOWS + 1];
	static uint8_t			seen[MANY_FLOWS];
	struct cake			*big, *dflt;
	struct cake_stats		 st;
	unsigned int			 i, n;

	(void)state;
	big = h_create("besteffort flows queues 16384", CAKE_LINK_IP);
	dflt = h_create("besteffort flows", CAKE_LINK_IP);
	assert_non_null(big);
	assert_non_null(dflt);
	for (i = 0; i < MANY_FLOWS; i++) {
		struct h_flow f = flow_n(i, 0, 100);

		enq(big, &f);
		enq(dflt, &f);
	}
	assert_int_equal(cake_check_invariants(big), 0);
	cake_get_stats(dflt, &st);
	assert_true(st.tins[0].way_cols >= MANY_FLOWS - 1024);
	cake_get_stats(big, &st);
	assert_int_equal(st.tins[0].way_cols, 0);
	assert_int_equal(st.tins[0].way_miss, MANY_FLOWS);
	assert_int_equal(st.backlog_pkts, MANY_FLOWS);
	n = cake_get_flows(big, fs, MANY_FLOWS + 1);
	assert_int_equal(n, MANY_FLOWS);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		assert_int_equal(fs[i].qlen, 1);
		assert_int_equal(fs[i].pkts, 1);
		assert_true(fs[i].keys.sport >= 1024 &&
		    fs[i].keys.sport < 1024 + MANY_FLOWS);
		assert_int_equal(seen[fs[i].keys.sport - 1024]++, 0);
	}
	cake_flush(big);
	assert_int_equal(h_free_dropped(big), MANY_FLOWS);
	destroy(big);
	destroy(dflt);
}

/*
 * The memory limit drops from the longest queue even when its entry
 * (tin * queues + queue) is beyond 65535: precedence tin 7 of 16384
 * queues starts at entry 114688.
 */
static void
memlimit_drops_from_a_queue_past_entry_65535(void **state)
{
	struct cake		*c;
	struct cake_stats	 st;
	struct h_flow		 fat = flow_n(1, 0xe0, 1000);	/* CS7: tin 7 */
	struct h_flow		 thin = flow_n(2, 0, 1000);	/* tin 0 */
	unsigned int		 i, dropped;
	int			 rc;

	(void)state;
	c = h_create("bandwidth 1mbit precedence flows queues 16384 "
	    "memlimit 64kb", CAKE_LINK_IP);
	assert_non_null(c);
	enq(c, &thin);
	for (i = 0, dropped = 0; i < 64; i++) {
		struct cake_pkt *p = h_ipv4(&fat, false);

		assert_non_null(p);
		rc = cake_enqueue(c, p, 0);
		dropped += rc == CAKE_ENQ_DROPPED;
		assert_int_equal(cake_check_invariants(c), 0);
	}
	cake_get_stats(c, &st);
	assert_true(st.memory_now <= st.memory_limit);
	assert_true(dropped > 0);
	assert_int_equal(st.tins[7].drops, dropped);
	assert_int_equal(st.tins[0].drops, 0);
	assert_int_equal(st.tins[0].backlog_bytes, 1000);
	assert_int_equal(h_free_dropped(c), dropped);
	destroy(c);
}

/* cake_change: another queue count is refused, and changes nothing. */
static void
change_refuses_another_queue_count(void **state)
{
	struct cake		*c;
	struct cake_config	 cfg, now;
	struct cake_stats	 before, after;
	struct h_flow		 f = flow_n(7, 0, 500);
	int			 i;

	(void)state;
	c = h_create("bandwidth 10mbit queues 2048", CAKE_LINK_IP);
	assert_non_null(c);
	for (i = 0; i < 5; i++)
		enq(c, &f);
	cake_get_stats(c, &before);
	cake_get_config(c, &cfg);
	cfg.rate_Bps = 2500000;
	cfg.queues = 1024;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_ERR_QUEUES);
	cfg.queues = 4096;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_ERR_QUEUES);
	cfg.queues = 1000;		/* invalid first, whatever the count */
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_ERR_INVAL);
	cake_get_config(c, &now);
	assert_int_equal(now.queues, 2048);
	assert_int_equal(now.rate_Bps, 1250000);
	cake_get_stats(c, &after);
	assert_int_equal(after.backlog_pkts, before.backlog_pkts);
	assert_int_equal(after.backlog_bytes, before.backlog_bytes);
	assert_int_equal(cake_check_invariants(c), 0);
	/* The same count with the new rate is an ordinary change. */
	cfg.queues = 2048;
	assert_int_equal(cake_change(c, &cfg, 0), CAKE_OK);
	cake_get_config(c, &now);
	assert_int_equal(now.rate_Bps, 2500000);
	assert_string_equal(cake_strerror(CAKE_ERR_QUEUES),
	    "the number of queues is fixed when the instance is created");
	destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    create_accepts_powers_of_two_from_1024_to_65536_only),
		cmocka_unit_test(more_flows_than_1024_get_distinct_queues),
		cmocka_unit_test(memlimit_drops_from_a_queue_past_entry_65535),
		cmocka_unit_test(change_refuses_another_queue_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
