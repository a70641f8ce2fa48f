/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * notify.h: service manager notification (sd_notify protocol).
 */
#ifndef CAKED_DAEMON_NOTIFY_H
#define CAKED_DAEMON_NOTIFY_H

#include <stdint.h>

#define NOTIFY_STATUS_MAX	256	/* bytes of a STATUS= line */

/*
 * Sends state (e.g. "READY=1") to $NOTIFY_SOCKET. Returns 1 if sent, 0
 * if no service manager asked for it, -1 on error (errno set).
 */
int	notify_send(const char *state);
/* Sends RELOADING=1 with MONOTONIC_USEC (now_ns: CLOCK_MONOTONIC). */
int	notify_reloading(uint64_t now_ns);
/* Sends STATUS=line (at most NOTIFY_STATUS_MAX bytes, one line). */
int	notify_status(const char *line);
/*
 * The watchdog interval in microseconds the manager asked this process
 * for ($WATCHDOG_USEC, if $WATCHDOG_PID is unset or ours), else 0.
 */
uint64_t notify_watchdog_us(void);

#endif /* CAKED_DAEMON_NOTIFY_H */
