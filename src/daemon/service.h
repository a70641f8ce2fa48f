/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * service.h: the watchdog ping and status line the service manager sees.
 */
#ifndef CAKED_DAEMON_SERVICE_H
#define CAKED_DAEMON_SERVICE_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct service;

/* Writes the one-line status into buf[0..len); called once a second. */
typedef void	(*service_status_fn)(void *arg, char *buf, size_t len);

/*
 * Starts the watchdog ping (if $WATCHDOG_USEC asks for it) and the status
 * line (if $NOTIFY_SOCKET is set) as timers of base. NULL on failure
 * (logged). fn and arg stay the caller's.
 */
struct service	*service_create(struct event_base *base, service_status_fn fn,
		    void *arg);
/* Stops the timers and frees s (NULL is fine). */
void		 service_destroy(struct service *s);

#endif /* CAKED_DAEMON_SERVICE_H */
