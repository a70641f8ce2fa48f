/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * units.c: tc's number syntax (tc/tc_util.c get_rate64, get_time,
 * get_size, sprint_rate, sprint_time, sprint_size) for keywords.c.
 *
 * Parsing is exact integer arithmetic with overflow checks (no floating
 * point, so "0.1mbit" is exactly 12500 B/s); printing picks units so that
 * parsing the output gives the same number back. No I/O, no allocation.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/units.h"

#define UNITS_FRAC_DIGITS	9	/* decimals kept; more are truncated */

/* A unit suffix: value = number * mult / div. */
struct units_unit {
	const char	*suffix;
	uint64_t	 mult;
	uint64_t	 div;
};

#define K10	1000ULL
#define K2	1024ULL

/* tc's get_rate64(): plain numbers are bit/s; stored in bytes/s. */
static const struct units_unit rate_units[] = {
	{ "", 1, 8 }, { "bit", 1, 8 },
	{ "kbit", K10, 8 }, { "mbit", K10 * K10, 8 },
	{ "gbit", K10 * K10 * K10, 8 }, { "tbit", K10 * K10 * K10 * K10, 8 },
	{ "kibit", K2, 8 }, { "mibit", K2 * K2, 8 },
	{ "gibit", K2 * K2 * K2, 8 }, { "tibit", K2 * K2 * K2 * K2, 8 },
	{ "bps", 1, 1 },
	{ "kbps", K10, 1 }, { "mbps", K10 * K10, 1 },
	{ "gbps", K10 * K10 * K10, 1 }, { "tbps", K10 * K10 * K10 * K10, 1 },
	{ "kibps", K2, 1 }, { "mibps", K2 * K2, 1 },
	{ "gibps", K2 * K2 * K2, 1 }, { "tibps", K2 * K2 * K2 * K2, 1 },
};

/* tc's get_time(): plain numbers are microseconds. */
static const struct units_unit time_units[] = {
	{ "", 1, 1 }, { "us", 1, 1 }, { "usec", 1, 1 }, { "usecs", 1, 1 },
	{ "ms", K10, 1 }, { "msec", K10, 1 }, { "msecs", K10, 1 },
	{ "s", K10 * K10, 1 }, { "sec", K10 * K10, 1 },
	{ "secs", K10 * K10, 1 },
};

/* tc's get_size(): plain numbers are bytes, multiples are 1024-based. */
static const struct units_unit size_units[] = {
	{ "", 1, 1 }, { "b", 1, 1 },
	{ "k", K2, 1 }, { "kb", K2, 1 }, { "kbit", K2, 8 },
	{ "m", K2 * K2, 1 }, { "mb", K2 * K2, 1 }, { "mbit", K2 * K2, 8 },
	{ "g", K2 * K2 * K2, 1 }, { "gb", K2 * K2 * K2, 1 },
	{ "gbit", K2 * K2 * K2, 8 },
};

#define NUNITS(t)	(sizeof(t) / sizeof((t)[0]))

static const struct {
	const struct units_unit	*units;
	size_t			 count;
	uint64_t		 max;
} kinds[] = {
	[UNITS_RATE] = { rate_units, NUNITS(rate_units), UINT64_MAX },
	[UNITS_TIME] = { time_units, NUNITS(time_units), UINT32_MAX },
	[UNITS_SIZE] = { size_units, NUNITS(size_units), UINT64_MAX },
};

/* The parts of a decimal number "123.45": ip + frac / 10^frac_digits. */
struct units_num {
	uint64_t	 ip;
	uint64_t	 frac;
	unsigned int	 frac_digits;
	const char	*suffix;
};

static enum units_err
units_split(const char *s, struct units_num *n)
{
	const char	*p = s;
	bool		 digits = false;

	memset(n, 0, sizeof(*n));
	if (*p == '-')
		return isdigit((unsigned char)p[1]) || p[1] == '.' ?
		    UNITS_NEGATIVE : UNITS_JUNK;
	for (; isdigit((unsigned char)*p); p++) {
		digits = true;
		if (__builtin_mul_overflow(n->ip, 10, &n->ip) ||
		    __builtin_add_overflow(n->ip, (uint64_t)(*p - '0'), &n->ip))
			return UNITS_RANGE;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return UNITS_JUNK;
		for (; isdigit((unsigned char)*p); p++) {
			digits = true;
			if (n->frac_digits == UNITS_FRAC_DIGITS)
				continue;
			n->frac = n->frac * 10 + (uint64_t)(*p - '0');
			n->frac_digits++;
		}
	}
	if (!digits)
		return UNITS_JUNK;
	n->suffix = p;
	return UNITS_OK;
}

/* floor(n * mult / div), or -1 on overflow. */
static int
units_scale(const struct units_num *n, const struct units_unit *u,
    uint64_t *out)
{
	uint64_t	whole, frac, pow10 = 1, q, r;
	unsigned int	i;

	for (i = 0; i < n->frac_digits; i++)
		pow10 *= 10;
	if (__builtin_mul_overflow(n->ip, u->mult, &whole))
		return -1;
	/* frac < 10^9 and r < 10^9, so neither product overflows. */
	q = u->mult / pow10;
	r = u->mult % pow10;
	frac = n->frac * q + n->frac * r / pow10;
	if (__builtin_add_overflow(whole, frac, &whole))
		return -1;
	*out = whole / u->div;
	return 0;
}

enum units_err
units_parse(enum units_kind kind, const char *s, uint64_t *out)
{
	struct units_num	n;
	enum units_err		e;
	uint64_t		v;
	size_t			i;

	if (s == NULL || (unsigned int)kind >= NUNITS(kinds))
		return UNITS_JUNK;
	if ((e = units_split(s, &n)) != UNITS_OK)
		return e;
	for (i = 0; i < kinds[kind].count; i++)
		if (strcasecmp(n.suffix, kinds[kind].units[i].suffix) == 0)
			break;
	if (i == kinds[kind].count)
		return UNITS_JUNK;
	if (units_scale(&n, &kinds[kind].units[i], &v) == -1 ||
	    v > kinds[kind].max)
		return UNITS_RANGE;
	*out = v;
	return UNITS_OK;
}

int
units_append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (*pos >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *pos)
		return -1;
	*pos += (size_t)n;
	return 0;
}

/* Prints "<v><unit>" into buf, or "" and -1 if it does not fit. */
static int
units_print(char *buf, size_t len, uint64_t v, const char *unit)
{
	size_t	pos = 0;

	if (buf == NULL || len == 0)
		return -1;
	if (units_append(buf, len, &pos, "%" PRIu64 "%s", v, unit) == -1) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

int
units_format_rate(uint64_t rate_Bps, char *buf, size_t len)
{
	static const struct { const char *unit; uint64_t bits; } units[] = {
		{ "Tbit", K10 * K10 * K10 * K10 }, { "Gbit", K10 * K10 * K10 },
		{ "Mbit", K10 * K10 }, { "Kbit", K10 },
	};
	uint64_t	bits;
	size_t		i;

	/* Beyond 2^61 bytes/s the bit count overflows: print bytes/s. */
	if (__builtin_mul_overflow(rate_Bps, 8, &bits))
		return units_print(buf, len, rate_Bps, "bps");
	for (i = 0; i < NUNITS(units); i++)
		if (bits != 0 && bits % units[i].bits == 0)
			return units_print(buf, len, bits / units[i].bits,
			    units[i].unit);
	return units_print(buf, len, bits, "bit");
}

/*
 * A statistic as tc prints it: print_time() in iproute2's tc/tc_util.c
 * gives "%.3gs" from 1 s, "%.3gms" from 1 ms, else "%uus", i.e. three
 * significant digits ("110ms", "14.5ms", "8.64ms"), with %g's quirks
 * (999.6 ms prints "1e+03ms", as tc does).
 */
static int
units_format_stat_time(uint64_t time_us, char *buf, size_t len)
{
	int	n;

	if (time_us >= K10 * K10)
		n = snprintf(buf, len, "%.3gs", (double)time_us / 1e6);
	else if (time_us >= K10)
		n = snprintf(buf, len, "%.3gms", (double)time_us / 1e3);
	else
		return units_print(buf, len, time_us, "us");
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/*
 * exact (an option such as rtt): the largest of s, ms and us that reaches
 * 1 and loses nothing, with one decimal at most. Otherwise a statistic.
 */
int
units_format_time(uint64_t time_us, bool exact, char *buf, size_t len)
{
	static const struct { const char *unit; uint64_t us; } units[] = {
		{ "s", K10 * K10 }, { "ms", K10 },
	};
	uint64_t	tenth, t;
	size_t		i, pos = 0;
	int		rc;

	if (buf == NULL || len == 0)
		return -1;
	if (!exact)
		return units_format_stat_time(time_us, buf, len);
	for (i = 0; i < NUNITS(units); i++) {
		tenth = units[i].us / 10;
		if (time_us < units[i].us || time_us % tenth != 0)
			continue;
		t = time_us / tenth;
		if (t % 10 == 0)
			rc = units_append(buf, len, &pos, "%" PRIu64 "%s",
			    t / 10, units[i].unit);
		else
			rc = units_append(buf, len, &pos, "%" PRIu64 ".%u%s",
			    t / 10, (unsigned int)(t % 10), units[i].unit);
		if (rc == -1 && len > 0)
			buf[0] = '\0';
		return rc;
	}
	return units_print(buf, len, time_us, "us");
}

int
units_format_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes != 0 && bytes % (K2 * K2) == 0)
		return units_print(buf, len, bytes / (K2 * K2), "Mb");
	if (bytes != 0 && bytes % K2 == 0)
		return units_print(buf, len, bytes / K2, "Kb");
	return units_print(buf, len, bytes, "b");
}

