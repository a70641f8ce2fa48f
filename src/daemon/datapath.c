/*
 * datapath.c: the packet path of one direction. A wakeup reads a bounded
 * batch from the ingress device into pool buffers, parses each frame once
 * and queues it in the direction's CAKE instance; sending dequeues what
 * the shaper allows and writes it to the egress device. A frame the
 * device refuses with EAGAIN is held, not dropped, and sending stops
 * until the device is writable again.
 *
 * Nothing is dropped silently: every frame read ends as sent, or in a
 * counter of struct datapath_stats. Nothing here logs per packet; errors
 * go through log_rate_warnx(). The module neither sleeps nor arms timers:
 * loop.c asks datapath_next_ns() and wakes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "daemon/datapath.h"
#include "daemon/log.h"
#include "daemon/pool.h"
#include "daemon/tun.h"

#define DATAPATH_SCRATCH_BYTES	65536	/* longer than any TUN/TAP frame */

enum datapath_write {
	WRITE_DONE,		/* written, or dropped and counted */
	WRITE_BLOCKED,
	WRITE_GONE,
};

/* Where frames go when the pool is empty; their content is never used. */
static uint8_t	datapath_scratch[DATAPATH_SCRATCH_BYTES];

void
datapath_init(struct datapath *dp, const char *name, int in_fd, int out_fd,
    enum cake_link link, struct cake *cake, struct pool *pool)
{
	memset(dp, 0, sizeof(*dp));
	dp->name = name;
	dp->in_fd = in_fd;
	dp->out_fd = out_fd;
	dp->link = link;
	dp->cake = cake;
	dp->pool = pool;
}

void
datapath_reap(struct datapath *dp)
{
	struct cake_pkt	*pkt, *next;

	for (pkt = cake_take_dropped(dp->cake); pkt != NULL; pkt = next) {
		next = pkt->next;
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

/* The pool is empty: read and count a batch so the device cannot spin us. */
static int
datapath_discard(struct datapath *dp, uint64_t now_ns)
{
	uint8_t *const	bufs[1] = { datapath_scratch };
	const uint32_t	caps[1] = { sizeof(datapath_scratch) };
	uint32_t	lens[1];
	int		i, n;

	for (i = 0; i < DATAPATH_RX_BATCH; i++) {
		if ((n = tun_read_batch(dp->in_fd, bufs, caps, lens, 1)) == -1)
			return datapath_rx_error(dp, now_ns);
		if (n == 0)
			break;
		dp->st.rx_nobuf++;
	}
	if (i > 0)
		log_rate_warnx(&dp->rl_nobuf, now_ns, "%s: packet pool "
		    "exhausted, frames dropped", dp->name);
	return DATAPATH_OK;
}

static void
datapath_enqueue(struct datapath *dp, struct cake_pkt *pkt, uint32_t len,
    uint64_t now_ns)
{
	if (len >= pkt->cap) {
		dp->st.rx_oversize++;
		log_rate_warnx(&dp->rl_rx, now_ns, "%s: frame of %u bytes or "
		    "more dropped (device MTU above caked's?)", dp->name, len);
		pool_put(dp->pool, pkt);
		return;
	}
	pkt->len = len;
	cake_parse(pkt->data, len, dp->link, &pkt->meta);
	pkt->meta_valid = true;
	dp->st.rx_pkts++;
	dp->st.rx_bytes += len;
	(void)cake_enqueue(dp->cake, pkt, now_ns);
	datapath_reap(dp);
}

int
datapath_read(struct datapath *dp, uint64_t now_ns)
{
	struct cake_pkt	*pkts[DATAPATH_RX_BATCH];
	uint8_t		*bufs[DATAPATH_RX_BATCH];
	uint32_t	 caps[DATAPATH_RX_BATCH], lens[DATAPATH_RX_BATCH];
	int		 i, n, got;

	for (n = 0; n < DATAPATH_RX_BATCH; n++) {
		if ((pkts[n] = pool_get(dp->pool)) == NULL)
			break;
		bufs[n] = pkts[n]->data;
		caps[n] = pkts[n]->cap;
	}
	if (n == 0)
		return datapath_discard(dp, now_ns);
	got = tun_read_batch(dp->in_fd, bufs, caps, lens, n);
	for (i = got > 0 ? got : 0; i < n; i++)
		pool_put(dp->pool, pkts[i]);
	if (got == -1)
		return datapath_rx_error(dp, now_ns);
	for (i = 0; i < got; i++)
		datapath_enqueue(dp, pkts[i], lens[i], now_ns);
	return DATAPATH_OK;
}

static enum datapath_write
datapath_write(struct datapath *dp, struct cake_pkt *pkt, uint64_t now_ns)
{
	int	rv = tun_write(dp->out_fd, pkt->data, pkt->len);

	if (rv == 0) {
		dp->st.tx_blocked++;
		return WRITE_BLOCKED;
	}
	if (rv == 1) {
		dp->st.tx_pkts++;
		dp->st.tx_bytes += pkt->len;
	} else
		dp->st.tx_errors++;
	pool_put(dp->pool, pkt);
	if (rv == 1)
		return WRITE_DONE;
	if (tun_gone(errno)) {
		dp->gone_errno = errno;
		return WRITE_GONE;
	}
	/* EIO while the device is down, for example: count and go on. */
	log_rate_warnx(&dp->rl_tx, now_ns, "%s: write: %s", dp->name,
	    strerror(errno));
	return WRITE_DONE;
}

int
datapath_send(struct datapath *dp, uint64_t now_ns)
{
	struct cake_pkt		*pkt;
	enum datapath_write	 w;

	dp->last_tx = 0;
	if (dp->held != NULL) {
		pkt = dp->held;
		dp->held = NULL;
		if ((w = datapath_write(dp, pkt, now_ns)) == WRITE_BLOCKED)
			dp->held = pkt;
		if (w != WRITE_DONE)
			return w == WRITE_BLOCKED ? DATAPATH_BLOCKED :
			    DATAPATH_GONE;
		dp->last_tx++;
	}
	while (dp->last_tx < DATAPATH_TX_BATCH &&
	    (pkt = cake_dequeue(dp->cake, now_ns)) != NULL) {
		datapath_reap(dp);
		w = datapath_write(dp, pkt, now_ns);
		if (w == WRITE_BLOCKED)
			dp->held = pkt;
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
	if (dp->held != NULL)
		return CAKE_TIME_NEVER;	/* waiting for EV_WRITE instead */
	return cake_next_ns(dp->cake, now_ns);
}

void
datapath_flush(struct datapath *dp)
{
	if (dp->held != NULL) {
		dp->st.drops[CAKE_DROP_FLUSH]++;
		pool_put(dp->pool, dp->held);
		dp->held = NULL;
	}
	cake_flush(dp->cake);
	datapath_reap(dp);
}

void
datapath_log_stats(const struct datapath *dp)
{
	struct cake_stats	 cs;
	struct pool_stats	 ps;
	const struct datapath_stats *st = &dp->st;
	unsigned int		 i;

	cake_get_stats(dp->cake, &cs);
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
	    PRIu64 " rx_oversize=%" PRIu64 " rx_errors=%" PRIu64
	    " tx_pkts=%" PRIu64 " tx_bytes=%" PRIu64 " tx_blocked=%" PRIu64
	    " tx_errors=%" PRIu64 " pool_free=%u/%u pool_min_free=%u"
	    " pool_exhausted=%" PRIu64, dp->name, st->rx_pkts, st->rx_bytes,
	    st->rx_nobuf, st->rx_oversize, st->rx_errors, st->tx_pkts,
	    st->tx_bytes, st->tx_blocked, st->tx_errors, ps.free, ps.bufs,
	    ps.min_free, ps.exhausted);
}
