/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz.c: helpers shared by the harnesses in both builds (libFuzzer and
 * replay): fuzz_fail(), and Internet checksums computed independently of
 * the engine's csum.c, so that they can judge what the engine wrote.
 * Test code only; it must not call into the engine.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "caked/cake.h"
#include "fuzz.h"

void
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

/* One's complement sum of p[0..len), not folded. */
static uint64_t
fuzz_sum(uint64_t sum, const uint8_t *p, size_t len)
{
	size_t	i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
fuzz_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Header bytes of the IPv4 header at ip if it lies within len, else 0. */
static size_t
fuzz_ipv4_hdr_len(const uint8_t *ip, size_t len)
{
	size_t	hl;

	if (len < 20 || ip[0] >> 4 != 4)
		return 0;
	hl = (size_t)(ip[0] & 0x0f) * 4;
	return hl >= 20 && hl <= len ? hl : 0;
}

bool
fuzz_ipv4_fix(uint8_t *ip, size_t len)
{
	size_t		hl = fuzz_ipv4_hdr_len(ip, len);
	uint16_t	c;

	if (hl == 0)
		return false;
	ip[10] = ip[11] = 0;
	c = (uint16_t)~fuzz_fold(fuzz_sum(0, ip, hl));
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	return true;
}

bool
fuzz_ipv4_ok(const uint8_t *ip, size_t len)
{
	size_t	hl = fuzz_ipv4_hdr_len(ip, len);

	return hl != 0 && fuzz_fold(fuzz_sum(0, ip, hl)) == 0xffff;
}

bool
fuzz_l4_ok(const uint8_t *frame, const struct cake_pkt_meta *m)
{
	const uint8_t	*ip = frame + m->ip_off;
	uint64_t	 sum;
	uint32_t	 l4_len = m->l4_len;

	sum = (uint64_t)m->tuple.proto + l4_len;
	if (m->inner_l3 == CAKE_L3_IPV4)
		sum = fuzz_sum(sum, ip + 12, 8);
	else
		sum = fuzz_sum(sum, ip + 8, 32);
	sum = fuzz_sum(sum, frame + m->l4_off, l4_len);
	return fuzz_fold(sum) == 0xffff;
}
