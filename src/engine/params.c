/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * params.c: CAKE's default parameters (doc/cake.md §1) and their validation.
 * Derived per-tin values (quantum, mtu_time, target, interval) are computed
 * by the instance in cake.c from these.
 */
#include <string.h>

#include "caked/cake.h"

void
cake_config_default(struct cake_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->rate_Bps = 0;			/* unlimited */
	cfg->diffserv = CAKE_DIFFSERV3;
	cfg->flow_mode = CAKE_FLOW_TRIPLE;
	cfg->nat = false;
	cfg->wash = false;
	cfg->ingress = false;
	cfg->ack_filter = CAKE_ACK_NONE;
	cfg->split_gso = true;			/* as sch_cake, at every rate */
	cfg->rtt_us = 100000;			/* internet: 100 ms */
	cfg->target_us = 5000;			/* 5 ms */
	cfg->raw = true;
	cfg->overhead = 0;
	cfg->mpu = 0;
	cfg->atm = CAKE_ATM_NONE;
	cfg->memlimit_bytes = 0;
	cfg->fwmark_mask = 0;
	cfg->queues = CAKE_QUEUES_DEFAULT;	/* as the kernel's fixed 1024 */
}
