/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_httpd.c: the link-time stand-in of src/daemon/httpd.c for tests
 * that run loop.c over fake_event.c (evhttp needs the real libevent).
 * Those tests never set metrics-listen; if one did, httpd_start() fails
 * and so does loop_create(), loudly.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "daemon/httpd.h"

struct httpd *
httpd_start(struct event_base *base, const char *addr, uint16_t port,
    httpd_stats_fn *fn, void *arg)
{
	(void)base;
	(void)addr;
	(void)port;
	(void)fn;
	(void)arg;
	return NULL;
}

void
httpd_stop(struct httpd *h)
{
	(void)h;
}

void
httpd_get_counters(const struct httpd *h, struct httpd_counters *c)
{
	(void)h;
	memset(c, 0, sizeof(*c));
}
