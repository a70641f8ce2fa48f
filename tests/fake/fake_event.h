/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_event.h: the link-time fake of the part of libevent the daemon
 * uses (fake_event.c), a discrete-event loop on fake_timer's clock.
 */
#ifndef CAKED_TESTS_FAKE_EVENT_H
#define CAKED_TESTS_FAKE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_EVENT_FD0	1000	/* fds from here on are made up */
#define FAKE_EVENT_MAX	64	/* events per base */
#define FAKE_EVENT_NEVER UINT64_MAX

/* Whether made-up fd (>= FAKE_EVENT_FD0) is ready for what (EV_*). */
typedef bool	fake_event_ready_fn(int fd, short what);
/*
 * Called when nothing is ready at now_ns, once the instant it asked for
 * has come (the first time: at once): the test acts (queues frames,
 * raises a signal, ...) and returns when it next wants to be called,
 * later than now_ns, or FAKE_EVENT_NEVER.
 */
typedef uint64_t fake_event_idle_fn(void *arg, uint64_t now_ns);

/*
 * When a made-up fd next becomes ready by itself (a fake reflector's
 * answer on its way, say), FAKE_EVENT_NEVER if none will: the clock
 * stops there.
 */
typedef uint64_t fake_event_next_fn(void);

/*
 * Sets the readiness of made-up fds (others are asked with poll(2)) and,
 * if next is not NULL, when they become ready on their own.
 */
void	fake_event_set_ready(fake_event_ready_fn *fn,
	    fake_event_next_fn *next);
/* Sets the test's script; NULL for none. */
void	fake_event_set_idle(fake_event_idle_fn *fn, void *arg);
/* Delivers sig to the signal events that wait for it (at the next pass). */
void	fake_event_raise(int sig);
/* Callbacks run by event_base_dispatch() since the last reset. */
uint64_t fake_event_callbacks(void);
/* Forgets the hooks, pending signals and counters. */
void	fake_event_reset(void);

#endif /* CAKED_TESTS_FAKE_EVENT_H */
