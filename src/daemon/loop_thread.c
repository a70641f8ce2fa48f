/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop_thread.c: the packet loops and their threads. Set-up (a packet
 * loop on main's base with threads = 1; a base, a thread and its inboxes
 * per direction or per worker with threads = 2), start, stop and join,
 * and the tear-down of what they held.
 */
#include <sys/eventfd.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "caked/group.h"
#include "daemon/handoff.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/natcache.h"
#include "daemon/reply.h"
#include "daemon/ring.h"
#include "daemon/timer.h"
#include "daemon/loop_int.h"

#define LOOP_INBOX_SLOTS	64	/* messages waiting for a thread */
#define LOOP_HAND_BYTES		(2U << 20)	/* a reader's queue to a worker */

/* A packet loop on base, with its own departure timer. */
static int
loop_pkt_init(struct loop *l, struct loop_pkt *p, struct event_base *base)
{
	p->loop = l;
	p->base = base;
	p->armed_ns = CAKE_TIME_NEVER;
	if ((p->timer_fd = timer_open()) == -1) {
		log_warn("timerfd");
		return -1;
	}
	p->ev_timer = event_new(base, p->timer_fd, EV_READ | EV_PERSIST,
	    loop_on_timer, p);
	if (p->ev_timer == NULL || event_add(p->ev_timer, NULL) == -1) {
		log_warnx("cannot set up the departure timer");
		return -1;
	}
	return 0;
}

/*
 * threads = 2: p gets a base of its own, its inbox from main (watched on
 * that base), its outbox to main (watched on main's) and the ring of TCP
 * segments for main's passive delay table.
 */
static int
loop_pkt_thread_init(struct loop *l, struct loop_pkt *p)
{
	p->threaded = true;
	if (reply_init(&p->reply) == -1) {
		log_warn("packet thread reply");
		return -1;
	}
	p->reply_ok = true;
	if ((p->base = event_base_new()) == NULL ||
	    (p->inbox = inbox_create(LOOP_INBOX_SLOTS,
	    sizeof(struct loop_msg))) == NULL ||
	    (p->outbox = inbox_create(LOOP_INBOX_SLOTS,
	    sizeof(struct loop_msg))) == NULL ||
	    (p->ts_ring = ring_create(LOOP_TS_SLOTS,
	    sizeof(struct datapath_seg))) == NULL) {
		log_warn("packet thread");
		return -1;
	}
	p->ev_inbox = event_new(p->base, inbox_fd(p->inbox),
	    EV_READ | EV_PERSIST, loop_on_inbox, p);
	p->ev_outbox = event_new(l->base, inbox_fd(p->outbox),
	    EV_READ | EV_PERSIST, loop_on_outbox, p);
	if (p->ev_inbox == NULL || p->ev_outbox == NULL ||
	    event_add(p->ev_inbox, NULL) == -1 ||
	    event_add(p->ev_outbox, NULL) == -1) {
		log_warnx("cannot set up a packet thread's messages");
		return -1;
	}
	return 0;
}

void
loop_pkt_fini(struct loop_pkt *p)
{
	loop_event_free(&p->ev_timer);
	if (p->timer_fd != -1)
		(void)close(p->timer_fd);
	p->timer_fd = -1;
	loop_event_free(&p->ev_inbox);
	loop_event_free(&p->ev_outbox);
	loop_event_free(&p->ev_nat_in);
	loop_event_free(&p->ev_nat_ask);
}

/* What loop_pkt_fini() leaves: the base and messages, once unused. */
void
loop_pkt_free(struct loop_pkt *p)
{
	if (!p->threaded)
		return;
	if (p->base != NULL)
		event_base_free(p->base);
	inbox_destroy(p->inbox);
	inbox_destroy(p->outbox);
	inbox_destroy(p->nat_in);
	inbox_destroy(p->nat_ask);
	natcache_destroy(p->nat_cache);
	ring_destroy(p->ts_ring);
	if (p->reply_ok)
		reply_fini(&p->reply);
	p->base = NULL;
	p->inbox = p->outbox = p->nat_in = p->nat_ask = NULL;
	p->nat_cache = NULL;
	p->ts_ring = NULL;
	p->reply_ok = false;
}

static void *
loop_pkt_main(void *arg)
{
	struct loop_pkt	*p = arg;

	if (event_base_dispatch(p->base) == -1) {
		log_warnx("%s: packet thread's event loop failed",
		    p->dir[0]->dp.name);
		loop_pkt_stop(p, LOOP_EXIT_FAILURE);
	}
	return NULL;
}

/* Stops and joins the packet threads that run. */
void
loop_threads_stop(struct loop *l)
{
	struct loop_msg	m = { .kind = LOOP_MSG_STOP };
	unsigned int	i, tries;

	for (i = 0; i < l->npkt; i++) {
		if (!l->pkt[i].started)
			continue;
		for (tries = 0; inbox_post(l->pkt[i].inbox, &m) == -1 &&
		    tries < 1000; tries++)
			(void)usleep(1000);	/* full: it is draining */
		(void)pthread_join(l->pkt[i].thread, NULL);
		l->pkt[i].started = false;
	}
}

/* caked-upload, caked-download; a thread per worker: caked-up-1, ... */
static void
loop_thread_name(struct loop_pkt *p)
{
	const struct loop_dir	*d = p->dir[0];
	char			 name[32];	/* at most 15 used */

	if (d->worker == 0)
		(void)snprintf(name, sizeof(name), "caked-%s", d->dp.name);
	else
		(void)snprintf(name, sizeof(name), "caked-%s-%u",
		    d->index == CONFIG_UPLOAD ? "up" : "down", d->worker);
	(void)pthread_setname_np(p->thread, name);
}

/*
 * Starts the packet threads with every signal blocked in them, so that
 * signals reach main's loop. -1 if one cannot start (none then runs).
 */
int
loop_threads_start(struct loop *l)
{
	sigset_t	all, old;
	unsigned int	i;
	int		rc = 0;

	(void)sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_BLOCK, &all, &old)) != 0)
		goto fail;
	for (i = 0; i < l->npkt && rc == 0; i++) {
		if (!l->pkt[i].threaded)
			continue;
		if ((rc = pthread_create(&l->pkt[i].thread, NULL,
		    loop_pkt_main, &l->pkt[i])) == 0) {
			l->pkt[i].started = true;
			loop_thread_name(&l->pkt[i]);
		}
	}
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		return 0;
fail:
	errno = rc;
	log_warn("cannot start the packet threads");
	loop_threads_stop(l);
	return -1;
}

/* A condition variable on CLOCK_MONOTONIC (loop_park_wait()). */
static int
loop_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t	a;
	int			rc;

	if ((rc = pthread_condattr_init(&a)) != 0)
		return rc;
	if ((rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC)) == 0)
		rc = pthread_cond_init(cv, &a);
	(void)pthread_condattr_destroy(&a);
	return rc;
}

/*
 * A thread per worker for direction i: a packet loop for each of workers
 * 1.., an eventfd per worker, and a hand-off queue from each worker's
 * reader to each other worker.
 */
static int
loop_workers_init(struct loop *l, int i)
{
	struct loop_dir	*d;
	unsigned int	 w, j, n = group_workers(l->setup.group[i]);

	if (n < 2 || l->setup.wpool[i][1] == NULL)
		return 0;
	if ((l->hosts_sum == NULL && (l->hosts_sum = malloc(
	    sizeof(*l->hosts_sum))) == NULL) || pthread_mutex_init(
	    &l->park[i].mu, NULL) != 0)
		return -1;
	if (loop_cond_init(&l->park[i].cv) != 0) {
		(void)pthread_mutex_destroy(&l->park[i].mu);
		return -1;
	}
	l->park[i].ok = true;
	l->nworkers[i] = n;
	for (w = 0; w < n; w++) {
		d = loop_wdir(l, i, w);
		if ((d->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
			return -1;
		for (j = 0; j < n; j++)
			if (j != w && (l->hand[i][w][j] =
			    handoff_create(LOOP_HAND_BYTES)) == NULL)
				return -1;
		if (w == 0)
			continue;
		d->pkt = &l->pkt[l->npkt++];
		if (loop_pkt_thread_init(l, d->pkt) == -1 ||
		    loop_pkt_init(l, d->pkt, d->pkt->base) == -1)
			return -1;
	}
	return 0;
}

/* One packet loop on main's base, a thread per direction or per worker. */
int
loop_pkts_init(struct loop *l)
{
	unsigned int	i;

	for (i = 0; i < CONFIG_DIRS; i++)
		l->nworkers[i] = 1;
	l->npkt = l->setup.cfg->threads > 1 ? CONFIG_DIRS : 1;
	if (l->npkt == 1)
		return loop_pkt_init(l, &l->pkt[0], l->base);
	for (i = 0; i < CONFIG_DIRS; i++)
		if (loop_pkt_thread_init(l, &l->pkt[i]) == -1 ||
		    loop_pkt_init(l, &l->pkt[i], l->pkt[i].base) == -1)
			return -1;
	for (i = 0; i < CONFIG_DIRS; i++)
		if (loop_workers_init(l, (int)i) == -1) {
			log_warn("%s: a thread per worker",
			    config_dir_name((int)i));
			return -1;
		}
	return 0;
}

/* A thread per worker: the hand-off queues and the park. */
void
loop_workers_free(struct loop *l, int i)
{
	unsigned int	w, j;

	for (w = 0; w < GROUP_WORKERS_MAX; w++)
		for (j = 0; j < GROUP_WORKERS_MAX; j++)
			handoff_destroy(l->hand[i][w][j]);
	if (!l->park[i].ok)
		return;
	(void)pthread_cond_destroy(&l->park[i].cv);
	(void)pthread_mutex_destroy(&l->park[i].mu);
}
