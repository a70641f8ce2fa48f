/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * handoff.h: a bounded single-producer, single-consumer queue of records
 * of any length between two threads, without locks (C11 atomics). Meant
 * for packets a reader steers to another worker's thread: the bytes are
 * copied in, so no buffer crosses threads.
 */
#ifndef CAKED_DAEMON_HANDOFF_H
#define CAKED_DAEMON_HANDOFF_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HANDOFF_CACHE_LINE	64
#define HANDOFF_BYTES_MIN	4096
#define HANDOFF_BYTES_MAX	(1UL << 28)

/*
 * head is written by the producer only, tail (and next, its own copy
 * of the end of the record it looks at) by the consumer only; each on
 * its own cache line.
 */
struct handoff {
	alignas(HANDOFF_CACHE_LINE) _Atomic size_t head;	/* bytes in */
	alignas(HANDOFF_CACHE_LINE) _Atomic size_t tail;	/* bytes out */
	size_t		 next;		/* tail after the peeked record */
	alignas(HANDOFF_CACHE_LINE) size_t size;	/* power of two */
	uint64_t	 refused;	/* producer's: pushes that failed */
	unsigned char	*buf;
};

/*
 * A queue of at least bytes bytes (rounded up to a power of two, within
 * HANDOFF_BYTES_MIN..HANDOFF_BYTES_MAX). NULL on failure.
 */
struct handoff	*handoff_create(size_t bytes);
void		 handoff_destroy(struct handoff *h);
/*
 * Producer: queues one record, a's alen bytes then b's blen (b may be
 * NULL when blen is 0). false, counted in refused, when it does not fit
 * now (or ever: longer than a quarter of the queue).
 */
bool		 handoff_push(struct handoff *h, const void *a, size_t alen,
		    const void *b, size_t blen);
/*
 * Consumer: the oldest record, in place (*len bytes, 8-byte aligned), or
 * NULL when empty. It stays valid until handoff_release(); peeking again
 * before that returns the same record.
 */
const void	*handoff_peek(struct handoff *h, size_t *len);
/* Consumer: frees the record handoff_peek() returned. */
void		 handoff_release(struct handoff *h);
/* Producer: records refused, ever. */
uint64_t	 handoff_refused(const struct handoff *h);

#endif /* CAKED_DAEMON_HANDOFF_H */
