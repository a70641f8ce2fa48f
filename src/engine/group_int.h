/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * group_int.h: the layout of a worker group, shared by group.c (the
 * group as one direction) and group_lend.c (lending the rate) and
 * nothing else; include/caked/group.h is the interface.
 *
 * The fields of a slot are split by writer: the worker's thread writes
 * the published counters and its applied rate, the lender writes lent_Bps
 * and its own bookkeeping. What crosses threads is one atomic word at a
 * time, read and written relaxed: each is a sample on its own, and a
 * sample one period old only delays lending by that period.
 */
#ifndef CAKED_ENGINE_GROUP_INT_H
#define CAKED_ENGINE_GROUP_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "caked/group.h"
#include "engine/flows.h"

struct group_slot {
	struct cake		*c;
	/* Published by the worker (group_lend_sync()). */
	_Atomic uint64_t	 charged_bytes;	/* adjusted bytes, ever */
	_Atomic uint64_t	 sparse_bytes;	/* of them, not bulk flows */
	_Atomic uint64_t	 backlog_bytes;
	_Atomic uint64_t	 units;		/* active hosts (or flows) */
	/* Written by the lender (group_lend()). */
	_Atomic uint64_t	 lent_Bps;
	/* The worker's own. */
	uint64_t		 applied_Bps;
	/* The lender's own. */
	uint64_t		 seen_bytes;	/* charged_bytes, last lend */
	uint64_t		 seen_sparse;	/* sparse_bytes, last lend */
	uint32_t		 quiet;		/* periods without traffic */
};

struct group {
	struct cake_config	cfg;		/* the whole direction's */
	enum cake_link		link;
	enum group_side		side;
	enum flows_steer	steer;
	unsigned int		n;
	unsigned int		rr;		/* next worker to dequeue */
	uint64_t		key[2];		/* steering hash key */
	/* The lender's. */
	uint64_t		last_lend_ns;
	int64_t			credit_bytes;	/* rate left unused, to repay */
	/* group_lend_tick(): when the single-thread caller lends next. */
	uint64_t		next_lend_ns;
	struct group_slot	slots[GROUP_WORKERS_MAX];
};

/*
 * Restarts lending after creation (old_Bps 0: equal shares) or a change
 * from old_Bps (each worker keeps its part of the rate).
 */
void	group_lend_reset(struct group *g, uint64_t old_Bps, uint64_t now_ns);
/* Single-thread callers: syncs every worker and lends when a period is due. */
void	group_lend_tick(struct group *g, uint64_t now_ns);

#endif /* CAKED_ENGINE_GROUP_INT_H */
