/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_metrics.c: the Prometheus exposition (src/common/metrics.c). Every
 * numeric leaf of a full stats reply must be exported as a metric or be in
 * the commented omission table: a counter added to the daemon's JSON and
 * forgotten here fails this test. The replies walked are the golden reply
 * of the fake daemon (test_ctlcmd) and one captured from a real caked with
 * NAT and autorate on (stats-daemon.json, see tests/netns/test_metrics.sh,
 * which checks that a live reply has no leaf that capture lacks).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "common/metrics.h"
#include "golden.h"

#define PATH_MAX_LEN	256

struct walk {
	int	leaves;
	int	exported;
	int	unknown;
};

/* Visits every member of v; path is v's own path. */
static void
walk(const struct json_value *v, const char *path, bool in_dirs,
    struct walk *w)
{
	const struct json_value	*c;
	char			 sub[PATH_MAX_LEN];
	int			 rc;

	if (v->type == JSON_NUMBER) {
		w->leaves++;
		rc = metrics_path(path);
		if (rc == METRICS_UNKNOWN) {
			fprintf(stderr, "neither exported nor omitted: %s\n",
			    path);
			w->unknown++;
		} else if (rc == METRICS_EXPORTED)
			w->exported++;
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		if (v->type == JSON_ARRAY)
			rc = snprintf(sub, sizeof(sub), "%s[]", path);
		else
			rc = snprintf(sub, sizeof(sub), "%s%s%s", path,
			    path[0] != '\0' ? "." : "",
			    in_dirs ? "*" : c->key);
		assert_true(rc > 0 && (size_t)rc < sizeof(sub));
		walk(c, sub, strcmp(sub, CTL_KEY_DIRECTIONS) == 0, w);
	}
}

static struct json_value *
load(const char *name)
{
	char			 err[128];
	char			*text;
	size_t			 len;
	struct json_value	*v;

	text = golden_read(name, &len);
	assert_non_null(text);
	v = json_parse(text, len, err, sizeof(err));
	free(text);
	assert_non_null(v);
	return v;
}

static void
test_every_numeric_leaf_is_exported_or_omitted(void **state)
{
	static const char *const replies[] = {
		"stats.json", "stats-daemon.json",
	};
	struct json_value	*v;
	struct walk		 w;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		memset(&w, 0, sizeof(w));
		v = load(replies[i]);
		walk(v, "", false, &w);
		json_free(v);
		fprintf(stderr, "%s: %d numeric leaves, %d exported\n",
		    replies[i], w.leaves, w.exported);
		assert_int_equal(w.unknown, 0);
		/* A full reply: far more than the tc fields alone. */
		assert_true(w.exported > 100);
	}
}

static void
test_a_new_member_is_caught(void **state)
{
	(void)state;
	assert_int_equal(metrics_path("directions.*.io.rx_packets"),
	    METRICS_EXPORTED);
	assert_int_equal(metrics_path("directions.*.tins[].drops"),
	    METRICS_EXPORTED);
	assert_int_equal(metrics_path("time_ns"), METRICS_OMITTED);
	assert_int_equal(metrics_path("directions.*.io.rx_new_thing"),
	    METRICS_UNKNOWN);
	assert_int_equal(metrics_path("nat.drops"), METRICS_UNKNOWN);
	assert_int_equal(metrics_path("nat.inbox_lost_news"),
	    METRICS_EXPORTED);
	assert_int_equal(metrics_path("nat.inbox_lost_asks"),
	    METRICS_EXPORTED);
	assert_int_equal(metrics_path("directions.*.hosts.busiest[]."
	    "sent_bytes"), METRICS_EXPORTED);
	assert_int_equal(metrics_path("directions.*.hosts.busiest[].rtt"),
	    METRICS_UNKNOWN);
}

/* Renders text (a stats reply) into a malloc'd string. */
static char *
render(const char *text)
{
	struct json_value	*v;
	char			 err[128], *buf = NULL;
	size_t			 len = 0;
	FILE			*fp;

	v = json_parse(text, strlen(text), err, sizeof(err));
	assert_non_null(v);
	assert_non_null(fp = open_memstream(&buf, &len));
	assert_int_equal(metrics_render(fp, v), 0);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	return buf;
}

static void
test_unlimited_rate_is_not_exported_as_zero(void **state)
{
	char	*s;

	(void)state;
	s = render("{\"ok\":true,\"uptime_ns\":1500000000,\"directions\":"
	    "{\"upload\":{\"bandwidth\":0,\"sent_bytes\":5,\"tins\":[{\"name\":"
	    "\"Best Effort\",\"threshold_rate\":0,\"peak_delay_us\":1500}]},"
	    "\"download\":{\"bandwidth\":2500000,\"tins\":[]}}}");
	assert_null(strstr(s, "caked_bandwidth_bytes_per_second{direction="
	    "\"upload\"}"));
	assert_non_null(strstr(s, "caked_bandwidth_bytes_per_second{direction="
	    "\"download\"} 2500000\n"));
	assert_null(strstr(s, "caked_tin_threshold_bytes_per_second{"));
	assert_non_null(strstr(s, "caked_tin_peak_delay_seconds{direction="
	    "\"upload\",tin=\"best_effort\"} 0.001500\n"));
	assert_non_null(strstr(s, "caked_sent_bytes_total{direction="
	    "\"upload\"} 5\n"));
	assert_non_null(strstr(s, "caked_uptime_seconds 1.500000000\n"));
	assert_non_null(strstr(s, "caked_build_info{version=\"unknown\"} 1\n"));
	free(s);
}

static void
test_no_delay_is_no_sample_and_labels_are_escaped(void **state)
{
	char	*s;

	(void)state;
	s = render("{\"ok\":true,\"directions\":{\"upload\":{\"autorate\":"
	    "{\"rate\":100,\"delay_us\":-1,\"reflectors\":[{\"address\":"
	    "\"a\\\"b\",\"delta_us\":-250,\"rtt_us\":9000}]}}},"
	    "\"daemon\":{\"version\":\"1.0\",\"last_reload_ok\":1}}");
	assert_null(strstr(s, "caked_autorate_delay_seconds{"));
	assert_non_null(strstr(s, "caked_reflector_delta_seconds{direction="
	    "\"upload\",reflector=\"a\\\"b\"} -0.000250\n"));
	assert_non_null(strstr(s, "caked_config_last_reload_successful 1\n"));
	assert_non_null(strstr(s, "caked_build_info{version=\"1.0\"} 1\n"));
	free(s);
}

static void
test_hosts_are_labelled_escaped_and_bounded_by_the_reply(void **state)
{
	char	*s;

	(void)state;
	/* Addresses come from the daemon; escape them all the same. */
	s = render("{\"ok\":true,\"directions\":{\"download\":{\"hosts\":"
	    "{\"tracked\":3,\"tracked_max\":1024,\"evictions\":7,"
	    "\"busiest\":[{\"address\":\"fd00::1\",\"sent_bytes\":900,"
	    "\"sent_packets\":3,\"drops\":1},{\"address\":\"a\\\\b\\\"c"
	    "\\nd\",\"sent_bytes\":5},{\"sent_bytes\":77}]}}}}");
	assert_non_null(strstr(s, "caked_host_sent_bytes_total{direction="
	    "\"download\",host=\"fd00::1\"} 900\n"));
	assert_non_null(strstr(s, "caked_host_dropped_packets_total{"
	    "direction=\"download\",host=\"fd00::1\"} 1\n"));
	assert_non_null(strstr(s, "caked_host_sent_bytes_total{direction="
	    "\"download\",host=\"a\\\\b\\\"c\\nd\"} 5\n"));
	/* A host without an address is not exported under a made-up one. */
	assert_null(strstr(s, " 77\n"));
	assert_non_null(strstr(s, "caked_hosts_evicted_total{direction="
	    "\"download\"} 7\n"));
	assert_non_null(strstr(s, "# TYPE caked_host_sent_bytes_total "
	    "counter\n"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_every_numeric_leaf_is_exported_or_omitted),
		cmocka_unit_test(test_a_new_member_is_caught),
		cmocka_unit_test(test_unlimited_rate_is_not_exported_as_zero),
		cmocka_unit_test(
		    test_no_delay_is_no_sample_and_labels_are_escaped),
		cmocka_unit_test(
		    test_hosts_are_labelled_escaped_and_bounded_by_the_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
