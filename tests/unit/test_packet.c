/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_packet.c: cake_parse(), over the case table of packet_cases.c.
 *
 * Frames are built by hand with the fb_* builders (fbuild.c). Each entry
 * of the case table is run twice: once whole (every meta field checked)
 * and once cut at every length 0..full, in a heap buffer of exactly that
 * size, so that an ASan build (configure --enable-sanitizers) proves the
 * parser reads nothing outside the frame. The packet_* header rewrites
 * (ECN and wash) are tested in test_packet_ecn.c.
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

/* ---- checks ----------------------------------------------------------- */

/* Parses len bytes of src from a heap copy of exactly len bytes. */
static void
parse_exact(const uint8_t *src, uint32_t len, enum cake_link link,
    struct cake_pkt_meta *m)
{
	uint8_t	*buf = malloc((size_t)len + 1);

	assert_non_null(buf);
	/* Data end at the end of the allocation, so ASan sees any overrun. */
	memcpy(buf + 1, src, len);
	memset(m, 0xa5, sizeof(*m));	/* no old data may survive */
	cake_parse(buf + 1, len, link, m);
	free(buf);
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t	*b = p;

	while (n-- > 0)
		if (*b++ != 0)
			return false;
	return true;
}

/* What holds for any parse result of a frame of len bytes. */
static void
check_sane(const struct cake_pkt_meta *m, uint32_t len)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	assert_true(m->net_off <= len);
	if (m->l3 == CAKE_L3_NONE || m->l3 == CAKE_L3_ARP) {
		assert_int_equal(m->inner_l3, m->l3);
		assert_int_equal(m->ip_off, m->net_off);
		assert_int_equal(m->ip_end, 0);
		assert_int_equal(m->l4_off, 0);
		assert_int_equal(m->l4_len, 0);
		assert_int_equal(m->dsfield, 0);
		assert_int_equal(m->tcp_flags, 0);
		assert_int_equal(m->tcp_hdr_len, 0);
		assert_true(all_zero(&m->tuple, sizeof(m->tuple)));
		assert_true(m->flags == 0 || m->flags == F_BAD ||
		    m->flags == F_TRUNC);
		if (m->l3 == CAKE_L3_ARP)
			assert_int_equal(m->flags, 0);
		return;
	}
	assert_true(m->l3 == CAKE_L3_IPV4 || m->l3 == CAKE_L3_IPV6);
	assert_int_equal(m->flags & (F_BAD | F_TRUNC), 0);
	assert_true(m->ip_end <= len);
	assert_true(m->net_off < m->ip_end);
	assert_true(m->ip_off >= m->net_off && m->ip_off < m->ip_end);
	if (m->l4_off != 0) {
		assert_true(m->l4_off > m->ip_off);
		assert_true(m->l4_off + m->l4_len <= m->ip_end);
	} else
		assert_int_equal(m->l4_len, 0);
	if (m->tuple.family == 4) {
		assert_int_equal(m->inner_l3, CAKE_L3_IPV4);
		assert_memory_equal(m->tuple.src, v4map, 12);
		assert_memory_equal(m->tuple.dst, v4map, 12);
	} else {
		assert_int_equal(m->tuple.family, 6);
		assert_int_equal(m->inner_l3, CAKE_L3_IPV6);
	}
	assert_int_equal((m->flags & F_6IN4) != 0, m->inner_l3 != m->l3);
}

static void
check_case(const struct pcase *c, const struct cake_pkt_meta *m,
    uint32_t len)
{
	uint8_t	v4mapped[16] = { [10] = 0xff, [11] = 0xff };

	check_sane(m, len);
	assert_int_equal(m->l3, c->l3);
	assert_int_equal(m->inner_l3, c->inner_l3);
	assert_int_equal(m->flags, c->flags);
	assert_int_equal(m->net_off, c->net_off);
	assert_int_equal(m->ip_off, c->ip_off);
	assert_int_equal(m->l4_off, c->l4_off);
	assert_int_equal(m->l4_len, c->l4_len);
	assert_int_equal(m->ip_end, c->ip_end);
	assert_int_equal(m->dsfield, c->dsfield);
	assert_int_equal(m->tuple.proto, c->proto);
	assert_int_equal(m->tuple.family, c->family);
	assert_int_equal(m->tuple.sport, c->sport);
	assert_int_equal(m->tuple.dport, c->dport);
	assert_int_equal(m->tcp_flags, c->tcp_flags);
	assert_int_equal(m->tcp_hdr_len, c->tcp_hdr_len);
	if (c->family == 4) {
		memcpy(v4mapped + 12, v4_src, 4);
		assert_memory_equal(m->tuple.src, v4mapped, 16);
		memcpy(v4mapped + 12, v4_dst, 4);
		assert_memory_equal(m->tuple.dst, v4mapped, 16);
	} else if (c->family == 6) {
		assert_memory_equal(m->tuple.src, v6_src, 16);
		assert_memory_equal(m->tuple.dst, v6_dst, 16);
	}
}

/* A whole frame parses to exactly the table's meta. */
static void
test_case_whole(void **state)
{
	const struct pcase	*c = *state;
	struct cake_pkt_meta	 m;
	struct fb		 f = { .len = 0 };

	c->build(&f);
	parse_exact(f.b, (uint32_t)f.len, c->link, &m);
	check_case(c, &m, (uint32_t)f.len);
}

/*
 * Every prefix of the frame: either the whole frame's result (only once
 * the IP packet is complete) or truncated non-IP; never a read outside.
 */
static void
test_case_every_length(void **state)
{
	const struct pcase	*c = *state;
	struct cake_pkt_meta	 whole, m;
	struct fb		 f = { .len = 0 };
	uint32_t		 len;

	c->build(&f);
	parse_exact(f.b, (uint32_t)f.len, c->link, &whole);
	for (len = 0; len < f.len; len++) {
		parse_exact(f.b, len, c->link, &m);
		check_sane(&m, len);
		if (c->l3 == L_V4 || c->l3 == L_V6) {
			if (len >= whole.ip_end) {
				assert_memory_equal(&m, &whole, sizeof(m));
				continue;
			}
		} else if (memcmp(&m, &whole, sizeof(m)) == 0)
			continue;
		assert_int_equal(m.l3, CAKE_L3_NONE);
		assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	}
}

/* ---- targeted parser tests -------------------------------------------- */

static void
test_empty_frames_truncated(void **state)
{
	struct cake_pkt_meta	m;
	uint8_t			b[1] = { 0x45 };

	(void)state;
	cake_parse(b, 0, CAKE_LINK_ETHERNET, &m);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	assert_int_equal(m.net_off, 0);
	cake_parse(b, 0, CAKE_LINK_IP, &m);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	cake_parse(b, 1, CAKE_LINK_IP, &m);
	assert_int_equal(m.l3, CAKE_L3_NONE);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
}

/* An IP packet whose end lies past 65535 cannot be described: malformed. */
static void
test_ip_end_beyond_16_bits_malformed(void **state)
{
	struct cake_pkt_meta	m;
	uint32_t		len = 14 + 65535;
	uint8_t			*b = calloc(1, len);
	struct fb		f = { .len = 0 };
	size_t			ip;

	(void)state;
	assert_non_null(b);
	fb_eth(&f, 0x0800);
	ip = fb_ipv4(&f, 0, 17, 0, 0);
	fb_udp(&f, 1, 2, 0);
	memcpy(b, f.b, f.len);
	put16(b + ip + 2, 65535);
	cake_parse(b, len, CAKE_LINK_ETHERNET, &m);
	assert_int_equal(m.l3, CAKE_L3_NONE);
	assert_int_equal(m.flags, CAKE_META_MALFORMED);
	/* The same packet on TUN fits (ip_end 65535). */
	cake_parse(b + 14, 65535, CAKE_LINK_IP, &m);
	assert_int_equal(m.l3, CAKE_L3_IPV4);
	assert_int_equal(m.ip_end, 65535);
	assert_int_equal(m.l4_len, 65535 - 20);
	free(b);
}

/*
 * Every single-byte mutation of every valid frame (three values per
 * byte) parses to a sane result and stays inside the buffer.
 */
static void
test_mutations_stay_sane(void **state)
{
	static const uint8_t	vals[] = { 0x00, 0xff, 0x3c };
	struct cake_pkt_meta	m;
	struct fb		f;
	size_t			i, pos, v;

	(void)state;
	for (i = 0; i < NCASES; i++) {
		f.len = 0;
		cases[i].build(&f);
		for (pos = 0; pos < f.len; pos++) {
			for (v = 0; v < sizeof(vals); v++) {
				struct fb	g = f;

				g.b[pos] = vals[v];
				parse_exact(g.b, (uint32_t)g.len,
				    cases[i].link, &m);
				check_sane(&m, (uint32_t)g.len);
			}
		}
	}
}

/* ---- runner ----------------------------------------------------------- */

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(test_empty_frames_truncated),
	cmocka_unit_test(test_ip_end_beyond_16_bits_malformed),
	cmocka_unit_test(test_mutations_stay_sane),
};
#define NFIXED	(sizeof(fixed_tests) / sizeof(fixed_tests[0]))

int
main(void)
{
	static struct CMUnitTest	tests[2 * NCASES + NFIXED];
	static char			names[2 * NCASES][96];
	size_t				i, n = 0;
	int				w;

	for (i = 0; i < NCASES; i++) {
		w = snprintf(names[n], sizeof(names[n]), "parse/%s",
		    cases[i].name);
		if (w < 0 || (size_t)w >= sizeof(names[n]))
			return 1;
		tests[n] = (struct CMUnitTest){ names[n], test_case_whole,
		    NULL, NULL, (void *)&cases[i] };
		n++;
		w = snprintf(names[n], sizeof(names[n]), "every_length/%s",
		    cases[i].name);
		if (w < 0 || (size_t)w >= sizeof(names[n]))
			return 1;
		tests[n] = (struct CMUnitTest){ names[n],
		    test_case_every_length, NULL, NULL, (void *)&cases[i] };
		n++;
	}
	for (i = 0; i < NFIXED; i++)
		tests[n++] = fixed_tests[i];
	return _cmocka_run_group_tests("packet", tests, n, NULL, NULL);
}
