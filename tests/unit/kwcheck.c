/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * kwcheck.c: helpers of the keyword parser tests (kwcheck.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/keywords.h"

#include "kwcheck.h"

void
cfg_assert_equal(const struct cake_config *a, const struct cake_config *b)
{
	assert_int_equal(a->rate_Bps, b->rate_Bps);
	assert_int_equal(a->autorate_ingress, b->autorate_ingress);
	assert_int_equal(a->diffserv, b->diffserv);
	assert_int_equal(a->flow_mode, b->flow_mode);
	assert_int_equal(a->nat, b->nat);
	assert_int_equal(a->wash, b->wash);
	assert_int_equal(a->ingress, b->ingress);
	assert_int_equal(a->ack_filter, b->ack_filter);
	assert_int_equal(a->split_gso, b->split_gso);
	assert_int_equal(a->rtt_us, b->rtt_us);
	assert_int_equal(a->target_us, b->target_us);
	assert_int_equal(a->raw, b->raw);
	assert_int_equal(a->overhead, b->overhead);
	assert_int_equal(a->mpu, b->mpu);
	assert_int_equal(a->atm, b->atm);
	assert_int_equal(a->memlimit_bytes, b->memlimit_bytes);
	assert_int_equal(a->fwmark_mask, b->fwmark_mask);
	assert_int_equal(a->queues, b->queues);
}

/* Parses line on top of the defaults; fails the test on error. */
void
parse_ok(const char *line, struct cake_config *cfg)
{
	char	err[KEYWORDS_ERR_MAX];

	cake_config_default(cfg);
	err[0] = '\0';
	if (keywords_parse_line(cfg, line, err, sizeof(err)) != 0)
		fail_msg("'%s' failed: %s", line, err);
}

void
format_ok(const struct cake_config *cfg, char *buf)
{
	assert_int_equal(keywords_format(cfg, buf, LINE_LEN), 0);
}

/* Parses line from the defaults and compares the printed options line. */
void
assert_prints(const char *line, const char *expected)
{
	struct cake_config	cfg;
	char			buf[LINE_LEN];

	parse_ok(line, &cfg);
	format_ok(&cfg, buf);
	if (strcmp(buf, expected) != 0)
		fail_msg("'%s' printed\n  '%s', expected\n  '%s'", line, buf,
		    expected);
}

/* Parses line from the defaults, expects failure with exactly msg. */
void
assert_error(const char *line, const char *msg)
{
	struct cake_config	cfg;
	char			err[KEYWORDS_ERR_MAX];

	cake_config_default(&cfg);
	err[0] = '\0';
	if (keywords_parse_line(&cfg, line, err, sizeof(err)) != -1)
		fail_msg("'%s' was accepted", line);
	if (strcmp(err, msg) != 0)
		fail_msg("'%s' said\n  '%s', expected\n  '%s'", line, err, msg);
}

uint64_t
rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic, so failures reproduce */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}
