/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_hostacct.c: the per-host counters behind the busiest hosts of a
 * stats reply (src/daemon/hostacct.c): counters that only grow, a table
 * that stays bounded under thousands of hosts without losing the busy
 * ones, "busiest" by recent bytes, and the JSON it writes.
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
#include "daemon/hostacct.h"

#define SEC_NS		(1000ULL * 1000 * 1000)

/* 10.x.y.z (IPv4-mapped, as struct cake_tuple holds it). */
static const uint8_t *
v4(uint32_t n)
{
	static uint8_t	a[16];

	memset(a, 0, sizeof(a));
	a[10] = a[11] = 0xff;
	a[12] = 10;
	a[13] = (uint8_t)(n >> 16);
	a[14] = (uint8_t)(n >> 8);
	a[15] = (uint8_t)n;
	return a;
}

static int
setup(void **state)
{
	*state = calloc(1, sizeof(struct hostacct));
	return *state == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	free(*state);
	return 0;
}

static const struct hostacct_entry *
find(const struct hostacct *ha, const uint8_t *addr)
{
	size_t	i;

	for (i = 0; i < HOSTACCT_MAX; i++)
		if (ha->e[i].family != 0 &&
		    memcmp(ha->e[i].addr, addr, 16) == 0)
			return &ha->e[i];
	return NULL;
}

/* The entry of addr in ha, which must exist, with these counters. */
static const struct hostacct_entry *
expect_host(const struct hostacct *ha, const uint8_t *addr, uint64_t bytes,
    uint64_t pkts, uint64_t drops)
{
	const struct hostacct_entry	*e;

	assert_non_null(e = find(ha, addr));
	assert_int_equal(e->bytes, bytes);
	assert_int_equal(e->pkts, pkts);
	assert_int_equal(e->drops, drops);
	return e;
}

static void
test_counts_grow_per_host_and_non_ip_is_ignored(void **state)
{
	struct hostacct		*ha = *state;
	static const uint8_t	 zero[16];
	uint64_t			 t;

	for (t = 0; t < 100; t++) {
		hostacct_sent(ha, v4(1), 4, 1000, t * SEC_NS);
		hostacct_sent(ha, v4(2), 4, 100, t * SEC_NS);
	}
	hostacct_dropped(ha, v4(1), 4);
	hostacct_sent(ha, zero, 0, 1500, 100 * SEC_NS);
	hostacct_dropped(ha, zero, 0);
	expect_host(ha, v4(1), 100000, 100, 1);
	expect_host(ha, v4(2), 10000, 100, 0);
	assert_null(find(ha, zero));
	assert_int_equal(ha->evictions, 0);
}

static void
test_thousands_of_hosts_stay_bounded_and_the_busy_one_stays(void **state)
{
	struct hostacct	*ha = *state;
	uint32_t	 i, used = 0;

	hostacct_sent(ha, v4(7), 4, 60000, SEC_NS);
	for (i = 0; i < 20000; i++)
		hostacct_sent(ha, v4(100 + i), 4, 60, SEC_NS + i);
	hostacct_sent(ha, v4(7), 4, 60000, 2 * SEC_NS);
	for (i = 0; i < HOSTACCT_MAX; i++)
		used += ha->e[i].family != 0;
	assert_int_equal(used, HOSTACCT_MAX);
	assert_int_equal(ha->evictions, 20001 - HOSTACCT_MAX);
	expect_host(ha, v4(7), 120000, 2, 0);
}

static void
test_busiest_is_by_recent_bytes_not_since_start(void **state)
{
	struct hostacct		*ha = *state;
	struct hostacct_entry	 top[3];
	uint32_t		 i;

	/* Host 1 was busy long ago, host 2 is a little busy now. */
	hostacct_sent(ha, v4(1), 4, 1000000, 0);
	for (i = 0; i < 10; i++)
		hostacct_sent(ha, v4(10 + i), 4, 10 + i, 100 * SEC_NS);
	hostacct_sent(ha, v4(2), 4, 5000, 100 * SEC_NS);
	assert_int_equal(hostacct_busiest(ha, 100 * SEC_NS, top, 3), 3);
	assert_memory_equal(top[0].addr, v4(2), 16);
	assert_memory_equal(top[1].addr, v4(19), 16);
	assert_memory_equal(top[2].addr, v4(18), 16);
	/* A window later the previous one still counts; two later, not. */
	assert_int_equal(hostacct_busiest(ha, 110 * SEC_NS, top, 1), 1);
	assert_memory_equal(top[0].addr, v4(2), 16);
	assert_int_equal(hostacct_busiest(ha, 130 * SEC_NS, top, 1), 1);
	assert_memory_equal(top[0].addr, v4(1), 16);
	assert_int_equal(hostacct_busiest(ha, 0, top, 0), 0);
}

static int	json_len;

/* Writes ha's "hosts" member and parses it back. */
static struct json_value *
to_json(const struct hostacct *ha, uint64_t now_ns)
{
	static char		 buf[4 * HOSTACCT_JSON_MAX];
	struct json_writer	 w;
	struct json_value	*v;
	char			 err[128];
	int			 n;

	json_init(&w, buf, sizeof(buf));
	json_object_begin(&w, NULL);
	hostacct_json(ha, now_ns, &w);
	json_object_end(&w);
	assert_true((n = json_finish(&w)) > 0);
	json_len = n;
	v = json_parse(buf, (size_t)n, err, sizeof(err));
	assert_non_null(v);
	return v;
}

static void
test_json_lists_the_exported_number_v4_and_v6(void **state)
{
	struct hostacct		*ha = *state;
	struct json_value	*v;
	const struct json_value	*h, *e;
	uint8_t			 a6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 0, 0, 0, 0, 0x42 };
	uint64_t		 u;
	uint32_t		 i;
	int			 n = 0;

	hostacct_sent(ha, a6, 6, 9000, SEC_NS);
	for (i = 0; i < 3 * HOSTACCT_EXPORTED; i++)
		hostacct_sent(ha, v4(i), 4, 100 + i, SEC_NS);
	v = to_json(ha, SEC_NS);
	h = json_get(v, "hosts");
	assert_int_equal(json_get_u64(h, "tracked", &u), 0);
	assert_int_equal(u, 3 * HOSTACCT_EXPORTED + 1);
	assert_int_equal(json_get_u64(h, "tracked_max", &u), 0);
	assert_int_equal(u, HOSTACCT_MAX);
	e = json_get(h, "busiest")->child;
	assert_string_equal(json_get_str(e, "address"), "fd00::42");
	assert_int_equal(json_get_u64(e, "sent_bytes", &u), 0);
	assert_int_equal(u, 9000);
	e = e->next;
	assert_string_equal(json_get_str(e, "address"), "10.0.0.47");
	for (e = json_get(h, "busiest")->child; e != NULL; e = e->next)
		n++;
	assert_int_equal(n, HOSTACCT_EXPORTED);
	json_free(v);
}

static void
test_json_worst_case_fits_its_bound(void **state)
{
	struct hostacct		*ha = *state;
	struct hostacct_entry	*e;
	uint8_t			 a[16];
	uint32_t		 i;

	/* The longest addresses (39 characters) and counters there are. */
	memset(a, 0xff, sizeof(a));
	for (i = 0; i < HOSTACCT_MAX; i++) {
		a[0] = (uint8_t)(0xf0 | i >> 8);
		a[1] = (uint8_t)i | 0x11;
		hostacct_sent(ha, a, 6, 1500, SEC_NS);
	}
	for (i = 0; i < HOSTACCT_MAX; i++) {
		e = &ha->e[i];
		e->bytes = e->pkts = e->drops = UINT64_MAX;
		ha->evictions = UINT64_MAX;
	}
	json_free(to_json(ha, SEC_NS));
	fprintf(stderr, "worst \"hosts\" member: %d bytes\n", json_len);
	/* The wrapping object adds 2 bytes and the newline 1. */
	assert_true(json_len - 3 <= HOSTACCT_JSON_MAX);
	assert_true(json_len > HOSTACCT_JSON_MAX / 2);
}

/*
 * The tables of a direction's workers merged for a reply: each host's
 * counters summed, windows aligned to the latest, so the busiest are
 * those of the summed recent bytes.
 */
static void
test_merge_sums_hosts_of_several_tables(void **state)
{
	struct hostacct			*sum = *state, *a, *b;
	const struct hostacct_entry	*e;
	struct hostacct_entry		 top[3];

	assert_non_null(a = calloc(1, sizeof(*a)));
	assert_non_null(b = calloc(1, sizeof(*b)));
	hostacct_sent(a, v4(1), 4, 5000, 0);		/* long ago */
	hostacct_sent(a, v4(1), 4, 100, 100 * SEC_NS);
	hostacct_dropped(a, v4(1), 4);
	hostacct_sent(a, v4(2), 4, 300, 100 * SEC_NS);
	hostacct_sent(b, v4(3), 4, 250, 101 * SEC_NS);
	hostacct_sent(b, v4(1), 4, 400, 101 * SEC_NS);
	b->evictions = 2;
	hostacct_merge(sum, a);
	hostacct_merge(sum, b);
	e = expect_host(sum, v4(1), 5500, 3, 1);
	assert_int_equal(e->win_bytes, 500);
	expect_host(sum, v4(3), 250, 1, 0);
	assert_int_equal(sum->evictions, 2);
	/* Recent bytes: host 1 500, host 2 300, host 3 250. */
	assert_int_equal(hostacct_busiest(sum, 101 * SEC_NS, top, 3), 3);
	assert_memory_equal(top[0].addr, v4(1), 16);
	assert_memory_equal(top[1].addr, v4(2), 16);
	assert_memory_equal(top[2].addr, v4(3), 16);
	free(a);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_counts_grow_per_host_and_non_ip_is_ignored, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_thousands_of_hosts_stay_bounded_and_the_busy_one_stays,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_busiest_is_by_recent_bytes_not_since_start, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_json_lists_the_exported_number_v4_and_v6, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_json_worst_case_fits_its_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_merge_sums_hosts_of_several_tables, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
