/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ring.c: the messages between caked's threads: the single-producer,
 * single-consumer ring (src/daemon/ring.c) keeps order, refuses when full,
 * survives its counters wrapping, and, between two real threads, hands
 * over every item exactly once and intact; the inbox (src/daemon/inbox.c)
 * wakes its receiver for every message and never loses a wakeup; a
 * request answered through src/daemon/reply.c gets a consistent
 * snapshot from the other thread, and an answer after the asker gave up
 * is refused.
 */
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>

#include <cmocka.h>

#include "daemon/inbox.h"
#include "daemon/reply.h"
#include "daemon/ring.h"

#define STRESS_ITEMS	2000000ULL	/* through a 64-slot ring */
#define INBOX_ITEMS	200000ULL
#define POLL_MS		5000	/* a lost wakeup fails, never hangs */

/* An item whose halves check each other: a torn copy shows. */
struct item {
	uint64_t	seq;
	uint64_t	check;
	uint8_t		pad[8];
};

static uint64_t
item_check(uint64_t seq)
{
	return ~seq * 0x9e3779b97f4a7c15ULL;
}

static void
test_order_full_empty(void **state)
{
	struct ring	*r = ring_create(5, sizeof(uint32_t));
	uint32_t	 v;
	uint32_t	 i;

	(void)state;
	assert_non_null(r);
	assert_int_equal(ring_capacity(r), 8);	/* rounded up */
	assert_false(ring_pop(r, &v));
	for (i = 0; i < 8; i++)
		assert_true(ring_push(r, &i));
	v = 99;
	assert_false(ring_push(r, &v));		/* full: refused */
	assert_int_equal(ring_count(r), 8);
	for (i = 0; i < 8; i++) {
		assert_true(ring_pop(r, &v));
		assert_int_equal(v, i);
	}
	assert_false(ring_pop(r, &v));
	assert_int_equal(ring_count(r), 0);
	ring_destroy(r);
}

static void
test_bad_sizes(void **state)
{
	(void)state;
	assert_null(ring_create(0, 8));
	assert_null(ring_create(8, 0));
	assert_null(ring_create(RING_SLOTS_MAX + 1, 8));
	ring_destroy(NULL);
}

/* head and tail near SIZE_MAX: the wrap keeps order and the full test. */
static void
test_counter_wrap(void **state)
{
	struct ring	*r = ring_create(4, sizeof(struct item));
	struct item	 it;
	uint64_t	 in = 0, out = 0;
	int		 round;

	(void)state;
	assert_non_null(r);
	atomic_store(&r->head, SIZE_MAX - 5);
	atomic_store(&r->tail, SIZE_MAX - 5);
	for (round = 0; round < 6; round++) {
		while (ring_count(r) < 4) {
			it.seq = in;
			it.check = item_check(in++);
			assert_true(ring_push(r, &it));
		}
		assert_false(ring_push(r, &it));
		while (ring_count(r) > 1) {
			assert_true(ring_pop(r, &it));
			assert_int_equal(it.seq, out);
			assert_int_equal(it.check, item_check(out++));
		}
	}
	assert_true(atomic_load(&r->head) < 100);	/* it did wrap */
	ring_destroy(r);
}

static void *
stress_producer(void *arg)
{
	struct ring	*r = arg;
	struct item	 it;
	uint64_t	 seq;

	memset(&it, 0, sizeof(it));
	for (seq = 0; seq < STRESS_ITEMS; seq++) {
		it.seq = seq;
		it.check = item_check(seq);
		memset(it.pad, (int)(seq & 0xff), sizeof(it.pad));
		while (!ring_push(r, &it))
			sched_yield();
	}
	return NULL;
}

/* Two threads: every item arrives once, in order, and whole. */
static void
test_two_threads(void **state)
{
	struct ring	*r = ring_create(64, sizeof(struct item));
	struct item	 it;
	pthread_t	 t;
	uint64_t	 want = 0, bad = 0;
	unsigned int	 i;

	(void)state;
	assert_non_null(r);
	assert_int_equal(pthread_create(&t, NULL, stress_producer, r), 0);
	while (want < STRESS_ITEMS) {
		if (!ring_pop(r, &it)) {
			sched_yield();
			continue;
		}
		if (it.seq != want || it.check != item_check(want))
			bad++;
		for (i = 0; i < sizeof(it.pad); i++)
			if (it.pad[i] != (uint8_t)(want & 0xff))
				bad++;
		want = it.seq + 1;	/* a loss or duplicate counts once */
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(want, STRESS_ITEMS);
	assert_false(ring_pop(r, &it));	/* nothing left over */
	ring_destroy(r);
}

static bool
readable(int fd, int ms)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

static void
test_inbox_wakeup(void **state)
{
	struct inbox	*ib = inbox_create(2, sizeof(uint64_t));
	uint64_t	 v = 7;

	(void)state;
	assert_non_null(ib);
	assert_false(readable(inbox_fd(ib), 0));
	assert_int_equal(inbox_post(ib, &v), 0);
	v = 8;
	assert_int_equal(inbox_post(ib, &v), 0);
	assert_int_equal(inbox_post(ib, &v), -1);	/* full */
	assert_int_equal(errno, ENOBUFS);
	assert_int_equal(inbox_refused(ib), 1);
	assert_true(readable(inbox_fd(ib), 0));
	inbox_ack(ib);
	assert_false(readable(inbox_fd(ib), 0));	/* wakeup cleared */
	assert_true(inbox_take(ib, &v));
	assert_int_equal(v, 7);
	assert_true(inbox_take(ib, &v));
	assert_int_equal(v, 8);
	assert_false(inbox_take(ib, &v));
	v = 9;
	assert_int_equal(inbox_post(ib, &v), 0);	/* room again */
	assert_true(readable(inbox_fd(ib), 0));
	inbox_destroy(ib);
}

static void *
inbox_sender(void *arg)
{
	struct inbox	*ib = arg;
	uint64_t	 seq;

	for (seq = 0; seq < INBOX_ITEMS; seq++)
		while (inbox_post(ib, &seq) == -1)
			sched_yield();
	return NULL;
}

/*
 * The receiver sleeps in poll() between rounds, as an event loop does:
 * a message whose wakeup were lost would leave it asleep until POLL_MS.
 */
static void
test_inbox_two_threads(void **state)
{
	struct inbox	*ib = inbox_create(16, sizeof(uint64_t));
	pthread_t	 t;
	uint64_t	 v, want = 0, bad = 0;
	int		 timeouts = 0;

	(void)state;
	assert_non_null(ib);
	assert_int_equal(pthread_create(&t, NULL, inbox_sender, ib), 0);
	while (want < INBOX_ITEMS && timeouts == 0) {
		if (!readable(inbox_fd(ib), POLL_MS)) {
			timeouts++;
			break;
		}
		inbox_ack(ib);
		while (inbox_take(ib, &v)) {
			if (v != want)
				bad++;
			want = v + 1;
		}
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(timeouts, 0);
	assert_int_equal(bad, 0);
	assert_int_equal(want, INBOX_ITEMS);
	inbox_destroy(ib);
}

#define SNAP_REQUESTS	2000
#define SNAP_TIMEOUT_NS	5000000000ULL	/* generous: a lost answer fails */

/* A packet thread's counters: a and b move together, never seen apart. */
struct snap_state {
	struct inbox	*ib;		/* requests: their sequence numbers */
	struct reply	 rep;
	uint64_t	 a, b;		/* the answerer's own */
	uint64_t	 snap_a, snap_b;	/* the answer */
	bool		 stop;
};

static void *
snap_answerer(void *arg)
{
	struct snap_state	*s = arg;
	uint64_t		 seq;

	for (;;) {
		s->a++;			/* "packets" between requests */
		s->b++;
		if (!inbox_take(s->ib, &seq))
			continue;
		if (seq == 0)
			return NULL;	/* stop */
		if (!reply_claim(&s->rep, seq))
			continue;
		s->snap_a = s->a;
		s->snap_b = s->b;
		reply_done(&s->rep, seq);
	}
}

static void
test_reply_snapshot(void **state)
{
	struct snap_state	 s;
	pthread_t		 t;
	uint64_t		 seq, stop = 0, last = 0;
	int			 i, bad = 0, lost = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(reply_init(&s.rep), 0);
	assert_non_null(s.ib = inbox_create(4, sizeof(uint64_t)));
	assert_int_equal(pthread_create(&t, NULL, snap_answerer, &s), 0);
	for (i = 0; i < SNAP_REQUESTS; i++) {
		seq = reply_begin(&s.rep);
		assert_int_equal(inbox_post(s.ib, &seq), 0);
		if (!reply_wait(&s.rep, seq, SNAP_TIMEOUT_NS)) {
			lost++;
			continue;
		}
		if (s.snap_a != s.snap_b || s.snap_a <= last)
			bad++;
		last = s.snap_a;
	}
	assert_int_equal(inbox_post(s.ib, &stop), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(lost, 0);
	assert_int_equal(bad, 0);
	assert_int_equal(s.rep.late, 0);
	inbox_destroy(s.ib);
	reply_fini(&s.rep);
}

/* Nobody answers: the wait ends; a late answer is refused, not written. */
static void
test_reply_timeout(void **state)
{
	struct reply	r;
	struct timespec	t0, t1;
	uint64_t	seq, ms;

	(void)state;
	assert_int_equal(reply_init(&r), 0);
	seq = reply_begin(&r);
	assert_int_not_equal(seq, 0);
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_false(reply_wait(&r, seq, 50000000ULL));
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
	    (uint64_t)(t1.tv_nsec / 1000000) - (uint64_t)(t0.tv_nsec / 1000000);
	assert_true(ms >= 49);
	assert_false(reply_claim(&r, seq));	/* too late */
	assert_int_equal(r.late, 1);
	seq = reply_begin(&r);			/* the next one works */
	assert_true(reply_claim(&r, seq));
	reply_done(&r, seq);
	assert_true(reply_wait(&r, seq, 0));
	assert_false(reply_claim(&r, seq));	/* answered once only */
	reply_fini(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_full_empty),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_counter_wrap),
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_inbox_wakeup),
		cmocka_unit_test(test_inbox_two_threads),
		cmocka_unit_test(test_reply_snapshot),
		cmocka_unit_test(test_reply_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
