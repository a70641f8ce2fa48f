/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_handoff.c: the queue that hands a packet's bytes from the thread
 * that read it to the worker thread that shapes it (src/daemon/handoff.c):
 * records of any length come out in order and whole, also across the
 * end of the buffer; a record that does not fit is refused and counted,
 * never half written; the byte counters may wrap; and between two real
 * threads every record arrives once and intact (tests/tsan-handoff.sh
 * runs this under ThreadSanitizer).
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/handoff.h"

#define STRESS_RECORDS	500000ULL
#define STRESS_MAX	1600	/* longest payload, bytes */
#define TEST_BYTES	8192	/* a queue that holds such records */

/* A record: a header naming its sequence and length, then a pattern. */
struct rec_hdr {
	uint64_t	seq;
	uint32_t	len;
	uint32_t	pad;
};

static uint8_t
rec_byte(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

static size_t
rec_len(uint64_t seq)
{
	return (size_t)((seq * 2654435761ULL) % STRESS_MAX);
}

static bool
push_rec(struct handoff *h, uint64_t seq)
{
	uint8_t		data[STRESS_MAX];
	struct rec_hdr	hdr = { seq, (uint32_t)rec_len(seq), 0 };
	size_t		i;

	for (i = 0; i < hdr.len; i++)
		data[i] = rec_byte(seq, i);
	return handoff_push(h, &hdr, sizeof(hdr), data, hdr.len);
}

/* 0 if the record at p is seq's, whole; else how many things are wrong. */
static unsigned int
check_rec(const void *p, size_t len, uint64_t seq)
{
	struct rec_hdr	 hdr;
	const uint8_t	*d = (const uint8_t *)p + sizeof(hdr);
	unsigned int	 bad = 0;
	size_t		 i;

	if (len < sizeof(hdr))
		return 1;
	memcpy(&hdr, p, sizeof(hdr));
	if (hdr.seq != seq || hdr.len != rec_len(seq) ||
	    len != sizeof(hdr) + hdr.len)
		return 1;
	for (i = 0; i < hdr.len; i++)
		if (d[i] != rec_byte(seq, i))
			bad++;
	return bad;
}

static void
test_order_and_lengths(void **state)
{
	struct handoff	*h = handoff_create(100);
	const void	*p;
	size_t		 len;
	uint64_t	 seq;

	(void)state;
	assert_non_null(h);
	assert_int_equal(h->size, HANDOFF_BYTES_MIN);	/* rounded up */
	handoff_destroy(h);
	assert_non_null(h = handoff_create(TEST_BYTES + 1));
	assert_int_equal(h->size, 2 * TEST_BYTES);
	handoff_destroy(h);
	assert_non_null(h = handoff_create(TEST_BYTES));
	assert_null(handoff_peek(h, &len));
	for (seq = 0; seq < 4; seq++)
		assert_true(push_rec(h, seq));
	for (seq = 0; seq < 4; seq++) {
		assert_non_null(p = handoff_peek(h, &len));
		assert_int_equal(check_rec(p, len, seq), 0);
		/* Peeking again gives the same record until released. */
		assert_ptr_equal(handoff_peek(h, &len), p);
		assert_int_equal((uintptr_t)p % 8, 0);
		handoff_release(h);
	}
	assert_null(handoff_peek(h, &len));
	assert_int_equal(handoff_refused(h), 0);
	handoff_destroy(h);
}

/* A full queue refuses whole records, counted; room comes back. */
static void
test_full_and_too_long(void **state)
{
	struct handoff	*h = handoff_create(TEST_BYTES);
	uint8_t		 big[TEST_BYTES];
	const void	*p;
	size_t		 len;
	uint64_t	 in = 0, out = 0;

	(void)state;
	assert_non_null(h);
	memset(big, 0, sizeof(big));
	/* More than a quarter of the queue: never fits. */
	assert_false(handoff_push(h, big, TEST_BYTES / 4 + 1, NULL, 0));
	assert_int_equal(handoff_refused(h), 1);
	while (push_rec(h, in))
		in++;
	assert_true(in > 2);
	assert_int_equal(handoff_refused(h), 2);
	while ((p = handoff_peek(h, &len)) != NULL) {
		assert_int_equal(check_rec(p, len, out++), 0);
		handoff_release(h);
	}
	assert_int_equal(out, in);
	assert_true(push_rec(h, in));	/* room again, after the wrap */
	assert_non_null(p = handoff_peek(h, &len));
	assert_int_equal(check_rec(p, len, in), 0);
	handoff_release(h);
	handoff_destroy(h);
}

/* Byte counters near SIZE_MAX and many wraps of the buffer. */
static void
test_counter_wrap(void **state)
{
	struct handoff	*h = handoff_create(TEST_BYTES);
	const void	*p;
	size_t		 len, start = SIZE_MAX - 3 * 1024 + 1;
	uint64_t	 in = 0, out = 0;

	(void)state;
	assert_non_null(h);
	start &= ~(size_t)7;	/* the producer's offsets stay 8-aligned */
	atomic_store(&h->head, start);
	atomic_store(&h->tail, start);
	while (in < 2000) {
		while (push_rec(h, in))
			in++;
		while ((p = handoff_peek(h, &len)) != NULL && out + 2 < in) {
			assert_int_equal(check_rec(p, len, out++), 0);
			handoff_release(h);
		}
	}
	assert_true(atomic_load(&h->head) < start);	/* it did wrap */
	handoff_destroy(h);
}

static void *
stress_producer(void *arg)
{
	struct handoff	*h = arg;
	uint64_t	 seq;

	for (seq = 0; seq < STRESS_RECORDS; seq++)
		while (!push_rec(h, seq))
			sched_yield();
	return NULL;
}

/* Two threads: every record arrives once, in order, and whole. */
static void
test_two_threads(void **state)
{
	struct handoff	*h = handoff_create(16384);
	const void	*p;
	pthread_t	 t;
	size_t		 len;
	uint64_t	 want = 0, bad = 0;

	(void)state;
	assert_non_null(h);
	assert_int_equal(pthread_create(&t, NULL, stress_producer, h), 0);
	while (want < STRESS_RECORDS) {
		if ((p = handoff_peek(h, &len)) == NULL) {
			sched_yield();
			continue;
		}
		bad += check_rec(p, len, want++);
		handoff_release(h);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(bad, 0);
	assert_null(handoff_peek(h, &len));	/* nothing left over */
	handoff_destroy(h);
}

static void
test_bad_sizes(void **state)
{
	(void)state;
	assert_null(handoff_create(HANDOFF_BYTES_MAX + 1));
	handoff_destroy(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_lengths),
		cmocka_unit_test(test_full_and_too_long),
		cmocka_unit_test(test_counter_wrap),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_bad_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
