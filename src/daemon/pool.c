/*
 * pool.c: the packet buffers of one direction, allocated once at startup.
 * Every buffer is a struct cake_pkt followed by its data; free buffers
 * are kept on a list through cake_pkt.next. Running out is counted, never
 * fatal: the caller decides what to drop.
 *
 * No allocation after pool_create(); no I/O.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "daemon/pool.h"

#define POOL_ALIGN	64	/* a cache line */

struct pool {
	uint8_t		*mem;
	size_t		 stride;	/* bytes from one buffer to the next */
	uint32_t	 data_bytes;	/* usable bytes after the header */
	uint32_t	 count;
	uint32_t	 nfree;
	uint32_t	 min_free;
	uint64_t	 exhausted;
	struct cake_pkt	*free;
};

static size_t
pool_header_bytes(void)
{
	return (sizeof(struct cake_pkt) + POOL_ALIGN - 1) &
	    ~(size_t)(POOL_ALIGN - 1);
}

struct pool *
pool_create(uint32_t frame_bytes)
{
	struct pool	*p;
	struct cake_pkt	*pkt;
	uint32_t	 i;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if (frame_bytes < POOL_BUF_MIN_BYTES)
		frame_bytes = POOL_BUF_MIN_BYTES;
	p->data_bytes = (frame_bytes + POOL_ALIGN - 1) &
	    ~(uint32_t)(POOL_ALIGN - 1);
	p->stride = pool_header_bytes() + p->data_bytes;
	p->count = POOL_BUFS_MAX;
	if ((size_t)p->count * p->stride > POOL_BYTES_MAX)
		p->count = (uint32_t)(POOL_BYTES_MAX / p->stride);
	if (p->count == 0 ||
	    (p->mem = aligned_alloc(POOL_ALIGN, p->count * p->stride)) ==
	    NULL) {
		free(p);
		return NULL;
	}
	for (i = p->count; i-- > 0;) {
		pkt = (struct cake_pkt *)(void *)(p->mem + i * p->stride);
		pkt->next = p->free;
		p->free = pkt;
	}
	p->nfree = p->min_free = p->count;
	return p;
}

void
pool_destroy(struct pool *p)
{
	if (p == NULL)
		return;
	free(p->mem);
	free(p);
}

struct cake_pkt *
pool_get(struct pool *p)
{
	struct cake_pkt	*pkt;

	if ((pkt = p->free) == NULL) {
		p->exhausted++;
		return NULL;
	}
	p->free = pkt->next;
	if (--p->nfree < p->min_free)
		p->min_free = p->nfree;
	memset(pkt, 0, sizeof(*pkt));
	pkt->data = (uint8_t *)pkt + pool_header_bytes();
	pkt->cap = p->data_bytes;
	pkt->truesize = (uint32_t)p->stride;
	return pkt;
}

void
pool_put(struct pool *p, struct cake_pkt *pkt)
{
	pkt->next = p->free;
	p->free = pkt;
	p->nfree++;
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

	if (cap > p->data_bytes)
		return NULL;
	return pool_get(p);
}

void
pool_get_stats(const struct pool *p, struct pool_stats *st)
{
	st->bufs = p->count;
	st->buf_bytes = p->data_bytes;
	st->free = p->nfree;
	st->min_free = p->min_free;
	st->exhausted = p->exhausted;
}
