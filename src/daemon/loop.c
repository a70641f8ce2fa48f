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
 */
#include <sys/eventfd.h>
#include <sys/prctl.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/group.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/autorate_run.h"
#include "daemon/config.h"
#include "daemon/conntrack.h"
#include "daemon/ctlcmd.h"
#include "daemon/ctlsock.h"
#include "daemon/datapath.h"
#include "daemon/handoff.h"
#include "daemon/httpd.h"
#include "daemon/inbox.h"
#include "daemon/log.h"
#include "daemon/loop.h"
#include "daemon/natcache.h"
#include "daemon/notify.h"
#include "daemon/passive.h"
#include "daemon/reply.h"
#include "daemon/ring.h"
#include "daemon/service.h"
#include "daemon/timer.h"
#include "daemon/tun.h"
#include "engine/tsrtt.h"

#define LOOP_TIMER_SLACK_NS	1	/* wake close to deadlines */
#define LOOP_TICK_NS		200000	/* period while deadlines crowd */
#define LOOP_MTU_POLL_S		1	/* devices' MTU read this often */
#define LOOP_CALL_TIMEOUT_NS	500000000ULL	/* a packet thread answers */
#define LOOP_INBOX_SLOTS	64	/* messages waiting for a thread */
#define LOOP_TS_SLOTS		16384	/* TCP segments waiting for main */
#define LOOP_TS_DRAIN_US	10000	/* main takes them this often */
#define LOOP_NAT_IN_SLOTS	8192	/* conntrack's news for a thread */
#define LOOP_NAT_ASK_SLOTS	1024	/* a thread's misses for main */
#define LOOP_BUSY		INT_MIN	/* a packet thread did not answer */
#define LOOP_PKTS_MAX		(CONFIG_DIRS * GROUP_WORKERS_MAX)
#define LOOP_HAND_BYTES		(2U << 20)	/* a reader's queue to a worker */

static const int loop_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
#define LOOP_SIGNALS	(sizeof(loop_signals) / sizeof(loop_signals[0]))

struct loop_pkt;

/* Work main gives a packet thread; it runs there (see loop_call()). */
typedef void	loop_call_fn(struct loop_pkt *p, void *arg);

enum loop_msg_kind {
	LOOP_MSG_CALL,		/* main -> thread: run fn(arg), answer seq */
	LOOP_MSG_STOP,		/* main -> thread: leave the loop */
	LOOP_MSG_EXIT,		/* thread -> main: stop caked with code */
	LOOP_MSG_PARK,		/* main -> worker: wait for round seq's end */
};

struct loop_msg {
	int		 kind;
	int		 code;		/* LOOP_MSG_EXIT */
	uint64_t	 seq;		/* LOOP_MSG_CALL: reply_begin()'s */
	loop_call_fn	*fn;
	void		*arg;
};

struct loop_dir {
	struct loop	*loop;
	struct loop_pkt	*pkt;		/* the packet loop that moves it */
	int		 index;		/* CONFIG_UPLOAD or CONFIG_DOWNLOAD */
	unsigned int	 worker;	/* a thread per worker: which */
	int		 wake_fd;	/* its eventfd: frames handed to it */
	struct event	*ev_wake;
	struct event	*ev_lend;	/* worker 0: group_lend() each period */
	struct datapath	 dp;
	struct event	*ev_read[TUN_QUEUES_MAX];	/* a queue each */
	struct event	*ev_write[TUN_QUEUES_MAX];
};

/*
 * A packet loop: the directions one event base moves, with their own
 * departure timer. [general] threads = 1 runs one packet loop on the main
 * base that holds both directions (doc/design.md, Threads).
 */
struct loop_pkt {
	struct loop		*loop;
	struct event_base	*base;
	struct loop_dir		*dir[CONFIG_DIRS];
	unsigned int		 ndirs;
	struct event		*ev_timer;
	int			 timer_fd;
	uint64_t		 armed_ns;	/* CAKE_TIME_NEVER: disarmed */
	bool			 ticking;	/* periodic, see loop_tick() */
	_Atomic uint64_t	 timer_spins;	/* see LOOP_SPIN_NS */
	/* threads = 2: the loop runs on a thread of its own. */
	bool			 threaded;
	bool			 started;	/* thread is running */
	pthread_t		 thread;
	struct inbox		*inbox;		/* main -> thread */
	struct inbox		*outbox;	/* thread -> main */
	struct event		*ev_inbox;	/* on base */
	struct event		*ev_outbox;	/* on the main base */
	struct reply		 reply;		/* loop_call()'s answers */
	bool			 reply_ok;	/* reply initialised */
	struct ring		*ts_ring;	/* TCP segments, to main */
	uint64_t		 busy;		/* calls not answered in time */
	bool			 last_busy;	/* the last call was not */
	/* threads = 2 with nat or fwmark (see loop_nat()). */
	struct natcache		*nat_cache;	/* the thread's own */
	struct inbox		*nat_in;	/* main -> thread: learnt */
	struct inbox		*nat_ask;	/* to main: misses */
	struct event		*ev_nat_in;	/* on base */
	struct event		*ev_nat_ask;	/* on the main base */
};

/*
 * A thread per worker: main parks a direction's workers 1.. while worker
 * 0's thread does what main asks of the whole direction (loop_dcall()).
 */
struct loop_park {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;		/* parked changed, or released */
	uint64_t		 round;		/* a park message of another
						 * round is ignored */
	bool			 open;		/* round holds its threads */
	unsigned int		 parked;	/* threads parked in round */
	bool			 ok;		/* initialised */
};

struct loop {
	struct event_base	*base;
	struct loop_setup	 setup;
	struct loop_dir		 dir[CONFIG_DIRS];	/* (worker 0) */
	struct loop_dir		 wdir[CONFIG_DIRS][GROUP_WORKERS_MAX];	/* 1.. */
	unsigned int		 nworkers[CONFIG_DIRS];	/* threads each */
	struct handoff		*hand[CONFIG_DIRS][GROUP_WORKERS_MAX]
				    [GROUP_WORKERS_MAX];	/* from, to */
	struct loop_park	 park[CONFIG_DIRS];
	struct hostacct		*hosts_sum;	/* the workers' tables, merged */
	struct loop_pkt		 pkt[LOOP_PKTS_MAX];
	unsigned int		 npkt;		/* packet loops in use */
	struct event		*ev_signal[LOOP_SIGNALS];
	struct event		*ev_mtu;
	uint32_t		 dev_mtu[CONFIG_DIRS];	/* lan, wan */
	int			 exit_code;
	uint64_t		 reloads;
	uint64_t		 reload_failures;
	uint64_t		 start_ns;	/* CLOCK_MONOTONIC at creation */
	bool			 reload_ok;	/* the last reload, or start */
	uint64_t		 reload_ok_real_ns;	/* its CLOCK_REALTIME */
	struct ctlcmd_scratch	 ctl_scratch;	/* hosts/flows, made once */
	struct ctlcmd_ops	 ctl_ops;	/* control socket and /metrics */
	struct httpd		*httpd;		/* NULL: no metrics-listen */
	struct conntrack	*nat;		/* NULL: not needed or unavailable */
	bool			 nat_warned;	/* "unavailable" logged once */
	struct autorate_run		*ar;		/* autorate */
	struct tsrtt		*ts;		/* passive delay, both ways */
	uint64_t		 passive_ns;	/* last handed to autorate */
	struct service		*svc;		/* watchdog and STATUS= */
	char			 dev[CONFIG_DIRS][IFNAMSIZ];	/* lan, wan */
	uint32_t		 max_packet[CONFIG_DIRS];	/* by direction,
						 * read before threads start */
	/* threads = 2: the segments the packet threads pass to main */
	struct event		*ev_ts;
	struct datapath_seg	 ts_head[LOOP_PKTS_MAX];	/* taken, not fed */
	bool			 ts_have[LOOP_PKTS_MAX];
	uint64_t		 ts_no_timestamp[LOOP_PKTS_MAX];
	uint64_t		 ts_bad_option[LOOP_PKTS_MAX];
};

/* Direction i's worker w (w < l->nworkers[i]). */
static struct loop_dir *
loop_wdir(struct loop *l, int i, unsigned int w)
{
	return w == 0 ? &l->dir[i] : &l->wdir[i][w];
}

static void
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
static void
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
static void
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
static uint64_t
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

static void
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

/* ---- work on a packet thread -------------------------------------------- */

/*
 * Runs fn(p, arg) where p's packets move: here with threads = 1 (or
 * while p's thread is not running: set-up and tear-down); with threads =
 * 2 on p's thread, between two of its wakeups, while main waits (at most
 * LOOP_CALL_TIMEOUT_NS). arg lives on main's stack: an answer after main
 * gave up is refused (reply.c), so nothing writes into it late. 0, or -1
 * when the thread did not answer (busy).
 */
static int
loop_call(struct loop_pkt *p, loop_call_fn *fn, void *arg)
{
	struct loop_msg	m = { .kind = LOOP_MSG_CALL, .fn = fn, .arg = arg };

	if (!p->started) {
		fn(p, arg);
		return 0;
	}
	m.seq = reply_begin(&p->reply);
	p->last_busy = true;
	if (inbox_post(p->inbox, &m) == -1) {
		(void)reply_wait(&p->reply, m.seq, 0);	/* closes it */
		p->busy++;
		return -1;
	}
	if (!reply_wait(&p->reply, m.seq, LOOP_CALL_TIMEOUT_NS)) {
		p->busy++;
		return -1;
	}
	p->last_busy = false;
	return 0;
}

/*
 * A worker's thread: waits while main's round lasts (a message of a
 * round main already ended is ignored, so it never waits for nothing).
 */
static void
loop_parked(struct loop_park *pk, uint64_t round)
{
	(void)pthread_mutex_lock(&pk->mu);
	if (pk->round == round && pk->open) {
		pk->parked++;
		(void)pthread_cond_broadcast(&pk->cv);
		while (pk->round == round && pk->open)
			(void)pthread_cond_wait(&pk->cv, &pk->mu);
	}
	(void)pthread_mutex_unlock(&pk->mu);
}

/* Main: waits until n threads parked, at most LOOP_CALL_TIMEOUT_NS. */
static bool
loop_park_wait(struct loop_park *pk, unsigned int n)
{
	struct timespec	ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += LOOP_CALL_TIMEOUT_NS / 1000000000ULL;
	ts.tv_nsec += LOOP_CALL_TIMEOUT_NS % 1000000000ULL;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (pk->parked < n)
		if (pthread_cond_timedwait(&pk->cv, &pk->mu, &ts) != 0)
			break;
	return pk->parked >= n;
}

/* The packet thread's side: main's messages, between wakeups. */
static void
loop_on_inbox(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt	*p = arg;
	struct loop_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->inbox);
	while (inbox_take(p->inbox, &m)) {
		if (m.kind == LOOP_MSG_STOP) {
			event_base_loopbreak(p->base);
			continue;
		}
		if (m.kind == LOOP_MSG_PARK) {
			loop_parked(m.arg, m.seq);
			continue;
		}
		if (m.kind != LOOP_MSG_CALL || !reply_claim(&p->reply, m.seq))
			continue;	/* main gave up: write nothing */
		m.fn(p, m.arg);
		reply_done(&p->reply, m.seq);
	}
}

/*
 * Runs fn(p, arg) on direction dir's packet loop (worker 0's) with every
 * other worker thread of the direction parked, so that fn may read and
 * write the whole group and every worker's datapath; the park's mutex
 * orders their writes before fn's and fn's before their next. 0, or -1
 * when a thread did not park or answer in time (busy).
 */
static int
loop_dcall(struct loop *l, int dir, loop_call_fn *fn, void *arg)
{
	struct loop_park	*pk = &l->park[dir];
	struct loop_msg		 m = { .kind = LOOP_MSG_PARK, .arg = pk };
	unsigned int		 w, n = l->nworkers[dir];
	bool			 ok = true;
	int			 rc = -1;

	if (n < 2 || !l->dir[dir].pkt->started)
		return loop_call(l->dir[dir].pkt, fn, arg);
	(void)pthread_mutex_lock(&pk->mu);
	m.seq = ++pk->round;
	pk->open = true;
	pk->parked = 0;
	(void)pthread_mutex_unlock(&pk->mu);
	for (w = 1; w < n && ok; w++)
		ok = inbox_post(loop_wdir(l, dir, w)->pkt->inbox, &m) == 0;
	(void)pthread_mutex_lock(&pk->mu);
	ok = ok && loop_park_wait(pk, n - 1);
	(void)pthread_mutex_unlock(&pk->mu);
	if (ok)
		rc = loop_call(l->dir[dir].pkt, fn, arg);
	else {
		l->dir[dir].pkt->busy++;
		l->dir[dir].pkt->last_busy = true;
	}
	(void)pthread_mutex_lock(&pk->mu);
	pk->open = false;
	(void)pthread_cond_broadcast(&pk->cv);
	(void)pthread_mutex_unlock(&pk->mu);
	return rc;
}

/* Main's side: a packet thread asks caked to stop. */
static void
loop_on_outbox(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt	*p = arg;
	struct loop_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->outbox);
	while (inbox_take(p->outbox, &m))
		if (m.kind == LOOP_MSG_EXIT)
			loop_stop(p->loop, m.code);
}

/* What a snapshot asks of a direction's engines (NULL: not that). */
struct loop_snap {
	struct group		*g;
	struct cake_stats	*st;
	struct cake_config	*cfg;
	struct cake_flow_stats	*flows;
	unsigned int		 max;
	unsigned int		 got;
};

static void
loop_snap_fn(struct loop_pkt *p, void *arg)
{
	struct loop_snap	*s = arg;

	(void)p;
	if (s->st != NULL)
		group_get_stats(s->g, s->st);
	if (s->cfg != NULL)
		group_get_config(s->g, s->cfg);
	if (s->flows != NULL)
		s->got = group_get_flows(s->g, s->flows, s->max);
}

/* A consistent copy of direction dir's engines; -1: none, or busy. */
static int
loop_snapshot(struct loop *l, int dir, struct loop_snap *s)
{
	if (dir < 0 || dir >= CONFIG_DIRS || l->setup.group[dir] == NULL)
		return -1;
	s->g = l->setup.group[dir];
	return loop_dcall(l, dir, loop_snap_fn, s);
}

struct loop_change {
	struct loop			*l;
	int				 dir;
	struct group			*g;
	const struct cake_config	*cfg;
	uint64_t			 now_ns;
	int				 rc;
};

/* As tc change; packets of tins that went away come back as drops. */
static void
loop_change_fn(struct loop_pkt *p, void *arg)
{
	struct loop_change	*c = arg;
	unsigned int		 w;

	if ((c->rc = group_change(c->g, c->cfg, c->now_ns)) != CAKE_OK)
		return;
	/* The other workers are parked (loop_dcall()): theirs too. */
	for (w = 0; w < c->l->nworkers[c->dir]; w++)
		datapath_reap(&loop_wdir(c->l, c->dir, w)->dp);
	loop_service(p, timer_now_ns());
}

/* group_change() on dir's thread: its result, or LOOP_BUSY. */
static int
loop_change(struct loop *l, int dir, const struct cake_config *cfg,
    uint64_t now_ns)
{
	struct loop_change	c = { l, dir, l->setup.group[dir], cfg,
				    now_ns, CAKE_OK };

	if (loop_dcall(l, dir, loop_change_fn, &c) == -1)
		return LOOP_BUSY;
	return c.rc;
}

struct loop_set64 {
	struct loop	*l;
	int		 dir;
	uint64_t	 v;
};

/* Every worker's horizon (the others are parked: loop_dcall()). */
static void
loop_horizon_fn(struct loop_pkt *p, void *arg)
{
	struct loop_set64	*s = arg;
	unsigned int		 w;

	(void)p;
	for (w = 0; w < s->l->nworkers[s->dir]; w++)
		loop_wdir(s->l, s->dir, w)->dp.horizon_ns = s->v;
}

/* [general] departure-horizon, at start and on each reload. */
static void
loop_horizon(struct loop *l)
{
	struct loop_set64	s;
	int			i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		s.l = l;
		s.dir = i;
		s.v = (uint64_t)l->setup.cfg->horizon_us * 1000;
		if (loop_dcall(l, i, loop_horizon_fn, &s) == -1)
			log_warnx("%s: busy, departure-horizon not changed",
			    config_dir_name(i));
	}
}

/* ---- NAT: conntrack on main, a cache per packet thread ----------------- */

/* What loop_nat_fn() gives a packet loop's directions. */
struct loop_natset {
	struct conntrack	*ct;
	bool			 nat[CONFIG_DIRS];
	bool			 mark[CONFIG_DIRS];
	uint32_t		 size;
	uint64_t		 expiry_ns;
	int			 rc;
};

/* The packet thread's side: what main's conntrack learnt, into its cache. */
static void
loop_on_nat_in(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt		*p = arg;
	struct natcache_msg	 m;

	(void)fd;
	(void)what;
	inbox_ack(p->nat_in);
	while (inbox_take(p->nat_in, &m))
		(void)natcache_apply(p->nat_cache, &m);
}

/* Main's side: a packet thread's misses become conntrack queries. */
static void
loop_on_nat_ask(evutil_socket_t fd, short what, void *arg)
{
	struct loop_pkt		*p = arg;
	struct cake_tuple	 t;
	uint64_t		 now_ns = timer_now_ns();

	(void)fd;
	(void)what;
	inbox_ack(p->nat_ask);
	while (inbox_take(p->nat_ask, &t))
		if (p->loop->nat != NULL)
			conntrack_ask(p->loop->nat, &t, now_ns);
}

/*
 * conntrack's sink with threads = 2: each thread gets every connection
 * (its cache then answers the lookups of its own direction). A full
 * inbox loses the news, counted; the thread's next miss asks again.
 */
static void
loop_nat_sink(void *arg, const struct natcache_msg *m)
{
	struct loop	*l = arg;
	unsigned int	 i;

	for (i = 0; i < l->npkt; i++)
		if (l->pkt[i].nat_in != NULL)
			(void)inbox_post(l->pkt[i].nat_in, m);
}

/*
 * On p's thread (or before it starts): its cache, made on first use by
 * the thread that owns it, with the event that fills it on p's base.
 */
static int
loop_nat_cache(struct loop_pkt *p, const struct loop_natset *s)
{
	uint64_t	seed = timer_now_ns() ^ (uint64_t)(uintptr_t)p;
	unsigned int	i;

	if (p->nat_cache != NULL) {
		natcache_set_expiry(p->nat_cache, s->expiry_ns);
		return 0;
	}
	if ((p->ev_nat_in = event_new(p->base, inbox_fd(p->nat_in),
	    EV_READ | EV_PERSIST, loop_on_nat_in, p)) == NULL)
		return -1;
	if ((p->nat_cache = natcache_create(s->size, s->expiry_ns, seed)) ==
	    NULL || event_add(p->ev_nat_in, NULL) == -1) {
		natcache_destroy(p->nat_cache);
		p->nat_cache = NULL;
		event_free(p->ev_nat_in);
		p->ev_nat_in = NULL;
		return -1;
	}
	for (i = 0; i < p->ndirs; i++)
		datapath_set_natcache(&p->dir[i]->dp, p->nat_cache, p->nat_ask,
		    p->dir[i]->index == CONFIG_DOWNLOAD);
	return 0;
}

/* Where p's packets move: their lookups and what they take from them. */
static void
loop_nat_fn(struct loop_pkt *p, void *arg)
{
	struct loop_natset	*s = arg;
	struct loop_dir		*d;
	unsigned int		 i;
	int			 dir;

	if (p->threaded && (s->rc = loop_nat_cache(p, s)) == -1)
		return;
	for (i = 0; i < p->ndirs; i++) {
		d = p->dir[i];
		dir = d->index;
		if (!p->threaded)
			datapath_set_conntrack(&d->dp, s->ct,
			    dir == CONFIG_DOWNLOAD);
		datapath_set_nat(&d->dp, s->nat[dir], s->mark[dir]);
	}
}

/* threads = 2, on main: p's inboxes to and from its cache. */
static int
loop_nat_inboxes(struct loop *l, struct loop_pkt *p)
{
	if (p->nat_in != NULL)
		return 0;
	if ((p->nat_in = inbox_create(LOOP_NAT_IN_SLOTS,
	    sizeof(struct natcache_msg))) == NULL ||
	    (p->nat_ask = inbox_create(LOOP_NAT_ASK_SLOTS,
	    sizeof(struct cake_tuple))) == NULL ||
	    (p->ev_nat_ask = event_new(l->base, inbox_fd(p->nat_ask),
	    EV_READ | EV_PERSIST, loop_on_nat_ask, p)) == NULL ||
	    event_add(p->ev_nat_ask, NULL) == -1)
		return -1;
	return 0;
}

/* Opens conntrack (and the threads' inboxes); warns once if it cannot. */
static void
loop_nat_open(struct loop *l, const struct caked_config *cfg)
{
	char		why[128] = "";
	unsigned int	i;

	l->nat = conntrack_open(l->base, cfg->nat_cache_size,
	    cfg->nat_cache_expiry_s * 1000000000ULL, why, sizeof(why));
	for (i = 0; l->nat != NULL && i < l->npkt && l->pkt[i].threaded; i++)
		if (loop_nat_inboxes(l, &l->pkt[i]) == -1) {
			(void)snprintf(why, sizeof(why), "packet thread "
			    "inbox: %s", strerror(errno));
			conntrack_close(l->nat);
			l->nat = NULL;
		}
	if (l->nat == NULL) {
		log_warnx("conntrack unavailable (%s): nat and fwmark marks "
		    "disabled, shaping continues", why);
		l->nat_warned = true;
		return;
	}
	if (l->npkt > 1)
		conntrack_set_sink(l->nat, loop_nat_sink, l);
	log_info("conntrack: NAT cache of %u entries%s, expiry %us",
	    cfg->nat_cache_size, l->npkt > 1 ? " per packet thread" : "",
	    cfg->nat_cache_expiry_s);
}

/*
 * Opens conntrack the first time a direction needs it (nat or fwmark),
 * then tells each packet loop what to look up; when conntrack cannot be
 * used, warns once and shapes on without it.
 */
static void
loop_nat(struct loop *l, const struct caked_config *cfg)
{
	struct loop_natset	s = { .size = cfg->nat_cache_size,
				    .expiry_ns = cfg->nat_cache_expiry_s *
				    1000000000ULL };
	int			i, need = 0;

	for (i = 0; i < CONFIG_DIRS; i++) {
		s.nat[i] = cfg->cake[i].nat;
		s.mark[i] = cfg->cake[i].fwmark_mask != 0;
		need |= s.nat[i] || s.mark[i];
	}
	if (l->nat == NULL && need && !l->nat_warned)
		loop_nat_open(l, cfg);
	if ((s.ct = l->nat) == NULL)
		return;
	conntrack_set_expiry(l->nat, s.expiry_ns);
	for (i = 0; i < (int)l->npkt; i++)
		if (loop_call(&l->pkt[i], loop_nat_fn, &s) == -1 || s.rc == -1)
			log_warnx("%s: busy or out of memory, nat and fwmark "
			    "not applied", l->pkt[i].dir[0]->dp.name);
}

/*
 * threads = 2: messages lost to full NAT inboxes, summed over the packet
 * threads (each is asked or learnt again later, but many mean the inboxes
 * are too small). false when there are no such inboxes (threads = 1).
 */
static bool
loop_nat_lost(const struct loop *l, uint64_t *news, uint64_t *asks)
{
	unsigned int	i;
	bool		any = false;

	*news = *asks = 0;
	for (i = 0; i < l->npkt; i++) {
		if (l->pkt[i].nat_in == NULL)
			continue;
		*news += inbox_refused(l->pkt[i].nat_in);
		*asks += inbox_refused(l->pkt[i].nat_ask);
		any = true;
	}
	return any;
}

/* SIGUSR1: the same sums as stats' inbox_lost_news and inbox_lost_asks. */
static void
loop_nat_log_lost(const struct loop *l)
{
	uint64_t	news, asks;

	if (!loop_nat_lost(l, &news, &asks))
		return;
	log_info("nat: packet threads' inboxes full: %llu conntrack news "
	    "and %llu questions lost", (unsigned long long)news,
	    (unsigned long long)asks);
}

/* NAT counters: conntrack's, with the threads' caches summed. */
static void
loop_nat_stats_fn(struct loop_pkt *p, void *arg)
{
	struct natcache_stats	*sum = arg, c;

	if (p->nat_cache == NULL)
		return;
	natcache_get_stats(p->nat_cache, &c);
	sum->hits += c.hits;
	sum->neg_hits += c.neg_hits;
	sum->misses += c.misses;
	sum->inserts += c.inserts;
	sum->updates += c.updates;
	sum->evictions += c.evictions;
	sum->expiries += c.expiries;
	sum->removals += c.removals;
	sum->entries += c.entries;
	sum->size += c.size;
}

/* A busy thread's cache is left out of the sums (-1 then). */
static int
loop_nat_stats(struct loop *l, struct conntrack_stats *st)
{
	unsigned int	i;
	int		rc = 0;

	conntrack_get_stats(l->nat, st);
	if (l->npkt < 2)
		return 0;
	memset(&st->cache, 0, sizeof(st->cache));
	for (i = 0; i < l->npkt; i++)
		if (loop_call(&l->pkt[i], loop_nat_stats_fn, &st->cache) ==
		    -1)
			rc = -1;
	return rc;
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
static uint64_t
loop_real_ns(void)
{
	struct timespec	ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Parse, then swap. Returns 0, or -1 with a one-line reason in err. */
static int
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
static void
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

static int
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

/* A packet loop on base, with its own departure timer. */
static int
loop_pkt_init(struct loop *l, struct loop_pkt *p, struct event_base *base)
{
	p->loop = l;
	p->base = base;
	p->armed_ns = CAKE_TIME_NEVER;
	if ((p->timer_fd = timer_open()) == -1) {
		log_warn("timerfd");
		return -1;
	}
	p->ev_timer = event_new(base, p->timer_fd, EV_READ | EV_PERSIST,
	    loop_on_timer, p);
	if (p->ev_timer == NULL || event_add(p->ev_timer, NULL) == -1) {
		log_warnx("cannot set up the departure timer");
		return -1;
	}
	return 0;
}

/*
 * threads = 2: p gets a base of its own, its inbox from main (watched on
 * that base), its outbox to main (watched on main's) and the ring of TCP
 * segments for main's passive delay table.
 */
static int
loop_pkt_thread_init(struct loop *l, struct loop_pkt *p)
{
	p->threaded = true;
	if (reply_init(&p->reply) == -1) {
		log_warn("packet thread reply");
		return -1;
	}
	p->reply_ok = true;
	if ((p->base = event_base_new()) == NULL ||
	    (p->inbox = inbox_create(LOOP_INBOX_SLOTS,
	    sizeof(struct loop_msg))) == NULL ||
	    (p->outbox = inbox_create(LOOP_INBOX_SLOTS,
	    sizeof(struct loop_msg))) == NULL ||
	    (p->ts_ring = ring_create(LOOP_TS_SLOTS,
	    sizeof(struct datapath_seg))) == NULL) {
		log_warn("packet thread");
		return -1;
	}
	p->ev_inbox = event_new(p->base, inbox_fd(p->inbox),
	    EV_READ | EV_PERSIST, loop_on_inbox, p);
	p->ev_outbox = event_new(l->base, inbox_fd(p->outbox),
	    EV_READ | EV_PERSIST, loop_on_outbox, p);
	if (p->ev_inbox == NULL || p->ev_outbox == NULL ||
	    event_add(p->ev_inbox, NULL) == -1 ||
	    event_add(p->ev_outbox, NULL) == -1) {
		log_warnx("cannot set up a packet thread's messages");
		return -1;
	}
	return 0;
}

static void
loop_pkt_fini(struct loop_pkt *p)
{
	if (p->ev_timer != NULL)
		event_free(p->ev_timer);
	p->ev_timer = NULL;
	if (p->timer_fd != -1)
		(void)close(p->timer_fd);
	p->timer_fd = -1;
	if (p->ev_inbox != NULL)
		event_free(p->ev_inbox);
	if (p->ev_outbox != NULL)
		event_free(p->ev_outbox);
	p->ev_inbox = p->ev_outbox = NULL;
	if (p->ev_nat_in != NULL)
		event_free(p->ev_nat_in);
	if (p->ev_nat_ask != NULL)
		event_free(p->ev_nat_ask);
	p->ev_nat_in = p->ev_nat_ask = NULL;
}

/* What loop_pkt_fini() leaves: the base and messages, once unused. */
static void
loop_pkt_free(struct loop_pkt *p)
{
	if (!p->threaded)
		return;
	if (p->base != NULL)
		event_base_free(p->base);
	inbox_destroy(p->inbox);
	inbox_destroy(p->outbox);
	inbox_destroy(p->nat_in);
	inbox_destroy(p->nat_ask);
	natcache_destroy(p->nat_cache);
	ring_destroy(p->ts_ring);
	if (p->reply_ok)
		reply_fini(&p->reply);
	p->base = NULL;
	p->inbox = p->outbox = p->nat_in = p->nat_ask = NULL;
	p->nat_cache = NULL;
	p->ts_ring = NULL;
	p->reply_ok = false;
}

static void *
loop_pkt_main(void *arg)
{
	struct loop_pkt	*p = arg;

	if (event_base_dispatch(p->base) == -1) {
		log_warnx("%s: packet thread's event loop failed",
		    p->dir[0]->dp.name);
		loop_pkt_stop(p, LOOP_EXIT_FAILURE);
	}
	return NULL;
}

/* Stops and joins the packet threads that run. */
static void
loop_threads_stop(struct loop *l)
{
	struct loop_msg	m = { .kind = LOOP_MSG_STOP };
	unsigned int	i, tries;

	for (i = 0; i < l->npkt; i++) {
		if (!l->pkt[i].started)
			continue;
		for (tries = 0; inbox_post(l->pkt[i].inbox, &m) == -1 &&
		    tries < 1000; tries++)
			(void)usleep(1000);	/* full: it is draining */
		(void)pthread_join(l->pkt[i].thread, NULL);
		l->pkt[i].started = false;
	}
}

/* caked-upload, caked-download; a thread per worker: caked-up-1, ... */
static void
loop_thread_name(struct loop_pkt *p)
{
	const struct loop_dir	*d = p->dir[0];
	char			 name[32];	/* at most 15 used */

	if (d->worker == 0)
		(void)snprintf(name, sizeof(name), "caked-%s", d->dp.name);
	else
		(void)snprintf(name, sizeof(name), "caked-%s-%u",
		    d->index == CONFIG_UPLOAD ? "up" : "down", d->worker);
	(void)pthread_setname_np(p->thread, name);
}

/*
 * Starts the packet threads with every signal blocked in them, so that
 * signals reach main's loop. -1 if one cannot start (none then runs).
 */
static int
loop_threads_start(struct loop *l)
{
	sigset_t	all, old;
	unsigned int	i;
	int		rc = 0;

	(void)sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_BLOCK, &all, &old)) != 0)
		goto fail;
	for (i = 0; i < l->npkt && rc == 0; i++) {
		if (!l->pkt[i].threaded)
			continue;
		if ((rc = pthread_create(&l->pkt[i].thread, NULL,
		    loop_pkt_main, &l->pkt[i])) == 0) {
			l->pkt[i].started = true;
			loop_thread_name(&l->pkt[i]);
		}
	}
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		return 0;
fail:
	errno = rc;
	log_warn("cannot start the packet threads");
	loop_threads_stop(l);
	return -1;
}

/* A condition variable on CLOCK_MONOTONIC (loop_park_wait()). */
static int
loop_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t	a;
	int			rc;

	if ((rc = pthread_condattr_init(&a)) != 0)
		return rc;
	if ((rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC)) == 0)
		rc = pthread_cond_init(cv, &a);
	(void)pthread_condattr_destroy(&a);
	return rc;
}

/*
 * A thread per worker for direction i: a packet loop for each of workers
 * 1.., an eventfd per worker, and a hand-off queue from each worker's
 * reader to each other worker.
 */
static int
loop_workers_init(struct loop *l, int i)
{
	struct loop_dir	*d;
	unsigned int	 w, j, n = group_workers(l->setup.group[i]);

	if (n < 2 || l->setup.wpool[i][1] == NULL)
		return 0;
	if ((l->hosts_sum == NULL && (l->hosts_sum = malloc(
	    sizeof(*l->hosts_sum))) == NULL) || pthread_mutex_init(
	    &l->park[i].mu, NULL) != 0)
		return -1;
	if (loop_cond_init(&l->park[i].cv) != 0) {
		(void)pthread_mutex_destroy(&l->park[i].mu);
		return -1;
	}
	l->park[i].ok = true;
	l->nworkers[i] = n;
	for (w = 0; w < n; w++) {
		d = loop_wdir(l, i, w);
		if ((d->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
			return -1;
		for (j = 0; j < n; j++)
			if (j != w && (l->hand[i][w][j] =
			    handoff_create(LOOP_HAND_BYTES)) == NULL)
				return -1;
		if (w == 0)
			continue;
		d->pkt = &l->pkt[l->npkt++];
		if (loop_pkt_thread_init(l, d->pkt) == -1 ||
		    loop_pkt_init(l, d->pkt, d->pkt->base) == -1)
			return -1;
	}
	return 0;
}

/* One packet loop on main's base, a thread per direction or per worker. */
static int
loop_pkts_init(struct loop *l)
{
	unsigned int	i;

	for (i = 0; i < CONFIG_DIRS; i++)
		l->nworkers[i] = 1;
	l->npkt = l->setup.cfg->threads > 1 ? CONFIG_DIRS : 1;
	if (l->npkt == 1)
		return loop_pkt_init(l, &l->pkt[0], l->base);
	for (i = 0; i < CONFIG_DIRS; i++)
		if (loop_pkt_thread_init(l, &l->pkt[i]) == -1 ||
		    loop_pkt_init(l, &l->pkt[i], l->pkt[i].base) == -1)
			return -1;
	for (i = 0; i < CONFIG_DIRS; i++)
		if (loop_workers_init(l, (int)i) == -1) {
			log_warn("%s: a thread per worker",
			    config_dir_name((int)i));
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
		if (d->ev_read[q] != NULL)
			event_free(d->ev_read[q]);
		if (d->ev_write[q] != NULL)
			event_free(d->ev_write[q]);
	}
	if (d->ev_wake != NULL)
		event_free(d->ev_wake);
	if (d->ev_lend != NULL)
		event_free(d->ev_lend);
	if (d->wake_fd != -1)
		(void)close(d->wake_fd);
	d->wake_fd = -1;
}

/* A thread per worker: the hand-off queues and the park. */
static void
loop_workers_free(struct loop *l, int i)
{
	unsigned int	w, j;

	for (w = 0; w < GROUP_WORKERS_MAX; w++)
		for (j = 0; j < GROUP_WORKERS_MAX; j++)
			handoff_destroy(l->hand[i][w][j]);
	if (!l->park[i].ok)
		return;
	(void)pthread_cond_destroy(&l->park[i].cv);
	(void)pthread_mutex_destroy(&l->park[i].mu);
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
		if (l->ev_signal[i] != NULL)
			event_free(l->ev_signal[i]);
	if (l->ev_mtu != NULL)
		event_free(l->ev_mtu);
	if (l->ev_ts != NULL)
		event_free(l->ev_ts);
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
