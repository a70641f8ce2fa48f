/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * probe.h: ICMP echo probes to autorate's reflectors (IPv4). The adapter
 * sends, matches replies and hands round-trip times to a callback; what
 * they mean is autorate.c's business.
 */
#ifndef CAKED_DAEMON_PROBE_H
#define CAKED_DAEMON_PROBE_H

#include <netinet/in.h>

#include <stdint.h>

#define PROBE_TARGETS_MAX	8	/* = AUTORATE_REFLECTORS_MAX */
#define PROBE_INFLIGHT_MAX	1024	/* probes remembered for matching */

struct probe;

struct probe_stats {
	uint64_t	sent;
	uint64_t	send_errors;
	uint64_t	replies;
	uint64_t	unmatched;	/* not ours, or forgotten (too late) */
	uint64_t	kernel_stamps;	/* replies timed by the kernel */
};

/* Receives one answer: target idx, its round trip, at now_ns. */
typedef void	probe_reply_fn(void *arg, unsigned int idx, uint64_t rtt_ns,
		    uint64_t now_ns);

/*
 * Opens a raw ICMP socket (needs CAP_NET_RAW: call before dropping
 * privileges), or else an unprivileged ping socket (needs
 * net.ipv4.ping_group_range). Non-blocking, close-on-exec. NULL + errno.
 */
struct probe	*probe_open(void);
/* "raw" or "ping socket". */
const char	*probe_kind(const struct probe *p);
/* The descriptor to watch for EV_READ. */
int		 probe_fd(const struct probe *p);
/* Sets the targets (at most PROBE_TARGETS_MAX); forgets probes in flight. */
void		 probe_set_targets(struct probe *p, const struct in_addr *a,
		    unsigned int n);
/* Sends one echo request to target idx. 0 or -1 (errno; counted). */
int		 probe_send(struct probe *p, unsigned int idx, uint64_t now_ns);
/* Reads every waiting reply, calling fn for each of ours. */
void		 probe_recv(struct probe *p, uint64_t now_ns,
		    probe_reply_fn *fn, void *arg);
void		 probe_stats(const struct probe *p, struct probe_stats *st);
void		 probe_close(struct probe *p);

#endif /* CAKED_DAEMON_PROBE_H */
