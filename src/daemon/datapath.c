/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * datapath.c: the packet path of one direction. A wakeup reads a bounded
 * batch from the ingress device into pool buffers, parses each frame once
 * and queues it in the direction's CAKE instance; sending dequeues what
 * the shaper allows and writes it to the egress device: every packet
 * whose departure falls within horizon_ns, so one wakeup sends a batch
 * (cake_dequeue_ahead() keeps the rate exact). A frame the device
 * refuses with EAGAIN is held, not dropped, and sending stops until the
 * device is writable again.
 *
 * On devices with a vnet header (offload = yes) frames are read and
 * written through vnet.c (GSO super-packets in large pool buffers), and
 * segments of one TCP flow that leave the engine together are written as
 * one super-packet (gro.c) by one writev() that gathers their payloads,
 * which the kernel segments again.
 *
 * A device may have several queues (tun_open_queues()), each read with
 * its own budget (a batch) when it is readable: the loop's poll wakes
 * every ready queue once per turn, so a flood the kernel put on one
 * queue takes one batch per turn while a quiet queue is emptied every
 * turn, and never overflows in the kernel behind the flood. Writes go to
 * one queue per flow (a hash of its addresses and ports): the kernel's
 * TAP remembers the queue a flow was last written on and sends that
 * flow's other direction to the same queue, so per-flow writes keep each
 * flow on one queue (no flapping of that table) and spread flows over
 * all of them. A flow whose queue is busy (the other direction's last
 * read of it left frames waiting: a flood the kernel put there) is
 * written to the next queue that is not, so its other direction is read
 * from a quiet queue, away from the flood; a queue stays busy for a
 * second after it last was, so that such flows do not flap back.
 *
 * Nothing is dropped silently: every frame read ends as sent, or in a
 * counter of struct datapath_stats. Nothing here logs per packet; errors
 * go through log_rate_warnx(). The module neither sleeps nor arms timers:
 * loop.c asks datapath_next_ns() and wakes it.
 */
#include <sys/uio.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "common/json.h"
#include "daemon/conntrack.h"
#include "daemon/datapath.h"
#include "daemon/gro.h"
#include "daemon/handoff.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/natcache.h"
#include "daemon/pool.h"
#include "daemon/tun.h"
#include "daemon/vnet.h"
#include "daemon/ring.h"
#include "engine/tsrtt.h"

#define DATAPATH_SCRATCH_BYTES	65536	/* longer than any TUN/TAP frame */

enum datapath_write {
	WRITE_DONE,		/* written, or dropped and counted */
	WRITE_BLOCKED,
	WRITE_GONE,
};

/* Where frames go when the pool is empty; their content is never used. */
/* One per thread: each direction may run on its own (threads = 2). */
static _Thread_local uint8_t datapath_scratch[DATAPATH_SCRATCH_BYTES];

void
datapath_init(struct datapath *dp, const char *name, int in_fd, int out_fd,
    enum cake_link link, struct group *group, struct pool *pool)
{
	memset(dp, 0, sizeof(*dp));
	dp->name = name;
	dp->in_fd = in_fd;
	dp->out_fd = out_fd;
	dp->link = link;
	dp->group = group;
	dp->pool = pool;
	dp->in_fds[0] = in_fd;
	dp->in_queues = 1;
	dp->out_fds[0] = out_fd;
	dp->out_queues = 1;
	dp->in_vnet = tun_has_vnet(in_fd);
	dp->out_vnet = tun_has_vnet(out_fd);
	dp->worker = -1;
	dp->hot = &dp->in_hot;
}

void
datapath_set_worker(struct datapath *dp, unsigned int w,
    struct handoff *const out[], struct handoff *const in[],
    const int wake[])
{
	unsigned int	j;

	dp->worker = (int)w;
	for (j = 0; j < GROUP_WORKERS_MAX; j++) {
		dp->hand_out[j] = j != w ? out[j] : NULL;
		dp->hand_in[j] = j != w ? in[j] : NULL;
		dp->hand_wake[j] = j != w ? wake[j] : -1;
	}
	cake_set_alloc(group_worker(dp->group, w), pool_alloc, dp->pool);
}

/* The instance dp queues to: its worker's, or NULL for the whole group. */
static struct cake *
datapath_own(const struct datapath *dp)
{
	return dp->worker < 0 ? NULL : group_worker(dp->group,
	    (unsigned int)dp->worker);
}

void
datapath_get_stats(const struct datapath *dp, struct cake_stats *st)
{
	if (dp->worker < 0)
		group_get_stats(dp->group, st);
	else
		cake_get_stats(datapath_own(dp), st);
}

void
datapath_sync(struct datapath *dp, uint64_t now_ns)
{
	if (dp->worker < 0)
		return;
	group_lend_sync(dp->group, (unsigned int)dp->worker, now_ns);
	dp->sync_ns = now_ns;
}

void
datapath_set_queues(struct datapath *dp, const int in[], unsigned int nin,
    const int out[], unsigned int nout)
{
	dp->in_queues = nin >= 1 && nin <= TUN_QUEUES_MAX ? nin : 1;
	dp->out_queues = nout >= 1 && nout <= TUN_QUEUES_MAX ? nout : 1;
	memcpy(dp->in_fds, in, dp->in_queues * sizeof(in[0]));
	memcpy(dp->out_fds, out, dp->out_queues * sizeof(out[0]));
	dp->in_fd = in[0];
	dp->out_fd = out[0];
}

void
datapath_set_conntrack(struct datapath *dp, struct conntrack *ct,
    bool inbound)
{
	dp->nat = ct;
	dp->nat_inbound = inbound;
}

void
datapath_set_natcache(struct datapath *dp, struct natcache *cache,
    struct inbox *ask, bool inbound)
{
	dp->nat_cache = cache;
	dp->nat_ask = ask;
	dp->nat_inbound = inbound;
}

void
datapath_set_nat(struct datapath *dp, bool nat, bool mark)
{
	dp->nat_use = nat;
	dp->nat_mark = mark;
}

/*
 * Pre-NAT keys and mark from conntrack: directly with threads = 1; from
 * this thread's cache with threads = 2, a miss posted to main (a full
 * inbox loses the query, counted there: the next miss asks again).
 */
static void
datapath_nat(struct datapath *dp, struct cake_pkt *pkt, uint64_t now_ns)
{
	struct cake_tuple	ask;

	if (dp->nat != NULL)
		conntrack_classify(dp->nat, pkt, dp->nat_inbound,
		    dp->nat_use, dp->nat_mark, now_ns);
	else if (dp->nat_cache != NULL && natcache_classify(dp->nat_cache,
	    pkt, dp->nat_inbound, dp->nat_use, dp->nat_mark, now_ns, &ask))
		(void)inbox_post(dp->nat_ask, &ask);
}

/* The keys the engine hashed the packet by: pre-NAT when conntrack knew. */
static const struct cake_tuple *
datapath_keys(const struct cake_pkt *pkt)
{
	return pkt->hash_valid ? &pkt->hash_tuple : &pkt->meta.tuple;
}

/* The host of pkt, as `cakectl hosts` sums flows: source or destination. */
static const uint8_t *
datapath_host(const struct datapath *dp, const struct cake_pkt *pkt)
{
	return dp->hosts_by_dst ? datapath_keys(pkt)->dst :
	    datapath_keys(pkt)->src;
}

/*
 * group_dequeue_ahead() within the direction's horizon, with the packet
 * counted for its host.
 */
static struct cake_pkt *
datapath_dequeue(struct datapath *dp, uint64_t now_ns)
{
	struct cake_pkt	*pkt;

	if (dp->worker >= 0)
		pkt = cake_dequeue_ahead(datapath_own(dp), now_ns,
		    dp->horizon_ns);
	else
		pkt = group_dequeue_ahead(dp->group, now_ns, dp->horizon_ns);
	if (pkt != NULL)
		hostacct_sent(&dp->hosts, datapath_host(dp, pkt),
		    datapath_keys(pkt)->family, pkt->len, now_ns);
	return pkt;
}

void
datapath_set_tsrtt(struct datapath *dp, struct tsrtt *ts, bool from_lan)
{
	dp->ts = ts;
	dp->ts_from_lan = from_lan;
}

void
datapath_set_tsrtt_ring(struct datapath *dp, struct ring *ring,
    bool from_lan)
{
	dp->ts_ring = ring;
	dp->ts_from_lan = from_lan;
}

/* A frame at ev: into the table, or as a segment into the ring. */
static void
datapath_ts(struct datapath *dp, enum tsrtt_event ev,
    const struct cake_pkt *pkt, uint64_t now_ns)
{
	struct datapath_seg	it;

	if (dp->ts != NULL) {
		tsrtt_frame(dp->ts, ev, pkt->data, pkt->len, &pkt->meta,
		    now_ns);
		return;
	}
	if (!tsrtt_parse_counted(&dp->ts_parse, ev, pkt->data, pkt->len,
	    &pkt->meta, &it.seg))
		return;
	it.now_ns = now_ns;
	it.ev = (int)ev;
	it.no_timestamp = dp->ts_parse.no_timestamp;
	it.bad_option = dp->ts_parse.bad_option;
	if (!ring_push(dp->ts_ring, &it))
		dp->ts_ring_drops++;
}

/*
 * A frame leaves caked's queue: the passive delay takes its TSval here,
 * after caked's own queueing, so that it times the path beyond caked.
 */
static void
datapath_departs(struct datapath *dp, struct cake_pkt *const run[],
    unsigned int n, uint64_t now_ns)
{
	unsigned int	i;

	if (dp->ts == NULL && dp->ts_ring == NULL)
		return;
	for (i = 0; i < n; i++)
		if (run[i]->meta_valid)
			datapath_ts(dp, dp->ts_from_lan ? TSRTT_WAN_DEPART :
			    TSRTT_LAN_DEPART, run[i], now_ns);
}

void
datapath_reap(struct datapath *dp)
{
	struct cake_pkt	*pkt, *next;

	pkt = dp->worker >= 0 ? cake_take_dropped(datapath_own(dp)) :
	    group_take_dropped(dp->group);
	for (; pkt != NULL; pkt = next) {
		next = pkt->next;
		hostacct_dropped(&dp->hosts, datapath_host(dp, pkt),
		    datapath_keys(pkt)->family);
		dp->st.drops[pkt->drop_reason < DATAPATH_DROP_REASONS ?
		    pkt->drop_reason : CAKE_DROP_NONE]++;
		pool_put(dp->pool, pkt);
	}
}

static int
datapath_rx_error(struct datapath *dp, uint64_t now_ns)
{
	dp->st.rx_errors++;
	if (tun_gone(errno)) {
		dp->gone_errno = errno;
		return DATAPATH_GONE;
	}
	log_rate_warnx(&dp->rl_rx, now_ns, "%s: read: %s", dp->name,
	    strerror(errno));
	return DATAPATH_OK;
}

/*
 * The pool is empty: read and count a chunk from queue fd, so that the
 * device cannot spin us; *got gets how many.
 */
static int
datapath_discard(struct datapath *dp, int fd, uint64_t now_ns, int *got)
{
	uint8_t *const	bufs[1] = { datapath_scratch };
	const uint32_t	caps[1] = { sizeof(datapath_scratch) };
	uint32_t	lens[1];
	int		i, n;

	for (i = 0; i < DATAPATH_RX_CHUNK; i++) {
		if ((n = tun_read_batch(fd, bufs, caps, lens, 1)) == -1)
			return datapath_rx_error(dp, now_ns);
		if (n == 0)
			break;
		dp->st.rx_nobuf++;
		(*got)++;
	}
	if (i > 0)
		log_rate_warnx(&dp->rl_nobuf, now_ns, "%s: packet pool "
		    "exhausted, frames dropped", dp->name);
	return DATAPATH_OK;
}

/* Files a frame that did not parse as IP under its kind. */
static void
datapath_count_kind(struct datapath *dp, const struct cake_pkt_meta *m)
{
	if (m->flags & CAKE_META_TRUNCATED)
		dp->st.rx_truncated++;
	else if (m->flags & CAKE_META_MALFORMED)
		dp->st.rx_malformed++;
	else if (m->l3 == CAKE_L3_NONE)
		dp->st.rx_non_ip++;
}

#define DATAPATH_L2_MAX_BYTES	22	/* Ethernet header, two VLAN tags */

uint32_t
datapath_max_packet(const struct datapath *dp)
{
	struct pool_stats	ps;
	uint32_t		cap;

	pool_get_stats(dp->pool, &ps);
	cap = dp->in_vnet && ps.large_bufs > 0 ? ps.large_buf_bytes :
	    ps.buf_bytes;
	/* A frame that fills the buffer is taken as cut short. */
	cap = cap > 0 ? cap - 1 : 0;
	if (dp->link == CAKE_LINK_ETHERNET)
		cap = cap > DATAPATH_L2_MAX_BYTES ? cap -
		    DATAPATH_L2_MAX_BYTES : 0;
	return cap;
}

/*
 * Counts (and logs) a packet larger than the egress device's MTU. It is
 * still written: the kernel decides (a TUN router may answer with ICMP
 * "fragmentation needed"), but the count says where jumbo frames went.
 */
static void
datapath_check_mtu(struct datapath *dp, const struct cake_pkt *pkt,
    uint32_t len, uint64_t now_ns)
{
	uint32_t	l3 = len;

	if (dp->out_mtu == 0 || pkt->gso_type != CAKE_GSO_NONE)
		return;
	if (dp->link == CAKE_LINK_ETHERNET)
		l3 = len > pkt->meta.net_off ? len - pkt->meta.net_off : 0;
	if (l3 <= dp->out_mtu)
		return;
	dp->st.too_big++;
	log_rate_warnx(&dp->rl_mtu, now_ns, "%s: packet of %u bytes too "
	    "large for %s (mtu %u): the kernel may drop it", dp->name, l3,
	    dp->out_dev != NULL ? dp->out_dev : "the egress device",
	    dp->out_mtu);
}

/*
 * A frame for worker j: its bytes and what is known of it (parse, NAT
 * keys, offload fields) are copied to j's thread, the buffer stays here.
 * A full queue drops it, counted.
 */
static void
datapath_hand(struct datapath *dp, unsigned int j, struct cake_pkt *pkt)
{
	dp->st.hand_out++;
	if (dp->hand_out[j] != NULL && handoff_push(dp->hand_out[j], pkt,
	    sizeof(*pkt), pkt->data, pkt->len))
		dp->hand_pending |= 1U << j;
	else
		dp->st.hand_full++;
	pool_put(dp->pool, pkt);
}

/* Wakes the workers that were handed frames since the last call. */
static void
datapath_wake(struct datapath *dp, uint64_t now_ns)
{
	uint64_t	one = 1;
	unsigned int	j;

	for (j = 0; dp->hand_pending != 0 && j < GROUP_WORKERS_MAX; j++) {
		if (!(dp->hand_pending & 1U << j) || dp->hand_wake[j] == -1)
			continue;
		/* EAGAIN: the counter is full, so a wakeup is pending. */
		if (write(dp->hand_wake[j], &one, sizeof(one)) == -1 &&
		    errno != EAGAIN)
			log_rate_warnx(&dp->rl_rx, now_ns,
			    "%s: wake worker %u: %s",
			    dp->name, j, strerror(errno));
	}
	dp->hand_pending = 0;
}

/* Into the group, into this worker's instance, or to another worker. */
static void
datapath_queue(struct datapath *dp, struct cake_pkt *pkt, uint64_t now_ns)
{
	unsigned int	j;

	if (dp->worker < 0) {
		(void)group_enqueue(dp->group, pkt, now_ns);
		return;
	}
	if ((j = group_steer(dp->group, pkt)) != (unsigned int)dp->worker) {
		datapath_hand(dp, j, pkt);
		return;
	}
	(void)cake_enqueue(datapath_own(dp), pkt, now_ns);
}

/* A buffer for a handed frame of len bytes, from dp's own pool. */
static struct cake_pkt *
datapath_buffer(struct datapath *dp, uint32_t len)
{
	struct cake_pkt	*pkt;

	if ((pkt = pool_get(dp->pool)) != NULL && len < pkt->cap)
		return pkt;
	if (pkt != NULL)
		pool_put(dp->pool, pkt);
	return pool_get_large(dp->pool);
}

/* Queues one handed record (a struct cake_pkt, then the frame). */
static void
datapath_take_one(struct datapath *dp, const uint8_t *rec, size_t len,
    uint64_t now_ns)
{
	struct cake_pkt	 hdr, *pkt;
	uint8_t		*data;
	uint32_t	 cap;

	memcpy(&hdr, rec, sizeof(hdr));
	if (len != sizeof(hdr) + hdr.len ||
	    (pkt = datapath_buffer(dp, hdr.len)) == NULL) {
		dp->st.hand_nobuf++;
		return;
	}
	data = pkt->data;
	cap = pkt->cap;
	*pkt = hdr;
	pkt->next = NULL;
	pkt->data = data;
	pkt->cap = cap;
	memcpy(pkt->data, rec + sizeof(hdr), hdr.len);
	dp->st.hand_in++;
	(void)cake_enqueue(datapath_own(dp), pkt, now_ns);
	datapath_reap(dp);
}

unsigned int
datapath_take_handed(struct datapath *dp, uint64_t now_ns)
{
	const void	*rec;
	size_t		 len;
	unsigned int	 j, n = 0;

	for (j = 0; dp->worker >= 0 && j < GROUP_WORKERS_MAX; j++) {
		if (dp->hand_in[j] == NULL)
			continue;
		while ((rec = handoff_peek(dp->hand_in[j], &len)) != NULL) {
			if (len >= sizeof(struct cake_pkt))
				datapath_take_one(dp, rec, len, now_ns);
			else
				dp->st.hand_nobuf++;
			handoff_release(dp->hand_in[j]);
			n++;
		}
	}
	return n;
}

static void
datapath_enqueue(struct datapath *dp, struct cake_pkt *pkt, uint32_t len,
    uint64_t now_ns)
{
	if (len == 0) {
		dp->st.rx_empty++;
		pool_put(dp->pool, pkt);
		return;
	}
	if (len >= pkt->cap) {
		dp->st.rx_oversize++;
		log_rate_warnx(&dp->rl_rx, now_ns, "%s: frame of %u bytes or "
		    "more dropped (device MTU above caked's?)", dp->name, len);
		pool_put(dp->pool, pkt);
		return;
	}
	pkt->len = len;
	pkt->truesize = cake_truesize(len);	/* its bytes, not the buffer */
	cake_parse(pkt->data, len, dp->link, &pkt->meta);
	pkt->meta_valid = true;
	datapath_count_kind(dp, &pkt->meta);
	datapath_check_mtu(dp, pkt, len, now_ns);
	/* Before caked's queue: an echo's arrival ends a round trip. */
	if (dp->ts != NULL || dp->ts_ring != NULL)
		datapath_ts(dp, dp->ts_from_lan ? TSRTT_LAN_ARRIVE :
		    TSRTT_WAN_ARRIVE, pkt, now_ns);
	datapath_nat(dp, pkt, now_ns);
	dp->st.rx_pkts++;
	dp->st.rx_bytes += len;
	datapath_queue(dp, pkt, now_ns);
	datapath_reap(dp);
}

/*
 * Reads up to DATAPATH_RX_CHUNK frames from queue fd into the engine;
 * *got gets how many. Buffers are taken a chunk at a time, so that a
 * wakeup for one frame does not take (and clear) a whole batch of them.
 */
static int
datapath_read_chunk(struct datapath *dp, int fd, uint64_t now_ns, int *got)
{
	struct cake_pkt	*pkts[DATAPATH_RX_CHUNK];
	uint8_t		*bufs[DATAPATH_RX_CHUNK];
	uint32_t	 caps[DATAPATH_RX_CHUNK], lens[DATAPATH_RX_CHUNK];
	int		 i, n;

	*got = 0;
	for (n = 0; n < DATAPATH_RX_CHUNK; n++) {
		if ((pkts[n] = pool_get(dp->pool)) == NULL)
			break;
		bufs[n] = pkts[n]->data;
		caps[n] = pkts[n]->cap;
	}
	if (n == 0)
		return datapath_discard(dp, fd, now_ns, got);
	if (dp->in_vnet)
		*got = vnet_read_batch(fd, dp->pool, &dp->rx_spare, pkts,
		    lens, n);
	else
		*got = tun_read_batch(fd, bufs, caps, lens, n);
	for (i = *got > 0 ? *got : 0; i < n; i++)
		pool_put(dp->pool, pkts[i]);
	if (*got == -1) {
		*got = 0;
		return datapath_rx_error(dp, now_ns);
	}
	for (i = 0; i < *got; i++)
		datapath_enqueue(dp, pkts[i], lens[i], now_ns);
	return DATAPATH_OK;
}

/*
 * Marks ingress queue fd busy (in_hot), or quiet once it has not been
 * busy for DATAPATH_BUSY_HOLD_NS: a flood caked now and then catches up
 * with must not send the flows moved off its queue back onto it.
 */
static void
datapath_set_hot(struct datapath *dp, int fd, bool hot, uint64_t now_ns)
{
	unsigned int	q;

	for (q = 0; q < dp->in_queues; q++) {
		if (dp->in_fds[q] != fd)
			continue;
		if (hot) {
			atomic_fetch_or_explicit(dp->hot, 1U << q,
			    memory_order_relaxed);
			dp->in_hot_ns[q] = now_ns;
		} else if (now_ns - dp->in_hot_ns[q] > DATAPATH_BUSY_HOLD_NS)
			atomic_fetch_and_explicit(dp->hot, ~(1U << q),
			    memory_order_relaxed);
		return;
	}
}

int
datapath_read_fd(struct datapath *dp, int fd, uint64_t now_ns)
{
	int	done, got, rv;

	for (done = 0; done < DATAPATH_RX_BATCH; done += got) {
		rv = datapath_read_chunk(dp, fd, now_ns, &got);
		if (rv != DATAPATH_OK || got < DATAPATH_RX_CHUNK) {
			datapath_set_hot(dp, fd, false, now_ns);
			datapath_wake(dp, now_ns);
			return rv;
		}
	}
	datapath_set_hot(dp, fd, true, now_ns);	/* more may wait */
	datapath_wake(dp, now_ns);
	return DATAPATH_OK;
}

int
datapath_read(struct datapath *dp, uint64_t now_ns)
{
	unsigned int	q;
	int		rv;

	for (q = 0; q < dp->in_queues; q++)
		if ((rv = datapath_read_fd(dp, dp->in_fds[q], now_ns)) !=
		    DATAPATH_OK)
			return rv;
	return DATAPATH_OK;
}

/* The outcome of a write that returned rv (vnet_write()'s convention). */
static enum datapath_write
datapath_wrote(struct datapath *dp, int rv, uint32_t len, uint64_t now_ns)
{
	if (rv == 0) {
		dp->st.tx_blocked++;
		return WRITE_BLOCKED;
	}
	if (rv == 1) {
		dp->st.tx_pkts++;
		dp->st.tx_bytes += len;
		return WRITE_DONE;
	}
	dp->st.tx_errors++;
	if (tun_gone(errno)) {
		dp->gone_errno = errno;
		return WRITE_GONE;
	}
	/* EIO while the device is down, for example: count and go on. */
	log_rate_warnx(&dp->rl_tx, now_ns, "%s: write: %s", dp->name,
	    strerror(errno));
	return WRITE_DONE;
}

/* Queue q if it is not busy, else the next one that is not. */
static unsigned int
datapath_quiet_queue(const struct datapath *dp, unsigned int q)
{
	unsigned int	i, c;
	uint32_t	hot;

	/* A stale bit only moves a flow a turn late. */
	if (dp->out_hot == NULL || !((hot = atomic_load_explicit(dp->out_hot,
	    memory_order_relaxed)) & 1U << q))
		return q;
	for (i = 1; i < dp->out_queues; i++) {
		c = (q + i) % dp->out_queues;
		if (!(hot & 1U << c))
			return c;
	}
	return q;	/* all busy: stay */
}

unsigned int
datapath_out_queue(const struct datapath *dp, const struct cake_pkt *pkt)
{
	const struct cake_tuple	*t = &pkt->meta.tuple;
	uint32_t		 h;
	size_t			 i;

	if (dp->out_queues <= 1 || !pkt->meta_valid)
		return 0;
	/* Both directions of a flow alike; non-IP (all zero) on queue 0. */
	h = t->proto ^ (uint32_t)(t->sport ^ t->dport) << 8;
	for (i = 0; i < sizeof(t->src); i++)
		h = h * 31 + (uint32_t)(t->src[i] ^ t->dst[i]);
	h *= 0x9e3779b1U;	/* spread the bits before scaling */
	return datapath_quiet_queue(dp,
	    (unsigned int)(((uint64_t)h * dp->out_queues) >> 32));
}

/*
 * The outcome of a write of pkt's flow that returned rv: a refused one
 * is waited for on the queue it was refused by.
 */
static enum datapath_write
datapath_wrote_q(struct datapath *dp, int rv, uint32_t len, unsigned int q,
    uint64_t now_ns)
{
	enum datapath_write	w;

	if ((w = datapath_wrote(dp, rv, len, now_ns)) == WRITE_BLOCKED)
		dp->held_queue = q;
	return w;
}

/* Writes pkt; unless blocked, gives it back to the pool. */
static enum datapath_write
datapath_write(struct datapath *dp, struct cake_pkt *pkt, uint64_t now_ns)
{
	enum datapath_write	w;
	unsigned int		q = datapath_out_queue(dp, pkt);
	int			rv, fd = dp->out_fds[q];

	if (dp->out_vnet)
		rv = vnet_write(fd, pkt);
	else if (pkt->gso_type != CAKE_GSO_NONE || pkt->csum_partial) {
		errno = EPROTO;	/* cannot be: both devices have headers */
		rv = -1;
	} else
		rv = tun_write(fd, pkt->data, pkt->len);
	if ((w = datapath_wrote_q(dp, rv, pkt->len, q, now_ns)) !=
	    WRITE_BLOCKED)
		pool_put(dp->pool, pkt);
	return w;
}

/*
 * With a vnet header on the egress device: dequeues the segments that
 * continue pkt's TCP flow into run[] (run[0] = pkt); the first packet
 * that does not continue it is left in *next. Returns the run's length.
 */
static unsigned int
datapath_collect(struct datapath *dp, struct cake_pkt *pkt,
    struct cake_pkt *run[], struct cake_pkt **next, uint64_t now_ns)
{
	struct cake_pkt	*p;
	unsigned int	 n = 1;

	*next = NULL;
	run[0] = pkt;
	if (!dp->out_vnet || !gro_candidate(pkt))
		return 1;
	while ((p = datapath_dequeue(dp, now_ns)) != NULL) {
		datapath_reap(dp);
		if (!gro_follows(run, n, p, VNET_FRAME_MAX_BYTES)) {
			*next = p;
			break;
		}
		run[n++] = p;
	}
	return n;
}

/*
 * Writes run[0..n) as one super-packet (gro.c): its headers from the
 * stack, the payloads straight from the segments' buffers. Unless
 * blocked, gives the segments back to the pool.
 */
static enum datapath_write
datapath_write_run(struct datapath *dp, struct cake_pkt *run[],
    unsigned int n, uint64_t now_ns)
{
	uint8_t			hdr[GRO_HDR_MAX];
	struct iovec		iov[GRO_SEGS_MAX];
	struct cake_pkt		desc;
	enum datapath_write	w;
	unsigned int		i, q;

	if (n == 1)
		return datapath_write(dp, run[0], now_ns);
	q = datapath_out_queue(dp, run[0]);	/* one flow: one queue */
	gro_gather(run, n, &desc, hdr, iov);
	w = datapath_wrote_q(dp, vnet_writev(dp->out_fds[q], &desc, desc.cap,
	    iov, n), desc.len, q, now_ns);
	if (w == WRITE_BLOCKED)
		return w;
	dp->st.tx_coalesced += n;
	for (i = 0; i < n; i++)
		pool_put(dp->pool, run[i]);
	return w;
}

/* Writes the held packets (a list) in order. enum datapath_status. */
static int
datapath_send_held(struct datapath *dp, uint64_t now_ns)
{
	struct cake_pkt		*pkt;
	enum datapath_write	 w;

	while ((pkt = dp->held) != NULL) {
		dp->held = pkt->next;
		if ((w = datapath_write(dp, pkt, now_ns)) == WRITE_BLOCKED) {
			pkt->next = dp->held;
			dp->held = pkt;
		}
		if (w != WRITE_DONE)
			return w == WRITE_BLOCKED ? DATAPATH_BLOCKED :
			    DATAPATH_GONE;
		dp->last_tx++;
	}
	return DATAPATH_OK;
}

int
datapath_send(struct datapath *dp, uint64_t now_ns)
{
	struct cake_pkt		*run[GRO_SEGS_MAX], *next = NULL;
	enum datapath_write	 w;
	unsigned int		 i, n;
	int			 rv;

	dp->last_tx = 0;
	if ((rv = datapath_send_held(dp, now_ns)) != DATAPATH_OK)
		return rv;
	while (next != NULL || (dp->last_tx < DATAPATH_TX_BATCH &&
	    (next = datapath_dequeue(dp, now_ns)) != NULL)) {
		datapath_reap(dp);
		n = datapath_collect(dp, next, run, &next, now_ns);
		datapath_departs(dp, run, n, now_ns);
		w = datapath_write_run(dp, run, n, now_ns);
		if (w == WRITE_BLOCKED) {
			/* Held in order: the run, then the one after. */
			if (next != NULL)
				next->next = NULL;
			for (i = n; i-- > 0; next = run[i])
				run[i]->next = next;
			dp->held = run[0];
		} else if (w == WRITE_GONE && next != NULL)
			pool_put(dp->pool, next);
		if (w != WRITE_DONE)
			return w == WRITE_BLOCKED ? DATAPATH_BLOCKED :
			    DATAPATH_GONE;
		dp->last_tx++;
	}
	datapath_reap(dp);
	return DATAPATH_OK;
}

uint64_t
datapath_next_ns(const struct datapath *dp, uint64_t now_ns)
{
	uint64_t	next, sync;

	if (dp->held != NULL)
		return CAKE_TIME_NEVER;	/* waiting for EV_WRITE instead */
	if (dp->worker < 0)
		return group_next_ns(dp->group, now_ns);
	/*
	 * While it queues, a worker syncs every lending period: the rate
	 * lent to it may let a packet leave sooner than its clock says.
	 */
	if ((next = cake_next_ns(datapath_own(dp), now_ns)) ==
	    CAKE_TIME_NEVER || group_workers(dp->group) < 2)
		return next;
	sync = dp->sync_ns + GROUP_LEND_PERIOD_NS;
	return sync < next ? (sync > now_ns ? sync : now_ns) : next;
}

static void
datapath_flush_handed(struct datapath *dp)
{
	size_t		len;
	unsigned int	j;

	for (j = 0; j < GROUP_WORKERS_MAX; j++)
		while (dp->hand_in[j] != NULL &&
		    handoff_peek(dp->hand_in[j], &len) != NULL) {
			dp->st.drops[CAKE_DROP_FLUSH]++;
			handoff_release(dp->hand_in[j]);
		}
}

void
datapath_flush(struct datapath *dp)
{
	struct cake_pkt	*pkt;

	while ((pkt = dp->held) != NULL) {
		dp->held = pkt->next;
		dp->st.drops[CAKE_DROP_FLUSH]++;
		pool_put(dp->pool, pkt);
	}
	if (dp->rx_spare != NULL) {
		pool_put(dp->pool, dp->rx_spare);
		dp->rx_spare = NULL;
	}
	if (dp->worker >= 0) {
		/* Handed frames not yet queued are flushed here too. */
		datapath_flush_handed(dp);
		cake_flush(datapath_own(dp));
	} else
		group_flush(dp->group);
	datapath_reap(dp);
}

void
datapath_log_stats(const struct datapath *dp)
{
	struct cake_stats	 cs;
	struct pool_stats	 ps;
	const struct datapath_stats *st = &dp->st;
	unsigned int		 i;

	datapath_get_stats(dp, &cs);
	pool_get_stats(dp->pool, &ps);
	log_info("%s: sent_pkts=%" PRIu64 " sent_bytes=%" PRIu64
	    " dropped_pkts=%" PRIu64 " overlimits=%" PRIu64
	    " backlog_bytes=%" PRIu64 " backlog_pkts=%" PRIu64
	    " memory_used=%" PRIu64 " memory_limit=%" PRIu64, dp->name,
	    cs.sent_pkts, cs.sent_bytes, cs.dropped_pkts, cs.overlimits,
	    cs.backlog_bytes, cs.backlog_pkts, cs.memory_used,
	    cs.memory_limit);
	for (i = 0; i < cs.tin_count && i < CAKE_MAX_TINS; i++)
		log_info("%s: tin=\"%s\" pkts=%" PRIu64 " bytes=%" PRIu64
		    " drops=%" PRIu64 " marks=%" PRIu64 " ack_drops=%" PRIu64
		    " backlog_bytes=%" PRIu64, dp->name, cs.tins[i].name,
		    cs.tins[i].pkts, cs.tins[i].bytes, cs.tins[i].drops,
		    cs.tins[i].ecn_marks, cs.tins[i].ack_drops,
		    cs.tins[i].backlog_bytes);
	log_info("%s: rx_pkts=%" PRIu64 " rx_bytes=%" PRIu64 " rx_nobuf=%"
	    PRIu64 " rx_oversize=%" PRIu64 " rx_empty=%" PRIu64
	    " rx_truncated=%" PRIu64 " rx_malformed=%" PRIu64
	    " rx_non_ip=%" PRIu64 " rx_errors=%" PRIu64
	    " tx_pkts=%" PRIu64 " tx_bytes=%" PRIu64 " tx_blocked=%" PRIu64
	    " tx_errors=%" PRIu64 " pool_free=%u/%u pool_min_free=%u"
	    " pool_exhausted=%" PRIu64, dp->name, st->rx_pkts, st->rx_bytes,
	    st->rx_nobuf, st->rx_oversize, st->rx_empty, st->rx_truncated,
	    st->rx_malformed, st->rx_non_ip, st->rx_errors, st->tx_pkts,
	    st->tx_bytes, st->tx_blocked, st->tx_errors, ps.free, ps.bufs,
	    ps.min_free, ps.exhausted);
	log_info("%s: offload in=%d out=%d tx_coalesced=%" PRIu64
	    " large_free=%u/%u large_min_free=%u large_exhausted=%" PRIu64,
	    dp->name, dp->in_vnet, dp->out_vnet, st->tx_coalesced,
	    ps.large_free, ps.large_bufs, ps.large_min_free,
	    ps.large_exhausted);
}

/*
 * "workers", with more than one: each worker's rate lent last and what it
 * sent and holds, so that an operator (and the namespace test) can see
 * which worker carries a host and that an idle one's share moved.
 */
static void
datapath_workers_json(const struct datapath *dp, struct json_writer *w)
{
	struct cake_stats	cs;
	unsigned int		i, n = group_workers(dp->group);

	if (n < 2)
		return;
	json_array_begin(w, "workers");
	for (i = 0; i < n; i++) {
		cake_get_stats(group_worker(dp->group, i), &cs);
		json_object_begin(w, NULL);
		json_uint(w, "rate", group_lend_rate_Bps(dp->group, i));
		json_uint(w, "sent_bytes", cs.sent_bytes);
		json_uint(w, "sent_packets", cs.sent_pkts);
		json_uint(w, "drops", cs.dropped_pkts);
		json_uint(w, "backlog_bytes", cs.backlog_bytes);
		json_object_end(w);
	}
	json_array_end(w);
}

/* The "io" member: st are dp's counters, or its workers' summed. */
static void
datapath_io_json(const struct datapath *dp, const struct datapath_stats *st,
    uint64_t ts_ring_drops, struct json_writer *w)
{
	json_object_begin(w, "io");
	json_uint(w, "rx_packets", st->rx_pkts);
	json_uint(w, "rx_bytes", st->rx_bytes);
	json_uint(w, "rx_nobuf", st->rx_nobuf);
	json_uint(w, "rx_oversize", st->rx_oversize);
	json_uint(w, "rx_empty", st->rx_empty);
	json_uint(w, "rx_truncated", st->rx_truncated);
	json_uint(w, "rx_malformed", st->rx_malformed);
	json_uint(w, "rx_non_ip", st->rx_non_ip);
	json_uint(w, "rx_errors", st->rx_errors);
	json_uint(w, "tx_packets", st->tx_pkts);
	json_uint(w, "tx_bytes", st->tx_bytes);
	json_uint(w, "tx_blocked", st->tx_blocked);
	json_uint(w, "tx_coalesced", st->tx_coalesced);
	json_uint(w, "tx_errors", st->tx_errors);
	json_uint(w, "too_big", st->too_big);
	if (dp->ts_ring != NULL)	/* threads = 2: passive delay samples */
		json_uint(w, "rtt_samples_dropped", ts_ring_drops);
	if (dp->worker >= 0) {		/* a thread per worker */
		json_uint(w, "handed_out", st->hand_out);
		json_uint(w, "handed_full", st->hand_full);
		json_uint(w, "handed_in", st->hand_in);
		json_uint(w, "handed_nobuf", st->hand_nobuf);
	}
	json_object_begin(w, "drops");
	json_uint(w, "aqm", st->drops[CAKE_DROP_AQM]);
	json_uint(w, "overlimit", st->drops[CAKE_DROP_OVERLIMIT]);
	json_uint(w, "ack_filter", st->drops[CAKE_DROP_ACK_FILTER]);
	json_uint(w, "gso_fail", st->drops[CAKE_DROP_GSO_FAIL]);
	json_uint(w, "tin_gone", st->drops[CAKE_DROP_TIN_GONE]);
	json_uint(w, "flush", st->drops[CAKE_DROP_FLUSH]);
	json_object_end(w);
	json_object_end(w);
}

void
datapath_json(const struct datapath *dp, struct json_writer *w,
    uint64_t now_ns)
{
	datapath_io_json(dp, &dp->st, dp->ts_ring_drops, w);
	pool_json(dp->pool, w);
	hostacct_json(&dp->hosts, now_ns, w);
	datapath_workers_json(dp, w);
}

static void
datapath_stats_add(struct datapath_stats *sum, const struct datapath_stats *st)
{
	const uint64_t	*a = (const uint64_t *)st;
	uint64_t	*b = (uint64_t *)sum;
	size_t		 i;

	/* Every member is a uint64_t counter (checked below). */
	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		b[i] += a[i];
}

_Static_assert(sizeof(struct datapath_stats) % sizeof(uint64_t) == 0,
    "struct datapath_stats holds only uint64_t counters");

void
datapath_json_sum(const struct datapath *const dps[], unsigned int n,
    struct hostacct *scratch, struct json_writer *w, uint64_t now_ns)
{
	struct datapath_stats	st;
	struct pool_stats	ps, one;
	uint64_t		ts_drops = 0;
	unsigned int		i;

	memset(&st, 0, sizeof(st));
	memset(&ps, 0, sizeof(ps));
	memset(scratch, 0, sizeof(*scratch));
	for (i = 0; i < n; i++) {
		datapath_stats_add(&st, &dps[i]->st);
		ts_drops += dps[i]->ts_ring_drops;
		pool_get_stats(dps[i]->pool, &one);
		pool_stats_add(&ps, &one);
		hostacct_merge(scratch, &dps[i]->hosts);
	}
	datapath_io_json(dps[0], &st, ts_drops, w);
	pool_json_stats(&ps, w);
	hostacct_json(scratch, now_ns, w);
	datapath_workers_json(dps[0], w);
}
