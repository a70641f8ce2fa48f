/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_run.c: the daemon side of autorate. Every autorate-interval one
 * timer event sends an ICMP echo to each reflector (autorate_probe.c) and ticks
 * the controller of each direction that has autorate on (autorate.c) with the
 * engine's sent-byte counter and queue delay; a new rate is applied with
 * cake_change(), which keeps the queued packets, and logged at debug level.
 * Replies arrive on the probe socket's read event and go straight into the
 * path-delay state of the reflectors; the passive delay of the traffic
 * comes in through autorate_run_passive(). At each tick every direction
 * gets its own input from these (autorate_input_get(): one-way delay,
 * passive or echo), and the debug log of a change names the signal.
 *
 * The probes leave through the router's own stack, not through caked's queues:
 * they measure the path beyond caked, which is what bloats.
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

struct autorate_run {
	struct event_base	*base;
	struct autorate_probe		*probe;
	struct event		*ev_read;
	struct event		*ev_tick;
	struct cake		*cake[CONFIG_DIRS];
	autorate_run_changed_fn	*changed;
	void			*arg;
	struct autorate_delay	 delay;
	struct autorate_dir	 dir[CONFIG_DIRS];
	struct autorate_passive	 passive[CONFIG_DIRS];
	struct in_addr		 reflectors[AUTORATE_REFLECTORS_MAX];
	uint64_t		 interval_ns;
	uint64_t		 apply_errors;
};

static void
run_on_reply(void *arg, unsigned int idx, uint64_t rtt_ns, uint64_t now_ns)
{
	struct autorate_run	*r = arg;

	autorate_delay_sample(&r->delay, idx, rtt_ns, now_ns);
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
	struct cake_config	 cc;
	char			 o[32], n[32];
	int			 rc;

	cake_get_config(r->cake[dir], &cc);
	cc.rate_Bps = d->rate_Bps;
	if ((rc = cake_change(r->cake[dir], &cc, now_ns)) != CAKE_OK) {
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
	    "load %u%%, queue %uus)", config_dir_name(dir),
	    autorate_action_name(d->last_action), o, n,
	    autorate_signal_name(d->in.signal),
	    d->delta_ns < 0 ? -1.0 : (double)d->delta_ns / 1e6, d->load_pct,
	    d->queue_delay_us);
	if (r->changed != NULL)
		r->changed(r->arg, dir, now_ns);
}

static void
run_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct autorate_run		*r = arg;
	struct cake_stats	 st;
	struct autorate_input	 in;
	uint64_t		 now_ns = timer_now_ns(), old;
	unsigned int		 i;
	int			 dir;

	(void)fd;
	(void)what;
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (!r->dir[dir].p.enabled || r->cake[dir] == NULL)
			continue;
		cake_get_stats(r->cake[dir], &st);
		old = r->dir[dir].rate_Bps;
		autorate_input_get(&in, &r->delay, run_way(dir),
		    &r->passive[dir], now_ns);
		if (autorate_dir_tick(&r->dir[dir], &in, st.sent_bytes,
		    run_queue_us(&st), now_ns))
			run_set(r, dir, now_ns, old);
	}
	if (r->probe != NULL)
		for (i = 0; i < r->delay.count; i++)
			(void)autorate_probe_send(r->probe, i, timer_now_ns());
}

struct autorate_run *
autorate_run_create(struct event_base *base, struct autorate_probe *probe,
    struct cake *cake[2], autorate_run_changed_fn *fn, void *arg)
{
	struct autorate_run	*r;
	int		 i;

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
	return r;
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
	if (r->ev_read == NULL) {
		r->ev_read = event_new(r->base, autorate_probe_fd(r->probe),
		    EV_READ | EV_PERSIST, run_on_read, r);
		if (r->ev_read == NULL || event_add(r->ev_read, NULL) == -1)
			return -1;
		log_info("autorate: probing with a %s ICMP socket",
		    autorate_probe_kind(r->probe));
	}
	r->ev_tick = event_new(r->base, -1, EV_PERSIST, run_on_tick, r);
	tv.tv_sec = (time_t)(r->interval_ns / 1000000000ULL);
	tv.tv_usec = (suseconds_t)(r->interval_ns % 1000000000ULL / 1000);
	if (r->ev_tick == NULL || event_add(r->ev_tick, &tv) == -1)
		return -1;
	return 0;
}

int
autorate_run_apply(struct autorate_run *r, const struct caked_config *cfg)
{
	struct cake_stats	st;
	uint64_t		now_ns = timer_now_ns();
	bool			on = false;
	int			i;

	r->interval_ns = cfg->autorate[0].interval_ns;
	if (r->interval_ns == 0)
		r->interval_ns = AUTORATE_DEF_INTERVAL_NS;
	memcpy(r->reflectors, cfg->reflectors, sizeof(r->reflectors));
	autorate_delay_init(&r->delay, cfg->reflectors_n, now_ns);
	for (i = 0; i < CONFIG_DIRS; i++) {
		memset(&r->dir[i], 0, sizeof(r->dir[i]));
		if (!cfg->autorate[i].enabled || r->cake[i] == NULL)
			continue;
		cake_get_stats(r->cake[i], &st);
		autorate_dir_init(&r->dir[i], &cfg->autorate[i],
		    st.sent_bytes, now_ns);
		on = true;
		log_info("%s: autorate on, %u reflector(s)",
		    config_dir_name(i), cfg->reflectors_n);
	}
	if (run_events(r, on) == -1) {
		log_warnx("autorate: not running");
		return -1;
	}
	if (on)
		autorate_probe_set_targets(r->probe, cfg->reflectors,
		    cfg->reflectors_n);
	return 0;
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

bool
autorate_run_view(const struct autorate_run *r, int dir,
    struct autorate_run_view *v)
{
	struct autorate_probe_stats	ps;
	uint64_t		now_ns = timer_now_ns();
	unsigned int		i;

	if (r == NULL || dir < 0 || dir >= CONFIG_DIRS ||
	    !r->dir[dir].p.enabled)
		return false;
	memset(v, 0, sizeof(*v));
	v->dir = r->dir[dir];
	v->delay = r->delay;
	memcpy(v->reflectors, r->reflectors, sizeof(v->reflectors));
	for (i = 0; i < r->delay.count; i++)
		v->fresh[i] = autorate_delay_fresh(&r->delay, i, now_ns);
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

void
autorate_run_json(const struct autorate_run *r, int dir, struct json_writer *w)
{
	struct autorate_run_view		 v;
	const struct autorate_dir	*d = &v.dir;
	const struct autorate_reflector	*rf;
	char				 a[INET_ADDRSTRLEN];
	unsigned int			 i;

	if (!autorate_run_view(r, dir, &v))
		return;
	json_object_begin(w, "autorate");
	json_uint(w, "rate", d->rate_Bps);
	json_uint(w, "min", d->p.min_Bps);
	json_uint(w, "base", d->p.base_Bps);
	json_uint(w, "max", d->p.max_Bps);
	json_uint(w, "achieved", d->achieved_Bps);
	json_uint(w, "load_pct", d->load_pct);
	json_int(w, "delay_us", d->delta_ns < 0 ? -1 : d->delta_ns / 1000);
	json_uint(w, "threshold_us", d->p.threshold_ns / 1000);
	json_uint(w, "queue_delay_us", d->queue_delay_us);
	json_string(w, "last_action", autorate_action_name(d->last_action));
	json_uint(w, "rises", d->rises);
	json_uint(w, "cuts", d->cuts);
	json_uint(w, "drifts", d->drifts);
	json_uint(w, "stalls", d->stalls);
	json_uint(w, "probes_sent", v.probes_sent);
	json_uint(w, "probe_replies", v.probe_replies);
	json_uint(w, "probe_kernel_stamps", v.probe_kernel_stamps);
	json_uint(w, "probe_send_errors", v.probe_send_errors);
	json_uint(w, "probe_unmatched", v.probe_unmatched);
	json_array_begin(w, "reflectors");
	for (i = 0; i < v.delay.count; i++) {
		rf = &v.delay.refl[i];
		if (inet_ntop(AF_INET, &v.reflectors[i], a, sizeof(a)) == NULL)
			a[0] = '\0';
		json_object_begin(w, NULL);
		json_string(w, "address", a);
		json_bool(w, "fresh", v.fresh[i]);
		json_uint(w, "baseline_us", rf->baseline_ns / 1000);
		json_int(w, "delta_us", rf->delta_ns / 1000);
		json_uint(w, "rtt_us", rf->rtt_ns / 1000);
		json_uint(w, "replies", rf->replies);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

void
autorate_run_log_stats(const struct autorate_run *r)
{
	const struct autorate_reflector	*rf;
	char				 a[INET_ADDRSTRLEN];
	unsigned int			 i;
	int				 dir;

	if (r == NULL)
		return;
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (!r->dir[dir].p.enabled)
			continue;
		log_info("%s: autorate rate=%" PRIu64 " achieved=%" PRIu64
		    " load_pct=%u delay_us=%" PRId64 " rises=%" PRIu64
		    " cuts=%" PRIu64 " drifts=%" PRIu64 " stalls=%" PRIu64,
		    config_dir_name(dir), r->dir[dir].rate_Bps,
		    r->dir[dir].achieved_Bps, r->dir[dir].load_pct,
		    r->dir[dir].delta_ns < 0 ? -1 : r->dir[dir].delta_ns /
		    1000, r->dir[dir].rises, r->dir[dir].cuts,
		    r->dir[dir].drifts, r->dir[dir].stalls);
	}
	for (i = 0; i < r->delay.count; i++) {
		rf = &r->delay.refl[i];
		if (inet_ntop(AF_INET, &r->reflectors[i], a, sizeof(a)) ==
		    NULL)
			a[0] = '\0';
		log_info("autorate: reflector=%s baseline_us=%" PRIu64
		    " delta_us=%" PRId64 " replies=%" PRIu64, a,
		    rf->baseline_ns / 1000, rf->delta_ns / 1000, rf->replies);
	}
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
	autorate_probe_close(r->probe);
	free(r);
}
