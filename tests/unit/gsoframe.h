/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gsoframe.h: the GSO test's (test_gso.c) frames and helpers:
 * TCPv4, TCPv6 (with a hop-by-hop extension header) and UDP GSO
 * super-packets as a TAP with IFF_VNET_HDR delivers them (L4 checksum
 * field holding only the pseudo-header sum), a checksum routine written
 * byte by byte (RFC 1071), independent of csum.c, and an allocator that
 * counts, fails or comes up short on request, so that leaks show.
 */
#ifndef CAKED_TESTS_GSOFRAME_H
#define CAKED_TESTS_GSOFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caked/cake.h"

#define ETH_BYTES	14
#define IPV4_BYTES	20
#define IPV6_BYTES	40
#define HBH_BYTES	8
#define TCP_BYTES	32	/* 20 + NOP NOP timestamps */
#define UDP_BYTES	8
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_ACK		0x10
#define TCP_CWR		0x80
#define SEQ0		0xfffff000U	/* wraps within a 64 KB packet */
#define IPID0		0xfff0		/* wraps within 45 segments */
#define TEST_MARK	0x42

struct frame_spec {
	const char	*name;
	bool		 v6;
	bool		 udp;
	uint32_t	 payload_bytes;
	uint16_t	 mss_bytes;
	unsigned int	 expect_segs;
};

struct frame {
	uint8_t		*buf;
	struct cake_pkt	 pkt;
	uint32_t	 ip_off, l4_off, l4_hdr_bytes, hdr_bytes, payload_bytes;
	bool		 v6, udp;
};

struct test_alloc {
	unsigned int	calls;
	unsigned int	fail_at;	/* call index that returns NULL */
	unsigned int	short_at;	/* call index that returns a short buffer */
	unsigned int	live;
};

/* Adds the bytes p[0..n) to the one's complement sum acc. */
uint64_t	ref_sum(uint64_t acc, const uint8_t *p, size_t n);
/* Folds acc to 16 bits (not complemented). */
uint16_t	ref_fold(uint64_t acc);
/* Big-endian reads and writes. */
uint16_t	rd16(const uint8_t *p);
uint32_t	rd32(const uint8_t *p);
void		wr16(uint8_t *p, uint32_t v);
/* Sum of the pseudo-header for the IP header at ip (v4 or v6). */
uint64_t	ref_pseudo(const uint8_t *ip, bool v6, uint8_t proto,
		    uint32_t l4_len);
/* True if the L4 checksum over l4[0..l4_len) with pseudo-header verifies. */
bool		ref_l4_ok(const uint8_t *ip, bool v6, uint8_t proto,
		    const uint8_t *l4, uint32_t l4_len);
/* Builds the super-packet of s into f (f->buf from calloc). */
void		frame_build(struct frame *f, const struct frame_spec *s);
/* An Ethernet environment of MTU 1500 allocating through ta. */
void		test_env(struct cake_env *env, struct test_alloc *ta);
/* Frees a returned list; returns how many packets it held. */
unsigned int	free_list(struct cake_pkt *p, struct test_alloc *ta);

#endif /* CAKED_TESTS_GSOFRAME_H */
