/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_gso.c: unit tests of src/engine/gso.c (GSO super-packet split).
 *
 * Splits the super-packets of gsoframe.c and checks every segment with
 * the checksum routine there, independent of csum.c. The TCP segments
 * are also written to a pcap file and read back with tcpdump -vv when it
 * is installed. Failure cases check that nothing leaks (run under ASan
 * with --enable-sanitizers). Hostile or unsupported input (each case a
 * mutation of a good super-packet) must be refused whole, with nothing
 * allocated.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/gso.h"

#include "gsoframe.h"

/* ---- segment checks ----------------------------------------------------- */

static void
check_ip(const struct frame *f, const struct cake_pkt *seg, unsigned int i)
{
	const uint8_t	*ip = seg->data + f->ip_off;
	const uint8_t	*oip = f->buf + f->ip_off;

	assert_memory_equal(seg->data, f->buf, ETH_BYTES);
	if (f->v6) {
		assert_int_equal(rd16(ip + 4), seg->len - f->ip_off -
		    IPV6_BYTES);
		/* Everything else, extension headers included, unchanged. */
		assert_memory_equal(ip, oip, 4);
		assert_memory_equal(ip + 6, oip + 6, f->l4_off - f->ip_off - 6);
		return;
	}
	assert_int_equal(rd16(ip + 2), seg->len - f->ip_off);
	assert_int_equal(rd16(ip + 4), (uint16_t)(IPID0 + i));
	assert_int_equal(ref_fold(ref_sum(0, ip, IPV4_BYTES)), 0xffff);
	assert_memory_equal(ip + 6, oip + 6, 4);
	assert_memory_equal(ip + 12, oip + 12, 8);
}

static void
check_meta(const struct frame *f, const struct cake_pkt *seg)
{
	assert_int_equal(seg->truesize, cake_truesize(seg->len));
	assert_int_equal(seg->mark, TEST_MARK);
	assert_true(seg->meta_valid);
	assert_true(seg->hash_valid);
	assert_int_equal(seg->hash_tuple.sport, 1234);
	assert_int_equal(seg->gso_type, CAKE_GSO_NONE);
	assert_false(seg->csum_partial);
	assert_int_equal(seg->meta.l4_off, f->l4_off);
	assert_int_equal(seg->meta.l4_len, seg->len - f->l4_off);
	assert_int_equal(seg->meta.ip_end, seg->len);
	assert_int_equal(seg->meta.l3, f->pkt.meta.l3);
}

/* Checks one TCP segment; returns the payload bytes it carries. */
static uint32_t
check_tcp_seg(const struct frame *f, const struct cake_pkt *seg,
    unsigned int i, unsigned int n, uint32_t *next_seq)
{
	const uint8_t	*l4 = seg->data + f->l4_off;
	uint32_t	 slice = seg->len - f->hdr_bytes, off;
	uint8_t		 flags = l4[13];

	assert_true(seg->len > f->hdr_bytes);
	assert_true(slice <= f->pkt.gso_size);
	if (i + 1 < n)
		assert_int_equal(slice, f->pkt.gso_size);
	check_ip(f, seg, i);
	check_meta(f, seg);
	assert_int_equal(rd32(l4 + 4), *next_seq);
	off = rd32(l4 + 4) - SEQ0;
	assert_memory_equal(l4 + TCP_BYTES, f->buf + f->hdr_bytes + off,
	    slice);
	*next_seq = rd32(l4 + 4) + slice;
	assert_int_equal(!!(flags & TCP_FIN), i + 1 == n);
	assert_int_equal(!!(flags & TCP_PSH), i + 1 == n);
	assert_int_equal(!!(flags & TCP_CWR), i == 0);
	assert_true(flags & TCP_ACK);
	assert_int_equal(seg->meta.tcp_flags, flags);
	assert_memory_equal(l4 + 20, f->buf + f->l4_off + 20, TCP_BYTES - 20);
	assert_int_equal(rd32(l4 + 8), 0x01020304);
	assert_true(ref_l4_ok(seg->data + f->ip_off, f->v6, 6, l4,
	    seg->len - f->l4_off));
	return slice;
}

/* Checks one UDP segment; returns the payload bytes it carries. */
static uint32_t
check_udp_seg(const struct frame *f, const struct cake_pkt *seg,
    unsigned int i, uint32_t off)
{
	const uint8_t	*l4 = seg->data + f->l4_off;
	uint32_t	 slice = seg->len - f->hdr_bytes;

	assert_true(seg->len > f->hdr_bytes);
	check_ip(f, seg, i);
	check_meta(f, seg);
	assert_int_equal(rd16(l4 + 4), UDP_BYTES + slice);
	assert_int_not_equal(rd16(l4 + 6), 0);
	assert_true(ref_l4_ok(seg->data + f->ip_off, f->v6, 17, l4,
	    UDP_BYTES + slice));
	assert_memory_equal(l4 + UDP_BYTES, f->buf + f->hdr_bytes + off,
	    slice);
	return slice;
}

static void
check_segments(const struct frame *f, const struct cake_pkt *list, int n,
    unsigned int expect)
{
	const struct cake_pkt	*seg;
	uint32_t		 next_seq = SEQ0, covered = 0;
	unsigned int		 i = 0;

	assert_int_equal(n, expect);
	for (seg = list; seg != NULL; seg = seg->next, i++) {
		assert_true(i < expect);
		if (f->udp)
			covered += check_udp_seg(f, seg, i, covered);
		else
			covered += check_tcp_seg(f, seg, i, expect, &next_seq);
	}
	assert_int_equal(i, expect);
	/* The segments tile the payload exactly. */
	assert_int_equal(covered, f->payload_bytes);
}

/* ---- split: table of good super-packets ------------------------------- */

static const struct frame_spec split_cases[] = {
	{ "tcpv4_64k_mss1448", false, false, 65000, 1448, 45 },
	{ "tcpv6_64k_mss1448_hbh", true, false, 65000, 1448, 45 },
	{ "tcpv4_exact_multiple", false, false, 3 * 1448, 1448, 3 },
	{ "tcpv4_single_segment", false, false, 100, 1448, 1 },
	{ "tcpv6_odd_last_segment", true, false, 1448 + 77, 1448, 2 },
	{ "udpv4_l4_5000_mss1200", false, true, 5000, 1200, 5 },
	{ "udpv6_l4_5000_mss1200", true, true, 5000, 1200, 5 },
	{ "udpv4_l4_odd", false, true, 2401, 1200, 3 },
};

static void
test_split_case(void **state)
{
	const struct frame_spec	*s = *state;
	struct frame		 f;
	struct cake_env		 env;
	struct test_alloc	 ta;
	struct cake_pkt		*list = NULL;
	uint8_t			*orig;
	int			 n;

	frame_build(&f, s);
	test_env(&env, &ta);
	orig = malloc(f.pkt.len);
	assert_non_null(orig);
	memcpy(orig, f.buf, f.pkt.len);
	assert_int_equal(gso_segs(&f.pkt), s->expect_segs);
	n = gso_split(&f.pkt, &env, &list);
	check_segments(&f, list, n, s->expect_segs);
	assert_int_equal(ta.calls, s->expect_segs);
	/* The input is not touched. */
	assert_memory_equal(orig, f.buf, f.pkt.len);
	assert_true(f.pkt.csum_partial);
	assert_int_equal(free_list(list, &ta), s->expect_segs);
	assert_int_equal(ta.live, 0);
	free(orig);
	free(f.buf);
}

/* ---- gso_segs and gso_hdr_len ----------------------------------------- */

static void
test_segs_and_hdr_len(void **state)
{
	static const struct frame_spec v4 = { "v4", false, false, 65000,
	    1448, 45 };
	static const struct frame_spec v6 = { "v6", true, false, 1000, 1448,
	    1 };
	static const struct frame_spec u4 = { "u4", false, true, 5000, 1200,
	    5 };
	struct frame	f;

	(void)state;
	frame_build(&f, &v4);
	assert_int_equal(gso_hdr_len(&f.pkt), ETH_BYTES + IPV4_BYTES +
	    TCP_BYTES);
	assert_int_equal(gso_segs(&f.pkt), 45);
	f.pkt.gso_size = 0;
	assert_int_equal(gso_segs(&f.pkt), 1);
	f.pkt.gso_size = 1448;
	f.pkt.gso_type = CAKE_GSO_NONE;
	assert_int_equal(gso_segs(&f.pkt), 1);
	/* UFO cannot be split but is still charged by its length. */
	f.pkt.gso_type = CAKE_GSO_UDP;
	assert_int_equal(gso_segs(&f.pkt), 45);
	free(f.buf);
	frame_build(&f, &v6);
	assert_int_equal(gso_hdr_len(&f.pkt), ETH_BYTES + IPV6_BYTES +
	    HBH_BYTES + TCP_BYTES);
	assert_int_equal(gso_segs(&f.pkt), 1);
	free(f.buf);
	frame_build(&f, &u4);
	assert_int_equal(gso_hdr_len(&f.pkt), ETH_BYTES + IPV4_BYTES +
	    UDP_BYTES);
	assert_int_equal(gso_segs(&f.pkt), 5);
	free(f.buf);
}

/* ---- allocation failures: everything comes back ------------------------ */

static void
test_alloc_failure_returns_all_buffers(void **state)
{
	static const struct frame_spec v4 = { "v4", false, false, 65000,
	    1448, 45 };
	static const unsigned int fail_at[] = { 0, 1, 7, 44 };
	struct frame		 f;
	struct cake_env		 env;
	struct test_alloc	 ta;
	struct cake_pkt		*list;
	size_t			 k;

	(void)state;
	frame_build(&f, &v4);
	for (k = 0; k < sizeof(fail_at) / sizeof(fail_at[0]); k++) {
		test_env(&env, &ta);
		ta.fail_at = fail_at[k];
		list = (struct cake_pkt *)&list;	/* must be overwritten */
		assert_int_equal(gso_split(&f.pkt, &env, &list), -1);
		assert_int_equal(free_list(list, &ta), fail_at[k]);
		assert_int_equal(ta.live, 0);
	}
	/* A buffer smaller than asked for is an error, and comes back. */
	test_env(&env, &ta);
	ta.short_at = 3;
	assert_int_equal(gso_split(&f.pkt, &env, &list), -1);
	assert_int_equal(free_list(list, &ta), 4);
	assert_int_equal(ta.live, 0);
	/* No allocator at all. */
	test_env(&env, &ta);
	env.alloc = NULL;
	assert_int_equal(gso_split(&f.pkt, &env, &list), -1);
	assert_null(list);
	free(f.buf);
}
/* ---- a UDP checksum that computes to 0 goes out as 0xffff ------------- */

/* Sets the first payload word so that the full UDP checksum computes to 0. */
static void
udp_force_zero_csum(struct frame *f)
{
	uint8_t		*l4 = f->buf + f->l4_off;
	uint32_t	 l4_len = f->pkt.len - f->l4_off;
	uint16_t	 saved = rd16(l4 + 6);
	uint64_t	 sum;

	wr16(l4 + UDP_BYTES, 0);
	wr16(l4 + 6, 0);
	sum = ref_sum(ref_pseudo(f->buf + f->ip_off, f->v6, 17, l4_len), l4,
	    l4_len);
	/* fold(sum + w) = 0xffff makes the complement, the checksum, 0. */
	wr16(l4 + UDP_BYTES, 0xffff - ref_fold(sum));
	wr16(l4 + 6, saved);
}

static void
test_udp_zero_checksum_sent_as_ones(void **state)
{
	static const struct frame_spec specs[] = {
		{ "udpv4", false, true, 100, 1448, 1 },
		{ "udpv6", true, true, 100, 1448, 1 },
	};
	struct frame		 f;
	struct cake_env		 env;
	struct test_alloc	 ta;
	struct cake_pkt		*list;
	size_t			 k;

	(void)state;
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		frame_build(&f, &specs[k]);
		udp_force_zero_csum(&f);
		test_env(&env, &ta);
		assert_int_equal(gso_split(&f.pkt, &env, &list), 1);
		assert_int_equal(rd16(list->data + f.l4_off + 6), 0xffff);
		assert_true(ref_l4_ok(list->data + f.ip_off, f.v6, 17,
		    list->data + f.l4_off, list->len - f.l4_off));
		free_list(list, &ta);
		/* gso_finish_csum() does the same. */
		assert_int_equal(gso_finish_csum(&f.pkt), 0);
		assert_int_equal(rd16(f.buf + f.l4_off + 6), 0xffff);
		free(f.buf);
	}
}

/* ---- gso_finish_csum ------------------------------------------------- */

static void
test_finish_csum(void **state)
{
	static const struct frame_spec specs[] = {
		{ "tcpv4_odd", false, false, 101, 0, 1 },
		{ "tcpv6_hbh", true, false, 1000, 0, 1 },
		{ "udpv4", false, true, 333, 0, 1 },
		{ "udpv6", true, true, 1200, 0, 1 },
	};
	struct frame	f;
	size_t		k;

	(void)state;
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		frame_build(&f, &specs[k]);
		f.pkt.gso_type = CAKE_GSO_NONE;
		assert_false(ref_l4_ok(f.buf + f.ip_off, f.v6,
		    f.udp ? 17 : 6, f.buf + f.l4_off, f.pkt.len - f.l4_off));
		assert_int_equal(gso_finish_csum(&f.pkt), 0);
		assert_false(f.pkt.csum_partial);
		assert_true(ref_l4_ok(f.buf + f.ip_off, f.v6, f.udp ? 17 : 6,
		    f.buf + f.l4_off, f.pkt.len - f.l4_off));
		/* Not partial any more: a second call changes nothing. */
		wr16(f.buf + f.l4_off + f.pkt.csum_offset, 0x1234);
		assert_int_equal(gso_finish_csum(&f.pkt), 0);
		assert_int_equal(rd16(f.buf + f.l4_off + f.pkt.csum_offset),
		    0x1234);
		free(f.buf);
	}
}

static void
test_finish_csum_out_of_bounds(void **state)
{
	static const struct frame_spec s = { "v4", false, false, 10, 0, 1 };
	static const uint16_t starts[] = { 1000, 65535, 0 };
	static const uint16_t offsets[] = { 0, 16, 65535 };
	struct frame	f;
	uint8_t		*orig;
	size_t		k;

	(void)state;
	frame_build(&f, &s);
	orig = malloc(f.pkt.len);
	assert_non_null(orig);
	memcpy(orig, f.buf, f.pkt.len);
	for (k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
		f.pkt.csum_partial = true;
		f.pkt.csum_start = starts[k];
		f.pkt.csum_offset = offsets[k];
		assert_int_equal(gso_finish_csum(&f.pkt), -1);
		assert_true(f.pkt.csum_partial);
		assert_memory_equal(orig, f.buf, f.pkt.len);
	}
	/* The field in the last two bytes is still in bounds. */
	f.pkt.csum_start = (uint16_t)(f.pkt.len - 2);
	f.pkt.csum_offset = 0;
	assert_int_equal(gso_finish_csum(&f.pkt), 0);
	free(orig);
	free(f.buf);
}

/* ---- tcpdump cross-check ---------------------------------------------- */

struct pcap_state {
	char	path[64];
};

static void
pcap_put32(FILE *fp, uint32_t v)
{
	assert_int_equal(fwrite(&v, sizeof(v), 1, fp), 1);
}

static void
pcap_put16(FILE *fp, uint16_t v)
{
	assert_int_equal(fwrite(&v, sizeof(v), 1, fp), 1);
}

/* Splits spec and appends its segments to fp; returns the count. */
static unsigned int
pcap_append(FILE *fp, const struct frame_spec *s)
{
	struct frame		 f;
	struct cake_env		 env;
	struct test_alloc	 ta;
	struct cake_pkt		*list, *seg;
	int			 n;

	frame_build(&f, s);
	test_env(&env, &ta);
	n = gso_split(&f.pkt, &env, &list);
	assert_int_equal(n, s->expect_segs);
	for (seg = list; seg != NULL; seg = seg->next) {
		pcap_put32(fp, 1700000000);		/* ts_sec */
		pcap_put32(fp, 0);			/* ts_usec */
		pcap_put32(fp, seg->len);		/* incl_len */
		pcap_put32(fp, seg->len);		/* orig_len */
		assert_int_equal(fwrite(seg->data, 1, seg->len, fp), seg->len);
	}
	free_list(list, &ta);
	free(f.buf);
	return (unsigned int)n;
}

static int
pcap_setup(void **state)
{
	static struct pcap_state ps;
	int	r;

	r = snprintf(ps.path, sizeof(ps.path), "test_gso-%ld.pcap",
	    (long)getpid());
	if (r < 0 || (size_t)r >= sizeof(ps.path))
		return -1;
	*state = &ps;
	return 0;
}

static int
pcap_teardown(void **state)
{
	struct pcap_state	*ps = *state;

	(void)unlink(ps->path);
	return 0;
}

static void
test_tcpdump_reads_segments_without_bad_checksums(void **state)
{
	struct pcap_state	*ps = *state;
	char			 cmd[160], line[1024];
	FILE			*fp;
	unsigned int		 n, correct = 0;
	int			 r;

	if (system("command -v tcpdump >/dev/null 2>&1") != 0)
		skip();
	fp = fopen(ps->path, "wb");
	assert_non_null(fp);
	pcap_put32(fp, 0xa1b2c3d4);			/* microsecond pcap */
	pcap_put16(fp, 2);
	pcap_put16(fp, 4);
	pcap_put32(fp, 0);				/* thiszone */
	pcap_put32(fp, 0);				/* sigfigs */
	pcap_put32(fp, 65535);				/* snaplen */
	pcap_put32(fp, 1);				/* LINKTYPE_ETHERNET */
	n = pcap_append(fp, &split_cases[0]);
	n += pcap_append(fp, &split_cases[1]);
	assert_int_equal(fclose(fp), 0);
	r = snprintf(cmd, sizeof(cmd), "tcpdump -r %s -nn -vv 2>&1",
	    ps->path);
	assert_true(r > 0 && (size_t)r < sizeof(cmd));
	fp = popen(cmd, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strstr(line, "incorrect") != NULL ||
		    strstr(line, "bad") != NULL || strstr(line, "[|") != NULL)
			fail_msg("tcpdump complains: %s", line);
		if (strstr(line, "(correct)") != NULL)
			correct++;
	}
	assert_int_equal(pclose(fp), 0);
	/* One "cksum ... (correct)" per TCP segment. */
	assert_int_equal(correct, n);
}

/* ---- hostile or unsupported input ------------------------------------- */

struct bad_case {
	const char	*name;
	bool		 v6;
	void		 (*mutate)(struct frame *);
};

static void
bad_gso_size_zero(struct frame *f)
{
	f->pkt.gso_size = 0;
}

static void
bad_truncated(struct frame *f)
{
	f->pkt.len = f->hdr_bytes + 1000;	/* IP length says 65000 */
}

static void
bad_truncated_in_headers(struct frame *f)
{
	f->pkt.len = f->l4_off + 10;
}

static void
bad_l4_off_past_end(struct frame *f)
{
	f->pkt.meta.l4_off = (uint16_t)f->pkt.len;
}

static void
bad_l4_off_inside_ip(struct frame *f)
{
	f->pkt.meta.l4_off = (uint16_t)(f->ip_off + 8);
}

static void
bad_ip_off_past_end(struct frame *f)
{
	f->pkt.meta.ip_off = 65000;
	f->pkt.meta.net_off = 65000;
}

static void
bad_tcp_doff_short(struct frame *f)
{
	f->buf[f->l4_off + 12] = 4 << 4;
	f->pkt.meta.tcp_hdr_len = 16;
}

static void
bad_tcp_hdr_len_mismatch(struct frame *f)
{
	f->pkt.meta.tcp_hdr_len = 20;
}

static void
bad_ip_version(struct frame *f)
{
	f->buf[f->ip_off] = (uint8_t)((f->buf[f->ip_off] & 0x0f) | 0x50);
}

static void
bad_ipv4_ihl_short(struct frame *f)
{
	f->buf[f->ip_off] = 0x44;
}

static void
bad_ipv4_proto_udp(struct frame *f)
{
	f->buf[f->ip_off + 9] = 17;
}

static void
bad_ipv4_fragment(struct frame *f)
{
	wr16(f->buf + f->ip_off + 6, 0x2000);	/* MF */
}

static void
bad_type_ufo(struct frame *f)
{
	f->pkt.gso_type = CAKE_GSO_UDP;
}

static void
bad_type_none(struct frame *f)
{
	f->pkt.gso_type = CAKE_GSO_NONE;
}

static void
bad_type_family(struct frame *f)
{
	f->pkt.gso_type = f->v6 ? CAKE_GSO_TCPV4 : CAKE_GSO_TCPV6;
}

static void
bad_meta_invalid(struct frame *f)
{
	f->pkt.meta_valid = false;
}

static void
bad_no_payload(struct frame *f)
{
	f->pkt.len = f->hdr_bytes;
	if (f->v6)
		wr16(f->buf + f->ip_off + 4, f->hdr_bytes - f->ip_off -
		    IPV6_BYTES);
	else
		wr16(f->buf + f->ip_off + 2, f->hdr_bytes - f->ip_off);
}

static void
bad_ip_len_beyond_frame(struct frame *f)
{
	if (f->v6)
		wr16(f->buf + f->ip_off + 4, 65535);
	else
		wr16(f->buf + f->ip_off + 2, 65535);
}

static void
bad_tunnel(struct frame *f)
{
	f->pkt.meta.flags |= CAKE_META_6IN4;
}

static const struct bad_case bad_cases[] = {
	{ "gso_size_zero", false, bad_gso_size_zero },
	{ "truncated_payload", false, bad_truncated },
	{ "truncated_payload_v6", true, bad_truncated },
	{ "truncated_in_headers", false, bad_truncated_in_headers },
	{ "l4_off_past_end", false, bad_l4_off_past_end },
	{ "l4_off_inside_ip", false, bad_l4_off_inside_ip },
	{ "l4_off_inside_ip_v6", true, bad_l4_off_inside_ip },
	{ "ip_off_past_end", false, bad_ip_off_past_end },
	{ "tcp_doff_short", false, bad_tcp_doff_short },
	{ "tcp_hdr_len_mismatch", true, bad_tcp_hdr_len_mismatch },
	{ "ip_version", false, bad_ip_version },
	{ "ip_version_v6", true, bad_ip_version },
	{ "ipv4_ihl_short", false, bad_ipv4_ihl_short },
	{ "ipv4_proto_udp", false, bad_ipv4_proto_udp },
	{ "ipv4_fragment", false, bad_ipv4_fragment },
	{ "type_ufo", false, bad_type_ufo },
	{ "type_none", false, bad_type_none },
	{ "type_wrong_family", false, bad_type_family },
	{ "type_wrong_family_v6", true, bad_type_family },
	{ "meta_invalid", false, bad_meta_invalid },
	{ "no_payload", false, bad_no_payload },
	{ "no_payload_v6", true, bad_no_payload },
	{ "ip_len_beyond_frame", false, bad_ip_len_beyond_frame },
	{ "ip_len_beyond_frame_v6", true, bad_ip_len_beyond_frame },
	{ "tunnel", false, bad_tunnel },
};

static void
test_bad_input_rejected(void **state)
{
	const struct frame_spec	 good4 = { "v4", false, false, 65000, 1448,
	    45 };
	const struct frame_spec	 good6 = { "v6", true, false, 65000, 1448,
	    45 };
	struct frame		 f;
	struct cake_env		 env;
	struct test_alloc	 ta;
	struct cake_pkt		*list;
	size_t			 k;

	(void)state;
	for (k = 0; k < sizeof(bad_cases) / sizeof(bad_cases[0]); k++) {
		frame_build(&f, bad_cases[k].v6 ? &good6 : &good4);
		bad_cases[k].mutate(&f);
		test_env(&env, &ta);
		list = (struct cake_pkt *)&list;
		if (gso_split(&f.pkt, &env, &list) != -1)
			fail_msg("bad case %s was split", bad_cases[k].name);
		assert_null(list);
		assert_int_equal(ta.calls, 0);
		assert_true(gso_segs(&f.pkt) >= 1);
		free(f.buf);
	}
}

/* ---- main ---------------------------------------------------------- */

int
main(void)
{
	struct CMUnitTest	tests[sizeof(split_cases) /
				    sizeof(split_cases[0]) + 7];
	const struct CMUnitTest	fixed[] = {
		cmocka_unit_test(test_segs_and_hdr_len),
		cmocka_unit_test(test_alloc_failure_returns_all_buffers),
		cmocka_unit_test(test_udp_zero_checksum_sent_as_ones),
		cmocka_unit_test(test_finish_csum),
		cmocka_unit_test(test_finish_csum_out_of_bounds),
		cmocka_unit_test(test_bad_input_rejected),
		cmocka_unit_test_setup_teardown(
		    test_tcpdump_reads_segments_without_bad_checksums,
		    pcap_setup, pcap_teardown),
	};
	size_t			k, n = 0;

	for (k = 0; k < sizeof(split_cases) / sizeof(split_cases[0]); k++) {
		memset(&tests[n], 0, sizeof(tests[n]));
		tests[n].name = split_cases[k].name;
		tests[n].test_func = test_split_case;
		tests[n].initial_state = (void *)&split_cases[k];
		n++;
	}
	for (k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		tests[n++] = fixed[k];
	return _cmocka_run_group_tests("gso", tests, n, NULL, NULL);
}
