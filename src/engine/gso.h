/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gso.h: GSO super-packets (doc/cake.md §7), as a TAP
 * with IFF_VNET_HDR hands them over: how many wire segments one stands
 * for, and cutting it into those segments (split-gso). Pure; the engine
 * never frees a buffer, so every segment goes back to the caller.
 */
#ifndef CAKED_ENGINE_GSO_H
#define CAKED_ENGINE_GSO_H

#include <stdint.h>

struct cake_pkt;
struct cake_env;

/* Most segments one super-packet may stand for (kernel GSO_MAX_SEGS). */
#define GSO_SEGS_MAX	65535U

/* Number of wire segments a packet stands for (1 if not GSO or gso_size 0). */
unsigned int	gso_segs(const struct cake_pkt *pkt);
/*
 * Header bytes (link + IP + L4) repeated in every segment: l4_off +
 * tcp_hdr_len for TCP, l4_off + 8 for UDP, l4_off otherwise.
 */
uint32_t	gso_hdr_len(const struct cake_pkt *pkt);
/*
 * Cuts the GSO super-packet pkt (meta parsed) into segments in buffers
 * from env->alloc(), linked by ->next into *out, first segment first.
 * Each segment carries complete IP and TCP/UDP checksums, gso_type
 * CAKE_GSO_NONE, truesize = its buffer's cap, and meta adjusted. Returns
 * the number of segments, or -1 if pkt cannot be segmented; on -1, *out
 * holds every buffer already allocated (possibly none) for the caller to
 * free. pkt itself is not changed and stays the caller's.
 */
int		gso_split(const struct cake_pkt *pkt,
		    const struct cake_env *env, struct cake_pkt **out);
/*
 * Completes an L4 checksum left partial by the kernel (csum_partial with
 * csum_start/csum_offset, as VIRTIO_NET_HDR_F_NEEDS_CSUM): sums from
 * csum_start to the end of the frame into the field at csum_start +
 * csum_offset and clears csum_partial. Returns 0 (also if nothing was
 * partial), or -1 if the offsets are out of bounds.
 */
int		gso_finish_csum(struct cake_pkt *pkt);

#endif /* CAKED_ENGINE_GSO_H */
