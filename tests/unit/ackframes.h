/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ackframes.h: what the ACK filter tests (test_ackfilter.c,
 * test_ackfilter_rules.c) share: TCP segments with their options, raw
 * IPv4, IPv6, 6in4 and Ethernet frames that carry them, with pkt->meta
 * filled in from the offsets written (so that the tests do not depend
 * on the packet parser), and queues of them for ackfilter_find().
 */
#ifndef CAKED_TESTS_ACKFRAMES_H
#define CAKED_TESTS_ACKFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caked/cake.h"

#define TH_FIN		0x001
#define TH_SYN		0x002
#define TH_RST		0x004
#define TH_PSH		0x008
#define TH_ACK		0x010
#define TH_URG		0x020
#define TH_ECE		0x040
#define TH_CWR		0x080
#define TH_NS		0x100
#define TH_RES1		0x200	/* reserved bits of byte 12 */
#define TH_RES2		0x400
#define TH_RES3		0x800

#define TPKT_BUF_BYTES	384
#define OPT_MAX_BYTES	40
#define QUEUE_MAX	8

enum net {
	NET_V4,
	NET_V6,
	NET_6IN4,
	NET_ETH_V4,
};

struct conn {
	enum net	net;
	uint8_t		src4[4];	/* IPv4, or outer 6in4 header */
	uint8_t		dst4[4];
	uint8_t		src6[16];	/* IPv6, or inner 6in4 header */
	uint8_t		dst6[16];
	uint16_t	sport;
	uint16_t	dport;
};

struct seg {
	uint32_t	seq;
	uint32_t	ack;
	uint16_t	flags;		/* TH_*, reserved bits included */
	uint8_t		opt[OPT_MAX_BYTES];
	size_t		opt_bytes;
	uint32_t	payload_bytes;
};

struct tpkt {
	struct cake_pkt	pkt;
	uint8_t		buf[TPKT_BUF_BYTES];
};

extern const struct conn	conn_v4;
extern const struct conn	conn_v6;
extern const struct conn	conn_6in4;

/* A pure ACK: no payload, no options, flags exactly ACK. */
struct seg	ack_seg(uint32_t ack);
/* Appends n raw option bytes to s. */
void		opt_add(struct seg *s, const uint8_t *bytes, size_t n);
/* NOP, NOP, TIMESTAMP (RFC 7323), as Linux sends it. */
void		opt_ts(struct seg *s, uint32_t tsval, uint32_t tsecr);
/* NOP, NOP, SACK with n blocks given as start/end pairs. */
void		opt_sack(struct seg *s, unsigned int n, const uint32_t *edges);
/* NOP, NOP, SACK with the one block start..end. */
void		opt_sack1(struct seg *s, uint32_t start, uint32_t end);
/* Builds the frame of segment s on connection c, with its parse result. */
void		build(struct tpkt *t, const struct conn *c,
		    const struct seg *s);
/* Links q[0..n) in order; the last one is the trigger. */
struct cake_pkt	*chain(struct tpkt *q, size_t n);
/* ackfilter_find() over q[0..n), the last one the trigger. */
struct cake_pkt	*find(struct tpkt *q, size_t n, enum cake_ack_filter mode,
		    struct cake_pkt **prevp);

#endif /* CAKED_TESTS_ACKFRAMES_H */
