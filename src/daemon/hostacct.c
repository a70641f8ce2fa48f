/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * hostacct.c: what each host of one direction sent and lost, counted by
 * the datapath per packet (the host is the source in upload and the
 * destination in download, pre-NAT where conntrack gave the address, as
 * the engine hashes it), for the "host shares" of /metrics.
 *
 * The engine's own per-flow bytes cannot serve: a flow queue's counter
 * restarts when another flow takes the queue, so their sum per host goes
 * down and up, which a Prometheus counter must not. Here a host's
 * counters only grow while it has an entry.
 *
 * The table is bounded (HOSTACCT_MAX, set-associative like CAKE's flow
 * table, so a packet costs one hash and at most HOSTACCT_WAYS compares).
 * A new host in a full set takes the entry of the quietest host of that
 * set (fewest bytes in the last one or two windows); that host's
 * counters start from 0 if it comes back, which Prometheus reads as a
 * counter reset. Only the HOSTACCT_EXPORTED busiest hosts are listed, so
 * a LAN of thousands of hosts adds at most that many series a direction.
 *
 * Pure: no I/O, no clock (time is passed in), no allocation.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "daemon/hostacct.h"

/* FNV-1a (a public-domain hash) of the address and its family. */
static uint32_t
hostacct_hash(const uint8_t *addr, uint8_t family)
{
	uint32_t	h = 2166136261u;
	int		i;

	for (i = 0; i < 16; i++)
		h = (h ^ addr[i]) * 16777619u;
	return (h ^ family) * 16777619u;
}

/* Bytes sent in the window of epoch and the one before it. */
static uint64_t
hostacct_score(const struct hostacct_entry *e, uint64_t epoch)
{
	if (e->epoch == epoch)
		return e->win_bytes + e->prev_bytes;
	if (e->epoch + 1 == epoch)
		return e->win_bytes;
	return 0;
}

/* Whether a is busier than b at epoch (the order of hostacct_busiest). */
static bool
hostacct_busier(const struct hostacct_entry *a,
    const struct hostacct_entry *b, uint64_t epoch)
{
	uint64_t	sa = hostacct_score(a, epoch), sb = hostacct_score(b,
	    epoch);

	if (sa != sb)
		return sa > sb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes;
	if (a->family != b->family)
		return a->family < b->family;
	return memcmp(a->addr, b->addr, sizeof(a->addr)) < 0;
}

/* The host's entry, made (in a free or the quietest way) if missing. */
static struct hostacct_entry *
hostacct_find(struct hostacct *ha, const uint8_t *addr, uint8_t family)
{
	struct hostacct_entry	*set, *victim = NULL;
	unsigned int		 i;

	set = &ha->e[(hostacct_hash(addr, family) % HOSTACCT_SETS) *
	    HOSTACCT_WAYS];
	for (i = 0; i < HOSTACCT_WAYS; i++) {
		if (set[i].family == family &&
		    memcmp(set[i].addr, addr, sizeof(set[i].addr)) == 0)
			return &set[i];
		if (set[i].family == 0) {
			if (victim == NULL || victim->family != 0)
				victim = &set[i];
		} else if (victim == NULL || (victim->family != 0 &&
		    hostacct_busier(victim, &set[i], ha->epoch)))
			victim = &set[i];
	}
	if (victim->family != 0)
		ha->evictions++;
	memset(victim, 0, sizeof(*victim));
	memcpy(victim->addr, addr, sizeof(victim->addr));
	victim->family = family;
	victim->epoch = ha->epoch;
	return victim;
}

void
hostacct_sent(struct hostacct *ha, const uint8_t *addr, uint8_t family,
    uint32_t len, uint64_t now_ns)
{
	struct hostacct_entry	*e;
	uint64_t		 epoch = now_ns / HOSTACCT_WINDOW_NS;

	if (family != 4 && family != 6)
		return;
	if (epoch > ha->epoch)
		ha->epoch = epoch;
	e = hostacct_find(ha, addr, family);
	if (e->epoch != ha->epoch) {
		e->prev_bytes = e->epoch + 1 == ha->epoch ? e->win_bytes : 0;
		e->win_bytes = 0;
		e->epoch = ha->epoch;
	}
	e->win_bytes += len;
	e->bytes += len;
	e->pkts++;
}

/* Moves e's windows on to epoch (as hostacct_sent() does). */
static void
hostacct_age(struct hostacct_entry *e, uint64_t epoch)
{
	if (e->epoch == epoch)
		return;
	e->prev_bytes = e->epoch + 1 == epoch ? e->win_bytes : 0;
	e->win_bytes = 0;
	e->epoch = epoch;
}

void
hostacct_merge(struct hostacct *dst, const struct hostacct *src)
{
	const struct hostacct_entry	*s;
	struct hostacct_entry		*e, a;
	unsigned int			 i;

	if (src->epoch > dst->epoch)
		dst->epoch = src->epoch;
	dst->evictions += src->evictions;
	for (i = 0; i < HOSTACCT_MAX; i++) {
		if ((s = &src->e[i])->family == 0)
			continue;
		a = *s;
		if (a.epoch <= dst->epoch)
			hostacct_age(&a, dst->epoch);
		e = hostacct_find(dst, a.addr, a.family);
		hostacct_age(e, dst->epoch);
		e->win_bytes += a.win_bytes;
		e->prev_bytes += a.prev_bytes;
		e->bytes += a.bytes;
		e->pkts += a.pkts;
		e->drops += a.drops;
	}
}

void
hostacct_dropped(struct hostacct *ha, const uint8_t *addr, uint8_t family)
{
	if (family == 4 || family == 6)
		hostacct_find(ha, addr, family)->drops++;
}

unsigned int
hostacct_busiest(const struct hostacct *ha, uint64_t now_ns,
    struct hostacct_entry *out, unsigned int max)
{
	const struct hostacct_entry	*e;
	uint64_t			 epoch = now_ns / HOSTACCT_WINDOW_NS;
	unsigned int			 i, j, n = 0;

	/* Insertion into out[0..n), kept sorted: max is small. */
	for (i = 0; i < HOSTACCT_MAX; i++) {
		e = &ha->e[i];
		if (e->family == 0 || (n == max && (max == 0 ||
		    !hostacct_busier(e, &out[n - 1], epoch))))
			continue;
		j = n < max ? n++ : n - 1;
		for (; j > 0 && hostacct_busier(e, &out[j - 1], epoch); j--)
			out[j] = out[j - 1];
		out[j] = *e;
	}
	return n;
}

/* "10.1.0.2" or "2001:db8::1". */
static void
hostacct_addr(const struct hostacct_entry *e, char *buf, size_t len)
{
	if (e->family == 4)
		(void)snprintf(buf, len, "%u.%u.%u.%u", e->addr[12],
		    e->addr[13], e->addr[14], e->addr[15]);
	else if (inet_ntop(AF_INET6, e->addr, buf, len) == NULL)
		(void)snprintf(buf, len, "?");
}

void
hostacct_json(const struct hostacct *ha, uint64_t now_ns,
    struct json_writer *w)
{
	struct hostacct_entry	top[HOSTACCT_EXPORTED];
	char			addr[INET6_ADDRSTRLEN];
	unsigned int		i, n, used = 0;

	for (i = 0; i < HOSTACCT_MAX; i++)
		used += ha->e[i].family != 0;
	n = hostacct_busiest(ha, now_ns, top, HOSTACCT_EXPORTED);
	json_object_begin(w, "hosts");
	json_uint(w, "tracked", used);
	json_uint(w, "tracked_max", HOSTACCT_MAX);
	json_uint(w, "evictions", ha->evictions);
	json_array_begin(w, "busiest");
	for (i = 0; i < n; i++) {
		hostacct_addr(&top[i], addr, sizeof(addr));
		json_object_begin(w, NULL);
		json_string(w, CTL_KEY_ADDRESS, addr);
		json_uint(w, "sent_bytes", top[i].bytes);
		json_uint(w, "sent_packets", top[i].pkts);
		json_uint(w, "drops", top[i].drops);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}
