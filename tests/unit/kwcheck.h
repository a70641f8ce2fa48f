/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * kwcheck.h: what the keyword parser tests (test_keywords.c,
 * test_keywords_lines.c, test_units.c) share: tc's default options line,
 * parse / print / compare helpers that fail the current cmocka test, and
 * a deterministic random number generator.
 */
#ifndef CAKED_TESTS_KWCHECK_H
#define CAKED_TESTS_KWCHECK_H

#include <stdint.h>

#include "caked/cake.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define LINE_LEN	512

/* The middle of the default line, between "bandwidth X" and the rtt. */
/* GSO is split by default at every rate, unlimited included (sch_cake). */
#define DEF_MID	"diffserv3 triple-isolate nonat nowash no-ack-filter split-gso"
#define RATE_MID "diffserv3 triple-isolate nonat nowash no-ack-filter split-gso"
#define DEF_LINE "bandwidth unlimited " DEF_MID " rtt 100ms raw overhead 0"

/* Fails the test unless every field of a and b is equal. */
void		cfg_assert_equal(const struct cake_config *a,
		    const struct cake_config *b);
/* Parses line on top of the defaults; fails the test on error. */
void		parse_ok(const char *line, struct cake_config *cfg);
/* Prints cfg into buf (LINE_LEN bytes); fails the test on error. */
void		format_ok(const struct cake_config *cfg, char *buf);
/* Parses line from the defaults and compares the printed options line. */
void		assert_prints(const char *line, const char *expected);
/* Parses line from the defaults, expects failure with exactly msg. */
void		assert_error(const char *line, const char *msg);
/* xorshift64*: deterministic, so failures reproduce. */
uint64_t	rng_next(uint64_t *s);

#endif /* CAKED_TESTS_KWCHECK_H */
