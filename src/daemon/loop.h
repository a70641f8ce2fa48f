/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * loop.h: the event loop that connects devices, engines and signals.
 */
#ifndef CAKED_DAEMON_LOOP_H
#define CAKED_DAEMON_LOOP_H

#include <stdint.h>

#include "caked/group.h"
#include "daemon/tun.h"

struct cake;
struct group;
struct caked_config;
struct ctlsock;
struct pool;
struct autorate_probe;

#define LOOP_SPIN_NS	50000	/* retry delay when the engine idles early */

/* What loop_run() returns. */
enum loop_exit {
	LOOP_EXIT_STOP = 0,	/* SIGTERM or SIGINT */
	LOOP_EXIT_FAILURE = 1,	/* libevent or timerfd failed */
	LOOP_EXIT_DEVICE = 3,	/* a device disappeared */
};

/* The resources the loop wires together; all stay owned by the caller. */
struct loop_setup {
	struct caked_config	*cfg;		/* replaced on reload */
	const char		*path;		/* configuration file */
	int			 keep_debug;	/* -d: keep debug on reload */
	int			 lan_fd;
	int			 wan_fd;
	unsigned int		 queues;	/* > 1: the fds below instead */
	int			 lan_fds[TUN_QUEUES_MAX];
	int			 wan_fds[TUN_QUEUES_MAX];
	struct group		*group[2];	/* upload, download: workers */
	struct cake		*cake[2];	/* their worker 0, for autorate
						 * (which needs workers = 1) */
	struct pool		*pool[2];
	/*
	 * threads = 2 with workers = N > 1: a thread per worker, worker w
	 * (1..N-1) taking its buffers from wpool[dir][w] (worker 0 from
	 * pool[dir]); all NULL: the direction's thread runs every worker.
	 */
	struct pool		*wpool[2][GROUP_WORKERS_MAX];
	struct ctlsock		*ctl;		/* control socket, or NULL */
	struct autorate_probe	*probe;		/* autorate; the loop owns it */
	const char		*version;	/* shown by cakectl version */
};

struct loop;

/* Creates the loop and its events. NULL on failure (logged). */
struct loop	*loop_create(const struct loop_setup *setup);
/* Runs until a stop signal or a fatal error. Returns enum loop_exit. */
int		 loop_run(struct loop *l);
/* Drops what is still queued (counted) and frees the loop. */
void		 loop_destroy(struct loop *l);

#endif /* CAKED_DAEMON_LOOP_H */
