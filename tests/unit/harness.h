/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * harness.h: a small test harness around the engine for the unit tests
 * and the simulator: packet buffers from malloc, IPv4/IPv6 frame builders,
 * and a fixed-step driver that keeps flows backlogged and counts what each
 * one gets. Test code only: it allocates and never runs in the daemon.
 */
#ifndef CAKED_TESTS_HARNESS_H
#define CAKED_TESTS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"

#define H_MAX_FLOWS	64

/* A test packet: the engine's struct plus its own storage. */
struct h_pkt {
	struct cake_pkt	pkt;		/* first: a cake_pkt * is an h_pkt * */
	int		flow;		/* index in h_sim, or -1 */
	uint8_t		buf[2048];
};

/* One synthetic flow. */
struct h_flow {
	uint8_t		proto;		/* 6 TCP, 17 UDP */
	uint32_t	src;		/* IPv4 addresses, host order */
	uint32_t	dst;
	uint16_t	sport;
	uint16_t	dport;
	uint8_t		tos;
	uint32_t	mark;
	uint32_t	len;		/* IP packet length */
	uint32_t	depth;		/* packets kept queued (backlogged); 0 = none */
	uint32_t	every_ns;	/* or one packet every every_ns (sparse) */
	/* results */
	uint64_t	next_send_ns;
	uint32_t	queued;
	uint64_t	sent_bytes;
	uint64_t	sent_pkts;
	uint64_t	dropped;
	uint64_t	max_delay_ns;
	uint64_t	sum_delay_ns;
};

struct h_sim {
	struct cake	*c;
	unsigned int	 nflows;
	struct h_flow	 flows[H_MAX_FLOWS];
	uint64_t	 now_ns;
	uint64_t	 marks;
	uint64_t	 other_drops;
	bool		 check;		/* run cake_check_invariants every step */
	unsigned int	 max_per_step;	/* link takes at most this many a step; 0 = all */
};

struct cake	*h_create(const char *keywords, enum cake_link link);
struct cake_pkt	*h_alloc(uint32_t len);
void		 h_free(struct cake_pkt *pkt);
/* Frees the dropped list; returns how many packets it held. */
unsigned int	 h_free_dropped(struct cake *c);
/* Flushes, frees and destroys c; returns cake_check_invariants() before. */
int		 h_destroy(struct cake *c);
/* Builds an IPv4 packet of len bytes (IP header onwards, or after a 14-byte Ethernet header if eth). */
struct cake_pkt	*h_ipv4(const struct h_flow *f, bool eth);
/* Builds a pure TCP ACK (IPv4, TUN), with ack number and flags. */
struct cake_pkt	*h_tcp_ack(uint32_t src, uint32_t dst, uint16_t sport,
		    uint16_t dport, uint32_t ack, uint8_t flags);
/* Adds a flow to the simulation. */
struct h_flow	*h_add_flow(struct h_sim *s, uint8_t proto, uint32_t src,
		    uint32_t dst, uint16_t sport, uint32_t len);
/* Runs the simulation for dur_ns in steps of step_ns. */
void		 h_run(struct h_sim *s, uint64_t dur_ns, uint64_t step_ns);
/* Bytes the flows in [from, to) got, as a share of everything sent. */
double		 h_share(const struct h_sim *s, unsigned int from,
		    unsigned int to);
/* Verifies an IPv4 header checksum. */
bool		 h_ipv4_csum_ok(const uint8_t *ip);

#endif /* CAKED_TESTS_HARNESS_H */
