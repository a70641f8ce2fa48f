/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_tcjson.c: `cakectl -j stats --tc` (src/ctl/tcjson.c) against
 * golden/tc/cake.json, the output of iproute2's tc (`tc -s -j qdisc show
 * dev DEV`, Debian 12, Linux 6.1) for a kernel cake qdisc at
 * "bandwidth 10mbit atm overhead 10". Every object must have tc's keys in
 * tc's order, and every value tc's JSON type; values themselves are
 * caked's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "ctl/tcjson.h"
#include "golden.h"

/* The options of the kernel qdisc tc was run on, as caked prints them. */
#define TC_OPTIONS	"bandwidth 10Mbit diffserv3 triple-isolate nonat " \
	"nowash no-ack-filter split-gso rtt 100ms atm overhead 10"

static void
same_shape(const struct json_value *want, const struct json_value *got,
    const char *where)
{
	const struct json_value	*w, *g;
	char			 sub[256];

	if (want->type != got->type)
		fail_msg("%s: type %d, tc has %d", where, got->type,
		    want->type);
	if (want->type == JSON_ARRAY) {
		/* Every element (a tin) has the shape of tc's first. */
		assert_non_null(want->child);
		assert_non_null(got->child);
		for (g = got->child; g != NULL; g = g->next)
			same_shape(want->child, g, where);
		return;
	}
	if (want->type != JSON_OBJECT)
		return;
	for (w = want->child, g = got->child; w != NULL && g != NULL;
	    w = w->next, g = g->next) {
		if (strcmp(w->key, g->key) != 0)
			fail_msg("%s: key '%s' where tc has '%s'", where,
			    g->key, w->key);
		(void)snprintf(sub, sizeof(sub), "%s.%s", where, w->key);
		same_shape(w, g, sub);
	}
	if (w != NULL)
		fail_msg("%s: missing tc's key '%s'", where, w->key);
	if (g != NULL)
		fail_msg("%s: key '%s' that tc lacks", where, g->key);
}

static struct json_value *
parse(const char *text, size_t len)
{
	struct json_value	*v;
	char			 err[128];

	v = json_parse(text, len, err, sizeof(err));
	if (v == NULL)
		fail_msg("bad JSON: %s", err);
	return v;
}

/* The golden upload reply with options opts; tcjson's output of it. */
static char *
render_upload(const char *opts, size_t *len)
{
	static const char	 key[] = "\"options\":\"";
	struct json_value	*v;
	char			*in, *p, *q, *text, *out = NULL;
	size_t			 n, outlen = 0;
	FILE			*fp;

	in = golden_read("stats-upload.json", &n);
	assert_non_null(p = strstr(in, key));
	p += strlen(key);
	assert_non_null(q = strchr(p, '"'));
	assert_non_null(text = malloc(n + strlen(opts) + 1));
	(void)snprintf(text, n + strlen(opts) + 1, "%.*s%s%s",
	    (int)(p - in), in, opts, q);
	v = parse(text, strlen(text));
	assert_non_null(fp = open_memstream(&out, &outlen));
	assert_int_equal(tcjson_render(fp, v), 0);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	free(text);
	free(in);
	*len = outlen;
	return out;
}

static void
test_keys_and_types_match_real_tc_output(void **state)
{
	struct json_value	*want, *got;
	char			*golden, *out;
	size_t			 glen, olen;

	(void)state;
	golden = golden_read("../tc/cake.json", &glen);
	want = parse(golden, glen);
	out = render_upload(TC_OPTIONS, &olen);
	/* One line per direction. */
	assert_true(olen > 0 && out[olen - 1] == '\n');
	assert_ptr_equal(strchr(out, '\n'), out + olen - 1);
	got = parse(out, olen);
	same_shape(want, got, "qdisc");
	assert_int_equal(json_count(got), 1);
	assert_int_equal(json_count(json_get(got->child, "tins")), 3);
	json_free(want);
	json_free(got);
	free(golden);
	free(out);
}

static void
test_values_come_from_the_reply(void **state)
{
	struct json_value	*got;
	const struct json_value	*q, *o, *t;
	char			*out;
	size_t			 olen;
	uint64_t		 v;

	(void)state;
	out = render_upload(TC_OPTIONS, &olen);
	got = parse(out, olen);
	q = got->child;
	o = json_get(q, "options");
	assert_string_equal(json_get_str(q, "kind"), "cake");
	assert_int_equal(json_get_u64(o, "bandwidth", &v), 0);
	assert_int_equal(v, 1250000);
	assert_string_equal(json_get_str(o, "atm"), "atm");
	assert_string_equal(json_get_str(o, "ack-filter"), "disabled");
	assert_int_equal(json_get_u64(o, "rtt", &v), 0);
	assert_int_equal(v, 100000);
	assert_int_equal(json_get_u64(q, "bytes", &v), 0);
	assert_int_equal(v, 123456789);
	assert_int_equal(json_get_u64(q, "qlen", &v), 0);
	assert_int_equal(v, 3);
	t = json_get(q, "tins")->child->next;	/* Best Effort */
	assert_int_equal(json_get_u64(t, "peak_delay_us", &v), 0);
	assert_int_equal(v, 8702);
	json_free(got);
	free(out);
}

static void
test_both_directions_and_unlimited(void **state)
{
	struct json_value	*v, *line;
	char			*in, *out = NULL, *nl;
	size_t			 n, olen = 0;
	FILE			*fp;

	(void)state;
	in = golden_read("stats.json", &n);
	v = parse(in, n);
	assert_non_null(fp = open_memstream(&out, &olen));
	assert_int_equal(tcjson_render(fp, v), 0);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	assert_non_null(nl = strchr(out, '\n'));
	line = parse(nl + 1, strlen(nl + 1));
	assert_string_equal(json_get_str(line->child, "handle"), "2:");
	assert_true(json_get_bool(json_get(line->child, "options"),
	    "ingress", false));
	json_free(line);
	free(out);
	free(in);
	/* tc prints an unlimited rate as a string. */
	out = render_upload("bandwidth unlimited besteffort flows nonat "
	    "nowash ack-filter-aggressive no-split-gso rtt 100ms raw "
	    "overhead 0", &olen);
	v = parse(out, olen);
	assert_string_equal(json_get_str(json_get(v->child, "options"),
	    "bandwidth"), "unlimited");
	assert_string_equal(json_get_str(json_get(v->child, "options"),
	    "ack-filter"), "aggressive");
	assert_null(json_get(json_get(v->child, "options"), "atm"));
	json_free(v);
	free(out);
	/* A reply without its counters is refused, not zero-filled. */
	v = parse("{\"directions\":{\"upload\":{\"options\":\""
	    TC_OPTIONS "\",\"tins\":[]}}}", strlen("{\"directions\":"
	    "{\"upload\":{\"options\":\"" TC_OPTIONS "\",\"tins\":[]}}}"));
	out = NULL;
	assert_non_null(fp = open_memstream(&out, &olen));
	assert_int_equal(tcjson_render(fp, v), -1);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_types_match_real_tc_output),
		cmocka_unit_test(test_values_come_from_the_reply),
		cmocka_unit_test(test_both_directions_and_unlimited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
