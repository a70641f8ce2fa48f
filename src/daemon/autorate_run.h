/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_run.h: runs autorate in the daemon: a periodic libevent timer sends
 * the probes and ticks each direction's controller, whose new rates are
 * applied to the engines live (see autorate_run.c).
 */
#ifndef CAKED_DAEMON_AUTORATE_RUN_H
#define CAKED_DAEMON_AUTORATE_RUN_H

#include <netinet/in.h>

#include <stdbool.h>
#include <stdint.h>

#include "daemon/autorate.h"

struct cake;
struct caked_config;
struct event_base;
struct json_writer;
struct autorate_probe;

/* Called after a rate was applied, so the loop can re-arm its timer. */
typedef void	autorate_run_changed_fn(void *arg, int dir, uint64_t now_ns);

/* One reflector of the pool, for statistics. */
struct autorate_run_refl {
	struct autorate_addr	addr;
	bool			active;		/* probed now */
	bool			fresh;		/* its round trips count */
	int			kind;		/* PROBE_ECHO or _TIMESTAMP */
	uint64_t		sent;
	uint64_t		answered;
	uint64_t		lost;	/* unanswered when the next one left */
};

/* A copy of one direction's autorate state for statistics. */
struct autorate_run_view {
	struct autorate_dir	dir;
	struct autorate_delay	delay;	/* indexed as refl[] (the pool) */
	struct autorate_run_refl refl[AUTORATE_REFLECTORS_MAX];
	struct autorate_passive	passive;	/* this direction's */
	bool			idle;		/* probing at the idle rate */
	uint64_t		probe_interval_ns;	/* between rounds now */
	uint64_t		replacements;	/* reflectors replaced */
	uint64_t		probes_sent;
	uint64_t		probe_replies;
	uint64_t		probe_kernel_stamps;	/* timed by the kernel */
	uint64_t		probe_send_errors;
	uint64_t		probe_unmatched;	/* late or not ours */
};

struct autorate_run;
struct cake_stats;

/*
 * How the runner reads and sets the engines. By default it calls the
 * instances given to autorate_run_create() directly; a daemon whose
 * engines run on other threads gives hooks that ask those threads.
 */
struct autorate_run_hooks {
	/* dir's counters into *st; -1 if they cannot be had now (busy). */
	int	(*stats)(void *arg, int dir, struct cake_stats *st);
	/*
	 * Sets dir's rate live; returns CAKE_OK or the engine's error (or
	 * -1: busy). On success the departure timers are re-armed.
	 */
	int	(*rate)(void *arg, int dir, uint64_t rate_Bps,
		    uint64_t now_ns);
	void	*arg;
};

/*
 * Creates the runner on base. probe: the socket opened before privileges
 * were dropped, or NULL (then one is opened if autorate needs it); the
 * runner owns it from now on. NULL on failure (logged).
 */
struct autorate_run	*autorate_run_create(struct event_base *base,
			    struct autorate_probe *probe, struct cake *cake[2],
			    autorate_run_changed_fn *fn, void *arg);
/* Replaces the default hooks (the changed callback is then unused). */
void		 autorate_run_set_hooks(struct autorate_run *r,
		    const struct autorate_run_hooks *h);
/* Starts (again) from cfg's autorate settings: on start and reload. */
int		 autorate_run_apply(struct autorate_run *r,
		    const struct caked_config *cfg);
/*
 * The passive delay of direction dir (CONFIG_UPLOAD or CONFIG_DOWNLOAD) as
 * the forwarded TCP traffic shows it: delay_ns, its recent RTT, and
 * baseline_ns, the lowest it has been lately (both in ns, of the path
 * beyond caked that this direction's packets take), measured at now_ns
 * (timer_now_ns()). Call it whenever the estimate changes; the input counts
 * as fresh for AUTORATE_PASSIVE_STALE_NS (1 s) after the last call, and
 * is then combined with the probes as autorate.c says. r may be NULL.
 */
/*
 * The passive table's upload delivery counters (struct tsrtt_counters
 * up_sent and up_acked): the upload controller's capacity evidence.
 */
void		 autorate_run_acked(struct autorate_run *r, uint64_t sent,
		    uint64_t acked);
void		 autorate_run_passive(struct autorate_run *r, int dir,
		    uint64_t delay_ns, uint64_t baseline_ns, uint64_t now_ns);
/* A rate set from outside (cakectl set): the controller goes on from it. */
void		 autorate_run_rate_set(struct autorate_run *r, int dir,
		    uint64_t rate_Bps);
/* Fills v for dir; false if autorate is off there. */
bool		 autorate_run_view(const struct autorate_run *r, int dir,
		    struct autorate_run_view *v);
/* Writes dir's "autorate" object into w, if autorate is on there. */
void		 autorate_run_json(const struct autorate_run *r, int dir,
		    struct json_writer *w);
/* Logs the state (SIGUSR1). */
void		 autorate_run_log_stats(const struct autorate_run *r);
void		 autorate_run_destroy(struct autorate_run *r);

#endif /* CAKED_DAEMON_AUTORATE_RUN_H */
