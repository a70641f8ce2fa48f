/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * passive.h: the daemon's side of the passive delay (engine/tsrtt.h): the
 * one table both directions' datapaths feed, and its statistics as JSON.
 */
#ifndef CAKED_DAEMON_PASSIVE_H
#define CAKED_DAEMON_PASSIVE_H

#include <stdint.h>

struct autorate_run;
struct json_writer;
struct tsrtt;

#define PASSIVE_PUSH_NS	50000000ULL	/* to autorate at most every 50 ms */

/* A zeroed table (fixed size, allocated once at start); NULL if none. */
struct tsrtt	*passive_create(void);
void		 passive_destroy(struct tsrtt *ts);
/*
 * Writes direction dir's "passive" member (delay, baseline, recent,
 * samples, flows sampled) at now_ns. ts may be NULL: nothing is written.
 */
void		 passive_json_dir(struct tsrtt *ts, int dir, uint64_t now_ns,
		    struct json_writer *w);
/*
 * Hands each direction's fresh passive delay to autorate
 * (autorate_run_passive()), at most every PASSIVE_PUSH_NS since *last_ns,
 * which it updates. Cheap enough to call on every wakeup.
 */
void		 passive_autorate(struct tsrtt *ts, struct autorate_run *ar,
		    uint64_t *last_ns, uint64_t now_ns);
/* Writes the top-level "passive" member: the table's counters. */
void		 passive_json(const struct tsrtt *ts, struct json_writer *w);

#endif /* CAKED_DAEMON_PASSIVE_H */
