/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * httpd.c: caked's Prometheus endpoint on libevent's own HTTP server
 * (evhttp), so no new library. It answers GET (and HEAD) /metrics with
 * the text exposition of a stats reply (src/common/metrics.c renders the
 * same JSON `cakectl stats` gets), 404 for any other path and 405 for any
 * other method. It never changes state.
 *
 * Bounds (reliability: every client list has a maximum and a counter):
 * request headers HTTPD_HEADERS_MAX bytes, no body, HTTPD_TIMEOUT_S to
 * read a request or write a reply, and at most HTTPD_CONNS_MAX connections
 * that have sent a request: at the limit the listener stops accepting
 * (the kernel's backlog holds the rest) and a request on yet another
 * connection gets 503. A connection that sends nothing is closed by the
 * timeout. A scrape is served in the loop in one go (render at most once
 * per HTTPD_FRESH_NS, then queue the bytes); evhttp writes them as the
 * socket drains, so a slow client never holds the packet path.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "common/metrics.h"
#include "daemon/httpd.h"
#include "daemon/log.h"
#include "daemon/timer.h"

#define HTTPD_PATH		"/metrics"
#define HTTPD_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define HTTPD_METHODS		(EVHTTP_REQ_GET | EVHTTP_REQ_POST | \
	EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | \
	EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | \
	EVHTTP_REQ_PATCH)

struct httpd {
	char				*text;		/* the last exposition */
	size_t				 text_len;
	uint64_t			 text_ns;	/* made then (monotonic) */
	struct evhttp			*http;
	struct evhttp_bound_socket	*bound;
	httpd_stats_fn			*fn;
	void				*arg;
	struct evhttp_connection	*conns[HTTPD_CONNS_MAX];
	unsigned int			 nconns;
	bool				 paused;	/* listener disabled */
	struct httpd_counters		 count;
	uint64_t			 renders;
	char				 json[CTL_REPLY_MAX];
};

static void
httpd_pause(struct httpd *h, bool pause)
{
	struct evconnlistener	*lev;

	if (pause == h->paused || h->bound == NULL)
		return;
	lev = evhttp_bound_socket_get_listener(h->bound);
	if ((pause ? evconnlistener_disable(lev) :
	    evconnlistener_enable(lev)) == 0)
		h->paused = pause;
}

static void
httpd_on_close(struct evhttp_connection *evcon, void *arg)
{
	struct httpd	*h = arg;
	unsigned int	 i;

	for (i = 0; i < h->nconns; i++) {
		if (h->conns[i] != evcon)
			continue;
		h->conns[i] = h->conns[--h->nconns];
		httpd_pause(h, false);
		return;
	}
}

/* Counts the request's connection; false if it is one too many. */
static bool
httpd_admit(struct httpd *h, struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	unsigned int			 i;

	if ((evcon = evhttp_request_get_connection(req)) == NULL)
		return false;
	for (i = 0; i < h->nconns; i++)
		if (h->conns[i] == evcon)
			return true;
	if (h->nconns == HTTPD_CONNS_MAX) {
		h->count.refused++;
		return false;
	}
	h->conns[h->nconns++] = evcon;
	evhttp_connection_set_closecb(evcon, httpd_on_close, h);
	if (h->nconns == HTTPD_CONNS_MAX)
		httpd_pause(h, true);
	return true;
}

static void
httpd_error(struct evhttp_request *req, int code, const char *reason)
{
	struct evbuffer	*b = evhttp_request_get_output_buffer(req);

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; charset=utf-8");
	if (code == 405)
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", "GET, HEAD");
	if (code == 503)
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Connection", "close");
	evbuffer_add_printf(b, "%s\n", reason);
	evhttp_send_reply(req, code, reason, NULL);
}

/* Renders a fresh stats reply into h->text: 0, or -1. */
static int
httpd_render(struct httpd *h)
{
	struct json_value	*v;
	char			 err[128], *text = NULL;
	size_t			 len = 0;
	FILE			*fp;
	int			 n, rc = -1;

	if ((n = h->fn(h->arg, h->json, sizeof(h->json))) <= 0 ||
	    (v = json_parse(h->json, (size_t)n, err, sizeof(err))) == NULL)
		return -1;
	if ((fp = open_memstream(&text, &len)) != NULL) {
		rc = metrics_render(fp, v);
		if (fclose(fp) != 0)
			rc = -1;
	}
	json_free(v);
	if (rc == -1) {
		free(text);
		return -1;
	}
	free(h->text);
	h->text = text;
	h->text_len = len;
	return 0;
}

/*
 * The exposition into b. Rendering costs far more than sending, so many
 * clients scraping at once share one rendering per HTTPD_FRESH_NS: the
 * loop's time goes to packets, not to printing the same numbers again.
 */
static int
httpd_metrics(struct httpd *h, struct evbuffer *b)
{
	uint64_t	now_ns = timer_now_ns();

	if (h->text == NULL || now_ns - h->text_ns >= HTTPD_FRESH_NS) {
		if (httpd_render(h) == -1)
			return -1;
		h->text_ns = now_ns;
		h->renders++;
	}
	return evbuffer_add(b, h->text, h->text_len);
}

static void
httpd_on_request(struct evhttp_request *req, void *arg)
{
	struct httpd		*h = arg;
	const struct evhttp_uri	*uri = evhttp_request_get_evhttp_uri(req);
	const char		*path = uri != NULL ?
	    evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type	 cmd = evhttp_request_get_command(req);

	h->count.requests++;
	if (!httpd_admit(h, req))
		httpd_error(req, 503, "Service Unavailable");
	else if (path == NULL || strcmp(path, HTTPD_PATH) != 0)
		httpd_error(req, 404, "Not Found");
	else if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD)
		httpd_error(req, 405, "Method Not Allowed");
	else if (httpd_metrics(h, evhttp_request_get_output_buffer(req)) == -1)
		httpd_error(req, 500, "Internal Server Error");
	else {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Type", HTTPD_CONTENT_TYPE);
		evhttp_send_reply(req, 200, "OK", NULL);
	}
}

struct httpd *
httpd_start(struct event_base *base, const char *addr, uint16_t port,
    httpd_stats_fn *fn, void *arg)
{
	struct httpd	*h;

	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->http = evhttp_new(base)) == NULL) {
		log_warn("%s", __func__);
		free(h);
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	evhttp_set_timeout(h->http, HTTPD_TIMEOUT_S);
	evhttp_set_max_headers_size(h->http, HTTPD_HEADERS_MAX);
	evhttp_set_max_body_size(h->http, HTTPD_BODY_MAX);
	/* All known methods reach us, so that the others get 405. */
	evhttp_set_allowed_methods(h->http, HTTPD_METHODS);
	evhttp_set_gencb(h->http, httpd_on_request, h);
	if ((h->bound = evhttp_bind_socket_with_handle(h->http, addr,
	    port)) == NULL) {
		log_warn("metrics-listen %s port %u", addr, port);
		httpd_stop(h);
		return NULL;
	}
	log_info("serving /metrics on %s port %u", addr, port);
	return h;
}

void
httpd_stop(struct httpd *h)
{
	if (h == NULL)
		return;
	h->bound = NULL;	/* evhttp_free() closes it before the clients */
	if (h->http != NULL)
		evhttp_free(h->http);
	free(h->text);
	free(h);
}

void
httpd_get_counters(const struct httpd *h, struct httpd_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (h == NULL)
		return;
	*c = h->count;
	c->renders = h->renders;
}
