/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_csum.c: the Internet checksum helpers (src/engine/csum.c) against
 * RFC 1071's worked example and a byte-by-byte reference written here,
 * over every alignment and length, including odd ones and all-ones data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>

#include <cmocka.h>

#include "engine/csum.h"

/* RFC 1071 section 3: the folded sum of these bytes is 0xddf2. */
static void
rfc1071_example_sums_to_ddf2(void **state)
{
	static const uint8_t	b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5,
				    0xf6, 0xf7 };

	(void)state;
	assert_int_equal(csum_fold(csum_add(0, b, sizeof(b))),
	    (uint16_t)~0xddf2);
}

static uint16_t
ref_csum(uint32_t start, const uint8_t *p, size_t len)
{
	uint64_t	acc = start;
	size_t		k;

	for (k = 0; k < len; k++)
		acc += k % 2 == 0 ? (uint64_t)p[k] << 8 : p[k];
	while (acc > 0xffff)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static void
word_sums_equal_the_reference_at_every_alignment_and_length(void **state)
{
	static uint8_t	 buf[4096 + 8];
	static const uint8_t fills[] = { 0x00, 0xff, 0x5a };
	uint32_t	 x = 12345, start;
	size_t		 f, off, len, i;

	(void)state;
	for (f = 0; f <= sizeof(fills); f++) {
		for (i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245 + 12345;
			buf[i] = f < sizeof(fills) ? fills[f] :
			    (uint8_t)(x >> 16);
		}
		for (off = 0; off < 4; off++)
			for (len = 0; len < 70; len++) {
				start = (uint32_t)(len * 977);
				assert_int_equal(csum_fold(csum_add(start,
				    buf + off, len)),
				    ref_csum(start, buf + off, len));
			}
		assert_int_equal(csum_fold(csum_add(0, buf + 1, 4095)),
		    ref_csum(0, buf + 1, 4095));
	}
}

/* Chained sums (header, then payload) equal one sum over both. */
static void
sums_chain_over_split_buffers(void **state)
{
	uint8_t		buf[1500];
	size_t		i, cut;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	for (cut = 0; cut <= 64; cut += 2)
		assert_int_equal(csum_fold(csum_add(csum_add(0, buf, cut),
		    buf + cut, sizeof(buf) - cut)),
		    csum_fold(csum_add(0, buf, sizeof(buf))));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc1071_example_sums_to_ddf2),
		cmocka_unit_test(
		    word_sums_equal_the_reference_at_every_alignment_and_length),
		cmocka_unit_test(sums_chain_over_split_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
