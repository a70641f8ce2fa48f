/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_gso_bad.c: gso_split() (src/engine/gso.c) on hostile or
 * unsupported input: each case mutates a good super-packet of
 * gsoframe.c, which must then be refused whole, with nothing allocated.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/gso.h"

#include "gsoframe.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
