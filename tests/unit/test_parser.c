/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_parser.c: cakectl's command grammar (src/ctl/parser.c): every
 * command gives the right action, direction and request line; wrong words
 * give a message naming what was expected; -n adds "top N" to hosts and
 * flows only, within 1..CTL_TOP_MAX.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/parser.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define ARGS_MAX	8

/* Splits a test line into argv (words separated by '|'). */
static int
split(const char *spec, char *buf, size_t len, char *argv[])
{
	char	*p;
	int	 argc = 0;

	(void)snprintf(buf, len, "%s", spec);
	for (p = strtok(buf, "|"); p != NULL && argc < ARGS_MAX;
	    p = strtok(NULL, "|"))
		argv[argc++] = p;
	return argc;
}

static void
test_commands_give_action_direction_and_request(void **state)
{
	static const struct {
		const char		*args;
		enum parser_action	 action;
		const char		*dir;
		const char		*request;
	} cases[] = {
		{ "stats", PARSER_STATS, NULL, "stats\n" },
		{ "stats|upload", PARSER_STATS, "upload", "stats upload\n" },
		{ "stats|download", PARSER_STATS, "download",
		    "stats download\n" },
		{ "watch", PARSER_WATCH, NULL, "stats\n" },
		{ "watch|download", PARSER_WATCH, "download",
		    "stats download\n" },
		{ "metrics", PARSER_METRICS, NULL, "stats\n" },
		{ "metrics|upload", PARSER_METRICS, "upload",
		    "stats upload\n" },
		{ "ping", PARSER_PING, NULL, "ping\n" },
		{ "version", PARSER_VERSION, NULL, "version\n" },
		{ "reload", PARSER_RELOAD, NULL, "reload\n" },
		{ "set|upload|bandwidth|30mbit", PARSER_SET, "upload",
		    "set upload bandwidth 30mbit\n" },
		{ "set|download|diffserv4|nat|ack-filter", PARSER_SET,
		    "download", "set download diffserv4 nat ack-filter\n" },
		{ "set|upload|bandwidth 30mbit", PARSER_SET, "upload",
		    "set upload bandwidth 30mbit\n" },
		{ "hosts", PARSER_HOSTS, NULL, "hosts\n" },
		{ "hosts|upload", PARSER_HOSTS, "upload", "hosts upload\n" },
		{ "hosts|download", PARSER_HOSTS, "download",
		    "hosts download\n" },
		{ "flows", PARSER_FLOWS, NULL, "flows\n" },
		{ "flows|upload", PARSER_FLOWS, "upload", "flows upload\n" },
		{ "flows|download", PARSER_FLOWS, "download",
		    "flows download\n" },
		{ "stats|--tc", PARSER_STATS, NULL, "stats\n" },
		{ "stats|download|--tc", PARSER_STATS, "download",
		    "stats download\n" },
	};
	struct parser_result	 res;
	char			 buf[256], err[256], *argv[ARGS_MAX];
	size_t			 i;
	int			 argc;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		argc = split(cases[i].args, buf, sizeof(buf), argv);
		if (parser_parse(argc, argv, &res, err, sizeof(err)) == -1)
			fail_msg("%s: %s", cases[i].args, err);
		assert_int_equal(res.action, cases[i].action);
		if (cases[i].dir == NULL)
			assert_null(res.dir);
		else
			assert_string_equal(res.dir, cases[i].dir);
		assert_string_equal(res.request, cases[i].request);
		/* --tc is cakectl's own: never sent, only remembered. */
		assert_int_equal(res.tc, strstr(cases[i].args, "--tc") !=
		    NULL);
	}
}

static void
test_wrong_words_name_what_was_expected(void **state)
{
	static const struct {
		const char	*args;
		const char	*error;
	} cases[] = {
		{ "stat", "unknown command 'stat' (expected flows, hosts, "
		    "metrics, ping, reload, set, stats, top, version, watch)" },
		{ "hosts|sideways", "unknown argument 'sideways' (expected "
		    "upload, download)" },
		{ "flows|upload|5", "unexpected argument '5'" },
		{ "hosts|upload|top|5", "unexpected argument 'top'" },
		{ "stats|sideways", "unknown argument 'sideways' (expected "
		    "upload, download, --tc)" },
		{ "stats|upload|now", "unknown argument 'now' (expected "
		    "--tc)" },
		{ "stats|--tc|upload", "unexpected argument 'upload'" },
		{ "watch|--tc", "unknown argument '--tc' (expected upload, "
		    "download)" },
		{ "ping|now", "unexpected argument 'now'" },
		{ "set", "missing argument (expected upload, download)" },
		{ "set|upload", "missing argument (expected KEYWORD ...)" },
		{ "set|both|rtt|5ms", "unknown argument 'both' (expected "
		    "upload, download)" },
		{ "set|upload|rtt\n5ms", "argument contains characters other "
		    "than printable ASCII" },
	};
	struct parser_result	 res;
	char			 buf[256], err[256], *argv[ARGS_MAX];
	size_t			 i;
	int			 argc;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		argc = split(cases[i].args, buf, sizeof(buf), argv);
		assert_int_equal(parser_parse(argc, argv, &res, err,
		    sizeof(err)), -1);
		assert_string_equal(err, cases[i].error);
	}
	assert_int_equal(parser_parse(0, argv, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "missing command");
}

static void
test_overlong_set_is_refused_before_sending(void **state)
{
	static char		 word[CTL_LINE_MAX];
	char			*argv[3] = { "set", "upload", word };
	struct parser_result	 res;
	char			 err[128];

	(void)state;
	memset(word, 'a', sizeof(word) - 1);
	assert_int_equal(parser_parse(3, argv, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "command longer than 4094 bytes");
	/* The longest line that fits leaves room for "\n". */
	word[CTL_LINE_MAX - 2 - strlen("set upload ")] = '\0';
	assert_int_equal(parser_parse(3, argv, &res, err, sizeof(err)), 0);
	assert_int_equal(strlen(res.request), CTL_LINE_MAX - 1);
}

static void
test_n_asks_hosts_and_flows_for_their_top_rows(void **state)
{
	static const struct {
		const char	*args;
		long		 rows;
		int		 rc;
		const char	*out;	/* request, or error */
	} cases[] = {
		{ "hosts", 5, 0, "hosts top 5\n" },
		{ "hosts|upload", 1, 0, "hosts upload top 1\n" },
		{ "flows|download", CTL_TOP_MAX, 0, "flows download top 64\n" },
		{ "flows", 0, -1, "-n: 0 rows is not in 1 to 64" },
		{ "hosts|upload", CTL_TOP_MAX + 1, -1,
		    "-n: 65 rows is not in 1 to 64" },
		{ "stats", 5, -1, "-n: only with hosts, flows and watch" },
		{ "set|upload|rtt|5ms", 5, -1,
		    "-n: only with hosts, flows and watch" },
	};
	struct parser_result	 res;
	char			 buf[256], err[256], *argv[ARGS_MAX];
	size_t			 i;
	int			 argc;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		argc = split(cases[i].args, buf, sizeof(buf), argv);
		assert_int_equal(parser_parse(argc, argv, &res, err,
		    sizeof(err)), 0);
		assert_int_equal(parser_top(&res, cases[i].rows, err,
		    sizeof(err)), cases[i].rc);
		if (cases[i].rc == 0)
			assert_string_equal(res.request, cases[i].out);
		else
			assert_string_equal(err, cases[i].out);
	}
	assert_true(PARSER_HAS_TOP(PARSER_HOSTS));
	assert_true(PARSER_HAS_TOP(PARSER_FLOWS));
	assert_false(PARSER_HAS_TOP(PARSER_WATCH));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_commands_give_action_direction_and_request),
		cmocka_unit_test(test_wrong_words_name_what_was_expected),
		cmocka_unit_test(test_overlong_set_is_refused_before_sending),
		cmocka_unit_test(
		    test_n_asks_hosts_and_flows_for_their_top_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
