/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop_ctl.c: what the event loop answers to the outside: the control
 * socket's callbacks (ctlcmd_ops: snapshots, change, reload, flows, NAT,
 * autorate, passive delay, I/O and daemon counters), the JSON /metrics
 * renders, and the systemd STATUS= line. Everything a packet thread holds
 * is read through loop_call.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/group.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/autorate_run.h"
#include "daemon/conntrack.h"
#include "daemon/ctlcmd.h"
#include "daemon/ctlsock.h"
#include "daemon/httpd.h"
#include "daemon/log.h"
#include "daemon/passive.h"
#include "daemon/timer.h"
#include "daemon/loop_int.h"

/* ---- STATUS= line ------------------------------------------------------- */

/* "17.9Mbit", "20Mbit": tc's units, tenths (none when they are 0). */
static void
loop_rate(uint64_t rate_Bps, char *buf, size_t len)
{
	static const char *const unit[] = { "bit", "Kbit", "Mbit", "Gbit" };
	double		v = (double)rate_Bps * 8;
	uint64_t	tenths;
	size_t		u = 0;

	if (rate_Bps == 0) {
		(void)snprintf(buf, len, "unlimited");
		return;
	}
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	tenths = (uint64_t)(v * 10 + 0.5);
	if (tenths % 10 == 0)
		(void)snprintf(buf, len, "%llu%s",
		    (unsigned long long)(tenths / 10), unit[u]);
	else
		(void)snprintf(buf, len, "%llu.%llu%s",
		    (unsigned long long)(tenths / 10),
		    (unsigned long long)(tenths % 10), unit[u]);
}

/* LAN hosts with flow queues in upload; -1 without the control scratch. */
static int
loop_hosts(struct loop *l)
{
	struct ctlcmd_scratch	*s = &l->ctl_scratch;
	struct loop_snap	 snap = { .flows = s->flows, .max = s->max };

	if (s->flows == NULL || loop_snapshot(l, CONFIG_UPLOAD, &snap) == -1)
		return -1;
	return (int)ctlcmd_hosts_count(s->flows, snap.got, CONFIG_UPLOAD,
	    s->hosts);
}

/* "upload 20Mbit (autorate 17.9Mbit), download 100Mbit, 3 hosts" */
void
loop_status_line(void *arg, char *buf, size_t len)
{
	struct loop		*l = arg;
	struct cake_config	 cc;
	struct loop_snap	 snap = { .cfg = &cc };
	char			 set[32], now[32];
	size_t			 pos = 0;
	int			 i, n, hosts;

	for (i = 0; i < CONFIG_DIRS && pos < len; i++) {
		if (loop_snapshot(l, i, &snap) == -1)
			continue;
		loop_rate(l->setup.cfg->cake[i].rate_Bps, set, sizeof(set));
		loop_rate(cc.rate_Bps, now, sizeof(now));
		if (cc.rate_Bps != l->setup.cfg->cake[i].rate_Bps ||
		    l->setup.cfg->autorate[i].enabled)
			n = snprintf(buf + pos, len - pos, "%s%s %s (autorate "
			    "%s)", pos > 0 ? ", " : "", config_dir_name(i),
			    set, now);
		else
			n = snprintf(buf + pos, len - pos, "%s%s %s",
			    pos > 0 ? ", " : "", config_dir_name(i), set);
		if (n < 0 || (size_t)n >= len - pos)
			return;		/* truncated but terminated */
		pos += (size_t)n;
	}
	if ((hosts = loop_hosts(l)) >= 0 && pos < len)
		(void)snprintf(buf + pos, len - pos, ", %d host%s", hosts,
		    hosts == 1 ? "" : "s");
}

/* ---- control socket callbacks (ctlcmd_ops) ------------------------------ */

static int
loop_ctl_snapshot(void *arg, int dir, struct cake_stats *st,
    struct cake_config *cfg)
{
	struct loop_snap	snap = { .st = st, .cfg = cfg };

	return loop_snapshot(arg, dir, &snap);
}

static bool
loop_ctl_busy(void *arg, int dir)
{
	struct loop	*l = arg;

	return dir >= 0 && dir < CONFIG_DIRS && l->setup.group[dir] != NULL &&
	    l->dir[dir].pkt->last_busy;
}

/* As tc change: applied live, queued packets kept (until the next reload). */
static int
loop_ctl_change(void *arg, int dir, const struct cake_config *cfg,
    char *err, size_t errlen)
{
	struct loop	*l = arg;
	uint64_t	 now_ns = timer_now_ns();
	int		 rc;

	if (dir < 0 || dir >= CONFIG_DIRS || l->setup.group[dir] == NULL)
		return -1;
	if (keywords_check_floors(cfg, l->setup.cfg->mtu, err, errlen) == -1)
		return -1;
	if ((rc = loop_change(l, dir, cfg, now_ns)) == LOOP_BUSY) {
		(void)snprintf(err, errlen, "busy: the %s thread did not "
		    "answer, not changed", config_dir_name(dir));
		return -1;
	} else if (rc == CAKE_ERR_QUEUES) {
		(void)snprintf(err, errlen, "queues cannot change while caked "
		    "runs (it sizes the flow tables): set it in the "
		    "configuration file and restart caked");
		return -1;
	} else if (rc != CAKE_OK) {
		(void)snprintf(err, errlen, "the engine refused the options: "
		    "%s", cake_strerror(rc));
		return -1;
	}
	l->setup.cfg->cake[dir] = *cfg;
	loop_nat(l, l->setup.cfg);
	autorate_run_rate_set(l->ar, dir, cfg->rate_Bps);
	return 0;
}

static int
loop_ctl_reload(void *arg, char *err, size_t errlen)
{
	return loop_reload(arg, err, errlen);
}

static void
loop_ctl_counters(void *arg, struct ctlcmd_counters *c)
{
	struct loop	*l = arg;

	ctlsock_counters(l->setup.ctl, c);
}

static int
loop_ctl_flows(void *arg, int dir, struct cake_flow_stats *out,
    unsigned int max)
{
	struct loop_snap	snap = { .flows = out, .max = max };

	if (loop_snapshot(arg, dir, &snap) == -1)
		return -1;
	return (int)snap.got;
}

static int
loop_ctl_nat(void *arg, struct ctlcmd_nat *n)
{
	struct loop		*l = arg;
	struct conntrack_stats	 s;

	if (l->nat == NULL && l->nat_warned) {
		n->state = "unavailable";	/* counters stay 0 */
		return 0;
	}
	if (l->nat == NULL)
		return -1;
	(void)loop_nat_stats(l, &s);
	n->state = conntrack_state_name(s.state);
	n->entries = s.cache.entries;
	n->size = s.cache.size;
	n->hits = s.cache.hits;
	n->misses = s.cache.misses;
	n->neg_hits = s.cache.neg_hits;
	n->evictions = s.cache.evictions;
	n->expiries = s.cache.expiries;
	n->events = s.events_new + s.events_update + s.events_destroy;
	n->queries = s.queries;
	n->answers = s.answers;
	n->not_found = s.not_found;
	n->query_failures = s.query_failures;
	n->query_skipped = s.query_skipped;
	n->query_timeouts = s.query_timeouts;
	n->parse_errors = s.parse_errors;
	n->enobufs = s.enobufs;
	n->in_flight = s.in_flight;
	n->inserts = s.cache.inserts;
	n->updates = s.cache.updates;
	n->removals = s.cache.removals;
	n->inboxes = loop_nat_lost(l, &n->inbox_lost_news,
	    &n->inbox_lost_asks);
	return 0;
}

static void
loop_ctl_autorate(void *arg, int dir, struct json_writer *w)
{
	struct loop	*l = arg;

	autorate_run_json(l->ar, dir, w);
}

static void
loop_ctl_passive(void *arg, int dir, struct json_writer *w)
{
	struct loop	*l = arg;

	if (dir == -1)
		passive_json(l->ts, w);
	else
		passive_json_dir(l->ts, dir, timer_now_ns(), w);
}

static void
loop_ctl_host_rtt(void *arg, const uint8_t addr[16], uint8_t family,
    uint64_t *lan_ns, uint64_t *wan_ns)
{
	struct loop	*l = arg;

	*lan_ns = *wan_ns = 0;
	if (l->ts != NULL)
		tsrtt_host(l->ts, addr, family, timer_now_ns(), lan_ns,
		    wan_ns);
}

struct loop_io {
	struct loop		*l;
	int			 dir;
	struct json_writer	*w;
};

/* A thread per worker: their counters summed (the others are parked). */
static void
loop_io_fn(struct loop_pkt *p, void *arg)
{
	const struct datapath	*dps[GROUP_WORKERS_MAX];
	struct loop_io		*io = arg;
	unsigned int		 w, n = io->l->nworkers[io->dir];

	(void)p;
	if (n < 2 || io->l->hosts_sum == NULL) {
		datapath_json(&io->l->dir[io->dir].dp, io->w, timer_now_ns());
		return;
	}
	for (w = 0; w < n; w++)
		dps[w] = &loop_wdir(io->l, io->dir, w)->dp;
	datapath_json_sum(dps, n, io->l->hosts_sum, io->w, timer_now_ns());
}

static void
loop_ctl_io(void *arg, int dir, struct json_writer *w)
{
	struct loop	*l = arg;
	struct loop_io	 io = { l, dir, w };

	if (dir < 0 || dir >= CONFIG_DIRS)
		return;
	if (loop_dcall(l, dir, loop_io_fn, &io) == -1)
		json_string(w, "io", "busy");
}

static void
loop_ctl_clock(void *arg, uint64_t *real_ns, uint64_t *uptime_ns)
{
	struct loop	*l = arg;

	*real_ns = loop_real_ns();
	*uptime_ns = timer_now_ns() - l->start_ns;
}

static void
loop_ctl_daemon(void *arg, struct json_writer *w)
{
	struct loop		*l = arg;
	struct httpd_counters	 hc;

	json_object_begin(w, "daemon");
	json_string(w, "version", l->setup.version != NULL ?
	    l->setup.version : "unknown");
	json_uint(w, "reloads", l->reloads);
	json_uint(w, "reload_failures", l->reload_failures);
	json_uint(w, "last_reload_ok", l->reload_ok ? 1 : 0);
	json_uint(w, "last_reload_ok_time_ns", l->reload_ok_real_ns);
	json_uint(w, "timer_spins", loop_timer_spins(l));
	if (l->httpd != NULL) {
		httpd_get_counters(l->httpd, &hc);
		json_uint(w, "http_requests", hc.requests);
		json_uint(w, "http_refused", hc.refused);
		json_uint(w, "http_renders", hc.renders);
	}
	json_object_end(w);
}

/* The stats reply /metrics renders: what `cakectl stats` gets. */
static int
loop_metrics_json(void *arg, char *out, size_t cap)
{
	static const struct ctlcmd_peer	 peer = { 0, 0, false };
	struct loop			*l = arg;
	size_t				 len = 0;

	if (ctlcmd_handle(&l->ctl_ops, &peer, CTL_CMD_STATS, out, cap,
	    &len) != CTLCMD_READ)
		return -1;
	return (int)len;
}

int
loop_ctl_start(struct loop *l)
{
	struct ctlcmd_scratch	*s = &l->ctl_scratch;
	struct ctlcmd_ops	*ops = &l->ctl_ops;
	struct cake_config	 cc;
	uint32_t		 queues = CAKE_QUEUES_DEFAULT;
	int			 i;

	/*
	 * Every flow of the larger instance; requests are served one at a
	 * time. An instance's queues never change (cake_change refuses).
	 */
	for (i = 0; i < CONFIG_DIRS; i++) {
		if (l->setup.group[i] == NULL)
			continue;
		group_get_config(l->setup.group[i], &cc);
		if (cc.queues > queues)
			queues = cc.queues;
	}
	s->max = CAKE_MAX_TINS * queues;
	s->flows = calloc(s->max, sizeof(*s->flows));
	s->hosts = calloc(s->max, sizeof(*s->hosts));
	if (s->flows == NULL || s->hosts == NULL) {
		log_warn("control scratch");
		return -1;
	}
	memset(ops, 0, sizeof(*ops));
	ops->arg = l;
	ops->version = l->setup.version;
	ops->snapshot = loop_ctl_snapshot;
	ops->busy = loop_ctl_busy;
	ops->change = loop_ctl_change;
	ops->reload = loop_ctl_reload;
	ops->counters = l->setup.ctl != NULL ? loop_ctl_counters : NULL;
	ops->nat = loop_ctl_nat;
	ops->flows = loop_ctl_flows;
	ops->autorate = loop_ctl_autorate;
	ops->io = loop_ctl_io;
	ops->passive = loop_ctl_passive;
	ops->host_rtt = loop_ctl_host_rtt;
	ops->daemon = loop_ctl_daemon;
	ops->clock = loop_ctl_clock;
	ops->scratch = *s;
	if (l->setup.cfg->metrics_port != 0 && (l->httpd = httpd_start(l->base,
	    l->setup.cfg->metrics_addr, l->setup.cfg->metrics_port,
	    loop_metrics_json, l)) == NULL)
		return -1;
	if (l->setup.ctl == NULL)
		return 0;
	return ctlsock_start(l->setup.ctl, l->base, ops);
}
