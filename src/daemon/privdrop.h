/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * privdrop.h: switching to an unprivileged user after startup.
 */
#ifndef CAKED_DAEMON_PRIVDROP_H
#define CAKED_DAEMON_PRIVDROP_H

/*
 * Switches the process to user (its primary group only), for good,
 * keeping CAP_NET_ADMIN alone (permitted, effective and bounding sets),
 * with no ambient capabilities and no_new_privs set. Must be called as
 * root. Returns 0, or -1 with errno (ENOENT: no such user).
 */
int	privdrop_user(const char *user);

/*
 * Without a user switch: clears the ambient capability set and sets
 * no_new_privs, so nothing caked might execute gains privileges.
 * Returns 0, or -1 with errno.
 */
int	privdrop_restrict(void);

#endif /* CAKED_DAEMON_PRIVDROP_H */
