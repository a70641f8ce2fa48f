/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * vnet.h: TUN/TAP frames with a virtio-net header (IFF_VNET_HDR), the
 * offload path: GSO super-packets and partial checksums.
 */
#ifndef CAKED_DAEMON_VNET_H
#define CAKED_DAEMON_VNET_H

#include <stdint.h>

#define VNET_HDR_BYTES		10	/* struct virtio_net_hdr */
/* The largest frame a device with TSO hands over: 64 KB of IP + link. */
#define VNET_FRAME_MAX_BYTES	(65536 + 64)
#define VNET_LARGE_BUFS		256	/* large buffers per direction */
#define VNET_IOV_MAX		64	/* pieces of one frame written at most */

struct cake_pkt;
struct iovec;
struct pool;

/* The header as it travels on the fd, in host byte order. */
struct vnet_hdr {
	uint8_t		flags;		/* VNET_F_* */
	uint8_t		gso_type;	/* CAKE_GSO_* */
	uint16_t	hdr_len;
	uint16_t	gso_size;
	uint16_t	csum_start;
	uint16_t	csum_offset;
};

#define VNET_F_NEEDS_CSUM	0x01
#define VNET_F_DATA_VALID	0x02

/* Sets pkt's gso_* and csum_* fields from a header read with a frame. */
void	vnet_decode(const struct vnet_hdr *h, struct cake_pkt *pkt);
/*
 * The header to write with pkt (meta parsed): zero for a plain packet
 * with complete checksums, NEEDS_CSUM for a partial checksum, and the GSO
 * fields for a super-packet kept whole so that the kernel segments it.
 */
void	vnet_encode(const struct cake_pkt *pkt, struct vnet_hdr *h);
/*
 * Reads up to n frames with their headers. Frame i lands in pkts[i]; one
 * longer than pkts[i]'s buffer (a super-packet) continues into *spare, a
 * large buffer from pool kept between calls, which then replaces pkts[i]
 * (the small one goes back to pool). lens[i] gets the frame length (0
 * for a read shorter than the header). Returns the number read, 0 if
 * none was waiting, or -1 with errno if the first read failed.
 */
int	vnet_read_batch(int fd, struct pool *pool, struct cake_pkt **spare,
	    struct cake_pkt *pkts[], uint32_t lens[], int n);
/* Writes pkt with its header: 1 if written, 0 if the device is full, -1. */
int	vnet_write(int fd, const struct cake_pkt *pkt);
/*
 * As vnet_write(), for a frame in pieces: the header for pkt (whose len
 * is the whole frame's), head_len bytes at pkt->data, then more[0..n)
 * (n <= VNET_IOV_MAX).
 */
int	vnet_writev(int fd, const struct cake_pkt *pkt, uint32_t head_len,
	    const struct iovec *more, unsigned int n);

#endif /* CAKED_DAEMON_VNET_H */
