/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * keywords.c: tc-cake keyword strings <-> struct cake_config (doc/cake.md
 * §1), and the rate, time and size units of tc.
 *
 * Parsing follows tc's q_cake.c: keywords are applied in order on top of
 * the config given, framing presets add to a running overhead sum that
 * starts at 0 on each command line, "overhead N" replaces that sum, and
 * "raw" anywhere on the line wins over the overhead flag (the kernel
 * processes RAW after OVERHEAD). Every error is one line naming the keyword
 * and the value; on error the config is left untouched.
 *
 * Printing gives exactly tc's options line, and every value is printed so
 * that parsing it gives the same number back. One keyword is caked's own,
 * not tc's: "queues N" sizes the flow tables (struct cake_config); it is
 * printed last and only when it is not the default, so a default line is
 * still one tc would print.
 *
 * This module is pure: no I/O, no allocation, no globals but const tables.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "common/units.h"

#define KW_OVERHEAD_MIN		(-64)	/* tc-cake(8) */
#define KW_OVERHEAD_MAX		256
#define KW_MPU_MAX		256
#define KW_TOKEN_SHOWN		32	/* bytes of a token quoted in errors */

enum kw_action {
	KW_BANDWIDTH,
	KW_UNLIMITED,
	KW_AUTORATE,
	KW_RTT,
	KW_RTT_PRESET,
	KW_DIFFSERV,
	KW_FLOW,
	KW_NAT,
	KW_WASH,
	KW_SPLIT_GSO,
	KW_ACK,
	KW_MEMLIMIT,
	KW_OVERHEAD,
	KW_MPU,
	KW_ATM,
	KW_RAW,
	KW_CONSERVATIVE,
	KW_FRAMING,
	KW_INGRESS,
	KW_FWMARK,
	KW_QUEUES,
	KW_IGNORED,
};

#define KW_KEEP		(-1)	/* framing preset leaves atm or mpu alone */

struct keyword {
	const char	*name;
	enum kw_action	 action;
	int		 mode;		/* enum or bool; framing: atm */
	int32_t		 overhead;	/* framing: bytes added */
	int32_t		 mpu;		/* framing: mpu set, or KW_KEEP */
	uint32_t	 target_us;	/* rtt presets (doc/cake.md §1) */
	uint32_t	 interval_us;
};

/*
 * Every keyword, once. Where two spell the same setting the first is the
 * one printed ("diffserv4" before its alias "diffserv").
 */
static const struct keyword keywords[] = {
	{ "bandwidth", KW_BANDWIDTH, 0, 0, 0, 0, 0 },
	{ "unlimited", KW_UNLIMITED, 0, 0, 0, 0, 0 },
	{ "autorate-ingress", KW_AUTORATE, 1, 0, 0, 0, 0 },
	{ "rtt", KW_RTT, 0, 0, 0, 0, 0 },
	{ "datacentre", KW_RTT_PRESET, 0, 0, 0, 5, 100 },
	{ "lan", KW_RTT_PRESET, 0, 0, 0, 50, 1000 },
	{ "metro", KW_RTT_PRESET, 0, 0, 0, 500, 10000 },
	{ "regional", KW_RTT_PRESET, 0, 0, 0, 1500, 30000 },
	{ "internet", KW_RTT_PRESET, 0, 0, 0, 5000, 100000 },
	{ "oceanic", KW_RTT_PRESET, 0, 0, 0, 15000, 300000 },
	{ "satellite", KW_RTT_PRESET, 0, 0, 0, 50000, 1000000 },
	{ "interplanetary", KW_RTT_PRESET, 0, 0, 0, 50000000, 1000000000 },
	{ "besteffort", KW_DIFFSERV, CAKE_BESTEFFORT, 0, 0, 0, 0 },
	{ "precedence", KW_DIFFSERV, CAKE_PRECEDENCE, 0, 0, 0, 0 },
	{ "diffserv8", KW_DIFFSERV, CAKE_DIFFSERV8, 0, 0, 0, 0 },
	{ "diffserv4", KW_DIFFSERV, CAKE_DIFFSERV4, 0, 0, 0, 0 },
	{ "diffserv", KW_DIFFSERV, CAKE_DIFFSERV4, 0, 0, 0, 0 },
	{ "diffserv3", KW_DIFFSERV, CAKE_DIFFSERV3, 0, 0, 0, 0 },
	{ "flowblind", KW_FLOW, CAKE_FLOW_BLIND, 0, 0, 0, 0 },
	{ "srchost", KW_FLOW, CAKE_FLOW_SRCHOST, 0, 0, 0, 0 },
	{ "dsthost", KW_FLOW, CAKE_FLOW_DSTHOST, 0, 0, 0, 0 },
	{ "hosts", KW_FLOW, CAKE_FLOW_HOSTS, 0, 0, 0, 0 },
	{ "flows", KW_FLOW, CAKE_FLOW_FLOWS, 0, 0, 0, 0 },
	{ "dual-srchost", KW_FLOW, CAKE_FLOW_DUAL_SRC, 0, 0, 0, 0 },
	{ "dual-dsthost", KW_FLOW, CAKE_FLOW_DUAL_DST, 0, 0, 0, 0 },
	{ "triple-isolate", KW_FLOW, CAKE_FLOW_TRIPLE, 0, 0, 0, 0 },
	{ "nat", KW_NAT, 1, 0, 0, 0, 0 },
	{ "nonat", KW_NAT, 0, 0, 0, 0, 0 },
	{ "wash", KW_WASH, 1, 0, 0, 0, 0 },
	{ "nowash", KW_WASH, 0, 0, 0, 0, 0 },
	{ "split-gso", KW_SPLIT_GSO, 1, 0, 0, 0, 0 },
	{ "no-split-gso", KW_SPLIT_GSO, 0, 0, 0, 0, 0 },
	{ "ack-filter", KW_ACK, CAKE_ACK_FILTER, 0, 0, 0, 0 },
	{ "ack-filter-aggressive", KW_ACK, CAKE_ACK_AGGRESSIVE, 0, 0, 0, 0 },
	{ "no-ack-filter", KW_ACK, CAKE_ACK_NONE, 0, 0, 0, 0 },
	{ "memlimit", KW_MEMLIMIT, 0, 0, 0, 0, 0 },
	{ "overhead", KW_OVERHEAD, 0, 0, 0, 0, 0 },
	{ "mpu", KW_MPU, 0, 0, 0, 0, 0 },
	{ "atm", KW_ATM, CAKE_ATM_ATM, 0, 0, 0, 0 },
	{ "ptm", KW_ATM, CAKE_ATM_PTM, 0, 0, 0, 0 },
	{ "noatm", KW_ATM, CAKE_ATM_NONE, 0, 0, 0, 0 },
	{ "raw", KW_RAW, 0, 0, 0, 0, 0 },
	/* doc/cake.md §1; conservative replaces the sum, as tc does */
	{ "conservative", KW_CONSERVATIVE, CAKE_ATM_ATM, 48, KW_KEEP, 0, 0 },
	{ "ipoa-vcmux", KW_FRAMING, CAKE_ATM_ATM, 8, KW_KEEP, 0, 0 },
	{ "ipoa-llcsnap", KW_FRAMING, CAKE_ATM_ATM, 16, KW_KEEP, 0, 0 },
	{ "bridged-vcmux", KW_FRAMING, CAKE_ATM_ATM, 24, KW_KEEP, 0, 0 },
	{ "bridged-llcsnap", KW_FRAMING, CAKE_ATM_ATM, 32, KW_KEEP, 0, 0 },
	{ "pppoa-vcmux", KW_FRAMING, CAKE_ATM_ATM, 10, KW_KEEP, 0, 0 },
	{ "pppoa-llc", KW_FRAMING, CAKE_ATM_ATM, 14, KW_KEEP, 0, 0 },
	{ "pppoe-vcmux", KW_FRAMING, CAKE_ATM_ATM, 32, KW_KEEP, 0, 0 },
	{ "pppoe-llcsnap", KW_FRAMING, CAKE_ATM_ATM, 40, KW_KEEP, 0, 0 },
	{ "pppoe-ptm", KW_FRAMING, CAKE_ATM_PTM, 30, KW_KEEP, 0, 0 },
	{ "bridged-ptm", KW_FRAMING, CAKE_ATM_PTM, 22, KW_KEEP, 0, 0 },
	{ "ethernet", KW_FRAMING, KW_KEEP, 38, 84, 0, 0 },
	{ "ether-vlan", KW_FRAMING, KW_KEEP, 4, KW_KEEP, 0, 0 },
	{ "docsis", KW_FRAMING, CAKE_ATM_NONE, 18, 64, 0, 0 },
	{ "via-ethernet", KW_IGNORED, 0, 0, 0, 0, 0 },
	{ "ingress", KW_INGRESS, 1, 0, 0, 0, 0 },
	{ "egress", KW_INGRESS, 0, 0, 0, 0, 0 },
	{ "fwmark", KW_FWMARK, 0, 0, 0, 0, 0 },
	/* caked extension, not in tc-cake(8): flow queues per tin */
	{ "queues", KW_QUEUES, 0, 0, 0, 0, 0 },
};
#define KW_COUNT	(sizeof(keywords) / sizeof(keywords[0]))

/* The state of one command line while it is applied. */
struct kw_parse {
	struct cake_config	 cfg;
	int32_t			 overhead_sum;	/* tc's running "overhead" */
	bool			 overhead_set;
	bool			 raw;
	const char		*rtt_by;	/* keyword that set the rtt */
};

static int	kw_fail(char *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static int
kw_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		/* Truncation only shortens the message. */
		(void)vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Copies a user token for an error message: at most KW_TOKEN_SHOWN bytes,
 * unprintable bytes as '?', "..." when cut, so that every message fits in
 * KEYWORDS_ERR_MAX.
 */
static void
kw_show(const char *s, char *buf, size_t len)
{
	size_t	i;

	for (i = 0; s[i] != '\0' && i < KW_TOKEN_SHOWN && i + 4 < len; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (s[i] != '\0' && i + 3 < len) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
}

/* Turns a units_parse() failure into "'fast': not a rate (...)". */
static int
kw_units(enum units_kind kind, const char *s, uint64_t *out, char *err,
    size_t errlen)
{
	static const char *const what[] = {
		[UNITS_RATE] = "not a rate (e.g. 20mbit, 2500kbps)",
		[UNITS_TIME] = "not a time (e.g. 100ms, 5us, 1s)",
		[UNITS_SIZE] = "not a size (e.g. 4mb, 1500kb, 10000)",
	};
	char	shown[KW_TOKEN_SHOWN + 4];

	if (s == NULL)
		return kw_fail(err, errlen, "missing value");
	kw_show(s, shown, sizeof(shown));
	switch (units_parse(kind, s, out)) {
	case UNITS_OK:
		return 0;
	case UNITS_NEGATIVE:
		return kw_fail(err, errlen, "'%s': must not be negative",
		    shown);
	case UNITS_RANGE:
		return kw_fail(err, errlen, "'%s': too large", shown);
	default:
		return kw_fail(err, errlen, "'%s': %s", shown, what[kind]);
	}
}

int
keywords_parse_rate(const char *s, uint64_t *rate_Bps, char *err,
    size_t errlen)
{
	return kw_units(UNITS_RATE, s, rate_Bps, err, errlen);
}

int
keywords_parse_time(const char *s, uint32_t *time_us, char *err,
    size_t errlen)
{
	uint64_t	v;

	if (kw_units(UNITS_TIME, s, &v, err, errlen) == -1)
		return -1;
	*time_us = (uint32_t)v;
	return 0;
}

int
keywords_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	return kw_units(UNITS_SIZE, s, bytes, err, errlen);
}

int
keywords_format_rate(uint64_t rate_Bps, char *buf, size_t len)
{
	return units_format_rate(rate_Bps, buf, len);
}

int
keywords_format_time(uint64_t time_us, char *buf, size_t len)
{
	return units_format_time(time_us, false, buf, len);
}

int
keywords_format_size(uint64_t bytes, char *buf, size_t len)
{
	return units_format_size(bytes, buf, len);
}

/* The printed name of a mode: the first keyword with that action and mode. */
static const char *
kw_name(enum kw_action action, int mode)
{
	size_t	i;

	for (i = 0; i < KW_COUNT; i++)
		if (keywords[i].action == action && keywords[i].mode == mode)
			return keywords[i].name;
	return NULL;
}

/* Optimal string alignment distance, ignoring case; both at most 32 long. */
size_t
keywords_distance(const char *a, const char *b)
{
	size_t	d[KW_TOKEN_SHOWN + 1][KW_TOKEN_SHOWN + 1];
	size_t	la = strlen(a), lb = strlen(b), i, j, c, best;

	if (la > KW_TOKEN_SHOWN || lb > KW_TOKEN_SHOWN)
		return SIZE_MAX;

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]);
			best = d[i - 1][j - 1] + c;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *
keywords_suggest(const char *tok)
{
	char		 bare[KW_TOKEN_SHOWN + 1];
	const char	*best = NULL;
	size_t		 i, d, best_d = SIZE_MAX, limit, len = strlen(tok);

	/* Compare "nat" or 'nat' without its quotes: a common slip. */
	if (len >= 2 && (tok[0] == '"' || tok[0] == '\'') &&
	    tok[len - 1] == tok[0]) {
		tok++;
		len -= 2;
	}
	if (len > KW_TOKEN_SHOWN)
		return NULL;
	memcpy(bare, tok, len);
	bare[len] = '\0';
	for (i = 0; i < KW_COUNT; i++) {
		d = keywords_distance(bare, keywords[i].name);
		limit = strlen(keywords[i].name) <= 4 ? 1 : 2;
		if (d <= limit && d < best_d) {
			best = keywords[i].name;
			best_d = d;
		}
	}
	return best;
}

static int
kw_unknown(const char *tok, char *err, size_t errlen)
{
	char		 shown[KW_TOKEN_SHOWN + 4];
	const char	*best;

	kw_show(tok, shown, sizeof(shown));
	if ((best = keywords_suggest(tok)) != NULL)
		return kw_fail(err, errlen,
		    "unknown keyword '%s' (did you mean '%s'?)", shown, best);
	return kw_fail(err, errlen, "unknown keyword '%s'", shown);
}

/* A decimal integer with an optional '-', no suffix; -1 if not one. */
static int
kw_integer(const char *s, int64_t *out)
{
	const char	*p = s + (*s == '-');
	int64_t		 v = 0;

	if (*p == '\0')
		return -1;
	for (; *p != '\0'; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (v < INT64_MAX / 100)	/* huge values just stay huge */
			v = v * 10 + (*p - '0');
	}
	*out = *s == '-' ? -v : v;
	return 0;
}

static int
kw_ranged(const struct keyword *k, const char *val, int64_t lo, int64_t hi,
    int64_t *out, char *err, size_t errlen)
{
	char	shown[KW_TOKEN_SHOWN + 4];

	kw_show(val, shown, sizeof(shown));
	if (kw_integer(val, out) == -1)
		return kw_fail(err, errlen, "%s '%s': not an integer",
		    k->name, shown);
	if (*out < lo || *out > hi)
		return kw_fail(err, errlen, "%s %s: must be %" PRId64
		    "..%" PRId64, k->name, shown, lo, hi);
	return 0;
}

/* "8", "0x8", "0xff00": decimal or hexadecimal, 32 bits. */
static int
kw_fwmark(const char *val, uint32_t *mask, char *err, size_t errlen)
{
	char		 shown[KW_TOKEN_SHOWN + 4];
	const char	*p = val;
	unsigned int	 base = 10, dig;
	uint64_t	 v = 0;

	kw_show(val, shown, sizeof(shown));
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (*p == '\0')
		goto bad;
	for (; *p != '\0'; p++) {
		if (isdigit((unsigned char)*p))
			dig = (unsigned int)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			dig = (unsigned int)(tolower((unsigned char)*p) -
			    'a' + 10);
		else
			goto bad;
		v = v * base + dig;
		if (v > UINT32_MAX)
			return kw_fail(err, errlen,
			    "fwmark '%s': larger than 32 bits", shown);
	}
	*mask = (uint32_t)v;
	return 0;
bad:
	return kw_fail(err, errlen,
	    "fwmark '%s': not a mask (decimal or 0x hex)", shown);
}

/* "16384": a power of two from CAKE_QUEUES_MIN to CAKE_QUEUES_MAX. */
static int
kw_queues(const char *val, uint32_t *queues, char *err, size_t errlen)
{
	char	shown[KW_TOKEN_SHOWN + 4];
	int64_t	n;

	kw_show(val, shown, sizeof(shown));
	if (kw_integer(val, &n) == -1)
		return kw_fail(err, errlen, "queues '%s': not an integer",
		    shown);
	if (n < 0 || !cake_queues_valid((uint64_t)n))
		return kw_fail(err, errlen, "queues %s: must be a power of two "
		    "from %d to %d", shown, CAKE_QUEUES_MIN, CAKE_QUEUES_MAX);
	*queues = (uint32_t)n;
	return 0;
}

/* Applies a keyword that takes a value. */
static int
kw_apply_value(struct kw_parse *p, const struct keyword *k, const char *val,
    char *err, size_t errlen)
{
	char		 e[KEYWORDS_ERR_MAX], shown[KW_TOKEN_SHOWN + 4];
	uint64_t	 v64;
	uint32_t	 v32;
	int64_t		 n;

	kw_show(val, shown, sizeof(shown));
	switch (k->action) {
	case KW_BANDWIDTH:
		/* tc prints "bandwidth unlimited": accept it back. */
		if (strcmp(val, "unlimited") == 0)
			v64 = 0;
		else if (keywords_parse_rate(val, &v64, e, sizeof(e)) == -1)
			return kw_fail(err, errlen, "bandwidth %s", e);
		else if (v64 == 0)
			return kw_fail(err, errlen, "bandwidth '%s': below 1 "
			    "byte/s (use 'unlimited' for no shaping)", shown);

		p->cfg.rate_Bps = v64;
		p->cfg.autorate_ingress = false;
		return 0;
	case KW_RTT:
		if (keywords_parse_time(val, &v32, e, sizeof(e)) == -1)
			return kw_fail(err, errlen, "rtt %s", e);
		if (v32 == 0)
			return kw_fail(err, errlen,
			    "rtt '%s': must be at least 1us", shown);
		p->cfg.rtt_us = v32;
		p->cfg.target_us = v32 / 20 > 0 ? v32 / 20 : 1;
		return 0;
	case KW_MEMLIMIT:
		if (keywords_parse_size(val, &v64, e, sizeof(e)) == -1)
			return kw_fail(err, errlen, "memlimit %s", e);
		p->cfg.memlimit_bytes = v64;
		return 0;
	case KW_OVERHEAD:
		if (kw_ranged(k, val, KW_OVERHEAD_MIN, KW_OVERHEAD_MAX, &n,
		    err, errlen) == -1)
			return -1;
		p->overhead_sum = (int32_t)n;
		p->overhead_set = true;
		return 0;
	case KW_MPU:
		if (kw_ranged(k, val, 0, KW_MPU_MAX, &n, err, errlen) == -1)
			return -1;
		p->cfg.mpu = (uint32_t)n;
		return 0;
	case KW_FWMARK:
		return kw_fwmark(val, &p->cfg.fwmark_mask, err, errlen);
	case KW_QUEUES:
		return kw_queues(val, &p->cfg.queues, err, errlen);
	default:
		return kw_fail(err, errlen, "%s: internal error", k->name);
	}
}

/* Applies a keyword that stands alone. */
static void
kw_apply_flag(struct kw_parse *p, const struct keyword *k)
{
	switch (k->action) {
	case KW_UNLIMITED:
		p->cfg.rate_Bps = 0;
		p->cfg.autorate_ingress = false;
		break;
	case KW_AUTORATE:
		p->cfg.autorate_ingress = true;
		break;
	case KW_RTT_PRESET:
		p->cfg.rtt_us = k->interval_us;
		p->cfg.target_us = k->target_us;
		break;
	case KW_DIFFSERV:
		p->cfg.diffserv = (enum cake_diffserv)k->mode;
		break;
	case KW_FLOW:
		p->cfg.flow_mode = (enum cake_flow_mode)k->mode;
		break;
	case KW_NAT:
		p->cfg.nat = k->mode;
		break;
	case KW_WASH:
		p->cfg.wash = k->mode;
		break;
	case KW_SPLIT_GSO:
		p->cfg.split_gso = k->mode;
		break;
	case KW_ACK:
		p->cfg.ack_filter = (enum cake_ack_filter)k->mode;
		break;
	case KW_ATM:
		p->cfg.atm = (enum cake_atm)k->mode;
		break;
	case KW_RAW:
		p->cfg.atm = CAKE_ATM_NONE;
		p->overhead_sum = 0;
		p->overhead_set = true;
		p->raw = true;
		break;
	case KW_CONSERVATIVE:
		p->overhead_sum = 0;
		/* FALLTHROUGH */
	case KW_FRAMING:
		p->overhead_sum += k->overhead;
		p->overhead_set = true;
		if (k->mode != KW_KEEP)
			p->cfg.atm = (enum cake_atm)k->mode;
		if (k->mpu != KW_KEEP)
			p->cfg.mpu = (uint32_t)k->mpu;
		break;
	case KW_INGRESS:
		p->cfg.ingress = k->mode;
		break;
	default:
		break;
	}
}

static bool
kw_takes_value(const struct keyword *k)
{
	switch (k->action) {
	case KW_BANDWIDTH:
	case KW_RTT:
	case KW_MEMLIMIT:
	case KW_OVERHEAD:
	case KW_MPU:
	case KW_FWMARK:
	case KW_QUEUES:
		return true;
	default:
		return false;
	}
}

static const struct keyword *
kw_find(const char *tok)
{
	size_t	i;

	for (i = 0; i < KW_COUNT; i++)
		if (strcmp(tok, keywords[i].name) == 0)
			return &keywords[i];
	return NULL;
}

int
keywords_arity(const char *tok)
{
	const struct keyword	*k;

	if ((k = kw_find(tok)) == NULL)
		return -1;
	return kw_takes_value(k) ? 1 : 0;
}

/* Applies what only the whole line decides: the overhead and raw mode. */
static int
kw_finish(struct kw_parse *p, char *err, size_t errlen)
{
	if (!p->overhead_set)
		return 0;
	if (p->overhead_sum < KW_OVERHEAD_MIN ||
	    p->overhead_sum > KW_OVERHEAD_MAX)
		return kw_fail(err, errlen, "overhead %" PRId32
		    " (sum of the framing keywords): must be %d..%d",
		    p->overhead_sum, KW_OVERHEAD_MIN, KW_OVERHEAD_MAX);
	p->cfg.overhead = p->overhead_sum;
	/* The kernel handles RAW after OVERHEAD: raw wins wherever it is. */
	p->cfg.raw = p->raw;
	return 0;
}

int
keywords_parse_argv(struct cake_config *cfg, int argc, char *const argv[],
    char *err, size_t errlen)
{
	const struct keyword	*k;
	struct kw_parse		 p;
	int			 i;

	if (argc < 0 || (argc > 0 && argv == NULL))
		return kw_fail(err, errlen, "no arguments");
	memset(&p, 0, sizeof(p));
	p.cfg = *cfg;
	for (i = 0; i < argc; i++) {
		if (argv[i] == NULL)
			return kw_fail(err, errlen, "argument %d missing", i);
		if ((k = kw_find(argv[i])) == NULL)
			return kw_unknown(argv[i], err, errlen);
		if (k->action == KW_RTT || k->action == KW_RTT_PRESET) {
			if (p.rtt_by != NULL)
				return kw_fail(err, errlen, "%s: only one of "
				    "rtt and the rtt presets (lan, internet, "
				    "...) may be given (%s came first)",
				    k->name, p.rtt_by);
			p.rtt_by = k->name;
		}
		if (!kw_takes_value(k)) {
			kw_apply_flag(&p, k);
			continue;
		}
		if (i + 1 >= argc || argv[i + 1] == NULL)
			return kw_fail(err, errlen, "%s: missing value",
			    k->name);
		if (kw_apply_value(&p, k, argv[++i], err, errlen) == -1)
			return -1;
	}
	if (kw_finish(&p, err, errlen) == -1)
		return -1;
	*cfg = p.cfg;
	return 0;
}

int
keywords_parse_line(struct cake_config *cfg, const char *line, char *err,
    size_t errlen)
{
	char	 buf[KEYWORDS_LINE_MAX];
	char	*argv[KEYWORDS_LINE_MAX / 2];
	char	*s;
	size_t	 n;
	int	 argc = 0;

	if (line == NULL)
		return kw_fail(err, errlen, "no keyword line");
	n = strnlen(line, sizeof(buf));
	if (n >= sizeof(buf))
		return kw_fail(err, errlen, "keyword line longer than %d bytes",
		    KEYWORDS_LINE_MAX - 1);
	memcpy(buf, line, n + 1);
	for (s = buf; *s != '\0';) {
		while (isspace((unsigned char)*s))
			*s++ = '\0';
		if (*s == '\0')
			break;
		argv[argc++] = s;
		while (*s != '\0' && !isspace((unsigned char)*s))
			s++;
	}
	return keywords_parse_argv(cfg, argc, argv, err, errlen);
}

/* Appends " name" (or "name" first) for one keyword. */
static int
kw_word(char *buf, size_t len, size_t *pos, const char *name)
{
	if (name == NULL)
		return -1;
	return units_append(buf, len, pos, "%s%s", *pos > 0 ? " " : "", name);
}

static int
kw_format_head(const struct cake_config *cfg, char *buf, size_t len,
    size_t *pos)
{
	char		 v[32];
	const char	*rate = "unlimited";

	if (cfg->rate_Bps != 0) {
		if (keywords_format_rate(cfg->rate_Bps, v, sizeof(v)) == -1)
			return -1;
		rate = v;
	}
	if (units_append(buf, len, pos, "bandwidth %s", rate) == -1 ||
	    (cfg->autorate_ingress &&
	    kw_word(buf, len, pos, "autorate-ingress") == -1) ||
	    kw_word(buf, len, pos, kw_name(KW_DIFFSERV, cfg->diffserv)) == -1 ||
	    kw_word(buf, len, pos, kw_name(KW_FLOW, cfg->flow_mode)) == -1 ||
	    kw_word(buf, len, pos, cfg->nat ? "nat" : "nonat") == -1 ||
	    kw_word(buf, len, pos, cfg->wash ? "wash" : "nowash") == -1 ||
	    (cfg->ingress && kw_word(buf, len, pos, "ingress") == -1) ||
	    kw_word(buf, len, pos, kw_name(KW_ACK, cfg->ack_filter)) == -1 ||
	    kw_word(buf, len, pos, cfg->split_gso ? "split-gso" :
	    "no-split-gso") == -1)
		return -1;
	return 0;
}

static int
kw_format_tail(const struct cake_config *cfg, char *buf, size_t len,
    size_t *pos)
{
	char	v[32];

	if (units_format_time(cfg->rtt_us, true, v, sizeof(v)) == -1 ||
	    units_append(buf, len, pos, " rtt %s", v) == -1 ||
	    (cfg->raw && kw_word(buf, len, pos, "raw") == -1))
		return -1;
	if ((cfg->atm != CAKE_ATM_NONE || !cfg->raw) &&
	    kw_word(buf, len, pos, kw_name(KW_ATM, cfg->atm)) == -1)
		return -1;
	if (units_append(buf, len, pos, " overhead %" PRId32, cfg->overhead) == -1)
		return -1;
	if (cfg->mpu != 0 &&
	    units_append(buf, len, pos, " mpu %" PRIu32, cfg->mpu) == -1)
		return -1;
	if (cfg->memlimit_bytes != 0 &&
	    (keywords_format_size(cfg->memlimit_bytes, v, sizeof(v)) == -1 ||
	    units_append(buf, len, pos, " memlimit %s", v) == -1))
		return -1;
	if (cfg->fwmark_mask != 0 &&
	    units_append(buf, len, pos, " fwmark 0x%" PRIx32,
	    cfg->fwmark_mask) == -1)
		return -1;
	/* caked's extension, printed only when set, so that it parses back. */
	if (cfg->queues != CAKE_QUEUES_DEFAULT &&
	    (!cake_queues_valid(cfg->queues) ||
	    units_append(buf, len, pos, " queues %" PRIu32, cfg->queues) == -1))
		return -1;
	return 0;
}

const char *
keywords_diffserv_name(const struct cake_config *cfg)
{
	return kw_name(KW_DIFFSERV, cfg->diffserv);
}

const char *
keywords_flow_mode_name(const struct cake_config *cfg)
{
	return kw_name(KW_FLOW, cfg->flow_mode);
}

const char *
keywords_atm_name(const struct cake_config *cfg)
{
	return kw_name(KW_ATM, cfg->atm);
}

int
keywords_format(const struct cake_config *cfg, char *buf, size_t len)
{
	size_t	pos = 0;

	if (buf == NULL || len == 0)
		return -1;
	buf[0] = '\0';
	if (kw_format_head(cfg, buf, len, &pos) == -1 ||
	    kw_format_tail(cfg, buf, len, &pos) == -1) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

int
keywords_check_floors(const struct cake_config *cfg, uint32_t mtu,
    char *err, size_t errlen)
{
	uint64_t	mem_min, rate_min;

	if (mtu == 0)
		mtu = 1500;
	mem_min = 4 * (mtu + 22ULL);
	if (mem_min < KEYWORDS_MEMLIMIT_MIN)
		mem_min = KEYWORDS_MEMLIMIT_MIN;
	rate_min = mtu + 14ULL;
	if (rate_min < KEYWORDS_RATE_MIN_Bps)
		rate_min = KEYWORDS_RATE_MIN_Bps;
	if (cfg->memlimit_bytes != 0 && cfg->memlimit_bytes < mem_min)
		return kw_fail(err, errlen, "memlimit %" PRIu64 "b: below %"
		    PRIu64 "b, the least that holds 4 frames of mtu %" PRIu32,
		    cfg->memlimit_bytes, mem_min, mtu);
	if (cfg->rate_Bps != 0 && cfg->rate_Bps < rate_min)
		return kw_fail(err, errlen, "bandwidth %" PRIu64 "bit: below %"
		    PRIu64 "bit, one frame of mtu %" PRIu32 " a second",
		    cfg->rate_Bps * 8, rate_min * 8, mtu);
	return 0;
}
