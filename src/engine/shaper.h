/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * shaper.h: the deficit-mode shaper's arithmetic (doc/cake.md §2): a rate as
 * a fixed-point ns-per-byte, the serialisation time of a length, and the
 * overhead-adjusted length of a packet. Pure; the clocks live in cake.c.
 */
#ifndef CAKED_ENGINE_SHAPER_H
#define CAKED_ENGINE_SHAPER_H

#include <stdbool.h>
#include <stdint.h>

#include "caked/cake.h"

/* A rate as time per byte: duration = (len * ns) >> shift. ns 0 = unlimited. */
struct shaper_rate {
	uint64_t	ns;
	uint8_t		shift;
};

/* The framing compensation of one instance. */
struct shaper_framing {
	bool		compensate;	/* false = raw: whole frame length */
	int32_t		overhead;
	uint32_t	mpu;
	enum cake_atm	atm;
};

/* Converts bytes/s into the fixed-point form; rate 0 = unlimited. */
void		shaper_rate_set(struct shaper_rate *r, uint64_t rate_Bps);
/* Serialisation time of len bytes at rate r, in ns (0 when unlimited). */
uint64_t	shaper_duration_ns(const struct shaper_rate *r, uint64_t len);
/* Adjusted length of one (segment) length: offset subtracted, overhead, mpu, cells. */
uint32_t	shaper_adjust(const struct shaper_framing *f, uint32_t len,
		    uint32_t net_off);
/* The network-layer length as CAKE records it for min/max stats. */
uint32_t	shaper_netlen(const struct shaper_framing *f, uint32_t len,
		    uint32_t net_off);

#endif /* CAKED_ENGINE_SHAPER_H */
