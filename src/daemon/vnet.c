/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * vnet.c: frames with a virtio-net header, for TAP/TUN devices opened with
 * IFF_VNET_HDR and offloads (tun_open_offload()). Every read returns the
 * 10-byte header before the frame and every write must carry one.
 *
 * Reads use readv() so that neither the header nor the frame is copied:
 * the header goes to the stack, the frame into a pool buffer, and what
 * does not fit (a GSO super-packet of up to 64 KB) into the tail of a
 * spare large buffer; only then are the small buffer's bytes moved to the
 * large one's head. Writes use writev() with the header on the stack,
 * and may gather the frame from several buffers (gro.c).
 *
 * This module translates headers and moves bytes; it does not parse,
 * queue, segment or complete checksums (the engine does, with split-gso),
 * and it keeps nothing but the caller's spare buffer.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "caked/cake.h"
#include "daemon/pool.h"
#include "daemon/vnet.h"

#define VNET_PROTO_TCP	6
#define VNET_PROTO_UDP	17
#define VNET_UDP_HDR	8

_Static_assert(sizeof(struct vnet_hdr) == VNET_HDR_BYTES,
    "struct vnet_hdr must match struct virtio_net_hdr");

void
vnet_decode(const struct vnet_hdr *h, struct cake_pkt *pkt)
{
	pkt->csum_partial = (h->flags & VNET_F_NEEDS_CSUM) != 0;
	pkt->csum_start = pkt->csum_partial ? h->csum_start : 0;
	pkt->csum_offset = pkt->csum_partial ? h->csum_offset : 0;
	if ((h->gso_type & ~CAKE_GSO_ECN) == CAKE_GSO_NONE) {
		pkt->gso_type = CAKE_GSO_NONE;
		pkt->gso_size = 0;
	} else {
		pkt->gso_type = h->gso_type;
		pkt->gso_size = h->gso_size;
	}
}

/* Bytes of headers every segment repeats (a hint for the kernel). */
static uint16_t
vnet_hdr_len(const struct cake_pkt *pkt)
{
	const struct cake_pkt_meta *m = &pkt->meta;
	uint32_t	 n = 0;

	if (pkt->meta_valid && m->l4_off != 0) {
		if (m->tuple.proto == VNET_PROTO_TCP)
			n = (uint32_t)m->l4_off + m->tcp_hdr_len;
		else if (m->tuple.proto == VNET_PROTO_UDP)
			n = (uint32_t)m->l4_off + VNET_UDP_HDR;
	}
	if (n == 0 && pkt->csum_partial)
		n = (uint32_t)pkt->csum_start + pkt->csum_offset + 2;
	return n > pkt->len ? (uint16_t)0 : (uint16_t)n;
}

void
vnet_encode(const struct cake_pkt *pkt, struct vnet_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (pkt->csum_partial) {
		h->flags = VNET_F_NEEDS_CSUM;
		h->csum_start = pkt->csum_start;
		h->csum_offset = pkt->csum_offset;
	}
	if ((pkt->gso_type & ~CAKE_GSO_ECN) != CAKE_GSO_NONE &&
	    pkt->gso_size != 0) {
		h->gso_type = pkt->gso_type;
		h->gso_size = pkt->gso_size;
		h->hdr_len = vnet_hdr_len(pkt);
	}
}

/* One readv(): bytes read (header included), 0 if none waiting, or -1. */
static ssize_t
vnet_readv(int fd, struct iovec *iov, int iovcnt)
{
	ssize_t	r;

	do {
		r = readv(fd, iov, iovcnt);
	} while (r == -1 && errno == EINTR);
	if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	return r;
}

/*
 * Frame of len bytes read into pkt, continued at (*spare)->data +
 * pkt->cap: moves its head into the spare, which becomes the packet.
 */
static struct cake_pkt *
vnet_promote(struct pool *pool, struct cake_pkt **spare,
    struct cake_pkt *pkt)
{
	struct cake_pkt	*big = *spare;

	*spare = NULL;
	memcpy(big->data, pkt->data, pkt->cap);
	pool_put(pool, pkt);
	return big;
}

int
vnet_read_batch(int fd, struct pool *pool, struct cake_pkt **spare,
    struct cake_pkt *pkts[], uint32_t lens[], int n)
{
	struct vnet_hdr	 h;
	struct iovec	 iov[3];
	struct cake_pkt	*pkt;
	ssize_t		 r;
	int		 i, iovcnt;

	for (i = 0; i < n; i++) {
		pkt = pkts[i];
		if (*spare == NULL)
			*spare = pool_get_large(pool);
		iov[0].iov_base = &h;
		iov[0].iov_len = sizeof(h);
		iov[1].iov_base = pkt->data;
		iov[1].iov_len = pkt->cap;
		iovcnt = 2;
		if (*spare != NULL && (*spare)->cap > pkt->cap) {
			iov[2].iov_base = (*spare)->data + pkt->cap;
			iov[2].iov_len = (*spare)->cap - pkt->cap;
			iovcnt = 3;
		}
		if ((r = vnet_readv(fd, iov, iovcnt)) == 0)
			break;
		if (r == -1)
			return i > 0 ? i : -1;	/* reported by the next call */
		if (r < (ssize_t)sizeof(h)) {
			lens[i] = 0;		/* counted as empty */
			continue;
		}
		lens[i] = (uint32_t)(r - (ssize_t)sizeof(h));
		if (lens[i] >= pkt->cap && iovcnt == 3)
			pkts[i] = pkt = vnet_promote(pool, spare, pkt);
		vnet_decode(&h, pkt);
	}
	return i;
}

int
vnet_write(int fd, const struct cake_pkt *pkt)
{
	return vnet_writev(fd, pkt, pkt->len, NULL, 0);
}

int
vnet_writev(int fd, const struct cake_pkt *pkt, uint32_t head_len,
    const struct iovec *more, unsigned int n)
{
	struct vnet_hdr	h;
	struct iovec	iov[VNET_IOV_MAX + 2];
	ssize_t		r;
	unsigned int	i;

	if (n > VNET_IOV_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	vnet_encode(pkt, &h);
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = pkt->data;
	iov[1].iov_len = head_len;
	for (i = 0; i < n; i++)
		iov[i + 2] = more[i];
	do {
		r = writev(fd, iov, (int)n + 2);
	} while (r == -1 && errno == EINTR);
	if (r == -1)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	return 1;
}
