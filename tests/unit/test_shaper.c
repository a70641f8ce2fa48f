/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_shaper.c: the shaper's rate and length arithmetic
 * (src/engine/shaper.c, doc/cake.md §2).
 *
 * Durations are checked two ways: exact values of the fixed-point formula
 * ((len * rate_ns) >> shift, rate_ns = (1e9 << 34) / rate, normalised
 * below 2^34), worked out separately, and closeness to len / rate in
 * double arithmetic. Adjusted lengths are worked out by hand in the
 * tables below for each framing preset of doc/cake.md §1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/shaper.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define ETH_HLEN	14

static uint64_t
dur(uint64_t rate_Bps, uint64_t len)
{
	struct shaper_rate	r;

	shaper_rate_set(&r, rate_Bps);
	return shaper_duration_ns(&r, len);
}

/* |got - want| <= want * ppm / 1e6, with want from double math. */
static void
assert_close_ppm(uint64_t got, double want, double ppm)
{
	double	diff = (double)got - want;

	if (diff < 0)
		diff = -diff;
	if (diff > want * ppm / 1e6 + 1.0)
		fail_msg("got %llu, want %.3f (+-%.0f ppm)",
		    (unsigned long long)got, want, ppm);
}

static void
test_duration_1514_at_20mbit(void **state)
{
	uint64_t	d = dur(20000000 / 8, 1514);

	(void)state;
	/* 400 ns per byte: 1514 * 400 = 605600 ns, within 0.1% */
	assert_close_ppm(d, 605600.0, 1000);
	/* and in fact exact: 400 is a power-of-two multiple away from 2^34 */
	assert_true(d == 605600);
}

static void
test_duration_1514_at_1gbit(void **state)
{
	(void)state;
	/* 8 ns per byte */
	assert_true(dur(1000000000 / 8, 1514) == 12112);
	assert_true(dur(1000000000 / 8, 64) == 512);
}

/* Rates under 64 B/s are clamped to 64 B/s (15.625 ms per byte). */
static void
test_duration_minimum_rate_clamps_to_64Bps(void **state)
{
	static const uint64_t	slow[] = { 1, 2, 8, 63, 64 };
	size_t			i;

	(void)state;
	for (i = 0; i < NELEM(slow); i++) {
		assert_true(dur(slow[i], 1) == 15625000);
		assert_true(dur(slow[i], 1514) == 1514ULL * 15625000);
	}
	/* 65 B/s is no longer clamped */
	assert_true(dur(65, 1) < 15625000);
	assert_close_ppm(dur(65, 1000), 1000 * 1e9 / 65, 10);
}

static void
test_unlimited_rate_has_zero_duration(void **state)
{
	struct shaper_rate	r;

	(void)state;
	shaper_rate_set(&r, 0);
	assert_true(r.ns == 0);
	assert_true(shaper_duration_ns(&r, 0) == 0);
	assert_true(shaper_duration_ns(&r, 1514) == 0);
	assert_true(shaper_duration_ns(&r, 65536) == 0);
}

/* Exact durations (fixed-point formula worked out separately). */
static const struct {
	uint64_t	rate_Bps;
	uint64_t	len;
	uint64_t	ns;
} dur_cases[] = {
	{ 2500000, 1514, 605600 },		/* 20 Mbit */
	{ 125000000, 1514, 12112 },		/* 1 Gbit */
	{ 125000, 1514, 12112000 },		/* 1 Mbit: mtu_time 12.1 ms */
	{ 1000000, 1, 1000 },
	{ 12345678, 1514, 122634 },		/* 122634.01 */
	{ 3000000, 1500, 499999 },		/* 500000 - truncation */
	{ 1250000000, 64, 51 },			/* 10 Gbit: 51.2, truncated */
	{ 7, 100, 1562500000 },			/* clamped to 64 B/s */
	{ 2500000, 0, 0 },
};

static void
test_duration_exact_table(void **state)
{
	size_t		i;
	uint64_t	got;

	(void)state;
	for (i = 0; i < NELEM(dur_cases); i++) {
		got = dur(dur_cases[i].rate_Bps, dur_cases[i].len);
		if (got != dur_cases[i].ns)
			fail_msg("rate %llu len %llu: %llu ns, want %llu",
			    (unsigned long long)dur_cases[i].rate_Bps,
			    (unsigned long long)dur_cases[i].len,
			    (unsigned long long)got,
			    (unsigned long long)dur_cases[i].ns);
	}
}

/*
 * Across rates from 64 B/s to 40 Gbit and sizes from 1 byte to 64 KB the
 * duration is within 1 ns + 10 ppm of len / rate (rate_ns keeps at least
 * 33 significant bits), and the fixed point is normalised.
 */
static void
test_duration_close_to_exact_over_range(void **state)
{
	static const uint64_t	lens[] = { 1, 40, 64, 576, 1500, 1514,
	    9000, 65535 };
	struct shaper_rate	r;
	uint64_t		rate;
	size_t			i;

	(void)state;
	for (rate = 64; rate <= 5000000000ULL; rate = rate * 3 + 7) {
		shaper_rate_set(&r, rate);
		assert_true(r.ns < (1ULL << 34));
		assert_true(r.shift == 34 || r.ns >= (1ULL << 33));
		for (i = 0; i < NELEM(lens); i++)
			assert_close_ppm(shaper_duration_ns(&r, lens[i]),
			    (double)lens[i] * 1e9 / (double)rate, 10);
	}
}

/* Packet release times: the running sum of durations over a second. */
static void
test_release_times_over_one_second(void **state)
{
	static const struct {
		uint64_t	rate_Bps;
		uint32_t	len;
		uint32_t	pkts;
	} cases[] = {
		{ 2500000, 1514, 1651 },
		{ 125000000, 1514, 82562 },
		{ 12345678, 1000, 12345 },
		{ 125000, 64, 1953 },
	};
	struct shaper_rate	r;
	double			ideal;
	uint64_t		t;
	size_t			i;
	uint32_t		k;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		shaper_rate_set(&r, cases[i].rate_Bps);
		t = 0;
		for (k = 1; k <= cases[i].pkts; k++) {
			t += shaper_duration_ns(&r, cases[i].len);
			/* truncation costs under 1 ns per packet, never more */
			ideal = (double)k * cases[i].len * 1e9 /
			    (double)cases[i].rate_Bps;
			assert_true((double)t <= ideal + 1e-6);
			assert_true((double)t + (double)k >= ideal);
		}
		/* about one second in all */
		assert_true(t <= 1000000000ULL);
		assert_true(t > 999000000ULL);
	}
}

/* Large lengths (a huge GSO burst) do not overflow at the slowest rate. */
static void
test_duration_large_length_no_overflow(void **state)
{
	(void)state;
	assert_true(dur(64, 1ULL << 32) == (1ULL << 32) * 15625000ULL);
	assert_true(dur(2500000, 1ULL << 40) == (1ULL << 40) * 400ULL);
}

/* ---- adjusted length ----------------------------------------------- */

struct adj_case {
	const char		*name;
	bool			compensate;
	int32_t			overhead;
	uint32_t		mpu;
	enum cake_atm		atm;
	uint32_t		len;		/* as seen, with L2 header */
	uint32_t		net_off;
	uint32_t		adj;		/* expected, by hand */
};

static void
run_adj_cases(const struct adj_case *c, size_t n)
{
	struct shaper_framing	f;
	size_t			i;
	uint32_t		got;

	for (i = 0; i < n; i++) {
		f.compensate = c[i].compensate;
		f.overhead = c[i].overhead;
		f.mpu = c[i].mpu;
		f.atm = c[i].atm;
		got = shaper_adjust(&f, c[i].len, c[i].net_off);
		if (got != c[i].adj)
			fail_msg("%s: len %u -> %u, want %u", c[i].name,
			    c[i].len, got, c[i].adj);
	}
}

static void
test_atm_cells_of_48_bytes_cost_53(void **state)
{
	static const struct adj_case	cases[] = {
		{ "atm 0", true, 0, 0, CAKE_ATM_ATM, 0, 0, 0 },
		{ "atm 1", true, 0, 0, CAKE_ATM_ATM, 1, 0, 53 },
		{ "atm 47", true, 0, 0, CAKE_ATM_ATM, 47, 0, 53 },
		{ "atm 48", true, 0, 0, CAKE_ATM_ATM, 48, 0, 53 },
		{ "atm 49", true, 0, 0, CAKE_ATM_ATM, 49, 0, 106 },
		{ "atm 96", true, 0, 0, CAKE_ATM_ATM, 96, 0, 106 },
		{ "atm 97", true, 0, 0, CAKE_ATM_ATM, 97, 0, 159 },
		/* 1500 / 48 = 31.25 -> 32 cells */
		{ "atm 1500", true, 0, 0, CAKE_ATM_ATM, 1500, 0, 1696 },
		/* Ethernet frame: 14 removed first, 1500 -> 32 cells */
		{ "atm eth 1514", true, 0, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

static void
test_ptm_adds_one_byte_per_64(void **state)
{
	static const struct adj_case	cases[] = {
		{ "ptm 0", true, 0, 0, CAKE_ATM_PTM, 0, 0, 0 },
		{ "ptm 1", true, 0, 0, CAKE_ATM_PTM, 1, 0, 2 },
		{ "ptm 64", true, 0, 0, CAKE_ATM_PTM, 64, 0, 65 },
		{ "ptm 65", true, 0, 0, CAKE_ATM_PTM, 65, 0, 67 },
		{ "ptm 128", true, 0, 0, CAKE_ATM_PTM, 128, 0, 130 },
		{ "ptm 129", true, 0, 0, CAKE_ATM_PTM, 129, 0, 132 },
		/* 1500 / 64 = 23.4 -> 24 */
		{ "ptm 1500", true, 0, 0, CAKE_ATM_PTM, 1500, 0, 1524 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

static void
test_raw_charges_whole_frame(void **state)
{
	static const struct adj_case	cases[] = {
		{ "raw eth", false, 0, 0, CAKE_ATM_NONE, 1514, 14, 1514 },
		{ "raw tun", false, 0, 0, CAKE_ATM_NONE, 1500, 0, 1500 },
		{ "raw small", false, 0, 0, CAKE_ATM_NONE, 60, 14, 60 },
		/* keywords after raw add to the full frame */
		{ "raw +4", false, 4, 0, CAKE_ATM_NONE, 1514, 14, 1518 },
		/* 1514 / 48 = 31.5 -> 32 cells */
		{ "raw atm", false, 0, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		/* 1500 + 14 + 48 = 1562 -> 33 cells */
		{ "raw conservative", false, 48, 0, CAKE_ATM_ATM, 1514, 14,
		    1749 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

static void
test_compensation_subtracts_network_offset(void **state)
{
	static const struct adj_case	cases[] = {
		{ "eth", true, 0, 0, CAKE_ATM_NONE, 1514, 14, 1500 },
		{ "vlan", true, 0, 0, CAKE_ATM_NONE, 1518, 18, 1500 },
		{ "tun", true, 0, 0, CAKE_ATM_NONE, 1500, 0, 1500 },
		{ "eth ack", true, 0, 0, CAKE_ATM_NONE, 54, 14, 40 },
		{ "eth +38", true, 38, 0, CAKE_ATM_NONE, 1514, 14, 1538 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

static void
test_negative_overhead_and_mpu(void **state)
{
	static const struct adj_case	cases[] = {
		{ "-14", true, -14, 0, CAKE_ATM_NONE, 1500, 0, 1486 },
		{ "-64 big", true, -64, 0, CAKE_ATM_NONE, 1514, 14, 1436 },
		/* below zero is clamped at 0 (the kernel's u32 would wrap) */
		{ "-64 small", true, -64, 0, CAKE_ATM_NONE, 54, 14, 0 },
		{ "-64 to mpu", true, -64, 64, CAKE_ATM_NONE, 54, 14, 64 },
		{ "mpu raises", true, 0, 64, CAKE_ATM_NONE, 54, 14, 64 },
		{ "mpu no-op", true, 0, 64, CAKE_ATM_NONE, 1514, 14, 1500 },
		{ "mpu exact", true, 0, 64, CAKE_ATM_NONE, 78, 14, 64 },
		/* mpu is applied after overhead, before cells: 96 -> 2 cells */
		{ "mpu atm", true, 0, 96, CAKE_ATM_ATM, 54, 14, 106 },
		{ "mpu ptm", true, 0, 64, CAKE_ATM_PTM, 54, 14, 65 },
		{ "max ovh", true, 256, 0, CAKE_ATM_NONE, 1514, 14, 1756 },
		{ "max mpu", true, 0, 256, CAKE_ATM_NONE, 1514, 14, 1500 },
		{ "max mpu small", true, 0, 256, CAKE_ATM_NONE, 54, 14, 256 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

/*
 * Framing presets (doc/cake.md §1) on an Ethernet frame carrying a
 * 1500-byte IP packet (len 1514, net_off 14). ATM: ceil(n/48) * 53;
 * PTM: n + ceil(n/64).
 */
static void
test_framing_presets_on_1500_byte_ip(void **state)
{
	static const struct adj_case	cases[] = {
		/* 1548 -> 33 cells */
		{ "conservative", true, 48, 0, CAKE_ATM_ATM, 1514, 14, 1749 },
		/* 1508 / 1516 / 1524 / 1532 / 1510 / 1514 -> 32 cells */
		{ "ipoa-vcmux", true, 8, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		{ "ipoa-llcsnap", true, 16, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		{ "bridged-vcmux", true, 24, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		{ "bridged-llcsnap", true, 32, 0, CAKE_ATM_ATM, 1514, 14,
		    1696 },
		{ "pppoa-vcmux", true, 10, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		{ "pppoa-llc", true, 14, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		{ "pppoe-vcmux", true, 32, 0, CAKE_ATM_ATM, 1514, 14, 1696 },
		/* 1540 -> 33 cells */
		{ "pppoe-llcsnap", true, 40, 0, CAKE_ATM_ATM, 1514, 14, 1749 },
		/* 1530 + 24 */
		{ "pppoe-ptm", true, 30, 0, CAKE_ATM_PTM, 1514, 14, 1554 },
		/* 1522 + 24 */
		{ "bridged-ptm", true, 22, 0, CAKE_ATM_PTM, 1514, 14, 1546 },
		{ "ethernet", true, 38, 84, CAKE_ATM_NONE, 1514, 14, 1538 },
		{ "ethernet ether-vlan", true, 42, 84, CAKE_ATM_NONE, 1514, 14,
		    1542 },
		{ "docsis", true, 18, 64, CAKE_ATM_NONE, 1514, 14, 1518 },
		/* same IP packet arriving on a TUN device: no L2 header */
		{ "ethernet on tun", true, 38, 84, CAKE_ATM_NONE, 1500, 0,
		    1538 },
		{ "pppoe-ptm on tun", true, 30, 0, CAKE_ATM_PTM, 1500, 0,
		    1554 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

/* Small packets: a 40-byte TCP ACK is raised to the preset's mpu. */
static void
test_framing_presets_on_40_byte_ack(void **state)
{
	static const struct adj_case	cases[] = {
		/* 40 + 38 = 78 -> mpu 84 */
		{ "ethernet", true, 38, 84, CAKE_ATM_NONE, 54, 14, 84 },
		/* 40 + 18 = 58 -> mpu 64 */
		{ "docsis", true, 18, 64, CAKE_ATM_NONE, 54, 14, 64 },
		/* 40 + 48 = 88 -> 2 cells */
		{ "conservative", true, 48, 0, CAKE_ATM_ATM, 54, 14, 106 },
		/* 40 + 40 = 80 -> 2 cells */
		{ "pppoe-llcsnap", true, 40, 0, CAKE_ATM_ATM, 54, 14, 106 },
		/* 40 + 8 = 48 -> 1 cell */
		{ "ipoa-vcmux", true, 8, 0, CAKE_ATM_ATM, 54, 14, 53 },
		/* 70 + 2 */
		{ "pppoe-ptm", true, 30, 0, CAKE_ATM_PTM, 54, 14, 72 },
		/* 62 + 1 */
		{ "bridged-ptm", true, 22, 0, CAKE_ATM_PTM, 54, 14, 63 },
	};

	(void)state;
	run_adj_cases(cases, NELEM(cases));
}

static void
test_netlen_is_network_layer_length(void **state)
{
	static const struct {
		bool		compensate;
		uint32_t	len, net_off, netlen;
	} cases[] = {
		{ true, 1514, 14, 1500 },
		{ true, 1518, 18, 1500 },
		{ true, 1500, 0, 1500 },
		{ true, 60, 14, 46 },
		{ true, 14, 14, 0 },
		/* raw: the whole frame */
		{ false, 1514, 14, 1514 },
		{ false, 60, 14, 60 },
	};
	struct shaper_framing	f;
	size_t			i;

	(void)state;
	memset(&f, 0, sizeof(f));
	/* overhead, mpu and cells do not affect netlen */
	f.overhead = 38;
	f.mpu = 84;
	f.atm = CAKE_ATM_ATM;
	for (i = 0; i < NELEM(cases); i++) {
		f.compensate = cases[i].compensate;
		assert_int_equal(shaper_netlen(&f, cases[i].len,
		    cases[i].net_off), cases[i].netlen);
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_duration_1514_at_20mbit),
		cmocka_unit_test(test_duration_1514_at_1gbit),
		cmocka_unit_test(test_duration_minimum_rate_clamps_to_64Bps),
		cmocka_unit_test(test_unlimited_rate_has_zero_duration),
		cmocka_unit_test(test_duration_exact_table),
		cmocka_unit_test(test_duration_close_to_exact_over_range),
		cmocka_unit_test(test_release_times_over_one_second),
		cmocka_unit_test(test_duration_large_length_no_overflow),
		cmocka_unit_test(test_atm_cells_of_48_bytes_cost_53),
		cmocka_unit_test(test_ptm_adds_one_byte_per_64),
		cmocka_unit_test(test_raw_charges_whole_frame),
		cmocka_unit_test(test_compensation_subtracts_network_offset),
		cmocka_unit_test(test_negative_overhead_and_mpu),
		cmocka_unit_test(test_framing_presets_on_1500_byte_ip),
		cmocka_unit_test(test_framing_presets_on_40_byte_ack),
		cmocka_unit_test(test_netlen_is_network_layer_length),
	};

	return cmocka_run_group_tests_name("shaper", tests, NULL, NULL);
}
