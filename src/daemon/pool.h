/*
 * pool.h: preallocated packet buffers, each embedding its struct cake_pkt.
 */
#ifndef CAKED_DAEMON_POOL_H
#define CAKED_DAEMON_POOL_H

#include <stdint.h>

#define POOL_BUFS_MAX		4096		/* buffers per pool */
#define POOL_BYTES_MAX		(64u << 20)	/* memory per pool, at most */
#define POOL_BUF_MIN_BYTES	2048		/* data bytes per buffer, min */

struct cake_pkt;

struct pool_stats {
	uint32_t	bufs;		/* buffers in the pool */
	uint32_t	buf_bytes;	/* data bytes per buffer */
	uint32_t	free;		/* buffers free now */
	uint32_t	min_free;	/* lowest free count seen */
	uint64_t	exhausted;	/* pool_get() that found none free */
};

struct pool;

/*
 * Creates a pool with room for frames of frame_bytes: POOL_BUFS_MAX
 * buffers, or fewer if they would exceed POOL_BYTES_MAX. NULL on ENOMEM.
 */
struct pool	*pool_create(uint32_t frame_bytes);
/* Frees the pool; every buffer must have been put back. */
void		 pool_destroy(struct pool *p);
/* Takes a buffer (data, cap, truesize set; the rest 0), or NULL if none. */
struct cake_pkt	*pool_get(struct pool *p);
/* Puts back a buffer taken from p (next is ignored). */
void		 pool_put(struct pool *p, struct cake_pkt *pkt);
/* Puts back every buffer on a list linked by ->next; returns the count. */
uint32_t	 pool_put_list(struct pool *p, struct cake_pkt *list);
/* The struct cake_env allocator: arg is the pool. */
struct cake_pkt	*pool_alloc(void *arg, uint32_t cap);
void		 pool_get_stats(const struct pool *p, struct pool_stats *st);

#endif /* CAKED_DAEMON_POOL_H */
