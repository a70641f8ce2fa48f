/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * overflow.c: the max-heap of queue backlogs used to pick the victim of a
 * memory-limit drop in O(log n) (doc/cake.md §5). It stores entry numbers
 * only; the keys stay in the instance's backlogs[] array.
 */
#include "engine/overflow.h"

static void
swap_at(struct overflow *o, uint32_t a, uint32_t b)
{
	uint32_t	ea = o->heap[a], eb = o->heap[b];

	o->heap[a] = eb;
	o->heap[b] = ea;
	o->pos[eb] = a;
	o->pos[ea] = b;
}

static void
sift_down(struct overflow *o, const uint32_t *keys, uint32_t i)
{
	for (;;) {
		uint32_t	l = 2 * i + 1, r = l + 1, m = i;

		if (l < o->entries && keys[o->heap[l]] > keys[o->heap[m]])
			m = l;
		if (r < o->entries && keys[o->heap[r]] > keys[o->heap[m]])
			m = r;
		if (m == i)
			return;
		swap_at(o, i, m);
		i = m;
	}
}

static void
sift_up(struct overflow *o, const uint32_t *keys, uint32_t i)
{
	while (i > 0) {
		uint32_t	parent = (i - 1) / 2;

		if (keys[o->heap[parent]] >= keys[o->heap[i]])
			return;
		swap_at(o, i, parent);
		i = parent;
	}
}

static void
build(struct overflow *o, const uint32_t *keys)
{
	uint32_t	i;

	for (i = 0; i < o->entries; i++) {
		o->heap[i] = i;
		o->pos[i] = i;
	}
	for (i = o->entries / 2; i-- > 0;)
		sift_down(o, keys, i);
}

void
overflow_init(struct overflow *o, uint32_t *heap, uint32_t *pos,
    uint32_t entries)
{
	o->heap = heap;
	o->pos = pos;
	o->entries = entries;
	o->keep = 0;
}

uint32_t
overflow_top(struct overflow *o, const uint32_t *keys)
{
	if (o->keep == 0)
		build(o, keys);
	o->keep = OVERFLOW_KEEP;
	return o->heap[0];
}

void
overflow_update(struct overflow *o, const uint32_t *keys, uint32_t entry)
{
	uint32_t	i;

	if (o->keep == 0)
		return;
	i = o->pos[entry];
	sift_up(o, keys, i);
	sift_down(o, keys, o->pos[entry]);
}

void
overflow_tick(struct overflow *o)
{
	if (o->keep > 0)
		o->keep--;
}

bool
overflow_check(const struct overflow *o, const uint32_t *keys)
{
	uint32_t	i;

	if (o->keep == 0)
		return true;
	for (i = 0; i < o->entries; i++) {
		if (o->pos[o->heap[i]] != i)
			return false;
		if (i > 0 && keys[o->heap[(i - 1) / 2]] < keys[o->heap[i]])
			return false;
	}
	return true;
}
