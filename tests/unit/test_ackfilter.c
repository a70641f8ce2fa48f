/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ackfilter.c: unit tests of the ACK filter (src/engine/ackfilter.c,
 * doc/cake.md §6) on whole queues: which ACK is dropped, the trigger,
 * connections, address families and link layers, and packets that cannot
 * be trusted. The eligibility rules, one named test each, are in
 * test_ackfilter_rules.c. The frames come from ackframes.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/ackfilter.h"

#include "ackframes.h"

/*
 * The queue most cases start from on connection c: pure ACKs of 100 and
 * 200, then the trigger, a pure ACK of 300.
 */
static void
build_acks(struct tpkt *q, const struct conn *c)
{
	struct seg	a1 = ack_seg(100), a2 = ack_seg(200), t = ack_seg(300);

	build(&q[0], c, &a1);
	build(&q[1], c, &a2);
	build(&q[2], c, &t);
}

/* ---- which ACK is dropped ----------------------------------------------- */

static void
test_conservative_drops_oldest_of_two_pure_acks(void **state)
{
	struct tpkt	 q[3];
	struct cake_pkt	*prev = NULL;

	(void)state;
	build_acks(q, &conn_v4);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), &q[0].pkt);
	assert_null(prev);
}

static void
test_conservative_keeps_a_single_pure_ack(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);
	struct cake_pkt	*prev = NULL;

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_null(find(q, 2, CAKE_ACK_FILTER, &prev));
	assert_null(prev);
}

static void
test_aggressive_drops_single_ack_directly_before_trigger(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);
	struct cake_pkt	*prev = &q[1].pkt;

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_ptr_equal(find(q, 2, CAKE_ACK_AGGRESSIVE, &prev), &q[0].pkt);
	assert_null(prev);
}

static void
test_aggressive_keeps_single_ack_not_adjacent_to_trigger(void **state)
{
	struct conn	 other = conn_v4;
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), x = ack_seg(5), t = ack_seg(300);

	(void)state;
	other.sport = 40001;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &other, &x);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_AGGRESSIVE, NULL));
}

static void
test_mode_none_never_drops(void **state)
{
	struct tpkt	 q[3];

	(void)state;
	build_acks(q, &conn_v4);
	assert_null(find(q, 3, CAKE_ACK_NONE, NULL));
}

static void
test_queue_with_only_the_trigger_drops_nothing(void **state)
{
	struct tpkt	 q[1];
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[0].pkt;

	(void)state;
	build(&q[0], &conn_v4, &t);
	assert_null(find(q, 1, CAKE_ACK_AGGRESSIVE, &prev));
	assert_null(prev);
	assert_null(ackfilter_find(NULL, &q[0].pkt, CAKE_ACK_AGGRESSIVE,
	    &prev));
}

/* A run of pure ACKs is thinned one per call, always the oldest first. */
static void
thin_run(enum cake_ack_filter mode, size_t survivors)
{
	struct tpkt	 q[6];
	struct seg	 s;
	struct cake_pkt	*head, *got, *prev, *p;
	size_t		 i, left = 6;

	for (i = 0; i < 6; i++) {
		s = ack_seg(100 * (uint32_t)(i + 1));
		build(&q[i], &conn_v4, &s);
	}
	head = chain(q, 6);
	for (i = 0; i < 6; i++) {
		got = ackfilter_find(head, &q[5].pkt, mode, &prev);
		if (got == NULL)
			break;
		assert_ptr_equal(got, head);	/* oldest first */
		assert_null(prev);
		head = got->next;
		left--;
	}
	assert_int_equal(left, survivors + 1);
	for (p = head, i = 0; p != NULL; p = p->next, i++)
		assert_ptr_equal(p, &q[6 - (survivors + 1) + i].pkt);
}

static void
test_conservative_thins_run_to_one_ack_before_trigger(void **state)
{
	(void)state;
	thin_run(CAKE_ACK_FILTER, 1);
}

static void
test_aggressive_thins_run_to_the_trigger_alone(void **state)
{
	(void)state;
	thin_run(CAKE_ACK_AGGRESSIVE, 0);
}

static void
test_other_connections_in_queue_are_skipped(void **state)
{
	struct conn	 other = conn_v4;
	struct tpkt	 q[5];
	struct seg	 x = ack_seg(100), a1 = ack_seg(100);
	struct seg	 a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = NULL;

	(void)state;
	other.dport = 80;
	build(&q[0], &other, &x);
	build(&q[1], &conn_v4, &a1);
	build(&q[2], &other, &x);
	build(&q[3], &conn_v4, &a2);
	build(&q[4], &conn_v4, &t);
	assert_ptr_equal(find(q, 5, CAKE_ACK_FILTER, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

/* ---- the trigger -------------------------------------------------------- */

static void
check_trigger(const struct seg *t, bool filters)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);

	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL),
	    filters ? &q[0].pkt : NULL);
}

static void
test_trigger_with_data_still_filters(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags |= TH_PSH;
	t.payload_bytes = 100;
	check_trigger(&t, true);
}

static void
test_trigger_without_ack_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags = TH_PSH;
	t.payload_bytes = 10;
	check_trigger(&t, false);
}

static void
test_trigger_with_syn_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags |= TH_SYN;
	check_trigger(&t, false);
}

static void
test_trigger_with_malformed_options_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);
	/* A timestamp that claims 12 bytes. */
	const uint8_t	o[] = { 8, 12, 0, 0 };

	(void)state;
	opt_add(&t, o, sizeof(o));
	check_trigger(&t, false);
}

static void
test_trigger_that_is_not_tcp_does_not_filter(void **state)
{
	struct tpkt	 q[3];

	(void)state;
	build_acks(q, &conn_v4);
	q[2].pkt.meta.tuple.proto = 17;
	q[0].pkt.meta.tuple.proto = 17;
	q[1].pkt.meta.tuple.proto = 17;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

/* ---- connections -------------------------------------------------------- */

/* [A(c), A(conn_v4), T(conn_v4)] conservative: A(c) is another connection. */
static void
check_other_connection(const struct conn *c)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	build(&q[0], c, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Aggressive: the same-connection ACK before the trigger goes. */
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, NULL), &q[1].pkt);
}

static void
test_different_ports_are_other_connections(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	c.sport++;
	check_other_connection(&c);
	c = conn_v4;
	c.dport++;
	check_other_connection(&c);
}

static void
test_different_addresses_are_other_connections(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	c.src4[3]++;
	check_other_connection(&c);
	c = conn_v4;
	c.dst4[3]++;
	check_other_connection(&c);
}

static void
test_reverse_direction_is_another_connection(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	memcpy(c.src4, conn_v4.dst4, 4);
	memcpy(c.dst4, conn_v4.src4, 4);
	c.sport = conn_v4.dport;
	c.dport = conn_v4.sport;
	check_other_connection(&c);
}

static void
test_ipv6_with_same_ports_is_another_connection(void **state)
{
	(void)state;
	check_other_connection(&conn_v6);
}

/* ---- address families and link layers ----------------------------------- */

static void
check_family(const struct conn *c)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[2].pkt;

	opt_ts(&a1, 1, 1);
	opt_ts(&a2, 2, 2);
	opt_ts(&t, 3, 3);
	opt_sack1(&t, 500, 600);
	build(&q[0], c, &a1);
	build(&q[1], c, &a2);
	build(&q[2], c, &t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), &q[0].pkt);
	assert_null(prev);
	/* A payload byte in the oldest one keeps it; the other is alone. */
	a1.payload_bytes = 1;
	build(&q[0], c, &a1);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

static void
test_ipv6_acks_are_filtered(void **state)
{
	(void)state;
	check_family(&conn_v6);
}

static void
test_6in4_acks_are_filtered_on_inner_header(void **state)
{
	struct conn	c = conn_6in4;
	struct tpkt	q[3];
	struct seg	a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	t = ack_seg(300);

	(void)state;
	check_family(&conn_6in4);
	/* Another inner address is another connection. */
	c.src6[15] = 7;
	build(&q[0], &c, &a1);
	build(&q[1], &conn_6in4, &a2);
	build(&q[2], &conn_6in4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

static void
test_ethernet_framed_acks_are_filtered(void **state)
{
	(void)state;
	check_family(&(struct conn){
		.net = NET_ETH_V4,
		.src4 = { 10, 0, 0, 1 }, .dst4 = { 10, 0, 0, 2 },
		.sport = 5000, .dport = 22,
	});
}

/* ---- packets that cannot be trusted ------------------------------------- */

static void
test_candidate_whose_header_exceeds_the_frame_is_kept(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100);

	(void)state;
	build_acks(q, &conn_v4);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL), &q[0].pkt);
	/* Data offset 15 (60 bytes) beyond l4_len. */
	q[0].buf[q[0].pkt.meta.l4_off + 12] = 0xf0;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* l4_len beyond the frame. */
	build(&q[0], &conn_v4, &a1);
	q[0].pkt.len -= 1;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* A fragment is never a candidate. */
	build(&q[0], &conn_v4, &a1);
	q[0].pkt.meta.flags |= CAKE_META_FRAG;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

static void
test_truncated_trigger_does_not_filter(void **state)
{
	struct tpkt	 q[3];
	struct seg	 t = ack_seg(300);

	(void)state;
	build_acks(q, &conn_v4);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL), &q[0].pkt);
	q[2].pkt.meta.l4_len = 19;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Data offset 15 (60 bytes) beyond the segment's 20 bytes. */
	build(&q[2], &conn_v4, &t);
	q[2].buf[q[2].pkt.meta.l4_off + 12] = 0xf0;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

/* Deterministic pseudo-random bytes (a 32-bit LCG) for the test below. */
static uint32_t
lcg_next(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* Appends random options: valid timestamps and SACK blocks among junk. */
static void
random_options(struct seg *s, uint32_t *x)
{
	uint32_t	start;
	uint8_t		junk;

	while (s->opt_bytes < OPT_MAX_BYTES) {
		switch (lcg_next(x) % 8) {
		case 0:
		case 1:
			return;
		case 2:
			if (OPT_MAX_BYTES - s->opt_bytes < 12)
				return;
			opt_ts(s, lcg_next(x) % 4, lcg_next(x) % 4);
			break;
		case 3:
			if (OPT_MAX_BYTES - s->opt_bytes < 12)
				return;
			start = 200 + lcg_next(x) % 256;
			opt_sack1(s, start, start + 1 + lcg_next(x) % 256);
			break;
		case 4:
			junk = 1;	/* NOP */
			opt_add(s, &junk, 1);
			break;
		default:
			junk = (uint8_t)(lcg_next(x) % 24);
			opt_add(s, &junk, 1);
			break;
		}
	}
}

/* Moves a built frame into a heap buffer of exactly its length. */
static uint8_t *
exact_copy(struct tpkt *t)
{
	uint8_t	*b = test_malloc(t->pkt.len);

	memcpy(b, t->buf, t->pkt.len);
	t->pkt.data = b;
	return b;
}

/*
 * Random flags and option bytes in candidate and trigger: the result is
 * always NULL or the candidate, and (under ASan) no read leaves a frame
 * that is exactly as long as pkt->len.
 */
static void
test_random_options_never_read_outside_the_frame(void **state)
{
	struct tpkt	 q[2];
	struct seg	 s[2];
	struct cake_pkt	*got;
	uint8_t		*b[2];
	uint32_t	 x = 12345;
	size_t		 i, j, drops = 0;

	(void)state;
	for (i = 0; i < 4000; i++) {
		for (j = 0; j < 2; j++) {
			s[j] = ack_seg(lcg_next(&x) & 0xff);
			s[j].flags = (uint16_t)(TH_ACK |
			    (lcg_next(&x) % 4 == 0 ? TH_PSH : 0));
			random_options(&s[j], &x);
			build(&q[j], &conn_v6, &s[j]);
			b[j] = exact_copy(&q[j]);
		}
		got = find(q, 2, (i & 1) ? CAKE_ACK_AGGRESSIVE :
		    CAKE_ACK_FILTER, NULL);
		assert_true(got == NULL || got == &q[0].pkt);
		drops += got != NULL;
		test_free(b[0]);
		test_free(b[1]);
	}
	assert_true(drops > 20);	/* the drop path was exercised too */
}


int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_conservative_drops_oldest_of_two_pure_acks),
		cmocka_unit_test(test_conservative_keeps_a_single_pure_ack),
		cmocka_unit_test(test_aggressive_drops_single_ack_directly_before_trigger),
		cmocka_unit_test(test_aggressive_keeps_single_ack_not_adjacent_to_trigger),
		cmocka_unit_test(test_mode_none_never_drops),
		cmocka_unit_test(test_queue_with_only_the_trigger_drops_nothing),
		cmocka_unit_test(test_conservative_thins_run_to_one_ack_before_trigger),
		cmocka_unit_test(test_aggressive_thins_run_to_the_trigger_alone),
		cmocka_unit_test(test_other_connections_in_queue_are_skipped),
		cmocka_unit_test(test_trigger_with_data_still_filters),
		cmocka_unit_test(test_trigger_without_ack_does_not_filter),
		cmocka_unit_test(test_trigger_with_syn_does_not_filter),
		cmocka_unit_test(test_trigger_with_malformed_options_does_not_filter),
		cmocka_unit_test(test_trigger_that_is_not_tcp_does_not_filter),
		cmocka_unit_test(test_different_ports_are_other_connections),
		cmocka_unit_test(test_different_addresses_are_other_connections),
		cmocka_unit_test(test_reverse_direction_is_another_connection),
		cmocka_unit_test(test_ipv6_with_same_ports_is_another_connection),
		cmocka_unit_test(test_ipv6_acks_are_filtered),
		cmocka_unit_test(test_6in4_acks_are_filtered_on_inner_header),
		cmocka_unit_test(test_ethernet_framed_acks_are_filtered),
		cmocka_unit_test(test_candidate_whose_header_exceeds_the_frame_is_kept),
		cmocka_unit_test(test_truncated_trigger_does_not_filter),
		cmocka_unit_test(test_random_options_never_read_outside_the_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
