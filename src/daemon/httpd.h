/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * httpd.h: the Prometheus endpoint (GET /metrics over HTTP/1.1, on
 * libevent's evhttp), enabled by metrics-listen in caked.conf(5).
 */
#ifndef CAKED_DAEMON_HTTPD_H
#define CAKED_DAEMON_HTTPD_H

#include <stddef.h>
#include <stdint.h>

#define HTTPD_CONNS_MAX		64	/* connections that sent a request */
#define HTTPD_TIMEOUT_S		5	/* to read a request, write a reply */
#define HTTPD_HEADERS_MAX	8192	/* bytes of request headers */
#define HTTPD_BODY_MAX		0	/* a scrape has no body */
/* Scrapes within this of a rendering get that rendering again. */
#define HTTPD_FRESH_NS		(100ULL * 1000 * 1000)

struct event_base;
struct httpd;

/*
 * Writes a stats reply (the control protocol's JSON) into out[0..cap):
 * its length, or -1.
 */
typedef int	httpd_stats_fn(void *arg, char *out, size_t cap);

/* What the endpoint counted, for the "daemon" object of stats. */
struct httpd_counters {
	uint64_t	requests;	/* answered, any status */
	uint64_t	refused;	/* 503: HTTPD_CONNS_MAX reached */
	uint64_t	renders;	/* expositions made (HTTPD_FRESH_NS) */
};

/*
 * Listens on addr (numeric IPv4 or IPv6) and port. NULL on failure
 * (logged).
 */
struct httpd	*httpd_start(struct event_base *base, const char *addr,
		    uint16_t port, httpd_stats_fn *fn, void *arg);
void		 httpd_stop(struct httpd *h);
void		 httpd_get_counters(const struct httpd *h,
		    struct httpd_counters *c);

#endif /* CAKED_DAEMON_HTTPD_H */
