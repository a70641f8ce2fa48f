/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ctlcmd_flows.c: the hosts and flows commands (src/daemon/ctlcmd.c)
 * against the fake daemon and flow tables of fakectl.c: golden JSON, sums
 * per host (source in upload, destination in download), the order, the
 * top N cut and a worst case that must fit the reply cap.
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

static struct cake_flow_stats	big_flows[FLOWS_MAX];

static void
test_hosts_and_flows_replies_match_the_golden_json(void **state)
{
	static const struct {
		const char	*line;
		const char	*golden;
	} cases[] = {
		{ "hosts", "hosts.json" },
		{ "hosts download", "hosts-download.json" },
		{ "flows", "flows.json" },
		{ "flows upload top 2", "flows-upload-top2.json" },
	};
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++)
		golden_request(cases[i].line, cases[i].golden);
}

/* Member i of array a (or NULL). */
static const struct json_value *
nth(const struct json_value *a, size_t i)
{
	const struct json_value	*m;

	assert_non_null(a);
	for (m = a->child; m != NULL && i > 0; m = m->next)
		i--;
	return m;
}

static uint64_t
u64(const struct json_value *obj, const char *key)
{
	uint64_t	v = 0;

	assert_non_null(obj);
	if (json_get_u64(obj, key, &v) == -1)
		fail_msg("no number %s", key);
	return v;
}

/* The rows of dir in the reply to line. */
static const struct json_value *
rows(const char *line, const char *dir, const char *key,
    struct json_value **v)
{
	const struct json_value	*d;

	assert_int_equal(run(&user_peer, line, v), CTLCMD_READ);
	d = json_get(json_get(*v, CTL_KEY_DIRECTIONS), dir);
	assert_non_null(d);
	return json_get(d, key);
}

static void
test_hosts_sum_flows_by_source_up_and_destination_down(void **state)
{
	static const struct {
		const char	*dir;
		size_t		 row;
		const char	*address;
		uint64_t	 bytes, packets, backlog, drops, marks, flows;
	} want[] = {
		{ "upload", 0, "10.1.0.2", 9009600, 6017, 4542, 12, 4, 3 },
		{ "upload", 1, "2001:db8:1::2", 500000, 400, 1514, 1, 0, 1 },
		{ "upload", 2, "10.1.0.3", 8400, 100, 0, 0, 0, 1 },
		{ "upload", 3, "-", 600, 10, 0, 0, 0, 1 },
		{ "download", 0, "10.1.0.4", 2000400, 1404, 3028, 3, 7, 2 },
		{ "download", 1, "10.1.0.2", 300000, 5000, 0, 0, 0, 1 },
	};
	static struct cake_flow_stats	two[2];
	const struct json_value		*a, *h;
	struct json_value		*v;
	size_t				 i;

	(void)state;
	for (i = 0; i < NITEMS(want); i++) {
		a = rows("hosts", want[i].dir, CTL_KEY_HOSTS, &v);
		h = nth(a, want[i].row);
		assert_non_null(h);
		assert_string_equal(json_get_str(h, CTL_KEY_ADDRESS),
		    want[i].address);
		assert_int_equal(u64(h, "bytes"), want[i].bytes);
		assert_int_equal(u64(h, "packets"), want[i].packets);
		assert_int_equal(u64(h, "backlog_bytes"), want[i].backlog);
		assert_int_equal(u64(h, "drops"), want[i].drops);
		assert_int_equal(u64(h, "marks"), want[i].marks);
		assert_int_equal(u64(h, CTL_KEY_FLOWS), want[i].flows);
		json_free(v);
	}
	/* Per-flow 32-bit counters sum into 64 bits. */
	two[0] = two[1] = up_flows[1];
	two[0].drops = two[1].drops = UINT32_MAX;
	two[1].keys.sport = 40009;
	fake.flows[0] = two;
	fake.nflows[0] = 2;
	a = rows("hosts upload", "upload", CTL_KEY_HOSTS, &v);
	assert_int_equal(json_count(a), 1);
	assert_int_equal(u64(nth(a, 0), "drops"), 2ULL * UINT32_MAX);
	assert_int_equal(u64(nth(a, 0), CTL_KEY_FLOWS), 2);
	json_free(v);
}

static void
test_flows_are_busiest_first_and_cut_at_top(void **state)
{
	const struct json_value	*a, *f, *d;
	struct json_value	*v;
	uint64_t		 prev = UINT64_MAX;

	(void)state;
	a = rows("flows upload", "upload", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), NITEMS(up_flows));
	for (f = a->child; f != NULL; f = f->next) {
		assert_true(u64(f, "bytes") <= prev);
		prev = u64(f, "bytes");
	}
	f = nth(a, 0);
	assert_string_equal(json_get_str(f, "proto"), "tcp");
	assert_string_equal(json_get_str(f, "src"), "10.1.0.2");
	assert_int_equal(u64(f, "sport"), 40000);
	assert_string_equal(json_get_str(f, "dst"), "10.2.0.1");
	assert_int_equal(u64(f, "dport"), 5201);
	assert_string_equal(json_get_str(f, "tin"), "Best Effort");
	assert_string_equal(json_get_str(f, "state"), "bulk");
	assert_int_equal(u64(f, "backlog_packets"), 3);
	/* Equal bytes: more packets first. */
	assert_string_equal(json_get_str(nth(a, 2), "proto"), "icmp");
	assert_string_equal(json_get_str(nth(a, 3), "src"), "10.1.0.2");
	assert_string_equal(json_get_str(nth(a, 4), "tin"), "Voice");
	assert_string_equal(json_get_str(nth(a, 5), "proto"), "-");
	json_free(v);

	a = rows("flows top 1", "download", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), 1);
	assert_int_equal(u64(nth(a, 0), "dport"), 51000);
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "download");
	assert_int_equal(u64(d, CTL_KEY_TOTAL), NITEMS(down_flows));
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_int_equal(json_count(json_get(d, CTL_KEY_FLOWS)), 1);
	json_free(v);

	a = rows("hosts upload top 2", "upload", CTL_KEY_HOSTS, &v);
	assert_int_equal(json_count(a), 2);
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_int_equal(u64(d, CTL_KEY_TOTAL), 4);
	json_free(v);

	fake.nflows[0] = 0;	/* nothing has flowed yet */
	a = rows("flows upload", "upload", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), 0);
	json_free(v);
}

static void
test_hosts_and_flows_refuse_bad_arguments(void **state)
{
	static const struct {
		const char	*line;
		const char	*error;
	} cases[] = {
		{ "hosts sideways", "unknown direction 'sideways' (upload or "
		    "download)" },
		{ "flows upload download", "usage: flows [upload | download] "
		    "[top N]" },
		{ "hosts top", "usage: hosts [upload | download] [top N]" },
		{ "hosts upload top 5 6", "usage: hosts [upload | download] "
		    "[top N]" },
		{ "flows 5", "unknown direction '5' (upload or download)" },
		{ "hosts top 0", "top: '0' is not a count from 1 to 64" },
		{ "hosts top 65", "top: '65' is not a count from 1 to 64" },
		{ "flows top -1", "top: '-1' is not a count from 1 to 64" },
		{ "flows top 5x", "top: '5x' is not a count from 1 to 64" },
		{ "flows top 18446744073709551621", "top: "
		    "'18446744073709551621' is not a count from 1 to 64" },
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(&user_peer, cases[i].line, &v),
		    CTLCMD_ERROR);
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    CTL_CODE_USAGE);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
		    cases[i].error);
		json_free(v);
	}
}

/*
 * The longest rows: full-length IPv6 addresses, unnamed protocols, the
 * longest state, every counter at its maximum, a full table of distinct
 * hosts in both directions. CTL_TOP_MAX rows of each must fit.
 */
static void
test_worst_case_top_replies_fit_the_reply_cap(void **state)
{
	static const char *const lines[] = {
		"flows top 64", "hosts top 64",
	};
	struct cake_flow_stats	*f;
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < FLOWS_MAX; i++) {
		f = &big_flows[i];
		memset(f->keys.src, 0xfe, sizeof(f->keys.src));
		memset(f->keys.dst, 0xfe, sizeof(f->keys.dst));
		f->keys.src[0] = f->keys.dst[0] = (uint8_t)(0x10 + i / 256);
		f->keys.src[15] = f->keys.dst[15] = (uint8_t)(0x10 + i % 240);
		f->keys.src[14] = f->keys.dst[14] = (uint8_t)(0x10 + i / 240);
		f->keys.sport = f->keys.dport = 65535;
		f->keys.proto = 253;
		f->keys.family = 6;
		f->tin = 1;
		f->state = CAKE_FLOW_STATE_DECAYING;
		f->qlen = UINT32_MAX;
		f->backlog_bytes = f->bytes = f->pkts = UINT64_MAX / 2 - i;
		f->drops = f->marks = UINT32_MAX;
	}
	fake.flows[0] = fake.flows[1] = big_flows;
	fake.nflows[0] = fake.nflows[1] = FLOWS_MAX;
	for (i = 0; i < NITEMS(lines); i++) {
		assert_int_equal(run(&user_peer, lines[i], &v), CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		print_message("'%s': %zu bytes of %d\n", lines[i],
		    strlen(out), CTL_REPLY_MAX);
		assert_true(strlen(out) < CTL_REPLY_MAX * 3 / 4);
		json_free(v);
	}
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
		    test_hosts_and_flows_replies_match_the_golden_json, setup),
		cmocka_unit_test_setup(
		    test_hosts_sum_flows_by_source_up_and_destination_down,
		    setup),
		cmocka_unit_test_setup(
		    test_flows_are_busiest_first_and_cut_at_top, setup),
		cmocka_unit_test_setup(
		    test_hosts_and_flows_refuse_bad_arguments, setup),
		cmocka_unit_test_setup(
		    test_worst_case_top_replies_fit_the_reply_cap, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
