/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ackfilter.h: CAKE's ACK filter (doc/cake.md §6): finds an older pure TCP
 * ACK in a flow queue that a newly enqueued ACK makes redundant. It only
 * reads packets; unlinking and accounting are the caller's (cake.c).
 */
#ifndef CAKED_ENGINE_ACKFILTER_H
#define CAKED_ENGINE_ACKFILTER_H

#include "caked/cake.h"

/*
 * Scans one flow queue, head..trigger (linked by ->next; trigger is the
 * newly enqueued tail), for an older pure ACK made redundant by trigger.
 * Returns the packet to drop, or NULL; *prevp gets its predecessor in
 * the list (NULL when it is the head). At most one per call. Packets
 * must carry their parse result in ->meta. prevp may be NULL.
 */
struct cake_pkt	*ackfilter_find(struct cake_pkt *head,
		    const struct cake_pkt *trigger, enum cake_ack_filter mode,
		    struct cake_pkt **prevp);

#endif /* CAKED_ENGINE_ACKFILTER_H */
