/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_keywords_lines.c: keyword lines as a whole (src/common/keywords.c):
 * exact error messages that leave the config unchanged, white space,
 * quotes, the line length limit, argv, what the printer refuses, and
 * round trips over generated lines and configs.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/keywords.h"

#include "kwcheck.h"

/* ---- errors ----------------------------------------------------------- */

static void
test_error_messages_are_precise(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "ack-filtr", "unknown keyword 'ack-filtr' (did you mean "
		    "'ack-filter'?)" },
		{ "bandwith 20mbit", "unknown keyword 'bandwith' (did you "
		    "mean 'bandwidth'?)" },
		{ "Nat", "unknown keyword 'Nat' (did you mean 'nat'?)" },
		{ "tripel-isolate", "unknown keyword 'tripel-isolate' (did "
		    "you mean 'triple-isolate'?)" },
		{ "frobnicate", "unknown keyword 'frobnicate'" },
		{ "xyz", "unknown keyword 'xyz'" },
		{ "nat extra", "unknown keyword 'extra'" },
		{ "overhead 300", "overhead 300: must be -64..256" },
		{ "overhead -65", "overhead -65: must be -64..256" },
		{ "overhead abc", "overhead 'abc': not an integer" },
		{ "overhead 1.5", "overhead '1.5': not an integer" },
		{ "overhead", "overhead: missing value" },
		{ "mpu 300", "mpu 300: must be 0..256" },
		{ "mpu -1", "mpu -1: must be 0..256" },
		{ "mpu", "mpu: missing value" },
		{ "bandwidth", "bandwidth: missing value" },
		{ "bandwidth fast", "bandwidth 'fast': not a rate (e.g. "
		    "20mbit, 2500kbps)" },
		{ "bandwidth 0", "bandwidth '0': below 1 byte/s (use "
		    "'unlimited' for no shaping)" },
		{ "bandwidth 7bit", "bandwidth '7bit': below 1 byte/s (use "
		    "'unlimited' for no shaping)" },
		{ "bandwidth -5mbit", "bandwidth '-5mbit': must not be "
		    "negative" },
		{ "rtt", "rtt: missing value" },
		{ "rtt 0", "rtt '0': must be at least 1us" },
		{ "rtt 10parsecs", "rtt '10parsecs': not a time (e.g. 100ms, "
		    "5us, 1s)" },
		{ "memlimit", "memlimit: missing value" },
		{ "memlimit lots", "memlimit 'lots': not a size (e.g. 4mb, "
		    "1500kb, 10000)" },
		{ "fwmark", "fwmark: missing value" },
		{ "fwmark 0xg",
		    "fwmark '0xg': not a mask (decimal or 0x hex)" },
		{ "fwmark 0x", "fwmark '0x': not a mask (decimal or 0x hex)" },
		{ "fwmark -1", "fwmark '-1': not a mask (decimal or 0x hex)" },
		{ "fwmark 0x100000000", "fwmark '0x100000000': larger than "
		    "32 bits" },
		{ "pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap "
		    "pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap",
		    "overhead 280 (sum of the framing keywords): must be "
		    "-64..256" },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++)
		assert_error(c[i].in, c[i].msg);
}

static void
test_error_leaves_config_unchanged(void **state)
{
	static const char *const bad[] = {
		"diffserv8 wash overhead 300",
		"nat ethernet bandwidth fast",
		"bandwidth 1gbit rtt 0",
		"flows lan metro",
		"memlimit 4mb ack-filtr",
		"ingress fwmark 0xzz",
		("pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap "
		    "pppoe-llcsnap pppoe-llcsnap pppoe-llcsnap"),
		"raw mpu",
	};
	struct cake_config	cfg, before;
	char			err[KEYWORDS_ERR_MAX];
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(bad); i++) {
		parse_ok("bandwidth 10mbit diffserv4 dual-srchost ethernet "
		    "ack-filter metro memlimit 1mb fwmark 0xf0", &cfg);
		before = cfg;
		assert_int_equal(keywords_parse_line(&cfg, bad[i], err,
		    sizeof(err)), -1);
		cfg_assert_equal(&cfg, &before);
	}
}

static void
test_long_tokens_are_clipped_in_messages(void **state)
{
	char			line[300], err[KEYWORDS_ERR_MAX];
	struct cake_config	cfg;

	(void)state;
	memset(line, 'q', sizeof(line));
	memcpy(line, "bandwidth ", 10);
	line[sizeof(line) - 1] = '\0';
	cake_config_default(&cfg);
	assert_int_equal(keywords_parse_line(&cfg, line, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "bandwidth 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
	    "...': not a rate (e.g. 20mbit, 2500kbps)");
	assert_int_equal(keywords_parse_line(&cfg, line + 10, err,
	    sizeof(err)), -1);
	assert_string_equal(err,
	    "unknown keyword 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...'");
}

static void
test_unprintable_bytes_are_masked_in_messages(void **state)
{
	char			err[KEYWORDS_ERR_MAX];
	struct cake_config	cfg;
	char			*argv[] = { (char *)"na\x1b[2Jt" };

	(void)state;
	cake_config_default(&cfg);
	assert_int_equal(keywords_parse_argv(&cfg, 1, argv, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "unknown keyword 'na?[2Jt'");
}

static void
test_small_error_buffer_is_truncated_safely(void **state)
{
	char			err[12];
	struct cake_config	cfg;

	(void)state;
	memset(err, 'z', sizeof(err));
	cake_config_default(&cfg);
	assert_int_equal(keywords_parse_line(&cfg, "overhead 300", err, 8),
	    -1);
	assert_string_equal(err, "overhea");
	assert_int_equal(err[8], 'z');
	assert_int_equal(keywords_parse_line(&cfg, "mpu 999", NULL, 0), -1);
}

/* ---- lines and argv --------------------------------------------------- */

static void
test_line_splitting_tolerates_whitespace(void **state)
{
	static const char *const lines[] = {
		"nat wash", "  nat wash", "nat wash  ", "\tnat \t\n wash\n",
		" \r\nnat\vwash\f",
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(lines); i++) {
		parse_ok(lines[i], &cfg);
		assert_true(cfg.nat);
		assert_true(cfg.wash);
	}
}

static void
test_empty_lines_change_nothing(void **state)
{
	struct cake_config	cfg, def;

	(void)state;
	cake_config_default(&def);
	parse_ok("", &cfg);
	cfg_assert_equal(&cfg, &def);
	parse_ok(" \t \n", &cfg);
	cfg_assert_equal(&cfg, &def);
	assert_int_equal(keywords_parse_argv(&cfg, 0, NULL, NULL, 0), 0);
	cfg_assert_equal(&cfg, &def);
}

static void
test_quotes_are_not_stripped_by_the_parser(void **state)
{
	(void)state;
	assert_error("\"nat\"", "unknown keyword '\"nat\"' (did you mean "
	    "'nat'?)");
}

static void
test_line_length_is_bounded(void **state)
{
	char			line[KEYWORDS_LINE_MAX + 8];
	char			err[KEYWORDS_ERR_MAX];
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	/* "nat nat nat ..." just under the limit is fine. */
	for (i = 0; i + 4 < KEYWORDS_LINE_MAX; i += 4)
		memcpy(line + i, "nat ", 4);
	line[KEYWORDS_LINE_MAX - 1] = '\0';
	line[i] = '\0';
	parse_ok(line, &cfg);
	memset(line, ' ', sizeof(line));
	memcpy(line, "nat", 3);
	line[KEYWORDS_LINE_MAX] = '\0';
	cake_config_default(&cfg);
	assert_int_equal(keywords_parse_line(&cfg, line, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "keyword line longer than 1023 bytes");
	assert_false(cfg.nat);
	line[KEYWORDS_LINE_MAX - 1] = '\0';
	parse_ok(line, &cfg);
	assert_true(cfg.nat);
}

static void
test_argv_is_applied_like_a_line(void **state)
{
	char *const		 argv[] = {
		(char *)"bandwidth", (char *)"20mbit", (char *)"diffserv4",
		(char *)"ethernet",
	};
	struct cake_config	 a, b;
	char			 err[KEYWORDS_ERR_MAX];

	(void)state;
	cake_config_default(&a);
	assert_int_equal(keywords_parse_argv(&a, 4, argv, err, sizeof(err)),
	    0);
	parse_ok("bandwidth 20mbit diffserv4 ethernet", &b);
	cfg_assert_equal(&a, &b);
	assert_int_equal(a.rate_Bps, 2500000);
	cake_config_default(&a);
	assert_int_equal(keywords_parse_argv(&a, 1, argv, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "bandwidth: missing value");
}

/* ---- printing and round trips ----------------------------------------- */

static void
test_format_refuses_small_buffer_at_every_length(void **state)
{
	struct cake_config	cfg;
	char			buf[LINE_LEN], full[LINE_LEN];
	size_t			n, len;

	(void)state;
	parse_ok("bandwidth 20mbit autorate-ingress ingress pppoe-ptm "
	    "memlimit 4mb fwmark 0xff mpu 64", &cfg);
	format_ok(&cfg, full);
	n = strlen(full);
	for (len = 0; len <= n; len++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(keywords_format(&cfg, buf, len), -1);
		if (len > 0)
			assert_int_equal(buf[0], '\0');
		assert_int_equal(buf[len], 'x');
	}
	assert_int_equal(keywords_format(&cfg, buf, n + 1), 0);
	assert_string_equal(buf, full);
}

static void
test_format_refuses_out_of_range_enums(void **state)
{
	struct cake_config	cfg;
	char			buf[LINE_LEN];

	(void)state;
	cake_config_default(&cfg);
	cfg.diffserv = (enum cake_diffserv)99;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
	cake_config_default(&cfg);
	cfg.flow_mode = (enum cake_flow_mode)8;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
	cake_config_default(&cfg);
	cfg.atm = (enum cake_atm)3;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
	/* queues would print a value that does not parse back */
	cake_config_default(&cfg);
	cfg.queues = 3000;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
	cfg.queues = 0;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
	cfg.queues = 2 * CAKE_QUEUES_MAX;
	assert_int_equal(keywords_format(&cfg, buf, sizeof(buf)), -1);
}

static const char *
rng_pick(uint64_t *s, const char *const *words, size_t n)
{
	return words[rng_next(s) % n];
}

/* Appends one random keyword (with a value if it takes one) to line. */
static void
random_keyword(uint64_t *s, char *line, size_t len, bool *rtt_used)
{
	static const char *const flags[] = {
		"unlimited", "autorate-ingress", "besteffort", "precedence",
		"diffserv8", "diffserv4", "diffserv", "diffserv3", "flowblind",
		"srchost", "dsthost", "hosts", "flows", "dual-srchost",
		"dual-dsthost", "triple-isolate", "nat", "nonat", "wash",
		"nowash", "split-gso", "no-split-gso", "ack-filter",
		"ack-filter-aggressive", "no-ack-filter", "atm", "ptm", "noatm",
		"raw", "conservative", "ipoa-vcmux", "ipoa-llcsnap",
		"bridged-vcmux", "bridged-llcsnap", "pppoa-vcmux", "pppoa-llc",
		"pppoe-vcmux", "pppoe-ptm", "bridged-ptm", "ethernet",
		"ether-vlan", "docsis", "via-ethernet", "ingress", "egress",
	};
	static const char *const presets[] = {
		"datacentre", "lan", "metro", "regional", "internet", "oceanic",
		"satellite", "interplanetary",
	};
	static const char *const rate_units[] = {
		"", "bit", "kbit", "mbit", "gbit", "kibit", "mibit", "bps",
		"kbps", "mbps", "kibps",
	};
	static const char *const time_units[] = { "", "us", "ms", "s" };
	static const char *const size_units[] = { "", "b", "kb", "mb" };
	size_t	pos = strlen(line);
	char	*p = line + pos;
	size_t	 room = len - pos;

	switch (rng_next(s) % 9) {
	case 0:
		snprintf(p, room, " bandwidth %llu%s",
		    (unsigned long long)(rng_next(s) % 100000 + 8),
		    rng_pick(s, rate_units, NITEMS(rate_units)));
		break;
	case 1:
		if (*rtt_used)
			break;
		*rtt_used = true;
		if (rng_next(s) % 2)
			snprintf(p, room, " %s",
			    rng_pick(s, presets, NITEMS(presets)));
		else
			snprintf(p, room, " rtt %llu%s",
			    (unsigned long long)(rng_next(s) % 4000 + 1),
			    rng_pick(s, time_units, NITEMS(time_units)));
		break;
	case 2:
		snprintf(p, room, " overhead %d",
		    (int)(rng_next(s) % 321) - 64);
		break;
	case 3:
		snprintf(p, room, " mpu %d", (int)(rng_next(s) % 257));
		break;
	case 4:
		snprintf(p, room, " memlimit %llu%s",
		    (unsigned long long)(rng_next(s) % 100000),
		    rng_pick(s, size_units, NITEMS(size_units)));
		break;
	case 5:
		snprintf(p, room, " fwmark 0x%x",
		    (unsigned int)(rng_next(s) & 0xffffffffU) >>
		    (rng_next(s) % 32));
		break;
	case 6:
		snprintf(p, room, " queues %u",
		    1024U << (unsigned int)(rng_next(s) % 7));
		break;
	default:
		snprintf(p, room, " %s", rng_pick(s, flags, NITEMS(flags)));
		break;
	}
}

static void
test_round_trip_over_generated_keyword_lines(void **state)
{
	struct cake_config	cfg, again;
	char			line[LINE_LEN], out[LINE_LEN], out2[LINE_LEN];
	char			err[KEYWORDS_ERR_MAX];
	uint64_t		seed = 0x9e3779b97f4a7c15ULL;
	bool			rtt_used;
	int			n, i, k, accepted = 0;

	(void)state;
	for (n = 0; n < 20000; n++) {
		line[0] = '\0';
		rtt_used = false;
		k = (int)(rng_next(&seed) % 8) + 1;
		for (i = 0; i < k; i++)
			random_keyword(&seed, line, sizeof(line), &rtt_used);
		cake_config_default(&cfg);
		if (keywords_parse_line(&cfg, line, err, sizeof(err)) != 0) {
			/* only the framing sum may overflow its range */
			if (strstr(err, "sum of the framing") == NULL)
				fail_msg("'%s': %s", line, err);
			continue;
		}
		accepted++;
		format_ok(&cfg, out);
		cake_config_default(&again);
		if (keywords_parse_line(&again, out, err, sizeof(err)) != 0)
			fail_msg("'%s' -> '%s': %s", line, out, err);
		cfg_assert_equal(&again, &cfg);
		format_ok(&again, out2);
		assert_string_equal(out, out2);
	}
	assert_true(accepted > 15000);
}

static void
test_round_trip_over_generated_configs(void **state)
{
	struct cake_config	cfg, again;
	char			out[LINE_LEN], err[KEYWORDS_ERR_MAX];
	uint64_t		seed = 12345;
	int			n;

	(void)state;
	for (n = 0; n < 20000; n++) {
		cake_config_default(&cfg);
		cfg.rate_Bps = rng_next(&seed) >> (rng_next(&seed) % 64);
		cfg.autorate_ingress = rng_next(&seed) % 2;
		cfg.diffserv = (enum cake_diffserv)(rng_next(&seed) % 5);
		cfg.flow_mode = (enum cake_flow_mode)(rng_next(&seed) % 8);
		cfg.nat = rng_next(&seed) % 2;
		cfg.wash = rng_next(&seed) % 2;
		cfg.ingress = rng_next(&seed) % 2;
		cfg.ack_filter = (enum cake_ack_filter)(rng_next(&seed) % 3);
		cfg.split_gso = rng_next(&seed) % 2;
		cfg.rtt_us = (uint32_t)(rng_next(&seed) >>
		    (32 + rng_next(&seed) % 32));
		if (cfg.rtt_us == 0)
			cfg.rtt_us = 1;
		cfg.target_us = cfg.rtt_us / 20 ? cfg.rtt_us / 20 : 1;
		cfg.raw = rng_next(&seed) % 2;
		cfg.overhead = (int32_t)(rng_next(&seed) % 321) - 64;
		cfg.mpu = (uint32_t)(rng_next(&seed) % 257);
		cfg.atm = (enum cake_atm)(rng_next(&seed) % 3);
		cfg.memlimit_bytes = rng_next(&seed) >> (rng_next(&seed) % 64);
		if (rng_next(&seed) % 2)
			cfg.memlimit_bytes <<= 10 * (rng_next(&seed) % 3);
		cfg.fwmark_mask = (uint32_t)rng_next(&seed);
		cfg.queues = CAKE_QUEUES_MIN << (rng_next(&seed) % 7);
		format_ok(&cfg, out);
		cake_config_default(&again);
		if (keywords_parse_line(&again, out, err, sizeof(err)) != 0)
			fail_msg("'%s': %s", out, err);
		cfg_assert_equal(&again, &cfg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_messages_are_precise),
		cmocka_unit_test(test_error_leaves_config_unchanged),
		cmocka_unit_test(test_long_tokens_are_clipped_in_messages),
		cmocka_unit_test(test_unprintable_bytes_are_masked_in_messages),
		cmocka_unit_test(test_small_error_buffer_is_truncated_safely),
		cmocka_unit_test(test_line_splitting_tolerates_whitespace),
		cmocka_unit_test(test_empty_lines_change_nothing),
		cmocka_unit_test(test_quotes_are_not_stripped_by_the_parser),
		cmocka_unit_test(test_line_length_is_bounded),
		cmocka_unit_test(test_argv_is_applied_like_a_line),
		cmocka_unit_test(
		    test_format_refuses_small_buffer_at_every_length),
		cmocka_unit_test(test_format_refuses_out_of_range_enums),
		cmocka_unit_test(test_round_trip_over_generated_keyword_lines),
		cmocka_unit_test(test_round_trip_over_generated_configs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
