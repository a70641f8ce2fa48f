/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz.h: what every harness in tests/fuzz exports. Each harness is one
 * LLVMFuzzerTestOneInput(); it is linked either with libFuzzer (configure
 * --enable-fuzzing, `make fuzz`) or with replay.c, a plain main() that
 * runs the committed corpus (tests/fuzz/corpus/NAME) in `make check`.
 *
 * A harness must not keep state between inputs that changes the result of
 * a later input, and must abort() on a broken invariant (libFuzzer and
 * replay.c both report an abort as a failure).
 */
#ifndef CAKED_TESTS_FUZZ_H
#define CAKED_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cake_pkt_meta;

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message naming the harness's broken invariant. */
#define FUZZ_ASSERT(x) do {						\
	if (!(x))							\
		fuzz_fail(__FILE__, __LINE__, #x);			\
} while (0)

void	fuzz_fail(const char *file, int line, const char *what)
	    __attribute__((noreturn));

/* Writes a valid header checksum into the IPv4 header at ip (len bytes
 * available); false if no whole IPv4 header is there. */
bool	fuzz_ipv4_fix(uint8_t *ip, size_t len);
/* True if a whole IPv4 header is at ip and its checksum is valid. */
bool	fuzz_ipv4_ok(const uint8_t *ip, size_t len);
/* True if the TCP/UDP checksum (pseudo-header included) of a parsed
 * frame is valid; m must come from cake_parse() of frame. */
bool	fuzz_l4_ok(const uint8_t *frame, const struct cake_pkt_meta *m);

#endif /* CAKED_TESTS_FUZZ_H */
