/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_probe.h: the link-time fake of src/daemon/autorate_probe.c
 * (fake_probe.c): reflectors that answer each echo after a round trip the test
 * sets, or never.
 */
#ifndef CAKED_TESTS_FAKE_PROBE_H
#define CAKED_TESTS_FAKE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/autorate_probe.h"

#define FAKE_PROBE_FD		1200	/* made up: see fake_event.h */
#define FAKE_PROBE_PENDING	256	/* answers on their way */

struct fake_probe_reply {
	unsigned int	idx;
	uint64_t	sent_ns;
	uint64_t	due_ns;
};

struct fake_probe {
	bool			open;
	unsigned int		targets;	/* set_targets() */
	uint64_t		rtt_ns[PROBE_TARGETS_MAX];	/* 0: silent */
	uint64_t		sent[PROBE_TARGETS_MAX];
	uint64_t		sent_ns[PROBE_TARGETS_MAX];	/* the last */
	uint64_t		replies;
	struct fake_probe_reply	pending[FAKE_PROBE_PENDING];
	unsigned int		npending;
};

extern struct fake_probe	fake_probe;

void		fake_probe_reset(void);
/* Whether fd is the probe's and an answer is due (fake_event.c). */
bool		fake_probe_ready(int fd);
/* When the next answer arrives, or UINT64_MAX. */
uint64_t	fake_probe_next_ns(void);

#endif /* CAKED_TESTS_FAKE_PROBE_H */
