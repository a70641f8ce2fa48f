/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_render.c: cakectl's renderers (src/ctl/render.c): the golden JSON
 * replies (written by test_ctlcmd from known snapshots) give golden tc-style
 * text and Prometheus text; incomplete replies are reported, not guessed.
 * hosts and flows replies give golden tables with aligned columns.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ctype.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "ctl/render.h"
#include "common/metrics.h"
#include "golden.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const replies[] = {
	"stats", "stats-upload", "stats-download",
};

typedef int	render_fn(FILE *, const struct json_value *);

/* Renders the golden reply name.json with fn; returns a malloc'd text. */
static char *
render_golden(const char *name, render_fn *fn, int *rc, size_t *len)
{
	struct json_value	*v;
	char			 file[128], err[128], *json, *text = NULL;
	size_t			 json_len;
	FILE			*fp;

	(void)snprintf(file, sizeof(file), "%s.json", name);
	json = golden_read(file, &json_len);
	v = json_parse(json, json_len, err, sizeof(err));
	if (v == NULL)
		fail_msg("%s: %s", file, err);
	assert_non_null(fp = open_memstream(&text, len));
	*rc = fn(fp, v);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	free(json);
	return text;
}

static void
test_stats_text_matches_the_golden_tc_layout(void **state)
{
	char	file[128], *text;
	size_t	i, len;
	int	rc;

	(void)state;
	for (i = 0; i < NITEMS(replies); i++) {
		text = render_golden(replies[i], render_stats, &rc, &len);
		assert_int_equal(rc, 0);
		(void)snprintf(file, sizeof(file), "%s.txt", replies[i]);
		golden_check(file, text, len);
		free(text);
	}
}

static void
test_tin_table_has_tc_column_widths(void **state)
{
	char	*text, *line;
	size_t	 len;
	int	 rc;

	(void)state;
	text = render_golden("stats-upload", render_stats, &rc, &len);
	/* tc/q_cake.c: 10-character label, " %12s" per tin. */
	line = strstr(text, "\n                   Bulk  Best Effort"
	    "        Voice\n");
	assert_non_null(line);
	line = strstr(text, "\n  thresh  ");
	assert_non_null(line);
	assert_int_equal(strcspn(line + 1, "\n"), 10 + 3 * 13);
	free(text);
}

static void
test_metrics_match_the_golden_exposition(void **state)
{
	const char	*name;
	char	file[128], *text;
	size_t	i, len;
	int	rc;

	static const char *const full[] = { "stats-daemon" };

	(void)state;
	for (i = 0; i < NITEMS(replies) + NITEMS(full); i++) {
		name = i < NITEMS(replies) ? replies[i] :
		    full[i - NITEMS(replies)];
		text = render_golden(name, metrics_render, &rc, &len);
		assert_int_equal(rc, 0);
		(void)snprintf(file, sizeof(file), "%s.prom", name);
		golden_check(file, text, len);
		free(text);
	}
}

/* The autorate lines of a real reply: the signal and each reflector. */
static void
test_autorate_signals_and_reflectors(void **state)
{
	char	*text;
	size_t	 len;
	int	 rc;

	(void)state;
	text = render_golden("stats-daemon", render_stats, &rc, &len);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "\n  signal owd: owd 0us passive - "
	    "echo 69us; probes every 100ms; reflectors replaced 0\n"));
	assert_non_null(strstr(text, "\n  reflector 10.204.0.2: baseline "
	    "85us delay 50us rtt 126us replies 68 lost 0 timestamp owd up "
	    "0us down 0us\n"));
	free(text);
}

/*
 * tc's requeues (dev_requeue_skb(): the device refused a dequeued
 * packet) is caked's io.tx_blocked, a write refused with EAGAIN and the
 * frame kept: printed in both of tc's places when the reply carries it,
 * and left out, never a made-up 0, when it does not (the golden replies).
 */
static void
test_requeues_is_the_blocked_writes_or_absent(void **state)
{
	static const char	 add[] = "\"io\":{\"tx_blocked\":7},";
	struct json_value	*v;
	char			 err[128], *json, *text = NULL;
	size_t			 len, json_len, at, n = strlen(add);
	FILE			*fp;

	(void)state;
	json = golden_read("stats-download.json", &json_len);
	/* Give the download direction an io object with 7 blocked writes. */
	assert_non_null(strstr(json, "\"tins\":"));
	at = (size_t)(strstr(json, "\"tins\":") - json);
	assert_non_null(json = realloc(json, json_len + n + 1));
	memmove(json + at + n, json + at, json_len - at + 1);
	memcpy(json + at, add, n);
	assert_non_null(v = json_parse(json, json_len + n, err, sizeof(err)));
	assert_non_null(fp = open_memstream(&text, &len));
	assert_int_equal(render_stats(fp, v), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(text, "overlimits 0 requeues 7)\n"));
	assert_non_null(strstr(text, " backlog 0b 0p requeues 7\n"));
	free(text);
	json_free(v);
	free(json);
	text = render_golden("stats-download", render_stats, &(int){0}, &len);
	assert_null(strstr(text, "requeues"));
	assert_non_null(strstr(text, "overlimits 0)\n"));
	free(text);
}

static void
test_incomplete_replies_are_reported(void **state)
{
	static const char *const docs[] = {
		"{\"version\":1,\"ok\":true}",
		"{\"version\":1,\"ok\":true,\"directions\":[]}",
		"{\"version\":1,\"ok\":true,\"directions\":{\"upload\":{}}}",
		"{\"version\":1,\"ok\":true,\"directions\":{\"upload\":"
		    "{\"tins\":{}}}}",
	};
	struct json_value	*v;
	char			*text = NULL, err[64];
	size_t			 i, len;
	FILE			*fp;

	(void)state;
	for (i = 0; i < NITEMS(docs); i++) {
		v = json_parse(docs[i], strlen(docs[i]), err, sizeof(err));
		assert_non_null(v);
		assert_non_null(fp = open_memstream(&text, &len));
		assert_int_equal(render_stats(fp, v), -1);
		fclose(fp);
		free(text);
		json_free(v);
	}
}

static const struct {
	const char	*name;
	render_fn	*fn;
} tables[] = {
	{ "hosts", render_hosts },
	{ "hosts-download", render_hosts },
	{ "flows", render_flows },
	{ "flows-upload-top2", render_flows },
};

static void
test_hosts_and_flows_tables_match_the_golden_text(void **state)
{
	char	file[128], *text;
	size_t	i, len;
	int	rc;

	(void)state;
	for (i = 0; i < NITEMS(tables); i++) {
		text = render_golden(tables[i].name, tables[i].fn, &rc, &len);
		assert_int_equal(rc, 0);
		(void)snprintf(file, sizeof(file), "%s.txt", tables[i].name);
		golden_check(file, text, len);
		free(text);
	}
}

/*
 * On every row of a table, a left-aligned cell starts where its header
 * ("-NAME") starts and a right-aligned one ends where its header ends.
 */
static void
assert_columns_aligned(const char *table, const char *const heads[],
    size_t n)
{
	const char	*line, *end, *hdr = table, *h;
	size_t		 i, at[16], len, rows = 0;
	bool		 left[16];

	end = strchr(hdr, '\n');
	for (i = 0; i < n; i++) {
		left[i] = heads[i][0] == '-';
		h = heads[i] + left[i];
		/* The word h, not a part of one ("TIN" in "DESTINATION"). */
		for (line = strstr(hdr, h); line != NULL && ((line > hdr &&
		    line[-1] != ' ') ||
		    isupper((unsigned char)line[strlen(h)]));
		    line = strstr(line + 1, h))
			;
		assert_true(line != NULL && line < end);
		at[i] = (size_t)(line - hdr) + (left[i] ? 0 : strlen(h) - 1);
	}
	for (line = end + 1; *line != '\0' && *line != '\n';
	    line = end + 1, rows++) {
		end = strchr(line, '\n');
		assert_non_null(end);
		len = (size_t)(end - line);
		for (i = 0; i < n; i++) {
			assert_true(at[i] < len);
			assert_true(line[at[i]] != ' ');
			if (left[i] && at[i] > 0)
				assert_true(line[at[i] - 1] == ' ');
			if (!left[i] && at[i] + 1 < len)
				assert_true(line[at[i] + 1] == ' ');
		}
	}
	assert_true(rows > 0);
}

static void
test_tables_have_a_header_and_aligned_columns(void **state)
{
	static const char *const host_heads[] = {
		"-HOST", "BYTES", "PACKETS", "BACKLOG", "DROPS", "MARKS",
		"FLOWS",
	};
	static const char *const flow_heads[] = {
		"-PROTO", "-SOURCE", "-DESTINATION", "-TIN", "-STATE", "BYTES",
		"PACKETS", "BACKLOG", "DROPS", "MARKS",
	};
	char	*text, *t;
	size_t	 len;
	int	 rc;

	(void)state;
	text = render_golden("hosts", render_hosts, &rc, &len);
	assert_non_null(strstr(text, "upload: 4 hosts by source address, "
	    "busiest first\n"));
	assert_non_null(strstr(text, "download: 2 hosts by destination "
	    "address, busiest first\n"));
	t = strstr(text, "HOST ");
	assert_non_null(t);
	assert_columns_aligned(t, host_heads, NITEMS(host_heads));
	/* Numbers are right-aligned under their header. */
	assert_non_null(strstr(t, "   BYTES"));
	assert_non_null(strstr(t, "  9009600"));
	free(text);
	text = render_golden("flows-upload-top2", render_flows, &rc, &len);
	assert_non_null(strstr(text, "upload: top 2 of 6 flows, busiest "
	    "first\n"));
	t = strstr(text, "PROTO ");
	assert_non_null(t);
	assert_columns_aligned(t, flow_heads, NITEMS(flow_heads));
	assert_non_null(strstr(t, "10.1.0.2:40000 "));
	assert_non_null(strstr(t, " -> 10.2.0.1:5201 "));
	assert_non_null(strstr(t, "[2001:db8:1::2]:50000 -> "
	    "[2001:db8:2::1]:443 "));
	free(text);
}

static void
test_incomplete_top_replies_are_reported(void **state)
{
	static const struct {
		const char	*doc;
		render_fn	*fn;
		int		 rc;
		const char	*text;
	} cases[] = {
		{ "{\"directions\":{\"upload\":{\"total\":0,"
		    "\"hosts\":[]}}}", render_hosts, 0, "upload: no hosts\n" },
		{ "{\"directions\":{\"upload\":{\"total\":1,"
		    "\"flows\":[]}}}", render_flows, 0, "upload: top 0 of "
		    "1 flow, busiest first\n" "PROTO  SOURCE    DESTINATION"
		    "  TIN  STATE  BYTES  PACKETS  BACKLOG  DROPS  MARKS\n" },
		{ "{\"directions\":{\"upload\":{\"hosts\":[]}}}",
		    render_hosts, -1, "" },
		{ "{\"directions\":{\"upload\":{\"total\":1,"
		    "\"hosts\":{}}}}", render_hosts, -1, "" },
		{ "{\"directions\":{\"upload\":{\"total\":1,\"hosts\":"
		    "[{\"address\":\"10.0.0.1\"}]}}}", render_hosts, -1,
		    NULL },
		{ "{\"version\":1}", render_flows, -1, "" },
	};
	struct json_value	*v;
	char			*text = NULL, err[64];
	size_t			 i, len;
	FILE			*fp;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		v = json_parse(cases[i].doc, strlen(cases[i].doc), err,
		    sizeof(err));
		assert_non_null(v);
		assert_non_null(fp = open_memstream(&text, &len));
		assert_int_equal(cases[i].fn(fp, v), cases[i].rc);
		fclose(fp);
		if (cases[i].text != NULL)
			assert_string_equal(text, cases[i].text);
		free(text);
		json_free(v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_text_matches_the_golden_tc_layout),
		cmocka_unit_test(test_tin_table_has_tc_column_widths),
		cmocka_unit_test(test_metrics_match_the_golden_exposition),
		cmocka_unit_test(test_autorate_signals_and_reflectors),
		cmocka_unit_test(test_requeues_is_the_blocked_writes_or_absent),
		cmocka_unit_test(test_incomplete_replies_are_reported),
		cmocka_unit_test(
		    test_hosts_and_flows_tables_match_the_golden_text),
		cmocka_unit_test(test_tables_have_a_header_and_aligned_columns),
		cmocka_unit_test(test_incomplete_top_replies_are_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
