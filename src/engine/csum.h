/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * csum.h: the Internet checksum (RFC 1071) and its incremental update
 * (RFC 1624), for IPv4 headers and TCP/UDP after the engine rewrites a
 * packet (ECN marks, wash, GSO segments), and big-endian loads and
 * stores. Pure arithmetic, so the daemon uses it too (gro.c, autorate_probe.c):
 * the one header of src/engine it may include.
 */
#ifndef CAKED_ENGINE_CSUM_H
#define CAKED_ENGINE_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds len bytes at p to a running 32-bit one's-complement sum. */
uint32_t	csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* Folds a running sum to 16 bits and complements it (the wire value, host order). */
uint16_t	csum_fold(uint32_t sum);
/* Sum of the IPv4 or IPv6 pseudo-header (addresses point into the packet). */
uint32_t	csum_pseudo(const uint8_t *src, const uint8_t *dst,
		    size_t addr_len, uint8_t proto, uint32_t l4_len);
/*
 * Updates the 16-bit checksum stored big-endian at field when a 16-bit
 * word of the covered data changes from old_word to new_word (host order).
 */
void		csum_replace16(uint8_t *field, uint16_t old_word,
		    uint16_t new_word);
/* Reads / writes a big-endian 16- or 32-bit value (the one copy). */
uint16_t	csum_get16(const uint8_t *p);
void		csum_put16(uint8_t *p, uint16_t v);
uint32_t	csum_get32(const uint8_t *p);
void		csum_put32(uint8_t *p, uint32_t v);

#endif /* CAKED_ENGINE_CSUM_H */
