/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ring.c: the single-producer, single-consumer ring (ring.h). The
 * producer fills a slot, then publishes it with a release store of head;
 * the consumer's acquire load of head therefore sees the slot's bytes.
 * The consumer copies a slot out, then frees it with a release store of
 * tail; the producer's acquire load of tail keeps it from overwriting a
 * slot still being read. head and tail only grow (modulo SIZE_MAX + 1,
 * which a power-of-two mask handles), so full is head - tail == slots.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/ring.h"

struct ring *
ring_create(size_t slots, size_t item_size)
{
	struct ring	*r;
	size_t		 n = 1;

	if (slots == 0 || slots > RING_SLOTS_MAX || item_size == 0)
		return NULL;
	while (n < slots)
		n <<= 1;
	if ((r = aligned_alloc(RING_CACHE_LINE, sizeof(*r))) == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	if ((r->slots = calloc(n, item_size)) == NULL) {
		free(r);
		return NULL;
	}
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	r->mask = n - 1;
	r->item_size = item_size;
	return r;
}

void
ring_destroy(struct ring *r)
{
	if (r == NULL)
		return;
	free(r->slots);
	free(r);
}

bool
ring_push(struct ring *r, const void *item)
{
	size_t	head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t	tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	if (head - tail > r->mask)
		return false;
	memcpy(r->slots + (head & r->mask) * r->item_size, item,
	    r->item_size);
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return true;
}

bool
ring_pop(struct ring *r, void *item)
{
	size_t	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t	head = atomic_load_explicit(&r->head, memory_order_acquire);

	if (head == tail)
		return false;
	memcpy(item, r->slots + (tail & r->mask) * r->item_size,
	    r->item_size);
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	return true;
}

size_t
ring_count(struct ring *r)
{
	size_t	tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t	head = atomic_load_explicit(&r->head, memory_order_acquire);

	return head - tail;
}

size_t
ring_capacity(const struct ring *r)
{
	return r->mask + 1;
}
