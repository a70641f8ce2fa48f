/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ctl.h: the control protocol between caked and cakectl (see cakectl(8)),
 * shared by both so that a name, a limit or an exit status is defined in
 * exactly one place (as chrony's candm.h).
 *
 * A client connects to the daemon's Unix stream socket and sends one
 * request per line: words separated by blanks, ended by "\n" (for example
 * "stats upload" or "set upload bandwidth 30mbit"). For each line the
 * daemon answers with one JSON object on one line, ended by "\n":
 *
 *	{"version":1,"ok":true,...}
 *	{"version":1,"ok":false,"code":"denied","error":"..."}
 *
 * Requests are answered in order; a client may send several on one
 * connection. Types only: nothing here links to the engine.
 */
#ifndef CAKED_CAKED_CTL_H
#define CAKED_CAKED_CTL_H

#define CTL_PROTOCOL_VERSION	1
#define CTL_DEFAULT_PATH	"/run/caked/caked.sock"

/* Limits (doc/design.md, "Control socket"): each has a counter. */
#define CTL_LINE_MAX		4096	/* request bytes, "\n" included */
#define CTL_REPLY_MAX		(64 * 1024)	/* one JSON reply, "\n" included */
#define CTL_CLIENTS_MAX		16	/* connections served at once */
#define CTL_CLIENTS_PER_UID	4	/* of a uid that is not root/admin */
#define CTL_CLIENTS_ADMIN	1	/* slots only root/admin may take */
#define CTL_REQUEST_S		5	/* a request must end within this */
#define CTL_BURST_MAX		8	/* requests served per loop wake-up */
#define CTL_IDLE_S		60	/* a connection with no request closes */
#define CTL_WRITE_TIMEOUT_S	10	/* a reply not drained in time closes */
#define CTL_ACCEPT_PAUSE_MS	1000	/* accept() paused after EMFILE */
#define CTL_SOCKET_MODE		0660
/*
 * Rows per direction of a hosts or flows reply ("top N"). The largest flow
 * row (two 45-character addresses, every counter at its maximum) is under
 * 400 bytes, so two directions of CTL_TOP_MAX rows stay well inside
 * CTL_REPLY_MAX (test_ctlcmd_flows checks the worst case).
 */
#define CTL_TOP_DEFAULT		10
#define CTL_TOP_MAX		64

/* Request words. */
#define CTL_CMD_FLOWS		"flows"
#define CTL_CMD_HOSTS		"hosts"
#define CTL_CMD_PING		"ping"
#define CTL_CMD_RELOAD		"reload"
#define CTL_CMD_SET		"set"
#define CTL_CMD_STATS		"stats"
#define CTL_CMD_VERSION		"version"
#define CTL_DIR_UPLOAD		"upload"
#define CTL_DIR_DOWNLOAD	"download"
#define CTL_ARG_TOP		"top"		/* hosts|flows [DIR] [top N] */

/* Reply keys (per tin and global names follow `tc -j -s qdisc`). */
#define CTL_KEY_VERSION		"version"
#define CTL_KEY_OK		"ok"
#define CTL_KEY_CODE		"code"
#define CTL_KEY_ERROR		"error"
#define CTL_KEY_DAEMON_VERSION	"daemon_version"
#define CTL_KEY_DIRECTIONS	"directions"
#define CTL_KEY_CONTROL		"control"
#define CTL_KEY_OPTIONS		"options"
#define CTL_KEY_TINS		"tins"
#define CTL_KEY_NAME		"name"
#define CTL_KEY_MESSAGE		"message"
#define CTL_KEY_HOSTS		"hosts"		/* array of a direction */
#define CTL_KEY_FLOWS		"flows"		/* array; in a host, a count */
#define CTL_KEY_TOTAL		"total"		/* rows before the top N cut */
#define CTL_KEY_ADDRESS		"address"
#define CTL_KEY_TIME_NS		"time_ns"	/* CLOCK_REALTIME, every reply */
#define CTL_KEY_UPTIME_NS	"uptime_ns"	/* since caked started */

/* Values of CTL_KEY_CODE in an error reply. */
#define CTL_CODE_UNKNOWN	"unknown"	/* no such command */
#define CTL_CODE_USAGE		"usage"		/* bad arguments */
#define CTL_CODE_DENIED		"denied"	/* needs root or admin-group */
#define CTL_CODE_INVALID	"invalid"	/* options refused */
#define CTL_CODE_FAILED		"failed"	/* e.g. reload found errors */
#define CTL_CODE_TOOLONG	"toolong"	/* line over CTL_LINE_MAX */
#define CTL_CODE_BUSY		"busy"		/* CTL_CLIENTS_MAX reached, or
					 * a packet thread did not answer */

/* Exit statuses of cakectl, documented in cakectl(8). */
enum ctl_exit {
	CTL_EXIT_OK = 0,
	CTL_EXIT_USAGE = 1,		/* bad command line, unknown command */
	CTL_EXIT_NODAEMON = 2,		/* no daemon listens on the socket */
	CTL_EXIT_DENIED = 3,		/* socket or command not permitted */
	CTL_EXIT_REFUSED = 4,		/* the daemon refused the request */
	CTL_EXIT_PROTOCOL = 5,		/* bad, missing or late reply */
};

#endif /* CAKED_CAKED_CTL_H */
