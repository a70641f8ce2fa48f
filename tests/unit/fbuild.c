/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fbuild.c: the fb_* frame builders of the packet tests (fbuild.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fbuild.h"

const uint8_t v4_src[4] = { 192, 0, 2, 1 };
const uint8_t v4_dst[4] = { 198, 51, 100, 2 };
const uint8_t v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
const uint8_t v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

void
fb_u8(struct fb *f, uint8_t v)
{
	assert_true(f->len < FB_MAX);
	f->b[f->len++] = v;
}

void
fb_u16(struct fb *f, uint16_t v)
{
	fb_u8(f, (uint8_t)(v >> 8));
	fb_u8(f, (uint8_t)v);
}

void
fb_fill(struct fb *f, size_t n, uint8_t v)
{
	while (n-- > 0)
		fb_u8(f, v);
}

void
fb_bytes(struct fb *f, const uint8_t *p, size_t n)
{
	while (n-- > 0)
		fb_u8(f, *p++);
}

void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
fb_eth(struct fb *f, uint16_t type)
{
	static const uint8_t macs[12] = {
		2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2
	};

	fb_bytes(f, macs, sizeof(macs));
	fb_u16(f, type);
}

void
fb_tag(struct fb *f, uint16_t vid, uint16_t next_type)
{
	fb_u16(f, vid);
	fb_u16(f, next_type);
}

void
fb_pppoe(struct fb *f, uint8_t ver_type, uint16_t ppp)
{
	fb_u8(f, ver_type);
	fb_u8(f, 0);		/* code: session data */
	fb_u16(f, 0x1234);	/* session id */
	fb_u16(f, 0);		/* length, not used by the parser */
	fb_u16(f, ppp);
}

/* Independent RFC 1071 sum, folded but not complemented. */
static uint16_t
ref_sum(const uint8_t *p, size_t n)
{
	uint32_t	s = 0;
	size_t		i;

	for (i = 0; i < n; i += 2)
		s += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

bool
ipv4_csum_ok(const uint8_t *ip)
{
	return ref_sum(ip, (size_t)(ip[0] & 0x0f) * 4) == 0xffff;
}

/* IPv4 header with opt_words words of NOP options; returns its offset. */
size_t
fb_ipv4(struct fb *f, uint8_t tos, uint8_t proto, uint16_t frag,
    unsigned int opt_words)
{
	size_t	ip = f->len;

	fb_u8(f, (uint8_t)(0x40 | (5 + opt_words)));
	fb_u8(f, tos);
	fb_u16(f, 0);		/* total length, set by fb_ipv4_done() */
	fb_u16(f, 0x1234);
	fb_u16(f, frag);
	fb_u8(f, 64);
	fb_u8(f, proto);
	fb_u16(f, 0);
	fb_bytes(f, v4_src, 4);
	fb_bytes(f, v4_dst, 4);
	fb_fill(f, opt_words * 4, 0x01);
	return ip;
}

void
fb_ipv4_done(struct fb *f, size_t ip)
{
	uint8_t	*h = f->b + ip;

	put16(h + 2, (uint16_t)(f->len - ip));
	put16(h + 10, 0);
	put16(h + 10, (uint16_t)~ref_sum(h, (size_t)(h[0] & 0x0f) * 4));
	assert_true(ipv4_csum_ok(h));
}

size_t
fb_ipv6(struct fb *f, uint8_t tc, uint8_t nh)
{
	size_t	ip = f->len;

	fb_u8(f, (uint8_t)(0x60 | tc >> 4));
	/* Flow label 0xabcde. */
	fb_u8(f, (uint8_t)((tc & 0x0f) << 4 | 0x0a));
	fb_u16(f, 0xbcde);
	fb_u16(f, 0);		/* payload length, set by fb_ipv6_done() */
	fb_u8(f, nh);
	fb_u8(f, 64);
	fb_bytes(f, v6_src, 16);
	fb_bytes(f, v6_dst, 16);
	return ip;
}

void
fb_ipv6_done(struct fb *f, size_t ip)
{
	put16(f->b + ip + 4, (uint16_t)(f->len - ip - 40));
}

/* Hop-by-hop, routing or destination options: (len8 + 1) * 8 bytes. */
void
fb_ext(struct fb *f, uint8_t nh, uint8_t len8)
{
	fb_u8(f, nh);
	fb_u8(f, len8);
	fb_fill(f, ((size_t)len8 + 1) * 8 - 2, 0);
}

void
fb_ah(struct fb *f, uint8_t nh, uint8_t len4)
{
	fb_u8(f, nh);
	fb_u8(f, len4);
	fb_fill(f, ((size_t)len4 + 2) * 4 - 2, 0x77);
}

void
fb_frag6(struct fb *f, uint8_t nh, uint16_t off8, bool more)
{
	fb_u8(f, nh);
	fb_u8(f, 0);
	fb_u16(f, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
	fb_fill(f, 4, 0x99);
}

void
fb_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint8_t flags,
    unsigned int opt_words)
{
	fb_u16(f, sport);
	fb_u16(f, dport);
	fb_fill(f, 8, 0x11);	/* seq, ack */
	fb_u8(f, (uint8_t)((5 + opt_words) << 4));
	fb_u8(f, flags);
	fb_u16(f, 0xffff);	/* window */
	fb_fill(f, 4, 0);	/* checksum, urgent */
	fb_fill(f, opt_words * 4, 0x01);
}

void
fb_udp(struct fb *f, uint16_t sport, uint16_t dport, size_t payload)
{
	fb_u16(f, sport);
	fb_u16(f, dport);
	fb_u16(f, (uint16_t)(8 + payload));
	fb_u16(f, 0);
	fb_fill(f, payload, 0x5a);
}

void
fb_icmp(struct fb *f, uint8_t type, size_t payload)
{
	fb_u8(f, type);
	fb_u8(f, 0);
	fb_fill(f, 6, 0);	/* checksum, id, sequence */
	fb_fill(f, payload, 0x5a);
}
