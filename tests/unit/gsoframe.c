/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gsoframe.c: GSO super-packets, an independent checksum and a counting
 * allocator for the GSO tests (gsoframe.h).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "caked/cake.h"

#include "gsoframe.h"

/* ---- independent checksum (RFC 1071, written byte by byte) ---------- */

uint64_t
ref_sum(uint64_t acc, const uint8_t *p, size_t n)
{
	size_t	k;

	for (k = 0; k < n; k++)
		acc += (k % 2 == 0) ? (uint64_t)p[k] * 256 : p[k];
	return acc;
}

uint16_t
ref_fold(uint64_t acc)
{
	while (acc > 0xffff)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] * 256 + p[1]);
}

uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) * 65536 + rd16(p + 2);
}

void
wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v / 256 % 256);
	p[1] = (uint8_t)(v % 256);
}

static void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v & 0xffff);
}

/* Sum of the pseudo-header for the IP header at ip (v4 or v6). */
uint64_t
ref_pseudo(const uint8_t *ip, bool v6, uint8_t proto, uint32_t l4_len)
{
	uint8_t	ph[40];

	memset(ph, 0, sizeof(ph));
	if (v6) {
		memcpy(ph, ip + 8, 32);
		wr32(ph + 32, l4_len);
		ph[39] = proto;
		return ref_sum(0, ph, 40);
	}
	memcpy(ph, ip + 12, 8);
	ph[9] = proto;
	wr16(ph + 10, l4_len);
	return ref_sum(0, ph, 12);
}

/* True if the L4 checksum over l4[0..l4_len) with pseudo-header verifies. */
bool
ref_l4_ok(const uint8_t *ip, bool v6, uint8_t proto, const uint8_t *l4,
    uint32_t l4_len)
{
	return ref_fold(ref_sum(ref_pseudo(ip, v6, proto, l4_len), l4,
	    l4_len)) == 0xffff;
}

/* ---- super-packet builder --------------------------------------------- */

static uint8_t
pattern(uint32_t k)
{
	return (uint8_t)(k * 31 + (k >> 8) + 7);
}

static uint32_t
frame_ip(struct frame *f, uint32_t l4_total)
{
	uint8_t	*ip = f->buf + f->ip_off;
	uint8_t	 proto = f->udp ? 17 : 6;

	if (!f->v6) {
		ip[0] = 0x45;
		wr16(ip + 2, IPV4_BYTES + l4_total);
		wr16(ip + 4, IPID0);
		wr16(ip + 6, 0x4000);			/* DF */
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, "\xc0\x00\x02\x01\xc6\x33\x64\x02", 8);
		wr16(ip + 10, (uint16_t)~ref_fold(ref_sum(0, ip, IPV4_BYTES)));
		return IPV4_BYTES;
	}
	ip[0] = 0x60;
	ip[1] = 0x01;					/* flow label 0x12345 */
	ip[2] = 0x23;
	ip[3] = 0x45;
	wr16(ip + 4, (f->udp ? 0 : HBH_BYTES) + l4_total);
	ip[6] = f->udp ? proto : 0;			/* TCP gets hop-by-hop */
	ip[7] = 64;
	memcpy(ip + 8, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(ip + 24, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	if (f->udp)
		return IPV6_BYTES;
	memcpy(ip + IPV6_BYTES, "\x06\x00\x01\x04\x00\x00\x00\x00", HBH_BYTES);
	return IPV6_BYTES + HBH_BYTES;
}

static void
frame_l4(struct frame *f, uint32_t l4_total)
{
	uint8_t	*l4 = f->buf + f->l4_off;
	uint8_t	 proto = f->udp ? 17 : 6;

	wr16(l4, 40000);
	wr16(l4 + 2, f->udp ? 4433 : 443);
	if (f->udp) {
		wr16(l4 + 4, l4_total);
		wr16(l4 + 6, ref_fold(ref_pseudo(f->buf + f->ip_off, f->v6,
		    proto, l4_total)));
		return;
	}
	wr32(l4 + 4, SEQ0);
	wr32(l4 + 8, 0x01020304);
	l4[12] = (TCP_BYTES / 4) << 4;
	l4[13] = TCP_FIN | TCP_PSH | TCP_ACK | TCP_CWR;
	wr16(l4 + 14, 512);
	memcpy(l4 + 20, "\x01\x01\x08\x0a\x11\x22\x33\x44\x55\x66\x77\x88", 12);
	/* NEEDS_CSUM: the field holds the pseudo-header sum, uncomplemented. */
	wr16(l4 + 16, ref_fold(ref_pseudo(f->buf + f->ip_off, f->v6, proto,
	    l4_total)));
}

static void
frame_meta(struct frame *f)
{
	struct cake_pkt_meta	*m = &f->pkt.meta;
	uint32_t		 end = f->hdr_bytes + f->payload_bytes;

	memset(m, 0, sizeof(*m));
	m->net_off = ETH_BYTES;
	m->ip_off = ETH_BYTES;
	m->l4_off = (uint16_t)f->l4_off;
	m->l4_len = (uint16_t)(end - f->l4_off);
	m->ip_end = (uint16_t)(end > UINT16_MAX ? UINT16_MAX : end);
	m->l3 = f->v6 ? CAKE_L3_IPV6 : CAKE_L3_IPV4;
	m->inner_l3 = m->l3;
	m->tuple.proto = f->udp ? 17 : 6;
	m->tuple.family = f->v6 ? 6 : 4;
	m->tuple.sport = 40000;
	m->tuple.dport = f->udp ? 4433 : 443;
	if (!f->udp) {
		m->tcp_flags = f->buf[f->l4_off + 13];
		m->tcp_hdr_len = TCP_BYTES;
	}
}

void
frame_build(struct frame *f, const struct frame_spec *s)
{
	uint32_t	k, total, l4_total;

	memset(f, 0, sizeof(*f));
	f->v6 = s->v6;
	f->udp = s->udp;
	f->ip_off = ETH_BYTES;
	f->l4_hdr_bytes = s->udp ? UDP_BYTES : TCP_BYTES;
	f->payload_bytes = s->payload_bytes;
	l4_total = f->l4_hdr_bytes + s->payload_bytes;
	total = ETH_BYTES + IPV6_BYTES + HBH_BYTES + l4_total;
	f->buf = calloc(1, total);
	assert_non_null(f->buf);
	memcpy(f->buf, "\x02\0\0\0\0\x01\x02\0\0\0\0\x02", 12);
	wr16(f->buf + 12, s->v6 ? 0x86dd : 0x0800);
	f->l4_off = f->ip_off + frame_ip(f, l4_total);
	f->hdr_bytes = f->l4_off + f->l4_hdr_bytes;
	for (k = 0; k < s->payload_bytes; k++)
		f->buf[f->hdr_bytes + k] = pattern(k);
	frame_l4(f, l4_total);
	f->pkt.data = f->buf;
	f->pkt.len = f->hdr_bytes + s->payload_bytes;
	f->pkt.cap = total;
	f->pkt.truesize = total;
	f->pkt.mark = TEST_MARK;
	f->pkt.meta_valid = true;
	f->pkt.hash_valid = true;
	f->pkt.hash_tuple.sport = 1234;
	f->pkt.hash_tuple.proto = f->udp ? 17 : 6;
	if (s->udp)
		f->pkt.gso_type = CAKE_GSO_UDP_L4;
	else
		f->pkt.gso_type = (s->v6 ? CAKE_GSO_TCPV6 : CAKE_GSO_TCPV4) |
		    CAKE_GSO_ECN;
	f->pkt.csum_partial = true;
	f->pkt.gso_size = s->mss_bytes;
	f->pkt.csum_start = (uint16_t)f->l4_off;
	f->pkt.csum_offset = s->udp ? 6 : 16;
	frame_meta(f);
}

/* ---- test allocator ---------------------------------------------------- */

static struct cake_pkt *
test_alloc_fn(void *arg, uint32_t cap)
{
	struct test_alloc	*ta = arg;
	struct cake_pkt		*p;
	unsigned int		 call = ta->calls++;

	if (call == ta->fail_at)
		return NULL;
	p = calloc(1, sizeof(*p));
	assert_non_null(p);
	/* Room beyond cap makes truesize = cap observable; or one short. */
	p->cap = call == ta->short_at ? cap - 1 : cap + 64;
	p->data = malloc(p->cap);
	assert_non_null(p->data);
	memset(p->data, 0xee, p->cap);
	ta->live++;
	return p;
}

void
test_env(struct cake_env *env, struct test_alloc *ta)
{
	memset(ta, 0, sizeof(*ta));
	ta->fail_at = UINT_MAX;
	ta->short_at = UINT_MAX;
	memset(env, 0, sizeof(*env));
	env->link = CAKE_LINK_ETHERNET;
	env->mtu = 1500;
	env->alloc = test_alloc_fn;
	env->alloc_arg = ta;
}

/* Frees a returned list; returns how many packets it held. */
unsigned int
free_list(struct cake_pkt *p, struct test_alloc *ta)
{
	struct cake_pkt	*next;
	unsigned int	 n = 0;

	for (; p != NULL; p = next) {
		next = p->next;
		free(p->data);
		free(p);
		ta->live--;
		n++;
	}
	return n;
}
