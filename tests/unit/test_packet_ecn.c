/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_packet_ecn.c: the packet_* header rewrites: CE marking, DSCP
 * washing, packet_dscp() and packet_is_ect(). Frames are built with the
 * fb_* builders (fbuild.c) and some frames of the parser's case table
 * (packet_cases.c); IPv4 header checksums are verified with the sum in
 * fbuild.c, independent of engine/csum.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/packet.h"

#include "fbuild.h"
#include "packet_cases.h"

/* ---- ECN and wash ---------------------------------------------------- */

static void
pkt_from(struct cake_pkt *p, struct fb *f, enum cake_link link)
{
	memset(p, 0, sizeof(*p));
	p->data = f->b;
	p->len = (uint32_t)f->len;
	p->cap = FB_MAX;
	cake_parse(p->data, p->len, link, &p->meta);
	p->meta_valid = true;
}

/* Every TOS value: CE only on ECT, DSCP kept, checksum still valid. */
static void
test_set_ce_ipv4_every_tos(void **state)
{
	struct cake_pkt		p;
	struct cake_pkt_meta	re;
	struct fb		f, orig;
	unsigned int		tos, ecn;
	bool			marked;

	(void)state;
	for (tos = 0; tos < 256; tos++) {
		f.len = 0;
		mk_eth_v4_udp(&f, (uint8_t)tos, 4);
		orig = f;
		pkt_from(&p, &f, CAKE_LINK_ETHERNET);
		ecn = tos & 3;
		marked = packet_set_ce(&p);
		assert_int_equal(marked, ecn != 0);
		if (ecn == 0 || ecn == 3) {
			/* Not-ECT untouched; CE already: counts, no rewrite. */
			assert_memory_equal(f.b, orig.b, f.len);
			continue;
		}
		assert_int_equal(f.b[15], tos | 3);
		assert_true(ipv4_csum_ok(f.b + 14));
		assert_int_equal(p.meta.dsfield, tos | 3);
		/* Only the TOS byte and the header checksum change. */
		assert_memory_equal(f.b, orig.b, 15);
		assert_memory_equal(f.b + 16, orig.b + 16, 8);
		assert_memory_equal(f.b + 26, orig.b + 26, f.len - 26);
		cake_parse(f.b, (uint32_t)f.len, CAKE_LINK_ETHERNET, &re);
		assert_int_equal(re.dsfield, tos | 3);
	}
}

/* IPv6: the ECN bits straddle bytes 0/1; version and flow label survive. */
static void
test_set_ce_ipv6_keeps_flow_label(void **state)
{
	static const uint8_t	tcs[] = { 0x01, 0x02, 0xba, 0xfd, 0x03 };
	struct cake_pkt		p;
	struct fb		f;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(tcs); i++) {
		f.len = 0;
		fb_ipv6(&f, tcs[i], 59);
		fb_ipv6_done(&f, 0);
		pkt_from(&p, &f, CAKE_LINK_IP);
		assert_true(packet_set_ce(&p));
		assert_int_equal(f.b[0], 0x60 | tcs[i] >> 4);
		assert_int_equal(f.b[1], ((tcs[i] | 3) & 0x0f) << 4 | 0x0a);
		assert_int_equal(f.b[2], 0xbc);
		assert_int_equal(f.b[3], 0xde);
		assert_int_equal(p.meta.dsfield, tcs[i] | 3);
	}
}

static void
test_set_ce_not_ect_ipv6_untouched(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	b_eth_v6_tcp(&f);	/* tc 0xb8: EF, Not-ECT */
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_is_ect(&p.meta));
	assert_false(packet_set_ce(&p));
	assert_memory_equal(f.b, orig.b, f.len);
	assert_int_equal(p.meta.dsfield, 0xb8);
}

/* VLAN-tagged IPv4: the header at net_off 18 is the one marked. */
static void
test_set_ce_behind_vlan_tag(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };
	size_t			ip;

	(void)state;
	fb_eth(&f, 0x8100);
	fb_tag(&f, 10, 0x0800);
	ip = fb_ipv4(&f, 0x02, 6, 0, 0);
	fb_tcp(&f, 1, 2, PACKET_TCP_ACK, 0);
	fb_ipv4_done(&f, ip);
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[18 + 1], 0x03);
	assert_true(ipv4_csum_ok(f.b + 18));
}

/* 6in4: the outer IPv4 header is marked, the inner one is left alone. */
static void
test_set_ce_6in4_marks_outer_only(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };
	uint8_t			inner[40];
	size_t			ip6;

	(void)state;
	ip6 = mk_6in4(&f, 0);
	f.b[15] = 0x2a;		/* outer ECT(0); fix the checksum */
	fb_ipv4_done(&f, 14);
	memcpy(inner, f.b + ip6, sizeof(inner));
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[15], 0x2b);
	assert_true(ipv4_csum_ok(f.b + 14));
	assert_memory_equal(f.b + ip6, inner, sizeof(inner));
}

static void
test_set_ce_and_wash_ignore_non_ip(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	b_arp(&f);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
	f.len = 0;
	b_v4_ihl4(&f);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
}

/* A meta that does not match the buffer is never written through. */
static void
test_stale_meta_not_written(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	mk_eth_v4_udp(&f, 0x02, 4);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	p.len = 30;			/* header no longer inside */
	assert_false(packet_set_ce(&p));
	p.len = (uint32_t)f.len;
	p.meta.l3 = CAKE_L3_IPV6;	/* version nibble disagrees */
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
}

/* Wash on every TOS: DSCP cleared, ECN kept, checksum valid. */
static void
test_wash_ipv4_every_tos(void **state)
{
	struct cake_pkt		p;
	struct fb		f, orig;
	unsigned int		tos;

	(void)state;
	for (tos = 0; tos < 256; tos++) {
		f.len = 0;
		mk_eth_v4_udp(&f, (uint8_t)tos, 4);
		orig = f;
		pkt_from(&p, &f, CAKE_LINK_ETHERNET);
		packet_wash(&p);
		if (tos >> 2 == 0) {
			assert_memory_equal(f.b, orig.b, f.len);
			continue;
		}
		assert_int_equal(f.b[15], tos & 3);
		assert_int_equal(p.meta.dsfield, tos & 3);
		assert_int_equal(packet_dscp(&p.meta), 0);
		assert_true(ipv4_csum_ok(f.b + 14));
	}
}

static void
test_wash_ipv6_keeps_ecn_and_flow_label(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };

	(void)state;
	fb_ipv6(&f, 0xb9, 59);	/* EF + ECT(1) */
	fb_ipv6_done(&f, 0);
	pkt_from(&p, &f, CAKE_LINK_IP);
	packet_wash(&p);
	assert_int_equal(f.b[0], 0x60);
	assert_int_equal(f.b[1], 0x1a);
	assert_int_equal(f.b[2], 0xbc);
	assert_int_equal(p.meta.dsfield, 0x01);
	cake_parse(f.b, (uint32_t)f.len, CAKE_LINK_IP, &p.meta);
	assert_int_equal(p.meta.dsfield, 0x01);
}

/* Wash then CE: both rewrites compose and the checksum still verifies. */
static void
test_wash_then_ce_checksum(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };

	(void)state;
	mk_eth_v4_udp(&f, 0xba, 4);
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	packet_wash(&p);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[15], 0x03);
	assert_true(ipv4_csum_ok(f.b + 14));
}

static void
test_dscp_and_is_ect_table(void **state)
{
	static const struct {
		uint8_t		l3, ds;
		unsigned int	dscp;
		bool		ect;
	} t[] = {
		{ CAKE_L3_IPV4, 0xb8, 46, false },
		{ CAKE_L3_IPV4, 0xba, 46, true },
		{ CAKE_L3_IPV4, 0x21, 8, true },
		{ CAKE_L3_IPV6, 0xff, 63, true },
		{ CAKE_L3_IPV6, 0x03, 0, true },
		{ CAKE_L3_IPV6, 0x00, 0, false },
		{ CAKE_L3_ARP, 0xff, 0, false },
		{ CAKE_L3_NONE, 0xff, 0, false },
	};
	struct cake_pkt_meta	m;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.l3 = t[i].l3;
		m.dsfield = t[i].ds;
		assert_int_equal(packet_dscp(&m), t[i].dscp);
		assert_int_equal(packet_is_ect(&m), t[i].ect);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ce_ipv4_every_tos),
		cmocka_unit_test(test_set_ce_ipv6_keeps_flow_label),
		cmocka_unit_test(test_set_ce_not_ect_ipv6_untouched),
		cmocka_unit_test(test_set_ce_behind_vlan_tag),
		cmocka_unit_test(test_set_ce_6in4_marks_outer_only),
		cmocka_unit_test(test_set_ce_and_wash_ignore_non_ip),
		cmocka_unit_test(test_stale_meta_not_written),
		cmocka_unit_test(test_wash_ipv4_every_tos),
		cmocka_unit_test(test_wash_ipv6_keeps_ecn_and_flow_label),
		cmocka_unit_test(test_wash_then_ce_checksum),
		cmocka_unit_test(test_dscp_and_is_ect_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
