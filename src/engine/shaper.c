/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * shaper.c: rate and length arithmetic of the shaper (doc/cake.md §2).
 *
 * A rate is kept as nanoseconds per byte scaled by 2^shift, so that the
 * duration of a packet is one multiply and one shift. The adjusted length
 * is what the shaper charges: the network-layer length (with compensation)
 * or the whole frame (raw), plus overhead, raised to mpu, then expanded to
 * ATM cells or PTM 64/65 framing.
 */
#include "engine/shaper.h"

#define NS_PER_S	1000000000ULL

void
shaper_rate_set(struct shaper_rate *r, uint64_t rate_Bps)
{
	uint64_t	ns;
	uint8_t		shift = 34;

	if (rate_Bps == 0) {
		r->ns = 0;
		r->shift = 0;
		return;
	}
	if (rate_Bps < 64)
		rate_Bps = 64;
	/* 10^9 << 34 fits in 64 bits (1.72e19 < 1.84e19). */
	ns = (NS_PER_S << 34) / rate_Bps;
	while (ns >> 34) {
		ns >>= 1;
		shift--;
	}
	r->ns = ns;
	r->shift = shift;
}

uint64_t
shaper_duration_ns(const struct shaper_rate *r, uint64_t len)
{
	return (uint64_t)(((unsigned __int128)len * r->ns) >> r->shift);
}

uint32_t
shaper_netlen(const struct shaper_framing *f, uint32_t len, uint32_t net_off)
{
	if (f->compensate && len >= net_off)
		return len - net_off;
	return len;
}

uint32_t
shaper_adjust(const struct shaper_framing *f, uint32_t len, uint32_t net_off)
{
	int64_t	adj = shaper_netlen(f, len, net_off);

	adj += f->overhead;
	if (adj < 0)
		adj = 0;
	if (adj < (int64_t)f->mpu)
		adj = f->mpu;
	if (f->atm == CAKE_ATM_ATM)
		adj = (adj + 47) / 48 * 53;
	else if (f->atm == CAKE_ATM_PTM)
		adj += (adj + 63) / 64;
	if (adj > UINT32_MAX)
		adj = UINT32_MAX;
	return (uint32_t)adj;
}
