/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_probe.h: the link-time fake of src/daemon/autorate_probe.c
 * (fake_probe.c): reflectors that answer each echo after a round trip the test
 * sets, or never, and timestamp requests with a scripted one-way delay each
 * way and clock offset, or never, or with non-standard timestamps.
 */
#ifndef CAKED_TESTS_FAKE_PROBE_H
#define CAKED_TESTS_FAKE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/autorate_probe.h"

#define FAKE_PROBE_FD		1200	/* made up: see fake_event.h */
#define FAKE_PROBE_FD6		1201	/* the IPv6 one */
#define FAKE_PROBE_PENDING	256	/* answers on their way */
#define FAKE_DAY_NS		86400000000000ULL

/* How a reflector treats timestamp requests. */
#define FAKE_TS_ANSWER		0	/* ms since midnight, as it should */
#define FAKE_TS_SILENT		1	/* never answers type 13 */
#define FAKE_TS_NONSTD		2	/* answers, high bit set */

struct fake_probe_reply {
	struct autorate_probe_reply	rep;
	uint64_t			sent_ns;
	uint64_t			due_ns;
};

struct fake_probe {
	bool			open;
	bool			no_timestamp;	/* a ping socket */
	bool			no_v6;		/* no ICMPv6 socket */
	unsigned int		targets;	/* set_targets() */
	struct autorate_addr	addr[PROBE_TARGETS_MAX];
	uint64_t		rtt_ns[PROBE_TARGETS_MAX];	/* 0: silent */
	int			ts_mode[PROBE_TARGETS_MAX];
	/* One-way delays of timestamp requests; 0 and 0: rtt_ns / 2 each. */
	uint64_t		up_ns[PROBE_TARGETS_MAX];
	uint64_t		down_ns[PROBE_TARGETS_MAX];
	int64_t			offset_ms[PROBE_TARGETS_MAX];	/* its clock */
	uint64_t		midnight_ns;	/* fake time of a UTC midnight */
	uint64_t		sent[PROBE_TARGETS_MAX];
	uint64_t		sent_ts[PROBE_TARGETS_MAX];	/* of which ts */
	uint64_t		sent_ns[PROBE_TARGETS_MAX];	/* the last */
	uint64_t		send_errors;
	uint64_t		replies;
	struct fake_probe_reply	pending[FAKE_PROBE_PENDING];
	unsigned int		npending;
};

extern struct fake_probe	fake_probe;

void		fake_probe_reset(void);
/* Whether fd is a probe socket and an answer is due (fake_event.c). */
bool		fake_probe_ready(int fd);
/* When the next answer arrives, or UINT64_MAX. */
uint64_t	fake_probe_next_ns(void);
/* Our "ms since midnight UTC" at fake time now_ns. */
uint32_t	fake_probe_ms(uint64_t now_ns);

#endif /* CAKED_TESTS_FAKE_PROBE_H */
