/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * notify.h: service manager notification (sd_notify protocol).
 */
#ifndef CAKED_DAEMON_NOTIFY_H
#define CAKED_DAEMON_NOTIFY_H

/*
 * Sends state (e.g. "READY=1") to $NOTIFY_SOCKET. Returns 1 if sent, 0
 * if no service manager asked for it, -1 on error (errno set).
 */
int	notify_send(const char *state);

#endif /* CAKED_DAEMON_NOTIFY_H */
