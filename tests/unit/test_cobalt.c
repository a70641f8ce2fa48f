/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_cobalt.c: COBALT, CoDel + BLUE (src/engine/cobalt.c, doc/cake.md
 * §5).
 *
 * The CoDel tests drive one flow through time in 1 us steps with a held
 * sojourn time and record when signals (drops or CE marks) happen; the
 * expected gaps, interval / sqrt(count), are computed in double math here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "engine/cobalt.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define US		1000ULL
#define MS		1000000ULL
#define SEC		1000000000ULL
#define STEP_NS		US		/* packet spacing in the simulations */
#define T0		SEC		/* simulations start at 1 s */
#define NO_BLUE		UINT32_MAX	/* rnd that never triggers BLUE */

/* 100 ms interval, 5 ms target, 1 ms MTU time (4 x mtu_time < target). */
static const struct cobalt_params params = {
	.interval_ns = 100 * MS,
	.target_ns = 5 * MS,
	.mtu_time_ns = 1 * MS,
	.p_inc = COBALT_P_INC,
	.p_dec = COBALT_P_DEC,
};

static double
ideal_inv_sqrt(uint32_t count)
{
	return 4294967296.0 / sqrt((double)count);
}

static void
assert_within_ns(uint64_t got, double want, double tol_ns)
{
	if (fabs((double)got - want) > tol_ns)
		fail_msg("got %llu ns, want %.1f +- %.0f",
		    (unsigned long long)got, want, tol_ns);
}

/* ---- inverse square root and control law ---------------------------- */

static void
test_inv_sqrt_table_for_count_0_to_15(void **state)
{
	/* doc/cake.md §5 */
	static const uint32_t	table[16] = {
		0xFFFFFFFF, 0xFFFFFFFF, 3037000500u, 2479700525u,
		2147483647u, 1920767767u, 1753413056u, 1623345051u,
		1518500250u, 1431655765u, 1358187914u, 1294981364u,
		1239850263u, 1191209601u, 1147878294u, 1108955788u,
	};
	uint32_t		c;

	(void)state;
	for (c = 0; c < 16; c++) {
		/* the table ignores the previous estimate */
		assert_int_equal(cobalt_inv_sqrt(c, 0), table[c]);
		assert_int_equal(cobalt_inv_sqrt(c, 12345), table[c]);
		if (c >= 1)
			assert_true(fabs(table[c] - ideal_inv_sqrt(c)) <= 1.0);
	}
}

/*
 * One Newton step per count change. Stepping from the exact value for
 * count - 1 leaves a relative error of about 1.5 / (2 count)^2: 0.163% at
 * count 16, under 0.1% from count 20 on (the kernel's method does the
 * same). The tolerance follows that.
 */
static double
newton_tolerance(uint32_t count)
{
	return count < 20 ? 0.002 : 0.001;
}

static void
test_inv_sqrt_newton_counting_up(void **state)
{
	uint32_t	c, inv = cobalt_inv_sqrt(15, 0);
	double		err;

	(void)state;
	for (c = 16; c <= 1000; c++) {
		inv = cobalt_inv_sqrt(c, inv);
		err = fabs(inv / ideal_inv_sqrt(c) - 1.0);
		if (err > newton_tolerance(c))
			fail_msg("count %u: inv %u, error %.5f%%", c, inv,
			    err * 100);
	}
	/* and it keeps converging: 0.01% by count 100 onwards */
	for (c = 1001; c <= 100000; c++)
		inv = cobalt_inv_sqrt(c, inv);
	assert_true(fabs(inv / ideal_inv_sqrt(100000) - 1.0) < 0.0001);
}

static void
test_inv_sqrt_newton_counting_down(void **state)
{
	uint32_t	c, inv = cobalt_inv_sqrt(15, 0);
	double		err;

	(void)state;
	for (c = 16; c <= 1000; c++)
		inv = cobalt_inv_sqrt(c, inv);
	for (c = 999; c >= 16; c--) {
		inv = cobalt_inv_sqrt(c, inv);
		err = fabs(inv / ideal_inv_sqrt(c) - 1.0);
		if (err > newton_tolerance(c))
			fail_msg("count %u: inv %u, error %.5f%%", c, inv,
			    err * 100);
	}
	/* back into the table */
	assert_int_equal(cobalt_inv_sqrt(15, inv), 1108955788u);
}

static void
test_control_is_t_plus_interval_over_sqrt_count(void **state)
{
	static const struct {
		uint64_t	t, interval;
		uint32_t	inv;
		uint64_t	want;
	} cases[] = {
		/* count 0/1: ~ one interval, 1 ns short */
		{ 1000, 100 * MS, 0xFFFFFFFF, 1000 + 100 * MS - 1 },
		/* count 4: (2^31 - 1) / 2^32 of 100 ms */
		{ 1000, 100 * MS, 2147483647u, 1000 + 50 * MS - 1 },
		{ 5 * SEC, 100 * MS, 0, 5 * SEC },
		{ 0, 0, 0xFFFFFFFF, 0 },
		/* interplanetary 1000 s: no 64-bit overflow */
		{ 0, 1000 * SEC, 0xFFFFFFFF, 999999999767ULL },
		{ 7, 1000 * SEC, 2147483647u, 7 + 499999999767ULL },
	};
	uint32_t	c, inv;
	size_t		i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++)
		assert_true(cobalt_control(cases[i].t, cases[i].interval,
		    cases[i].inv) == cases[i].want);
	/* count 1..1000 with the engine's own inv_sqrt chain */
	inv = 0;
	for (c = 1; c <= 1000; c++) {
		inv = cobalt_inv_sqrt(c, inv);
		assert_within_ns(cobalt_control(3 * SEC, 100 * MS, inv),
		    3e9 + 1e8 / sqrt(c), 1e8 / sqrt(c) * newton_tolerance(c) +
		    1);
	}
}

/* ---- CoDel ---------------------------------------------------------- */

struct sim {
	struct cobalt_vars	v;
	uint64_t		now;
	uint64_t		sig[64];	/* times of signals */
	size_t			nsig;
	size_t			drops, marks, blue;
};

static void
sim_init(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	cobalt_vars_init(&s->v);
	s->now = T0;
}

/* One packet at s->now, then advance the clock by STEP_NS. */
static enum cobalt_verdict
sim_packet(struct sim *s, uint64_t sojourn, bool ect)
{
	enum cobalt_verdict	vd;

	vd = cobalt_should_drop(&s->v, &params, s->now, sojourn, 0, ect,
	    NO_BLUE);
	switch (vd) {
	case COBALT_PASS:
		assert_false(s->v.ecn_marked);
		break;
	case COBALT_MARK:
		assert_true(ect);
		assert_true(s->v.ecn_marked);
		s->marks++;
		break;
	case COBALT_DROP_CODEL:
		assert_false(ect);
		s->drops++;
		break;
	case COBALT_DROP_BLUE:
		s->blue++;
		break;
	}
	if (vd == COBALT_MARK || vd == COBALT_DROP_CODEL) {
		if (s->nsig < NELEM(s->sig))
			s->sig[s->nsig] = s->now;
		s->nsig++;
	}
	s->now += STEP_NS;
	return vd;
}

/* Runs packets until nsig signals have happened (or time runs out). */
static void
sim_until_signals(struct sim *s, size_t nsig, uint64_t sojourn, bool ect)
{
	uint64_t	end = s->now + 10 * SEC;

	while (s->nsig < nsig && s->now < end)
		sim_packet(s, sojourn, ect);
	assert_int_equal(s->nsig, nsig);
}

static void
test_no_signal_below_target(void **state)
{
	struct sim	s;
	uint64_t	rnd = 88172645463325252ULL;
	uint32_t	i;

	(void)state;
	sim_init(&s);
	for (i = 0; i < 100000; i++) {
		/* xorshift64: sojourn anywhere in [0, target] */
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		s.now += rnd % (200 * US);
		assert_int_equal(sim_packet(&s, rnd % (params.target_ns + 1),
		    (i & 1) != 0), COBALT_PASS);
		assert_int_equal(s.v.count, 0);
		assert_false(s.v.dropping);
	}
	assert_int_equal(s.nsig, 0);
}

/*
 * Sojourn held over target from T0: the first signal comes one interval
 * later, then the gap after the signal that raised count to c is
 * interval / sqrt(c).
 */
static void
check_signal_schedule(bool ect)
{
	struct sim	s;
	uint64_t	prev = T0;
	uint32_t	c;

	sim_init(&s);
	sim_until_signals(&s, 10, 20 * MS, ect);
	for (c = 1; c <= 10; c++) {
		assert_within_ns(s.sig[c - 1] - prev,
		    (double)params.interval_ns / sqrt(c), (double)US);
		prev = s.sig[c - 1];
	}
	assert_int_equal(s.v.count, 11);
	assert_true(s.v.dropping);
	if (ect) {
		assert_int_equal(s.marks, 10);
		assert_int_equal(s.drops, 0);
	} else {
		assert_int_equal(s.drops, 10);
		assert_int_equal(s.marks, 0);
	}
	assert_int_equal(s.blue, 0);
}

static void
test_signal_schedule_drops(void **state)
{
	(void)state;
	check_signal_schedule(false);
}

static void
test_signal_schedule_marks_ect(void **state)
{
	(void)state;
	check_signal_schedule(true);
}

/* The first over-target packet itself passes and starts the state. */
static void
test_first_over_target_packet_passes(void **state)
{
	struct sim	s;

	(void)state;
	sim_init(&s);
	assert_int_equal(sim_packet(&s, 20 * MS, false), COBALT_PASS);
	assert_true(s.v.dropping);
	assert_int_equal(s.v.count, 1);
	assert_within_ns(s.v.drop_next_ns, (double)(T0 + params.interval_ns),
	    1);
}

/*
 * After leaving the over-target state with count 6, no more signals; count
 * decays by one at drop_next, then after each further interval/sqrt(count).
 */
static void
test_leaving_target_stops_signals_and_decays_count(void **state)
{
	struct sim	s;
	uint64_t	dec[6], end, next;
	uint32_t	last;
	size_t		n = 0;

	(void)state;
	sim_init(&s);
	sim_until_signals(&s, 5, 20 * MS, false);
	assert_int_equal(s.v.count, 6);
	next = s.v.drop_next_ns;
	last = s.v.count;
	end = s.now + 10 * SEC;
	while (s.now < end && s.v.count > 0) {
		sim_packet(&s, 1 * MS, false);
		assert_false(s.v.dropping);
		if (s.v.count != last) {
			assert_int_equal(s.v.count, last - 1);
			dec[n++] = s.now - STEP_NS;
			last = s.v.count;
		}
	}
	assert_int_equal(s.nsig, 5);
	assert_int_equal(n, 6);
	assert_within_ns(dec[0], (double)next, (double)US);
	for (n = 1; n < 6; n++)
		assert_within_ns(dec[n] - dec[n - 1],
		    (double)params.interval_ns / sqrt(6.0 - (double)n),
		    (double)US);
	/* count 0: drop_next is the activity timeout, now + interval */
	assert_true(s.v.drop_next_ns == dec[5] + params.interval_ns);
}

/* A long gap decays several steps in one call, exactly as many as fit. */
static void
test_idle_gap_decays_elapsed_steps_at_once(void **state)
{
	static const struct {
		double		intervals;	/* after drop_next */
		uint32_t	count;		/* expected count afterwards */
	} cases[] = {
		{ 0.0, 5 },
		{ 1 / sqrt(5.0), 4 },
		{ 1 / sqrt(5.0) + 1 / sqrt(4.0), 3 },
		{ 1 / sqrt(5.0) + 1 / sqrt(4.0) + 1 / sqrt(3.0), 2 },
		{ 10.0, 0 },
	};
	struct sim	base, s;
	uint64_t	d;
	size_t		i;

	(void)state;
	sim_init(&base);
	sim_until_signals(&base, 5, 20 * MS, false);
	sim_packet(&base, 1 * MS, false);	/* leave the state */
	assert_int_equal(base.v.count, 6);
	d = base.v.drop_next_ns;
	for (i = 0; i < NELEM(cases); i++) {
		s = base;
		/* 10 us past the due time, well inside the next step */
		s.now = d + (uint64_t)(cases[i].intervals *
		    (double)params.interval_ns) + 10 * US;
		assert_int_equal(sim_packet(&s, 1 * MS, false), COBALT_PASS);
		assert_int_equal(s.v.count, cases[i].count);
	}
}

/* Re-entering with a residual count gives a quicker first signal. */
static void
test_reentry_with_residual_count_signals_sooner(void **state)
{
	struct sim	s;
	uint64_t	r;

	(void)state;
	sim_init(&s);
	sim_until_signals(&s, 5, 20 * MS, false);
	sim_packet(&s, 1 * MS, false);
	assert_false(s.v.dropping);
	assert_int_equal(s.v.count, 6);
	r = s.now;
	sim_until_signals(&s, 6, 20 * MS, false);
	assert_within_ns(s.sig[5] - r,
	    (double)params.interval_ns / sqrt(6.0), (double)US);
}

/*
 * Over target means sojourn > target, > 4 mtu_time and (ingress) >
 * 2 mtu_time bulk_flows; all strict.
 */
static void
test_over_target_conditions(void **state)
{
	static const struct {
		uint64_t	mtu_time, sojourn;
		uint32_t	bulk;
		bool		over;
	} cases[] = {
		{ 1 * MS, 5 * MS, 0, false },		/* == target */
		{ 1 * MS, 5 * MS + 1, 0, true },
		{ 0, 5 * MS + 1, 1000, true },		/* unlimited */
		{ 2 * MS, 6 * MS, 0, false },		/* < 4 mtu_time */
		{ 2 * MS, 8 * MS, 0, false },		/* == 4 mtu_time */
		{ 2 * MS, 8 * MS + 1, 0, true },
		{ 1 * MS, 6 * MS, 2, true },		/* 2*1*2 = 4 ms */
		{ 1 * MS, 6 * MS, 4, false },		/* 2*1*4 = 8 ms */
		{ 1 * MS, 8 * MS, 4, false },
		{ 1 * MS, 8 * MS + 1, 4, true },
		{ 1 * MS, 99 * MS, 50, false },		/* 100 ms */
		{ 1 * MS, 101 * MS, 50, true },
	};
	struct cobalt_params	p = params;
	struct cobalt_vars	v;
	size_t			i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		p.mtu_time_ns = cases[i].mtu_time;
		cobalt_vars_init(&v);
		assert_int_equal(cobalt_should_drop(&v, &p, T0,
		    cases[i].sojourn, cases[i].bulk, false, NO_BLUE),
		    COBALT_PASS);
		if (v.dropping != cases[i].over)
			fail_msg("case %zu: dropping %d, want %d", i,
			    v.dropping, cases[i].over);
		assert_int_equal(v.count, cases[i].over ? 1 : 0);
	}
}

/* ---- BLUE ----------------------------------------------------------- */

static void
test_blue_queue_full_raises_once_per_target(void **state)
{
	struct cobalt_vars	v;
	uint32_t		k, ups = 0;

	(void)state;
	cobalt_vars_init(&v);
	assert_true(cobalt_queue_full(&v, &params, T0));
	assert_int_equal(v.p_drop, COBALT_P_INC);
	assert_false(cobalt_queue_full(&v, &params, T0 + 1 * MS));
	assert_false(cobalt_queue_full(&v, &params, T0 + 5 * MS));
	assert_int_equal(v.p_drop, COBALT_P_INC);
	assert_false(cobalt_queue_full(&v, &params, T0 + 5 * MS + 1));
	assert_int_equal(v.p_drop, 2 * COBALT_P_INC);

	/* one overflow per ms for a second: a raise every 6 ms */
	cobalt_vars_init(&v);
	for (k = 0; k < 1000; k++)
		ups += cobalt_queue_full(&v, &params, T0 + k * MS);
	assert_int_equal(ups, 1);
	assert_int_equal(v.p_drop, 167 * COBALT_P_INC);
}

/* queue_full also arms CoDel so the next over-target packet is signalled. */
static void
test_blue_queue_full_arms_codel(void **state)
{
	struct cobalt_vars	v;

	(void)state;
	cobalt_vars_init(&v);
	cobalt_queue_full(&v, &params, T0);
	assert_true(v.dropping);
	assert_true(v.drop_next_ns == T0);
	assert_int_equal(v.count, 1);
	assert_int_equal(cobalt_should_drop(&v, &params, T0 + 1, 20 * MS, 0,
	    false, NO_BLUE), COBALT_DROP_CODEL);
	assert_int_equal(v.count, 2);

	/* below target instead: no signal, and the count decays */
	cobalt_vars_init(&v);
	cobalt_queue_full(&v, &params, T0);
	assert_int_equal(cobalt_should_drop(&v, &params, T0 + 1, 1 * MS, 0,
	    false, NO_BLUE), COBALT_PASS);
	assert_false(v.dropping);
	assert_int_equal(v.count, 0);
}

static void
test_blue_queue_empty_lowers_to_zero(void **state)
{
	struct cobalt_vars	v;
	uint32_t		k, downs = 0, steps = 0, prev;
	uint64_t		t;

	(void)state;
	cobalt_vars_init(&v);
	/* p_drop 0: nothing to lower, nothing reported */
	assert_false(cobalt_queue_empty(&v, &params, T0));
	assert_true(v.blue_timer_ns == 0);

	cobalt_queue_full(&v, &params, T0);	/* 1/256 = 16/4096 */
	prev = v.p_drop;
	for (k = 1; k <= 200; k++) {
		t = T0 + k * MS;
		if (cobalt_queue_empty(&v, &params, t)) {
			downs++;
			assert_int_equal(v.p_drop, 0);
		}
		if (v.p_drop != prev) {
			assert_int_equal(prev - v.p_drop, COBALT_P_DEC);
			steps++;
			prev = v.p_drop;
		}
		assert_false(v.dropping);
	}
	/* a step each 6 ms: 16 steps by 96 ms, reported zero once */
	assert_int_equal(steps, 16);
	assert_int_equal(downs, 1);
	assert_int_equal(v.p_drop, 0);

	/* below one step: floors at 0 */
	cobalt_vars_init(&v);
	v.p_drop = COBALT_P_DEC - 1;
	assert_true(cobalt_queue_empty(&v, &params, T0));
	assert_int_equal(v.p_drop, 0);
}

static void
test_queue_empty_decays_count_one_step(void **state)
{
	struct sim	s;
	uint64_t	d;

	(void)state;
	sim_init(&s);
	sim_until_signals(&s, 2, 20 * MS, false);
	assert_int_equal(s.v.count, 3);
	d = s.v.drop_next_ns;
	/* not due yet: nothing changes but dropping */
	cobalt_queue_empty(&s.v, &params, d - 1);
	assert_false(s.v.dropping);
	assert_int_equal(s.v.count, 3);
	/* due, even long overdue: one step per call */
	cobalt_queue_empty(&s.v, &params, d + 10 * SEC);
	assert_int_equal(s.v.count, 2);
	assert_within_ns(s.v.drop_next_ns,
	    (double)d + (double)params.interval_ns / sqrt(2.0), 1);
}

/* p_drop/2^32 chance of DROP_BLUE; never a mark, even for ECT packets. */
static void
test_blue_drops_with_probability_never_marks(void **state)
{
	struct cobalt_vars	v;
	enum cobalt_verdict	vd;
	uint32_t		i, blue = 0;

	(void)state;
	cobalt_vars_init(&v);
	cobalt_queue_full(&v, &params, T0);
	cobalt_queue_full(&v, &params, T0 + 6 * MS);
	cobalt_queue_full(&v, &params, T0 + 12 * MS);
	assert_int_equal(v.p_drop, 3 * COBALT_P_INC);
	/* below target: only BLUE can act; sweep rnd evenly */
	for (i = 0; i < 4096; i++) {
		vd = cobalt_should_drop(&v, &params, T0 + 20 * MS + i, 1 * MS,
		    0, true, i << 20);
		assert_true(vd == COBALT_PASS || vd == COBALT_DROP_BLUE);
		assert_false(v.ecn_marked);
		blue += vd == COBALT_DROP_BLUE;
		assert_int_equal(vd == COBALT_DROP_BLUE,
		    (i << 20) < v.p_drop);
	}
	/* 3/256 of 4096 */
	assert_int_equal(blue, 48);
}

/* A CoDel mark that is due does not shield an ECT packet from BLUE. */
static void
test_blue_overrides_codel_mark(void **state)
{
	struct sim	s;
	uint64_t	d;

	(void)state;
	sim_init(&s);
	sim_until_signals(&s, 1, 20 * MS, true);
	s.v.p_drop = COBALT_P_INC;
	d = s.v.drop_next_ns;
	assert_int_equal(cobalt_should_drop(&s.v, &params, d, 20 * MS, 0,
	    true, 0), COBALT_DROP_BLUE);
	assert_int_equal(s.v.count, 3);		/* CoDel still counted it */
	/* a CoDel drop stays a CoDel drop */
	d = s.v.drop_next_ns;
	assert_int_equal(cobalt_should_drop(&s.v, &params, d, 20 * MS, 0,
	    false, 0), COBALT_DROP_CODEL);
}

static void
test_blue_p_drop_saturates(void **state)
{
	struct cobalt_vars	v;
	uint32_t		k;

	(void)state;
	cobalt_vars_init(&v);
	for (k = 0; k < 300; k++) {
		cobalt_queue_full(&v, &params, T0 + k * 6 * MS);
		if (k < 255)
			assert_int_equal(v.p_drop, (k + 1) * COBALT_P_INC);
		else
			assert_int_equal(v.p_drop, UINT32_MAX);
	}
	assert_int_equal(cobalt_should_drop(&v, &params, T0 + 2 * SEC, 0, 0,
	    false, UINT32_MAX - 1), COBALT_DROP_BLUE);
	assert_int_equal(cobalt_should_drop(&v, &params, T0 + 2 * SEC, 0, 0,
	    false, UINT32_MAX), COBALT_PASS);
	assert_false(cobalt_queue_empty(&v, &params, T0 + 3 * SEC));
	assert_int_equal(v.p_drop, UINT32_MAX - COBALT_P_DEC);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_inv_sqrt_table_for_count_0_to_15),
		cmocka_unit_test(test_inv_sqrt_newton_counting_up),
		cmocka_unit_test(test_inv_sqrt_newton_counting_down),
		cmocka_unit_test(
		    test_control_is_t_plus_interval_over_sqrt_count),
		cmocka_unit_test(test_no_signal_below_target),
		cmocka_unit_test(test_signal_schedule_drops),
		cmocka_unit_test(test_signal_schedule_marks_ect),
		cmocka_unit_test(test_first_over_target_packet_passes),
		cmocka_unit_test(
		    test_leaving_target_stops_signals_and_decays_count),
		cmocka_unit_test(test_idle_gap_decays_elapsed_steps_at_once),
		cmocka_unit_test(
		    test_reentry_with_residual_count_signals_sooner),
		cmocka_unit_test(test_over_target_conditions),
		cmocka_unit_test(test_blue_queue_full_raises_once_per_target),
		cmocka_unit_test(test_blue_queue_full_arms_codel),
		cmocka_unit_test(test_blue_queue_empty_lowers_to_zero),
		cmocka_unit_test(test_queue_empty_decays_count_one_step),
		cmocka_unit_test(test_blue_drops_with_probability_never_marks),
		cmocka_unit_test(test_blue_overrides_codel_mark),
		cmocka_unit_test(test_blue_p_drop_saturates),
	};

	return cmocka_run_group_tests_name("cobalt", tests, NULL, NULL);
}
