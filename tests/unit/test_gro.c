/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_gro.c: coalescing on output (src/daemon/gro.c). A TCP super-packet
 * as the kernel hands it over (checksum field holding the pseudo-header
 * sum) is cut by the engine's gso_split() and glued back by gro_gather():
 * the result must be the original, byte for byte, with the GSO fields the
 * kernel needs. Then one change at a time shows which segments must not
 * be glued.
 */
#include <sys/uio.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "daemon/gro.h"
#include "engine/gso.h"

#define ETH_BYTES	14
#define TCP_BYTES	32	/* 20 + NOP NOP timestamps */
#define MSS		1000
#define SEGS		9
#define PAYLOAD		(MSS * (SEGS - 1) + 600)	/* last one short */
#define BIG_CAP		65600
#define BUFS_MAX	64

static uint8_t	bufs[BUFS_MAX][2048];
static struct cake_pkt	pkts[BUFS_MAX];
static unsigned int	used;

/* The engine's allocator: fresh 2 KB buffers from a static array. */
static struct cake_pkt *
alloc_fn(void *arg, uint32_t cap)
{
	struct cake_pkt	*p;

	(void)arg;
	if (used == BUFS_MAX || cap > sizeof(bufs[0]))
		return NULL;
	p = &pkts[used];
	memset(p, 0, sizeof(*p));
	p->data = bufs[used++];
	p->cap = sizeof(bufs[0]);
	return p;
}

static uint32_t
sum16(uint32_t acc, const uint8_t *p, size_t n)
{
	size_t	k;

	for (k = 0; k < n; k++)
		acc += k % 2 == 0 ? (uint32_t)p[k] << 8 : p[k];
	return acc;
}

static uint16_t
fold(uint32_t acc)
{
	while (acc > 0xffff)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A TCP super-packet (Ethernet, IPv4 or IPv6), PSH on, as from a TAP. */
static uint32_t
build(uint8_t *f, bool v6)
{
	uint32_t	ip_bytes = v6 ? 40 : 20, l4 = ETH_BYTES + ip_bytes;
	uint32_t	len = l4 + TCP_BYTES + PAYLOAD, i, acc;
	uint8_t		*ip = f + ETH_BYTES, *tcp = f + l4;

	memset(f, 0, len);
	memset(f, 0x02, 12);
	put16(f + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		ip[0] = 0x60;
		put16(ip + 4, TCP_BYTES + PAYLOAD);
		ip[6] = 6;
		ip[7] = 64;
		ip[23] = 1;
		ip[39] = 2;
		ip[8] = ip[24] = 0xfd;
		acc = sum16(0, ip + 8, 32);
	} else {
		ip[0] = 0x45;
		put16(ip + 2, len - ETH_BYTES);
		put16(ip + 4, 0x1234);
		ip[6] = 0x40;		/* DF */
		ip[8] = 64;
		ip[9] = 6;
		ip[12] = ip[16] = 10;
		ip[15] = 1;
		ip[19] = 2;
		put16(ip + 10, (uint16_t)~fold(sum16(0, ip, 20)));
		acc = sum16(0, ip + 12, 8);
	}
	put16(tcp, 40000);
	put16(tcp + 2, 5201);
	tcp[4] = 0xff;			/* sequence wraps inside */
	tcp[5] = 0xff;
	tcp[6] = 0xf0;
	tcp[8] = 7;
	tcp[12] = (TCP_BYTES / 4) << 4;
	tcp[13] = 0x18;			/* ACK PSH */
	put16(tcp + 14, 512);
	tcp[20] = tcp[21] = 1;
	tcp[22] = 8;
	tcp[23] = 10;
	tcp[27] = 9;
	for (i = 0; i < PAYLOAD; i++)
		tcp[TCP_BYTES + i] = (uint8_t)(i * 13 + 5);
	acc += 6 + TCP_BYTES + PAYLOAD;
	put16(tcp + 16, fold(acc));	/* NEEDS_CSUM: pseudo-header only */
	return len;
}

static uint8_t	orig[ETH_BYTES + 40 + TCP_BYTES + PAYLOAD];
static bool	split_partial;	/* env keep_partial_csum for split() */
static uint8_t	big_buf[BIG_CAP];

/* Splits the super-packet into segs[] with the engine; returns n. */
static unsigned int
split(bool v6, struct cake_pkt *segs[])
{
	struct cake_env	 env;
	struct cake_pkt	 sp, *list, *p;
	unsigned int	 n = 0;

	used = 0;
	memset(&sp, 0, sizeof(sp));
	sp.data = orig;
	sp.len = build(orig, v6);
	sp.cap = sizeof(orig);
	cake_parse(sp.data, sp.len, CAKE_LINK_ETHERNET, &sp.meta);
	sp.meta_valid = true;
	sp.gso_type = v6 ? CAKE_GSO_TCPV6 : CAKE_GSO_TCPV4;
	sp.gso_size = MSS;
	sp.csum_partial = true;
	sp.csum_start = (uint16_t)(ETH_BYTES + (v6 ? 40 : 20));
	sp.csum_offset = 16;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_ETHERNET;
	env.alloc = alloc_fn;
	env.keep_partial_csum = split_partial;
	assert_int_equal(gso_split(&sp, &env, &list), SEGS);
	for (p = list; p != NULL; p = p->next)
		segs[n++] = p;
	return n;
}

/* Glues as the datapath does; returns how many segments joined. */
static unsigned int
glue(struct cake_pkt *segs[], unsigned int n, struct cake_pkt *out)
{
	uint8_t		hdr_buf[GRO_HDR_MAX];
	struct iovec	iov[GRO_SEGS_MAX];
	unsigned int	k = 1, i;
	size_t		off;

	if (!gro_candidate(segs[0]))
		return 0;
	while (k < n && gro_follows(segs, k, segs[k], BIG_CAP))
		k++;
	if (k > 1) {
		/* Gathered as writev() would: headers, then the payloads. */
		gro_gather(segs, k, out, hdr_buf, iov);
		assert_in_range(out->cap, 1, sizeof(hdr_buf));
		memcpy(big_buf, hdr_buf, out->cap);
		off = out->cap;
		for (i = 0; i < k; i++) {
			assert_true(off + iov[i].iov_len <= BIG_CAP);
			memcpy(big_buf + off, iov[i].iov_base, iov[i].iov_len);
			off += iov[i].iov_len;
		}
		assert_int_equal(off, out->len);
		out->data = big_buf;
	}
	return k;
}

static void
check_round_trip(bool v6)
{
	struct cake_pkt	*segs[SEGS], out;
	uint32_t	 l4 = ETH_BYTES + (v6 ? 40 : 20);

	assert_int_equal(split(v6, segs), SEGS);
	assert_int_equal(glue(segs, SEGS, &out), SEGS);
	assert_int_equal(out.len, l4 + TCP_BYTES + PAYLOAD);
	assert_memory_equal(out.data, orig, out.len);
	assert_int_equal(out.gso_type, v6 ? CAKE_GSO_TCPV6 : CAKE_GSO_TCPV4);
	assert_int_equal(out.gso_size, MSS);
	assert_true(out.csum_partial);
	assert_int_equal(out.csum_start, l4);
	assert_int_equal(out.csum_offset, 16);
	assert_int_equal(out.meta.tcp_flags, 0x18);
}

static void
split_then_glued_gives_the_tcpv4_super_packet_back(void **state)
{
	(void)state;
	check_round_trip(false);
}

static void
split_then_glued_gives_the_tcpv6_super_packet_back(void **state)
{
	(void)state;
	check_round_trip(true);
}

/*
 * With keep_partial_csum the segments carry NEEDS_CSUM and their own
 * pseudo-header sum: completed as the kernel would, each checksum equals
 * the one computed in full; glued, they still give the original back.
 */
static void
partial_segments_complete_to_the_full_checksums(void **state)
{
	struct cake_pkt	*full[SEGS], *part[SEGS], out;
	uint8_t		 copy[SEGS][2048];
	unsigned int	 i, v6;
	uint32_t	 l4;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		l4 = ETH_BYTES + (v6 ? 40 : 20);
		split_partial = false;
		assert_int_equal(split(v6, full), SEGS);
		for (i = 0; i < SEGS; i++) {
			assert_false(full[i]->csum_partial);
			memcpy(copy[i], full[i]->data, full[i]->len);
		}
		split_partial = true;
		assert_int_equal(split(v6, part), SEGS);
		for (i = 0; i < SEGS; i++) {
			assert_true(part[i]->csum_partial);
			assert_int_equal(part[i]->csum_start, l4);
			assert_int_equal(part[i]->csum_offset, 16);
			assert_int_equal(gso_finish_csum(part[i]), 0);
			assert_memory_equal(part[i]->data, copy[i],
			    part[i]->len);
		}
		assert_int_equal(split(v6, part), SEGS);
		assert_int_equal(glue(part, SEGS, &out), SEGS);
		assert_memory_equal(out.data, orig, out.len);
	}
	split_partial = false;
}

/* One change to segment 4 (of 9): glued are segments 0..stop-1. */
static const struct {
	const char	*name;
	uint32_t	 off;		/* from the TCP header (-1: IP) */
	uint8_t		 xor;
	unsigned int	 stop;
} breaks[] = {
	{ "sequence gap", 7, 0x01, 4 },
	{ "other ack number", 11, 0x01, 4 },
	{ "other window", 15, 0x01, 4 },
	{ "other timestamp option", 27, 0x01, 4 },
	{ "FIN set", 13, 0x01, 4 },
	{ "SYN set", 13, 0x02, 4 },
	{ "RST set", 13, 0x04, 4 },
	{ "URG set", 13, 0x20, 4 },
	{ "CWR set", 13, 0x80, 4 },
	{ "PSH set: it ends the run", 13, 0x08, 5 },
	{ "other source port", 1, 0x01, 4 },
	{ "changed payload is fine", 40, 0xff, SEGS },
	{ "ECN CE mark (TOS)", (uint32_t)-19, 0x03, 4 },
	{ "other TTL", (uint32_t)-12, 0x01, 4 },
};

static void
a_differing_segment_ends_the_run(void **state)
{
	struct cake_pkt	*segs[SEGS], out;
	uint32_t	 l4 = ETH_BYTES + 20;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		print_message("%s\n", breaks[i].name);
		split(false, segs);
		segs[4]->data[l4 + breaks[i].off] ^= breaks[i].xor;
		/* The parse result travels with the packet: keep it true. */
		cake_parse(segs[4]->data, segs[4]->len, CAKE_LINK_ETHERNET,
		    &segs[4]->meta);
		assert_int_equal(glue(segs, SEGS, &out), breaks[i].stop);
	}
}

static void
short_segments_and_limits_end_the_run(void **state)
{
	struct cake_pkt	*segs[SEGS];
	uint32_t	 l4 = ETH_BYTES + 20;

	(void)state;
	/* A short segment may only be last. */
	split(false, segs);
	segs[2]->len -= 100;
	segs[2]->meta.ip_end -= 100;
	put16(segs[2]->data + ETH_BYTES + 2, segs[2]->len - ETH_BYTES);
	assert_true(gro_follows(segs, 2, segs[2], BIG_CAP));
	assert_false(gro_follows(segs, 3, segs[3], BIG_CAP));
	/* The output buffer bounds the run. */
	split(false, segs);
	assert_false(gro_follows(segs, 2, segs[2], 2 * MSS + l4 + 10));
	assert_true(gro_follows(segs, 2, segs[2], 3 * MSS + l4 + 32));
	/* No DF: IPv4 IDs would matter, so no gluing. */
	split(false, segs);
	segs[0]->data[ETH_BYTES + 6] = 0;
	assert_false(gro_candidate(segs[0]));
	/* Pure ACKs (no payload) and GSO packets are no candidates. */
	split(false, segs);
	segs[0]->len = l4 + TCP_BYTES;
	segs[0]->meta.ip_end = (uint16_t)segs[0]->len;
	assert_false(gro_candidate(segs[0]));
	split(false, segs);
	segs[0]->gso_type = CAKE_GSO_TCPV4;
	assert_false(gro_candidate(segs[0]));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    split_then_glued_gives_the_tcpv4_super_packet_back),
		cmocka_unit_test(
		    split_then_glued_gives_the_tcpv6_super_packet_back),
		cmocka_unit_test(
		    partial_segments_complete_to_the_full_checksums),
		cmocka_unit_test(a_differing_segment_ends_the_run),
		cmocka_unit_test(short_segments_and_limits_end_the_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
