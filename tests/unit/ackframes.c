/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ackframes.c: TCP segments and the frames that carry them, for the ACK
 * filter tests (ackframes.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/ackfilter.h"
#include "engine/csum.h"

#include "ackframes.h"

const struct conn conn_v4 = {
	.net = NET_V4,
	.src4 = { 192, 0, 2, 1 }, .dst4 = { 198, 51, 100, 2 },
	.sport = 40000, .dport = 443,
};

const struct conn conn_v6 = {
	.net = NET_V6,
	.src6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	.dst6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	.sport = 40000, .dport = 443,
};

const struct conn conn_6in4 = {
	.net = NET_6IN4,
	.src4 = { 192, 0, 2, 1 }, .dst4 = { 192, 0, 2, 99 },
	.src6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	.dst6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	.sport = 40000, .dport = 443,
};

/* ---- segments and options ----------------------------------------------- */

/* A pure ACK: no payload, no options, flags exactly ACK. */
struct seg
ack_seg(uint32_t ack)
{
	struct seg	s;

	memset(&s, 0, sizeof(s));
	s.seq = 1000;
	s.ack = ack;
	s.flags = TH_ACK;
	return s;
}

void
opt_add(struct seg *s, const uint8_t *bytes, size_t n)
{
	assert_true(s->opt_bytes + n <= OPT_MAX_BYTES);
	memcpy(s->opt + s->opt_bytes, bytes, n);
	s->opt_bytes += n;
}

/* NOP, NOP, TIMESTAMP (RFC 7323), as Linux sends it. */
void
opt_ts(struct seg *s, uint32_t tsval, uint32_t tsecr)
{
	uint8_t	o[12] = { 1, 1, 8, 10 };

	csum_put32(o + 4, tsval);
	csum_put32(o + 8, tsecr);
	opt_add(s, o, sizeof(o));
}

/* NOP, NOP, SACK with n blocks given as start/end pairs. */
void
opt_sack(struct seg *s, unsigned int n, const uint32_t *edges)
{
	uint8_t		o[4 + 8 * 4] = { 1, 1, 5 };
	unsigned int	i;

	assert_true(n <= 4);
	o[3] = (uint8_t)(2 + 8 * n);
	for (i = 0; i < 2 * n; i++)
		csum_put32(o + 4 + 4 * i, edges[i]);
	opt_add(s, o, 4 + 8 * n);
}

void
opt_sack1(struct seg *s, uint32_t start, uint32_t end)
{
	uint32_t	e[2] = { start, end };

	opt_sack(s, 1, e);
}

/* ---- frames ------------------------------------------------------------- */

static void
put_ipv4(uint8_t *p, const uint8_t *src, const uint8_t *dst, uint8_t proto,
    size_t total_bytes)
{
	p[0] = 0x45;
	csum_put16(p + 2, (uint16_t)total_bytes);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
}

static void
put_ipv6(uint8_t *p, const uint8_t *src, const uint8_t *dst,
    size_t payload_bytes)
{
	p[0] = 0x60;
	csum_put16(p + 4, (uint16_t)payload_bytes);
	p[6] = 6;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
}

static void
put_tcp(uint8_t *p, const struct conn *c, const struct seg *s,
    size_t hdr_bytes)
{
	csum_put16(p, c->sport);
	csum_put16(p + 2, c->dport);
	csum_put32(p + 4, s->seq);
	csum_put32(p + 8, s->ack);
	p[12] = (uint8_t)((hdr_bytes / 4) << 4 | ((s->flags >> 8) & 0x0f));
	p[13] = (uint8_t)s->flags;
	csum_put16(p + 14, 65535);
	memcpy(p + 20, s->opt, s->opt_bytes);	/* padding stays EOL (0) */
	memset(p + hdr_bytes, 'x', s->payload_bytes);
}

/* Writes the IP header(s) at b+off; returns the offset of the TCP header. */
static size_t
put_ip(struct tpkt *t, const struct conn *c, size_t off, size_t l4_bytes)
{
	struct cake_pkt_meta	*m = &t->pkt.meta;
	uint8_t			*b = t->buf;

	m->net_off = (uint16_t)off;
	m->ip_off = (uint16_t)off;
	switch (c->net) {
	case NET_V6:
		put_ipv6(b + off, c->src6, c->dst6, l4_bytes);
		m->l3 = m->inner_l3 = CAKE_L3_IPV6;
		return off + 40;
	case NET_6IN4:
		put_ipv4(b + off, c->src4, c->dst4, 41, 60 + l4_bytes);
		put_ipv6(b + off + 20, c->src6, c->dst6, l4_bytes);
		m->l3 = CAKE_L3_IPV4;
		m->inner_l3 = CAKE_L3_IPV6;
		m->ip_off = (uint16_t)(off + 20);
		m->flags |= CAKE_META_6IN4;
		return off + 60;
	default:
		put_ipv4(b + off, c->src4, c->dst4, 6, 20 + l4_bytes);
		m->l3 = m->inner_l3 = CAKE_L3_IPV4;
		return off + 20;
	}
}

static void
fill_tuple(struct cake_tuple *tu, const struct conn *c)
{
	static const uint8_t	v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (c->net == NET_V4 || c->net == NET_ETH_V4) {
		memcpy(tu->src, v4mapped, 12);
		memcpy(tu->src + 12, c->src4, 4);
		memcpy(tu->dst, v4mapped, 12);
		memcpy(tu->dst + 12, c->dst4, 4);
		tu->family = 4;
	} else {
		memcpy(tu->src, c->src6, 16);
		memcpy(tu->dst, c->dst6, 16);
		tu->family = 6;
	}
	tu->sport = c->sport;
	tu->dport = c->dport;
	tu->proto = 6;
}

/* Builds the frame of segment s on connection c, with its parse result. */
void
build(struct tpkt *t, const struct conn *c, const struct seg *s)
{
	struct cake_pkt_meta	*m = &t->pkt.meta;
	size_t			 hdr_bytes, l4_bytes, off = 0;

	memset(t, 0, sizeof(*t));
	hdr_bytes = 20 + ((s->opt_bytes + 3) & ~(size_t)3);
	l4_bytes = hdr_bytes + s->payload_bytes;
	if (c->net == NET_ETH_V4) {
		memset(t->buf, 0x02, 12);
		csum_put16(t->buf + 12, 0x0800);
		off = 14;
	}
	off = put_ip(t, c, off, l4_bytes);
	assert_true(off + l4_bytes <= TPKT_BUF_BYTES);
	put_tcp(t->buf + off, c, s, hdr_bytes);

	m->l4_off = (uint16_t)off;
	m->l4_len = (uint16_t)l4_bytes;
	m->ip_end = (uint16_t)(off + l4_bytes);
	m->tcp_flags = (uint8_t)s->flags;
	m->tcp_hdr_len = (uint8_t)hdr_bytes;
	fill_tuple(&m->tuple, c);
	t->pkt.data = t->buf;
	t->pkt.len = (uint32_t)(off + l4_bytes);
	t->pkt.cap = TPKT_BUF_BYTES;
	t->pkt.meta_valid = true;
}

/* Links q[0..n) in order; the last one is the trigger. */
struct cake_pkt *
chain(struct tpkt *q, size_t n)
{
	size_t	i;

	for (i = 0; i + 1 < n; i++)
		q[i].pkt.next = &q[i + 1].pkt;
	q[n - 1].pkt.next = NULL;
	return &q[0].pkt;
}

struct cake_pkt *
find(struct tpkt *q, size_t n, enum cake_ack_filter mode,
    struct cake_pkt **prevp)
{
	return ackfilter_find(chain(q, n), &q[n - 1].pkt, mode, prevp);
}
