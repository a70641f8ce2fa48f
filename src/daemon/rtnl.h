/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * rtnl.h: link configuration over rtnetlink (libmnl).
 */
#ifndef CAKED_DAEMON_RTNL_H
#define CAKED_DAEMON_RTNL_H

#include <stdint.h>

/* Sets device name's MTU (bytes) and brings it up. 0, or -1 with errno. */
int	rtnl_link_up(const char *name, uint32_t mtu);

#endif /* CAKED_DAEMON_RTNL_H */
