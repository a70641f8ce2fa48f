/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_tins.c: the DiffServ tin tables (src/engine/tins.c, doc/cake.md
 * §4).
 *
 * The expected DSCP -> tin tables below are written out in full, 64
 * entries per mode, from doc/cake.md §4's table, not derived from
 * the code under test. Tins are numbered in the kernel's internal order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/tins.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Internal tin numbers: a higher one has priority (doc/cake.md §4). */
enum { D3_BE = 0, D3_BULK = 1, D3_VOICE = 2 };
enum { D4_BE = 0, D4_BULK = 1, D4_VIDEO = 2, D4_VOICE = 3 };

/*
 * diffserv3: Bulk = LE(1), CS1(8); Voice = TOS4(4), VA(44), EF(46),
 * CS6(48), CS7(56); everything else Best Effort.
 */
static const uint8_t ds3_expect[64] = {
	/*  0 */ D3_BE, D3_BULK, D3_BE, D3_BE, D3_VOICE, D3_BE, D3_BE, D3_BE,
	/*  8 */ D3_BULK, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
	/* 16 */ D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
	/* 24 */ D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
	/* 32 */ D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
	/* 40 */ D3_BE, D3_BE, D3_BE, D3_BE, D3_VOICE, D3_BE, D3_VOICE, D3_BE,
	/* 48 */ D3_VOICE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
	/* 56 */ D3_VOICE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE, D3_BE,
};

/*
 * diffserv4: Bulk = LE, CS1; Video = TOS4, CS2, AF2x, CS3, AF3x, AF4x;
 * Voice = CS4, CS5, VA, EF, CS6, CS7; else Best Effort.
 */
static const uint8_t ds4_expect[64] = {
	/*  0 */ D4_BE, D4_BULK, D4_BE, D4_BE, D4_VIDEO, D4_BE, D4_BE, D4_BE,
	/*  8 */ D4_BULK, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE,
	/* 16 */ D4_VIDEO, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO,
	    D4_BE,
	/* 24 */ D4_VIDEO, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO,
	    D4_BE,
	/* 32 */ D4_VOICE, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO, D4_BE, D4_VIDEO,
	    D4_BE,
	/* 40 */ D4_VOICE, D4_BE, D4_BE, D4_BE, D4_VOICE, D4_BE, D4_VOICE,
	    D4_BE,
	/* 48 */ D4_VOICE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE,
	/* 56 */ D4_VOICE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE, D4_BE,
};

/*
 * diffserv8: 0 LE; 1 TOS2, CS1, AF1x; 2 everything unlisted; 3 CS3, AF3x,
 * AF4x; 4 TOS4, AF2x; 5 CS2; 6 CS4, CS5, VA, EF; 7 CS6, CS7.
 */
static const uint8_t ds8_expect[64] = {
	/*  0 */ 2, 0, 1, 2, 4, 2, 2, 2,
	/*  8 */ 1, 2, 1, 2, 1, 2, 1, 2,
	/* 16 */ 5, 2, 4, 2, 4, 2, 4, 2,
	/* 24 */ 3, 2, 3, 2, 3, 2, 3, 2,
	/* 32 */ 6, 2, 3, 2, 3, 2, 3, 2,
	/* 40 */ 6, 2, 2, 2, 6, 2, 6, 2,
	/* 48 */ 7, 2, 2, 2, 2, 2, 2, 2,
	/* 56 */ 7, 2, 2, 2, 2, 2, 2, 2,
};

/* precedence: tin = DSCP >> 3, written out. */
static const uint8_t prec_expect[64] = {
	/*  0 */ 0, 0, 0, 0, 0, 0, 0, 0,
	/*  8 */ 1, 1, 1, 1, 1, 1, 1, 1,
	/* 16 */ 2, 2, 2, 2, 2, 2, 2, 2,
	/* 24 */ 3, 3, 3, 3, 3, 3, 3, 3,
	/* 32 */ 4, 4, 4, 4, 4, 4, 4, 4,
	/* 40 */ 5, 5, 5, 5, 5, 5, 5, 5,
	/* 48 */ 6, 6, 6, 6, 6, 6, 6, 6,
	/* 56 */ 7, 7, 7, 7, 7, 7, 7, 7,
};

/* besteffort: all zero. */
static const uint8_t be_expect[64];

static void
check_dscp_table(enum cake_diffserv mode, const uint8_t *expect)
{
	unsigned int	dscp, got;

	for (dscp = 0; dscp < 64; dscp++) {
		got = tins_from_dscp(mode, dscp);
		if (got != expect[dscp])
			fail_msg("mode %d DSCP %u: tin %u, expected %u",
			    (int)mode, dscp, got, expect[dscp]);
	}
}

static void
test_ds3_dscp_table_matches_reference(void **state)
{
	(void)state;
	check_dscp_table(CAKE_DIFFSERV3, ds3_expect);
}

static void
test_ds4_dscp_table_matches_reference(void **state)
{
	(void)state;
	check_dscp_table(CAKE_DIFFSERV4, ds4_expect);
}

static void
test_ds8_dscp_table_matches_reference(void **state)
{
	(void)state;
	check_dscp_table(CAKE_DIFFSERV8, ds8_expect);
}

static void
test_precedence_dscp_table_is_top_three_bits(void **state)
{
	(void)state;
	check_dscp_table(CAKE_PRECEDENCE, prec_expect);
}

static void
test_besteffort_maps_every_dscp_to_tin0(void **state)
{
	(void)state;
	check_dscp_table(CAKE_BESTEFFORT, be_expect);
}

/* Every mode's DSCP table stays inside the mode's tin count. */
static void
test_dscp_tins_within_tin_count(void **state)
{
	static const enum cake_diffserv	modes[] = { CAKE_DIFFSERV3,
	    CAKE_DIFFSERV4, CAKE_DIFFSERV8, CAKE_BESTEFFORT, CAKE_PRECEDENCE };
	size_t				m;
	unsigned int			dscp;

	(void)state;
	for (m = 0; m < NELEM(modes); m++)
		for (dscp = 0; dscp < 64; dscp++)
			assert_true(tins_from_dscp(modes[m], dscp) <
			    cake_tin_count(modes[m]));
}

static const struct {
	enum cake_diffserv	mode;
	unsigned int		count;
} count_cases[] = {
	{ CAKE_DIFFSERV3, 3 },
	{ CAKE_DIFFSERV4, 4 },
	{ CAKE_DIFFSERV8, 8 },
	{ CAKE_BESTEFFORT, 1 },
	{ CAKE_PRECEDENCE, 8 },
};

static void
test_tin_counts(void **state)
{
	struct tins_layout	l;
	size_t			i;

	(void)state;
	for (i = 0; i < NELEM(count_cases); i++) {
		assert_int_equal(cake_tin_count(count_cases[i].mode),
		    count_cases[i].count);
		tins_layout(count_cases[i].mode, 2500000, &l);
		assert_int_equal(l.count, count_cases[i].count);
	}
}

/* Display names, in display order, and the internal tin each one is. */
static const struct {
	enum cake_diffserv	mode;
	unsigned int		count;
	const char		*name[CAKE_MAX_TINS];
	uint8_t			internal[CAKE_MAX_TINS];
} display_cases[] = {
	{ CAKE_DIFFSERV3, 3, { "Bulk", "Best Effort", "Voice" },
	    { D3_BULK, D3_BE, D3_VOICE } },
	{ CAKE_DIFFSERV4, 4, { "Bulk", "Best Effort", "Video", "Voice" },
	    { D4_BULK, D4_BE, D4_VIDEO, D4_VOICE } },
	{ CAKE_DIFFSERV8, 8, { "Tin 0", "Tin 1", "Tin 2", "Tin 3", "Tin 4",
	    "Tin 5", "Tin 6", "Tin 7" }, { 0, 1, 2, 3, 4, 5, 6, 7 } },
	{ CAKE_PRECEDENCE, 8, { "Tin 0", "Tin 1", "Tin 2", "Tin 3", "Tin 4",
	    "Tin 5", "Tin 6", "Tin 7" }, { 0, 1, 2, 3, 4, 5, 6, 7 } },
	{ CAKE_BESTEFFORT, 1, { "Tin 0" }, { 0 } },
};

static void
test_display_names_in_display_order(void **state)
{
	size_t		i;
	unsigned int	d;

	(void)state;
	for (i = 0; i < NELEM(display_cases); i++) {
		for (d = 0; d < display_cases[i].count; d++) {
			const char *got = cake_tin_name(display_cases[i].mode,
			    d);

			assert_non_null(got);
			assert_string_equal(got, display_cases[i].name[d]);
		}
		assert_null(cake_tin_name(display_cases[i].mode,
		    display_cases[i].count));
		assert_null(cake_tin_name(display_cases[i].mode, 1000));
	}
}

static void
test_display_order_maps_to_internal_tins(void **state)
{
	struct tins_layout	l;
	size_t			i;
	unsigned int		d;

	(void)state;
	for (i = 0; i < NELEM(display_cases); i++) {
		tins_layout(display_cases[i].mode, 2500000, &l);
		for (d = 0; d < display_cases[i].count; d++)
			assert_int_equal(l.display[d],
			    display_cases[i].internal[d]);
	}
}

/*
 * Internal index is priority: ds3 Voice > Bulk > BE;
 * ds4 Voice > Video > Bulk > BE.
 */
static void
test_priority_order_follows_internal_index(void **state)
{
	struct tins_layout	l;

	(void)state;
	tins_layout(CAKE_DIFFSERV3, 0, &l);
	/* display 2 (Voice) > display 0 (Bulk) > display 1 (BE) */
	assert_true(l.display[2] > l.display[0]);
	assert_true(l.display[0] > l.display[1]);
	tins_layout(CAKE_DIFFSERV4, 0, &l);
	assert_true(l.display[3] > l.display[2]);
	assert_true(l.display[2] > l.display[0]);
	assert_true(l.display[0] > l.display[1]);
}

/* Threshold rates and weights at 20 Mbit = 2,500,000 B/s, internal order. */
static const struct {
	enum cake_diffserv	mode;
	uint64_t		rate_Bps[CAKE_MAX_TINS];
	uint16_t		weight[CAKE_MAX_TINS];
} layout_cases[] = {
	/* BE 1, Bulk 1/16, Voice 1/4 */
	{ CAKE_DIFFSERV3, { 2500000, 156250, 625000 }, { 1024, 64, 256 } },
	/* BE 1, Bulk 1/16, Video 1/2, Voice 1/4 */
	{ CAKE_DIFFSERV4, { 2500000, 156250, 1250000, 625000 },
	    { 1024, 64, 512, 256 } },
	/* x 7/8 per step, integer; weights 256 x 7/8 per step */
	{ CAKE_DIFFSERV8, { 2500000, 2187500, 1914062, 1674804, 1465453,
	    1282271, 1121987, 981738 },
	    { 256, 224, 196, 171, 149, 130, 113, 98 } },
	{ CAKE_PRECEDENCE, { 2500000, 2187500, 1914062, 1674804, 1465453,
	    1282271, 1121987, 981738 },
	    { 256, 224, 196, 171, 149, 130, 113, 98 } },
	{ CAKE_BESTEFFORT, { 2500000 }, { 65535 } },
};

static void
test_thresholds_and_weights_at_20mbit(void **state)
{
	struct tins_layout	l;
	size_t			i;
	unsigned int		t;

	(void)state;
	for (i = 0; i < NELEM(layout_cases); i++) {
		tins_layout(layout_cases[i].mode, 2500000, &l);
		for (t = 0; t < l.count; t++) {
			if (l.rate_Bps[t] != layout_cases[i].rate_Bps[t])
				fail_msg("mode %d tin %u: rate %llu, want %llu",
				    (int)layout_cases[i].mode, t,
				    (unsigned long long)l.rate_Bps[t],
				    (unsigned long long)
				    layout_cases[i].rate_Bps[t]);
			assert_int_equal(l.weight[t],
			    layout_cases[i].weight[t]);
		}
	}
}

/* ds8 thresholds: each exactly (previous * 7) >> 3, at several rates. */
static void
test_ds8_thresholds_step_seven_eighths(void **state)
{
	static const uint64_t	rates[] = { 64, 1000, 125000, 2500000,
	    12345679, 125000000, 1250000000ULL };
	struct tins_layout	l;
	size_t			i;
	unsigned int		t;
	uint64_t		want;

	(void)state;
	for (i = 0; i < NELEM(rates); i++) {
		tins_layout(CAKE_DIFFSERV8, rates[i], &l);
		want = rates[i];
		for (t = 0; t < 8; t++) {
			assert_true(l.rate_Bps[t] == want);
			want = want * 7 >> 3;
		}
		/* (7/8)^7 = 39.3% of the rate, less integer truncation. */
		assert_true(l.rate_Bps[7] <= rates[i] * 393 / 1000 + 1);
		assert_true(l.rate_Bps[7] + 8 >= rates[i] * 392 / 1000);
	}
}

/* Unlimited (rate 0): every threshold is 0, the weights still apply. */
static void
test_unlimited_layout_has_zero_thresholds(void **state)
{
	struct tins_layout	l;
	size_t			i;
	unsigned int		t;

	(void)state;
	for (i = 0; i < NELEM(layout_cases); i++) {
		tins_layout(layout_cases[i].mode, 0, &l);
		for (t = 0; t < l.count; t++) {
			assert_true(l.rate_Bps[t] == 0);
			assert_int_equal(l.weight[t],
			    layout_cases[i].weight[t]);
		}
		for (; t < CAKE_MAX_TINS; t++) {
			assert_true(l.rate_Bps[t] == 0);
			assert_int_equal(l.weight[t], 0);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_ds3_dscp_table_matches_reference),
		cmocka_unit_test(test_ds4_dscp_table_matches_reference),
		cmocka_unit_test(test_ds8_dscp_table_matches_reference),
		cmocka_unit_test(test_precedence_dscp_table_is_top_three_bits),
		cmocka_unit_test(test_besteffort_maps_every_dscp_to_tin0),
		cmocka_unit_test(test_dscp_tins_within_tin_count),
		cmocka_unit_test(test_tin_counts),
		cmocka_unit_test(test_display_names_in_display_order),
		cmocka_unit_test(test_display_order_maps_to_internal_tins),
		cmocka_unit_test(test_priority_order_follows_internal_index),
		cmocka_unit_test(test_thresholds_and_weights_at_20mbit),
		cmocka_unit_test(test_ds8_thresholds_step_seven_eighths),
		cmocka_unit_test(test_unlimited_layout_has_zero_thresholds),
	};

	return cmocka_run_group_tests_name("tins", tests, NULL, NULL);
}
