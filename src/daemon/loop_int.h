/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop_int.h: what the pieces of the event loop share: loop.c (wakeups,
 * timers, signals, create/run/destroy), loop_call.c (work main gives a
 * packet thread), loop_nat.c (conntrack and the threads' NAT caches),
 * loop_ctl.c (control socket, /metrics and STATUS=) and loop_thread.c
 * (packet loops and their threads, set up and torn down). Internal to the
 * loop: other modules include loop.h only.
 */
#ifndef CAKED_DAEMON_LOOP_INT_H
#define CAKED_DAEMON_LOOP_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "caked/group.h"
#include "daemon/config.h"
#include "daemon/ctlcmd.h"
#include "daemon/datapath.h"
#include "daemon/loop.h"
#include "daemon/reply.h"
#include "daemon/tun.h"

struct autorate_run;
struct cake_config;
struct cake_flow_stats;
struct cake_stats;
struct conntrack;
struct conntrack_stats;
struct handoff;
struct hostacct;
struct httpd;
struct inbox;
struct natcache;
struct ring;
struct service;
struct tsrtt;

#define LOOP_TS_SLOTS		16384	/* TCP segments waiting for main */
#define LOOP_BUSY		INT_MIN	/* a packet thread did not answer */
#define LOOP_PKTS_MAX		(CONFIG_DIRS * GROUP_WORKERS_MAX)
#define LOOP_SIGNALS		4	/* loop_signals[] in loop.c */

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

/* What a snapshot asks of a direction's engines (NULL: not that). */
struct loop_snap {
	struct group		*g;
	struct cake_stats	*st;
	struct cake_config	*cfg;
	struct cake_flow_stats	*flows;
	unsigned int		 max;
	unsigned int		 got;
};

/* loop.c */
/* Direction i's worker w (w < l->nworkers[i]). */
struct loop_dir	*loop_wdir(struct loop *l, int i, unsigned int w);
/* Frees *ev if it is set and sets it to NULL. */
void		 loop_event_free(struct event **ev);
/* Breaks main's loop (STOPPING=1 to systemd); loop_run() returns code. */
void		 loop_stop(struct loop *l, int code);
/* Stops caked from packet loop p: on its own thread, through main. */
void		 loop_pkt_stop(struct loop_pkt *p, int code);
/* Sends what is due within each horizon, then re-arms p's timer. */
void		 loop_service(struct loop_pkt *p, uint64_t now_ns);
/* The timer spins of every packet loop. */
uint64_t	 loop_timer_spins(const struct loop *l);
/* A packet loop's timerfd fired (arg: the struct loop_pkt). */
void		 loop_on_timer(evutil_socket_t fd, short what, void *arg);
/* CLOCK_REALTIME in ns, for time stamps shown to people and tools. */
uint64_t	 loop_real_ns(void);
/* Parse, then swap. Returns 0, or -1 with a one-line reason in err. */
int		 loop_reload(struct loop *l, char *err, size_t errlen);

/* loop_call.c */
/* fn(p, arg) where p's packets move; 0, or -1 if p's thread is busy. */
int		 loop_call(struct loop_pkt *p, loop_call_fn *fn, void *arg);
/* Main: waits until n threads parked, at most LOOP_CALL_TIMEOUT_NS. */
bool		 loop_park_wait(struct loop_park *pk, unsigned int n);
/* fn on direction dir's worker 0, its other workers parked; as loop_call. */
int		 loop_dcall(struct loop *l, int dir, loop_call_fn *fn,
		    void *arg);
/* The packet thread's side: main's messages (arg: the struct loop_pkt). */
void		 loop_on_inbox(evutil_socket_t fd, short what, void *arg);
/* Main's side: a packet thread asks caked to stop (arg: loop_pkt). */
void		 loop_on_outbox(evutil_socket_t fd, short what, void *arg);
/* A consistent copy of direction dir's engines; -1: none, or busy. */
int		 loop_snapshot(struct loop *l, int dir, struct loop_snap *s);
/* group_change() on dir's thread: its result, or LOOP_BUSY. */
int		 loop_change(struct loop *l, int dir,
		    const struct cake_config *cfg, uint64_t now_ns);
/* [general] departure-horizon, at start and on each reload. */
void		 loop_horizon(struct loop *l);

/* loop_nat.c */
/* Opens conntrack once cfg needs it; tells each packet loop its part. */
void		 loop_nat(struct loop *l, const struct caked_config *cfg);
/* true if the threads' NAT inboxes lost messages: their sums. */
bool		 loop_nat_lost(const struct loop *l, uint64_t *news,
		    uint64_t *asks);
/* SIGUSR1: the same sums as stats' inbox_lost_news and inbox_lost_asks. */
void		 loop_nat_log_lost(const struct loop *l);
/* NAT counters, the threads' caches summed; -1 if one was busy. */
int		 loop_nat_stats(struct loop *l, struct conntrack_stats *st);

/* loop_ctl.c */
/* "upload 20Mbit (autorate 17.9Mbit), download 100Mbit, 3 hosts" */
void		 loop_status_line(void *arg, char *buf, size_t len);
/* The control scratch, metrics-listen and the control socket. */
int		 loop_ctl_start(struct loop *l);

/* loop_thread.c */
/* One packet loop on main's base, a thread per direction or per worker. */
int		 loop_pkts_init(struct loop *l);
/* Starts the packet threads (threads = 2); -1 if one cannot start. */
int		 loop_threads_start(struct loop *l);
/* Stops and joins the packet threads that run. */
void		 loop_threads_stop(struct loop *l);
/* p's events and timerfd (its thread stopped). */
void		 loop_pkt_fini(struct loop_pkt *p);
/* What loop_pkt_fini() leaves: the base and messages, once unused. */
void		 loop_pkt_free(struct loop_pkt *p);
/* A thread per worker: the hand-off queues and the park. */
void		 loop_workers_free(struct loop *l, int i);

#endif /* CAKED_DAEMON_LOOP_INT_H */
