/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fbuild.h: frames built by hand, header by header (Ethernet, VLAN tags,
 * PPPoE, IPv4, IPv6 and its extension headers, TCP, UDP, ICMP), for the
 * packet tests (test_packet.c, test_packet_ecn.c). IPv4 header checksums
 * come from an RFC 1071 sum written here, independent of engine/csum.c.
 * Every builder fails the current cmocka test if the frame outgrows
 * FB_MAX.
 */
#ifndef CAKED_TESTS_FBUILD_H
#define CAKED_TESTS_FBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FB_MAX		512

struct fb {
	uint8_t		b[FB_MAX];
	size_t		len;
};

/* The addresses of every IP header built here. */
extern const uint8_t	v4_src[4];
extern const uint8_t	v4_dst[4];
extern const uint8_t	v6_src[16];
extern const uint8_t	v6_dst[16];

void	fb_u8(struct fb *f, uint8_t v);
void	fb_u16(struct fb *f, uint16_t v);
void	fb_fill(struct fb *f, size_t n, uint8_t v);
void	fb_bytes(struct fb *f, const uint8_t *p, size_t n);
/* Writes v big-endian at p. */
void	put16(uint8_t *p, uint16_t v);
void	fb_eth(struct fb *f, uint16_t type);
void	fb_tag(struct fb *f, uint16_t vid, uint16_t next_type);
void	fb_pppoe(struct fb *f, uint8_t ver_type, uint16_t ppp);
/* Whether the IPv4 header at ip has a valid checksum. */
bool	ipv4_csum_ok(const uint8_t *ip);
/* IPv4 header with opt_words words of NOP options; returns its offset. */
size_t	fb_ipv4(struct fb *f, uint8_t tos, uint8_t proto, uint16_t frag,
	    unsigned int opt_words);
/* Sets the total length and checksum of the IPv4 header at ip. */
void	fb_ipv4_done(struct fb *f, size_t ip);
/* IPv6 header (flow label 0xabcde); returns its offset. */
size_t	fb_ipv6(struct fb *f, uint8_t tc, uint8_t nh);
/* Sets the payload length of the IPv6 header at ip. */
void	fb_ipv6_done(struct fb *f, size_t ip);
/* Hop-by-hop, routing or destination options: (len8 + 1) * 8 bytes. */
void	fb_ext(struct fb *f, uint8_t nh, uint8_t len8);
void	fb_ah(struct fb *f, uint8_t nh, uint8_t len4);
void	fb_frag6(struct fb *f, uint8_t nh, uint16_t off8, bool more);
void	fb_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint8_t flags,
	    unsigned int opt_words);
void	fb_udp(struct fb *f, uint16_t sport, uint16_t dport, size_t payload);
void	fb_icmp(struct fb *f, uint8_t type, size_t payload);

#endif /* CAKED_TESTS_FBUILD_H */
