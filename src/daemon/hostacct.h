/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * hostacct.h: per-host byte, packet and drop counters of one direction,
 * in a bounded table, for the busiest hosts of the stats reply and of
 * caked's Prometheus exposition (doc/observability.md, "Host shares").
 */
#ifndef CAKED_DAEMON_HOSTACCT_H
#define CAKED_DAEMON_HOSTACCT_H

#include <stdint.h>

struct json_writer;

#define HOSTACCT_WAYS		8	/* entries per set */
#define HOSTACCT_SETS		128
#define HOSTACCT_MAX		(HOSTACCT_WAYS * HOSTACCT_SETS)
/* Hosts a stats reply lists per direction, busiest first. */
#define HOSTACCT_EXPORTED	16
/* Bytes of the "hosts" member at most (test_hostacct checks the worst). */
#define HOSTACCT_JSON_MAX	4096
/* "Busiest" means most bytes in the current and the previous window. */
#define HOSTACCT_WINDOW_NS	10000000000ULL

struct hostacct_entry {
	uint8_t		addr[16];	/* as struct cake_tuple */
	uint8_t		family;		/* 0: a free entry */
	uint64_t	epoch;		/* window of win_bytes */
	uint64_t	win_bytes;	/* sent in window epoch */
	uint64_t	prev_bytes;	/* sent in window epoch - 1 */
	uint64_t	bytes;		/* sent since the entry was made */
	uint64_t	pkts;
	uint64_t	drops;
};

/* Zeroed memory is an empty table. */
struct hostacct {
	struct hostacct_entry	e[HOSTACCT_MAX];
	uint64_t		epoch;		/* latest hostacct_sent's */
	uint64_t		evictions;	/* entries reused when full */
};

/*
 * Counts a packet of len bytes sent for the host addr (16 bytes, as
 * struct cake_tuple) of family 4 or 6; family 0 (not IP) is ignored.
 */
void	hostacct_sent(struct hostacct *ha, const uint8_t *addr,
	    uint8_t family, uint32_t len, uint64_t now_ns);
/* Counts a packet dropped for the host addr (as hostacct_sent). */
void	hostacct_dropped(struct hostacct *ha, const uint8_t *addr,
	    uint8_t family);
/*
 * Adds src's hosts to dst (the tables of a direction's workers, summed
 * for a reply); an entry dst has no room for replaces its quietest.
 */
void	hostacct_merge(struct hostacct *dst, const struct hostacct *src);
/*
 * Copies the at most max busiest entries at now_ns into out, busiest
 * first (ties: more bytes, then the lower address). Returns how many.
 */
unsigned int hostacct_busiest(const struct hostacct *ha, uint64_t now_ns,
	    struct hostacct_entry *out, unsigned int max);
/* Writes the "hosts" member: table use and the HOSTACCT_EXPORTED busiest. */
void	hostacct_json(const struct hostacct *ha, uint64_t now_ns,
	    struct json_writer *w);

#endif /* CAKED_DAEMON_HOSTACCT_H */
