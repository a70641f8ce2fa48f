/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop.c: one libevent base for the whole daemon. The directions are
 * moved by a packet loop (struct loop_pkt: the directions on one event
 * base and their departure timer); [general] threads = 1 puts both
 * directions in one packet loop on the main base, threads = 2 gives each
 * a thread of its own (doc/design.md, Threads: what they share, and how
 * NAT lookups work there). Read events on the two devices feed the
 * engines; one timerfd per packet loop, armed at the earliest instant
 * one of its engines may send (an absolute CLOCK_MONOTONIC deadline),
 * drives dequeues: each wakeup sends every packet due within the
 * departure horizon ([general] departure-horizon), and the timer is
 * armed for the first departure beyond it; a write event wakes a
 * direction whose egress device was full. A one-second timer reads the
 * devices' MTU: each direction counts the packets too large for its
 * egress device, and a device whose MTU exceeds what the read buffers
 * hold is logged (datapath.c).
 * Signals arrive as libevent events, so their work runs in the loop:
 * SIGTERM/SIGINT stop, SIGHUP reloads (parse, then swap), SIGUSR1 logs
 * statistics.
 *
 * Each callback reads the clock once and hands that now_ns to everyone.
 * The loop owns no devices, engines or pools; it must not parse packets or
 * configuration itself.
 *
 * This file holds the core: wakeups, timers, signals, reload and
 * create/run/destroy. Work main gives a packet thread is in loop_call.c,
 * the NAT glue in loop_nat.c, the control socket's callbacks in
 * loop_ctl.c, and the packet loops' threads in loop_thread.c; what they
 * share is declared in loop_int.h.
 */
#include <sys/prctl.h>

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "daemon/autorate_run.h"
#include "daemon/config.h"
#include "daemon/conntrack.h"
#include "daemon/ctlsock.h"
#include "daemon/datapath.h"
#include "daemon/httpd.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/loop.h"
#include "daemon/loop_int.h"
#include "daemon/notify.h"
#include "daemon/passive.h"
#include "daemon/ring.h"
#include "daemon/service.h"
#include "daemon/timer.h"
#include "daemon/tun.h"
#include "engine/tsrtt.h"

#define LOOP_TIMER_SLACK_NS	1	/* wake close to deadlines */
#define LOOP_TICK_NS		200000	/* period while deadlines crowd */
#define LOOP_MTU_POLL_S		1	/* devices' MTU read this often */
#define LOOP_TS_DRAIN_US	10000	/* main takes them this often */

static const int loop_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
_Static_assert(sizeof(loop_signals) / sizeof(loop_signals[0]) ==
    LOOP_SIGNALS, "loop_signals[] and LOOP_SIGNALS disagree");

/* Direction i's worker w (w < l->nworkers[i]). */
struct loop_dir *
loop_wdir(struct loop *l, int i, unsigned int w)
{
	return w == 0 ? &l->dir[i] : &l->wdir[i][w];
}

/* libevent's event_free() takes no NULL: frees *ev if set, then forgets it. */
void
loop_event_free(struct event **ev)
{
	if (*ev == NULL)
		return;
	event_free(*ev);
	*ev = NULL;
}

void
loop_stop(struct loop *l, int code)
{
	l->exit_code = code;
	if (notify_send("STOPPING=1") == -1)
		log_warn("notify STOPPING");
	event_base_loopbreak(l->base);
}

/*
 * A packet loop must stop caked: on a thread of its own it leaves its
 * loop and tells main, which stops the rest (and exits with code).
 */
void
loop_pkt_stop(struct loop_pkt *p, int code)
{
	struct loop_msg	m = { .kind = LOOP_MSG_EXIT, .code = code };

	if (!p->threaded) {
		loop_stop(p->loop, code);
		return;
	}
	if (inbox_post(p->outbox, &m) == -1)
		log_warn("packet thread: cannot tell main to stop");
	event_base_loopbreak(p->base);
}

/* Acts on a datapath status; returns 0 if the loop goes on. */
static int
loop_status(struct loop_dir *d, int status)
{
	struct event	*ev = d->ev_write[d->dp.held_queue];

	if (status == DATAPATH_BLOCKED && !event_pending(ev, EV_WRITE, NULL))
		event_add(ev, NULL);
	if (status != DATAPATH_GONE)
		return 0;
	errno = d->dp.gone_errno;
	log_warn("%s: device gone, stopping", d->dp.name);
	loop_pkt_stop(d->pkt, LOOP_EXIT_DEVICE);
	return -1;
}

/*
 * A deadline less than a tick away: the timer ticks every LOOP_TICK_NS
 * instead of being re-armed for every packet (timerfd_settime costs more
 * than the rest of a packet's way at high rates, and the shaper sends
 * what fell due in between). Returns whether the tick covers next.
 */
static bool
loop_tick(struct loop_pkt *p, uint64_t now_ns, uint64_t next)
{
	if (next == CAKE_TIME_NEVER || next >= now_ns + LOOP_TICK_NS) {
		p->ticking = false;	/* re-armed or disarmed by the caller */
		return false;
	}
	if (p->ticking)
		return true;
	if (timer_tick_ns(p->timer_fd, next, LOOP_TICK_NS) == -1) {
		log_warn("timer tick");
		loop_pkt_stop(p, LOOP_EXIT_FAILURE);
	}
	p->ticking = true;
	p->armed_ns = next;
	return true;
}

/* Arms p's timer for the earliest instant one of its directions needs. */
static void
loop_schedule(struct loop_pkt *p, uint64_t now_ns)
{
	uint64_t	next = CAKE_TIME_NEVER, t;
	uint32_t	sent = 0;
	unsigned int	i;

	for (i = 0; i < p->ndirs; i++) {
		t = datapath_next_ns(&p->dir[i]->dp, now_ns);
		if (t < next)
			next = t;
		sent += p->dir[i]->dp.last_tx;
	}
	/* An engine that asks for "now" but sent nothing must not spin us. */
	if (next != CAKE_TIME_NEVER && next <= now_ns && sent == 0) {
		next = now_ns + LOOP_SPIN_NS;
		atomic_fetch_add_explicit(&p->timer_spins, 1,
		    memory_order_relaxed);
	}
	if (next == p->armed_ns)
		return;
	if (loop_tick(p, now_ns, next))
		return;
	if (next == CAKE_TIME_NEVER) {
		if (timer_disarm(p->timer_fd) == -1)
			log_warn("timer disarm");
	} else if (timer_arm_ns(p->timer_fd, next) == -1) {
		log_warn("timer arm");
		loop_pkt_stop(p, LOOP_EXIT_FAILURE);
	}
	p->armed_ns = next;
}

/*
 * Sends in every direction with a departure within its horizon (all of
 * them that are), then re-arms the timer: for the first departure beyond
 * the horizon, so a wakeup carries a batch and not a packet.
 */
void
loop_service(struct loop_pkt *p, uint64_t now_ns)
{
	struct loop	*l = p->loop;
	struct loop_dir	*d;
	unsigned int	 i;

	for (i = 0; i < p->ndirs; i++) {
		d = p->dir[i];
		if (d->dp.held != NULL || datapath_next_ns(&d->dp, now_ns) >
		    now_ns + d->dp.horizon_ns)
			continue;
		if (loop_status(d, datapath_send(&d->dp, now_ns)) == -1)
			return;
	}
	for (i = 0; i < p->ndirs; i++)	/* a thread per worker */
		datapath_sync(&p->dir[i]->dp, now_ns);
	loop_schedule(p, now_ns);
	for (i = 0; i < p->ndirs; i++)
		p->dir[i]->dp.last_tx = 0;
	/* On a thread, main feeds the table (loop_on_ts()). */
	if (!p->threaded && l->setup.cfg->autorate_passive)
		passive_autorate(l->ts, l->ar, &l->passive_ns, now_ns);
}

/* The timer spins of every packet loop. */
uint64_t
loop_timer_spins(const struct loop *l)
{
	uint64_t	n = 0;
	unsigned int	i;

	for (i = 0; i < l->npkt; i++)
		n += atomic_load_explicit(&l->pkt[i].timer_spins,
		    memory_order_relaxed);
	return n;
}

static void
loop_on_read(evutil_socket_t fd, short what, void *arg)
{
	struct loop_dir	*d = arg;
	uint64_t	 now_ns = timer_now_ns();

	(void)what;
	if (loop_status(d, datapath_read_fd(&d->dp, fd, now_ns)) == 0)
		loop_service(d->pkt, now_ns);
}

static void
loop_on_write(evutil_socket_t fd, short what, void *arg)
{
	struct loop_dir	*d = arg;
	uint64_t	 now_ns = timer_now_ns();

	(void)fd;
	(void)what;
	if (loop_status(d, datapath_send(&d->dp, now_ns)) == 0)
		loop_service(d->pkt, now_ns);
}

void
loop_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt	*p = arg;

	(void)what;
	(void)timer_ack(fd);
	/*
	 * A one-shot timer that fired is spent: re-arm even if equal. A
	 * tick goes on, and must be seen when the queues empty.
	 */
	if (!p->ticking)
		p->armed_ns = CAKE_TIME_NEVER;
	loop_service(p, timer_now_ns());
}

/*
 * Device i (0 lan, 1 wan) has MTU mtu now: the direction leaving through
 * it follows; a change is logged, with a warning if the direction coming
 * in through it cannot hold such packets.
 */
struct loop_mtu {
	struct loop	*l;
	int		 dir;
	const char	*dev;
	uint32_t	 mtu;
};

static void
loop_mtu_fn(struct loop_pkt *p, void *arg)
{
	struct loop_mtu	*m = arg;
	struct datapath	*dp;
	unsigned int	 w;

	(void)p;
	for (w = 0; w < m->l->nworkers[m->dir]; w++) {
		dp = &loop_wdir(m->l, m->dir, w)->dp;
		dp->out_dev = m->dev;
		dp->out_mtu = m->mtu;
	}
}

static void
loop_mtu_set(struct loop *l, int i, uint32_t mtu)
{
	bool		 lan = i == 0;
	const char	*dev = l->dev[i];
	int		 out = lan ? CONFIG_DOWNLOAD : CONFIG_UPLOAD;
	uint32_t	 max = l->max_packet[lan ? CONFIG_UPLOAD :
			    CONFIG_DOWNLOAD];
	struct loop_mtu	 m = { l, out, dev, mtu };

	if (mtu == l->dev_mtu[i])
		return;
	if (loop_dcall(l, out, loop_mtu_fn, &m) == -1)
		return;		/* busy: the next poll tries again */
	if (l->dev_mtu[i] != 0)
		log_info("%s: device mtu %u (was %u)", dev, mtu,
		    l->dev_mtu[i]);
	l->dev_mtu[i] = mtu;
	if (mtu > max)
		log_warnx("%s: device mtu %u exceeds the largest packet "
		    "caked's buffers hold (%u): larger frames are dropped "
		    "(io rx_oversize); set [general] mtu and restart caked",
		    dev, mtu, max);
}

static void
loop_on_mtu(evutil_socket_t fd, short what, void *arg)
{
	struct loop	*l = arg;
	const char	*dev;
	uint32_t	 mtu;
	int		 i;

	(void)fd;
	(void)what;
	for (i = 0; i < CONFIG_DIRS; i++) {
		dev = l->dev[i];
		if (tun_get_mtu(dev, &mtu) == 0)
			loop_mtu_set(l, i, mtu);
	}
}

/* autorate's engine: direction dir's worker 0, where it runs. */
struct loop_ar {
	struct cake		*cake;
	struct cake_stats	*st;
	uint64_t		 rate_Bps;
	uint64_t		 now_ns;
	int			 rc;
};

static void
loop_ar_stats_fn(struct loop_pkt *p, void *arg)
{
	struct loop_ar	*a = arg;

	(void)p;
	cake_get_stats(a->cake, a->st);
}

static int
loop_ar_stats(void *arg, int dir, struct cake_stats *st)
{
	struct loop	*l = arg;
	struct loop_ar	 a = { .st = st };

	if (dir < 0 || dir >= CONFIG_DIRS ||
	    (a.cake = l->setup.cake[dir]) == NULL)
		return -1;
	return loop_dcall(l, dir, loop_ar_stats_fn, &a);
}

/* A new rate: the next departure may be earlier. */
static void
loop_ar_rate_fn(struct loop_pkt *p, void *arg)
{
	struct loop_ar		*a = arg;
	struct cake_config	 cc;

	cake_get_config(a->cake, &cc);
	cc.rate_Bps = a->rate_Bps;
	if ((a->rc = cake_change(a->cake, &cc, a->now_ns)) == CAKE_OK)
		loop_service(p, timer_now_ns());
}

static int
loop_ar_rate(void *arg, int dir, uint64_t rate_Bps, uint64_t now_ns)
{
	struct loop	*l = arg;
	struct loop_ar	 a = { .rate_Bps = rate_Bps, .now_ns = now_ns };

	if (dir < 0 || dir >= CONFIG_DIRS ||
	    (a.cake = l->setup.cake[dir]) == NULL)
		return CAKE_ERR_INVAL;
	if (loop_dcall(l, dir, loop_ar_rate_fn, &a) == -1)
		return LOOP_BUSY;
	return a.rc;
}

static int
loop_apply(struct loop *l, const struct caked_config *new)
{
	uint64_t	now_ns = timer_now_ns();
	int		i, err;

	for (i = 0; i < CONFIG_DIRS; i++) {
		if ((err = loop_change(l, i, &new->cake[i], now_ns)) ==
		    LOOP_BUSY) {
			log_warnx("%s: packet thread busy, options not "
			    "applied", config_dir_name(i));
			return -1;
		} else if (err != CAKE_OK) {
			log_warnx("%s: engine refused the new options: %s",
			    config_dir_name(i), cake_strerror(err));
			return -1;
		}
	}
	return 0;
}

/* CLOCK_REALTIME in ns, for time stamps shown to people and tools. */
uint64_t
loop_real_ns(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Parse, then swap. Returns 0, or -1 with a one-line reason in err. */
int
loop_reload(struct loop *l, char *err, size_t errlen)
{
	struct caked_config	 new;
	const char		*what;
	int			 rv = -1;

	if (notify_reloading(timer_now_ns()) == -1)
		log_warn("notify RELOADING");
	log_info("reloading %s", l->setup.path);
	if (config_load(l->setup.path, &new, config_report_log, NULL) == -1) {
		(void)snprintf(err, errlen, "%s has errors, not reloaded "
		    "(see the log)", l->setup.path);
		log_warnx("%s", err);
	} else if ((what = config_restart_needed(l->setup.cfg, &new)) !=
	    NULL) {
		(void)snprintf(err, errlen, "%s not reloaded: %s changed, "
		    "which needs a restart", l->setup.path, what);
		log_warnx("%s", err);
	} else if (loop_apply(l, &new) == -1)
		(void)snprintf(err, errlen, "%s not reloaded: the engine "
		    "refused the options", l->setup.path);
	else {
		*l->setup.cfg = new;
		loop_horizon(l);
		loop_nat(l, l->setup.cfg);
		(void)autorate_run_apply(l->ar, l->setup.cfg);
		if (!l->setup.keep_debug)
			log_setlevel(new.log_level);
		l->reloads++;
		l->reload_ok_real_ns = loop_real_ns();
		log_info("reloaded %s", l->setup.path);
		rv = 0;
	}
	if (rv == -1)
		l->reload_failures++;
	l->reload_ok = rv == 0;
	if (notify_send("READY=1") == -1)
		log_warn("notify READY");
	return rv;
}

static void
loop_log_fn(struct loop_pkt *p, void *arg)
{
	struct loop_dir	*d = arg;
	unsigned int	 w;

	(void)p;
	for (w = 0; w < d->loop->nworkers[d->index]; w++)
		datapath_log_stats(&loop_wdir(d->loop, d->index, w)->dp);
}

static void
loop_on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct loop		*l = arg;
	struct conntrack_stats	 cs;
	char			 err[CTLCMD_ERR_MAX];
	int			 i;

	(void)what;
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		log_info("signal %d: stopping", (int)sig);
		loop_stop(l, LOOP_EXIT_STOP);
		break;
	case SIGHUP:
		(void)loop_reload(l, err, sizeof(err));
		break;
	case SIGUSR1:
		for (i = 0; i < CONFIG_DIRS; i++)
			if (loop_dcall(l, i, loop_log_fn, &l->dir[i]) == -1)
				log_info("%s: busy, no statistics",
				    config_dir_name(i));
		log_info("loop: reloads=%llu reload_failures=%llu "
		    "timer_spins=%llu", (unsigned long long)l->reloads,
		    (unsigned long long)l->reload_failures,
		    (unsigned long long)loop_timer_spins(l));
		if (l->nat != NULL) {
			if (loop_nat_stats(l, &cs) == -1)
				log_info("nat: a packet thread is busy, its "
				    "cache not counted");
			conntrack_log_stats(&cs);
			loop_nat_log_lost(l);
		}
		autorate_run_log_stats(l->ar);
		break;
	}
}

/* Frames handed to d's worker: into its instance, then what is due. */
static void
loop_on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct loop_dir	*d = arg;
	uint64_t	 v, now_ns = timer_now_ns();

	(void)what;
	if (read(fd, &v, sizeof(v)) == -1 && errno != EAGAIN)
		log_warn("%s: worker %u wakeup", d->dp.name, d->worker);
	(void)datapath_take_handed(&d->dp, now_ns);
	loop_service(d->pkt, now_ns);
}

/* Worker 0's thread lends the direction's rate every period. */
static void
loop_on_lend(evutil_socket_t fd, short what, void *arg)
{
	struct loop_dir	*d = arg;

	(void)fd;
	(void)what;
	group_lend(d->dp.group, timer_now_ns());
}

/*
 * A thread per worker: d's eventfd and hand-off queues (from each other
 * worker's reader, and to each), and worker 0's lending timer.
 */
static int
loop_worker_events(struct loop *l, struct loop_dir *d)
{
	struct handoff	*out[GROUP_WORKERS_MAX] = { NULL };
	struct handoff	*in[GROUP_WORKERS_MAX] = { NULL };
	int		 wake[GROUP_WORKERS_MAX];
	struct timeval	 tv = { 0, GROUP_LEND_PERIOD_NS / 1000 };
	unsigned int	 j, n = l->nworkers[d->index];

	for (j = 0; j < GROUP_WORKERS_MAX; j++) {
		wake[j] = j < n ? loop_wdir(l, d->index, j)->wake_fd : -1;
		if (j >= n || j == d->worker)
			continue;
		out[j] = l->hand[d->index][d->worker][j];
		in[j] = l->hand[d->index][j][d->worker];
	}
	datapath_set_worker(&d->dp, d->worker, out, in, wake);
	d->ev_wake = event_new(d->pkt->base, d->wake_fd, EV_READ | EV_PERSIST,
	    loop_on_wake, d);
	if (d->ev_wake == NULL || event_add(d->ev_wake, NULL) == -1)
		return -1;
	if (d->worker != 0)
		return 0;
	d->ev_lend = event_new(d->pkt->base, -1, EV_PERSIST, loop_on_lend, d);
	if (d->ev_lend == NULL || event_add(d->ev_lend, &tv) == -1)
		return -1;
	return 0;
}

/*
 * Direction i's worker w (w = 0 alone unless a thread per worker) on
 * packet loop p: its datapath over the devices' queues, and their events.
 * Worker w reads the ingress queues q with q mod nworkers = w and may
 * write any egress queue; all keep the queues in the same order, so a
 * queue's busy bit means the same to every worker.
 */
static int
loop_dir_events(struct loop *l, struct loop_pkt *p, int i, unsigned int w)
{
	const struct loop_setup	*s = &l->setup;
	struct loop_dir		*d = loop_wdir(l, i, w);
	unsigned int		 q, n = s->queues > 1 ? s->queues : 1;
	unsigned int		 nw = l->nworkers[i];
	const int		*lan = n > 1 ? s->lan_fds : &s->lan_fd;
	const int		*wan = n > 1 ? s->wan_fds : &s->wan_fd;
	const int		*in = i == CONFIG_UPLOAD ? lan : wan;
	const int		*out = i == CONFIG_UPLOAD ? wan : lan;

	d->loop = l;
	d->pkt = p;
	d->index = i;
	d->worker = w;
	p->dir[p->ndirs++] = d;
	datapath_init(&d->dp, config_dir_name(i), in[0], out[0],
	    s->cfg->mode == CONFIG_MODE_TAP ? CAKE_LINK_ETHERNET :
	    CAKE_LINK_IP, s->group[i], w == 0 ? s->pool[i] : s->wpool[i][w]);
	datapath_set_queues(&d->dp, in, n, out, n);
	d->dp.hosts_by_dst = i == CONFIG_DOWNLOAD;
	if (p->threaded)
		datapath_set_tsrtt_ring(&d->dp, p->ts_ring, i == CONFIG_UPLOAD);
	else
		datapath_set_tsrtt(&d->dp, l->ts, i == CONFIG_UPLOAD);
	/* Writes avoid the queues the other direction finds flooded. */
	d->dp.hot = &l->dir[i].dp.in_hot;
	d->dp.out_hot = &l->dir[i == CONFIG_UPLOAD ? CONFIG_DOWNLOAD :
	    CONFIG_UPLOAD].dp.in_hot;
	if (nw > 1 && loop_worker_events(l, d) == -1)
		return -1;
	for (q = 0; q < n; q++) {
		d->ev_write[q] = event_new(p->base, out[q], EV_WRITE,
		    loop_on_write, d);
		if (d->ev_write[q] == NULL)
			return -1;
		if (q % nw != w)
			continue;
		d->ev_read[q] = event_new(p->base, in[q], EV_READ | EV_PERSIST,
		    loop_on_read, d);
		if (d->ev_read[q] == NULL || event_add(d->ev_read[q], NULL) ==
		    -1)
			return -1;
	}
	return 0;
}

/*
 * threads = 2: main feeds the passive delay's table with the segments
 * both packet threads saw, oldest first across the two rings.
 */
static void
loop_ts_feed(struct loop *l)
{
	struct datapath_seg	*h;
	size_t			 n = 0, max = l->npkt * LOOP_TS_SLOTS;
	unsigned int		 i;
	int			 k;

	while (n++ < max) {
		for (i = 0, k = -1; i < l->npkt; i++) {
			if (!l->ts_have[i])
				l->ts_have[i] = ring_pop(l->pkt[i].ts_ring,
				    &l->ts_head[i]);
			if (l->ts_have[i] && (k == -1 ||
			    l->ts_head[i].now_ns < l->ts_head[k].now_ns))
				k = (int)i;
		}
		if (k == -1)
			break;
		h = &l->ts_head[k];
		tsrtt_segment(l->ts, (enum tsrtt_event)h->ev, &h->seg,
		    h->now_ns);
		l->ts_no_timestamp[k] = h->no_timestamp;
		l->ts_bad_option[k] = h->bad_option;
		l->ts_have[k] = false;
	}
	l->ts->c.no_timestamp = l->ts->c.bad_option = 0;
	for (i = 0; i < l->npkt; i++) {
		l->ts->c.no_timestamp += l->ts_no_timestamp[i];
		l->ts->c.bad_option += l->ts_bad_option[i];
	}
}

static void
loop_on_ts(evutil_socket_t fd, short what, void *arg)
{
	struct loop	*l = arg;

	(void)fd;
	(void)what;
	loop_ts_feed(l);
	if (l->setup.cfg->autorate_passive)
		passive_autorate(l->ts, l->ar, &l->passive_ns,
		    timer_now_ns());
}

static int
loop_ts_events(struct loop *l)
{
	struct timeval	tv = { 0, LOOP_TS_DRAIN_US };

	l->ev_ts = event_new(l->base, -1, EV_PERSIST, loop_on_ts, l);
	if (l->ev_ts == NULL || event_add(l->ev_ts, &tv) == -1)
		return -1;
	return 0;
}

static int
loop_events(struct loop *l)
{
	struct timeval		 mtu_tv = { LOOP_MTU_POLL_S, 0 };
	unsigned int		 w;
	size_t			 i;

	for (i = 0; i < CONFIG_DIRS; i++)
		for (w = 0; w < l->nworkers[i]; w++)
			if (loop_dir_events(l, w > 0 ? l->wdir[i][w].pkt :
			    &l->pkt[l->npkt > 1 ? i : 0], (int)i, w) == -1)
				return -1;
	if (l->npkt > 1 && loop_ts_events(l) == -1)
		return -1;
	for (i = 0; i < CONFIG_DIRS; i++)	/* the pools' sizes stay */
		l->max_packet[i] = datapath_max_packet(&l->dir[i].dp);
	l->ev_mtu = event_new(l->base, -1, EV_PERSIST, loop_on_mtu, l);
	if (l->ev_mtu == NULL || event_add(l->ev_mtu, &mtu_tv) == -1)
		return -1;
	loop_on_mtu(-1, 0, l);
	loop_horizon(l);
	for (i = 0; i < LOOP_SIGNALS; i++) {
		l->ev_signal[i] = evsignal_new(l->base, loop_signals[i],
		    loop_on_signal, l);
		if (l->ev_signal[i] == NULL ||
		    evsignal_add(l->ev_signal[i], NULL) == -1)
			return -1;
	}
	return 0;
}

struct loop *
loop_create(const struct loop_setup *setup)
{
	struct loop			*l;
	unsigned int			 i, w;
	struct autorate_run_hooks	 hooks = { loop_ar_stats, loop_ar_rate,
					    NULL };

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		log_warn("%s", __func__);
		return NULL;
	}
	l->setup = *setup;
	hooks.arg = l;
	l->start_ns = timer_now_ns();
	l->reload_ok = true;	/* the configuration in force loaded fine */
	l->reload_ok_real_ns = loop_real_ns();
	for (i = 0; i < LOOP_PKTS_MAX; i++)
		l->pkt[i].timer_fd = -1;
	for (i = 0; i < CONFIG_DIRS; i++)
		for (w = 0; w < GROUP_WORKERS_MAX; w++)
			loop_wdir(l, (int)i, w)->wake_fd = -1;
	(void)snprintf(l->dev[0], sizeof(l->dev[0]), "%s", setup->cfg->lan);
	(void)snprintf(l->dev[1], sizeof(l->dev[1]), "%s", setup->cfg->wan);
	/* The default 50 us slack would add jitter to every deadline. */
	if (prctl(PR_SET_TIMERSLACK, LOOP_TIMER_SLACK_NS, 0, 0, 0) == -1)
		log_warn("prctl PR_SET_TIMERSLACK");
	if ((l->base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		goto fail;
	}
	if (loop_pkts_init(l) == -1)
		goto fail;
	if ((l->ar = autorate_run_create(l->base, setup->probe, l->setup.cake,
	    NULL, NULL)) == NULL || (l->ts = passive_create()) == NULL)
		goto fail;
	autorate_run_set_hooks(l->ar, &hooks);
	if (loop_events(l) == -1 || loop_ctl_start(l) == -1) {
		log_warnx("cannot set up the loop's events");
		goto fail;
	}
	loop_nat(l, l->setup.cfg);
	(void)autorate_run_apply(l->ar, l->setup.cfg);
	if ((l->svc = service_create(l->base, loop_status_line, l)) == NULL)
		goto fail;
	return l;
fail:
	loop_destroy(l);
	return NULL;
}

int
loop_run(struct loop *l)
{
	int	rc;

	l->exit_code = LOOP_EXIT_STOP;
	if (loop_threads_start(l) == -1)
		return LOOP_EXIT_FAILURE;
	rc = event_base_dispatch(l->base);
	loop_threads_stop(l);
	if (rc == -1) {
		log_warnx("event loop failed");
		return LOOP_EXIT_FAILURE;
	}
	return l->exit_code;
}

/* Direction d's events and what it still holds (threads stopped). */
static void
loop_dir_free(struct loop_dir *d)
{
	unsigned int	q;

	if (d->dp.group != NULL)
		datapath_flush(&d->dp);
	for (q = 0; q < TUN_QUEUES_MAX; q++) {
		loop_event_free(&d->ev_read[q]);
		loop_event_free(&d->ev_write[q]);
	}
	loop_event_free(&d->ev_wake);
	loop_event_free(&d->ev_lend);
	if (d->wake_fd != -1)
		(void)close(d->wake_fd);
	d->wake_fd = -1;
}

void
loop_destroy(struct loop *l)
{
	unsigned int	w;
	size_t		i;

	if (l == NULL)
		return;
	loop_threads_stop(l);	/* what they moved is main's again */
	for (i = 0; i < l->npkt; i++)
		loop_pkt_fini(&l->pkt[i]);
	for (i = 0; i < CONFIG_DIRS; i++)
		for (w = 0; w < GROUP_WORKERS_MAX; w++)
			loop_dir_free(loop_wdir(l, (int)i, w));
	service_destroy(l->svc);
	ctlsock_stop(l->setup.ctl);	/* its events use our base */
	httpd_stop(l->httpd);
	conntrack_close(l->nat);
	autorate_run_destroy(l->ar);
	passive_destroy(l->ts);
	for (i = 0; i < LOOP_SIGNALS; i++)
		loop_event_free(&l->ev_signal[i]);
	loop_event_free(&l->ev_mtu);
	loop_event_free(&l->ev_ts);
	for (i = 0; i < l->npkt; i++)
		loop_pkt_free(&l->pkt[i]);
	for (i = 0; i < CONFIG_DIRS; i++)
		loop_workers_free(l, (int)i);
	if (l->base != NULL)
		event_base_free(l->base);
	free(l->hosts_sum);
	free(l->ctl_scratch.flows);
	free(l->ctl_scratch.hosts);
	free(l);
}
