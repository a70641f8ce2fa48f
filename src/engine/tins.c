/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tins.c: the DiffServ tin tables of doc/cake.md §4.
 *
 * Tins are kept in the kernel's internal order, where a higher index means
 * a higher priority in shaped mode; display order (the order tc prints and
 * fwmark counts in) is a permutation of it. Only constant tables live here.
 */
#include <stddef.h>
#include <string.h>

#include "engine/tins.h"

/* DSCP -> internal tin, diffserv3: 0 Best Effort, 1 Bulk, 2 Voice. */
static unsigned int
ds3_tin(unsigned int dscp)
{
	switch (dscp) {
	case 1:		/* LE, RFC 8622 */
	case 8:		/* CS1 */
		return 1;
	case 4:		/* TOS4 */
	case 44:	/* VA */
	case 46:	/* EF */
	case 48:	/* CS6 */
	case 56:	/* CS7 */
		return 2;
	default:
		return 0;
	}
}

/* DSCP -> internal tin, diffserv4: 0 BE, 1 Bulk, 2 Video, 3 Voice. */
static unsigned int
ds4_tin(unsigned int dscp)
{
	switch (dscp) {
	case 1:
	case 8:
		return 1;
	case 4:
	case 16: case 24:			/* CS2, CS3 */
	case 18: case 20: case 22:		/* AF2x */
	case 26: case 28: case 30:		/* AF3x */
	case 34: case 36: case 38:		/* AF4x */
		return 2;
	case 32: case 40: case 44: case 46:	/* CS4, CS5, VA, EF */
	case 48: case 56:			/* CS6, CS7 */
		return 3;
	default:
		return 0;
	}
}

/* DSCP -> tin, diffserv8 (internal order = display order). */
static unsigned int
ds8_tin(unsigned int dscp)
{
	switch (dscp) {
	case 1:
		return 0;
	case 2: case 8: case 10: case 12: case 14:
		return 1;
	case 24: case 26: case 28: case 30: case 34: case 36: case 38:
		return 3;
	case 4: case 18: case 20: case 22:
		return 4;
	case 16:
		return 5;
	case 32: case 40: case 44: case 46:
		return 6;
	case 48: case 56:
		return 7;
	default:
		return 2;
	}
}

unsigned int
tins_from_dscp(enum cake_diffserv mode, unsigned int dscp)
{
	dscp &= 63;
	switch (mode) {
	case CAKE_DIFFSERV3:
		return ds3_tin(dscp);
	case CAKE_DIFFSERV4:
		return ds4_tin(dscp);
	case CAKE_DIFFSERV8:
		return ds8_tin(dscp);
	case CAKE_PRECEDENCE:
		return dscp >> 3;
	case CAKE_BESTEFFORT:
	default:
		return 0;
	}
}

/* diffserv8 and precedence: eight tins, each 7/8 of the one before. */
static void
eighths_layout(uint64_t rate_Bps, struct tins_layout *l)
{
	uint64_t	rate = rate_Bps;
	uint32_t	weight = 256;
	unsigned int	i;

	l->count = 8;
	for (i = 0; i < 8; i++) {
		l->rate_Bps[i] = rate;
		l->weight[i] = (uint16_t)weight;
		l->display[i] = (uint8_t)i;
		rate = rate * 7 >> 3;
		weight = weight * 7 >> 3;
	}
}

void
tins_layout(enum cake_diffserv mode, uint64_t rate_Bps, struct tins_layout *l)
{
	memset(l, 0, sizeof(*l));
	switch (mode) {
	case CAKE_DIFFSERV3:
		/* internal: BE, Bulk, Voice; display: Bulk, BE, Voice */
		l->count = 3;
		l->rate_Bps[0] = rate_Bps;
		l->rate_Bps[1] = rate_Bps >> 4;
		l->rate_Bps[2] = rate_Bps >> 2;
		l->weight[0] = 1024;
		l->weight[1] = 64;
		l->weight[2] = 256;
		l->display[0] = 1;
		l->display[1] = 0;
		l->display[2] = 2;
		break;
	case CAKE_DIFFSERV4:
		/* internal: BE, Bulk, Video, Voice; display: Bulk, BE, Video, Voice */
		l->count = 4;
		l->rate_Bps[0] = rate_Bps;
		l->rate_Bps[1] = rate_Bps >> 4;
		l->rate_Bps[2] = rate_Bps >> 1;
		l->rate_Bps[3] = rate_Bps >> 2;
		l->weight[0] = 1024;
		l->weight[1] = 64;
		l->weight[2] = 512;
		l->weight[3] = 256;
		l->display[0] = 1;
		l->display[1] = 0;
		l->display[2] = 2;
		l->display[3] = 3;
		break;
	case CAKE_DIFFSERV8:
	case CAKE_PRECEDENCE:
		eighths_layout(rate_Bps, l);
		break;
	case CAKE_BESTEFFORT:
	default:
		l->count = 1;
		l->rate_Bps[0] = rate_Bps;
		l->weight[0] = 65535;
		l->display[0] = 0;
		break;
	}
}

unsigned int
cake_tin_count(enum cake_diffserv mode)
{
	struct tins_layout	l;

	tins_layout(mode, 0, &l);
	return l.count;
}

const char *
cake_tin_name(enum cake_diffserv mode, unsigned int i)
{
	static const char *const ds3[] = { "Bulk", "Best Effort", "Voice" };
	static const char *const ds4[] = { "Bulk", "Best Effort", "Video",
	    "Voice" };
	static const char *const eight[] = { "Tin 0", "Tin 1", "Tin 2",
	    "Tin 3", "Tin 4", "Tin 5", "Tin 6", "Tin 7" };

	if (i >= cake_tin_count(mode))
		return NULL;
	switch (mode) {
	case CAKE_DIFFSERV3:
		return ds3[i];
	case CAKE_DIFFSERV4:
		return ds4[i];
	default:
		return eight[i];
	}
}
