/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * render.c: turns the daemon's JSON stats reply into text. The text view
 * copies `tc -s qdisc show dev X` for a cake qdisc (tc/q_cake.c: a
 * 10-character row label, then one 12-character right-aligned column per
 * tin, numbers printed with tc's units), so that CAKE users need to learn
 * nothing. (The Prometheus view is src/common/metrics.c, shared with the
 * daemon's /metrics endpoint.)
 *
 * The hosts and flows views are tables with a header line, each column
 * as wide as its widest cell.
 *
 * It only formats: it never talks to the daemon and never links the
 * engine (units come from src/common/keywords.c).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "ctl/render.h"

enum render_kind {
	RENDER_NUM,		/* plain integer */
	RENDER_RATE,		/* bytes/s, printed as "20Mbit" */
	RENDER_TIME,		/* us, printed as "5ms" */
	RENDER_SIZE,		/* bytes, printed as "1514b" / "4Mb" */
	RENDER_STR,		/* string, as it is */
	RENDER_ENDPOINT,	/* address and port: "10.0.0.1:80", "[::1]:80" */
	RENDER_MS,		/* us, printed as "20.3ms"; "-" if below 0 */
};

/* The per-tin rows of tc, in tc's order (doc/cake.md §8). */
static const struct {
	const char		*label;
	const char		*key;
	enum render_kind	 kind;
} render_rows[] = {
	{ "  thresh", "threshold_rate", RENDER_RATE },
	{ "  target", "target_us", RENDER_TIME },
	{ "  interval", "interval_us", RENDER_TIME },
	{ "  pk_delay", "peak_delay_us", RENDER_TIME },
	{ "  av_delay", "avg_delay_us", RENDER_TIME },
	{ "  sp_delay", "base_delay_us", RENDER_TIME },
	{ "  backlog", "backlog_bytes", RENDER_SIZE },
	{ "  pkts", "sent_packets", RENDER_NUM },
	{ "  bytes", "sent_bytes", RENDER_NUM },
	{ "  way_inds", "way_indirect_hits", RENDER_NUM },
	{ "  way_miss", "way_misses", RENDER_NUM },
	{ "  way_cols", "way_collisions", RENDER_NUM },
	{ "  drops", "drops", RENDER_NUM },
	{ "  marks", "ecn_mark", RENDER_NUM },
	{ "  ack_drop", "ack_drops", RENDER_NUM },
	{ "  sp_flows", "sparse_flows", RENDER_NUM },
	{ "  bk_flows", "bulk_flows", RENDER_NUM },
	{ "  un_flows", "unresponsive_flows", RENDER_NUM },
	{ "  max_len", "max_pkt_len", RENDER_NUM },
	{ "  quantum", "flow_quantum", RENDER_NUM },
};

#define RENDER_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define RENDER_CELL		32

/* Formats one value; "?" if it is missing. Returns 0 or -1. */
static int
render_value(const struct json_value *obj, const char *key,
    enum render_kind kind, char *buf, size_t len)
{
	uint64_t	v;
	int		rc = 0;

	if (json_get_u64(obj, key, &v) == -1) {
		(void)snprintf(buf, len, "?");
		return -1;
	}
	switch (kind) {
	case RENDER_RATE:
		rc = keywords_format_rate(v, buf, len);
		break;
	case RENDER_TIME:
		rc = keywords_format_time(v, buf, len);
		break;
	case RENDER_SIZE:
		rc = keywords_format_size(v, buf, len);
		break;
	case RENDER_NUM:
		rc = snprintf(buf, len, "%" PRIu64, v) < (int)len ? 0 : -1;
		break;
	default:
		rc = -1;
		break;
	}
	return rc;
}

static uint64_t
render_u64(const struct json_value *obj, const char *key, int *bad)
{
	uint64_t	v;

	if (json_get_u64(obj, key, &v) == -1) {
		*bad = 1;
		return 0;
	}
	return v;
}

/*
 * tc's "requeues": packets the device refused and the qdisc took back
 * (dev_requeue_skb()). caked's equivalent is a write the egress device
 * refused with EAGAIN, the frame kept for the next try (io.tx_blocked).
 * Written as " requeues N" when the reply has it, else left out.
 */
static void
render_requeues(const struct json_value *d, char *buf, size_t len)
{
	uint64_t	v;

	buf[0] = '\0';
	if (json_get_u64(json_get(d, "io"), "tx_blocked", &v) == 0)
		(void)snprintf(buf, len, " requeues %" PRIu64, v);
}

static int
render_globals(FILE *fp, const char *dir, const struct json_value *d)
{
	char		used[RENDER_CELL], limit[RENDER_CELL], cap[RENDER_CELL];
	char		backlog[RENDER_CELL], requeues[RENDER_CELL];
	const char	*opts = json_get_str(d, CTL_KEY_OPTIONS);
	int		bad = 0;

	bad |= render_value(d, "memory_used", RENDER_SIZE, used, sizeof(used));
	bad |= render_value(d, "memory_limit", RENDER_SIZE, limit,
	    sizeof(limit));
	bad |= render_value(d, "capacity_estimate", RENDER_RATE, cap,
	    sizeof(cap));
	bad |= render_value(d, "backlog_bytes", RENDER_SIZE, backlog,
	    sizeof(backlog));
	render_requeues(d, requeues, sizeof(requeues));
	fprintf(fp, "qdisc cake %s: %s\n", dir, opts != NULL ? opts : "?");
	fprintf(fp, " Sent %" PRIu64 " bytes %" PRIu64 " pkt (dropped %" PRIu64
	    ", overlimits %" PRIu64 "%s)\n",
	    render_u64(d, "sent_bytes", &bad), render_u64(d, "sent_packets",
	    &bad), render_u64(d, "drops", &bad), render_u64(d, "overlimits",
	    &bad), requeues);
	fprintf(fp, " backlog %s %" PRIu64 "p%s\n", backlog,
	    render_u64(d, "backlog_packets", &bad), requeues);
	fprintf(fp, " memory used: %s of %s\n", used, limit);
	fprintf(fp, " capacity estimate: %s\n", cap);
	fprintf(fp, " min/max network layer size: %12" PRIu64 " /%8" PRIu64
	    "\n", render_u64(d, "min_network_size", &bad),
	    render_u64(d, "max_network_size", &bad));
	fprintf(fp, " min/max overhead-adjusted size: %8" PRIu64 " /%8" PRIu64
	    "\n", render_u64(d, "min_adj_size", &bad),
	    render_u64(d, "max_adj_size", &bad));
	fprintf(fp, " average network hdr offset: %12" PRIu64 "\n\n",
	    render_u64(d, "avg_hdr_offset", &bad));
	return bad ? -1 : 0;
}

static int
render_tins(FILE *fp, const struct json_value *d)
{
	const struct json_value	*tins = json_get(d, CTL_KEY_TINS), *t;
	const char		*name;
	char			 cell[RENDER_CELL];
	size_t			 r, i;
	int			 bad = 0;

	if (tins == NULL || tins->type != JSON_ARRAY)
		return -1;
	/* tc names the tins of diffserv3 and diffserv4 only. */
	fprintf(fp, "%-10s", "");
	for (t = tins->child, i = 0; t != NULL; t = t->next, i++) {
		name = json_get_str(t, CTL_KEY_NAME);
		if (json_count(tins) == 3 || json_count(tins) == 4)
			fprintf(fp, " %12s", name != NULL ? name : "?");
		else
			fprintf(fp, "        Tin %zu", i);
	}
	fprintf(fp, "\n");
	for (r = 0; r < RENDER_NITEMS(render_rows); r++) {
		fprintf(fp, "%-10s", render_rows[r].label);
		for (t = tins->child; t != NULL; t = t->next) {
			bad |= render_value(t, render_rows[r].key,
			    render_rows[r].kind, cell, sizeof(cell));
			fprintf(fp, " %12s", cell);
		}
		fprintf(fp, "\n");
	}
	return bad ? -1 : 0;
}

/* The "nat" object (conntrack and its cache), when caked uses it. */
/* A signed microsecond value as a time, or "-" (none: -1, or missing). */
static void
render_us(const struct json_value *obj, const char *key, char *buf,
    size_t len)
{
	const struct json_value	*v = json_get(obj, key);
	long long		 us;

	if (v == NULL || v->str == NULL || (us = strtoll(v->str, NULL, 10)) <
	    0 || keywords_format_time((uint64_t)us, buf, len) == -1)
		(void)snprintf(buf, len, "-");
}

/*
 * The delay signals of a direction: the one in use, each one's delay,
 * idle probing. Older daemons send none of it: then nothing is printed.
 */
static void
render_signals(FILE *fp, const struct json_value *a, int *bad)
{
	const char	*sig = json_get_str(a, "signal");
	char		 c[4][RENDER_CELL];

	if (sig == NULL)
		return;
	render_us(a, "owd_delay_us", c[0], sizeof(c[0]));
	render_us(a, "passive_delay_us", c[1], sizeof(c[1]));
	render_us(a, "echo_delay_us", c[2], sizeof(c[2]));
	render_us(a, "probe_interval_us", c[3], sizeof(c[3]));
	fprintf(fp, "  signal %s: owd %s passive %s echo %s; probes every %s"
	    "%s; reflectors replaced %" PRIu64 "\n", sig, c[0], c[1], c[2],
	    c[3], json_get_bool(a, "idle", false) ? " (idle)" : "",
	    render_u64(a, "reflector_replacements", bad));
}

/* One reflector of the pool. */
static void
render_reflector(FILE *fp, const struct json_value *r, int *bad)
{
	const char	*addr = json_get_str(r, "address");
	const char	*kind = json_get_str(r, "kind");
	char		 c[5][RENDER_CELL];

	render_us(r, "baseline_us", c[0], sizeof(c[0]));
	render_us(r, "delta_us", c[1], sizeof(c[1]));
	render_us(r, "rtt_us", c[2], sizeof(c[2]));
	fprintf(fp, "  reflector %s: baseline %s delay %s rtt %s replies %"
	    PRIu64 "%s", addr != NULL ? addr : "?", c[0], c[1], c[2],
	    render_u64(r, "replies", bad), json_get_bool(r, "fresh", false) ?
	    "" : " (stale)");
	if (kind != NULL) {
		render_us(r, "owd_up_delta_us", c[3], sizeof(c[3]));
		render_us(r, "owd_down_delta_us", c[4], sizeof(c[4]));
		fprintf(fp, " lost %" PRIu64 " %s%s", render_u64(r, "lost",
		    bad), kind, json_get_bool(r, "active", false) ? "" :
		    " (spare)");
		if (strcmp(kind, "timestamp") == 0)
			fprintf(fp, " owd up %s down %s", c[3], c[4]);
	}
	fputc('\n', fp);
}

/* A direction's "autorate" object (caked.conf(5) autorate). */
static int
render_autorate(FILE *fp, const struct json_value *a)
{
	const struct json_value	*refl, *r;
	const char		*act = json_get_str(a, "last_action");
	char			 c[6][RENDER_CELL];
	int			 bad = 0;

	bad |= render_value(a, "rate", RENDER_RATE, c[0], sizeof(c[0]));
	bad |= render_value(a, "min", RENDER_RATE, c[1], sizeof(c[1]));
	bad |= render_value(a, "base", RENDER_RATE, c[2], sizeof(c[2]));
	bad |= render_value(a, "max", RENDER_RATE, c[3], sizeof(c[3]));
	bad |= render_value(a, "achieved", RENDER_RATE, c[4], sizeof(c[4]));
	fprintf(fp, " autorate: rate %s (min %s base %s max %s) achieved %s "
	    "load %" PRIu64 "%%\n", c[0], c[1], c[2], c[3], c[4],
	    render_u64(a, "load_pct", &bad));
	render_us(a, "delay_us", c[0], sizeof(c[0]));
	render_us(a, "threshold_us", c[1], sizeof(c[1]));
	render_us(a, "queue_delay_us", c[2], sizeof(c[2]));
	fprintf(fp, "  delay %s (threshold %s) queue %s last %s; rises %"
	    PRIu64 " cuts %" PRIu64 " drifts %" PRIu64 " stalls %" PRIu64
	    "\n", c[0], c[1], c[2], act != NULL ? act : "?",
	    render_u64(a, "rises", &bad), render_u64(a, "cuts", &bad),
	    render_u64(a, "drifts", &bad), render_u64(a, "stalls", &bad));
	render_signals(fp, a, &bad);
	if ((refl = json_get(a, "reflectors")) == NULL)
		return bad ? -1 : 0;
	for (r = refl->child; r != NULL; r = r->next)
		render_reflector(fp, r, &bad);
	return bad ? -1 : 0;
}

/* A direction's "passive" object: the delay from TCP timestamps. */
static int
render_passive(FILE *fp, const struct json_value *p)
{
	char	c[3][RENDER_CELL];
	int	bad = 0;

	render_us(p, "delay_us", c[0], sizeof(c[0]));
	render_us(p, "baseline_us", c[1], sizeof(c[1]));
	render_us(p, "recent_us", c[2], sizeof(c[2]));
	fprintf(fp, " passive: delay %s (rtt baseline %s recent %s) samples %"
	    PRIu64 " flows %" PRIu64 "%s%s\n", c[0], c[1], c[2],
	    render_u64(p, "samples", &bad), render_u64(p, "flows", &bad),
	    json_get_bool(p, "fresh", false) ? "" : " (stale)",
	    json_get_bool(p, "split", false) ? "" : " (round trip, not split)");
	return bad ? -1 : 0;
}

static int
render_nat(FILE *fp, const struct json_value *n)
{
	const char	*state = json_get_str(n, "conntrack");
	uint64_t	 hits, misses;
	int		 bad = 0;

	hits = render_u64(n, "hits", &bad);
	misses = render_u64(n, "misses", &bad);
	fprintf(fp, "\nnat: conntrack %s, cache %" PRIu64 "/%" PRIu64
	    " entries\n", state != NULL ? state : "?",
	    render_u64(n, "cache_entries", &bad),
	    render_u64(n, "cache_size", &bad));
	fprintf(fp, " hits %" PRIu64 " misses %" PRIu64 " (hit ratio %.1f%%)"
	    " evictions %" PRIu64 " expiries %" PRIu64 "\n", hits, misses,
	    hits + misses > 0 ? 100.0 * (double)hits /
	    (double)(hits + misses) : 0.0,
	    render_u64(n, "evictions", &bad), render_u64(n, "expiries", &bad));
	fprintf(fp, " events %" PRIu64 " queries %" PRIu64 " answers %" PRIu64
	    " not found %" PRIu64 " failures %" PRIu64 " skipped %" PRIu64
	    "\n", render_u64(n, "events", &bad), render_u64(n, "queries",
	    &bad), render_u64(n, "answers", &bad), render_u64(n, "not_found",
	    &bad), render_u64(n, "query_failures", &bad),
	    render_u64(n, "query_skipped", &bad));
	/* threads = 2 only: the packet threads' inboxes. */
	if (json_get(n, "inbox_lost_news") != NULL)
		fprintf(fp, " inboxes full: %" PRIu64 " news and %" PRIu64
		    " questions lost\n", render_u64(n, "inbox_lost_news",
		    &bad), render_u64(n, "inbox_lost_asks", &bad));
	return bad ? -1 : 0;
}

int
render_stats(FILE *fp, const struct json_value *reply)
{
	const struct json_value	*dirs, *d;
	int			 bad = 0;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT)
		return -1;
	for (d = dirs->child; d != NULL; d = d->next) {
		if (d != dirs->child)
			fprintf(fp, "\n");
		bad |= render_globals(fp, d->key, d);
		bad |= render_tins(fp, d);
		if (json_get(d, "autorate") != NULL)
			bad |= render_autorate(fp, json_get(d, "autorate"));
		if (json_get(d, "passive") != NULL)
			bad |= render_passive(fp, json_get(d, "passive"));
	}
	if (json_get(reply, "nat") != NULL)
		bad |= render_nat(fp, json_get(reply, "nat"));
	return bad ? -1 : 0;
}

/* ---- hosts and flows tables ---------------------------------------------- */

#define RENDER_COLS_MAX	12

struct render_col {
	const char		*head;
	const char		*key;
	const char		*port;		/* RENDER_ENDPOINT: port key */
	enum render_kind	 kind;
	bool			 left;		/* else right-aligned */
	const char		*sep;		/* before the column */
};

static const struct render_col render_host_cols[] = {
	{ "HOST", CTL_KEY_ADDRESS, NULL, RENDER_STR, true, "" },
	{ "BYTES", "bytes", NULL, RENDER_NUM, false, "  " },
	{ "PACKETS", "packets", NULL, RENDER_NUM, false, "  " },
	{ "BACKLOG", "backlog_bytes", NULL, RENDER_SIZE, false, "  " },
	{ "DROPS", "drops", NULL, RENDER_NUM, false, "  " },
	{ "MARKS", "marks", NULL, RENDER_NUM, false, "  " },
	{ "FLOWS", CTL_KEY_FLOWS, NULL, RENDER_NUM, false, "  " },
	{ "LAN-RTT", "rtt_lan_us", NULL, RENDER_MS, false, "  " },
	{ "WAN-RTT", "rtt_wan_us", NULL, RENDER_MS, false, "  " },
};

static const struct render_col render_flow_cols[] = {
	{ "PROTO", "proto", NULL, RENDER_STR, true, "" },
	{ "SOURCE", "src", "sport", RENDER_ENDPOINT, true, "  " },
	{ "DESTINATION", "dst", "dport", RENDER_ENDPOINT, true, " -> " },
	{ "TIN", "tin", NULL, RENDER_STR, true, "  " },
	{ "STATE", "state", NULL, RENDER_STR, true, "  " },
	{ "BYTES", "bytes", NULL, RENDER_NUM, false, "  " },
	{ "PACKETS", "packets", NULL, RENDER_NUM, false, "  " },
	{ "BACKLOG", "backlog_bytes", NULL, RENDER_SIZE, false, "  " },
	{ "DROPS", "drops", NULL, RENDER_NUM, false, "  " },
	{ "MARKS", "marks", NULL, RENDER_NUM, false, "  " },
};

/* A table: its columns, the JSON array that holds its rows, its noun. */
struct render_table {
	const struct render_col	*cols;
	size_t			 ncols;
	const char		*array;
	const char		*noun;		/* plural */
	const char		*noun1;		/* singular */
};

/*
 * A passive RTT (us) in ms: "-" where not measured (below 0, or absent:
 * a daemon without passive RTTs), never an error.
 */
static int
render_ms(const struct json_value *row, const char *key, char *buf,
    size_t len)
{
	const struct json_value	*v = json_get(row, key);
	long long		 us;

	if (v == NULL || v->str == NULL ||
	    (us = strtoll(v->str, NULL, 10)) < 0)
		(void)snprintf(buf, len, "-");
	else
		(void)snprintf(buf, len, "%.1fms", (double)us / 1000.0);
	return 0;
}

/* One cell of row; "?" and -1 if a field is missing. */
static int
render_cell(const struct json_value *row, const struct render_col *c,
    char *buf, size_t len)
{
	const char	*s = json_get_str(row, c->key);
	uint64_t	 port;

	if (c->kind == RENDER_MS)
		return render_ms(row, c->key, buf, len);
	if (c->kind != RENDER_STR && c->kind != RENDER_ENDPOINT)
		return render_value(row, c->key, c->kind, buf, len);
	if (s == NULL || (c->kind == RENDER_ENDPOINT &&
	    json_get_u64(row, c->port, &port) == -1)) {
		(void)snprintf(buf, len, "?");
		return -1;
	}
	if (c->kind == RENDER_STR || port == 0)
		(void)snprintf(buf, len, "%s", s);
	else if (strchr(s, ':') != NULL)
		(void)snprintf(buf, len, "[%s]:%" PRIu64, s, port);
	else
		(void)snprintf(buf, len, "%s:%" PRIu64, s, port);
	return 0;
}

static void
render_cell_print(FILE *fp, const struct render_col *c, int width,
    const char *cell, bool last)
{
	fputs(c->sep, fp);
	if (!c->left)
		fprintf(fp, "%*s", width, cell);
	else if (last)
		fputs(cell, fp);
	else
		fprintf(fp, "%-*s", width, cell);
}

static int
render_table(FILE *fp, const struct render_table *t,
    const struct json_value *rows)
{
	const struct json_value	*r;
	char			 cell[RENDER_CELL + 48];
	int			 width[RENDER_COLS_MAX], n, bad = 0;
	size_t			 i;

	for (i = 0; i < t->ncols; i++)
		width[i] = (int)strlen(t->cols[i].head);
	for (r = rows->child; r != NULL; r = r->next) {
		for (i = 0; i < t->ncols; i++) {
			bad |= render_cell(r, &t->cols[i], cell, sizeof(cell));
			if ((n = (int)strlen(cell)) > width[i])
				width[i] = n;
		}
	}
	for (i = 0; i < t->ncols; i++) {
		if (strcmp(t->cols[i].sep, " -> ") == 0)
			fputs("    ", fp);	/* no arrow in the header */
		else
			fputs(t->cols[i].sep, fp);
		fprintf(fp, t->cols[i].left && i + 1 < t->ncols ? "%-*s" :
		    "%*s", width[i], t->cols[i].head);
	}
	fputc('\n', fp);
	for (r = rows->child; r != NULL; r = r->next) {
		for (i = 0; i < t->ncols; i++) {
			(void)render_cell(r, &t->cols[i], cell, sizeof(cell));
			render_cell_print(fp, &t->cols[i], width[i], cell,
			    i + 1 == t->ncols);
		}
		fputc('\n', fp);
	}
	return bad ? -1 : 0;
}

static int
render_top(FILE *fp, const struct json_value *reply,
    const struct render_table *t)
{
	const struct json_value	*dirs, *d, *rows;
	uint64_t		 total;
	size_t			 shown;
	int			 bad = 0;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT)
		return -1;
	for (d = dirs->child; d != NULL; d = d->next) {
		rows = json_get(d, t->array);
		if (rows == NULL || rows->type != JSON_ARRAY ||
		    json_get_u64(d, CTL_KEY_TOTAL, &total) == -1)
			return -1;
		if (d != dirs->child)
			fputc('\n', fp);
		fprintf(fp, "%s: ", d->key);
		shown = json_count(rows);
		if (total == 0) {
			fprintf(fp, "no %s\n", t->noun);
			continue;
		}
		if (shown < total)
			fprintf(fp, "top %zu of ", shown);
		fprintf(fp, "%" PRIu64 " %s", total, total == 1 ? t->noun1 :
		    t->noun);
		if (t->cols == render_host_cols)
			fprintf(fp, " by %s address", strcmp(d->key,
			    CTL_DIR_DOWNLOAD) == 0 ? "destination" : "source");
		fprintf(fp, ", busiest first\n");
		bad |= render_table(fp, t, rows);
	}
	return bad ? -1 : 0;
}

int
render_hosts(FILE *fp, const struct json_value *reply)
{
	static const struct render_table t = {
		render_host_cols, RENDER_NITEMS(render_host_cols),
		CTL_KEY_HOSTS, "hosts", "host",
	};

	return render_top(fp, reply, &t);
}

int
render_flows(FILE *fp, const struct json_value *reply)
{
	static const struct render_table t = {
		render_flow_cols, RENDER_NITEMS(render_flow_cols),
		CTL_KEY_FLOWS, "flows", "flow",
	};

	return render_top(fp, reply, &t);
}
