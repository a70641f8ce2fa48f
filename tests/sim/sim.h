/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * sim.h: the deterministic discrete-event simulator that drives the CAKE
 * engine (through include/caked/cake.h only) with a fake clock.
 *
 * sim.c is the event core, packet pool and link; sources.c the traffic
 * sources; scenarios.c the scenarios and their assertions; report.c the
 * figures (Jain's index, CSV). Test code only: it allocates freely at set
 * up, and must never include the engine's internal headers.
 */
#ifndef CAKED_SIM_SIM_H
#define CAKED_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caked/cake.h"

#define SIM_MS		1000000ULL
#define SIM_S		1000000000ULL
#define SIM_PKT_CAP	1536		/* bytes of frame storage per packet */
#define SIM_PKT_TRUESIZE 2048		/* bytes charged to memlimit (like an skb) */
#define SIM_INVARIANT_EVERY 1000	/* events between invariant checks */
#define SIM_IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* A simulated packet: the engine's struct first, then our bookkeeping. */
struct sim_pkt {
	struct cake_pkt	 pkt;		/* first: a cake_pkt * is a sim_pkt * */
	uint32_t	 src;		/* index of the source; UINT32_MAX = none */
	uint64_t	 enq_ns;	/* when the source handed it to the engine */
	uint8_t		 buf[SIM_PKT_CAP];
};

enum sim_kind {
	SIM_SRC_BACKLOG = 0,		/* keeps depth packets queued */
	SIM_SRC_CBR,			/* constant rate (UDP) */
	SIM_SRC_PROBE,			/* one small packet every interval */
	SIM_SRC_TCP,			/* window-based AIMD, ack after one RTT */
	SIM_SRC_ACKS,			/* pure TCP ACKs at a constant rate */
};

/* One traffic source (one 5-tuple). */
struct sim_src {
	enum sim_kind	kind;
	uint8_t		proto;		/* 6 TCP, 17 UDP */
	uint8_t		tos;		/* DSCP << 2 | ECN */
	uint32_t	saddr;		/* IPv4, host order */
	uint32_t	daddr;
	uint16_t	sport;
	uint16_t	dport;
	uint32_t	host;		/* host index for the per-host report */
	uint32_t	len_bytes;	/* IP packet length */
	uint64_t	interval_ns;	/* CBR, probe, acks */
	uint64_t	start_ns;
	uint64_t	stop_ns;	/* sends nothing from then; 0 = never */
	uint32_t	depth_pkts;	/* backlog */
	uint64_t	rtt_ns;		/* TCP: base RTT (ack delay line) */
	/* State. */
	bool		pending;	/* a send event is scheduled */
	uint32_t	queued_pkts;	/* in the engine now */
	uint32_t	seq;
	double		cwnd_pkts;
	double		ssthresh_pkts;
	uint32_t	inflight_pkts;
	uint64_t	recover_until_ns;
	/* Results (dequeues at or after the measurement start). */
	uint64_t	offered_pkts;
	uint64_t	sent_pkts;
	uint64_t	sent_bytes;
	uint64_t	drops;
	uint64_t	marks;
	uint64_t	cuts;		/* TCP window reductions */
	uint64_t	sum_delay_ns;
	uint64_t	max_delay_ns;
};

/* Event kinds of the heap. */
enum sim_ev_kind {
	SIM_EV_SEND = 0,		/* the source may send */
	SIM_EV_ACK,			/* a TCP ack arrives (flag: CE echoed) */
	SIM_EV_LOSS,			/* a TCP sender notices a loss */
};

struct sim_ev {
	uint64_t	t_ns;
	uint64_t	order;		/* tie-break: insertion order */
	uint32_t	src;
	uint8_t		kind;
	uint8_t		flag;
};

struct sim {
	struct group	*g;		/* the engine: one or more workers */
	uint64_t	 now_ns;
	uint64_t	 measure_from_ns;
	uint64_t	 seed;
	uint64_t	 rng;
	bool		 check;		/* run cake_check_invariants() */
	int		 invariant_line;	/* first failure, 0 if none */
	/* Sources. */
	struct sim_src	*srcs;
	uint32_t	 nsrcs;
	uint32_t	 srcs_cap;
	uint32_t	 nhosts;
	/* Event heap. */
	struct sim_ev	*heap;
	uint32_t	 nev;
	uint32_t	 ev_cap;
	uint64_t	 ev_order;
	uint64_t	 events;
	/* Packet pool: chunks allocated on demand, never freed until the end. */
	struct cake_pkt	*free_list;
	void		**chunks;
	uint32_t	 nchunks;
	uint64_t	 pool_pkts;
	uint64_t	 pool_out;	/* packets out of the pool now */
	uint64_t	 pool_out_max;
	/* Link and totals (after measure_from_ns). */
	uint64_t	 link_bytes;
	uint64_t	 link_pkts;
	uint64_t	 other_drops;
	uint64_t	 idle_spins;	/* "now", yet nothing to release */
	double		 fig[4];	/* a scenario run hook's figures */
};

/*
 * Creates a simulation around an engine of workers instances (a group,
 * lending the rate when more than one) configured by a keyword line.
 */
int		 sim_init(struct sim *s, const char *keywords,
		    unsigned int workers, uint64_t seed, char *err,
		    size_t errlen);
/* Flushes the engine and frees everything. */
void		 sim_done(struct sim *s);
/* Adds a source (copied); returns its index or -1. */
int		 sim_add(struct sim *s, const struct sim_src *tmpl);
/* Runs until now_ns reaches until_ns. */
void		 sim_run(struct sim *s, uint64_t until_ns);
/* Deterministic PRNG (splitmix64). */
uint64_t	 sim_rand(struct sim *s);
/* Uniform in [0, n). */
uint64_t	 sim_rand_below(struct sim *s, uint64_t n);

/* Event heap and pool, used by sources.c. */
void		 sim_schedule(struct sim *s, uint64_t t_ns, uint32_t src,
		    enum sim_ev_kind kind, uint8_t flag);
struct sim_pkt	*sim_pkt_get(struct sim *s);
void		 sim_pkt_put(struct sim *s, struct cake_pkt *pkt);
/* Hands one packet to the engine and settles the dropped list. */
void		 sim_enqueue(struct sim *s, struct sim_pkt *p);

/* sources.c: writes the headers of source src's next packet into p. */
void		 sources_build(const struct sim_src *src, struct sim_pkt *p);
/* Builds and sends a packet of source i now (none after its stop_ns). */
void		 sources_send(struct sim *s, uint32_t i);
/* Starts every source (schedules its first event). */
void		 sources_start(struct sim *s);
/* An event for source i is due. */
void		 sources_event(struct sim *s, const struct sim_ev *ev);
/* A packet of the source left the engine (delay in ns, CE-marked or not). */
void		 sources_delivered(struct sim *s, struct sim_pkt *p);
/* A packet of the source was dropped by the engine. */
void		 sources_dropped(struct sim *s, struct sim_pkt *p);

#endif /* CAKED_SIM_SIM_H */
