/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * handoff.c: the queue of variable-length records (handoff.h). A record
 * is an 8-byte header (its length) and its bytes, padded to 8; a record
 * never wraps: when it does not fit before the end of the buffer, the
 * producer writes a wrap mark there and the record at the start. As in
 * ring.c, the producer publishes with a release store of head after
 * writing the bytes, the consumer frees with a release store of tail
 * after reading them, and each side's acquire load of the other's index
 * orders the bytes. head and tail count bytes and only grow.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/handoff.h"

#define HANDOFF_HDR	8
#define HANDOFF_WRAP	UINT32_MAX	/* header of a wrap mark */

static size_t
handoff_round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct handoff *
handoff_create(size_t bytes)
{
	struct handoff	*h;
	size_t		 n = HANDOFF_BYTES_MIN;

	if (bytes > HANDOFF_BYTES_MAX)
		return NULL;
	while (n < bytes)
		n <<= 1;
	if ((h = aligned_alloc(HANDOFF_CACHE_LINE, sizeof(*h))) == NULL)
		return NULL;
	memset(h, 0, sizeof(*h));
	if ((h->buf = aligned_alloc(HANDOFF_CACHE_LINE, n)) == NULL) {
		free(h);
		return NULL;
	}
	atomic_init(&h->head, 0);
	atomic_init(&h->tail, 0);
	h->size = n;
	return h;
}

void
handoff_destroy(struct handoff *h)
{
	if (h == NULL)
		return;
	free(h->buf);
	free(h);
}

static void
handoff_header(struct handoff *h, size_t off, uint32_t v)
{
	memcpy(h->buf + off, &v, sizeof(v));
}

bool
handoff_push(struct handoff *h, const void *a, size_t alen, const void *b,
    size_t blen)
{
	size_t	head = atomic_load_explicit(&h->head, memory_order_relaxed);
	size_t	tail = atomic_load_explicit(&h->tail, memory_order_acquire);
	size_t	need = HANDOFF_HDR + handoff_round8(alen + blen);
	size_t	off = head & (h->size - 1), pad = 0;

	if (alen + blen > h->size / 4)
		goto refuse;
	if (h->size - off < need)
		pad = h->size - off;	/* a multiple of 8, at least 8 */
	if (h->size - (head - tail) < pad + need)
		goto refuse;
	if (pad > 0) {
		handoff_header(h, off, HANDOFF_WRAP);
		off = 0;
	}
	handoff_header(h, off, (uint32_t)(alen + blen));
	memcpy(h->buf + off + HANDOFF_HDR, a, alen);
	if (blen > 0)
		memcpy(h->buf + off + HANDOFF_HDR + alen, b, blen);
	atomic_store_explicit(&h->head, head + pad + need,
	    memory_order_release);
	return true;
refuse:
	h->refused++;
	return false;
}

const void *
handoff_peek(struct handoff *h, size_t *len)
{
	size_t		tail = atomic_load_explicit(&h->tail,
			    memory_order_relaxed);
	size_t		head = atomic_load_explicit(&h->head,
			    memory_order_acquire);
	size_t		off = tail & (h->size - 1);
	uint32_t	v;

	if (head == tail)
		return NULL;
	memcpy(&v, h->buf + off, sizeof(v));
	if (v == HANDOFF_WRAP) {
		/* The record after the mark was published with it. */
		tail += h->size - off;
		off = 0;
		memcpy(&v, h->buf, sizeof(v));
	}
	h->next = tail + HANDOFF_HDR + handoff_round8(v);
	*len = v;
	return h->buf + off + HANDOFF_HDR;
}

void
handoff_release(struct handoff *h)
{
	atomic_store_explicit(&h->tail, h->next, memory_order_release);
}

uint64_t
handoff_refused(const struct handoff *h)
{
	return h->refused;
}
