/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gro.h: coalescing consecutive segments of one TCP flow, as they leave
 * the engine, into one GSO super-packet for a device with a vnet header.
 */
#ifndef CAKED_DAEMON_GRO_H
#define CAKED_DAEMON_GRO_H

#include <stdbool.h>
#include <stdint.h>

#define GRO_SEGS_MAX	64	/* segments in one super-packet, at most */
#define GRO_HDR_MAX	256	/* link + IP + TCP headers of a candidate */

struct cake_pkt;
struct iovec;

/*
 * Whether pkt (meta parsed) may start a super-packet: TCP over IPv4 (DF,
 * no fragment) or IPv6 (no extension headers), not tunnelled, with
 * payload, flags ACK (and ECE) only, no GSO, frame ending at the IP end.
 */
bool	gro_candidate(const struct cake_pkt *pkt);
/*
 * Whether pkt can follow run[0..n) in one super-packet of at most
 * cap_bytes: same headers but for lengths, IDs, checksums, sequence and
 * PSH; in sequence; every segment but the last as long as the first; the
 * last before it without PSH.
 */
bool	gro_follows(struct cake_pkt *const run[], unsigned int n,
	    const struct cake_pkt *pkt, uint32_t cap_bytes);
/*
 * Describes the super-packet of run[0..n) (n >= 2, each accepted by
 * gro_follows()) without copying a payload: out gets the first segment's
 * headers, copied to hdr_buf (GRO_HDR_MAX bytes), with the IP lengths and
 * IPv4 checksum set for the whole, the last segment's TCP flags, the TCP
 * checksum field holding the pseudo-header sum (NEEDS_CSUM), gso_type and
 * gso_size for the kernel to segment it again, and len the whole length;
 * iov[0..n) get the segments' payloads, which follow those headers.
 */
void	gro_gather(struct cake_pkt *const run[], unsigned int n,
	    struct cake_pkt *out, uint8_t *hdr_buf, struct iovec *iov);

#endif /* CAKED_DAEMON_GRO_H */
