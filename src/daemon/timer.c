/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * timer.c: the clock and the one timerfd that wakes the loop when the
 * shaper lets the next packet leave. Deadlines are absolute
 * (TFD_TIMER_ABSTIME) on CLOCK_MONOTONIC, the clock the engine's now_ns
 * counts in, so no relative arithmetic can drift.
 *
 * This module knows nothing of the engine or the loop.
 */
#include <sys/timerfd.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/timer.h"

#define NS_PER_S	1000000000ULL

uint64_t
timer_now_ns(void)
{
	struct timespec	ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

int
timer_open(void)
{
	return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int
timer_arm_ns(int fd, uint64_t deadline_ns)
{
	struct itimerspec	its;

	memset(&its, 0, sizeof(its));
	/* An all-zero it_value would disarm: the earliest deadline is 1 ns. */
	if (deadline_ns == 0)
		deadline_ns = 1;
	its.it_value.tv_sec = (time_t)(deadline_ns / NS_PER_S);
	its.it_value.tv_nsec = (long)(deadline_ns % NS_PER_S);
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int
timer_tick_ns(int fd, uint64_t first_ns, uint64_t period_ns)
{
	struct itimerspec	its;

	memset(&its, 0, sizeof(its));
	if (first_ns == 0)
		first_ns = 1;
	its.it_value.tv_sec = (time_t)(first_ns / NS_PER_S);
	its.it_value.tv_nsec = (long)(first_ns % NS_PER_S);
	its.it_interval.tv_sec = (time_t)(period_ns / NS_PER_S);
	its.it_interval.tv_nsec = (long)(period_ns % NS_PER_S);
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int
timer_disarm(int fd)
{
	struct itimerspec	its;

	memset(&its, 0, sizeof(its));
	return timerfd_settime(fd, 0, &its, NULL);
}

uint64_t
timer_ack(int fd)
{
	uint64_t	n;

	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return 0;	/* EAGAIN: disarmed or re-armed meanwhile */
	return n;
}
