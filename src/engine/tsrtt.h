/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tsrtt.h: passive delay of the path beyond caked, from the TCP timestamp
 * options (RFC 7323) of the forwarded traffic (doc/passive.md).
 *
 * Pure: no I/O, no clock, no allocation; the caller owns struct tsrtt
 * (fixed size) and passes the time of every event in. Four events are
 * fed: a frame arriving from the LAN (before caked's upload queue), one
 * leaving towards the WAN (after it), one arriving from the WAN (before
 * the download queue) and one leaving towards the LAN. Out come, per
 * direction of the bottleneck, the extra delay now against a baseline,
 * and per LAN host the RTT of the LAN side and of the WAN side.
 */
#ifndef CAKED_ENGINE_TSRTT_H
#define CAKED_ENGINE_TSRTT_H

#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"

#define TSRTT_WAYS		4	/* flows per hash set */
#define TSRTT_SETS		256
#define TSRTT_FLOWS_MAX		(TSRTT_WAYS * TSRTT_SETS)	/* bound */
#define TSRTT_PENDING		4	/* TSvals awaiting their echo, per side */
#define TSRTT_PENDING_NS	2000000000ULL	/* unanswered: given up */
#define TSRTT_FLOW_IDLE_NS	10000000000ULL	/* flow silent: slot reusable */
#define TSRTT_WINDOW_NS		100000000ULL	/* delays: min over this */
#define TSRTT_FRESH_NS		1000000000ULL	/* a window older: stale */
#define TSRTT_BASE_WINDOW_NS	4000000000ULL	/* baselines: min over this */
#define TSRTT_SRTT_SHIFT	3	/* per-flow RTT: EWMA 1/8 */
#define TSRTT_MATURE		4	/* samples before a flow's delay counts */
#define TSRTT_TICK_LEARN_NS	1000000000ULL	/* span to learn a clock rate */

/* Where a frame was seen. */
enum tsrtt_event {
	TSRTT_LAN_ARRIVE = 0,	/* from a LAN host, before the upload queue */
	TSRTT_WAN_DEPART,	/* to the WAN, after the upload queue */
	TSRTT_WAN_ARRIVE,	/* from the WAN, before the download queue */
	TSRTT_LAN_DEPART,	/* to a LAN host, after the download queue */
};

/* Direction of the bottleneck (as config.h: 0 upload, 1 download). */
enum tsrtt_dir {
	TSRTT_UPLOAD = 0,
	TSRTT_DOWNLOAD,
	TSRTT_TOTAL,		/* the WAN round trip, not split */
	TSRTT_DIRS,
};

/* One TCP segment as the module needs it (tsrtt_parse() fills it). */
struct tsrtt_seg {
	uint8_t		lan[16];	/* LAN host, v4-mapped for IPv4 */
	uint8_t		wan[16];
	uint16_t	lan_port;
	uint16_t	wan_port;
	uint8_t		family;		/* 4 or 6 */
	uint8_t		flags;		/* TCP flags byte */
	uint32_t	seq;
	uint32_t	ack;		/* valid if flags has ACK */
	uint32_t	payload;	/* bytes after the TCP header */
	uint32_t	tsval;
	uint32_t	tsecr;
};

/*
 * A baseline: the lowest value of the last half to whole
 * TSRTT_BASE_WINDOW_NS, kept as the minima of two half-window buckets.
 */
struct tsrtt_floor {
	bool		set;
	int64_t		cur;		/* minimum since start_ns */
	int64_t		prev;		/* the bucket before's */
	uint64_t	start_ns;
};

/* A TSval seen leaving caked, awaiting its echo. */
struct tsrtt_pending {
	uint32_t	tsval;
	bool		used;
	bool		retrans;	/* carried by a retransmission: no sample */
	uint64_t	sent_ns;	/* first departure */
};

/* The TCP end on one side (LAN or WAN) of a flow. */
struct tsrtt_end {
	struct tsrtt_pending	pend[TSRTT_PENDING];
	bool			seen;		/* seq_end, last_tsval valid */
	uint32_t		seq_end;	/* highest seq + payload sent */
	uint32_t		last_tsval;	/* newest TSval sent */
	uint32_t		last_echoed;	/* newest TSval echoed back */
	bool			echoed;		/* last_echoed valid */
	uint64_t		srtt_ns;	/* round trip to the other end and back */
	uint64_t		rtt_base_ns;
	struct tsrtt_floor	rtt_floor;	/* gives rtt_base_ns */
	uint64_t		last_sample_ns;
	uint32_t		samples;
	bool			ack_seen;	/* acked valid */
	uint32_t		acked;		/* highest ACK of its data */
};

/* The WAN host's clock, read from its TSvals as they arrive. */
struct tsrtt_clock {
	bool		ref;		/* ref_* valid */
	uint64_t	ref_ns;		/* arrival of ref_ts */
	uint32_t	ref_ts;
	uint32_t	tick_ns;	/* ns per TSval unit; 0: not learnt */
	bool		arrived;	/* last_ts valid */
	uint32_t	last_ts;	/* newest TSval arrived */
	bool		base_set;
	int64_t		base_ns;	/* min of arrival - TSval * tick */
	struct tsrtt_floor floor;	/* gives base_ns */
	int64_t		rise_ns;	/* last one-way delay above base */
	uint64_t	last_ns;	/* time of the last sample */
	uint32_t	samples;
};

/* One TCP flow, keyed by its LAN and WAN ends. */
struct tsrtt_flow {
	uint8_t			lan[16];
	uint8_t			wan[16];
	uint16_t		lan_port;
	uint16_t		wan_port;
	uint8_t			family;		/* 0: slot free */
	uint64_t		last_ns;	/* last frame seen */
	struct tsrtt_end	lan_host;	/* its TSvals time the WAN side */
	struct tsrtt_end	wan_host;	/* its TSvals time the LAN side */
	struct tsrtt_clock	clk;		/* the WAN host's clock */
};

/* What the module counts (all monotonic). */
struct tsrtt_counters {
	uint64_t	segments;	/* TCP segments with a timestamp option */
	uint64_t	no_timestamp;	/* TCP segments without one */
	uint64_t	bad_option;	/* malformed TCP options: ignored */
	uint64_t	samples;	/* round trips measured, both sides */
	uint64_t	retrans;	/* retransmissions: no sample */
	uint64_t	expired;	/* TSvals never echoed in time */
	uint64_t	evictions;	/* live flows pushed out (table full) */
	uint64_t	ticks_unknown;	/* WAN clocks of no known rate */
	/*
	 * Upload delivery: new TCP payload bytes that LAN hosts sent to
	 * the WAN (at departure), and the bytes of it the WAN hosts have
	 * acknowledged (at the ACK's arrival). The second grows at the rate
	 * the upload bottleneck delivers, whatever caked's rate is.
	 */
	uint64_t	up_sent;
	uint64_t	up_acked;
};

/* One direction's extra delay: the minimum over a window. */
struct tsrtt_delay {
	int64_t		win_min_ns;
	uint64_t	win_start_ns;
	uint64_t	win_last_ns;	/* its last sample */
	uint32_t	win_samples;
	int64_t		recent_ns;	/* last closed window's minimum */
	uint64_t	recent_at_ns;	/* its last sample; 0: never */
	uint64_t	samples;
};

struct tsrtt {
	struct tsrtt_flow	flows[TSRTT_FLOWS_MAX];
	struct tsrtt_delay	dir[TSRTT_DIRS];
	struct tsrtt_counters	c;
};

/* A direction's view, for statistics. */
struct tsrtt_view {
	bool		fresh;		/* a window closed within TSRTT_FRESH_NS */
	bool		split;		/* per direction (else the round trip) */
	int64_t		delay_ns;	/* recent minus baseline; -1: none */
	uint64_t	baseline_ns;	/* the WAN round trip's, 0: none */
	uint64_t	samples;
	uint32_t	flows;		/* flows sampled in TSRTT_FRESH_NS */
};

/* Empties the tables and counters. */
void	tsrtt_init(struct tsrtt *t);
/*
 * Reads the TCP segment of a frame that cake_parse() parsed into m, as
 * seen at ev, into *s. False if it is not TCP with a timestamp option
 * (counted). Never reads outside data[0..len).
 */
bool	tsrtt_parse(struct tsrtt *t, enum tsrtt_event ev, const uint8_t *data,
	    uint32_t len, const struct cake_pkt_meta *m, struct tsrtt_seg *s);
/* The same, counting what it skips in c (a table on another thread). */
bool	tsrtt_parse_counted(struct tsrtt_counters *c, enum tsrtt_event ev,
	    const uint8_t *data, uint32_t len, const struct cake_pkt_meta *m,
	    struct tsrtt_seg *s);
/* One segment seen at ev at now_ns. */
void	tsrtt_segment(struct tsrtt *t, enum tsrtt_event ev,
	    const struct tsrtt_seg *s, uint64_t now_ns);
/* tsrtt_parse() then tsrtt_segment(): the datapath's call per frame. */
void	tsrtt_frame(struct tsrtt *t, enum tsrtt_event ev, const uint8_t *data,
	    uint32_t len, const struct cake_pkt_meta *m, uint64_t now_ns);
/*
 * The extra delay of direction dir (enum tsrtt_dir) now, in *delay_ns:
 * its own if fresh, else the WAN round trip's if fresh. False if neither.
 */
bool	tsrtt_delay(struct tsrtt *t, int dir, uint64_t now_ns,
	    int64_t *delay_ns);
/* Fills v for dir (enum tsrtt_dir). */
void	tsrtt_view(struct tsrtt *t, int dir, uint64_t now_ns,
	    struct tsrtt_view *v);
/*
 * The smoothed RTT of LAN host addr (v4-mapped, family 4 or 6) on the LAN
 * side and beyond caked on the WAN side: the mean of its flows sampled
 * within TSRTT_FRESH_NS, or if none within TSRTT_FLOW_IDLE_NS; 0 where
 * not measured.
 */
void	tsrtt_host(const struct tsrtt *t, const uint8_t addr[16],
	    uint8_t family, uint64_t now_ns, uint64_t *lan_ns,
	    uint64_t *wan_ns);

#endif /* CAKED_ENGINE_TSRTT_H */
