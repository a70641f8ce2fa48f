/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_overflow.c: the lazy max-heap of queue backlogs used to pick the
 * victim of a memory-limit drop (src/engine/overflow.c, doc/cake.md §5).
 *
 * The keys live in the test, as the backlogs do in the instance. Every
 * answer of overflow_top() is compared with a linear scan; the updates
 * come from a seeded PRNG so failures replay. Most tests use the size of
 * a default instance (8 tins of 1024 queues); one the largest ("queues
 * 65536"), whose entries do not fit in 16 bits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/overflow.h"

#define OVERFLOW_ENTRIES	(CAKE_MAX_TINS * CAKE_QUEUES_DEFAULT)
#define BIG_ENTRIES		(CAKE_MAX_TINS * CAKE_QUEUES_MAX)

static struct overflow	heap;
static uint32_t		heap_mem[BIG_ENTRIES];
static uint32_t		pos_mem[BIG_ENTRIES];
static uint32_t		keys[BIG_ENTRIES];
static uint64_t		prng_state;

/* An unmaintained heap of the default size, as a new instance has. */
static void
reset_heap(void)
{
	overflow_init(&heap, heap_mem, pos_mem, OVERFLOW_ENTRIES);
}

static void
prng_seed(uint64_t seed)
{
	prng_state = seed;
}

/* splitmix64 */
static uint32_t
prng(void)
{
	uint64_t	z = (prng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static uint32_t
max_key(void)
{
	uint32_t	i, m = 0;

	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		if (keys[i] > m)
			m = keys[i];
	return m;
}

static void
assert_top_is_max(void)
{
	uint32_t	top = overflow_top(&heap, keys);

	assert_true(top < OVERFLOW_ENTRIES);
	if (keys[top] != max_key())
		fail_msg("top %u has key %u, max is %u", top, keys[top],
		    max_key());
}

static int
setup(void **state)
{
	(void)state;
	memset(heap_mem, 0, sizeof(heap_mem));
	memset(pos_mem, 0, sizeof(pos_mem));
	reset_heap();
	memset(keys, 0, sizeof(keys));
	prng_seed(0x5eed);
	return 0;
}

/* A zeroed heap is not maintained; the first top builds it. */
static void
test_first_top_builds_heap(void **state)
{
	uint32_t	i;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = prng() % 100000;
	keys[4321] = 200000;
	assert_int_equal(heap.keep, 0);
	assert_int_equal(overflow_top(&heap, keys), 4321);
	assert_int_equal(heap.keep, OVERFLOW_KEEP);
	assert_true(overflow_check(&heap, keys));
}

/* Ties and an all-zero instance: top is some entry with the max key. */
static void
test_top_with_equal_keys(void **state)
{
	uint32_t	i;

	(void)state;
	assert_top_is_max();	/* all zero */
	for (i = 0; i < OVERFLOW_ENTRIES; i += 3)
		keys[i] = 1514;
	reset_heap();
	assert_top_is_max();
	assert_true(overflow_check(&heap, keys));
}

/*
 * Random key changes (grow, shrink, empty, become the largest), each
 * followed by overflow_update: the heap property holds after every step
 * and top agrees with a linear scan.
 */
static void
test_random_updates_match_linear_scan(void **state)
{
	uint32_t	i, step, e;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = prng() % 4096 == 0 ? prng() % 1000000 : 0;
	assert_top_is_max();
	for (step = 0; step < 6000; step++) {
		e = prng() % OVERFLOW_ENTRIES;
		switch (prng() % 5) {
		case 0:
			keys[e] += prng() % 65536;	/* enqueue */
			break;
		case 1:
			keys[e] -= keys[e] ? prng() % keys[e] : 0; /* dequeue */
			break;
		case 2:
			keys[e] = 0;			/* drained */
			break;
		case 3:
			keys[e] = max_key() + 1;	/* new largest */
			break;
		default:
			keys[e] = prng() % 2000000;
			break;
		}
		overflow_update(&heap, keys, e);
		overflow_tick(&heap);
		assert_true(overflow_check(&heap, keys));
		assert_top_is_max();
	}
}

/* Overload drops: keep cutting the top queue, as cake does. */
static void
test_draining_the_top_visits_queues_in_size_order(void **state)
{
	uint32_t	i, prev = UINT32_MAX, top;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = prng() % 50000;
	for (i = 0; i < 5000; i++) {
		top = overflow_top(&heap, keys);
		assert_true(keys[top] == max_key());
		assert_true(keys[top] <= prev);
		prev = keys[top];
		keys[top] = keys[top] > 1514 ? keys[top] - 1514 : 0;
		overflow_update(&heap, keys, top);
		assert_true(overflow_check(&heap, keys));
	}
}

/* The heap stays maintained for OVERFLOW_KEEP ticks after the last top. */
static void
test_heap_expires_after_keep_ticks(void **state)
{
	uint32_t	i;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = prng() % 100000;
	overflow_top(&heap, keys);
	for (i = 0; i < OVERFLOW_KEEP - 1; i++)
		overflow_tick(&heap);
	assert_int_equal(heap.keep, 1);
	/* still maintained: a change without update breaks the check */
	keys[77] = 1000000;
	assert_false(overflow_check(&heap, keys));
	overflow_update(&heap, keys, 77);
	assert_true(overflow_check(&heap, keys));
	assert_int_equal(heap.heap[0], 77);

	overflow_tick(&heap);
	assert_int_equal(heap.keep, 0);
	/* no longer maintained: check has nothing to hold */
	keys[78] = 2000000;
	assert_true(overflow_check(&heap, keys));
	overflow_tick(&heap);
	assert_int_equal(heap.keep, 0);
}

/* Each top renews the lease. */
static void
test_top_renews_keep(void **state)
{
	uint32_t	i;

	(void)state;
	overflow_top(&heap, keys);
	for (i = 0; i < 1000; i++)
		overflow_tick(&heap);
	assert_int_equal(heap.keep, OVERFLOW_KEEP - 1000);
	overflow_top(&heap, keys);
	assert_int_equal(heap.keep, OVERFLOW_KEEP);
}

/* Updates while expired change nothing; the next top rebuilds. */
static void
test_expired_updates_are_noops_and_top_rebuilds(void **state)
{
	static uint32_t		snap_heap[OVERFLOW_ENTRIES];
	static uint32_t		snap_pos[OVERFLOW_ENTRIES];
	struct overflow		snap;
	uint32_t		i, e;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = prng() % 100000;
	overflow_top(&heap, keys);
	for (i = 0; i < OVERFLOW_KEEP; i++)
		overflow_tick(&heap);
	assert_int_equal(heap.keep, 0);
	snap = heap;
	memcpy(snap_heap, heap_mem, sizeof(snap_heap));
	memcpy(snap_pos, pos_mem, sizeof(snap_pos));
	for (i = 0; i < 2000; i++) {
		e = prng() % OVERFLOW_ENTRIES;
		keys[e] = prng() % 3000000;
		overflow_update(&heap, keys, e);
	}
	assert_memory_equal(&snap, &heap, sizeof(snap));
	assert_memory_equal(snap_heap, heap_mem, sizeof(snap_heap));
	assert_memory_equal(snap_pos, pos_mem, sizeof(snap_pos));
	/* the stale heap would give a wrong answer; top rebuilds */
	assert_true(keys[heap.heap[0]] < max_key());
	assert_top_is_max();
	assert_true(overflow_check(&heap, keys));
	assert_int_equal(heap.keep, OVERFLOW_KEEP);
}

/* The checker itself can fail: corrupt the heap and see it object. */
static void
test_check_detects_corruption(void **state)
{
	uint32_t	i, tmp;

	(void)state;
	for (i = 0; i < OVERFLOW_ENTRIES; i++)
		keys[i] = i + 1;
	overflow_top(&heap, keys);
	assert_true(overflow_check(&heap, keys));
	/* swap root with a leaf, positions kept consistent */
	tmp = heap.heap[0];
	heap.heap[0] = heap.heap[OVERFLOW_ENTRIES - 1];
	heap.heap[OVERFLOW_ENTRIES - 1] = tmp;
	heap.pos[heap.heap[0]] = 0;
	heap.pos[tmp] = OVERFLOW_ENTRIES - 1;
	assert_false(overflow_check(&heap, keys));
	/* positions out of step with the heap */
	reset_heap();
	overflow_top(&heap, keys);
	heap.pos[heap.heap[5]] = 6;
	assert_false(overflow_check(&heap, keys));
}

/*
 * "queues 65536": 524288 entries. Entries above 65535 (the limit of the
 * 16-bit heap of a fixed 1024-queue table) come out of top and update
 * whole, and the heap agrees with a linear scan over all of them.
 */
static void
test_entries_beyond_16_bits(void **state)
{
	uint32_t	i, top, m;

	(void)state;
	overflow_init(&heap, heap_mem, pos_mem, BIG_ENTRIES);
	for (i = 0; i < BIG_ENTRIES; i++)
		keys[i] = prng() % 100000;
	keys[BIG_ENTRIES - 3] = 300000;
	assert_int_equal(overflow_top(&heap, keys), BIG_ENTRIES - 3);
	assert_true(overflow_check(&heap, keys));
	keys[70000] = 400000;
	overflow_update(&heap, keys, 70000);
	assert_int_equal(overflow_top(&heap, keys), 70000);
	keys[70000] = 0;
	overflow_update(&heap, keys, 70000);
	assert_int_equal(overflow_top(&heap, keys), BIG_ENTRIES - 3);
	for (i = 0; i < 2000; i++) {
		uint32_t e = prng() % BIG_ENTRIES;

		keys[e] = prng() % 500000;
		overflow_update(&heap, keys, e);
	}
	assert_true(overflow_check(&heap, keys));
	top = overflow_top(&heap, keys);
	for (i = 0, m = 0; i < BIG_ENTRIES; i++)
		if (keys[i] > m)
			m = keys[i];
	assert_int_equal(keys[top], m);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup(test_first_top_builds_heap, setup),
		cmocka_unit_test_setup(test_top_with_equal_keys, setup),
		cmocka_unit_test_setup(test_random_updates_match_linear_scan,
		    setup),
		cmocka_unit_test_setup(
		    test_draining_the_top_visits_queues_in_size_order, setup),
		cmocka_unit_test_setup(test_heap_expires_after_keep_ticks,
		    setup),
		cmocka_unit_test_setup(test_top_renews_keep, setup),
		cmocka_unit_test_setup(
		    test_expired_updates_are_noops_and_top_rebuilds, setup),
		cmocka_unit_test_setup(test_check_detects_corruption, setup),
		cmocka_unit_test_setup(test_entries_beyond_16_bits, setup),
	};

	return cmocka_run_group_tests_name("overflow", tests, NULL, NULL);
}
