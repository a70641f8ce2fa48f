/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fakectl.h: a fake daemon for the control command tests (test_ctlcmd.c,
 * test_ctlcmd_flows.c): ctlcmd_ops callbacks over known snapshots (a
 * 20 Mbit diffserv3 upload as tc shows one, one tin in download), a
 * fake flow table per direction, and run(), which sends one request and
 * checks the framing every reply must have.
 */
#ifndef CAKED_TESTS_FAKECTL_H
#define CAKED_TESTS_FAKECTL_H

#include <stdbool.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* Every flow of a default-sized instance (no "queues"). */
#define FLOWS_MAX	(CAKE_MAX_TINS * CAKE_QUEUES_DEFAULT)

struct fake {
	struct cake_stats	st[CTLCMD_DIRS];
	const struct cake_flow_stats *flows[CTLCMD_DIRS];
	unsigned int		nflows[CTLCMD_DIRS];
	struct cake_config	cfg[CTLCMD_DIRS];
	bool			shaped[CTLCMD_DIRS];
	bool			busy[CTLCMD_DIRS];	/* its thread: no answer */
	int			changes;
	int			reloads;
	int			reload_rc;
};

/* What the fake daemon holds; setup() resets it before every test. */
extern struct fake		fake;
/* The reply to the last run(), NUL-terminated. */
extern char			out[CTL_REPLY_MAX];

extern const struct ctlcmd_peer	root_peer;	/* uid 0 */
extern const struct ctlcmd_peer	user_peer;	/* neither root nor admin */
extern const struct ctlcmd_ops	fake_ops;	/* over fake */

/* The fake clock: CLOCK_REALTIME and uptime in every reply. */
#define FAKE_TIME_NS		1767225600123456789ULL
#define FAKE_UPTIME_NS		3600000000000ULL

/* The flow tables of the upload and download snapshots. */
#define FAKE_UP_FLOWS		6
#define FAKE_DOWN_FLOWS		3
extern const struct cake_flow_stats	up_flows[FAKE_UP_FLOWS];
extern const struct cake_flow_stats	down_flows[FAKE_DOWN_FLOWS];

/* cmocka setup: both directions shaped, snapshots and flows as above. */
int	setup(void **state);
/* Runs one request; checks the framing every reply must have. */
int	run(const struct ctlcmd_peer *peer, const char *line,
	    struct json_value **v);
/* Runs line as a plain user: a good reply, equal to the golden file. */
void	golden_request(const char *line, const char *golden);

#endif /* CAKED_TESTS_FAKECTL_H */
