/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_keywords.c: the tc-cake keyword parser and printer
 * (src/common/keywords.c): what each keyword sets, every preset's numbers,
 * the bounds and floors, and tc's printed lines. The syntax of a line
 * (error messages, white space, argv, the printer's refusals, round
 * trips) is in test_keywords_lines.c, rates, times and sizes in
 * test_units.c.
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

/* ---- the lines of tc-testing's cake.json ------------------------------ */

static void
test_default_config_prints_tc_default_line(void **state)
{
	(void)state;
	assert_prints("", DEF_LINE);
}

static void
test_tc_testing_lines_come_out_exactly(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "rtt 200", "bandwidth unlimited " DEF_MID
		    " rtt 200us raw overhead 0" },
		{ "memlimit 10000 ptm", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw ptm overhead 0 memlimit 10000b" },
		{ "fwmark 8 atm", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw atm overhead 0 fwmark 0x8" },
		{ "overhead 128 mpu 256", "bandwidth unlimited " DEF_MID
		    " rtt 100ms noatm overhead 128 mpu 256" },
		{ "conservative ingress", "bandwidth unlimited diffserv3 "
		    "triple-isolate nonat nowash ingress no-ack-filter "
		    "split-gso rtt 100ms atm overhead 48" },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++)
		assert_prints(cases[i].in, cases[i].out);
}

static void
test_change_mpu_keeps_overhead(void **state)
{
	struct cake_config	cfg;
	char			buf[LINE_LEN], err[KEYWORDS_ERR_MAX];

	(void)state;
	parse_ok("overhead 128 mpu 256", &cfg);
	assert_int_equal(keywords_parse_line(&cfg, "mpu 128", err,
	    sizeof(err)), 0);
	format_ok(&cfg, buf);
	assert_string_equal(buf, "bandwidth unlimited " DEF_MID
	    " rtt 100ms noatm overhead 128 mpu 128");
}

/*
 * split-gso is on by default at every rate, unlimited included, as in
 * sch_cake (cake_init() sets CAKE_FLAG_SPLIT_GSO; a change touches it
 * only when TCA_CAKE_SPLIT_GSO is given): a rate never changes it, an
 * explicit keyword always does.
 */
static void
test_split_gso_default_at_every_rate(void **state)
{
	static const struct { const char *line; bool split; } cases[] = {
		{ "bandwidth 20mbit", true },
		{ "bandwidth 1gbit", true },
		{ "bandwidth 1001mbit", true },
		{ "unlimited", true },
		{ "diffserv4", true },
		{ "bandwidth 20mbit no-split-gso", false },
		{ "no-split-gso bandwidth 20mbit", false },
		{ "no-split-gso unlimited", false },
		{ "bandwidth 10gbit split-gso", true },
	};
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		parse_ok(cases[i].line, &cfg);
		if (cfg.split_gso != cases[i].split)
			fail_msg("'%s': split_gso %d", cases[i].line,
			    cfg.split_gso);
	}
	parse_ok("bandwidth 20mbit no-split-gso", &cfg);
	assert_int_equal(keywords_parse_line(&cfg, "bandwidth 2gbit", err,
	    sizeof(err)), 0);
	assert_false(cfg.split_gso);
	assert_int_equal(keywords_parse_line(&cfg, "unlimited", err,
	    sizeof(err)), 0);
	assert_false(cfg.split_gso);
	assert_int_equal(keywords_parse_line(&cfg, "split-gso", err,
	    sizeof(err)), 0);
	assert_int_equal(keywords_parse_line(&cfg, "diffserv3", err,
	    sizeof(err)), 0);
	assert_true(cfg.split_gso);
}

/* ---- every keyword, through the printer ------------------------------- */

static void
test_every_mode_keyword_prints_its_name(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "bandwidth 20mbit", "bandwidth 20Mbit " RATE_MID
		    " rtt 100ms raw overhead 0" },
		{ "autorate-ingress", "bandwidth unlimited autorate-ingress "
		    DEF_MID " rtt 100ms raw overhead 0" },
		{ "besteffort wash nat", "bandwidth unlimited besteffort "
		    "triple-isolate nat wash no-ack-filter split-gso rtt 100ms "
		    "raw overhead 0" },
		{ "precedence flowblind", "bandwidth unlimited precedence "
		    "flowblind nonat nowash no-ack-filter split-gso rtt 100ms "
		    "raw overhead 0" },
		{ "diffserv8 srchost ack-filter", "bandwidth unlimited "
		    "diffserv8 srchost nonat nowash ack-filter split-gso "
		    "rtt 100ms raw overhead 0" },
		{ "diffserv dsthost ack-filter-aggressive", "bandwidth "
		    "unlimited diffserv4 dsthost nonat nowash "
		    "ack-filter-aggressive split-gso rtt 100ms raw "
		    "overhead 0" },
		{ "diffserv4 hosts no-split-gso", "bandwidth unlimited "
		    "diffserv4 hosts nonat nowash no-ack-filter no-split-gso "
		    "rtt 100ms raw overhead 0" },
		{ "flows lan", "bandwidth unlimited diffserv3 flows nonat "
		    "nowash no-ack-filter split-gso rtt 1ms raw overhead 0" },
		{ "dual-srchost datacentre", "bandwidth unlimited diffserv3 "
		    "dual-srchost nonat nowash no-ack-filter split-gso "
		    "rtt 100us raw overhead 0" },
		{ "dual-dsthost ingress egress satellite", "bandwidth "
		    "unlimited diffserv3 dual-dsthost nonat nowash "
		    "no-ack-filter split-gso rtt 1s raw overhead 0" },
		{ "nat nonat wash nowash ack-filter no-ack-filter no-split-gso "
		    "split-gso diffserv8 diffserv3 flows triple-isolate",
		    "bandwidth unlimited " RATE_MID " rtt 100ms raw overhead 0" },
		{ "interplanetary", "bandwidth unlimited " DEF_MID
		    " rtt 1000s raw overhead 0" },
		{ "rtt 1.5ms", "bandwidth unlimited " DEF_MID
		    " rtt 1.5ms raw overhead 0" },
		{ "rtt 1234us", "bandwidth unlimited " DEF_MID
		    " rtt 1234us raw overhead 0" },
		{ "memlimit 4mb", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw overhead 0 memlimit 4Mb" },
		{ "memlimit 1500kb", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw overhead 0 memlimit 1500Kb" },
		{ "ethernet", "bandwidth unlimited " DEF_MID
		    " rtt 100ms noatm overhead 38 mpu 84" },
		{ "pppoe-ptm", "bandwidth unlimited " DEF_MID
		    " rtt 100ms ptm overhead 30" },
		{ "docsis", "bandwidth unlimited " DEF_MID
		    " rtt 100ms noatm overhead 18 mpu 64" },
		{ "raw ethernet", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw overhead 38 mpu 84" },
		{ "fwmark 0xff00", "bandwidth unlimited " DEF_MID
		    " rtt 100ms raw overhead 0 fwmark 0xff00" },
		{ "fwmark 8 fwmark 0", DEF_LINE },
		{ "via-ethernet", DEF_LINE },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++)
		assert_prints(cases[i].in, cases[i].out);
}

static void
test_mode_keywords_set_their_fields(void **state)
{
	struct cake_config	cfg;

	(void)state;
	parse_ok("diffserv wash nat ingress ack-filter-aggressive "
	    "no-split-gso dual-dsthost autorate-ingress", &cfg);
	assert_int_equal(cfg.diffserv, CAKE_DIFFSERV4);
	assert_true(cfg.wash);
	assert_true(cfg.nat);
	assert_true(cfg.ingress);
	assert_int_equal(cfg.ack_filter, CAKE_ACK_AGGRESSIVE);
	assert_false(cfg.split_gso);
	assert_int_equal(cfg.flow_mode, CAKE_FLOW_DUAL_DST);
	assert_true(cfg.autorate_ingress);
	assert_int_equal(cfg.rate_Bps, 0);
}

static void
test_flow_modes_map_to_kernel_numbers(void **state)
{
	static const struct { const char *kw; enum cake_flow_mode m; } c[] = {
		{ "flowblind", CAKE_FLOW_BLIND },
		{ "srchost", CAKE_FLOW_SRCHOST },
		{ "dsthost", CAKE_FLOW_DSTHOST }, { "hosts", CAKE_FLOW_HOSTS },
		{ "flows", CAKE_FLOW_FLOWS },
		{ "dual-srchost", CAKE_FLOW_DUAL_SRC },
		{ "dual-dsthost", CAKE_FLOW_DUAL_DST },
		{ "triple-isolate", CAKE_FLOW_TRIPLE },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].kw, &cfg);
		assert_int_equal(cfg.flow_mode, c[i].m);
		assert_int_equal((int)cfg.flow_mode, (int)i);
	}
}

static void
test_diffserv_modes_and_alias(void **state)
{
	static const struct { const char *kw; enum cake_diffserv m; } c[] = {
		{ "besteffort", CAKE_BESTEFFORT },
		{ "precedence", CAKE_PRECEDENCE },
		{ "diffserv8", CAKE_DIFFSERV8 },
		{ "diffserv4", CAKE_DIFFSERV4 },
		{ "diffserv", CAKE_DIFFSERV4 }, { "diffserv3", CAKE_DIFFSERV3 },
		{ "diffserv8 diffserv3", CAKE_DIFFSERV3 },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].kw, &cfg);
		assert_int_equal(cfg.diffserv, c[i].m);
	}
}

static void
test_bandwidth_turns_autorate_off_so_order_matters(void **state)
{
	static const struct { const char *in; uint64_t Bps; bool on; } c[] = {
		{ "autorate-ingress bandwidth 10mbit", 1250000, false },
		{ "bandwidth 10mbit autorate-ingress", 1250000, true },
		{ "autorate-ingress unlimited", 0, false },
		{ "bandwidth 10mbit unlimited", 0, false },
		{ "bandwidth unlimited", 0, false },
		{ "bandwidth unlimited autorate-ingress", 0, true },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].in, &cfg);
		assert_int_equal(cfg.rate_Bps, c[i].Bps);
		assert_int_equal(cfg.autorate_ingress, c[i].on);
	}
}

/* ---- RTT -------------------------------------------------------------- */

static void
test_rtt_presets_have_reference_numbers(void **state)
{
	static const struct {
		const char	*kw;
		uint32_t	 target_us, interval_us;
	} c[] = {
		{ "datacentre", 5, 100 }, { "lan", 50, 1000 },
		{ "metro", 500, 10000 }, { "regional", 1500, 30000 },
		{ "internet", 5000, 100000 }, { "oceanic", 15000, 300000 },
		{ "satellite", 50000, 1000000 },
		{ "interplanetary", 50000000, 1000000000 },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].kw, &cfg);
		assert_int_equal(cfg.target_us, c[i].target_us);
		assert_int_equal(cfg.rtt_us, c[i].interval_us);
	}
}

static void
test_rtt_sets_interval_and_target_of_one_twentieth(void **state)
{
	static const struct { const char *in; uint32_t rtt, target; } c[] = {
		{ "rtt 100ms", 100000, 5000 }, { "rtt 200", 200, 10 },
		{ "rtt 1s", 1000000, 50000 }, { "rtt 40us", 40, 2 },
		{ "rtt 19us", 19, 1 }, { "rtt 1", 1, 1 },
		{ "rtt 2.5ms", 2500, 125 }, { "rtt 30msec", 30000, 1500 },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].in, &cfg);
		assert_int_equal(cfg.rtt_us, c[i].rtt);
		assert_int_equal(cfg.target_us, c[i].target);
	}
}

static void
test_only_one_rtt_setting_per_line(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "lan metro", "metro: only one of rtt and the rtt presets "
		    "(lan, internet, ...) may be given (lan came first)" },
		{ "rtt 10ms internet", "internet: only one of rtt and the rtt "
		    "presets (lan, internet, ...) may be given (rtt came "
		    "first)" },
		{ "satellite rtt 5ms", "rtt: only one of rtt and the rtt "
		    "presets (lan, internet, ...) may be given (satellite "
		    "came first)" },
		{ "rtt 1ms rtt 2ms", "rtt: only one of rtt and the rtt "
		    "presets (lan, internet, ...) may be given (rtt came "
		    "first)" },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++)
		assert_error(c[i].in, c[i].msg);
}

static void
test_rtt_may_be_set_again_by_a_later_call(void **state)
{
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];

	(void)state;
	parse_ok("lan", &cfg);
	assert_int_equal(keywords_parse_line(&cfg, "metro", err, sizeof(err)),
	    0);
	assert_int_equal(cfg.rtt_us, 10000);
	assert_int_equal(cfg.target_us, 500);
}

/* ---- framing ---------------------------------------------------------- */

static void
test_framing_presets_have_reference_numbers(void **state)
{
	static const struct {
		const char	*in;
		int32_t		 overhead;
		uint32_t	 mpu;
		enum cake_atm	 atm;
		bool		 raw;
	} c[] = {
		{ "conservative", 48, 0, CAKE_ATM_ATM, false },
		{ "ipoa-vcmux", 8, 0, CAKE_ATM_ATM, false },
		{ "ipoa-llcsnap", 16, 0, CAKE_ATM_ATM, false },
		{ "bridged-vcmux", 24, 0, CAKE_ATM_ATM, false },
		{ "bridged-llcsnap", 32, 0, CAKE_ATM_ATM, false },
		{ "pppoa-vcmux", 10, 0, CAKE_ATM_ATM, false },
		{ "pppoa-llc", 14, 0, CAKE_ATM_ATM, false },
		{ "pppoe-vcmux", 32, 0, CAKE_ATM_ATM, false },
		{ "pppoe-llcsnap", 40, 0, CAKE_ATM_ATM, false },
		{ "pppoe-ptm", 30, 0, CAKE_ATM_PTM, false },
		{ "bridged-ptm", 22, 0, CAKE_ATM_PTM, false },
		{ "ethernet", 38, 84, CAKE_ATM_NONE, false },
		{ "ether-vlan", 4, 0, CAKE_ATM_NONE, false },
		{ "docsis", 18, 64, CAKE_ATM_NONE, false },
		{ "via-ethernet", 0, 0, CAKE_ATM_NONE, true },
		{ "raw", 0, 0, CAKE_ATM_NONE, true },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].in, &cfg);
		assert_int_equal(cfg.overhead, c[i].overhead);
		assert_int_equal(cfg.mpu, c[i].mpu);
		assert_int_equal(cfg.atm, c[i].atm);
		assert_int_equal(cfg.raw, c[i].raw);
	}
}

static void
test_framing_keywords_compose_like_tc(void **state)
{
	static const struct {
		const char	*in;
		int32_t		 overhead;
		uint32_t	 mpu;
		enum cake_atm	 atm;
		bool		 raw;
	} c[] = {
		{ "ethernet ether-vlan", 42, 84, CAKE_ATM_NONE, false },
		{ "ethernet ether-vlan ether-vlan", 46, 84, CAKE_ATM_NONE,
		    false },
		{ "overhead 10 ethernet", 48, 84, CAKE_ATM_NONE, false },
		{ "ethernet overhead 10", 10, 84, CAKE_ATM_NONE, false },
		{ "ethernet mpu 0", 38, 0, CAKE_ATM_NONE, false },
		{ "ptm ethernet", 38, 84, CAKE_ATM_PTM, false },
		{ "pppoe-vcmux docsis", 50, 64, CAKE_ATM_NONE, false },
		{ "ethernet conservative", 48, 84, CAKE_ATM_ATM, false },
		{ "conservative ether-vlan", 52, 0, CAKE_ATM_ATM, false },
		{ "ethernet raw", 0, 84, CAKE_ATM_NONE, true },
		{ "raw ethernet", 38, 84, CAKE_ATM_NONE, true },
		{ "overhead 0 raw", 0, 0, CAKE_ATM_NONE, true },
		{ "raw overhead 12", 12, 0, CAKE_ATM_NONE, true },
		{ "raw ptm", 0, 0, CAKE_ATM_PTM, true },
		{ "ptm raw", 0, 0, CAKE_ATM_NONE, true },
		{ "overhead -64", -64, 0, CAKE_ATM_NONE, false },
		{ "overhead 0", 0, 0, CAKE_ATM_NONE, false },
		{ "atm", 0, 0, CAKE_ATM_ATM, true },
		{ "ptm noatm", 0, 0, CAKE_ATM_NONE, true },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].in, &cfg);
		if (cfg.overhead != c[i].overhead || cfg.mpu != c[i].mpu ||
		    cfg.atm != c[i].atm || cfg.raw != c[i].raw)
			fail_msg("'%s': overhead %d mpu %u atm %d raw %d",
			    c[i].in, (int)cfg.overhead, (unsigned)cfg.mpu,
			    (int)cfg.atm, (int)cfg.raw);
	}
}

static void
test_framing_sum_restarts_on_each_call(void **state)
{
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];

	(void)state;
	parse_ok("ethernet", &cfg);
	assert_int_equal(keywords_parse_line(&cfg, "ether-vlan", err,
	    sizeof(err)), 0);
	assert_int_equal(cfg.overhead, 4);	/* as tc change does */
	assert_int_equal(cfg.mpu, 84);
	assert_int_equal(keywords_parse_line(&cfg, "nat", err, sizeof(err)),
	    0);
	assert_int_equal(cfg.overhead, 4);
	assert_false(cfg.raw);
}

static void
test_overhead_and_mpu_bounds(void **state)
{
	static const struct { const char *in; int ok; } c[] = {
		{ "overhead -64", 0 }, { "overhead 256", 0 },
		{ "overhead -65", -1 }, { "overhead 257", -1 },
		{ "mpu 0", 0 }, { "mpu 256", 0 }, { "mpu 257", -1 },
		{ "mpu -1", -1 }, { "overhead 99999999999999999999999", -1 },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		cake_config_default(&cfg);
		assert_int_equal(keywords_parse_line(&cfg, c[i].in, NULL, 0),
		    c[i].ok);
	}
}

/* The floors, at their boundaries, for mtu 1500 (0) and 9000. */
static void
test_floors_refuse_what_passes_nothing(void **state)
{
	static const struct {
		uint64_t	memlimit, rate;
		uint32_t	mtu;
		int		rc;
	} cases[] = {
		{ 0, 0, 0, 0 }, { 8192, 1514, 0, 0 }, { 8191, 0, 0, -1 },
		{ 1, 0, 1500, -1 }, { 0, 1513, 0, -1 }, { 0, 1, 0, -1 },
		{ 36088, 9014, 9000, 0 }, { 36087, 0, 9000, -1 },
		{ 0, 9013, 9000, -1 }, { 8192, 1514, 68, 0 },
	};
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		cake_config_default(&cfg);
		cfg.memlimit_bytes = cases[i].memlimit;
		cfg.rate_Bps = cases[i].rate;
		err[0] = '\0';
		assert_int_equal(keywords_check_floors(&cfg, cases[i].mtu, err,
		    sizeof(err)), cases[i].rc);
		assert_int_equal(err[0] != '\0', cases[i].rc == -1);
	}
	cfg.memlimit_bytes = 1;
	assert_int_equal(keywords_check_floors(&cfg, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "memlimit 1b: below 8192b, the least that "
	    "holds 4 frames of mtu 1500");
}

static void
test_fwmark_accepts_decimal_and_hex(void **state)
{
	static const struct { const char *in; uint32_t mask; } c[] = {
		{ "fwmark 8", 8 }, { "fwmark 0x8", 8 },
		{ "fwmark 0XFF00", 0xff00 },
		{ "fwmark 4294967295", 0xffffffffU },
		{ "fwmark 0xffffffff", 0xffffffffU }, { "fwmark 0", 0 },
		{ "fwmark 010", 10 },
	};
	struct cake_config	cfg;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++) {
		parse_ok(c[i].in, &cfg);
		assert_int_equal(cfg.fwmark_mask, c[i].mask);
	}
}

/* caked's "queues N" (not tc's): printed last, and only when not 1024. */
static void
test_queues_accepts_powers_of_two_from_1024_to_65536(void **state)
{
	struct cake_config	cfg;
	char			line[32];
	uint32_t		q;

	(void)state;
	parse_ok("", &cfg);
	assert_int_equal(cfg.queues, 1024);
	for (q = 1024; q <= 65536; q *= 2) {
		snprintf(line, sizeof(line), "queues %u", (unsigned int)q);
		parse_ok(line, &cfg);
		assert_int_equal(cfg.queues, q);
	}
	assert_prints("queues 1024", DEF_LINE);
	assert_prints("queues 16384 besteffort", "bandwidth unlimited "
	    "besteffort triple-isolate nonat nowash no-ack-filter split-gso "
	    "rtt 100ms raw overhead 0 queues 16384");
	assert_prints("queues 65536 fwmark 0xff", "bandwidth unlimited "
	    DEF_MID " rtt 100ms raw overhead 0 fwmark 0xff queues 65536");
}

static void
test_queues_refuses_other_values_with_reason(void **state)
{
	static const struct { const char *in, *msg; } c[] = {
		{ "queues 1000", "queues 1000: must be a power of two from "
		    "1024 to 65536" },
		{ "queues 0", "queues 0: must be a power of two from 1024 "
		    "to 65536" },
		{ "queues 512", "queues 512: must be a power of two from "
		    "1024 to 65536" },
		{ "queues 3072", "queues 3072: must be a power of two from "
		    "1024 to 65536" },
		{ "queues 131072", "queues 131072: must be a power of two "
		    "from 1024 to 65536" },
		{ "queues -1024", "queues -1024: must be a power of two from "
		    "1024 to 65536" },
		{ "queues many", "queues 'many': not an integer" },
		{ "queues 16k", "queues '16k': not an integer" },
		{ "queues 0x4000", "queues '0x4000': not an integer" },
		{ "queues", "queues: missing value" },
		{ "queue 2048", "unknown keyword 'queue' (did you mean "
		    "'queues'?)" },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(c); i++)
		assert_error(c[i].in, c[i].msg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_config_prints_tc_default_line),
		cmocka_unit_test(test_tc_testing_lines_come_out_exactly),
		cmocka_unit_test(test_change_mpu_keeps_overhead),
		cmocka_unit_test(test_split_gso_default_at_every_rate),
		cmocka_unit_test(test_every_mode_keyword_prints_its_name),
		cmocka_unit_test(test_mode_keywords_set_their_fields),
		cmocka_unit_test(test_flow_modes_map_to_kernel_numbers),
		cmocka_unit_test(test_diffserv_modes_and_alias),
		cmocka_unit_test(
		    test_bandwidth_turns_autorate_off_so_order_matters),
		cmocka_unit_test(test_rtt_presets_have_reference_numbers),
		cmocka_unit_test(
		    test_rtt_sets_interval_and_target_of_one_twentieth),
		cmocka_unit_test(test_only_one_rtt_setting_per_line),
		cmocka_unit_test(test_rtt_may_be_set_again_by_a_later_call),
		cmocka_unit_test(test_framing_presets_have_reference_numbers),
		cmocka_unit_test(test_framing_keywords_compose_like_tc),
		cmocka_unit_test(test_framing_sum_restarts_on_each_call),
		cmocka_unit_test(test_overhead_and_mpu_bounds),
		cmocka_unit_test(test_floors_refuse_what_passes_nothing),
		cmocka_unit_test(test_fwmark_accepts_decimal_and_hex),
		cmocka_unit_test(
		    test_queues_accepts_powers_of_two_from_1024_to_65536),
		cmocka_unit_test(test_queues_refuses_other_values_with_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
