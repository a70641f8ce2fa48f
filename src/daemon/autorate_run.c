/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_run.c: the daemon side of autorate. Every autorate-interval one
 * timer event ticks the controller of each direction that has autorate on
 * (autorate.c) with the engine's sent-byte counter and queue delay, and
 * sends a round of probes (autorate_probe.c); a new rate is applied with
 * cake_change(), which keeps the queued packets, and logged at debug level.
 * Replies arrive on the probe sockets' read events and go straight into the
 * path-delay state of the reflectors; the passive delay of the traffic
 * comes in through autorate_run_passive(). At each tick every direction
 * gets its own input from these (autorate_input_get(): one-way delay,
 * passive or echo), and the debug log of a change names the signal.
 *
 * The probes leave through the router's own stack, not through caked's queues:
 * they measure the path beyond caked, which is what bloats.
 *
 * Reflectors. autorate-reflectors is a pool of up to 16; the first
 * autorate-reflectors-active of it are probed. Each gets ICMP timestamp
 * requests (IPv4, raw socket, autorate-probe auto or timestamp) or echo
 * requests; in auto mode one that leaves AUTORATE_TS_TRIES timestamp
 * requests in a row unanswered, or answers with non-standard timestamps,
 * gets echo from then on. An active reflector that has answered nothing
 * for AUTORATE_SILENT_NS (3 s) and AUTORATE_SILENT_ROUNDS rounds, or whose
 * baseline has risen AUTORATE_REPLACE_DRIFT_NS over the median rise of the
 * others since it became active, is replaced by the next of the pool and
 * goes to its back; its delay state starts afresh when it comes back.
 *
 * Idle. With no packet sent in either direction for autorate-idle-after,
 * a probe round goes out only every autorate-idle-interval; the ticks go
 * on at the full rate (they only read counters), so the first tick that
 * sees traffic again sends a round at once and the full rate resumes.
 *
 * It must not decide rates itself (autorate.c does) nor touch packets.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/autorate_run.h"
#include "daemon/autorate.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/autorate_probe.h"
#include "daemon/timer.h"

/* One reflector of the pool. */
struct run_refl {
	int		kind;		/* PROBE_ECHO or PROBE_TIMESTAMP */
	bool		outstanding;	/* the last probe is unanswered */
	unsigned int	ts_misses;	/* timestamps unanswered in a row */
	unsigned int	nonstd;		/* non-standard replies in a row */
	unsigned int	silent_rounds;	/* rounds without an answer */
	uint64_t	since_ns;	/* active (with this kind) since */
	uint64_t	floor_ns;	/* lowest RTT baseline since then */
	uint64_t	sent;
	uint64_t	answered;
	uint64_t	lost;
};

struct autorate_run {
	struct event_base	*base;
	struct autorate_probe	*probe;
	struct event		*ev_read;
	struct event		*ev_read6;
	struct event		*ev_tick;
	struct cake		*cake[CONFIG_DIRS];	/* NULL: no engine */
	autorate_run_changed_fn	*changed;
	void			*arg;
	struct autorate_run_hooks hooks;	/* how the engines are read */
	struct autorate_delay	 delay;		/* indexed by pool position */
	struct autorate_dir	 dir[CONFIG_DIRS];
	struct autorate_passive	 passive[CONFIG_DIRS];
	struct autorate_addr	 reflectors[AUTORATE_REFLECTORS_MAX];
	struct run_refl		 refl[AUTORATE_REFLECTORS_MAX];
	unsigned int		 order[AUTORATE_REFLECTORS_MAX]; /* pool */
	unsigned int		 npool;
	unsigned int		 nactive;	/* order[0..nactive) probed */
	int			 mode;		/* AUTORATE_PROBE_* */
	uint64_t		 interval_ns;
	uint64_t		 idle_after_ns;
	uint64_t		 idle_interval_ns;
	uint64_t		 traffic_bytes;	/* both directions, sent */
	uint64_t		 last_traffic_ns;
	uint64_t		 last_round_ns;
	bool			 idle;
	uint64_t		 replacements;
	uint64_t		 apply_errors;
	/* upload delivery from the passive table's ACK counters */
	bool			 acked_set;	/* the two below are valid */
	uint64_t		 tcp_sent;
	uint64_t		 tcp_acked;
	uint64_t		 last_tcp_sent;
	uint64_t		 last_tcp_acked;
	uint64_t		 last_wire;
	double			 wire_scale;	/* wire bytes per TCP byte */
	uint64_t		 up_deliv;	/* counter, wire bytes */
	bool			 inband;	/* autorate-passive: use both */
};

/* Reflector idx's address, printable. */
static const char *
run_addr(const struct autorate_addr *a, char *buf, size_t len)
{
	if (inet_ntop(a->family, &a->u, buf, (socklen_t)len) == NULL)
		(void)snprintf(buf, len, "?");
	return buf;
}

/* Whether pool entry idx is probed now. */
static bool
run_active(const struct autorate_run *r, unsigned int idx)
{
	unsigned int	i;

	for (i = 0; i < r->nactive; i++)
		if (r->order[i] == idx)
			return true;
	return false;
}

/* From now on idx gets echo requests (auto mode's fallback). */
static void
run_to_echo(struct autorate_run *r, unsigned int idx, const char *why,
    uint64_t now_ns)
{
	char	a[INET6_ADDRSTRLEN];

	r->refl[idx].kind = PROBE_ECHO;
	r->refl[idx].since_ns = now_ns;
	r->refl[idx].silent_rounds = 0;
	log_info("autorate: reflector %s %s: echo from now on",
	    run_addr(&r->reflectors[idx], a, sizeof(a)), why);
}

/* The one-way delays of a timestamp reply, into the delay state. */
static void
run_owd(struct autorate_run *r, const struct autorate_probe_reply *rep)
{
	struct run_refl	*rf = &r->refl[rep->idx];
	int64_t		 up, down;

	if (!autorate_owd_ms(rep->originate_ms, rep->receive_ms, &up) ||
	    !autorate_owd_ms(rep->transmit_ms, rep->arrival_ms, &down)) {
		/* not ms since midnight: the round trip is still good */
		if (++rf->nonstd >= AUTORATE_TS_TRIES &&
		    r->mode == AUTORATE_PROBE_AUTO)
			run_to_echo(r, rep->idx, "sends non-standard "
			    "timestamps", rep->now_ns);
		return;
	}
	rf->nonstd = 0;
	autorate_delay_owd(&r->delay, rep->idx, AUTORATE_OWD_UP, up,
	    rep->now_ns);
	autorate_delay_owd(&r->delay, rep->idx, AUTORATE_OWD_DOWN, down,
	    rep->now_ns);
}

static void
run_on_reply(void *arg, const struct autorate_probe_reply *rep)
{
	struct autorate_run	*r = arg;
	struct run_refl		*rf;

	/* a late answer of a reflector replaced since: not wanted */
	if (rep->idx >= r->npool || !run_active(r, rep->idx))
		return;
	rf = &r->refl[rep->idx];
	rf->outstanding = false;
	rf->silent_rounds = 0;
	rf->answered++;
	autorate_delay_sample(&r->delay, rep->idx, rep->rtt_ns, rep->now_ns);
	if (rep->kind == PROBE_TIMESTAMP) {
		rf->ts_misses = 0;
		run_owd(r, rep);
	}
}

static void
run_on_read(evutil_socket_t fd, short what, void *arg)
{
	struct autorate_run	*r = arg;

	(void)fd;
	(void)what;
	autorate_probe_recv(r->probe, timer_now_ns(), run_on_reply, r);
}

/* caked's own queue delay: the largest tin average, if anything waits. */
static uint32_t
run_queue_us(const struct cake_stats *st)
{
	uint32_t	i, us = 0;

	if (st->backlog_bytes == 0)
		return 0;
	for (i = 0; i < st->tin_count && i < CAKE_MAX_TINS; i++)
		if (st->tins[i].avg_delay_us > us)
			us = st->tins[i].avg_delay_us;
	return us;
}

/* The one-way delay that loads direction dir: out for upload. */
static int
run_way(int dir)
{
	return dir == CONFIG_UPLOAD ? AUTORATE_OWD_UP : AUTORATE_OWD_DOWN;
}

static void
run_set(struct autorate_run *r, int dir, uint64_t now_ns, uint64_t old_Bps)
{
	struct autorate_dir	*d = &r->dir[dir];
	char			 o[32], n[32];
	int			 rc;

	if ((rc = r->hooks.rate(r->hooks.arg, dir, d->rate_Bps, now_ns)) !=
	    CAKE_OK) {
		if (r->apply_errors++ == 0)
			log_warnx("%s: autorate: the engine refused rate %"
			    PRIu64 " B/s (error %d)", config_dir_name(dir),
			    d->rate_Bps, rc);
		d->rate_Bps = old_Bps;
		return;
	}
	if (keywords_format_rate(old_Bps, o, sizeof(o)) == -1 ||
	    keywords_format_rate(d->rate_Bps, n, sizeof(n)) == -1)
		o[0] = n[0] = '\0';
	log_debug("%s: autorate %s %s -> %s (signal %s, delay %.1fms, "
	    "load %u%%, queue %uus, delivered %" PRIu64 "B/s)",
	    config_dir_name(dir),
	    autorate_action_name(d->last_action), o, n,
	    autorate_signal_name(d->in.signal),
	    d->delta_ns < 0 ? -1.0 : (double)d->delta_ns / 1e6, d->load_pct,
	    d->queue_delay_us, d->deliv_valid ? d->deliv_Bps : 0);
}

/* The time between two probe rounds now. */
static uint64_t
run_round_ns(const struct autorate_run *r)
{
	return r->idle && r->idle_interval_ns > r->interval_ns ?
	    r->idle_interval_ns : r->interval_ns;
}

/* Notes traffic in either direction; sets r->idle. */
static void
run_idle(struct autorate_run *r, uint64_t now_ns)
{
	struct cake_stats	st;
	uint64_t		bytes = 0;
	bool			was = r->idle;
	int			i;

	for (i = 0; i < CONFIG_DIRS; i++)
		if (r->cake[i] != NULL &&
		    r->hooks.stats(r->hooks.arg, i, &st) == 0)
			bytes += st.sent_bytes + st.backlog_bytes;
	if (bytes != r->traffic_bytes) {
		r->traffic_bytes = bytes;
		r->last_traffic_ns = now_ns;
	}
	r->idle = now_ns - r->last_traffic_ns >= r->idle_after_ns;
	if (r->idle != was)
		log_debug("autorate: %s: a probe round every %" PRIu64 "ms",
		    r->idle ? "idle" : "traffic", run_round_ns(r) / 1000000);
	/* a reflector probed once a round stays fresh for two of them */
	r->delay.stale_ns = AUTORATE_STALE_NS + (r->idle ?
	    2 * run_round_ns(r) : 0);
}

/* Forgets what pool entry idx measured: it starts (again) now. */
static void
run_refl_start(struct autorate_run *r, unsigned int idx, uint64_t now_ns)
{
	struct run_refl	*rf = &r->refl[idx];

	memset(&r->delay.refl[idx], 0, sizeof(r->delay.refl[idx]));
	memset(&r->delay.owd[0][idx], 0, sizeof(r->delay.owd[0][idx]));
	memset(&r->delay.owd[1][idx], 0, sizeof(r->delay.owd[1][idx]));
	rf->kind = PROBE_ECHO;
	if (r->mode != AUTORATE_PROBE_ECHO &&
	    r->reflectors[idx].family == AF_INET && r->probe != NULL &&
	    autorate_probe_can_timestamp(r->probe))
		rf->kind = PROBE_TIMESTAMP;
	rf->outstanding = false;
	rf->ts_misses = rf->nonstd = rf->silent_rounds = 0;
	rf->since_ns = now_ns;
	rf->floor_ns = 0;
}

/* Sends one probe to pool entry idx. */
static void
run_probe(struct autorate_run *r, unsigned int idx, uint64_t now_ns)
{
	struct run_refl	*rf = &r->refl[idx];

	if (rf->outstanding) {
		rf->lost++;
		rf->silent_rounds++;
		if (rf->kind == PROBE_TIMESTAMP && ++rf->ts_misses >=
		    AUTORATE_TS_TRIES && r->mode == AUTORATE_PROBE_AUTO)
			run_to_echo(r, idx, "does not answer timestamp "
			    "requests", now_ns);
	}
	rf->sent++;
	rf->outstanding = true;
	(void)autorate_probe_send(r->probe, idx, rf->kind, now_ns);
}

/* Whether active pool entry idx has been silent too long. */
static bool
run_silent(const struct autorate_run *r, unsigned int idx, uint64_t now_ns)
{
	const struct run_refl	*rf = &r->refl[idx];
	uint64_t		 last = r->delay.refl[idx].last_reply_ns;

	if (last < rf->since_ns)
		last = rf->since_ns;
	return now_ns - last >= AUTORATE_SILENT_NS &&
	    rf->silent_rounds >= AUTORATE_SILENT_ROUNDS;
}

/* How far idx's RTT baseline has risen since it became active. */
static uint64_t
run_rise(struct autorate_run *r, unsigned int idx)
{
	const struct autorate_reflector	*e = &r->delay.refl[idx];
	struct run_refl			*rf = &r->refl[idx];

	if (e->replies < 2)
		return 0;
	if (rf->floor_ns == 0 || e->baseline_ns < rf->floor_ns)
		rf->floor_ns = e->baseline_ns;
	return e->baseline_ns - rf->floor_ns;
}

/* Whether active idx's baseline has drifted far from the others'. */
static bool
run_drifted(struct autorate_run *r, unsigned int k, uint64_t now_ns)
{
	uint64_t	rise[AUTORATE_REFLECTORS_MAX], mine, t;
	unsigned int	i, j, n = 0;

	mine = run_rise(r, r->order[k]);
	for (i = 0; i < r->nactive; i++) {
		if (i == k || !autorate_delay_fresh(&r->delay, r->order[i],
		    now_ns))
			continue;
		t = run_rise(r, r->order[i]);
		for (j = n++; j > 0 && rise[j - 1] > t; j--)
			rise[j] = rise[j - 1];
		rise[j] = t;
	}
	return n > 0 && mine > rise[(n - 1) / 2] + AUTORATE_REPLACE_DRIFT_NS;
}

/* Active position k leaves for the back of the pool; the next comes in. */
static void
run_replace(struct autorate_run *r, unsigned int k, const char *why,
    uint64_t now_ns)
{
	char		a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	unsigned int	out = r->order[k], i;

	for (i = k; i + 1 < r->npool; i++)
		r->order[i] = r->order[i + 1];
	r->order[r->npool - 1] = out;
	if (r->refl[out].outstanding)
		r->refl[out].lost++;	/* it will not be waited for */
	r->refl[out].outstanding = false;
	r->replacements++;
	run_refl_start(r, r->order[r->nactive - 1], now_ns);
	log_info("autorate: reflector %s %s: replaced by %s",
	    run_addr(&r->reflectors[out], a, sizeof(a)), why,
	    run_addr(&r->reflectors[r->order[r->nactive - 1]], b,
	    sizeof(b)));
}

/* Replaces one reflector that went silent or drifted, if the pool can. */
static void
run_pool(struct autorate_run *r, uint64_t now_ns)
{
	unsigned int	k;

	if (r->npool <= r->nactive)
		return;
	for (k = 0; k < r->nactive; k++) {
		if (run_silent(r, r->order[k], now_ns)) {
			run_replace(r, k, "is silent", now_ns);
			return;
		}
		if (run_drifted(r, k, now_ns)) {
			run_replace(r, k, "drifted", now_ns);
			return;
		}
	}
}

/* A round of probes to the active reflectors, when one is due. */
static void
run_round(struct autorate_run *r, uint64_t now_ns)
{
	unsigned int	k;

	if (r->probe == NULL || (r->last_round_ns != 0 &&
	    now_ns - r->last_round_ns + r->interval_ns / 2 <
	    run_round_ns(r)))
		return;
	r->last_round_ns = now_ns;
	run_pool(r, now_ns);
	for (k = 0; k < r->nactive; k++)
		run_probe(r, r->order[k], timer_now_ns());
}

/*
 * The upload bottleneck's delivery as a counter of wire bytes: the TCP
 * payload the WAN hosts acknowledged since the last tick, times what
 * caked sent per byte of new TCP payload (headers, other traffic). The
 * acknowledgements come at the rate the bottleneck delivers, whatever
 * caked's rate; the factor changes slowly. False while unknown.
 */
static bool
run_deliv_up(struct autorate_run *r, uint64_t wire, uint64_t *deliv)
{
	uint64_t	sent = r->tcp_sent - r->last_tcp_sent;
	uint64_t	acked = r->tcp_acked - r->last_tcp_acked;
	double		f;

	if (!r->acked_set)
		return false;
	if (sent > 0 && wire > r->last_wire) {
		f = (double)(wire - r->last_wire) / (double)sent;
		f = f < 1.0 ? 1.0 : f > 4.0 ? 4.0 : f;
		r->wire_scale = r->wire_scale == 0 ? f :
		    (r->wire_scale * 7 + f) / 8;
	}
	r->last_tcp_sent = r->tcp_sent;
	r->last_tcp_acked = r->tcp_acked;
	r->last_wire = wire;
	if (r->wire_scale == 0)
		return false;
	r->up_deliv += (uint64_t)((double)acked * r->wire_scale);
	*deliv = r->up_deliv;
	return true;
}

/* The download bottleneck's delivery: what arrives at caked from it. */
static uint64_t
run_deliv_down(const struct cake_stats *st)
{
	uint64_t	b = 0;
	uint32_t	i;

	for (i = 0; i < st->tin_count && i < CAKE_MAX_TINS; i++)
		b += st->tins[i].bytes;
	return b;
}

static void
run_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct autorate_run	*r = arg;
	struct cake_stats	 st;
	struct autorate_input	 in;
	uint64_t		 now_ns = timer_now_ns(), old;
	int			 dir;

	(void)fd;
	(void)what;
	run_idle(r, now_ns);
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (!r->dir[dir].p.enabled || r->cake[dir] == NULL ||
		    r->hooks.stats(r->hooks.arg, dir, &st) == -1)
			continue;	/* none, or its thread is busy */
		old = r->dir[dir].rate_Bps;
		autorate_input_get(&in, &r->delay, run_way(dir),
		    &r->passive[dir], now_ns);
		if (!r->inband)
			in.deliv_known = false;
		else if (dir == CONFIG_DOWNLOAD) {
			in.deliv_known = in.deliv_exact = true;
			in.deliv_bytes = run_deliv_down(&st);
		} else
			in.deliv_known = run_deliv_up(r, st.sent_bytes,
			    &in.deliv_bytes);
		if (autorate_dir_tick(&r->dir[dir], &in, st.sent_bytes,
		    run_queue_us(&st), now_ns))
			run_set(r, dir, now_ns, old);
	}
	run_round(r, now_ns);
}

/* The default hooks: the engines themselves, on the caller's thread. */
static int
run_cake_stats(void *arg, int dir, struct cake_stats *st)
{
	struct autorate_run	*r = arg;

	cake_get_stats(r->cake[dir], st);
	return 0;
}

static int
run_cake_rate(void *arg, int dir, uint64_t rate_Bps, uint64_t now_ns)
{
	struct autorate_run	*r = arg;
	struct cake_config	 cc;
	int			 rc;

	cake_get_config(r->cake[dir], &cc);
	cc.rate_Bps = rate_Bps;
	if ((rc = cake_change(r->cake[dir], &cc, now_ns)) == CAKE_OK &&
	    r->changed != NULL)
		r->changed(r->arg, dir, now_ns);
	return rc;
}

struct autorate_run *
autorate_run_create(struct event_base *base, struct autorate_probe *probe,
    struct cake *cake[2], autorate_run_changed_fn *fn, void *arg)
{
	struct autorate_run	*r;
	int			 i;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		log_warn("%s", __func__);
		autorate_probe_close(probe);
		return NULL;
	}
	r->base = base;
	r->probe = probe;
	r->changed = fn;
	r->arg = arg;
	for (i = 0; i < CONFIG_DIRS; i++)
		r->cake[i] = cake[i];
	r->hooks.stats = run_cake_stats;
	r->hooks.rate = run_cake_rate;
	r->hooks.arg = r;
	return r;
}

void
autorate_run_set_hooks(struct autorate_run *r,
    const struct autorate_run_hooks *h)
{
	r->hooks = *h;
}

/* A read event for fd into *ev, once. */
static int
run_read_event(struct autorate_run *r, int fd, struct event **ev)
{
	if (*ev != NULL || fd == -1)
		return 0;
	*ev = event_new(r->base, fd, EV_READ | EV_PERSIST, run_on_read, r);
	if (*ev == NULL || event_add(*ev, NULL) == -1)
		return -1;
	return 0;
}

/* Opens the probe socket if needed and (re)starts its events. */
static int
run_events(struct autorate_run *r, bool on)
{
	struct timeval	tv;

	if (r->ev_tick != NULL) {
		event_free(r->ev_tick);
		r->ev_tick = NULL;
	}
	if (!on)
		return 0;
	if (r->probe == NULL) {
		if ((r->probe = autorate_probe_open()) == NULL) {
			log_warn("autorate: cannot open an ICMP socket (start "
			    "caked as root, or allow ping sockets with "
			    "net.ipv4.ping_group_range)");
			return -1;
		}
	}
	if (r->ev_read == NULL)
		log_info("autorate: probing with a %s ICMP socket%s",
		    autorate_probe_kind(r->probe),
		    autorate_probe_fd6(r->probe) == -1 ? " (no IPv6)" : "");
	if (run_read_event(r, autorate_probe_fd(r->probe), &r->ev_read) ==
	    -1 || run_read_event(r, autorate_probe_fd6(r->probe),
	    &r->ev_read6) == -1)
		return -1;
	r->ev_tick = event_new(r->base, -1, EV_PERSIST, run_on_tick, r);
	tv.tv_sec = (time_t)(r->interval_ns / 1000000000ULL);
	tv.tv_usec = (suseconds_t)(r->interval_ns % 1000000000ULL / 1000);
	if (r->ev_tick == NULL || event_add(r->ev_tick, &tv) == -1)
		return -1;
	return 0;
}

/* Takes the pool and probe settings of cfg; every reflector anew. */
static void
run_pool_apply(struct autorate_run *r, const struct caked_config *cfg,
    uint64_t now_ns)
{
	unsigned int	i;

	r->npool = cfg->reflectors_n;
	/* 0: a configuration not from config_load(): the defaults */
	r->nactive = cfg->reflectors_active != 0 ? cfg->reflectors_active :
	    AUTORATE_DEF_ACTIVE;
	if (r->nactive > r->npool)
		r->nactive = r->npool;
	r->mode = cfg->autorate_probe;
	r->idle_after_ns = cfg->autorate_idle_after_ns != 0 ?
	    cfg->autorate_idle_after_ns : AUTORATE_DEF_IDLE_AFTER_NS;
	r->idle_interval_ns = cfg->autorate_idle_interval_ns != 0 ?
	    cfg->autorate_idle_interval_ns : AUTORATE_DEF_IDLE_INTERVAL_NS;
	memcpy(r->reflectors, cfg->reflectors, sizeof(r->reflectors));
	memset(r->refl, 0, sizeof(r->refl));
	autorate_delay_init(&r->delay, r->npool, now_ns);
	for (i = 0; i < r->npool; i++) {
		r->order[i] = i;
		run_refl_start(r, i, now_ns);
	}
	r->last_round_ns = 0;
	r->last_traffic_ns = now_ns;
	r->idle = false;
}

int
autorate_run_apply(struct autorate_run *r, const struct caked_config *cfg)
{
	struct cake_stats	st;
	uint64_t		now_ns = timer_now_ns();
	bool			on = false;
	int			i;

	r->interval_ns = cfg->autorate[0].interval_ns;
	/* the in-band signals: the passive delay and the delivery */
	r->inband = cfg->autorate_passive;
	r->acked_set = false;
	r->wire_scale = 0;
	if (r->interval_ns == 0)
		r->interval_ns = AUTORATE_DEF_INTERVAL_NS;
	for (i = 0; i < CONFIG_DIRS; i++) {
		memset(&r->dir[i], 0, sizeof(r->dir[i]));
		if (!cfg->autorate[i].enabled || r->cake[i] == NULL)
			continue;
		if (r->hooks.stats(r->hooks.arg, i, &st) == -1)
			memset(&st, 0, sizeof(st));	/* busy: from 0 */
		autorate_dir_init(&r->dir[i], &cfg->autorate[i],
		    st.sent_bytes, now_ns);
		on = true;
		log_info("%s: autorate on, %u reflector(s), %u probed",
		    config_dir_name(i), cfg->reflectors_n,
		    cfg->reflectors_active < cfg->reflectors_n ?
		    cfg->reflectors_active : cfg->reflectors_n);
	}
	if (run_events(r, on) == -1) {
		log_warnx("autorate: not running");
		return -1;
	}
	if (!on)
		return 0;
	if (cfg->autorate_probe == AUTORATE_PROBE_TIMESTAMP &&
	    !autorate_probe_can_timestamp(r->probe))
		log_warnx("autorate: timestamp requests need a raw ICMP "
		    "socket (root or CAP_NET_RAW at start): echo instead");
	run_pool_apply(r, cfg, now_ns);
	autorate_probe_set_targets(r->probe, cfg->reflectors,
	    cfg->reflectors_n);
	return 0;
}

void
autorate_run_acked(struct autorate_run *r, uint64_t sent, uint64_t acked)
{
	if (r == NULL)
		return;
	if (!r->acked_set) {
		r->last_tcp_sent = sent;
		r->last_tcp_acked = acked;
	}
	r->acked_set = true;
	r->tcp_sent = sent;
	r->tcp_acked = acked;
}

void
autorate_run_passive(struct autorate_run *r, int dir, uint64_t delay_ns,
    uint64_t baseline_ns, uint64_t now_ns)
{
	struct autorate_passive	*pv;

	if (r == NULL || dir < 0 || dir >= CONFIG_DIRS)
		return;
	pv = &r->passive[dir];
	pv->delay_ns = delay_ns;
	pv->baseline_ns = baseline_ns;
	pv->last_ns = now_ns;
}

void
autorate_run_rate_set(struct autorate_run *r, int dir, uint64_t rate_Bps)
{
	if (r == NULL || dir < 0 || dir >= CONFIG_DIRS ||
	    !r->dir[dir].p.enabled)
		return;
	autorate_dir_set_rate(&r->dir[dir], rate_Bps);
}

/* The pool in its order, active ones first, into v->refl[]. */
static void
run_view_pool(const struct autorate_run *r, struct autorate_run_view *v,
    uint64_t now_ns)
{
	const struct run_refl	*rf;
	unsigned int		 i, idx;

	for (i = 0; i < r->npool; i++) {
		idx = r->order[i];
		rf = &r->refl[idx];
		v->refl[i].addr = r->reflectors[idx];
		v->refl[i].active = i < r->nactive;
		v->refl[i].fresh = autorate_delay_fresh(&r->delay, idx,
		    now_ns);
		v->refl[i].kind = rf->kind;
		v->refl[i].sent = rf->sent;
		v->refl[i].answered = rf->answered;
		v->refl[i].lost = rf->lost;
		v->delay.refl[i] = r->delay.refl[idx];
		v->delay.owd[0][i] = r->delay.owd[0][idx];
		v->delay.owd[1][i] = r->delay.owd[1][idx];
	}
}

bool
autorate_run_view(const struct autorate_run *r, int dir,
    struct autorate_run_view *v)
{
	struct autorate_probe_stats	ps;
	uint64_t			now_ns = timer_now_ns();

	if (r == NULL || dir < 0 || dir >= CONFIG_DIRS ||
	    !r->dir[dir].p.enabled)
		return false;
	memset(v, 0, sizeof(*v));
	v->dir = r->dir[dir];
	v->delay = r->delay;
	run_view_pool(r, v, now_ns);
	v->passive = r->passive[dir];
	v->idle = r->idle;
	v->probe_interval_ns = run_round_ns(r);
	v->replacements = r->replacements;
	if (r->probe != NULL) {
		autorate_probe_stats(r->probe, &ps);
		v->probes_sent = ps.sent;
		v->probe_replies = ps.replies;
		v->probe_kernel_stamps = ps.kernel_stamps;
		v->probe_send_errors = ps.send_errors;
		v->probe_unmatched = ps.unmatched;
	}
	return true;
}

/* Microseconds of a delay, -1 (none) kept. */
static int64_t
run_us(int64_t ns)
{
	return ns < 0 ? -1 : ns / 1000;
}

/* One way's delta of a reflector (-1 unless it has one-way delays). */
static int64_t
run_owd_us(const struct autorate_run_view *v, int way, unsigned int i)
{
	return v->delay.owd[way][i].replies == 0 ? -1 :
	    v->delay.owd[way][i].delta_ns / 1000;
}

/* The reflectors array of a view. */
static void
run_json_reflectors(const struct autorate_run_view *v, unsigned int n,
    struct json_writer *w)
{
	const struct autorate_reflector	*rf;
	char				 a[INET6_ADDRSTRLEN];
	unsigned int			 i;

	json_array_begin(w, "reflectors");
	for (i = 0; i < n; i++) {
		rf = &v->delay.refl[i];
		json_object_begin(w, NULL);
		json_string(w, "address", run_addr(&v->refl[i].addr, a,
		    sizeof(a)));
		json_bool(w, "active", v->refl[i].active);
		json_string(w, "kind", v->refl[i].kind == PROBE_TIMESTAMP ?
		    "timestamp" : "echo");
		json_bool(w, "fresh", v->refl[i].fresh);
		json_uint(w, "baseline_us", rf->baseline_ns / 1000);
		json_int(w, "delta_us", rf->delta_ns / 1000);
		json_uint(w, "recent_us", (rf->baseline_ns +
		    (uint64_t)(rf->delta_ns > 0 ? rf->delta_ns : 0)) / 1000);
		json_uint(w, "rtt_us", rf->rtt_ns / 1000);
		json_int(w, "owd_up_delta_us", run_owd_us(v, 0, i));
		json_int(w, "owd_down_delta_us", run_owd_us(v, 1, i));
		json_uint(w, "sent", v->refl[i].sent);
		json_uint(w, "replies", v->refl[i].answered);
		json_uint(w, "lost", v->refl[i].lost);
		json_object_end(w);
	}
	json_array_end(w);
}

/* The signals of a direction: which one is used, and each one's delay. */
static void
run_json_signals(const struct autorate_run_view *v, struct json_writer *w)
{
	const struct autorate_dir	*d = &v->dir;

	json_string(w, "signal", autorate_signal_name(d->in.signal));
	json_int(w, "echo_delay_us", run_us(d->in.echo_ns));
	json_int(w, "owd_delay_us", run_us(d->in.owd_ns));
	json_int(w, "passive_delay_us", run_us(d->in.passive_ns));
	json_uint(w, "passive_baseline_us", v->passive.baseline_ns / 1000);
	json_bool(w, "idle", v->idle);
	json_uint(w, "probe_interval_us", v->probe_interval_ns / 1000);
	json_uint(w, "reflector_replacements", v->replacements);
}

void
autorate_run_json(const struct autorate_run *r, int dir, struct json_writer *w)
{
	struct autorate_run_view	 v;
	const struct autorate_dir	*d = &v.dir;

	if (!autorate_run_view(r, dir, &v))
		return;
	json_object_begin(w, "autorate");
	json_uint(w, "rate", d->rate_Bps);
	json_uint(w, "min", d->p.min_Bps);
	json_uint(w, "base", d->p.base_Bps);
	json_uint(w, "max", d->p.max_Bps);
	json_uint(w, "achieved", d->achieved_Bps);
	json_uint(w, "load_pct", d->load_pct);
	/* the bottleneck's delivery (B/s), -1 while unknown */
	json_int(w, "delivered", d->deliv_valid ? (int64_t)d->deliv_Bps : -1);
	json_int(w, "delay_us", d->delta_ns < 0 ? -1 : d->delta_ns / 1000);
	json_uint(w, "threshold_us", d->p.threshold_ns / 1000);
	json_uint(w, "queue_delay_us", d->queue_delay_us);
	json_string(w, "last_action", autorate_action_name(d->last_action));
	json_uint(w, "rises", d->rises);
	json_uint(w, "cuts", d->cuts);
	json_uint(w, "drifts", d->drifts);
	json_uint(w, "stalls", d->stalls);
	run_json_signals(&v, w);
	json_uint(w, "probes_sent", v.probes_sent);
	json_uint(w, "probe_replies", v.probe_replies);
	json_uint(w, "probe_kernel_stamps", v.probe_kernel_stamps);
	json_uint(w, "probe_send_errors", v.probe_send_errors);
	json_uint(w, "probe_unmatched", v.probe_unmatched);
	run_json_reflectors(&v, r->npool, w);
	json_object_end(w);
}

void
autorate_run_log_stats(const struct autorate_run *r)
{
	const struct autorate_dir	*d;
	struct autorate_run_view	 v;
	char				 a[INET6_ADDRSTRLEN];
	unsigned int			 i;
	int				 dir, any = -1;

	if (r == NULL)
		return;
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (!autorate_run_view(r, dir, &v))
			continue;
		any = dir;
		d = &v.dir;
		log_info("%s: autorate rate=%" PRIu64 " achieved=%" PRIu64
		    " load_pct=%u delay_us=%" PRId64 " signal=%s idle=%d"
		    " rises=%" PRIu64 " cuts=%" PRIu64 " drifts=%" PRIu64
		    " stalls=%" PRIu64, config_dir_name(dir), d->rate_Bps,
		    d->achieved_Bps, d->load_pct, run_us(d->delta_ns),
		    autorate_signal_name(d->in.signal), v.idle, d->rises,
		    d->cuts, d->drifts, d->stalls);
	}
	if (any == -1 || !autorate_run_view(r, any, &v))
		return;
	for (i = 0; i < r->npool; i++)
		log_info("autorate: reflector=%s active=%d kind=%s "
		    "baseline_us=%" PRIu64 " delta_us=%" PRId64 " replies=%"
		    PRIu64 " lost=%" PRIu64, run_addr(&v.refl[i].addr, a,
		    sizeof(a)), v.refl[i].active, v.refl[i].kind ==
		    PROBE_TIMESTAMP ? "timestamp" : "echo",
		    v.delay.refl[i].baseline_ns / 1000,
		    v.delay.refl[i].delta_ns / 1000, v.refl[i].answered,
		    v.refl[i].lost);
}

void
autorate_run_destroy(struct autorate_run *r)
{
	if (r == NULL)
		return;
	if (r->ev_tick != NULL)
		event_free(r->ev_tick);
	if (r->ev_read != NULL)
		event_free(r->ev_read);
	if (r->ev_read6 != NULL)
		event_free(r->ev_read6);
	autorate_probe_close(r->probe);
	free(r);
}
