/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop_call.c: work main gives a packet thread. With threads = 2 main
 * talks to each packet thread through an inbox (calls, stop) and hears
 * back through an outbox (exit); loop_call() runs a function where a
 * packet loop's packets move and waits for the answer, and loop_dcall()
 * parks a direction's other workers while its worker 0 does it, so that
 * a snapshot or a change sees the whole direction at one instant.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <event2/event.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/reply.h"
#include "daemon/timer.h"
#include "daemon/loop_int.h"

#define LOOP_CALL_TIMEOUT_NS	500000000ULL	/* a packet thread answers */

/*
 * Runs fn(p, arg) where p's packets move: here with threads = 1 (or
 * while p's thread is not running: set-up and tear-down); with threads =
 * 2 on p's thread, between two of its wakeups, while main waits (at most
 * LOOP_CALL_TIMEOUT_NS). arg lives on main's stack: an answer after main
 * gave up is refused (reply.c), so nothing writes into it late. 0, or -1
 * when the thread did not answer (busy).
 */
int
loop_call(struct loop_pkt *p, loop_call_fn *fn, void *arg)
{
	struct loop_msg	m = { .kind = LOOP_MSG_CALL, .fn = fn, .arg = arg };

	if (!p->started) {
		fn(p, arg);
		return 0;
	}
	m.seq = reply_begin(&p->reply);
	p->last_busy = true;
	if (inbox_post(p->inbox, &m) == -1) {
		(void)reply_wait(&p->reply, m.seq, 0);	/* closes it */
		p->busy++;
		return -1;
	}
	if (!reply_wait(&p->reply, m.seq, LOOP_CALL_TIMEOUT_NS)) {
		p->busy++;
		return -1;
	}
	p->last_busy = false;
	return 0;
}

/*
 * A worker's thread: waits while main's round lasts (a message of a
 * round main already ended is ignored, so it never waits for nothing).
 */
static void
loop_parked(struct loop_park *pk, uint64_t round)
{
	(void)pthread_mutex_lock(&pk->mu);
	if (pk->round == round && pk->open) {
		pk->parked++;
		(void)pthread_cond_broadcast(&pk->cv);
		while (pk->round == round && pk->open)
			(void)pthread_cond_wait(&pk->cv, &pk->mu);
	}
	(void)pthread_mutex_unlock(&pk->mu);
}

/* Main: waits until n threads parked, at most LOOP_CALL_TIMEOUT_NS. */
bool
loop_park_wait(struct loop_park *pk, unsigned int n)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += LOOP_CALL_TIMEOUT_NS / 1000000000ULL;
	ts.tv_nsec += LOOP_CALL_TIMEOUT_NS % 1000000000ULL;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (pk->parked < n)
		if (pthread_cond_timedwait(&pk->cv, &pk->mu, &ts) != 0)
			break;
	return pk->parked >= n;
}

/* The packet thread's side: main's messages, between wakeups. */
void
loop_on_inbox(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt	*p = arg;
	struct loop_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->inbox);
	while (inbox_take(p->inbox, &m)) {
		if (m.kind == LOOP_MSG_STOP) {
			event_base_loopbreak(p->base);
			continue;
		}
		if (m.kind == LOOP_MSG_PARK) {
			loop_parked(m.arg, m.seq);
			continue;
		}
		if (m.kind != LOOP_MSG_CALL || !reply_claim(&p->reply, m.seq))
			continue;	/* main gave up: write nothing */
		m.fn(p, m.arg);
		reply_done(&p->reply, m.seq);
	}
}

/*
 * Runs fn(p, arg) on direction dir's packet loop (worker 0's) with every
 * other worker thread of the direction parked, so that fn may read and
 * write the whole group and every worker's datapath; the park's mutex
 * orders their writes before fn's and fn's before their next. 0, or -1
 * when a thread did not park or answer in time (busy).
 */
int
loop_dcall(struct loop *l, int dir, loop_call_fn *fn, void *arg)
{
	struct loop_park	*pk = &l->park[dir];
	struct loop_msg		 m = { .kind = LOOP_MSG_PARK, .arg = pk };
	unsigned int		 w, n = l->nworkers[dir];
	bool			 ok = true;
	int			 rc = -1;

	if (n < 2 || !l->dir[dir].pkt->started)
		return loop_call(l->dir[dir].pkt, fn, arg);
	(void)pthread_mutex_lock(&pk->mu);
	m.seq = ++pk->round;
	pk->open = true;
	pk->parked = 0;
	(void)pthread_mutex_unlock(&pk->mu);
	for (w = 1; w < n && ok; w++)
		ok = inbox_post(loop_wdir(l, dir, w)->pkt->inbox, &m) == 0;
	(void)pthread_mutex_lock(&pk->mu);
	ok = ok && loop_park_wait(pk, n - 1);
	(void)pthread_mutex_unlock(&pk->mu);
	if (ok)
		rc = loop_call(l->dir[dir].pkt, fn, arg);
	else {
		l->dir[dir].pkt->busy++;
		l->dir[dir].pkt->last_busy = true;
	}
	(void)pthread_mutex_lock(&pk->mu);
	pk->open = false;
	(void)pthread_cond_broadcast(&pk->cv);
	(void)pthread_mutex_unlock(&pk->mu);
	return rc;
}

/* Main's side: a packet thread asks caked to stop. */
void
loop_on_outbox(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt	*p = arg;
	struct loop_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->outbox);
	while (inbox_take(p->outbox, &m))
		if (m.kind == LOOP_MSG_EXIT)
			loop_stop(p->loop, m.code);
}

static void
loop_snap_fn(struct loop_pkt *p, void *arg)
{
	struct loop_snap	*s = arg;

	(void)p;
	if (s->st != NULL)
		group_get_stats(s->g, s->st);
	if (s->cfg != NULL)
		group_get_config(s->g, s->cfg);
	if (s->flows != NULL)
		s->got = group_get_flows(s->g, s->flows, s->max);
}

/* A consistent copy of direction dir's engines; -1: none, or busy. */
int
loop_snapshot(struct loop *l, int dir, struct loop_snap *s)
{
	if (dir < 0 || dir >= CONFIG_DIRS || l->setup.group[dir] == NULL)
		return -1;
	s->g = l->setup.group[dir];
	return loop_dcall(l, dir, loop_snap_fn, s);
}

struct loop_change {
	struct loop			*l;
	int				 dir;
	struct group			*g;
	const struct cake_config	*cfg;
	uint64_t			 now_ns;
	int				 rc;
};

/* As tc change; packets of tins that went away come back as drops. */
static void
loop_change_fn(struct loop_pkt *p, void *arg)
{
	struct loop_change	*c = arg;
	unsigned int		 w;

	if ((c->rc = group_change(c->g, c->cfg, c->now_ns)) != CAKE_OK)
		return;
	/* The other workers are parked (loop_dcall()): theirs too. */
	for (w = 0; w < c->l->nworkers[c->dir]; w++)
		datapath_reap(&loop_wdir(c->l, c->dir, w)->dp);
	loop_service(p, timer_now_ns());
}

/* group_change() on dir's thread: its result, or LOOP_BUSY. */
int
loop_change(struct loop *l, int dir, const struct cake_config *cfg,
    uint64_t now_ns)
{
	struct loop_change	c = { l, dir, l->setup.group[dir], cfg,
				    now_ns, CAKE_OK };

	if (loop_dcall(l, dir, loop_change_fn, &c) == -1)
		return LOOP_BUSY;
	return c.rc;
}

struct loop_set64 {
	struct loop	*l;
	int		 dir;
	uint64_t	 v;
};

/* Every worker's horizon (the others are parked: loop_dcall()). */
static void
loop_horizon_fn(struct loop_pkt *p, void *arg)
{
	struct loop_set64	*s = arg;
	unsigned int		 w;

	(void)p;
	for (w = 0; w < s->l->nworkers[s->dir]; w++)
		loop_wdir(s->l, s->dir, w)->dp.horizon_ns = s->v;
}

/* [general] departure-horizon, at start and on each reload. */
void
loop_horizon(struct loop *l)
{
	struct loop_set64	s;
	int			i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		s.l = l;
		s.dir = i;
		s.v = (uint64_t)l->setup.cfg->horizon_us * 1000;
		if (loop_dcall(l, i, loop_horizon_fn, &s) == -1)
			log_warnx("%s: busy, departure-horizon not changed",
			    config_dir_name(i));
	}
}
