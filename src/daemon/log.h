/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * log.h: the daemon's logging, in the style of OpenBSD's log.c.
 */
#ifndef CAKED_DAEMON_LOG_H
#define CAKED_DAEMON_LOG_H

#include <stdarg.h>
#include <stdint.h>

/* Levels are syslog priorities: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */

/* Starts logging to stderr (to_syslog 0) or syslog, at most at level. */
void	log_init(int to_syslog, int level, const char *ident);
/*
 * "<4>" for LOG_WARNING and so on when stderr is the journal (log_init()
 * compared $JOURNAL_STREAM with it), else "": for lines printed directly.
 */
const char *log_prefix(int pri);
/* Changes the most verbose level logged (a syslog priority). */
void	log_setlevel(int level);

/* Warning with ": strerror(errno)" appended; errno is preserved. */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Warning without errno. */
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Logs at LOG_ERR and exits 1: startup only. */
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/*
 * A rate limit for one cause on the packet path: at most one line per
 * LOG_RATE_INTERVAL_NS; the lines held back are counted and reported with
 * the next line that gets through.
 */
#define LOG_RATE_INTERVAL_NS	1000000000ULL
struct log_rate {
	uint64_t	last_ns;	/* when the last line was logged */
	uint64_t	suppressed;	/* lines held back since then */
	int		used;		/* last_ns is valid */
};

/* Logs a warning unless one for this cause was logged within a second. */
void	log_rate_warnx(struct log_rate *rl, uint64_t now_ns,
	    const char *, ...) __attribute__((format(printf, 3, 4)));

#endif /* CAKED_DAEMON_LOG_H */
