/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * overflow.h: finding the longest queue for memory-limit drops (doc/cake.md
 * §5): a binary max-heap over every flow queue of every tin, keyed by the
 * queue's backlog in bytes. Like the kernel it is built lazily on the first
 * overflow and then kept up to date only for a while (OVERFLOW_KEEP
 * dequeues after the last overflow), so that a quiet instance pays nothing.
 */
#ifndef CAKED_ENGINE_OVERFLOW_H
#define CAKED_ENGINE_OVERFLOW_H

#include <stdbool.h>
#include <stdint.h>

#define OVERFLOW_KEEP		65535		/* dequeues the heap stays valid */

/*
 * entries = CAKE_MAX_TINS * queues per tin; the two arrays, entries long
 * each, belong to the caller (the instance allocates them at creation).
 */
struct overflow {
	uint32_t	*heap;			/* heap position -> entry */
	uint32_t	*pos;			/* entry -> heap position */
	uint32_t	entries;
	uint32_t	keep;			/* 0: heap not maintained */
};

/*
 * Whether the heap is maintained (for OVERFLOW_KEEP dequeues after an
 * overflow): only then must a backlog change be passed to overflow_update,
 * so the per-packet path checks this inline instead of calling it.
 */
static inline bool
overflow_active(const struct overflow *o)
{
	return o->keep != 0;
}

/* Sets up an unmaintained heap over arrays of entries elements each. */
void		overflow_init(struct overflow *o, uint32_t *heap,
		    uint32_t *pos, uint32_t entries);
/*
 * Returns the entry (tin * queues + queue) with the largest key, building
 * the heap if needed.
 */
uint32_t	overflow_top(struct overflow *o, const uint32_t *keys);
/* Tells the heap that keys[entry] changed (no-op while it is not maintained). */
void		overflow_update(struct overflow *o, const uint32_t *keys,
		    uint32_t entry);
/* Counts one dequeue towards the heap's expiry. */
void		overflow_tick(struct overflow *o);
/* Checks the heap property: true if sound (or not maintained). */
bool		overflow_check(const struct overflow *o, const uint32_t *keys);

#endif /* CAKED_ENGINE_OVERFLOW_H */
