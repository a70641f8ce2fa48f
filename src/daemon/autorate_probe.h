/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_probe.h: ICMP echo probes to autorate's reflectors (IPv4). The
 * adapter sends, matches replies and hands round-trip times to a callback; what
 * they mean is autorate.c's business.
 */
#ifndef CAKED_DAEMON_AUTORATE_PROBE_H
#define CAKED_DAEMON_AUTORATE_PROBE_H

#include <netinet/in.h>

#include <stdint.h>

#define PROBE_TARGETS_MAX	8	/* = AUTORATE_REFLECTORS_MAX */
#define PROBE_INFLIGHT_MAX	1024	/* probes remembered for matching */

struct autorate_probe;

struct autorate_probe_stats {
	uint64_t	sent;
	uint64_t	send_errors;
	uint64_t	replies;
	uint64_t	unmatched;	/* not ours, or forgotten (too late) */
	uint64_t	kernel_stamps;	/* replies timed by the kernel */
};

/* Receives one answer: target idx, its round trip, at now_ns. */
typedef void	autorate_probe_reply_fn(void *arg, unsigned int idx,
		    uint64_t rtt_ns, uint64_t now_ns);

/*
 * Opens a raw ICMP socket (needs CAP_NET_RAW: call before dropping
 * privileges), or else an unprivileged ping socket (needs
 * net.ipv4.ping_group_range). Non-blocking, close-on-exec. NULL + errno.
 */
struct autorate_probe	*autorate_probe_open(void);
/* "raw" or "ping socket". */
const char	*autorate_probe_kind(const struct autorate_probe *p);
/* The descriptor to watch for EV_READ. */
int		 autorate_probe_fd(const struct autorate_probe *p);
/* Sets the targets (at most PROBE_TARGETS_MAX); forgets probes in flight. */
void		 autorate_probe_set_targets(struct autorate_probe *p,
		    const struct in_addr *a, unsigned int n);
/* Sends one echo request to target idx. 0 or -1 (errno; counted). */
int		 autorate_probe_send(struct autorate_probe *p, unsigned int idx,
		    uint64_t now_ns);
/* Reads every waiting reply, calling fn for each of ours. */
void		 autorate_probe_recv(struct autorate_probe *p, uint64_t now_ns,
		    autorate_probe_reply_fn *fn, void *arg);
void		 autorate_probe_stats(const struct autorate_probe *p,
		    struct autorate_probe_stats *st);
void		 autorate_probe_close(struct autorate_probe *p);

#endif /* CAKED_DAEMON_AUTORATE_PROBE_H */
