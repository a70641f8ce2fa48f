/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ctlcmd.h: the control commands of caked (see include/caked/ctl.h):
 * one request line in, one JSON reply out. No I/O; the engine is reached
 * only through the callbacks in struct ctlcmd_ops.
 */
#ifndef CAKED_DAEMON_CTLCMD_H
#define CAKED_DAEMON_CTLCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cake_config;
struct cake_flow_stats;
struct cake_stats;
struct json_writer;

#define CTLCMD_DIRS		2	/* 0 upload, 1 download (config.h) */
#define CTLCMD_ARGS_MAX		64	/* words in one request */
#define CTLCMD_ERR_MAX		256	/* bytes of a callback's message */

/* Who sent the request (SO_PEERCRED as of connect). */
struct ctlcmd_peer {
	uint32_t	uid;
	int32_t		pid;
	bool		admin;		/* root, own uid, admin-group: may change */
};

/* The control socket's own counters, shown under "control" by stats. */
struct ctlcmd_counters {
	uint64_t	clients;	/* connected now */
	uint64_t	clients_max;	/* CTL_CLIENTS_MAX */
	uint64_t	accepted;
	uint64_t	refused_busy;	/* over CTL_CLIENTS_MAX */
	uint64_t	requests;
	uint64_t	denied;
	uint64_t	too_long;	/* over CTL_LINE_MAX */
	uint64_t	slow_closed;	/* reply not drained in time */
	uint64_t	idle_closed;
	uint64_t	accept_pauses;	/* EMFILE/ENFILE back-offs */
};

/* One host of a hosts reply: the sum of its flows (ctlcmd.c). */
struct ctlcmd_host {
	uint8_t		addr[16];	/* as struct cake_tuple */
	uint8_t		family;		/* 0 (non-IP), 4 or 6 */
	uint32_t	flows;
	uint64_t	bytes;
	uint64_t	pkts;
	uint64_t	backlog_bytes;
	uint64_t	drops;
	uint64_t	marks;
	uint64_t	rtt_lan_ns;	/* passive RTT, LAN side; 0: none */
	uint64_t	rtt_wan_ns;	/* beyond caked on the WAN side */
};

/*
 * Working memory of hosts and flows, allocated once by the daemon (a
 * request must not allocate): max entries each, max at least
 * CAKE_MAX_TINS times the largest instance's queues (struct cake_config)
 * so that every flow of an instance fits.
 */
struct ctlcmd_scratch {
	struct cake_flow_stats	*flows;
	struct ctlcmd_host	*hosts;
	unsigned int		 max;
};

/* Conntrack and its NAT cache, shown under "nat" by stats. */
struct ctlcmd_nat {
	const char	*state;		/* "ok", "degraded" or "unavailable" */
	uint64_t	entries;	/* in the cache now */
	uint64_t	size;		/* cache capacity */
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	neg_hits;	/* asked recently: header used */
	uint64_t	evictions;
	uint64_t	expiries;
	uint64_t	events;		/* new, update and destroy */
	uint64_t	queries;
	uint64_t	answers;
	uint64_t	not_found;
	uint64_t	query_failures;
	uint64_t	query_skipped;
	uint64_t	query_timeouts;	/* no answer within a second */
	uint64_t	parse_errors;	/* netlink messages not understood */
	uint64_t	enobufs;
	uint64_t	in_flight;	/* queries awaiting an answer now */
	uint64_t	inserts;	/* cache entries added */
	uint64_t	updates;	/* cache entries rewritten */
	uint64_t	removals;	/* connection destroyed */
	/* threads = 2 only: messages lost to full packet-thread inboxes. */
	bool		inboxes;	/* there are such inboxes */
	uint64_t	inbox_lost_news;	/* conntrack's, to a thread */
	uint64_t	inbox_lost_asks;	/* a thread's misses, to main */
};

/* How ctlcmd reaches the daemon; every callback may be NULL. */
struct ctlcmd_ops {
	void		*arg;
	const char	*version;	/* daemon version string */
	/* Snapshot of direction dir: 0, or -1 if it is not shaped. */
	int		(*snapshot)(void *arg, int dir, struct cake_stats *st,
			    struct cake_config *cfg);
	/* After a -1: true if dir's thread did not answer (threads = 2). */
	bool		(*busy)(void *arg, int dir);
	/* Applies cfg to dir live: 0, or -1 with a one-line message. */
	int		(*change)(void *arg, int dir,
			    const struct cake_config *cfg, char *err,
			    size_t errlen);
	/* Reloads the configuration file: 0, or -1 with a message. */
	int		(*reload)(void *arg, char *err, size_t errlen);
	void		(*counters)(void *arg, struct ctlcmd_counters *c);
	/* Conntrack counters: 0, or -1 if conntrack is not in use. */
	int		(*nat)(void *arg, struct ctlcmd_nat *n);
	/* Copies up to max flows of dir (cake_get_flows): count, or -1. */
	int		(*flows)(void *arg, int dir,
			    struct cake_flow_stats *out, unsigned int max);
	struct ctlcmd_scratch	 scratch;	/* for hosts and flows */
	/* Writes dir's "autorate" member, if autorate is on there. */
	void		(*autorate)(void *arg, int dir,
			    struct json_writer *w);
	/* Writes dir's "passive" member; dir -1: the top-level one. */
	void		(*passive)(void *arg, int dir,
			    struct json_writer *w);
	/* The passive RTTs of LAN host addr (ns; 0 where not measured). */
	void		(*host_rtt)(void *arg, const uint8_t addr[16],
			    uint8_t family, uint64_t *lan_ns,
			    uint64_t *wan_ns);
	/* Writes dir's "io" member: device reads, writes, bad frames. */
	void		(*io)(void *arg, int dir, struct json_writer *w);
	/* Writes the "daemon" member: reloads, loop counters, build. */
	void		(*daemon)(void *arg, struct json_writer *w);
	/*
	 * CLOCK_REALTIME and the time since start (ns), put in every reply
	 * as time_ns and uptime_ns; NULL leaves them out (tests).
	 */
	void		(*clock)(void *arg, uint64_t *real_ns,
			    uint64_t *uptime_ns);
};

/* What a request did, for the caller's log and counters. */
enum ctlcmd_result {
	CTLCMD_READ = 0,	/* answered; nothing changed */
	CTLCMD_CHANGED,		/* state changed (log it with the peer) */
	CTLCMD_ERROR,		/* an error reply */
	CTLCMD_DENIED,		/* refused: the peer is not admin */
};

/*
 * Answers line (NUL-terminated, without its "\n") into out[0..cap) as one
 * JSON object ended by "\n"; *outlen gets its length. Returns enum
 * ctlcmd_result. If cap is too small the reply is an error that fits in
 * 160 bytes (time stamps included).
 */
int		 ctlcmd_handle(const struct ctlcmd_ops *ops,
		    const struct ctlcmd_peer *peer, const char *line,
		    char *out, size_t cap, size_t *outlen);
/*
 * An error reply with code (CTL_CODE_*) and msg, stamped with ops's clock
 * (ops may be NULL). Returns its length or -1.
 */
int		 ctlcmd_error(const struct ctlcmd_ops *ops, const char *code,
		    const char *msg, char *out, size_t cap);
/*
 * How many IP hosts (not 0.0.0.0 or ::) the n flows f of direction dir
 * belong to (the source in upload, the destination in download);
 * scratch holds n entries.
 */
unsigned int	 ctlcmd_hosts_count(const struct cake_flow_stats *f,
		    unsigned int n, int dir, struct ctlcmd_host *scratch);

#endif /* CAKED_DAEMON_CTLCMD_H */
