/*
 * overflow.h: finding the longest queue for memory-limit drops (CAKE-SPEC
 * §5): a binary max-heap over every flow queue of every tin, keyed by the
 * queue's backlog in bytes. Like the kernel it is built lazily on the first
 * overflow and then kept up to date only for a while (OVERFLOW_KEEP
 * dequeues after the last overflow), so that a quiet instance pays nothing.
 */
#ifndef CAKED_ENGINE_OVERFLOW_H
#define CAKED_ENGINE_OVERFLOW_H

#include <stdbool.h>
#include <stdint.h>

#define OVERFLOW_ENTRIES	(8 * 1024)	/* CAKE_MAX_TINS * CAKE_QUEUES */
#define OVERFLOW_KEEP		65535		/* dequeues the heap stays valid */

struct overflow {
	uint16_t	heap[OVERFLOW_ENTRIES];	/* heap position -> entry */
	uint16_t	pos[OVERFLOW_ENTRIES];	/* entry -> heap position */
	uint32_t	keep;			/* 0: heap not maintained */
};

/* Returns the entry (tin * 1024 + queue) with the largest key, building the heap if needed. */
uint16_t	overflow_top(struct overflow *o, const uint32_t *keys);
/* Tells the heap that keys[entry] changed (no-op while it is not maintained). */
void		overflow_update(struct overflow *o, const uint32_t *keys,
		    uint16_t entry);
/* Counts one dequeue towards the heap's expiry. */
void		overflow_tick(struct overflow *o);
/* Checks the heap property: true if sound (or not maintained). */
bool		overflow_check(const struct overflow *o, const uint32_t *keys);

#endif /* CAKED_ENGINE_OVERFLOW_H */
