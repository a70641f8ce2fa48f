/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_group.c: a worker group (include/caked/group.h) through its public
 * API with a fake clock: which worker a packet is steered to in each
 * flow mode, that the group's statistics add up to what came in, the
 * lending step driven as threads would drive it, a group of one against
 * a bare instance, and the parameters it refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "caked/keywords.h"
#include "harness.h"

#define MS	1000000ULL
#define IP(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define HOSTS	64

static struct group *
mk(const char *keywords, unsigned int workers, enum group_side side)
{
	struct cake_config	cfg;
	struct cake_env		env;
	char			err[KEYWORDS_ERR_MAX];
	struct group		*g;
	int			e = 0;

	cake_config_default(&cfg);
	assert_int_equal(keywords_parse_line(&cfg, keywords, err,
	    sizeof(err)), 0);
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = 12345;
	g = group_create(&cfg, &env, workers, side, &e);
	assert_non_null(g);
	return g;
}

static void
free_list(struct cake_pkt *p)
{
	struct cake_pkt	*next;

	for (; p != NULL; p = next) {
		next = p->next;
		h_free(p);
	}
}

static void
done(struct group *g)
{
	assert_int_equal(group_check_invariants(g), 0);
	group_flush(g);
	free_list(group_take_dropped(g));
	group_destroy(g);
}

static struct h_flow
flow(uint32_t src, uint32_t dst, uint16_t sport)
{
	struct h_flow	f;

	memset(&f, 0, sizeof(f));
	f.proto = 17;
	f.src = src;
	f.dst = dst;
	f.sport = sport;
	f.dport = 443;
	f.len = 1000;
	return f;
}

/* The worker a packet of f goes to (the packet is freed). */
static unsigned int
steer(struct group *g, const struct h_flow *f)
{
	struct cake_pkt	*p = h_ipv4(f, false);
	unsigned int	 w;

	assert_non_null(p);
	w = group_steer(g, p);
	assert_true(p->meta_valid);
	h_free(p);
	return w;
}

/* Source-host modes: a host's flows all go to one worker; hosts spread. */
static void
test_steer_src(void **state)
{
	struct group	*g = mk("bandwidth 100mbit dual-srchost", 4,
			    GROUP_SIDE_DST);
	unsigned int	 used[4] = { 0 }, h, p, w;
	struct h_flow	 f;

	(void)state;
	for (h = 0; h < HOSTS; h++) {
		f = flow(IP(10, 0, 0, h + 1), IP(1, 1, 1, 1), 1000);
		w = steer(g, &f);
		used[w]++;
		for (p = 1; p < 8; p++) {
			f = flow(IP(10, 0, 0, h + 1), IP(2, 2, 2, p), 1000 + p);
			assert_int_equal(steer(g, &f), w);
		}
	}
	for (w = 0; w < 4; w++)
		assert_true(used[w] > 0);
	done(g);
}

/* dual-dsthost steers by destination; triple by the side asked for. */
static void
test_steer_dst(void **state)
{
	struct group	*g = mk("bandwidth 100mbit dual-dsthost", 2,
			    GROUP_SIDE_SRC);
	struct group	*t = mk("bandwidth 100mbit triple-isolate", 2,
			    GROUP_SIDE_DST);
	unsigned int	 h, p, wg, wt;
	struct h_flow	 f;

	(void)state;
	for (h = 0; h < HOSTS; h++) {
		f = flow(IP(1, 1, 1, 1), IP(192, 168, 0, h + 1), 80);
		wg = steer(g, &f);
		wt = steer(t, &f);
		for (p = 1; p < 8; p++) {
			f = flow(IP(3, 3, 3, p), IP(192, 168, 0, h + 1),
			    (uint16_t)(80 + p));
			assert_int_equal(steer(g, &f), wg);
			assert_int_equal(steer(t, &f), wt);
		}
	}
	done(g);
	done(t);
}

/* Flow modes hash the 5-tuple, both directions alike; NAT keys win. */
static void
test_steer_flows(void **state)
{
	struct group	*g = mk("bandwidth 100mbit flows", 2, GROUP_SIDE_SRC);
	struct group	*d = mk("bandwidth 100mbit dual-srchost", 2,
			    GROUP_SIDE_SRC);
	unsigned int	 p, used[2] = { 0 }, w;
	struct h_flow	 f, r;
	struct cake_pkt	*pkt;

	(void)state;
	for (p = 0; p < HOSTS; p++) {
		f = flow(IP(10, 0, 0, 1), IP(1, 1, 1, 1), 1000 + p);
		r = f;
		r.src = f.dst;
		r.dst = f.src;
		r.sport = f.dport;
		r.dport = f.sport;
		w = steer(g, &f);
		assert_int_equal(steer(g, &r), w);
		used[w]++;
	}
	assert_true(used[0] > 0 && used[1] > 0);
	/* Pre-NAT keys (hash_valid) decide, not the packet's addresses. */
	for (p = 0; p < HOSTS; p++) {
		f = flow(IP(100, 64, 0, 1), IP(1, 1, 1, 1), 1000);
		r = flow(IP(10, 0, 0, p + 1), IP(1, 1, 1, 1), 1000);
		pkt = h_ipv4(&f, false);
		assert_non_null(pkt);
		cake_parse(pkt->data, pkt->len, CAKE_LINK_IP, &pkt->meta);
		pkt->meta_valid = true;
		pkt->hash_tuple = pkt->meta.tuple;
		pkt->hash_tuple.src[15] = (uint8_t)(p + 1);
		pkt->hash_tuple.src[12] = 10;
		pkt->hash_tuple.src[13] = 0;
		pkt->hash_valid = true;
		assert_int_equal(group_steer(d, pkt), steer(d, &r));
		h_free(pkt);
	}
	done(g);
	done(d);
}

static void
fill(struct group *g, unsigned int hosts, unsigned int per_host,
    uint64_t now, uint64_t *in)
{
	unsigned int	h, k;
	struct h_flow	f;

	for (h = 0; h < hosts; h++)
		for (k = 0; k < per_host; k++) {
			f = flow(IP(10, 0, 1, h + 1), IP(1, 1, 1, 1),
			    (uint16_t)(2000 + k));
			(void)group_enqueue(g, h_ipv4(&f, false), now);
			(*in)++;
		}
}

/* Sent + dropped + queued = what came in; tins add up; workers add up. */
static void
test_stats_sum(void **state)
{
	struct group		*g = mk("bandwidth 10mbit besteffort "
				    "dual-srchost memlimit 200000", 3,
				    GROUP_SIDE_SRC);
	struct cake_stats	 st, w;
	struct cake_pkt		*p;
	uint64_t		 in = 0, out = 0, sum_sent = 0, now;
	unsigned int		 i;

	(void)state;
	for (now = 0; now < 200 * MS; now += MS) {
		fill(g, 12, 3, now, &in);
		while ((p = group_dequeue(g, now)) != NULL) {
			out++;
			h_free(p);
		}
		free_list(group_take_dropped(g));
		assert_int_equal(group_check_invariants(g), 0);
	}
	group_get_stats(g, &st);
	assert_true(st.dropped_pkts > 0);	/* memlimit was hit */
	assert_int_equal(st.sent_pkts, out);
	assert_int_equal(st.sent_pkts + st.dropped_pkts + st.backlog_pkts, in);
	assert_int_equal(st.tins[0].pkts, in);
	assert_int_equal(st.tins[0].threshold_Bps, 1250000);
	for (i = 0; i < group_workers(g); i++) {
		cake_get_stats(group_worker(g, i), &w);
		assert_true(w.sent_pkts > 0);
		sum_sent += w.sent_bytes;
	}
	assert_int_equal(sum_sent, st.sent_bytes);
	done(g);
}

/*
 * One lending period of worker C's thread: what is due leaves (its bytes
 * returned), then every worker syncs and the lender lends.
 */
static uint64_t
lend_period(struct group *g, struct cake *c, uint64_t now)
{
	struct cake_pkt	*p;
	uint64_t	 bytes = 0;
	unsigned int	 i;

	while ((p = cake_dequeue(c, now)) != NULL) {
		bytes += p->len;
		h_free(p);
	}
	free_list(cake_take_dropped(c));
	for (i = 0; i < group_workers(g); i++)
		group_lend_sync(g, i, now);
	group_lend(g, now);
	return bytes;
}

/* The rates lent to all workers, summed. */
static uint64_t
lent_sum(struct group *g)
{
	uint64_t	 sum = 0;
	unsigned int	 i;

	for (i = 0; i < group_workers(g); i++)
		sum += group_lend_rate_Bps(g, i);
	return sum;
}

/*
 * The lending step as threads drive it: each worker syncs, one lender
 * lends. Worker a queues, worker b is idle: within a few periods a is
 * lent 95 % of the rate; the rates lent never sum above the rate plus
 * the bounded credit; once all is idle again they sum to the rate.
 */
static void
test_lend_threads(void **state)
{
	struct group	*g = mk("bandwidth 100mbit besteffort dual-srchost", 2,
			    GROUP_SIDE_SRC);
	const uint64_t	 rate = 12500000;
	struct h_flow	 f = flow(IP(10, 0, 2, 1), IP(1, 1, 1, 1), 3000);
	struct cake	*c;
	struct cake_config cfg;
	uint64_t	 now, sum, lent;
	unsigned int	 a, i, periods = 0;

	(void)state;
	a = steer(g, &f);
	c = group_worker(g, a);
	assert_int_equal(group_lend_rate_Bps(g, a), rate / 2);
	for (now = MS; now <= 50 * MS; now += MS) {
		/* 20 kB a period: more than the whole rate can take. */
		for (i = 0; i < 20; i++)
			(void)cake_enqueue(c, h_ipv4(&f, false), now);
		(void)lend_period(g, c, now);
		sum = lent_sum(g);
		assert_true(sum <= rate + rate / 4);
		if (periods == 0 &&
		    group_lend_rate_Bps(g, a) >= rate * 95 / 100)
			periods = (unsigned int)(now / MS);
	}
	print_message("lent to the busy worker: >= 95 %% after %u periods\n",
	    periods);
	assert_true(periods > 0 && periods <= 10);
	/* A new rate (autorate) keeps each worker's part of it. */
	lent = group_lend_rate_Bps(g, a);
	group_get_config(g, &cfg);
	cfg.rate_Bps *= 2;
	assert_int_equal(group_change(g, &cfg, now), CAKE_OK);
	assert_true(group_lend_rate_Bps(g, a) >= 2 * lent - 1 &&
	    group_lend_rate_Bps(g, a) <= 2 * lent);
	cake_get_config(c, &cfg);
	assert_int_equal(cfg.rate_Bps, group_lend_rate_Bps(g, a));
	cfg.rate_Bps = rate;
	assert_int_equal(group_change(g, &cfg, now), CAKE_OK);
	group_flush(g);
	free_list(group_take_dropped(g));
	for (; now <= 60 * MS; now += MS)
		(void)lend_period(g, c, now);
	sum = lent_sum(g);
	assert_true(sum <= rate && sum >= rate - 2);
	done(g);
}

/*
 * At 1 Mbit a frame takes longer than a lending period and the credit's
 * bound (a few frames) is many periods of the rate: the rate lent stays
 * within half and twice the rate, never wraps, and averages the rate.
 */
static void
test_lend_low_rate(void **state)
{
	struct group	*g = mk("bandwidth 1mbit besteffort dual-srchost", 2,
			    GROUP_SIDE_SRC);
	const uint64_t	 rate = 125000;
	struct h_flow	 f = flow(IP(10, 0, 4, 1), IP(1, 1, 1, 1), 3000);
	struct cake	*c;
	uint64_t	 now, sum, bytes, sent = 0;
	unsigned int	 a;

	(void)state;
	a = steer(g, &f);
	c = group_worker(g, a);
	for (now = MS; now <= 2000 * MS; now += MS) {
		if (now % (4 * MS) == 0)
			(void)cake_enqueue(c, h_ipv4(&f, false), now);
		bytes = lend_period(g, c, now);
		if (now > 1000 * MS)
			sent += bytes;
		sum = lent_sum(g);
		assert_true(sum >= rate / 2 && sum <= 2 * rate);
	}
	/* 1000-byte frames offered at 250 kB/s: the rate is the limit. */
	print_message("1 Mbit, the last second: sent %" PRIu64 " bytes of "
	    "%" PRIu64 "\n", sent, rate);
	assert_true(sent >= rate * 98 / 100 && sent <= rate * 102 / 100);
	done(g);
}

/* A group of one is the instance: the same packets leave at the same times. */
static void
test_one_is_instance(void **state)
{
	struct group	*g = mk("bandwidth 20mbit dual-srchost", 1,
			    GROUP_SIDE_SRC);
	struct cake	*c = h_create("bandwidth 20mbit dual-srchost",
			    CAKE_LINK_IP);
	struct cake_pkt	*pg, *pc;
	uint64_t	 now, n = 0;
	unsigned int	 h;
	struct h_flow	 f;

	(void)state;
	assert_non_null(c);
	for (now = 0; now < 50 * MS; now += MS / 4) {
		for (h = 0; h < 5; h++) {
			f = flow(IP(10, 0, 3, h + 1), IP(1, 1, 1, 1),
			    (uint16_t)(now / MS));
			(void)group_enqueue(g, h_ipv4(&f, false), now);
			(void)cake_enqueue(c, h_ipv4(&f, false), now);
		}
		assert_int_equal(group_next_ns(g, now), cake_next_ns(c, now));
		for (;;) {
			pg = group_dequeue(g, now);
			pc = cake_dequeue(c, now);
			assert_int_equal(pg == NULL, pc == NULL);
			if (pg == NULL)
				break;
			assert_memory_equal(pg->data, pc->data, pc->len);
			h_free(pg);
			h_free(pc);
			n++;
		}
		free_list(group_take_dropped(g));
		h_free_dropped(c);
	}
	assert_true(n > 100);
	done(g);
	assert_int_equal(h_destroy(c), 0);
}

static void
test_refused(void **state)
{
	struct cake_config	cfg;
	struct cake_env		env;
	int			e = 0;

	(void)state;
	cake_config_default(&cfg);
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	assert_null(group_create(&cfg, &env, 0, GROUP_SIDE_SRC, &e));
	assert_int_equal(e, CAKE_ERR_INVAL);
	e = 0;
	assert_null(group_create(&cfg, &env, GROUP_WORKERS_MAX + 1,
	    GROUP_SIDE_SRC, &e));
	assert_int_equal(e, CAKE_ERR_INVAL);
	cfg.autorate_ingress = true;
	e = 0;
	assert_null(group_create(&cfg, &env, 2, GROUP_SIDE_SRC, &e));
	assert_int_equal(e, CAKE_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_steer_src),
		cmocka_unit_test(test_steer_dst),
		cmocka_unit_test(test_steer_flows),
		cmocka_unit_test(test_stats_sum),
		cmocka_unit_test(test_lend_threads),
		cmocka_unit_test(test_lend_low_rate),
		cmocka_unit_test(test_one_is_instance),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
