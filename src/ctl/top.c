/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * top.c: `cakectl top [upload | download]`. Every second it takes a
 * sample (the stats, hosts and flows replies) and shows the difference to
 * the previous one: per direction the rate in force, the achieved rate
 * and utilisation, drops, ECN marks and ACK drops per second; per tin the
 * throughput, av/pk/sp delay and bulk and sparse flows; the autorate
 * line; and the busiest hosts and flows by their rate now, not by their
 * bytes since they started.
 *
 * Plain ANSI (home, clear), no curses. On a terminal the frame is
 * redrawn in place and 'q' quits (stdin in non-canonical mode, restored
 * on exit); otherwise each frame is printed after the last, one per
 * second. Hosts and flows come from the daemon's busiest TOP_ROWS by
 * bytes, so among more than TOP_ROWS a young fast flow may be missed.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "ctl/top.h"

#define TOP_INTERVAL_NS	1000000000LL
#define TOP_LABEL_MAX	128
#define TOP_BPS_MIN	1000	/* rows slower than this are not shown */

enum { TOP_STATS, TOP_HOSTS, TOP_FLOWS, TOP_REPLIES };

/* One host or flow and its rate over the interval. */
struct top_row {
	char	label[TOP_LABEL_MAX];
	double	bps;
};

static uint64_t
top_u64(const struct json_value *obj, const char *key)
{
	uint64_t	v = 0;

	(void)json_get_u64(obj, key, &v);
	return v;
}

/* Per second, from two counters of objects a and b (b may be NULL). */
static double
top_rate(const struct json_value *a, const struct json_value *b,
    const char *key, double dt)
{
	uint64_t	va = top_u64(a, key), vb = top_u64(b, key);

	if (b == NULL || dt <= 0 || va < vb)
		return 0;
	return (double)(va - vb) / dt;
}

/* Sum of key over the tins of direction d, as a rate against prev. */
static double
top_tins_rate(const struct json_value *d, const struct json_value *p,
    const char *key, double dt)
{
	const struct json_value	*t, *u;
	double			 sum = 0;

	if (p == NULL)
		return 0;
	t = json_get(d, CTL_KEY_TINS) != NULL ?
	    json_get(d, CTL_KEY_TINS)->child : NULL;
	u = json_get(p, CTL_KEY_TINS) != NULL ?
	    json_get(p, CTL_KEY_TINS)->child : NULL;
	for (; t != NULL && u != NULL; t = t->next, u = u->next)
		sum += top_rate(t, u, key, dt);
	return sum;
}

static void
top_time(const struct json_value *obj, const char *key, char *buf,
    size_t len)
{
	if (keywords_format_time(top_u64(obj, key), buf, len) == -1)
		(void)snprintf(buf, len, "?");
}

static void
top_head(FILE *fp, const struct json_value *d, const struct json_value *p,
    double dt)
{
	const struct json_value	*ar = json_get(d, "autorate");
	uint64_t		 rate = ar != NULL ? top_u64(ar, "rate") :
	    top_u64(d, "bandwidth");
	double			 bps = 8 * top_rate(d, p, "sent_bytes", dt);
	char			 r[32];

	if (rate == 0 || keywords_format_rate(rate, r, sizeof(r)) == -1)
		(void)snprintf(r, sizeof(r), "unlimited");
	fprintf(fp, "%s: rate %s  achieved %.2f Mbit/s", d->key, r, bps / 1e6);
	if (rate != 0)
		fprintf(fp, " (%.0f%%)", 100 * bps / (8.0 * (double)rate));
	fprintf(fp, "  drops/s %.0f  marks/s %.0f  ack_drops/s %.0f\n",
	    top_rate(d, p, "drops", dt), top_tins_rate(d, p, "ecn_mark", dt),
	    top_tins_rate(d, p, "ack_drops", dt));
}

static void
top_tins(FILE *fp, const struct json_value *d, const struct json_value *p,
    double dt)
{
	const struct json_value	*t, *u = NULL;
	const char		*name;
	char			 av[16], pk[16], sp[16];

	/* A tin's Mbit/s counts at enqueue, as tc's bytes: drops included. */
	fprintf(fp, "  %-12s %8s %9s %9s %9s %6s %6s\n", "tin", "Mbit/s",
	    "av_delay", "pk_delay", "sp_delay", "bulk", "sparse");
	if (p != NULL && json_get(p, CTL_KEY_TINS) != NULL)
		u = json_get(p, CTL_KEY_TINS)->child;
	t = json_get(d, CTL_KEY_TINS) != NULL ?
	    json_get(d, CTL_KEY_TINS)->child : NULL;
	for (; t != NULL; t = t->next, u = u != NULL ? u->next : NULL) {
		name = json_get_str(t, CTL_KEY_NAME);
		top_time(t, "avg_delay_us", av, sizeof(av));
		top_time(t, "peak_delay_us", pk, sizeof(pk));
		top_time(t, "base_delay_us", sp, sizeof(sp));
		fprintf(fp, "  %-12s %8.2f %9s %9s %9s %6" PRIu64 " %6" PRIu64
		    "\n", name != NULL ? name : "?",
		    8 * top_rate(t, u, "sent_bytes", dt) / 1e6, av, pk, sp,
		    top_u64(t, "bulk_flows"), top_u64(t, "sparse_flows"));
	}
}

static void
top_autorate(FILE *fp, const struct json_value *ar)
{
	const char	*act = json_get_str(ar, "last_action");
	char		 r[32], a[32], th[16], dl[16];
	uint64_t	 delay;

	if (keywords_format_rate(top_u64(ar, "rate"), r, sizeof(r)) == -1 ||
	    keywords_format_rate(top_u64(ar, "achieved"), a, sizeof(a)) == -1)
		return;
	top_time(ar, "threshold_us", th, sizeof(th));
	if (json_get_u64(ar, "delay_us", &delay) == -1)
		(void)snprintf(dl, sizeof(dl), "-");
	else
		top_time(ar, "delay_us", dl, sizeof(dl));
	fprintf(fp, "  autorate: rate %s achieved %s load %" PRIu64 "%% delay "
	    "%s (threshold %s) last %s, cuts %" PRIu64 " rises %" PRIu64 "\n",
	    r, a, top_u64(ar, "load_pct"), dl, th, act != NULL ? act : "?",
	    top_u64(ar, "cuts"), top_u64(ar, "rises"));
}

/* "10.0.0.1" or "tcp 10.0.0.1:40000 > 10.0.0.2:80". */
static void
top_label(const struct json_value *r, bool flow, char *buf, size_t len)
{
	const char	*s = json_get_str(r, flow ? "src" : CTL_KEY_ADDRESS);
	const char	*d = json_get_str(r, "dst"), *p = json_get_str(r,
	    "proto");

	if (s != NULL && strcmp(s, "-") == 0)
		(void)snprintf(buf, len, "(non-IP)");
	else if (!flow)
		(void)snprintf(buf, len, "%s", s != NULL ? s : "?");
	else
		(void)snprintf(buf, len, "%s %s:%" PRIu64 " > %s:%" PRIu64,
		    p != NULL ? p : "?", s != NULL ? s : "?",
		    top_u64(r, "sport"), d != NULL ? d : "?",
		    top_u64(r, "dport"));
}

static int
top_row_cmp(const void *a, const void *b)
{
	const struct top_row	*ra = a, *rb = b;

	if (ra->bps != rb->bps)
		return ra->bps > rb->bps ? -1 : 1;
	return strcmp(ra->label, rb->label);
}

/* The busiest rows of one direction of a hosts or flows reply, by rate. */
static void
top_rows(FILE *fp, const struct json_value *cur, const struct json_value *prev,
    const char *dir, bool flow, double dt)
{
	static struct top_row	 rows[TOP_ROWS];
	const char		*arr = flow ? CTL_KEY_FLOWS : CTL_KEY_HOSTS;
	const struct json_value	*a, *b, *r, *q;
	char			 lb[TOP_LABEL_MAX];
	size_t			 n = 0, i;

	a = json_get(json_get(json_get(cur, CTL_KEY_DIRECTIONS), dir), arr);
	b = json_get(json_get(json_get(prev, CTL_KEY_DIRECTIONS), dir), arr);
	for (r = a != NULL ? a->child : NULL; r != NULL && n < TOP_ROWS;
	    r = r->next) {
		top_label(r, flow, rows[n].label, sizeof(rows[n].label));
		rows[n].bps = 0;
		for (q = b != NULL ? b->child : NULL; q != NULL; q = q->next) {
			top_label(q, flow, lb, sizeof(lb));
			if (strcmp(lb, rows[n].label) == 0) {
				rows[n].bps = 8 * top_rate(r, q, "bytes", dt);
				break;
			}
		}
		n++;
	}
	qsort(rows, n, sizeof(rows[0]), top_row_cmp);
	fprintf(fp, "  busiest %s now%*s Mbit/s\n", flow ? "flows" : "hosts",
	    flow ? 46 : 25, "");
	for (i = 0; i < n && i < TOP_SHOWN && rows[i].bps >= TOP_BPS_MIN; i++)
		fprintf(fp, "   %-*s %8.3f\n", flow ? 59 : 38, rows[i].label,
		    rows[i].bps / 1e6);
}

int
top_frame(FILE *fp, struct json_value *const prev[3],
    struct json_value *const cur[3])
{
	const struct json_value	*dirs, *d, *p, *pdirs;
	double			 dt;
	time_t			 now;
	char			 ts[32];

	dirs = json_get(cur[TOP_STATS], CTL_KEY_DIRECTIONS);
	pdirs = json_get(prev[TOP_STATS], CTL_KEY_DIRECTIONS);
	if (dirs == NULL || pdirs == NULL)
		return -1;
	dt = ((double)top_u64(cur[TOP_STATS], CTL_KEY_TIME_NS) -
	    (double)top_u64(prev[TOP_STATS], CTL_KEY_TIME_NS)) / 1e9;
	now = (time_t)(top_u64(cur[TOP_STATS], CTL_KEY_TIME_NS) / 1000000000);
	if (strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now)) == 0)
		ts[0] = '\0';
	fprintf(fp, "caked top  %s  (every 1 s; q quits)\n", ts);
	for (d = dirs->child; d != NULL; d = d->next) {
		p = json_get(pdirs, d->key);
		fprintf(fp, "\n");
		top_head(fp, d, p, dt);
		top_tins(fp, d, p, dt);
		if (json_get(d, "autorate") != NULL)
			top_autorate(fp, json_get(d, "autorate"));
		top_rows(fp, cur[TOP_HOSTS], prev[TOP_HOSTS], d->key, false, dt);
		top_rows(fp, cur[TOP_FLOWS], prev[TOP_FLOWS], d->key, true, dt);
	}
	return 0;
}

/* ---- the loop ----------------------------------------------------------- */

static struct termios	top_saved;
static bool		top_raw;

static void
top_restore(void)
{
	if (top_raw)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &top_saved);
	top_raw = false;
}

static void
top_keys_on(void)
{
	struct termios	t;

	if (tcgetattr(STDIN_FILENO, &top_saved) == -1)
		return;
	t = top_saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0) {
		top_raw = true;
		(void)atexit(top_restore);
	}
}

/* Waits until deadline (CLOCK_MONOTONIC); true if 'q' was pressed. */
static bool
top_wait(const struct top_opts *o, const struct timespec *deadline)
{
	struct pollfd	pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	struct timespec	now;
	long long	ms;
	char		c;

	for (;;) {
		(void)clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (deadline->tv_sec - now.tv_sec) * 1000LL +
		    (deadline->tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0 || *o->stop)
			return false;
		if (!o->keys) {
			(void)poll(NULL, 0, (int)ms);
			continue;
		}
		if (poll(&pfd, 1, (int)ms) > 0 &&
		    read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
			return true;
	}
}

static void
top_free(struct json_value *s[3])
{
	int	i;

	for (i = 0; i < TOP_REPLIES; i++) {
		json_free(s[i]);
		s[i] = NULL;
	}
}

static int
top_sample(top_query_fn *query, void *arg, const char *dir,
    struct json_value *s[3])
{
	static const char *const cmd[TOP_REPLIES] = {
		CTL_CMD_STATS, CTL_CMD_HOSTS, CTL_CMD_FLOWS,
	};
	char	req[64];
	int	i;

	for (i = 0; i < TOP_REPLIES; i++)
		s[i] = NULL;
	for (i = 0; i < TOP_REPLIES; i++) {
		(void)snprintf(req, sizeof(req), "%s%s%s%s\n", cmd[i],
		    dir != NULL ? " " : "", dir != NULL ? dir : "",
		    i == TOP_STATS ? "" : " " CTL_ARG_TOP " 64");
		if ((s[i] = query(arg, req)) == NULL) {
			top_free(s);
			return -1;
		}
	}
	return 0;
}

int
top_run(FILE *fp, const struct top_opts *o, top_query_fn *query, void *arg)
{
	struct json_value	*prev[TOP_REPLIES] = { NULL }, *cur[TOP_REPLIES];
	struct timespec		 deadline;
	long			 shown = 0;
	int			 rc = 0;

	if (o->keys)
		top_keys_on();
	(void)clock_gettime(CLOCK_MONOTONIC, &deadline);
	while (rc == 0 && !*o->stop && (o->count == 0 || shown < o->count)) {
		if ((rc = top_sample(query, arg, o->dir, cur)) == -1)
			break;
		if (prev[TOP_STATS] != NULL) {
			if (o->tty)
				fputs("\033[H\033[2J", fp);	/* home, clear */
			else if (shown > 0)
				fputc('\n', fp);
			rc = top_frame(fp, prev, cur);
			(void)fflush(fp);
			shown++;
		}
		top_free(prev);
		memcpy(prev, cur, sizeof(prev));
		deadline.tv_sec += TOP_INTERVAL_NS / 1000000000LL;
		if (top_wait(o, &deadline))
			break;
	}
	top_free(prev);
	top_restore();
	return rc;
}
