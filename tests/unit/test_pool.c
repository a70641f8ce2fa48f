/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_pool.c: the daemon's packet buffer pool (src/daemon/pool.c) and the
 * packet path's rate-limited log (log_rate_warnx() in src/daemon/log.c).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "daemon/log.h"
#include "daemon/pool.h"

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t	x = (uintptr_t)*(void *const *)a;
	uintptr_t	y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static void
pool_gives_every_buffer_once_then_counts_exhaustion(void **state)
{
	struct pool		*p = pool_create(1522);
	struct pool_stats	 st;
	struct cake_pkt		**all;
	uint32_t		 i;

	(void)state;
	assert_non_null(p);
	pool_get_stats(p, &st);
	assert_int_equal(st.bufs, POOL_BUFS_MAX);
	assert_true(st.buf_bytes >= POOL_BUF_MIN_BYTES);
	assert_non_null(all = calloc(st.bufs, sizeof(*all)));
	for (i = 0; i < st.bufs; i++) {
		assert_non_null(all[i] = pool_get(p));
		assert_int_equal(all[i]->len, 0);
		assert_int_equal(all[i]->cap, st.buf_bytes);
		assert_true(all[i]->truesize > all[i]->cap);
		/* The data area is the buffer's own: writing it is safe. */
		memset(all[i]->data, 0xa5, all[i]->cap);
	}
	/* No two buffers overlap: sorted, each starts past the last's end. */
	qsort(all, st.bufs, sizeof(*all), ptr_cmp);
	for (i = 1; i < st.bufs; i++)
		assert_true((uintptr_t)all[i] >= (uintptr_t)all[i - 1]->data +
		    all[i - 1]->cap);
	assert_null(pool_get(p));
	assert_null(pool_get(p));
	pool_get_stats(p, &st);
	assert_int_equal(st.free, 0);
	assert_int_equal(st.min_free, 0);
	assert_int_equal(st.exhausted, 2);
	for (i = 0; i < st.bufs; i++)
		pool_put(p, all[i]);
	pool_get_stats(p, &st);
	assert_int_equal(st.free, st.bufs);
	free(all);
	pool_destroy(p);
}

static void
pool_put_list_returns_a_whole_dropped_list(void **state)
{
	struct pool		*p = pool_create(0);
	struct pool_stats	 st;
	struct cake_pkt		*list = NULL, *pkt;
	int			 i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < 10; i++) {
		assert_non_null(pkt = pool_get(p));
		pkt->next = list;
		list = pkt;
	}
	assert_int_equal(pool_put_list(p, list), 10);
	pool_get_stats(p, &st);
	assert_int_equal(st.free, st.bufs);
	assert_int_equal(st.min_free, st.bufs - 10);
	pool_destroy(p);
}

static void
pool_alloc_refuses_what_does_not_fit(void **state)
{
	struct pool		*p = pool_create(2048);
	struct pool_stats	 st;
	struct cake_pkt		*pkt;

	(void)state;
	assert_non_null(p);
	pool_get_stats(p, &st);
	assert_null(pool_alloc(p, st.buf_bytes + 1));
	assert_non_null(pkt = pool_alloc(p, st.buf_bytes));
	pool_put(p, pkt);
	pool_destroy(p);
}

static void
big_frames_give_fewer_buffers_within_the_memory_bound(void **state)
{
	struct pool		*p = pool_create(65535 + 22);
	struct pool_stats	 st;

	(void)state;
	assert_non_null(p);
	pool_get_stats(p, &st);
	assert_true(st.buf_bytes >= 65535 + 22);
	assert_true(st.bufs < POOL_BUFS_MAX);
	assert_true((uint64_t)st.bufs * st.buf_bytes <= POOL_BYTES_MAX);
	pool_destroy(p);
}

/* Runs log_rate_warnx() at the given times; returns the stderr lines. */
static int
rate_lines(const uint64_t *times_ns, int n, char *out, size_t len)
{
	struct log_rate	rl;
	char		path[] = "/tmp/test_pool.XXXXXX";
	int		fd, saved, i;
	ssize_t		got;

	memset(&rl, 0, sizeof(rl));
	assert_true((fd = mkstemp(path)) != -1);
	(void)unlink(path);
	fflush(stderr);
	saved = dup(2);
	assert_int_equal(dup2(fd, 2), 2);
	for (i = 0; i < n; i++)
		log_rate_warnx(&rl, times_ns[i], "cause %d", i);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	got = pread(fd, out, len - 1, 0);
	close(fd);
	assert_true(got >= 0);
	out[got] = '\0';
	n = 0;
	for (i = 0; out[i] != '\0'; i++)
		n += out[i] == '\n';
	return n;
}

static void
large_buffers_are_a_separate_class_told_by_cap(void **state)
{
	struct pool		*p = pool_create(1522);
	struct pool_stats	 st;
	struct cake_pkt		*small, *big, *seg;

	(void)state;
	assert_non_null(p);
	assert_null(pool_get_large(p));		/* none added yet */
	assert_int_equal(pool_add_large(p, 1000, 4), -1);  /* not larger */
	assert_int_equal(pool_add_large(p, 65600, 2), 0);
	assert_int_equal(pool_add_large(p, 65600, 2), -1); /* only once */
	assert_non_null(big = pool_get_large(p));
	assert_true(big->cap >= 65600);
	assert_int_equal(big->truesize % 64, 0);
	assert_true(big->truesize > big->cap);
	assert_non_null(small = pool_get(p));
	assert_true(small->cap < 65600);
	/* The engine's allocator: small buffers for what fits them. */
	assert_non_null(seg = pool_alloc(p, 1514));
	assert_int_equal(seg->cap, small->cap);
	pool_put(p, seg);
	assert_non_null(seg = pool_alloc(p, 9000));
	assert_int_equal(seg->cap, big->cap);
	assert_null(pool_alloc(p, 9000));	/* both large ones out */
	assert_null(pool_alloc(p, 70000));	/* fits nothing */
	pool_get_stats(p, &st);
	assert_int_equal(st.large_bufs, 2);
	assert_int_equal(st.large_free, 0);
	assert_int_equal(st.free, st.bufs - 1);
	/* Each goes back to its own class. */
	pool_put(p, seg);
	pool_put(p, big);
	pool_put(p, small);
	pool_get_stats(p, &st);
	assert_int_equal(st.large_free, 2);
	assert_int_equal(st.free, st.bufs);
	assert_true(st.large_exhausted >= 1);
	pool_destroy(p);
}

static void
rate_limited_log_writes_one_line_per_second(void **state)
{
	static const uint64_t	 t[] = {
		1000, 2000, 500000000, 1000000999,	/* 1 line, 3 held */
		1000001000,				/* a second later */
		1500000000, 3000000000ULL,
	};
	char			 out[1024];

	(void)state;
	log_init(0, LOG_INFO, "caked");
	assert_int_equal(rate_lines(t, 7, out, sizeof(out)), 3);
	assert_string_equal(out,
	    "caked: cause 0\n"
	    "caked: cause 4 (3 similar lines suppressed)\n"
	    "caked: cause 6 (1 similar lines suppressed)\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    pool_gives_every_buffer_once_then_counts_exhaustion),
		cmocka_unit_test(pool_put_list_returns_a_whole_dropped_list),
		cmocka_unit_test(pool_alloc_refuses_what_does_not_fit),
		cmocka_unit_test(
		    big_frames_give_fewer_buffers_within_the_memory_bound),
		cmocka_unit_test(large_buffers_are_a_separate_class_told_by_cap),
		cmocka_unit_test(rate_limited_log_writes_one_line_per_second),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
