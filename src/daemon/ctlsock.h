/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ctlsock.h: caked's control socket (a Unix stream socket, see cakectl(8)):
 * listening, clients, peer credentials and limits. Requests are answered
 * by ctlcmd.
 */
#ifndef CAKED_DAEMON_CTLSOCK_H
#define CAKED_DAEMON_CTLSOCK_H

#include <sys/types.h>

#include <stdbool.h>

struct event_base;
struct ctlcmd_ops;
struct ctlcmd_counters;

#define CTLSOCK_GROUPS_MAX	256	/* supplementary groups read per peer */
#define CTLSOCK_ACCEPT_BURST	8	/* accept() calls per wake-up */

struct ctlsock_params {
	const char	*path;
	gid_t		 group;		/* socket group; (gid_t)-1: keep */
	bool		 has_admin;	/* admin_gid is set */
	gid_t		 admin_gid;	/* may change state, as root */
};

struct ctlsock;

/*
 * Creates the socket at p->path (mode 0660, group p->group) and listens,
 * before privileges are dropped. Creates a missing parent directory
 * (0750); refuses a world-writable one, a path that is not a socket, or a
 * socket another daemon answers on (a stale one is removed). NULL on
 * failure (logged).
 */
struct ctlsock	*ctlsock_open(const struct ctlsock_params *p);
/* Starts accepting clients from base, answering with ops (copied). 0/-1. */
int		 ctlsock_start(struct ctlsock *cs, struct event_base *base,
		    const struct ctlcmd_ops *ops);
/* Disconnects every client and stops watching (before freeing base). */
void		 ctlsock_stop(struct ctlsock *cs);
/* Stops, then closes and removes the socket. */
void		 ctlsock_close(struct ctlsock *cs);
/* Copies the counters (also shown by the stats command). */
void		 ctlsock_counters(const struct ctlsock *cs,
		    struct ctlcmd_counters *c);

#endif /* CAKED_DAEMON_CTLSOCK_H */
