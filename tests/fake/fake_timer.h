/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_timer.h: the link-time fake of src/daemon/timer.c: a clock that
 * moves only when a test (or fake_event.c) moves it, and one timer whose
 * every arming a test can watch.
 */
#ifndef CAKED_TESTS_FAKE_TIMER_H
#define CAKED_TESTS_FAKE_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_TIMER_FD	1100	/* what timer_open() returns */
#define FAKE_TIMER_T0	1000000000ULL	/* the clock after a reset */

/*
 * Called at every change of the timer: deadline_ns (UINT64_MAX when
 * disarmed) and period_ns (0 unless ticking), at the clock's now_ns.
 */
typedef void	fake_timer_watch_fn(void *arg, uint64_t deadline_ns,
		    uint64_t period_ns, uint64_t now_ns);

struct fake_timer {
	uint64_t		 now_ns;	/* the clock */
	uint64_t		 deadline_ns;	/* UINT64_MAX: disarmed */
	uint64_t		 period_ns;
	uint64_t		 arms;		/* timer_arm_ns() calls */
	uint64_t		 ticks;		/* timer_tick_ns() calls */
	uint64_t		 disarms;
	uint64_t		 fired;		/* expiries acknowledged */
	fake_timer_watch_fn	*watch;
	void			*arg;
};

extern struct fake_timer	fake_timer;

/* Clock at FAKE_TIMER_T0, timer disarmed, counters and watch cleared. */
void		fake_timer_reset(void);
/* Whether fd is the timer and its deadline has come. */
bool		fake_timer_ready(int fd);

#endif /* CAKED_TESTS_FAKE_TIMER_H */
