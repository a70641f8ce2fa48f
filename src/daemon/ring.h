/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ring.h: a bounded single-producer, single-consumer queue of fixed-size
 * items between two threads, without locks (C11 atomics).
 */
#ifndef CAKED_DAEMON_RING_H
#define CAKED_DAEMON_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define RING_CACHE_LINE	64
#define RING_SLOTS_MAX	(1U << 20)

/*
 * head is written by the producer only, tail by the consumer only; each
 * on its own cache line so that the two threads do not share one.
 */
struct ring {
	alignas(RING_CACHE_LINE) _Atomic size_t head;	/* next slot written */
	alignas(RING_CACHE_LINE) _Atomic size_t tail;	/* next slot read */
	alignas(RING_CACHE_LINE) size_t mask;		/* slots - 1 */
	size_t		 item_size;
	unsigned char	*slots;
};

/*
 * Creates a ring of at least slots items of item_size bytes (slots is
 * rounded up to a power of two, at most RING_SLOTS_MAX). NULL on failure.
 */
struct ring	*ring_create(size_t slots, size_t item_size);
void		 ring_destroy(struct ring *r);
/* Producer: copies item in; false if the ring is full (nothing copied). */
bool		 ring_push(struct ring *r, const void *item);
/* Consumer: copies the oldest item out; false if the ring is empty. */
bool		 ring_pop(struct ring *r, void *item);
/* Items waiting, as either side sees it at this instant. */
size_t		 ring_count(struct ring *r);
/* How many items the ring holds at most. */
size_t		 ring_capacity(const struct ring *r);

#endif /* CAKED_DAEMON_RING_H */
