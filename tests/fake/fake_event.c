/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_event.c: the link-time fake of libevent's core (event_base_*,
 * event_new/add/del/free/pending/active; evtimer_* and evsignal_* are
 * macros over these), linked instead of -levent so that loop.c and the
 * modules that register events run as a discrete-event simulation:
 *
 *   1. every event that is ready runs once, in the order of creation: a
 *      made-up fd (>= FAKE_EVENT_FD0) as the test's readiness function
 *      says, a real fd (a control socket) as poll(2) with no wait says,
 *      a signal once fake_event_raise() delivered it, a timeout once
 *      fake_timer's clock has reached it;
 *   2. when none is, the test's idle script runs, if the time it asked
 *      for has come (at once the first time);
 *   3. if still none is, the clock jumps to the earliest of the fake
 *      timer's deadline, the events' timeouts, the instant a made-up
 *      fd becomes ready on its own and the script's next call; with
 *      none of these the dispatch returns 1 (nothing could ever happen
 *      again, where libevent would block for ever).
 *
 * So no run depends on the machine's speed or load. A dispatch that runs
 * FAKE_EVENT_CALLBACKS_MAX callbacks returns -1 (libevent's failure), so
 * that a busy loop fails its test instead of hanging it. Priorities,
 * bufferevents and the rest of libevent are left out: the daemon does
 * not use them.
 */
#include <sys/time.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "fake/fake_event.h"
#include "fake/fake_timer.h"

#define FAKE_EVENT_SIGNALS	65
/* Callbacks in one dispatch before it counts as a busy loop and fails. */
#define FAKE_EVENT_CALLBACKS_MAX	10000000

struct event {
	struct event_base	*base;
	evutil_socket_t		 fd;
	short			 what;
	event_callback_fn	 cb;
	void			*arg;
	bool			 added;
	uint64_t		 timeout_ns;	/* FAKE_EVENT_NEVER: none */
	uint64_t		 period_ns;	/* of a persistent timeout */
	short			 active;	/* event_active() result */
};

struct event_base {
	struct event	*ev[FAKE_EVENT_MAX];
	bool		 broken;
};

static fake_event_ready_fn	*fake_event_ready;
static fake_event_next_fn	*fake_event_ready_next;
static fake_event_idle_fn	*fake_event_idle;
static void			*fake_event_idle_arg;
static bool			 fake_event_raised[FAKE_EVENT_SIGNALS];
static uint64_t			 fake_event_ncallbacks;

void
fake_event_set_ready(fake_event_ready_fn *fn, fake_event_next_fn *next)
{
	fake_event_ready = fn;
	fake_event_ready_next = next;
}

void
fake_event_set_idle(fake_event_idle_fn *fn, void *arg)
{
	fake_event_idle = fn;
	fake_event_idle_arg = arg;
}

void
fake_event_raise(int sig)
{
	if (sig > 0 && sig < FAKE_EVENT_SIGNALS)
		fake_event_raised[sig] = true;
}

uint64_t
fake_event_callbacks(void)
{
	return fake_event_ncallbacks;
}

void
fake_event_reset(void)
{
	fake_event_ready = NULL;
	fake_event_ready_next = NULL;
	fake_event_idle = NULL;
	fake_event_idle_arg = NULL;
	memset(fake_event_raised, 0, sizeof(fake_event_raised));
	fake_event_ncallbacks = 0;
}

struct event_base *
event_base_new(void)
{
	return calloc(1, sizeof(struct event_base));
}

void
event_base_free(struct event_base *base)
{
	free(base);
}

int
event_base_loopbreak(struct event_base *base)
{
	base->broken = true;
	return 0;
}

struct event *
event_new(struct event_base *base, evutil_socket_t fd, short what,
    event_callback_fn cb, void *arg)
{
	struct event	*ev;
	int		 i;

	for (i = 0; i < FAKE_EVENT_MAX && base->ev[i] != NULL; i++)
		;
	if (i == FAKE_EVENT_MAX || (ev = calloc(1, sizeof(*ev))) == NULL)
		return NULL;
	ev->base = base;
	ev->fd = fd;
	ev->what = what;
	ev->cb = cb;
	ev->arg = arg;
	ev->timeout_ns = FAKE_EVENT_NEVER;
	base->ev[i] = ev;
	return ev;
}

void
event_free(struct event *ev)
{
	int	i;

	if (ev == NULL)
		return;
	for (i = 0; i < FAKE_EVENT_MAX; i++)
		if (ev->base->ev[i] == ev)
			ev->base->ev[i] = NULL;
	free(ev);
}

int
event_add(struct event *ev, const struct timeval *tv)
{
	ev->added = true;
	ev->timeout_ns = FAKE_EVENT_NEVER;
	ev->period_ns = 0;
	if (tv != NULL) {
		ev->period_ns = (uint64_t)tv->tv_sec * 1000000000ULL +
		    (uint64_t)tv->tv_usec * 1000ULL;
		ev->timeout_ns = fake_timer.now_ns + ev->period_ns;
	}
	return 0;
}

int
event_del(struct event *ev)
{
	ev->added = false;
	ev->timeout_ns = FAKE_EVENT_NEVER;
	return 0;
}

int
event_pending(const struct event *ev, short what, struct timeval *tv)
{
	short	have = 0;

	(void)tv;
	if (ev->added)
		have = ev->what & (EV_READ | EV_WRITE | EV_SIGNAL);
	if (ev->added && ev->timeout_ns != FAKE_EVENT_NEVER)
		have |= EV_TIMEOUT;
	return have & what;
}

void
event_active(struct event *ev, int res, short ncalls)
{
	(void)ncalls;
	ev->active = (short)(ev->active | res);
}

/* What ev is ready for now (EV_* bits), 0 if nothing. */
static short
fake_event_due(struct event *ev)
{
	struct pollfd	pfd;
	short		res = ev->active;

	if (!ev->added)
		return res;
	if (ev->timeout_ns <= fake_timer.now_ns)
		res |= EV_TIMEOUT;
	if (ev->what & EV_SIGNAL)
		return (short)(res | (fake_event_raised[ev->fd] ?
		    EV_SIGNAL : 0));
	if (ev->fd < 0 || !(ev->what & (EV_READ | EV_WRITE)))
		return res;
	if (ev->fd >= FAKE_EVENT_FD0) {
		if (fake_event_ready == NULL)
			return res;
		if ((ev->what & EV_READ) && fake_event_ready(ev->fd, EV_READ))
			res |= EV_READ;
		if ((ev->what & EV_WRITE) &&
		    fake_event_ready(ev->fd, EV_WRITE))
			res |= EV_WRITE;
		return res;
	}
	pfd.fd = ev->fd;
	pfd.events = (short)(((ev->what & EV_READ) ? POLLIN : 0) |
	    ((ev->what & EV_WRITE) ? POLLOUT : 0));
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == 1) {
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
			res |= ev->what & EV_READ;
		if (pfd.revents & (POLLOUT | POLLHUP | POLLERR))
			res |= ev->what & EV_WRITE;
	}
	return res;
}

/* Runs ev's callback for res, as libevent would. */
static void
fake_event_run(struct event *ev, short res)
{
	ev->active = 0;
	if (res & EV_SIGNAL)
		fake_event_raised[ev->fd] = false;
	if (!(ev->what & EV_PERSIST)) {
		ev->added = false;
		ev->timeout_ns = FAKE_EVENT_NEVER;
	} else if (ev->timeout_ns != FAKE_EVENT_NEVER)
		ev->timeout_ns = fake_timer.now_ns + ev->period_ns;
	fake_event_ncallbacks++;
	ev->cb(ev->fd, res, ev->arg);
}

/* One pass over the events; returns how many ran. */
static int
fake_event_pass(struct event_base *base)
{
	struct event	*ev;
	short		 res;
	int		 i, ran = 0;

	for (i = 0; i < FAKE_EVENT_MAX && !base->broken; i++) {
		if ((ev = base->ev[i]) == NULL ||
		    (res = fake_event_due(ev)) == 0)
			continue;
		fake_event_run(ev, res);
		ran++;
	}
	return ran;
}

/* The earliest instant at which something is due, after now. */
static uint64_t
fake_event_next(const struct event_base *base, uint64_t script_ns)
{
	uint64_t	next = script_ns;
	int		i;

	if (fake_timer.deadline_ns < next)
		next = fake_timer.deadline_ns;
	if (fake_event_ready_next != NULL && fake_event_ready_next() < next)
		next = fake_event_ready_next();
	for (i = 0; i < FAKE_EVENT_MAX; i++)
		if (base->ev[i] != NULL && base->ev[i]->added &&
		    base->ev[i]->timeout_ns < next)
			next = base->ev[i]->timeout_ns;
	return next;
}

int
event_base_dispatch(struct event_base *base)
{
	uint64_t	script_ns = 0, next;
	uint64_t	start = fake_event_ncallbacks;

	base->broken = false;
	while (!base->broken) {
		if (fake_event_ncallbacks - start > FAKE_EVENT_CALLBACKS_MAX) {
			fprintf(stderr, "fake_event: %d callbacks in one "
			    "dispatch: a busy loop\n",
			    FAKE_EVENT_CALLBACKS_MAX);
			return -1;
		}
		if (fake_event_pass(base) > 0)
			continue;
		if (fake_event_idle != NULL && fake_timer.now_ns >= script_ns)
			script_ns = fake_event_idle(fake_event_idle_arg,
			    fake_timer.now_ns);
		else if (fake_event_idle == NULL)
			script_ns = FAKE_EVENT_NEVER;
		if (fake_event_pass(base) > 0 || base->broken)
			continue;
		if ((next = fake_event_next(base, script_ns)) ==
		    FAKE_EVENT_NEVER)
			return 1;
		if (next <= fake_timer.now_ns)
			abort();	/* a script that neither acts nor
					 * waits */
		fake_timer.now_ns = next;
	}
	return 0;
}
