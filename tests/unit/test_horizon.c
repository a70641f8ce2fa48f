/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_horizon.c: cake_dequeue_ahead(), the engine side of the daemon's
 * departure horizon. A driver wakes exactly when the engine asks (as
 * loop.c arms its timer), takes every packet whose departure falls
 * within the horizon, and keeps the queues backlogged, on a fake clock:
 *
 * - the long-run rate stays exact: within 0.1 % of the configured rate
 *   over 10 s simulated at 10, 100 and 1000 Mbit, with horizons of 0,
 *   250 us and 1 ms;
 * - no wakeup sends more than horizon x rate + one MTU;
 * - after a wakeup the next departure lies beyond the horizon (so the
 *   daemon's timer is armed for it), and nothing is sent before its
 *   departure minus the horizon;
 * - tins share the link as they do without a horizon (the tin clocks
 *   decide as at the horizon's end, so a priority tin cannot take more).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "harness.h"

#define US		1000ULL
#define MS		1000000ULL
#define S		1000000000ULL
#define T0		(5 * S)
#define MTU		1500
#define DEPTH		128	/* packets kept queued per flow */
#define FLOWS_MAX	2

struct drive {
	struct cake	*c;
	struct h_flow	 flows[FLOWS_MAX];
	unsigned int	 nflows;
	uint32_t	 queued[FLOWS_MAX];
	uint64_t	 bytes[FLOWS_MAX];
	uint64_t	 horizon_ns;
	uint64_t	 now_ns;
	uint64_t	 total;		/* bytes sent */
	uint64_t	 max_burst;	/* bytes sent by one wakeup */
	uint64_t	 wakeups;
	uint64_t	 next_within;	/* next departure within the horizon */
	uint64_t	 dropped;
};

static void
drive_init(struct drive *d, const char *keywords, uint64_t horizon_ns)
{
	memset(d, 0, sizeof(*d));
	/* A long target keeps COBALT out: every packet queued is sent. */
	assert_non_null(d->c = h_create(keywords, CAKE_LINK_IP));
	d->horizon_ns = horizon_ns;
	d->now_ns = T0;
}

static void
drive_flow(struct drive *d, uint8_t tos)
{
	struct h_flow	*f = &d->flows[d->nflows];

	assert_true(d->nflows < FLOWS_MAX);
	f->proto = 17;
	f->src = 0x0a000001 + d->nflows;
	f->dst = 0x0a000101;
	f->sport = (uint16_t)(1000 + d->nflows);
	f->dport = 2000;
	f->tos = tos;
	f->len = MTU;
	d->nflows++;
}

static void
top_up(struct drive *d)
{
	struct cake_pkt	*p;
	unsigned int	 i;

	for (i = 0; i < d->nflows; i++) {
		while (d->queued[i] < DEPTH) {
			assert_non_null(p = h_ipv4(&d->flows[i], false));
			((struct h_pkt *)p)->flow = (int)i;
			assert_int_equal(cake_enqueue(d->c, p, d->now_ns),
			    CAKE_ENQ_QUEUED);
			d->queued[i]++;
		}
	}
	d->dropped += h_free_dropped(d->c);
}

/* One wakeup: everything due by now + horizon leaves. */
static void
wake(struct drive *d)
{
	struct cake_pkt	*p;
	uint64_t	 burst = 0;
	int		 f;

	top_up(d);
	while ((p = cake_dequeue_ahead(d->c, d->now_ns, d->horizon_ns)) !=
	    NULL) {
		f = ((struct h_pkt *)p)->flow;
		d->queued[f]--;
		d->bytes[f] += p->len;
		burst += p->len;
		h_free(p);
	}
	d->dropped += h_free_dropped(d->c);
	d->total += burst;
	if (burst > d->max_burst)
		d->max_burst = burst;
	d->wakeups++;
}

/* Wakes at each instant the engine names until dur_ns have passed. */
static void
drive_run(struct drive *d, uint64_t dur_ns)
{
	uint64_t	end = d->now_ns + dur_ns, next;

	while (d->now_ns < end) {
		wake(d);
		next = cake_next_ns(d->c, d->now_ns);
		assert_true(next != CAKE_TIME_NEVER);
		if (next <= d->now_ns + d->horizon_ns)
			d->next_within++;
		d->now_ns = next;
	}
}

static void
rate_exact_burst_bounded(uint64_t mbit, uint64_t horizon_ns)
{
	struct drive	d;
	char		kw[64];
	uint64_t	rate_Bps = mbit * 125000, want;
	double		ratio;

	(void)snprintf(kw, sizeof(kw), "bandwidth %llumbit rtt 10s",
	    (unsigned long long)mbit);
	drive_init(&d, kw, horizon_ns);
	drive_flow(&d, 0);
	drive_run(&d, 10 * S);
	want = rate_Bps * 10;
	ratio = (double)d.total / (double)want;
	print_message("%4llu Mbit, horizon %4llu us: %.5f of the rate, "
	    "%llu wakeups, largest burst %llu bytes (bound %llu)\n",
	    (unsigned long long)mbit,
	    (unsigned long long)(horizon_ns / US), ratio,
	    (unsigned long long)d.wakeups,
	    (unsigned long long)d.max_burst,
	    (unsigned long long)(horizon_ns * rate_Bps / S + MTU));
	assert_int_equal(d.dropped, 0);
	assert_true(ratio > 0.999 && ratio < 1.001);
	assert_true(d.max_burst <= horizon_ns * rate_Bps / S + MTU);
	assert_int_equal(d.next_within, 0);
	/* Batches: about one wakeup per horizon, not one per packet. */
	if (horizon_ns * rate_Bps / S >= 2 * MTU)
		assert_true(d.wakeups < d.total / MTU / 2);
	assert_int_equal(h_destroy(d.c), 0);
}

static void
rate_exact_at_10mbit(void **state)
{
	(void)state;
	rate_exact_burst_bounded(10, 0);
	rate_exact_burst_bounded(10, 250 * US);
	rate_exact_burst_bounded(10, 1 * MS);
}

static void
rate_exact_at_100mbit(void **state)
{
	(void)state;
	rate_exact_burst_bounded(100, 0);
	rate_exact_burst_bounded(100, 250 * US);
	rate_exact_burst_bounded(100, 1 * MS);
}

static void
rate_exact_at_1000mbit(void **state)
{
	(void)state;
	rate_exact_burst_bounded(1000, 0);
	rate_exact_burst_bounded(1000, 250 * US);
	rate_exact_burst_bounded(1000, 1 * MS);
}

/* Voice (EF) and best effort both backlogged: the split over 2 s. */
static double
voice_share(uint64_t horizon_ns)
{
	struct drive	d;
	double		share;

	drive_init(&d, "bandwidth 100mbit diffserv3 rtt 10s", horizon_ns);
	drive_flow(&d, 0);
	drive_flow(&d, 0xb8);
	drive_run(&d, 2 * S);
	share = (double)d.bytes[1] / (double)(d.bytes[0] + d.bytes[1]);
	assert_int_equal(d.dropped, 0);
	assert_int_equal(h_destroy(d.c), 0);
	return share;
}

static void
tins_share_as_without_horizon(void **state)
{
	double	base, ahead;

	(void)state;
	base = voice_share(0);
	ahead = voice_share(1 * MS);
	print_message("voice share: %.4f without a horizon, %.4f with "
	    "1 ms\n", base, ahead);
	/* Voice is held to its threshold (a quarter), not let through. */
	assert_true(base > 0.2 && base < 0.3);
	assert_true(ahead > base - 0.005 && ahead < base + 0.005);
}

/* A packet leaves at most the horizon before its departure. */
static void
never_earlier_than_the_horizon(void **state)
{
	struct drive	 d;
	struct cake_pkt	*p;
	uint64_t	 dur = 120 * US;	/* 1500 bytes at 100 Mbit */
	uint64_t	 n = 0;

	(void)state;
	drive_init(&d, "bandwidth 100mbit rtt 10s", 250 * US);
	drive_flow(&d, 0);
	top_up(&d);
	/* The first leaves at once; the k-th is due at T0 + k x dur. */
	while ((p = cake_dequeue_ahead(d.c, d.now_ns, d.horizon_ns)) != NULL) {
		assert_true(T0 + n * dur <= d.now_ns + d.horizon_ns);
		n++;
		h_free(p);
	}
	assert_int_equal(n, 3);		/* 0, 120 and 240 us */
	assert_true(cake_next_ns(d.c, d.now_ns) == T0 + 3 * dur);
	/* At T0 + 300 us, only the one due at 360 (and up to 550). */
	d.now_ns = T0 + 300 * US;
	n = 0;
	while ((p = cake_dequeue_ahead(d.c, d.now_ns, d.horizon_ns)) != NULL) {
		n++;
		h_free(p);
	}
	assert_int_equal(n, 2);		/* 360 and 480 us */
	assert_int_equal(h_destroy(d.c), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_exact_at_10mbit),
		cmocka_unit_test(rate_exact_at_100mbit),
		cmocka_unit_test(rate_exact_at_1000mbit),
		cmocka_unit_test(tins_share_as_without_horizon),
		cmocka_unit_test(never_earlier_than_the_horizon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
