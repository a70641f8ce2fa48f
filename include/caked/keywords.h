/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * keywords.h: the one parser and printer of tc-cake keyword strings
 * ("bandwidth 20mbit diffserv4 nat ack-filter"), shared by the config
 * loader, cakectl set and the statistics printer (src/common/keywords.c).
 *
 * Parsing applies keywords on top of the config given, as `tc qdisc
 * change` does, so callers start from cake_config_default() for a fresh
 * instance. Printing gives tc's order, and parsing the printed string
 * gives back the same parameters.
 *
 * As in tc, the framing presets (ethernet, pppoe-ptm, ...) add to an
 * overhead sum that starts at 0 on each call, "overhead N" replaces that
 * sum, "conservative" sets it to 48, and "raw" anywhere on the line keeps
 * raw mode (the kernel handles RAW after OVERHEAD). Unlike tc, "mpu 0"
 * resets the mpu, and at most one of rtt and the rtt presets may appear.
 *
 * One keyword is caked's, not tc's: "queues N" (a power of two from 1024
 * to 65536, default 1024) sets the flow queues and host slots per tin. It
 * can only be given to a new instance (cake_change() refuses a change).
 */
#ifndef CAKED_CAKED_KEYWORDS_H
#define CAKED_CAKED_KEYWORDS_H

#include <stddef.h>
#include <stdint.h>

struct cake_config;

#define KEYWORDS_ERR_MAX	160	/* enough for any error message */
#define KEYWORDS_LINE_MAX	1024	/* bytes of a line, with its NUL */
/*
 * Floors of settings under which nothing passes. The parser accepts what
 * tc accepts (the kernel's tests use "memlimit 9" to reach its drop
 * paths, and so do caked's engine tests); the daemon refuses less with
 * keywords_check_floors(): a memlimit must hold 4 full-size frames as
 * caked stores them (a 1514-byte frame takes under 2 KB of buffer), a
 * rate must carry one full-size frame a second.
 */
#define KEYWORDS_MEMLIMIT_MIN	8192		/* bytes, at mtu 1500 */
#define KEYWORDS_RATE_MIN_Bps	1514		/* bytes per second, same */

/*
 * Applies argv[0..argc) to cfg. Returns 0, or -1 with a one-line message
 * in err (e.g. "unknown keyword 'ack-filtr' (did you mean 'ack-filter'?)").
 * On error cfg is left unchanged.
 */
int	keywords_parse_argv(struct cake_config *cfg, int argc,
	    char *const argv[], char *err, size_t errlen);
/*
 * The same for one whitespace-separated line, which must be shorter than
 * KEYWORDS_LINE_MAX. Quotes are not special: the config layer strips them.
 */
int	keywords_parse_line(struct cake_config *cfg, const char *line,
	    char *err, size_t errlen);
/* 1 if keyword tok takes a value, 0 if it stands alone, -1 if unknown. */
int	keywords_arity(const char *tok);
/* Edit distance of a and b, ignoring case (SIZE_MAX beyond 32 bytes). */
size_t	keywords_distance(const char *a, const char *b);
/* The keyword nearest to tok (a likely misspelling of it), or NULL. */
const char	*keywords_suggest(const char *tok);
/*
 * Refuses (-1, reason in err) a memlimit under max(KEYWORDS_MEMLIMIT_MIN,
 * 4 * (mtu + 22)) bytes or a rate under max(KEYWORDS_RATE_MIN_Bps,
 * mtu + 14) bytes/s; mtu 0 means 1500. Zero (automatic, unlimited) is fine.
 */
int	keywords_check_floors(const struct cake_config *cfg, uint32_t mtu,
	    char *err, size_t errlen);
/*
 * Prints cfg as tc prints the options line (with " queues N" at the end
 * when it is not the default). Returns 0, or -1 (and "") if buf is too
 * small or an enum of cfg (or queues) is out of range.
 */
int	keywords_format(const struct cake_config *cfg, char *buf, size_t len);
/*
 * The keyword of cfg's DiffServ mode ("diffserv3"), flow isolation mode
 * ("triple-isolate") and ATM mode ("noatm"), as printed; NULL if out of
 * range. For renderers that need one field alone (tc's JSON layout).
 */
const char	*keywords_diffserv_name(const struct cake_config *cfg);
const char	*keywords_flow_mode_name(const struct cake_config *cfg);
const char	*keywords_atm_name(const struct cake_config *cfg);

/*
 * "20mbit", "2500kbps", "1gbit", "1000" (bit/s) -> bytes per second,
 * rounded down. Suffixes are case-insensitive; decimals ("1.5mbit") are
 * allowed. The value parsers write "'fast': not a rate (...)" into err.
 */
int	keywords_parse_rate(const char *s, uint64_t *rate_Bps, char *err,
	    size_t errlen);
/* "100ms", "5us", "1s", "200" (us) -> microseconds (at most 2^32 - 1). */
int	keywords_parse_time(const char *s, uint32_t *time_us, char *err,
	    size_t errlen);
/* "4mb", "10000", "1500kb" (b = bytes; k, m, g are 1024-based) -> bytes. */
int	keywords_parse_size(const char *s, uint64_t *bytes, char *err,
	    size_t errlen);
/* Rate as tc prints it ("20Mbit"), exact enough to parse back. */
int	keywords_format_rate(uint64_t rate_Bps, char *buf, size_t len);
/*
 * Time as tc prints it for statistics ("5ms", "110ms", "14.6ms", "8.64ms",
 * "1.5s", "727us"): tc's "%.3g" in s from 1s, in ms from 1ms, else whole
 * us (iproute2 tc/tc_util.c print_time()).
 */
int	keywords_format_time(uint64_t time_us, char *buf, size_t len);
/* Size as tc prints it ("5000000b", "15140Kb"). */
int	keywords_format_size(uint64_t bytes, char *buf, size_t len);

#endif /* CAKED_CAKED_KEYWORDS_H */
