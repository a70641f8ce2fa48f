/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz_packet.c: the packet dissector, cake_parse(), and the in-place
 * header rewrites (packet_set_ce(), packet_wash()) on hostile frames.
 *
 * Input: byte 0 picks the link (bit 0: IP, else Ethernet) and whether the
 * rewrites run (bit 1); the rest is the frame, copied into a buffer of
 * exactly its size so that AddressSanitizer sees any read past the end.
 * Invariants: every offset of the meta lies inside the frame; parsing is
 * deterministic; a rewrite of an IPv4 header with a valid checksum keeps
 * it valid and touches nothing but the TOS byte and the checksum.
 * The passive-delay reader (tsrtt_frame()) then sees the frame at each of
 * its four events, from a fresh table each time: it must neither crash
 * nor write to the frame.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "engine/packet.h"
#include "engine/tsrtt.h"
#include "fuzz.h"

static void
check_meta(const struct cake_pkt_meta *m, uint32_t len)
{
	FUZZ_ASSERT(m->l3 <= CAKE_L3_IPV6 && m->inner_l3 <= CAKE_L3_IPV6);
	FUZZ_ASSERT(m->tuple.family == 0 || m->tuple.family == 4 ||
	    m->tuple.family == 6);
	FUZZ_ASSERT(m->net_off <= len && m->ip_off <= len);
	FUZZ_ASSERT(m->ip_end <= len);
	if (m->l4_off != 0)
		FUZZ_ASSERT((uint32_t)m->l4_off + m->l4_len <= len);
	if (m->l3 == CAKE_L3_IPV4 || m->l3 == CAKE_L3_IPV6)
		FUZZ_ASSERT(m->net_off <= m->ip_off);
}

/* Runs the rewrites on a copy whose IPv4 checksum (if any) is valid. */
static void
check_rewrites(const uint8_t *frame, uint32_t len, enum cake_link link)
{
	struct cake_pkt	 pkt;
	uint8_t		*buf;
	uint32_t	 i, off;
	bool		 v4;

	if ((buf = malloc(len)) == NULL)
		return;
	memcpy(buf, frame, len);
	memset(&pkt, 0, sizeof(pkt));
	cake_parse(buf, len, link, &pkt.meta);
	off = pkt.meta.net_off;
	v4 = pkt.meta.l3 == CAKE_L3_IPV4 && fuzz_ipv4_fix(buf + off, len - off);
	cake_parse(buf, len, link, &pkt.meta);
	pkt.data = buf;
	pkt.len = pkt.cap = len;
	pkt.meta_valid = true;
	(void)packet_set_ce(&pkt);
	packet_wash(&pkt);
	if (v4) {
		FUZZ_ASSERT(fuzz_ipv4_ok(buf + off, len - off));
		/* Every byte of the frame but TOS and checksum is kept. */
		for (i = 0; i < len; i++)
			if (i != off + 1 && i != off + 10 && i != off + 11)
				FUZZ_ASSERT(buf[i] == frame[i]);
	}
	free(buf);
}

/* The frame at every tsrtt event, 10 ms apart; it must stay unchanged. */
static void
check_tsrtt(const uint8_t *frame, uint32_t len,
    const struct cake_pkt_meta *m)
{
	static struct tsrtt	ts;	/* large: not on the stack */
	int64_t			d;
	int			ev;

	tsrtt_init(&ts);
	for (ev = TSRTT_LAN_ARRIVE; ev <= TSRTT_LAN_DEPART; ev++)
		tsrtt_frame(&ts, (enum tsrtt_event)ev, frame, len, m,
		    1000000000ULL + (uint64_t)ev * 10000000ULL);
	for (ev = 0; ev < TSRTT_DIRS; ev++)
		(void)tsrtt_delay(&ts, ev, 2000000000ULL, &d);
	FUZZ_ASSERT(ts.c.segments <= 4);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cake_pkt_meta	 m1, m2;
	enum cake_link		 link;
	uint8_t			*frame;
	uint32_t		 len;

	if (size < 1 || size > 65536)
		return 0;
	link = data[0] & 1 ? CAKE_LINK_IP : CAKE_LINK_ETHERNET;
	len = (uint32_t)size - 1;
	if ((frame = malloc(len > 0 ? len : 1)) == NULL)
		return 0;
	memcpy(frame, data + 1, len);
	memset(&m1, 0, sizeof(m1));
	memset(&m2, 0xa5, sizeof(m2));
	cake_parse(frame, len, link, &m1);
	check_meta(&m1, len);
	cake_parse(frame, len, link, &m2);
	FUZZ_ASSERT(memcmp(&m1.tuple, &m2.tuple, sizeof(m1.tuple)) == 0);
	FUZZ_ASSERT(m1.l4_off == m2.l4_off && m1.ip_end == m2.ip_end &&
	    m1.flags == m2.flags && m1.dsfield == m2.dsfield);
	FUZZ_ASSERT(memcmp(frame, data + 1, len) == 0);
	check_tsrtt(frame, len, &m1);
	FUZZ_ASSERT(memcmp(frame, data + 1, len) == 0);
	if (data[0] & 2)
		check_rewrites(data + 1, len, link);
	free(frame);
	return 0;
}
