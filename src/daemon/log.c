/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * log.c: log lines to stderr (foreground, systemd's journal picks them up)
 * or to syslog, filtered by a level, in the manner of OpenBSD's log.c.
 * When stderr is the journal ($JOURNAL_STREAM names its device and inode)
 * each line starts with its syslog priority, "<4>" say, which journald
 * takes as the line's priority (sd-daemon(3)); elsewhere lines are plain.
 *
 * Every function preserves errno. fatalx() exits, and is meant for
 * startup only. The packet path must use log_rate_warnx(), never a plain
 * log call per packet.
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "daemon/log.h"

static int	 log_to_syslog;
/* Set by main (on reload too), read by every thread that logs. */
static _Atomic int log_level = LOG_INFO;
static const char *log_ident = "caked";
static int	 log_journal;		/* stderr is the journal: "<N>" */

/* Whether $JOURNAL_STREAM ("DEV:INODE") is the file stderr is open on. */
static int
log_stderr_is_journal(void)
{
	const char	*env = getenv("JOURNAL_STREAM");
	struct stat	 st;
	uintmax_t	 dev, ino;
	char		 end;

	if (env == NULL || sscanf(env, "%ju:%ju%c", &dev, &ino, &end) != 2)
		return 0;
	if (fstat(fileno(stderr), &st) == -1)
		return 0;
	return (uintmax_t)st.st_dev == dev && (uintmax_t)st.st_ino == ino;
}

void
log_init(int to_syslog, int level, const char *ident)
{
	if (log_to_syslog && !to_syslog)
		closelog();
	log_to_syslog = to_syslog;
	atomic_store_explicit(&log_level, level, memory_order_relaxed);
	log_journal = log_stderr_is_journal();
	if (ident != NULL)
		log_ident = ident;
	if (log_to_syslog)
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

const char *
log_prefix(int pri)
{
	static const char *const pfx[] = {
		"<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>",
	};

	return log_journal && pri >= 0 && pri <= 7 ? pfx[pri] : "";
}

void
log_setlevel(int level)
{
	atomic_store_explicit(&log_level, level, memory_order_relaxed);
}

static void	vlog(int, const char *, va_list, int)
		    __attribute__((format(printf, 2, 0)));

static void
vlog(int pri, const char *fmt, va_list ap, int with_errno)
{
	char	msg[1024];
	int	saved_errno = errno;

	if (pri > atomic_load_explicit(&log_level, memory_order_relaxed)) {
		errno = saved_errno;
		return;
	}
	/* A truncated line is still worth logging: vsnprintf terminates it. */
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_to_syslog) {
		if (with_errno)
			syslog(pri, "%s: %s", msg, strerror(saved_errno));
		else
			syslog(pri, "%s", msg);
	} else {
		/* One write per line: stderr is unbuffered. */
		if (with_errno)
			fprintf(stderr, "%s%s: %s: %s\n", log_prefix(pri),
			    log_ident, msg, strerror(saved_errno));
		else
			fprintf(stderr, "%s%s: %s\n", log_prefix(pri),
			    log_ident, msg);
		fflush(stderr);
	}
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap, 1);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap, 0);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap, 0);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap, 0);
	va_end(ap);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void
log_rate_warnx(struct log_rate *rl, uint64_t now_ns, const char *fmt, ...)
{
	va_list	ap;
	char	msg[512];
	int	saved_errno = errno;

	if (rl->used && now_ns - rl->last_ns < LOG_RATE_INTERVAL_NS) {
		rl->suppressed++;
		return;
	}
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rl->suppressed > 0)
		log_warnx("%s (%llu similar lines suppressed)", msg,
		    (unsigned long long)rl->suppressed);
	else
		log_warnx("%s", msg);
	rl->used = 1;
	rl->last_ns = now_ns;
	rl->suppressed = 0;
	errno = saved_errno;
}
