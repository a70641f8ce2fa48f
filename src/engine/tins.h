/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tins.h: DiffServ modes -> tins (doc/cake.md §4): how many tins, their
 * display names and order, threshold shares, DRR weights, and the DSCP
 * table. Pure tables; no state.
 */
#ifndef CAKED_ENGINE_TINS_H
#define CAKED_ENGINE_TINS_H

#include <stdint.h>

#include "caked/cake.h"

/* The layout of one DiffServ mode at one rate. Index = internal tin (priority). */
struct tins_layout {
	unsigned int	count;
	uint64_t	rate_Bps[CAKE_MAX_TINS];	/* threshold rate; 0 if unlimited */
	uint16_t	weight[CAKE_MAX_TINS];		/* DRR quantum between tins */
	uint8_t		display[CAKE_MAX_TINS];		/* display index -> internal tin */
};

/* Fills the layout of mode at rate_Bps (0 = unlimited). */
void		tins_layout(enum cake_diffserv mode, uint64_t rate_Bps,
		    struct tins_layout *l);
/* Internal tin for a DSCP (0..63) in mode. */
unsigned int	tins_from_dscp(enum cake_diffserv mode, unsigned int dscp);

#endif /* CAKED_ENGINE_TINS_H */
