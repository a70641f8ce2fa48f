/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * units.h: tc's number syntax for rates, times and sizes
 * (src/common/units.c), the arithmetic under keywords.h. Only keywords.c
 * should need it; everyone else uses keywords_parse_rate() and friends.
 */
#ifndef CAKED_COMMON_UNITS_H
#define CAKED_COMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum units_kind {
	UNITS_RATE,	/* bit/s by default, "bps" suffixes bytes/s -> B/s */
	UNITS_TIME,	/* us by default, "ms", "s" -> us, at most UINT32_MAX */
	UNITS_SIZE,	/* bytes by default, "kb", "mb", "gb" are 1024-based */
};

enum units_err {
	UNITS_OK = 0,
	UNITS_JUNK = -1,	/* not a number, or an unknown suffix */
	UNITS_NEGATIVE = -2,
	UNITS_RANGE = -3,	/* does not fit */
};

/*
 * Parses "20mbit", "1.5ms", "4mb": digits, an optional fraction (9
 * decimals kept) and a case-insensitive suffix. The result is truncated to
 * whole bytes/s, microseconds or bytes.
 */
enum units_err	units_parse(enum units_kind kind, const char *s,
		    uint64_t *out);
/* "20Mbit", "6250Kbit", "160000008bit": the largest exact unit. */
int	units_format_rate(uint64_t rate_Bps, char *buf, size_t len);
/*
 * exact: "5ms", "1.5s", "14600us": never rounded (a smaller unit instead),
 * so that units_parse() gives time_us back. Otherwise tc's statistics
 * form, three significant digits: "14.6ms", "110ms", "727us".
 */
int	units_format_time(uint64_t time_us, bool exact, char *buf, size_t len);
/* "4Mb", "15140Kb", "10000b": the largest exact unit. */
int	units_format_size(uint64_t bytes, char *buf, size_t len);
/* printf-appends to buf[0..len) at *pos; -1 (nothing appended) if it does not fit. */
int	units_append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

#endif /* CAKED_COMMON_UNITS_H */
