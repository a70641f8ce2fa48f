/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_units.c: rates, times and sizes in tc's syntax (src/common/units.c,
 * through keywords_parse_rate() and friends): unit conversions, exact
 * error messages, tc's printed numbers and round trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/keywords.h"

#include "kwcheck.h"

/* ---- units ------------------------------------------------------------ */

static void
test_rate_units_convert_to_bytes_per_second(void **state)
{
	static const struct { const char *in; uint64_t Bps; } c[] = {
		{ "20mbit", 2500000 }, { "2500kbps", 2500000 },
		{ "1gbit", 125000000 }, { "1kibit", 128 }, { "1000", 125 },
		{ "8bit", 1 }, { "7bit", 0 }, { "20Mbit", 2500000 },
		{ "20MBIT", 2500000 }, { "1tbit", 125000000000ULL },
		{ "1mibit", 131072 }, { "1gibit", 134217728 },
		{ "1tibit", 137438953472ULL }, { "1bps", 1 },
		{ "1mbps", 1000000 }, { "1gbps", 1000000000 },
		{ "1tbps", 1000000000000ULL }, { "1kibps", 1024 },
		{ "1mibps", 1048576 }, { "1gibps", 1073741824 },
		{ "1tibps", 1099511627776ULL }, { "1.5mbit", 187500 },
		{ "0.1mbit", 12500 }, { ".5kbit", 62 },
		{ "6250Kbit", 781250 }, { "160000008bit", 20000001 },
		{ "2305843009213693951bps", 2305843009213693951ULL },
		{ "18446744073709551615bps", UINT64_MAX },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint64_t	v;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		v = 42;
		if (keywords_parse_rate(c[i].in, &v, err, sizeof(err)) != 0)
			fail_msg("'%s': %s", c[i].in, err);
		if (v != c[i].Bps)
			fail_msg("'%s' gave %llu", c[i].in,
			    (unsigned long long)v);
	}
}

static void
test_bad_rates_are_refused_with_reason(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "", "'': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "fast", "'fast': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "20mbitx", "'20mbitx': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "20 mbit", "'20 mbit': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "1.mbit", "'1.mbit': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "0x10", "'0x10': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "+5mbit", "'+5mbit': not a rate (e.g. 20mbit, 2500kbps)" },
		{ "-5mbit", "'-5mbit': must not be negative" },
		{ "99999999999999999999", "'99999999999999999999': too large" },
		{ "18446744073709551616bps",
		    "'18446744073709551616bps': too large" },
		{ "20000000tbps", "'20000000tbps': too large" },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint64_t	v = 7;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_parse_rate(c[i].in, &v, err,
		    sizeof(err)), -1);
		assert_string_equal(err, c[i].msg);
		assert_int_equal(v, 7);
	}
}

static void
test_time_units_convert_to_microseconds(void **state)
{
	static const struct { const char *in; uint32_t us; } c[] = {
		{ "100ms", 100000 }, { "5us", 5 }, { "1s", 1000000 },
		{ "200", 200 }, { "1.5ms", 1500 }, { "2sec", 2000000 },
		{ "10msecs", 10000 }, { "3usec", 3 }, { "1.5s", 1500000 },
		{ "14.6MS", 14600 }, { "4294967295us", UINT32_MAX },
		{ "0", 0 },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint32_t	v;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		if (keywords_parse_time(c[i].in, &v, err, sizeof(err)) != 0)
			fail_msg("'%s': %s", c[i].in, err);
		assert_int_equal(v, c[i].us);
	}
}

static void
test_bad_times_are_refused(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "5m", "'5m': not a time (e.g. 100ms, 5us, 1s)" },
		{ "ms", "'ms': not a time (e.g. 100ms, 5us, 1s)" },
		{ "-1ms", "'-1ms': must not be negative" },
		{ "4295s", "'4295s': too large" },
		{ "4294967296", "'4294967296': too large" },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint32_t	v = 9;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_parse_time(c[i].in, &v, err,
		    sizeof(err)), -1);
		assert_string_equal(err, c[i].msg);
		assert_int_equal(v, 9);
	}
}

static void
test_size_units_are_1024_based(void **state)
{
	static const struct { const char *in; uint64_t bytes; } c[] = {
		{ "10000", 10000 }, { "10000b", 10000 }, { "4mb", 4194304 },
		{ "4M", 4194304 }, { "1500kb", 1536000 }, { "1k", 1024 },
		{ "2g", 2147483648ULL }, { "2GB", 2147483648ULL },
		{ "1kbit", 128 }, { "1mbit", 131072 }, { "1gbit", 134217728 },
		{ "15140Kb", 15503360 }, { "0.5mb", 524288 },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint64_t	v;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		if (keywords_parse_size(c[i].in, &v, err, sizeof(err)) != 0)
			fail_msg("'%s': %s", c[i].in, err);
		assert_int_equal(v, c[i].bytes);
	}
}

static void
test_bad_sizes_are_refused(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "lots", "'lots': not a size (e.g. 4mb, 1500kb, 10000)" },
		{ "4tb", "'4tb': not a size (e.g. 4mb, 1500kb, 10000)" },
		{ "-4mb", "'-4mb': must not be negative" },
		{ "99999999999g", "'99999999999g': too large" },
	};
	char		err[KEYWORDS_ERR_MAX];
	uint64_t	v = 3;
	size_t		i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_parse_size(c[i].in, &v, err,
		    sizeof(err)), -1);
		assert_string_equal(err, c[i].msg);
		assert_int_equal(v, 3);
	}
}

static void
test_format_rate_uses_largest_exact_unit(void **state)
{
	static const struct { uint64_t Bps; const char *out; } c[] = {
		{ 2500000, "20Mbit" }, { 781250, "6250Kbit" },
		{ 20000001, "160000008bit" }, { 125, "1Kbit" }, { 1, "8bit" },
		{ 0, "0bit" }, { 125000000, "1Gbit" },
		{ 125000000000ULL, "1Tbit" }, { 1250000000000ULL, "10Tbit" },
		{ 128, "1024bit" }, { 12500, "100Kbit" },
		{ 2305843009213693952ULL, "2305843009213693952bps" },
		{ UINT64_MAX, "18446744073709551615bps" },
	};
	char	buf[64];
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_format_rate(c[i].Bps, buf,
		    sizeof(buf)), 0);
		assert_string_equal(buf, c[i].out);
	}
}

/*
 * tc prints statistics times with print_time() (iproute2 tc/tc_util.c):
 * printf "%.3gs" from 1 s, "%.3gms" from 1 ms, "%uus" below; the values
 * below are what that gives (the first row as in a real tc -s output of
 * cake: 14.5ms, 110ms, 8.64ms, 1.33ms, 18ms).
 */
static void
test_format_time_as_tc_statistics(void **state)
{
	static const struct { uint64_t us; const char *out; } c[] = {
		{ 14500, "14.5ms" }, { 110000, "110ms" }, { 8640, "8.64ms" },
		{ 1330, "1.33ms" }, { 18000, "18ms" },
		{ 109600, "110ms" }, { 109400, "109ms" }, { 8644, "8.64ms" },
		{ 8646, "8.65ms" }, { 5000, "5ms" }, { 100000, "100ms" },
		{ 727, "727us" }, { 1500000, "1.5s" }, { 999, "999us" },
		{ 1000, "1ms" }, { 999400, "999ms" }, { 999600, "1e+03ms" },
		{ 0, "0us" }, { 1000000000, "1e+03s" }, { 5004, "5ms" },
		{ 1960, "1.96ms" }, { 1234567, "1.23s" },
		{ UINT64_MAX, "1.84e+13s" },
	};
	char	buf[64];
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_format_time(c[i].us, buf,
		    sizeof(buf)), 0);
		assert_string_equal(buf, c[i].out);
	}
}

static void
test_format_size_uses_largest_exact_unit(void **state)
{
	static const struct { uint64_t bytes; const char *out; } c[] = {
		{ 10000, "10000b" }, { 5000000, "5000000b" },
		{ 15503360, "15140Kb" }, { 4194304, "4Mb" }, { 1024, "1Kb" },
		{ 0, "0b" }, { 1536, "1536b" }, { 3221225472ULL, "3072Mb" },
	};
	char	buf[64];
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		assert_int_equal(keywords_format_size(c[i].bytes, buf,
		    sizeof(buf)), 0);
		assert_string_equal(buf, c[i].out);
	}
}

static void
test_formatters_refuse_small_buffers(void **state)
{
	char	buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(keywords_format_rate(2500000, buf, 6), -1);
	assert_string_equal(buf, "");
	assert_int_equal(keywords_format_rate(2500000, buf, 7), 0);
	assert_string_equal(buf, "20Mbit");
	assert_int_equal(keywords_format_time(14600, buf, 6), -1);
	assert_string_equal(buf, "");
	assert_int_equal(keywords_format_time(14600, buf, 7), 0);
	assert_int_equal(keywords_format_size(10000, buf, 6), -1);
	assert_int_equal(keywords_format_size(10000, buf, 7), 0);
	assert_int_equal(keywords_format_rate(1, buf, 0), -1);
	assert_int_equal(keywords_format_time(1, NULL, 0), -1);
}

static void
test_round_trip_of_rates_times_and_sizes(void **state)
{
	char		buf[64], err[KEYWORDS_ERR_MAX];
	uint64_t	seed = 777, v, back;
	uint32_t	t;
	int		n;

	(void)state;
	for (n = 0; n < 50000; n++) {
		v = rng_next(&seed) >> (rng_next(&seed) % 64);
		if (n % 3 == 0)
			v = (v % 100000) * 125;	/* whole Kbit multiples */
		assert_int_equal(keywords_format_rate(v, buf, sizeof(buf)), 0);
		assert_int_equal(keywords_parse_rate(buf, &back, err,
		    sizeof(err)), 0);
		assert_int_equal(back, v);
		assert_int_equal(keywords_format_size(v, buf, sizeof(buf)), 0);
		assert_int_equal(keywords_parse_size(buf, &back, err,
		    sizeof(err)), 0);
		assert_int_equal(back, v);
		/* statistics times are exact with 3 significant digits */
		v = (rng_next(&seed) % 900 + 100);
		for (t = (uint32_t)(rng_next(&seed) % 6); t > 0; t--)
			v *= 10;		/* 100us .. 99.9s */

		assert_int_equal(keywords_format_time(v, buf, sizeof(buf)), 0);
		assert_int_equal(keywords_parse_time(buf, &t, err,
		    sizeof(err)), 0);
		assert_int_equal(t, v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_units_convert_to_bytes_per_second),
		cmocka_unit_test(test_bad_rates_are_refused_with_reason),
		cmocka_unit_test(test_time_units_convert_to_microseconds),
		cmocka_unit_test(test_bad_times_are_refused),
		cmocka_unit_test(test_size_units_are_1024_based),
		cmocka_unit_test(test_bad_sizes_are_refused),
		cmocka_unit_test(test_format_rate_uses_largest_exact_unit),
		cmocka_unit_test(test_format_time_as_tc_statistics),
		cmocka_unit_test(test_format_size_uses_largest_exact_unit),
		cmocka_unit_test(test_formatters_refuse_small_buffers),
		cmocka_unit_test(test_round_trip_of_rates_times_and_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
