/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * datapath.h: one direction's packet path, device to CAKE to device.
 */
#ifndef CAKED_DAEMON_DATAPATH_H
#define CAKED_DAEMON_DATAPATH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "daemon/hostacct.h"
#include "daemon/log.h"
#include "daemon/tun.h"
#include "engine/tsrtt.h"

#define DATAPATH_RX_BATCH	64	/* frames read per queue per wakeup */
#define DATAPATH_RX_CHUNK	8	/* frames read per pool visit */
#define DATAPATH_TX_BATCH	256	/* frames written per wakeup */
#define DATAPATH_BUSY_HOLD_NS	1000000000ULL	/* a queue stays busy so long
					 * after it last had a batch waiting */
#define DATAPATH_DROP_REASONS	(CAKE_DROP_FLUSH + 1)

struct conntrack;
struct handoff;
struct inbox;
struct natcache;
struct group;
struct json_writer;
struct pool;
struct ring;
struct tsrtt;

enum datapath_status {
	DATAPATH_OK = 0,
	DATAPATH_BLOCKED,	/* egress queue full: a packet is held */
	DATAPATH_GONE,		/* a device disappeared (errno in gone_errno) */
};

/* Every frame read ends in exactly one of these counters. */
struct datapath_stats {
	uint64_t	rx_pkts;	/* read and given to the engine */
	uint64_t	rx_bytes;
	uint64_t	rx_nobuf;	/* read and discarded: pool empty */
	uint64_t	rx_oversize;	/* filled the buffer: dropped */
	uint64_t	rx_empty;	/* zero-length reads: dropped */
	/* Subsets of rx_pkts, queued as best-effort non-IP (cake_parse()): */
	uint64_t	rx_truncated;	/* CAKE_META_TRUNCATED */
	uint64_t	rx_malformed;	/* CAKE_META_MALFORMED */
	uint64_t	rx_non_ip;	/* neither IP nor ARP, but well formed */
	uint64_t	rx_errors;	/* failed reads */
	uint64_t	tx_pkts;	/* written to the egress device */
	uint64_t	tx_bytes;
	uint64_t	tx_blocked;	/* writes refused with EAGAIN (kept) */
	uint64_t	tx_coalesced;	/* segments glued into super-packets */
	uint64_t	tx_errors;	/* writes failed: packet dropped */
	uint64_t	too_big;	/* above the egress device's MTU */
	uint64_t	drops[DATAPATH_DROP_REASONS];	/* engine, by reason */
	/* A worker's datapath (datapath_set_worker()): */
	uint64_t	hand_out;	/* rx_pkts copied to another worker */
	uint64_t	hand_full;	/* of those, refused: its queue full */
	uint64_t	hand_in;	/* taken from other readers, queued */
	uint64_t	hand_nobuf;	/* taken, but the pool was empty */
};

struct datapath {
	const char		*name;		/* "upload" or "download" */
	int			 in_fd;		/* queue 0 of each device */
	int			 out_fd;
	int			 in_fds[TUN_QUEUES_MAX];
	unsigned int		 in_queues;	/* 1: a single-queue device */
	int			 out_fds[TUN_QUEUES_MAX];
	unsigned int		 out_queues;
	unsigned int		 held_queue;	/* out queue the held wait on */
	_Atomic uint32_t	 in_hot;	/* bit q: queue q had more than
						 * a batch waiting, within
						 * DATAPATH_BUSY_HOLD_NS (read
						 * by the other direction's
						 * thread: relaxed) */
	uint64_t		 in_hot_ns[TUN_QUEUES_MAX];	/* when */
	_Atomic uint32_t	*hot;		/* where in_hot is kept: its own,
						 * or its direction's worker 0's */
	const _Atomic uint32_t	*out_hot;	/* the other direction's in_hot:
						 * busy queues of the egress
						 * device; NULL: unknown */
	enum cake_link		 link;
	struct group		*group;		/* the direction's workers */
	struct pool		*pool;
	struct cake_pkt		*held;		/* refused by a full device (a
						 * list, in order, by ->next) */
	struct cake_pkt		*rx_spare;	/* large buffer for GSO reads */
	bool			 in_vnet;	/* frames carry a vnet header */
	bool			 out_vnet;
	struct conntrack	*nat;		/* threads = 1: lookups
						 * (NULL: none, or nat_cache) */
	struct natcache		*nat_cache;	/* threads = 2: the thread's */
	struct inbox		*nat_ask;	/* its misses, to main */
	bool			 nat_use;	/* hash by pre-NAT keys */
	bool			 nat_mark;	/* take conntrack's mark */
	bool			 nat_inbound;	/* packets come from the WAN */
	int			 gone_errno;
	uint32_t		 last_tx;	/* sent by the last send */
	uint64_t		 horizon_ns;	/* send departures this early */
	struct datapath_stats	 st;
	struct log_rate		 rl_rx;
	struct log_rate		 rl_tx;
	struct log_rate		 rl_nobuf;
	struct log_rate		 rl_mtu;
	const char		*out_dev;	/* egress device, for logs */
	uint32_t		 out_mtu;	/* its MTU (loop.c); 0: unknown */
	bool			 hosts_by_dst;	/* host: destination */
	struct hostacct		 hosts;		/* sent and dropped per host */
	struct tsrtt		*ts;		/* passive delay; NULL: none */
	bool			 ts_from_lan;	/* frames come from the LAN */
	struct ring		*ts_ring;	/* instead of ts: segments for
						 * the table's thread */
	struct tsrtt_counters	 ts_parse;	/* its parse counters */
	uint64_t		 ts_ring_drops;	/* the ring was full */
	/*
	 * A worker's datapath: it owns worker `worker` of group (-1: the
	 * whole group, in one thread). A frame it reads for worker j is
	 * copied into hand_out[j] and j woken through hand_wake[j] (an
	 * eventfd; -1: none); hand_in[j] brings frames reader j read.
	 */
	int			 worker;
	struct handoff		*hand_out[GROUP_WORKERS_MAX];
	struct handoff		*hand_in[GROUP_WORKERS_MAX];
	int			 hand_wake[GROUP_WORKERS_MAX];
	uint32_t		 hand_pending;	/* bit j: wake worker j */
	uint64_t		 sync_ns;	/* last group_lend_sync() */
};

/* A TCP segment with a timestamp, passed to the thread owning tsrtt. */
struct datapath_seg {
	struct tsrtt_seg	seg;
	uint64_t		now_ns;
	uint64_t		no_timestamp;	/* ts_parse's, cumulative */
	uint64_t		bad_option;
	int			ev;		/* enum tsrtt_event */
};

void		datapath_init(struct datapath *dp, const char *name, int in_fd,
		    int out_fd, enum cake_link link, struct group *group,
		    struct pool *pool);
/*
 * Gives dp the queues of its devices (in[0] and out[0] as in_fd and
 * out_fd); 1 <= nin, nout <= TUN_QUEUES_MAX.
 */
void		datapath_set_queues(struct datapath *dp, const int in[],
		    unsigned int nin, const int out[], unsigned int nout);
/*
 * Looks each packet up in conntrack (ct, or NULL for none) before it is
 * queued, as datapath_set_nat() says (threads = 1).
 */
void		datapath_set_conntrack(struct datapath *dp,
		    struct conntrack *ct, bool inbound);
/*
 * threads = 2: looks each packet up in cache, owned by dp's thread and
 * filled by main; a miss posts the tuple to ask for main's conntrack.
 */
void		datapath_set_natcache(struct datapath *dp,
		    struct natcache *cache, struct inbox *ask, bool inbound);
/* What the lookups give the packet: cake's nat and fwmark options. */
void		datapath_set_nat(struct datapath *dp, bool nat, bool mark);
/*
 * Shows every frame to ts (tsrtt.h; NULL: none) as it arrives and as it
 * leaves caked's queue; from_lan: this is the upload direction.
 */
void		datapath_set_tsrtt(struct datapath *dp, struct tsrtt *ts,
		    bool from_lan);
/*
 * The same, but each TCP segment with a timestamp goes into ring (items:
 * struct datapath_seg) for the thread that owns the table; a full ring
 * drops it, counted in ts_ring_drops.
 */
void		datapath_set_tsrtt_ring(struct datapath *dp, struct ring *ring,
		    bool from_lan);
/*
 * Makes dp the datapath of worker w of its group, alone on its thread
 * (doc/workers.md, Threads): it queues to, sends from and syncs only
 * that worker's instance, whose GSO segments now come from dp's pool.
 * out[j], in[j] and wake[j] as in struct datapath (index w unused).
 */
void		datapath_set_worker(struct datapath *dp, unsigned int w,
		    struct handoff *const out[], struct handoff *const in[],
		    const int wake[]);
/*
 * A worker: queues the frames other readers handed over (call it when
 * dp's wakeup eventfd was readable, after clearing it). How many.
 */
unsigned int	datapath_take_handed(struct datapath *dp, uint64_t now_ns);
/*
 * A worker: applies the rate lent to it and publishes its counters
 * (group_lend_sync()); the loop calls it after each wakeup's work.
 */
void		datapath_sync(struct datapath *dp, uint64_t now_ns);
/* The engine's statistics: the group's, or a worker's own instance's. */
void		datapath_get_stats(const struct datapath *dp,
		    struct cake_stats *st);
/* The largest packet (bytes from the IP header) the read buffers hold. */
uint32_t	datapath_max_packet(const struct datapath *dp);
/*
 * Reads up to a batch from ingress queue fd into the engine (the loop
 * calls it for each readable queue, so each has its own budget per
 * turn). Returns enum datapath_status.
 */
int		datapath_read_fd(struct datapath *dp, int fd, uint64_t now_ns);
/* The same for every ingress queue in turn. */
int		datapath_read(struct datapath *dp, uint64_t now_ns);
/*
 * Sends what the shaper allows by now_ns + horizon_ns (a held packet
 * first). Returns enum datapath_status.
 */
int		datapath_send(struct datapath *dp, uint64_t now_ns);
/* The egress queue a flow's packet is written to (see datapath.c). */
unsigned int	datapath_out_queue(const struct datapath *dp,
		    const struct cake_pkt *pkt);
/* When datapath_send() should next run; CAKE_TIME_NEVER if blocked or idle. */
uint64_t	datapath_next_ns(const struct datapath *dp, uint64_t now_ns);
/* Takes the engine's dropped packets back into the pool, counted by reason. */
void		datapath_reap(struct datapath *dp);
/* Drops everything queued or held (counted as flush drops). */
void		datapath_flush(struct datapath *dp);
/*
 * Writes the I/O counters and drops by reason as the "io" member of the
 * current object, the buffer pool's as "pool" and the busiest hosts at
 * now_ns as "hosts".
 */
void		datapath_json(const struct datapath *dp, struct json_writer *w,
		    uint64_t now_ns);
/*
 * The same for a direction's worker datapaths dps[0..n) (worker 0 first),
 * summed; scratch holds their merged host table.
 */
void		datapath_json_sum(const struct datapath *const dps[],
		    unsigned int n, struct hostacct *scratch,
		    struct json_writer *w, uint64_t now_ns);
/* Logs the engine's and the I/O counters at LOG_INFO. */
void		datapath_log_stats(const struct datapath *dp);

#endif /* CAKED_DAEMON_DATAPATH_H */
