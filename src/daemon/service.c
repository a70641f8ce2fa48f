/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * service.c: what the service manager sees of the running daemon: a
 * watchdog ping (WATCHDOG=1) at half the interval systemd asked for, and a
 * STATUS= line refreshed at most once a second and sent only when it
 * changed.
 *
 * Both are timers of the packet loop's own event base, on purpose: if
 * that loop stalls (a stuck datapath, a busy loop), the pings stop and
 * systemd restarts caked. Nothing here touches packets; the status text
 * comes from the caller.
 */
#include <sys/time.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/log.h"
#include "daemon/notify.h"
#include "daemon/service.h"

#define SERVICE_STATUS_US	1000000	/* status refresh period */
#define SERVICE_PING_MIN_US	1000	/* fastest watchdog ping */

struct service {
	struct event		*ev_watchdog;
	struct event		*ev_status;
	service_status_fn	 status;
	void			*arg;
	uint64_t		 watchdog_us;
	bool			 warned;	/* a failed send was logged */
	char			 last[NOTIFY_STATUS_MAX];
};

/* Logs the first failure only: the manager may be gone for good. */
static void
service_sent(struct service *s, int rc, const char *what)
{
	if (rc != -1 || s->warned)
		return;
	log_warn("notify %s", what);
	s->warned = true;
}

static void
service_on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	struct service	*s = arg;

	(void)fd;
	(void)what;
	service_sent(s, notify_send("WATCHDOG=1"), "WATCHDOG");
}

static void
service_on_status(evutil_socket_t fd, short what, void *arg)
{
	struct service	*s = arg;
	char		 line[NOTIFY_STATUS_MAX];

	(void)fd;
	(void)what;
	line[0] = '\0';
	s->status(s->arg, line, sizeof(line));
	if (strcmp(line, s->last) == 0)
		return;
	memcpy(s->last, line, sizeof(s->last));
	service_sent(s, notify_status(line), "STATUS");
}

/* A persistent timer every period_us, fired once at start too. */
static struct event *
service_timer(struct event_base *base, uint64_t period_us,
    event_callback_fn cb, struct service *s)
{
	struct timeval	 tv;
	struct event	*ev;

	tv.tv_sec = (time_t)(period_us / 1000000);
	tv.tv_usec = (suseconds_t)(period_us % 1000000);
	if ((ev = event_new(base, -1, EV_PERSIST, cb, s)) == NULL ||
	    event_add(ev, &tv) == -1) {
		if (ev != NULL)
			event_free(ev);
		return NULL;
	}
	event_active(ev, EV_TIMEOUT, 0);
	return ev;
}

struct service *
service_create(struct event_base *base, service_status_fn fn, void *arg)
{
	struct service	*s;
	const char	*sock = getenv("NOTIFY_SOCKET");
	uint64_t	 half;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		log_warn("%s", __func__);
		return NULL;
	}
	s->status = fn;
	s->arg = arg;
	if (sock == NULL || *sock == '\0')
		return s;		/* no manager: nothing to tell */
	s->watchdog_us = notify_watchdog_us();
	if (s->watchdog_us > 0) {
		half = s->watchdog_us / 2;
		if (half < SERVICE_PING_MIN_US)
			half = SERVICE_PING_MIN_US;
		if ((s->ev_watchdog = service_timer(base, half,
		    service_on_watchdog, s)) == NULL)
			goto fail;
		log_info("watchdog: ping every %llu ms",
		    (unsigned long long)half / 1000);
	}
	if ((s->ev_status = service_timer(base, SERVICE_STATUS_US,
	    service_on_status, s)) == NULL)
		goto fail;
	return s;
fail:
	log_warnx("cannot start the service manager timers");
	service_destroy(s);
	return NULL;
}

void
service_destroy(struct service *s)
{
	if (s == NULL)
		return;
	if (s->ev_watchdog != NULL)
		event_free(s->ev_watchdog);
	if (s->ev_status != NULL)
		event_free(s->ev_status);
	free(s);
}
