/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_probe.h: the delay probes of autorate: ICMP echo and ICMP
 * timestamp requests to IPv4 reflectors, ICMPv6 echo to IPv6 ones. The
 * adapter sends, matches replies and hands what it measured to a callback;
 * what it means is autorate.c's business.
 */
#ifndef CAKED_DAEMON_AUTORATE_PROBE_H
#define CAKED_DAEMON_AUTORATE_PROBE_H

#include <netinet/in.h>

#include <stdbool.h>
#include <stdint.h>

#include "daemon/autorate.h"

#define PROBE_TARGETS_MAX	AUTORATE_REFLECTORS_MAX
#define PROBE_INFLIGHT_MAX	1024	/* probes remembered for matching */

/* What a probe asks for. */
#define PROBE_ECHO		0	/* ICMP or ICMPv6 echo */
#define PROBE_TIMESTAMP		1	/* ICMP timestamp (type 13), IPv4 */

struct autorate_probe;

struct autorate_probe_stats {
	uint64_t	sent;
	uint64_t	send_errors;
	uint64_t	replies;
	uint64_t	unmatched;	/* not ours, or forgotten (too late) */
	uint64_t	kernel_stamps;	/* replies timed by the kernel */
};

/* One answer. */
struct autorate_probe_reply {
	unsigned int	idx;		/* target */
	int		kind;		/* PROBE_ECHO or PROBE_TIMESTAMP */
	uint64_t	rtt_ns;		/* by our monotonic clock */
	uint64_t	now_ns;		/* its arrival */
	/*
	 * PROBE_TIMESTAMP only: the reply's three timestamps (host order,
	 * ms since midnight UTC unless the high bit is set) and ours at its
	 * arrival, on the same scale.
	 */
	uint32_t	originate_ms;
	uint32_t	receive_ms;
	uint32_t	transmit_ms;
	uint32_t	arrival_ms;
};

typedef void	autorate_probe_reply_fn(void *arg,
		    const struct autorate_probe_reply *rep);

/*
 * Opens a raw ICMP socket (needs CAP_NET_RAW: call before dropping
 * privileges), or else an unprivileged ping socket (needs
 * net.ipv4.ping_group_range), and the same for ICMPv6 (failing that, IPv6
 * targets cannot be probed: their sends fail and are counted).
 * Non-blocking, close-on-exec. NULL + errno if no IPv4 socket opens.
 */
struct autorate_probe	*autorate_probe_open(void);
/* "raw" or "ping socket" (the IPv4 one). */
const char	*autorate_probe_kind(const struct autorate_probe *p);
/* Whether PROBE_TIMESTAMP can be sent (a raw IPv4 socket). */
bool		 autorate_probe_can_timestamp(const struct autorate_probe *p);
/* The descriptors to watch for EV_READ: IPv4, and IPv6 (-1: none). */
int		 autorate_probe_fd(const struct autorate_probe *p);
int		 autorate_probe_fd6(const struct autorate_probe *p);
/* Sets the targets (at most PROBE_TARGETS_MAX); forgets probes in flight. */
void		 autorate_probe_set_targets(struct autorate_probe *p,
		    const struct autorate_addr *a, unsigned int n);
/*
 * Sends one probe of kind (PROBE_ECHO, or PROBE_TIMESTAMP to an IPv4
 * target) to target idx. 0 or -1 (errno; counted).
 */
int		 autorate_probe_send(struct autorate_probe *p, unsigned int idx,
		    int kind, uint64_t now_ns);
/* Reads every waiting reply on both sockets, calling fn for each of ours. */
void		 autorate_probe_recv(struct autorate_probe *p, uint64_t now_ns,
		    autorate_probe_reply_fn *fn, void *arg);
void		 autorate_probe_stats(const struct autorate_probe *p,
		    struct autorate_probe_stats *st);
void		 autorate_probe_close(struct autorate_probe *p);

#endif /* CAKED_DAEMON_AUTORATE_PROBE_H */
