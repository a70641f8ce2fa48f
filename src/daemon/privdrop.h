/*
 * privdrop.h: switching to an unprivileged user after startup.
 */
#ifndef CAKED_DAEMON_PRIVDROP_H
#define CAKED_DAEMON_PRIVDROP_H

/*
 * Switches the process to user (its primary group only), for good.
 * Returns 0, or -1 with errno (ENOENT: no such user).
 */
int	privdrop_user(const char *user);

#endif /* CAKED_DAEMON_PRIVDROP_H */
