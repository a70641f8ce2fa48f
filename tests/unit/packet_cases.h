/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * packet_cases.h: the case table of the packet parser tests
 * (packet_cases.c): frames and the parse result each must give.
 */
#ifndef CAKED_TESTS_PACKET_CASES_H
#define CAKED_TESTS_PACKET_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "caked/cake.h"

#include "fbuild.h"

#define L_NONE	CAKE_L3_NONE
#define L_ARP	CAKE_L3_ARP
#define L_V4	CAKE_L3_IPV4
#define L_V6	CAKE_L3_IPV6
#define F_FRAG	CAKE_META_FRAG
#define F_6IN4	CAKE_META_6IN4
#define F_BAD	CAKE_META_MALFORMED
#define F_TRUNC	CAKE_META_TRUNCATED

struct pcase {
	const char	*name;
	void		(*build)(struct fb *);
	enum cake_link	link;
	uint8_t		l3, inner_l3, flags;
	uint16_t	net_off, ip_off, l4_off, l4_len, ip_end;
	uint8_t		dsfield, proto, family;
	uint16_t	sport, dport;
	uint8_t		tcp_flags, tcp_hdr_len;
};

#define NCASES	45		/* entries of cases[] */
extern const struct pcase *const cases;

/*
 * Frames of the table that the ECN and wash tests reuse. mk_eth_v4_udp:
 * Ethernet + IPv4 (tos) + UDP, returns the IPv4 offset. mk_6in4:
 * Ethernet + IPv4 (tos 0x28, frag) + IPv6 (tc 0xb8) + TCP, returns the
 * IPv6 offset.
 */
size_t	mk_eth_v4_udp(struct fb *f, uint8_t tos, size_t payload);
size_t	mk_6in4(struct fb *f, uint16_t frag);
void	b_eth_v6_tcp(struct fb *f);		/* tc 0xb8: EF, Not-ECT */
void	b_arp(struct fb *f);
void	b_v4_ihl4(struct fb *f);		/* IHL 4: malformed */

#endif /* CAKED_TESTS_PACKET_CASES_H */
