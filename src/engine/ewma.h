/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ewma.h: a moving average that follows a new sample by the share of a
 * time constant that has passed, for the slow baselines of the passive
 * delay (tsrtt.c) and of autorate's reflectors (daemon/autorate.c). Pure
 * arithmetic, so the daemon may include it as it does csum.h.
 */
#ifndef CAKED_ENGINE_EWMA_H
#define CAKED_ENGINE_EWMA_H

#include <stdint.h>

/* a moved towards b by num / den of the way (all of it once num >= den). */
static inline int64_t
ewma_toward(int64_t a, int64_t b, uint64_t num, uint64_t den)
{
	if (num >= den)
		return b;
	return a + (int64_t)(((double)b - (double)a) * (double)num /
	    (double)den);
}

#endif /* CAKED_ENGINE_EWMA_H */
