/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * pool.h: preallocated packet buffers, each embedding its struct cake_pkt.
 */
#ifndef CAKED_DAEMON_POOL_H
#define CAKED_DAEMON_POOL_H

#include <stdint.h>

#define POOL_BUFS_MAX		4096		/* buffers per pool */
#define POOL_BYTES_MAX		(64u << 20)	/* memory per pool, at most */
#define POOL_BUF_MIN_BYTES	2048		/* data bytes per buffer, min */
#define POOL_LARGE_BYTES_MAX	(32u << 20)	/* large buffers, at most */

struct cake_pkt;
struct json_writer;

struct pool_stats {
	uint32_t	bufs;		/* buffers in the pool */
	uint32_t	buf_bytes;	/* data bytes per buffer */
	uint32_t	free;		/* buffers free now */
	uint32_t	min_free;	/* lowest free count seen */
	uint64_t	exhausted;	/* pool_get() that found none free */
	uint32_t	large_bufs;	/* the same for large buffers */
	uint32_t	large_buf_bytes;
	uint32_t	large_free;
	uint32_t	large_min_free;
	uint64_t	large_exhausted;
};

struct pool;

/*
 * Creates a pool with room for frames of frame_bytes: POOL_BUFS_MAX
 * buffers, or fewer if they would exceed POOL_BYTES_MAX. NULL on ENOMEM.
 */
struct pool	*pool_create(uint32_t frame_bytes);
/*
 * Adds count large buffers of frame_bytes (more than the small ones), or
 * fewer within POOL_LARGE_BYTES_MAX, for GSO super-packets. 0, or -1 if
 * they cannot be allocated (the pool stays usable without them).
 */
int		 pool_add_large(struct pool *p, uint32_t frame_bytes,
		    uint32_t count);
/* Frees the pool; every buffer must have been put back. */
void		 pool_destroy(struct pool *p);
/* Takes a buffer (data, cap, truesize set; the rest 0), or NULL if none. */
struct cake_pkt	*pool_get(struct pool *p);
/* Takes a large buffer, or NULL if none (or none were added). */
struct cake_pkt	*pool_get_large(struct pool *p);
/* Puts back a buffer taken from p, small or large (next is ignored). */
void		 pool_put(struct pool *p, struct cake_pkt *pkt);
/* Puts back every buffer on a list linked by ->next; returns the count. */
uint32_t	 pool_put_list(struct pool *p, struct cake_pkt *list);
/* The struct cake_env allocator: arg is the pool; small buffers first. */
struct cake_pkt	*pool_alloc(void *arg, uint32_t cap);
void		 pool_get_stats(const struct pool *p, struct pool_stats *st);
/* Writes the stats as the "pool" member of the current object. */
void		 pool_json(const struct pool *p, struct json_writer *w);
/* The same for st (e.g. the pools of a direction's workers summed). */
void		 pool_json_stats(const struct pool_stats *st,
		    struct json_writer *w);
/* Adds st to sum (sizes of a buffer are copied, not added). */
void		 pool_stats_add(struct pool_stats *sum,
		    const struct pool_stats *st);

#endif /* CAKED_DAEMON_POOL_H */
