/*
 * test_keywords.c: the tc-cake keyword parser and printer
 * (src/common/keywords.c, src/common/units.c): every keyword, every
 * preset's numbers, unit conversions, exact error messages, tc's printed
 * lines and round trips over generated configs.
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

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define LINE_LEN	512

/* The middle of the default line, between "bandwidth X" and the rtt. */
/* Unlimited: GSO is not split by default (cake_split_gso_default()). */
#define DEF_MID	"diffserv3 triple-isolate nonat nowash no-ack-filter no-split-gso"
#define RATE_MID "diffserv3 triple-isolate nonat nowash no-ack-filter split-gso"
#define DEF_LINE "bandwidth unlimited " DEF_MID " rtt 100ms raw overhead 0"

static void
cfg_assert_equal(const struct cake_config *a, const struct cake_config *b)
{
	assert_int_equal(a->rate_Bps, b->rate_Bps);
	assert_int_equal(a->autorate_ingress, b->autorate_ingress);
	assert_int_equal(a->diffserv, b->diffserv);
	assert_int_equal(a->flow_mode, b->flow_mode);
	assert_int_equal(a->nat, b->nat);
	assert_int_equal(a->wash, b->wash);
	assert_int_equal(a->ingress, b->ingress);
	assert_int_equal(a->ack_filter, b->ack_filter);
	assert_int_equal(a->split_gso, b->split_gso);
	assert_int_equal(a->rtt_us, b->rtt_us);
	assert_int_equal(a->target_us, b->target_us);
	assert_int_equal(a->raw, b->raw);
	assert_int_equal(a->overhead, b->overhead);
	assert_int_equal(a->mpu, b->mpu);
	assert_int_equal(a->atm, b->atm);
	assert_int_equal(a->memlimit_bytes, b->memlimit_bytes);
	assert_int_equal(a->fwmark_mask, b->fwmark_mask);
	assert_int_equal(a->queues, b->queues);
}

/* Parses line on top of the defaults; fails the test on error. */
static void
parse_ok(const char *line, struct cake_config *cfg)
{
	char	err[KEYWORDS_ERR_MAX];

	cake_config_default(cfg);
	err[0] = '\0';
	if (keywords_parse_line(cfg, line, err, sizeof(err)) != 0)
		fail_msg("'%s' failed: %s", line, err);
}

static void
format_ok(const struct cake_config *cfg, char *buf)
{
	assert_int_equal(keywords_format(cfg, buf, LINE_LEN), 0);
}

/* Parses line from the defaults and compares the printed options line. */
static void
assert_prints(const char *line, const char *expected)
{
	struct cake_config	cfg;
	char			buf[LINE_LEN];

	parse_ok(line, &cfg);
	format_ok(&cfg, buf);
	if (strcmp(buf, expected) != 0)
		fail_msg("'%s' printed\n  '%s', expected\n  '%s'", line, buf,
		    expected);
}

/* Parses line from the defaults, expects failure with exactly msg. */
static void
assert_error(const char *line, const char *msg)
{
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];

	cake_config_default(&cfg);
	err[0] = '\0';
	if (keywords_parse_line(&cfg, line, err, sizeof(err)) != -1)
		fail_msg("'%s' was accepted", line);
	if (strcmp(err, msg) != 0)
		fail_msg("'%s' said\n  '%s', expected\n  '%s'", line, err, msg);
}

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
		    "no-split-gso rtt 100ms atm overhead 48" },
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
 * split-gso's default follows the rate given with it: on up to 1 Gbit/s,
 * off above and unlimited; an explicit keyword wins, and a change that
 * gives no rate keeps the setting in force.
 */
static void
test_split_gso_default_follows_the_rate(void **state)
{
	static const struct { const char *line; bool split; } cases[] = {
		{ "bandwidth 20mbit", true },
		{ "bandwidth 1gbit", true },
		{ "bandwidth 1001mbit", false },
		{ "unlimited", false },
		{ "diffserv4", false },
		{ "bandwidth 20mbit no-split-gso", false },
		{ "no-split-gso bandwidth 20mbit", false },
		{ "split-gso unlimited", true },
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
	parse_ok("bandwidth 20mbit", &cfg);
	assert_int_equal(keywords_parse_line(&cfg, "diffserv4", err,
	    sizeof(err)), 0);
	assert_true(cfg.split_gso);
	assert_int_equal(keywords_parse_line(&cfg, "bandwidth 2gbit", err,
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
		    "triple-isolate nat wash no-ack-filter no-split-gso rtt 100ms "
		    "raw overhead 0" },
		{ "precedence flowblind", "bandwidth unlimited precedence "
		    "flowblind nonat nowash no-ack-filter no-split-gso rtt 100ms "
		    "raw overhead 0" },
		{ "diffserv8 srchost ack-filter", "bandwidth unlimited "
		    "diffserv8 srchost nonat nowash ack-filter no-split-gso "
		    "rtt 100ms raw overhead 0" },
		{ "diffserv dsthost ack-filter-aggressive", "bandwidth "
		    "unlimited diffserv4 dsthost nonat nowash "
		    "ack-filter-aggressive no-split-gso rtt 100ms raw "
		    "overhead 0" },
		{ "diffserv4 hosts no-split-gso", "bandwidth unlimited "
		    "diffserv4 hosts nonat nowash no-ack-filter no-split-gso "
		    "rtt 100ms raw overhead 0" },
		{ "flows lan", "bandwidth unlimited diffserv3 flows nonat "
		    "nowash no-ack-filter no-split-gso rtt 1ms raw overhead 0" },
		{ "dual-srchost datacentre", "bandwidth unlimited diffserv3 "
		    "dual-srchost nonat nowash no-ack-filter no-split-gso "
		    "rtt 100us raw overhead 0" },
		{ "dual-dsthost ingress egress satellite", "bandwidth "
		    "unlimited diffserv3 dual-dsthost nonat nowash "
		    "no-ack-filter no-split-gso rtt 1s raw overhead 0" },
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
	    "besteffort triple-isolate nonat nowash no-ack-filter no-split-gso "
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

static void
test_format_time_as_tc_statistics(void **state)
{
	static const struct { uint64_t us; const char *out; } c[] = {
		{ 5000, "5ms" }, { 100000, "100ms" }, { 14600, "14.6ms" },
		{ 14640, "14.6ms" }, { 14650, "14.7ms" }, { 727, "727us" },
		{ 1500000, "1.5s" }, { 999, "999us" }, { 1000, "1ms" },
		{ 999949, "999.9ms" }, { 999950, "1s" }, { 0, "0us" },
		{ 1000000000, "1000s" }, { 5004, "5ms" }, { 1960, "2ms" },
		{ 1234567, "1.2s" },
		{ UINT64_MAX, "18446744073709.6s" },
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

static uint64_t
rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic, so failures reproduce */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
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
		/* statistics times are exact whenever one decimal suffices */
		if (n % 2)
			v = (rng_next(&seed) % 10000) * 100;	/* < 1s */
		else
			v = (rng_next(&seed) % 4295) * 100000;

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
		cmocka_unit_test(test_default_config_prints_tc_default_line),
		cmocka_unit_test(test_tc_testing_lines_come_out_exactly),
		cmocka_unit_test(test_change_mpu_keeps_overhead),
		cmocka_unit_test(test_split_gso_default_follows_the_rate),
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
		cmocka_unit_test(test_fwmark_accepts_decimal_and_hex),
		cmocka_unit_test(
		    test_queues_accepts_powers_of_two_from_1024_to_65536),
		cmocka_unit_test(test_queues_refuses_other_values_with_reason),
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
		cmocka_unit_test(test_round_trip_of_rates_times_and_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
