/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_vnet.c: virtio-net headers (src/daemon/vnet.c): decoding and
 * encoding, batched reads that move super-packets into large buffers,
 * and writes. A SOCK_SEQPACKET socketpair stands in for the TAP fd: like
 * /dev/net/tun it returns one record per read, truncated to the buffer.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "daemon/pool.h"
#include "daemon/vnet.h"

#define SMALL_BYTES	2048
#define LARGE_BYTES	(65536 + 64)

static const struct {
	const char	*name;
	struct vnet_hdr	 h;
	bool		 partial;
	uint8_t		 gso_type;
	uint16_t	 gso_size;
	uint16_t	 csum_start;
	uint16_t	 csum_offset;
} decode_cases[] = {
	{ "plain frame", { 0, 0, 0, 0, 0, 0 }, false, 0, 0, 0, 0 },
	{ "data-valid only", { VNET_F_DATA_VALID, 0, 0, 0, 0, 0 }, false, 0,
	    0, 0, 0 },
	{ "partial checksum", { VNET_F_NEEDS_CSUM, 0, 0, 0, 34, 16 }, true,
	    0, 0, 34, 16 },
	{ "offsets ignored without NEEDS_CSUM", { 0, 0, 0, 0, 34, 16 },
	    false, 0, 0, 0, 0 },
	{ "TCPv4 super-packet", { VNET_F_NEEDS_CSUM, CAKE_GSO_TCPV4, 66,
	    1448, 34, 16 }, true, CAKE_GSO_TCPV4, 1448, 34, 16 },
	{ "TCPv6 with ECN", { VNET_F_NEEDS_CSUM, CAKE_GSO_TCPV6 |
	    CAKE_GSO_ECN, 86, 1428, 54, 16 }, true,
	    CAKE_GSO_TCPV6 | CAKE_GSO_ECN, 1428, 54, 16 },
	{ "UDP segmentation", { VNET_F_NEEDS_CSUM, CAKE_GSO_UDP_L4, 42,
	    1472, 34, 6 }, true, CAKE_GSO_UDP_L4, 1472, 34, 6 },
	{ "gso_size ignored without a GSO type", { 0, 0, 0, 1448, 0, 0 },
	    false, 0, 0, 0, 0 },
};

static void
decode_sets_the_packet_fields_from_the_header(void **state)
{
	struct cake_pkt	pkt;
	size_t		i;

	(void)state;
	for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]);
	    i++) {
		memset(&pkt, 0xa5, sizeof(pkt));
		vnet_decode(&decode_cases[i].h, &pkt);
		print_message("%s\n", decode_cases[i].name);
		assert_int_equal(pkt.csum_partial, decode_cases[i].partial);
		assert_int_equal(pkt.gso_type, decode_cases[i].gso_type);
		assert_int_equal(pkt.gso_size, decode_cases[i].gso_size);
		assert_int_equal(pkt.csum_start, decode_cases[i].csum_start);
		assert_int_equal(pkt.csum_offset,
		    decode_cases[i].csum_offset);
	}
}

/* A TCP/IPv4 packet in an Ethernet frame, as cake_parse() would see it. */
static void
tcp_pkt(struct cake_pkt *pkt, uint8_t *buf, uint32_t len)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->data = buf;
	pkt->len = len;
	pkt->cap = len;
	pkt->meta_valid = true;
	pkt->meta.net_off = pkt->meta.ip_off = 14;
	pkt->meta.l4_off = 34;
	pkt->meta.tcp_hdr_len = 32;
	pkt->meta.l3 = CAKE_L3_IPV4;
	pkt->meta.tuple.proto = 6;
}

static void
encode_gives_what_the_kernel_needs(void **state)
{
	struct cake_pkt	pkt;
	struct vnet_hdr	h, zero;
	uint8_t		buf[64];

	(void)state;
	memset(&zero, 0, sizeof(zero));
	/* Split segments and plain frames: complete, nothing to ask. */
	tcp_pkt(&pkt, buf, 1514);
	vnet_encode(&pkt, &h);
	assert_memory_equal(&h, &zero, sizeof(h));
	/* A partial checksum goes on to the device. */
	pkt.csum_partial = true;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	vnet_encode(&pkt, &h);
	assert_int_equal(h.flags, VNET_F_NEEDS_CSUM);
	assert_int_equal(h.gso_type, CAKE_GSO_NONE);
	assert_int_equal(h.csum_start, 34);
	assert_int_equal(h.csum_offset, 16);
	assert_int_equal(h.gso_size, 0);
	/* A super-packet kept whole: the kernel segments it on output. */
	pkt.len = 30000;
	pkt.gso_type = CAKE_GSO_TCPV4 | CAKE_GSO_ECN;
	pkt.gso_size = 1448;
	vnet_encode(&pkt, &h);
	assert_int_equal(h.flags, VNET_F_NEEDS_CSUM);
	assert_int_equal(h.gso_type, CAKE_GSO_TCPV4 | CAKE_GSO_ECN);
	assert_int_equal(h.gso_size, 1448);
	assert_int_equal(h.hdr_len, 34 + 32);
	/* Read back, the header gives the same fields. */
	memset(&pkt, 0, sizeof(pkt));
	vnet_decode(&h, &pkt);
	assert_true(pkt.csum_partial);
	assert_int_equal(pkt.gso_type, CAKE_GSO_TCPV4 | CAKE_GSO_ECN);
	assert_int_equal(pkt.gso_size, 1448);
}

struct fixture {
	int		 sv[2];		/* [0] plays the device fd */
	struct pool	*pool;
};

static int
setup(void **state)
{
	static struct fixture	f;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, f.sv) == -1)
		return -1;
	/* Big enough for one 64 KB record. */
	(void)setsockopt(f.sv[1], SOL_SOCKET, SO_SNDBUF,
	    &(int){ 1 << 20 }, sizeof(int));
	if (fcntl(f.sv[0], F_SETFL, O_NONBLOCK) == -1 ||
	    (f.pool = pool_create(SMALL_BYTES)) == NULL)
		return -1;
	*state = &f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	close(f->sv[0]);
	close(f->sv[1]);
	pool_destroy(f->pool);
	return 0;
}

/* The kernel's side: a header and len bytes of pattern seed. */
static void
send_frame(int fd, const struct vnet_hdr *h, uint32_t len, uint8_t seed)
{
	static uint8_t	rec[VNET_HDR_BYTES + LARGE_BYTES];
	uint32_t	i;

	memcpy(rec, h, VNET_HDR_BYTES);
	for (i = 0; i < len; i++)
		rec[VNET_HDR_BYTES + i] = (uint8_t)(seed + i * 7);
	assert_int_equal(send(fd, rec, VNET_HDR_BYTES + len, 0),
	    (ssize_t)(VNET_HDR_BYTES + len));
}

static void
assert_pattern(const uint8_t *p, uint32_t len, uint8_t seed)
{
	uint32_t	i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i * 7))
			fail_msg("byte %u differs", i);
}

static int
get_bufs(struct pool *p, struct cake_pkt *pkts[], int n)
{
	int	i;

	for (i = 0; i < n; i++)
		assert_non_null(pkts[i] = pool_get(p));
	return n;
}

static void
read_batch_moves_super_packets_into_large_buffers(void **state)
{
	struct fixture		*f = *state;
	struct vnet_hdr		 plain = { 0 }, gso = { VNET_F_NEEDS_CSUM,
				    CAKE_GSO_TCPV4, 66, 1448, 34, 16 };
	struct cake_pkt		*pkts[4], *spare = NULL;
	struct pool_stats	 st;
	uint32_t		 lens[4];
	int			 i, n;

	assert_int_equal(pool_add_large(f->pool, LARGE_BYTES, 4), 0);
	send_frame(f->sv[1], &plain, 60, 1);
	send_frame(f->sv[1], &gso, 40000, 2);
	send_frame(f->sv[1], &plain, 1514, 3);
	n = get_bufs(f->pool, pkts, 4);
	assert_int_equal(vnet_read_batch(f->sv[0], f->pool, &spare, pkts,
	    lens, n), 3);
	assert_int_equal(lens[0], 60);
	assert_int_equal(lens[1], 40000);
	assert_int_equal(lens[2], 1514);
	assert_int_equal(pkts[0]->cap, SMALL_BYTES);
	assert_true(pkts[1]->cap >= LARGE_BYTES);	/* promoted */
	assert_int_equal(pkts[2]->cap, SMALL_BYTES);
	assert_pattern(pkts[0]->data, 60, 1);
	assert_pattern(pkts[1]->data, 40000, 2);	/* contiguous */
	assert_pattern(pkts[2]->data, 1514, 3);
	assert_false(pkts[0]->csum_partial);
	assert_true(pkts[1]->csum_partial);
	assert_int_equal(pkts[1]->gso_type, CAKE_GSO_TCPV4);
	assert_int_equal(pkts[1]->gso_size, 1448);
	assert_int_equal(pkts[1]->csum_start, 34);
	/* The small buffer it replaced went back; a new spare is held. */
	pool_get_stats(f->pool, &st);
	assert_int_equal(st.free, st.bufs - 3);
	assert_non_null(spare);
	assert_int_equal(st.large_free, st.large_bufs - 2);
	for (i = 0; i < n; i++)
		pool_put(f->pool, pkts[i]);
	pool_put(f->pool, spare);
	pool_get_stats(f->pool, &st);
	assert_int_equal(st.free, st.bufs);
	assert_int_equal(st.large_free, st.large_bufs);
}

static void
read_batch_without_large_buffers_reports_an_oversize_frame(void **state)
{
	struct fixture	*f = *state;
	struct vnet_hdr	 gso = { VNET_F_NEEDS_CSUM, CAKE_GSO_TCPV4, 66, 1448,
			    34, 16 };
	struct cake_pkt	*pkts[2], *spare = NULL;
	uint32_t	 lens[2] = { 0, 0 };
	int		 i;

	send_frame(f->sv[1], &gso, 9000, 4);
	get_bufs(f->pool, pkts, 2);
	assert_int_equal(vnet_read_batch(f->sv[0], f->pool, &spare, pkts,
	    lens, 2), 1);
	/* Truncated to the buffer: the caller sees len >= cap and drops. */
	assert_true(lens[0] >= pkts[0]->cap);
	assert_null(spare);
	for (i = 0; i < 2; i++)
		pool_put(f->pool, pkts[i]);
}

static void
read_shorter_than_the_header_gives_an_empty_frame(void **state)
{
	struct fixture	*f = *state;
	struct cake_pkt	*pkts[1], *spare = NULL;
	uint32_t	 lens[1] = { 99 };
	uint8_t		 junk[4] = { 1, 2, 3, 4 };

	assert_int_equal(send(f->sv[1], junk, sizeof(junk), 0), 4);
	get_bufs(f->pool, pkts, 1);
	assert_int_equal(vnet_read_batch(f->sv[0], f->pool, &spare, pkts,
	    lens, 1), 1);
	assert_int_equal(lens[0], 0);
	/* Nothing more waiting: 0, not an error. */
	assert_int_equal(vnet_read_batch(f->sv[0], f->pool, &spare, pkts,
	    lens, 1), 0);
	pool_put(f->pool, pkts[0]);
}

static void
write_prepends_the_encoded_header(void **state)
{
	struct fixture	*f = *state;
	struct cake_pkt	 pkt;
	struct vnet_hdr	 h;
	uint8_t		 frame[200], rec[512];
	ssize_t		 r;

	memset(frame, 0x3c, sizeof(frame));
	tcp_pkt(&pkt, frame, sizeof(frame));
	pkt.csum_partial = true;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	assert_int_equal(vnet_write(f->sv[0], &pkt), 1);
	r = recv(f->sv[1], rec, sizeof(rec), 0);
	assert_int_equal(r, VNET_HDR_BYTES + sizeof(frame));
	memcpy(&h, rec, sizeof(h));
	assert_int_equal(h.flags, VNET_F_NEEDS_CSUM);
	assert_int_equal(h.csum_start, 34);
	assert_int_equal(h.csum_offset, 16);
	assert_memory_equal(rec + VNET_HDR_BYTES, frame, sizeof(frame));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    decode_sets_the_packet_fields_from_the_header),
		cmocka_unit_test(encode_gives_what_the_kernel_needs),
		cmocka_unit_test_setup_teardown(
		    read_batch_moves_super_packets_into_large_buffers,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    read_batch_without_large_buffers_reports_an_oversize_frame,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    read_shorter_than_the_header_gives_an_empty_frame,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    write_prepends_the_encoded_header, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
