/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_timer.c: the link-time fake of src/daemon/timer.c. timer_now_ns()
 * reads fake_timer.now_ns, which only a test or fake_event.c moves (to
 * the next thing due), so a run is the same every time and takes no
 * real time. The timerfd is the made-up FAKE_TIMER_FD: armed, ticking or
 * disarmed as the real one would be, "readable" once its deadline has
 * come; timer_ack() counts the expiries a periodic timer went through.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "daemon/timer.h"
#include "fake/fake_timer.h"

#define FAKE_TIMER_NEVER	UINT64_MAX

struct fake_timer	fake_timer = {
	.now_ns = FAKE_TIMER_T0,
	.deadline_ns = FAKE_TIMER_NEVER,
};

void
fake_timer_reset(void)
{
	memset(&fake_timer, 0, sizeof(fake_timer));
	fake_timer.now_ns = FAKE_TIMER_T0;
	fake_timer.deadline_ns = FAKE_TIMER_NEVER;
}

bool
fake_timer_ready(int fd)
{
	return fd == FAKE_TIMER_FD &&
	    fake_timer.deadline_ns <= fake_timer.now_ns;
}

static int
fake_timer_set(int fd, uint64_t deadline_ns, uint64_t period_ns)
{
	if (fd != FAKE_TIMER_FD) {
		errno = EBADF;
		return -1;
	}
	fake_timer.deadline_ns = deadline_ns;
	fake_timer.period_ns = period_ns;
	if (fake_timer.watch != NULL)
		fake_timer.watch(fake_timer.arg, deadline_ns, period_ns,
		    fake_timer.now_ns);
	return 0;
}

uint64_t
timer_now_ns(void)
{
	return fake_timer.now_ns;
}

int
timer_open(void)
{
	return FAKE_TIMER_FD;
}

int
timer_arm_ns(int fd, uint64_t deadline_ns)
{
	fake_timer.arms++;
	/* As timer.c: an all-zero deadline would disarm. */
	return fake_timer_set(fd, deadline_ns == 0 ? 1 : deadline_ns, 0);
}

int
timer_tick_ns(int fd, uint64_t first_ns, uint64_t period_ns)
{
	fake_timer.ticks++;
	return fake_timer_set(fd, first_ns == 0 ? 1 : first_ns, period_ns);
}

int
timer_disarm(int fd)
{
	fake_timer.disarms++;
	return fake_timer_set(fd, FAKE_TIMER_NEVER, 0);
}

uint64_t
timer_ack(int fd)
{
	uint64_t	n;

	if (!fake_timer_ready(fd))
		return 0;
	if (fake_timer.period_ns == 0) {
		fake_timer.deadline_ns = FAKE_TIMER_NEVER;
		n = 1;
	} else {
		n = (fake_timer.now_ns - fake_timer.deadline_ns) /
		    fake_timer.period_ns + 1;
		fake_timer.deadline_ns += n * fake_timer.period_ns;
	}
	fake_timer.fired += n;
	return n;
}
