/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * timer.h: one timerfd on CLOCK_MONOTONIC, armed at absolute deadlines.
 */
#ifndef CAKED_DAEMON_TIMER_H
#define CAKED_DAEMON_TIMER_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC (the engine's clock). */
uint64_t	timer_now_ns(void);
/* Opens a disarmed timerfd (non-blocking, close-on-exec); fd or -1. */
int		timer_open(void);
/* Arms fd to fire once at the absolute time deadline_ns. 0 or -1. */
int		timer_arm_ns(int fd, uint64_t deadline_ns);
/* Arms fd to fire at first_ns, then every period_ns until re-armed. */
int		timer_tick_ns(int fd, uint64_t first_ns, uint64_t period_ns);
/* Disarms fd. 0 or -1. */
int		timer_disarm(int fd);
/* Reads the expiry count after fd became readable; 0 if none. */
uint64_t	timer_ack(int fd);

#endif /* CAKED_DAEMON_TIMER_H */
