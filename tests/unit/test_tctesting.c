/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_tctesting.c: the kernel's own cake configuration cases (Linux
 * tc-testing, tests/unit/data/tc-testing-cake.txt) against caked. Each
 * instance is started from the options through the keyword parser (the
 * one that reads caked.conf's options and cakectl set), created in the
 * engine, and its options line printed back from the engine's config;
 * change and replace cases then go through `set upload ...` in the real
 * control command (ctlcmd.c) into cake_change(), and the line the reply
 * carries is compared too.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"

#define TC_LINE_MAX	1024
#define TC_FIELDS	6
#define TC_CASES	21	/* cake.json: 20 qdisc cases and 1 class case */

struct tc_case {
	char	*f[TC_FIELDS];	/* id, kind, options, change, expected, caked */
	int	 nf;
};

/* The fake daemon: one real engine instance as the upload direction. */
static struct cake	*inst;

static int
tc_snapshot(void *arg, int dir, struct cake_stats *st,
    struct cake_config *cfg)
{
	(void)arg;
	if (dir != 0 || inst == NULL)
		return -1;
	cake_get_stats(inst, st);
	cake_get_config(inst, cfg);
	return 0;
}

static int
tc_change(void *arg, int dir, const struct cake_config *cfg, char *err,
    size_t errlen)
{
	(void)arg;
	if (dir != 0 || inst == NULL ||
	    cake_change(inst, cfg, 1000000) != CAKE_OK) {
		(void)snprintf(err, errlen, "refused");
		return -1;
	}
	return 0;
}

static const struct ctlcmd_ops tc_ops = {
	.snapshot = tc_snapshot,
	.change = tc_change,
	.version = "test",
};
static const struct ctlcmd_peer tc_root = { 0, 1, true };

/* Splits one data line at " | "; returns the number of fields. */
static int
tc_split(char *line, struct tc_case *c)
{
	char	*s = line, *bar;

	c->nf = 0;
	while (c->nf < TC_FIELDS) {
		c->f[c->nf++] = s;
		if ((bar = strstr(s, " | ")) == NULL)
			break;
		*bar = '\0';
		s = bar + 3;
	}
	return c->nf;
}

/* tc-testing's match: got starts with want, then ends or goes on. */
static bool
tc_matches(const char *got, const char *want)
{
	size_t	n = strlen(want);

	return strncmp(got, want, n) == 0 &&
	    (got[n] == '\0' || got[n] == ' ');
}

/* The line caked must print: the kernel's, or a documented departure. */
static const char *
tc_expected(const struct tc_case *c)
{
	if (c->nf == 6 && strncmp(c->f[5], "caked: ", 7) == 0)
		return c->f[5] + 7;
	return c->f[4];
}

/* Starts the instance from the options; returns its printed line. */
static void
tc_start(const struct tc_case *c, char *line, size_t len)
{
	struct cake_config	cfg;
	struct cake_env		env;
	char			err[KEYWORDS_ERR_MAX];
	int			e;

	cake_config_default(&cfg);
	if (strcmp(c->f[2], "-") != 0 &&
	    keywords_parse_line(&cfg, c->f[2], err, sizeof(err)) == -1)
		fail_msg("%s: '%s': %s", c->f[0], c->f[2], err);
	memset(&env, 0, sizeof(env));
	env.mtu = 1500;
	env.seed = 1;
	if ((inst = cake_create(&cfg, &env, &e)) == NULL)
		fail_msg("%s: cake_create: %d", c->f[0], e);
	cake_get_config(inst, &cfg);
	assert_int_equal(keywords_format(&cfg, line, len), 0);
}

static void
tc_stop(void)
{
	cake_destroy(inst);
	inst = NULL;
}

/* Sends one request; returns the reply (to json_free()). */
static struct json_value *
tc_request(const char *req, char *out, size_t cap)
{
	struct json_value	*v;
	char			 err[128];
	size_t			 len = 0;

	(void)ctlcmd_handle(&tc_ops, &tc_root, req, out, cap, &len);
	assert_true(len > 0 && len < cap);
	if ((v = json_parse(out, len, err, sizeof(err))) == NULL)
		fail_msg("'%s': reply is not JSON (%s): %s", req, err, out);
	return v;
}

/* change / replace: `set upload OPTS`, as cakectl set sends it. */
static void
tc_change_case(const struct tc_case *c, const char *want)
{
	struct json_value	*v;
	struct cake_config	 cfg;
	char			 req[TC_LINE_MAX], out[CTL_REPLY_MAX];
	char			 line[TC_LINE_MAX];
	const char		*opts;

	(void)snprintf(req, sizeof(req), "set upload %s", c->f[3]);
	v = tc_request(req, out, sizeof(out));
	if (!json_get_bool(v, CTL_KEY_OK, false))
		fail_msg("%s: '%s' refused: %s", c->f[0], req, out);
	opts = json_get_str(v, CTL_KEY_OPTIONS);
	assert_non_null(opts);
	if (!tc_matches(opts, want))
		fail_msg("%s: set replied\n  '%s', expected\n  '%s'",
		    c->f[0], opts, want);
	json_free(v);
	cake_get_config(inst, &cfg);
	assert_int_equal(keywords_format(&cfg, line, sizeof(line)), 0);
	if (!tc_matches(line, want))
		fail_msg("%s: engine has '%s'", c->f[0], line);
}

/* delete: shaped, stats show the line; not shaped, they do not. */
static void
tc_delete_case(const struct tc_case *c, const char *want)
{
	struct json_value	*v;
	char			 out[CTL_REPLY_MAX];

	v = tc_request("stats", out, sizeof(out));
	assert_non_null(strstr(out, want));
	json_free(v);
	tc_stop();
	v = tc_request("stats", out, sizeof(out));
	if (strstr(out, want) != NULL)
		fail_msg("%s: still shown after removal: %s", c->f[0], out);
	json_free(v);
}

/* class: caked has no classes; no reply may name a "class cake". */
static void
tc_class_case(const struct tc_case *c, const char *want)
{
	static const char *const reqs[] = { "class show", "stats" };
	struct json_value	*v;
	char			 out[CTL_REPLY_MAX];
	size_t			 i;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		v = tc_request(reqs[i], out, sizeof(out));
		if (strstr(out, want) != NULL)
			fail_msg("%s: '%s' shows '%s'", c->f[0], reqs[i],
			    want);
		json_free(v);
	}
}

static void
tc_run(const struct tc_case *c)
{
	const char	*kind = c->f[1], *want = tc_expected(c);
	char		 line[TC_LINE_MAX];

	tc_start(c, line, sizeof(line));
	if (strcmp(kind, "add") == 0) {
		if (!tc_matches(line, want))
			fail_msg("%s: caked prints\n  '%s', expected\n  '%s'",
			    c->f[0], line, want);
	} else if (strcmp(kind, "change") == 0 ||
	    strcmp(kind, "replace") == 0)
		tc_change_case(c, want);
	else if (strcmp(kind, "delete") == 0)
		tc_delete_case(c, want);
	else if (strcmp(kind, "class") == 0)
		tc_class_case(c, want);
	else
		fail_msg("%s: unknown kind '%s'", c->f[0], kind);
	if (inst != NULL)
		tc_stop();
}

static void
test_every_tc_testing_case(void **state)
{
	FILE		*fp;
	char		 buf[TC_LINE_MAX];
	struct tc_case	 c;
	int		 n = 0, departures = 0;

	(void)state;
	fp = fopen(TEST_TCTESTING_FILE, "r");
	assert_non_null(fp);
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		if (tc_split(buf, &c) < 5)
			fail_msg("bad data line: %s", buf);
		departures += c.nf == 6;
		tc_run(&c);
		n++;
	}
	fclose(fp);
	assert_int_equal(n, TC_CASES);
	print_message("%d tc-testing cases, %d documented departures\n", n,
	    departures);
}

/* The matcher itself: a prefix must end where a word ends. */
static void
test_match_rule(void **state)
{
	(void)state;
	assert_true(tc_matches("raw overhead 0", "raw overhead"));
	assert_true(tc_matches("raw overhead", "raw overhead"));
	assert_false(tc_matches("raw overhead0", "raw overhead"));
	assert_false(tc_matches("raw overhe", "raw overhead"));
	assert_false(tc_matches("no-split-gso rtt", "split-gso rtt"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_rule),
		cmocka_unit_test(test_every_tc_testing_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
