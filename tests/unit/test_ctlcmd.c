/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ctlcmd.c: the control commands (src/daemon/ctlcmd.c) against the
 * fake daemon of fakectl.c: golden JSON for known snapshots, permissions,
 * the exact errors for bad requests and bad keywords, and that nothing
 * changes when a request is refused. hosts and flows are tested in
 * test_ctlcmd_flows.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"
#include "fakectl.h"
#include "golden.h"

static void
test_stats_replies_match_the_golden_json(void **state)
{
	static const struct {
		const char	*line;
		const char	*golden;
	} cases[] = {
		{ "stats", "stats.json" },
		{ "stats upload", "stats-upload.json" },
		{ "stats download", "stats-download.json" },
	};
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++)
		golden_request(cases[i].line, cases[i].golden);
}

static void
test_stats_has_every_tc_per_tin_name_for_every_tin(void **state)
{
	static const char *const keys[] = {
		"name", "threshold_rate", "target_us", "interval_us",
		"peak_delay_us", "avg_delay_us", "base_delay_us",
		"backlog_bytes", "sent_packets", "sent_bytes",
		"way_indirect_hits", "way_misses", "way_collisions", "drops",
		"ecn_mark", "ack_drops", "sparse_flows", "bulk_flows",
		"unresponsive_flows", "max_pkt_len", "flow_quantum",
	};
	struct json_value	*v;
	const struct json_value	*up, *tins, *t;
	size_t			 i;

	(void)state;
	run(&user_peer, "stats", &v);
	up = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_non_null(up);
	tins = json_get(up, CTL_KEY_TINS);
	assert_int_equal(json_count(tins), 3);
	for (t = tins->child; t != NULL; t = t->next) {
		assert_int_equal(json_count(t), NITEMS(keys));
		for (i = 0; i < NITEMS(keys); i++)
			if (json_get(t, keys[i]) == NULL)
				fail_msg("tin lacks %s", keys[i]);
	}
	assert_string_equal(json_get_str(up, CTL_KEY_OPTIONS),
	    "bandwidth 100Mbit diffserv3 triple-isolate nonat nowash "
	    "no-ack-filter split-gso rtt 100ms noatm overhead 38 mpu 84");
	json_free(v);
}

static void
test_read_only_commands_are_allowed_to_anyone(void **state)
{
	static const char *const lines[] = {
		"ping", "version", "stats", "stats upload", "  stats\tdownload ",
		"ping\r",
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(lines); i++) {
		assert_int_equal(run(&user_peer, lines[i], &v), CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		json_free(v);
	}
	run(&user_peer, "version", &v);
	assert_string_equal(json_get_str(v, CTL_KEY_DAEMON_VERSION), "1.2.3");
	json_free(v);
	run(&user_peer, "ping", &v);
	assert_string_equal(json_get_str(v, CTL_KEY_MESSAGE), "pong");
	json_free(v);
}

static void
test_bad_requests_get_a_coded_error_and_change_nothing(void **state)
{
	static char	long_line[CTL_LINE_MAX + 10], many[CTL_LINE_MAX];
	struct {
		const struct ctlcmd_peer	*peer;
		const char			*line;
		int				 result;
		const char			*code;
		const char			*error;
	} cases[] = {
		{ &root_peer, "", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "empty request" },
		{ &root_peer, "   ", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "empty request" },
		{ &root_peer, "frobnicate now", CTLCMD_ERROR, CTL_CODE_UNKNOWN,
		    "unknown command 'frobnicate'" },
		{ &root_peer, "STATS", CTLCMD_ERROR, CTL_CODE_UNKNOWN,
		    "unknown command 'STATS'" },
		{ &root_peer, "stats sideways", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "unknown direction 'sideways' (upload or download)" },
		{ &root_peer, "stats upload download", CTLCMD_ERROR,
		    CTL_CODE_USAGE, "usage: stats [upload | download]" },
		{ &root_peer, "ping pong", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "usage: ping" },
		{ &root_peer, "set upload", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "usage: set upload | download KEYWORD ..." },
		{ &root_peer, "set sideways rtt 5ms", CTLCMD_ERROR,
		    CTL_CODE_USAGE,
		    "unknown direction 'sideways' (upload or download)" },
		{ &user_peer, "set upload bandwidth 30mbit", CTLCMD_DENIED,
		    CTL_CODE_DENIED, "permission denied: 'set' needs root, "
		    "caked's user or the admin group" },
		{ &user_peer, "reload", CTLCMD_DENIED, CTL_CODE_DENIED,
		    "permission denied: 'reload' needs root, caked's user or "
		    "the admin group" },
		{ &root_peer, "set upload bandwidth 98760bit", CTLCMD_ERROR,
		    CTL_CODE_INVALID, "engine refused the options" },
		{ &root_peer, "set upload memlimit 1", CTLCMD_ERROR,
		    CTL_CODE_INVALID, "memlimit 1b: below 8192b, the least "
		    "that holds 4 frames of mtu 1500" },
		{ &root_peer, "set download bandwidth 800bit", CTLCMD_ERROR,
		    CTL_CODE_INVALID, "bandwidth 800bit: below 12112bit, one "
		    "frame of mtu 1500 a second" },
		{ &root_peer, "ping\x01", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "request contains bytes other than printable ASCII" },
		{ &root_peer, "st\xc3\xa4ts", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "request contains bytes other than printable ASCII" },
		{ &root_peer, long_line, CTLCMD_ERROR, CTL_CODE_TOOLONG,
		    "request longer than 4095 bytes" },
		{ &root_peer, many, CTLCMD_ERROR, CTL_CODE_USAGE,
		    "more than 64 words" },
	};
	struct json_value	*v;
	struct fake		 before;
	size_t			 i;

	(void)state;
	memset(long_line, 'a', sizeof(long_line) - 1);
	for (i = 0; i < 65; i++)
		memcpy(many + 2 * i, "x ", 2);
	before = fake;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(cases[i].peer, cases[i].line, &v),
		    cases[i].result);
		assert_false(json_get_bool(v, CTL_KEY_OK, true));
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    cases[i].code);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
		    cases[i].error);
		json_free(v);
	}
	assert_int_equal(fake.changes, 0);
	assert_int_equal(fake.reloads, 0);
	assert_memory_equal(&before, &fake, sizeof(fake));
}

static void
test_set_with_bad_keywords_returns_the_keyword_parsers_message(void **state)
{
	static const char *const args[] = {
		"bandwith 30mbit", "bandwidth fast", "rtt", "overhead 1000",
		"diffserv9", "besteffort diffserv4 nat nonat mpu 999",
	};
	struct cake_config	 cfg;
	struct json_value	*v;
	char			 line[256], want[KEYWORDS_ERR_MAX];
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(args); i++) {
		cfg = fake.cfg[0];
		assert_int_equal(keywords_parse_line(&cfg, args[i], want,
		    sizeof(want)), -1);
		(void)snprintf(line, sizeof(line), "set upload %s", args[i]);
		assert_int_equal(run(&root_peer, line, &v), CTLCMD_ERROR);
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    CTL_CODE_INVALID);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR), want);
		json_free(v);
	}
	assert_int_equal(fake.changes, 0);
}

static void
test_set_applies_keywords_on_top_of_the_running_options(void **state)
{
	struct cake_config	 want = fake.cfg[1];
	struct json_value	*v;
	char			 err[KEYWORDS_ERR_MAX], line[KEYWORDS_LINE_MAX];

	(void)state;
	assert_int_equal(keywords_parse_line(&want, "bandwidth 30mbit rtt 50ms",
	    err, sizeof(err)), 0);
	assert_int_equal(run(&root_peer, "set download bandwidth 30mbit "
	    "rtt 50ms", &v), CTLCMD_CHANGED);
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	assert_int_equal(fake.changes, 1);
	assert_memory_equal(&fake.cfg[1], &want, sizeof(want));
	assert_int_equal(fake.cfg[1].rate_Bps, 3750000);
	assert_true(fake.cfg[1].nat);	/* kept from before */
	assert_int_equal(keywords_format(&want, line, sizeof(line)), 0);
	assert_string_equal(json_get_str(v, CTL_KEY_OPTIONS), line);
	assert_string_equal(json_get_str(v, "direction"), "download");
	json_free(v);
}

static void
test_reload_reports_success_and_failure(void **state)
{
	struct json_value	*v;

	(void)state;
	assert_int_equal(run(&root_peer, "reload", &v), CTLCMD_CHANGED);
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	json_free(v);
	fake.reload_rc = -1;
	assert_int_equal(run(&root_peer, "reload", &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_CODE), CTL_CODE_FAILED);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "/etc/caked.conf has errors");
	json_free(v);
	assert_int_equal(fake.reloads, 2);
}

/* A reply's directions hold upload alone; frees the reply. */
static void
assert_upload_only(struct json_value *v)
{
	const struct json_value	*dirs = json_get(v, CTL_KEY_DIRECTIONS);

	assert_int_equal(json_count(dirs), 1);
	assert_non_null(json_get(dirs, "upload"));
	json_free(v);
}

static void
test_unshaped_direction_is_left_out_or_refused(void **state)
{
	struct json_value	*v;

	(void)state;
	fake.shaped[1] = false;
	run(&user_peer, "stats", &v);
	assert_upload_only(v);
	assert_int_equal(run(&user_peer, "stats download", &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "download is not shaped");
	json_free(v);
	run(&user_peer, "hosts", &v);
	assert_upload_only(v);
	assert_int_equal(run(&user_peer, "flows download top 3", &v),
	    CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "download is not shaped");
	json_free(v);
}

/* threads = 2: a packet thread that does not answer makes it busy. */
static void
test_busy_direction_is_left_out_or_busy(void **state)
{
	struct json_value	*v;

	(void)state;
	fake.busy[1] = true;
	run(&user_peer, "stats", &v);
	assert_upload_only(v);
	assert_int_equal(run(&user_peer, "stats download", &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_CODE), CTL_CODE_BUSY);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "busy: the download thread did not answer in time, try again");
	json_free(v);
	assert_int_equal(run(&root_peer, "set download bandwidth 10mbit",
	    &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_CODE), CTL_CODE_BUSY);
	json_free(v);
	assert_int_equal(fake.changes, 0);
	assert_int_equal(run(&user_peer, "flows download top 3", &v),
	    CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_CODE), CTL_CODE_BUSY);
	json_free(v);
}

static void
test_too_small_a_buffer_gives_an_error_reply_not_an_overflow(void **state)
{
	char	buf[512];
	size_t	len = 0, cap;

	(void)state;
	for (cap = 160; cap < 460; cap += 50) {
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(ctlcmd_handle(&fake_ops, &user_peer, "stats",
		    buf, cap, &len), CTLCMD_ERROR);
		assert_true(len > 0 && len < cap);
		assert_non_null(strstr(buf, "reply too large"));
		assert_int_equal(buf[cap], 'X');
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stats_replies_match_the_golden_json,
		    setup),
		cmocka_unit_test_setup(
		    test_stats_has_every_tc_per_tin_name_for_every_tin, setup),
		cmocka_unit_test_setup(
		    test_read_only_commands_are_allowed_to_anyone, setup),
		cmocka_unit_test_setup(
		    test_bad_requests_get_a_coded_error_and_change_nothing,
		    setup),
		cmocka_unit_test_setup(
		    test_set_with_bad_keywords_returns_the_keyword_parsers_message,
		    setup),
		cmocka_unit_test_setup(
		    test_set_applies_keywords_on_top_of_the_running_options,
		    setup),
		cmocka_unit_test_setup(test_reload_reports_success_and_failure,
		    setup),
		cmocka_unit_test_setup(
		    test_unshaped_direction_is_left_out_or_refused, setup),
		cmocka_unit_test_setup(test_busy_direction_is_left_out_or_busy,
		    setup),
		cmocka_unit_test_setup(
		    test_too_small_a_buffer_gives_an_error_reply_not_an_overflow,
		    setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
