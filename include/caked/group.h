/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * group.h: a group of CAKE instances (workers) that shape one direction
 * together, so that the direction can use more than one core (src/engine,
 * libcakeengine.a; doc/workers.md says how and why).
 *
 * Packets are steered to a worker by a hash of the host CAKE isolates on
 * (or of the 5-tuple in the flow modes), so a host's flows all meet in
 * one worker and host fairness stays whole there. The configured rate is
 * lent to the workers every GROUP_LEND_PERIOD_NS from what each used,
 * queued and holds (active hosts or flows): the rates lent sum to the
 * configured rate, an idle worker's share goes to the busy ones, and busy
 * workers share in proportion to their active hosts.
 *
 * Pure like the engine: no system call, no clock, no lock, no allocation
 * after group_create(). Threading contract: each worker's instance
 * (group_worker()) belongs to one thread, which enqueues, dequeues and
 * calls group_lend_sync() for it; group_lend() runs from one place (any
 * one thread); those two are the only cross-worker operations and meet
 * only in single-word atomic counters. Every other function here works on
 * the whole group and is for a caller that runs every worker in one
 * thread (it lends by itself, when due).
 */
#ifndef CAKED_CAKED_GROUP_H
#define CAKED_CAKED_GROUP_H

#include <stdint.h>

#include "caked/cake.h"

#define GROUP_WORKERS_MAX	8
#define GROUP_LEND_PERIOD_NS	1000000ULL	/* lend every 1 ms */

/*
 * The side of a packet whose host a worker is chosen by, in the modes
 * that isolate both sides (triple-isolate, hosts): the local hosts, i.e.
 * the source on upload and the destination on download. The single-side
 * modes choose their own side; the flow modes hash the 5-tuple.
 */
enum group_side {
	GROUP_SIDE_SRC = 0,
	GROUP_SIDE_DST,
};

struct group;

/*
 * Creates a group of workers instances (1..GROUP_WORKERS_MAX) of cfg
 * sharing env (seeds derived per worker; worker 0 keeps env->seed, so a
 * group of one is exactly one instance). *err gets an enum cake_err on
 * failure: autorate-ingress needs one worker (CAKE_ERR_INVAL).
 */
struct group	*group_create(const struct cake_config *cfg,
		    const struct cake_env *env, unsigned int workers,
		    enum group_side side, int *err);
/* Frees the group. Flush and take the dropped packets first. */
void		 group_destroy(struct group *g);
/* Applies new parameters to every worker (no worker thread may run). */
int		 group_change(struct group *g, const struct cake_config *cfg,
		    uint64_t now_ns);
/* The group's parameters (the whole rate, not a worker's lent one). */
void		 group_get_config(const struct group *g,
		    struct cake_config *cfg);
/* Number of workers. */
unsigned int	 group_workers(const struct group *g);
/* Worker i's instance, for the thread that owns it. */
struct cake	*group_worker(struct group *g, unsigned int i);
/*
 * The worker a packet belongs to; parses it first unless meta_valid (so
 * cake_enqueue() does not parse again). Reads the group only: safe from
 * any thread.
 */
unsigned int	 group_steer(const struct group *g, struct cake_pkt *pkt);

/* ---- the cross-worker step (threads) -------------------------------- */

/*
 * Worker i's thread: applies the rate lent to it last and publishes its
 * counters for the next group_lend(). Call it at least once per lending
 * period while the worker has a backlog (e.g. after each batch).
 */
void		 group_lend_sync(struct group *g, unsigned int i,
		    uint64_t now_ns);
/* The lender (one thread): shares the rate out anew from what was published. */
void		 group_lend(struct group *g, uint64_t now_ns);
/* The rate (bytes/s) lent to worker i last; the whole one if alone. */
uint64_t	 group_lend_rate_Bps(const struct group *g, unsigned int i);

/* ---- every worker in one thread ------------------------------------- */

/* Steers and queues one packet (lends when due); returns enum cake_enq. */
int		 group_enqueue(struct group *g, struct cake_pkt *pkt,
		    uint64_t now_ns);
/* The next packet any worker releases by now_ns (+ ahead_ns), or NULL. */
struct cake_pkt	*group_dequeue(struct group *g, uint64_t now_ns);
struct cake_pkt	*group_dequeue_ahead(struct group *g, uint64_t now_ns,
		    uint64_t ahead_ns);
/*
 * The earliest instant a worker may release a packet, or the next
 * lending while anything is queued; CAKE_TIME_NEVER when all are empty.
 */
uint64_t	 group_next_ns(const struct group *g, uint64_t now_ns);
/* Every worker's dropped packets, in one list (linked by ->next). */
struct cake_pkt	*group_take_dropped(struct group *g);
/* Moves every queued packet to the dropped lists. */
void		 group_flush(struct group *g);
/* The workers' statistics summed (tin by tin); delays are the worst. */
void		 group_get_stats(const struct group *g, struct cake_stats *st);
/* Up to max flow queues of all workers, worker by worker. */
unsigned int	 group_get_flows(const struct group *g,
		    struct cake_flow_stats *out, unsigned int max);
/* cake_check_invariants() of every worker: 0 if all are sound. */
int		 group_check_invariants(const struct group *g);

#endif /* CAKED_CAKED_GROUP_H */
