/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * notify.c: tells systemd (Type=notify) that caked is ready, reloading or
 * stopping, pings its watchdog and shows a status line, by sending a
 * datagram to $NOTIFY_SOCKET as sd_notify(3) describes, without linking
 * libsystemd (as chrony does).
 *
 * It never blocks and never fails the daemon: the caller logs an error.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/notify.h"

int
notify_send(const char *state)
{
	struct sockaddr_un	 sun;
	const char		*path = getenv("NOTIFY_SOCKET");
	size_t			 len;
	socklen_t		 salen;
	ssize_t			 n;
	int			 fd, saved;

	if (path == NULL || *path == '\0')
		return 0;
	/* An abstract socket is written with '@' in place of the NUL. */
	if ((*path != '/' && *path != '@') ||
	    (len = strlen(path)) >= sizeof(sun.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, len);
	if (*path == '@')
		sun.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
	    (*path == '@' ? 0 : 1));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return -1;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, salen);
	saved = errno;
	close(fd);
	errno = saved;
	return n == -1 ? -1 : 1;
}

int
notify_reloading(uint64_t now_ns)
{
	char	msg[64];

	/*
	 * MONOTONIC_USEC tells a Type=notify-reload manager (systemd 253+)
	 * which reload this is; older ones ignore it.
	 */
	(void)snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
	    now_ns / 1000);
	return notify_send(msg);
}

int
notify_status(const char *line)
{
	char	msg[NOTIFY_STATUS_MAX + 8];
	int	n;

	n = snprintf(msg, sizeof(msg), "STATUS=%s", line);
	if (n < 0 || (size_t)n >= sizeof(msg)) {
		errno = EMSGSIZE;
		return -1;
	}
	return notify_send(msg);
}

uint64_t
notify_watchdog_us(void)
{
	const char		*s = getenv("WATCHDOG_USEC");
	const char		*pid = getenv("WATCHDOG_PID");
	char			*end;
	unsigned long long	 us;

	if (s == NULL || *s < '0' || *s > '9')
		return 0;
	/* Set for another process (our parent, say): not ours to ping. */
	if (pid != NULL && *pid != '\0' &&
	    strtoll(pid, &end, 10) != (long long)getpid())
		return 0;
	errno = 0;
	us = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return 0;
	return us;
}
