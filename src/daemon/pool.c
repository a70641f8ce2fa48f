/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * pool.c: the packet buffers of one direction, allocated once at startup.
 * Every buffer is a struct cake_pkt followed by its data; free buffers
 * are kept on a list through cake_pkt.next, last in first out, so the
 * buffers in use stay warm in the cache. Running out is counted, never
 * fatal: the caller decides what to drop.
 *
 * An optional second class of large buffers (pool_add_large()) holds GSO
 * super-packets read from a device with offloads; the class a buffer goes
 * back to is told by its cap.
 *
 * No allocation after pool_create(); no I/O.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "common/json.h"
#include "daemon/pool.h"

#define POOL_ALIGN	64	/* a cache line */

/* One class of equal buffers. */
struct pool_class {
	uint8_t		*mem;
	size_t		 stride;	/* bytes from one buffer to the next */
	uint32_t	 data_bytes;	/* usable bytes after the header */
	uint32_t	 count;
	uint32_t	 nfree;
	uint32_t	 min_free;
	uint64_t	 exhausted;
	struct cake_pkt	*free;
};

struct pool {
	struct pool_class	small;
	struct pool_class	large;	/* count 0 unless pool_add_large() */
};

static size_t
pool_header_bytes(void)
{
	return (sizeof(struct cake_pkt) + POOL_ALIGN - 1) &
	    ~(size_t)(POOL_ALIGN - 1);
}

/* Allocates count buffers of data_bytes (rounded up) into c. */
static int
pool_class_init(struct pool_class *c, uint32_t data_bytes, uint32_t count,
    size_t max_bytes)
{
	struct cake_pkt	*pkt;
	uint32_t	 i;

	c->data_bytes = (data_bytes + POOL_ALIGN - 1) &
	    ~(uint32_t)(POOL_ALIGN - 1);
	c->stride = pool_header_bytes() + c->data_bytes;
	c->count = count;
	if ((size_t)c->count * c->stride > max_bytes)
		c->count = (uint32_t)(max_bytes / c->stride);
	if (c->count == 0 ||
	    (c->mem = aligned_alloc(POOL_ALIGN, c->count * c->stride)) ==
	    NULL) {
		c->count = 0;
		return -1;
	}
	for (i = c->count; i-- > 0;) {
		pkt = (struct cake_pkt *)(void *)(c->mem + i * c->stride);
		pkt->next = c->free;
		c->free = pkt;
	}
	c->nfree = c->min_free = c->count;
	return 0;
}

struct pool *
pool_create(uint32_t frame_bytes)
{
	struct pool	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if (frame_bytes < POOL_BUF_MIN_BYTES)
		frame_bytes = POOL_BUF_MIN_BYTES;
	if (pool_class_init(&p->small, frame_bytes, POOL_BUFS_MAX,
	    POOL_BYTES_MAX) == -1) {
		free(p);
		return NULL;
	}
	return p;
}

int
pool_add_large(struct pool *p, uint32_t frame_bytes, uint32_t count)
{
	if (p->large.count != 0 || frame_bytes <= p->small.data_bytes)
		return -1;
	return pool_class_init(&p->large, frame_bytes, count,
	    POOL_LARGE_BYTES_MAX);
}

void
pool_destroy(struct pool *p)
{
	if (p == NULL)
		return;
	free(p->small.mem);
	free(p->large.mem);
	free(p);
}

static struct cake_pkt *
pool_class_get(struct pool_class *c)
{
	struct cake_pkt	*pkt;

	if ((pkt = c->free) == NULL) {
		c->exhausted++;
		return NULL;
	}
	c->free = pkt->next;
	if (--c->nfree < c->min_free)
		c->min_free = c->nfree;
	memset(pkt, 0, sizeof(*pkt));
	pkt->data = (uint8_t *)pkt + pool_header_bytes();
	pkt->cap = c->data_bytes;
	pkt->truesize = (uint32_t)c->stride;
	return pkt;
}

struct cake_pkt *
pool_get(struct pool *p)
{
	return pool_class_get(&p->small);
}

struct cake_pkt *
pool_get_large(struct pool *p)
{
	if (p->large.count == 0)
		return NULL;
	return pool_class_get(&p->large);
}

void
pool_put(struct pool *p, struct cake_pkt *pkt)
{
	struct pool_class *c = pkt->cap > p->small.data_bytes ? &p->large :
	    &p->small;

	pkt->next = c->free;
	c->free = pkt;
	c->nfree++;
}

uint32_t
pool_put_list(struct pool *p, struct cake_pkt *list)
{
	struct cake_pkt	*next;
	uint32_t	 n = 0;

	for (; list != NULL; list = next) {
		next = list->next;
		pool_put(p, list);
		n++;
	}
	return n;
}

struct cake_pkt *
pool_alloc(void *arg, uint32_t cap)
{
	struct pool	*p = arg;

	if (cap <= p->small.data_bytes)
		return pool_get(p);
	if (cap <= p->large.data_bytes)
		return pool_get_large(p);
	return NULL;
}

void
pool_get_stats(const struct pool *p, struct pool_stats *st)
{
	st->bufs = p->small.count;
	st->buf_bytes = p->small.data_bytes;
	st->free = p->small.nfree;
	st->min_free = p->small.min_free;
	st->exhausted = p->small.exhausted;
	st->large_bufs = p->large.count;
	st->large_buf_bytes = p->large.data_bytes;
	st->large_free = p->large.nfree;
	st->large_min_free = p->large.min_free;
	st->large_exhausted = p->large.exhausted;
}

void
pool_json(const struct pool *p, struct json_writer *w)
{
	struct pool_stats	st;

	pool_get_stats(p, &st);
	pool_json_stats(&st, w);
}

void
pool_json_stats(const struct pool_stats *st, struct json_writer *w)
{
	json_object_begin(w, "pool");
	json_uint(w, "buffers", st->bufs);
	json_uint(w, "buffer_bytes", st->buf_bytes);
	json_uint(w, "free", st->free);
	json_uint(w, "min_free", st->min_free);
	json_uint(w, "exhausted", st->exhausted);
	json_uint(w, "large_buffers", st->large_bufs);
	json_uint(w, "large_buffer_bytes", st->large_buf_bytes);
	json_uint(w, "large_free", st->large_free);
	json_uint(w, "large_min_free", st->large_min_free);
	json_uint(w, "large_exhausted", st->large_exhausted);
	json_object_end(w);
}

void
pool_stats_add(struct pool_stats *sum, const struct pool_stats *st)
{
	sum->bufs += st->bufs;
	sum->buf_bytes = st->buf_bytes;
	sum->free += st->free;
	sum->min_free += st->min_free;
	sum->exhausted += st->exhausted;
	sum->large_bufs += st->large_bufs;
	sum->large_buf_bytes = st->large_buf_bytes;
	sum->large_free += st->large_free;
	sum->large_min_free += st->large_min_free;
	sum->large_exhausted += st->large_exhausted;
}
