/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gro.c: coalescing on the way out (receive offload in reverse). With
 * split-gso the engine cuts every TCP super-packet into wire segments and
 * shapes them one by one; writing each to the TAP costs a system call and
 * a pass through the kernel's stack. Consecutive segments of one flow
 * that leave the engine together are glued back into one super-packet,
 * which the kernel segments again (TSO through the vnet header). Packets
 * leave at exactly the time the shaper let them; only the syscalls are
 * shared. Nothing is copied but the headers: the payloads are written
 * from the segments' own buffers with one writev().
 *
 * Rules follow the kernel's TCP GRO: same headers except lengths, IPv4
 * ID and checksums, TCP sequence and PSH; contiguous sequence numbers;
 * every segment but the last of the same size; no SYN, FIN, RST, URG or
 * CWR; PSH only on the last. This module must not write any packet but
 * the output buffer, and it does no I/O.
 */
#include <sys/uio.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "daemon/gro.h"
#include "engine/csum.h"

#define GRO_PROTO_TCP	6
#define GRO_IPV4_DF	0x40	/* in the byte at offset 6 */
#define GRO_IPV6_HDR	40
#define GRO_TCP_SEQ	4
#define GRO_TCP_FLAGS	13
#define GRO_TCP_CSUM	16
#define GRO_TCP_PSH	0x08
#define GRO_TCP_ACK	0x10
#define GRO_TCP_ECE	0x40
#define GRO_IP_MAX	65535	/* IP total length field */

static uint32_t
gro_hdr_bytes(const struct cake_pkt *pkt)
{
	return (uint32_t)pkt->meta.l4_off + pkt->meta.tcp_hdr_len;
}

/* A plain TCP segment with payload; PSH allowed if allow_psh. */
static bool
gro_shape(const struct cake_pkt *pkt, bool allow_psh)
{
	const struct cake_pkt_meta *m = &pkt->meta;
	const uint8_t	*ip;
	uint8_t		 ok = GRO_TCP_ACK | GRO_TCP_ECE |
			    (allow_psh ? GRO_TCP_PSH : 0);

	if (!pkt->meta_valid || pkt->gso_type != CAKE_GSO_NONE ||
	    m->tuple.proto != GRO_PROTO_TCP || m->l4_off == 0 ||
	    m->net_off != m->ip_off || m->ip_end != pkt->len ||
	    (m->flags & (CAKE_META_FRAG | CAKE_META_6IN4 |
	    CAKE_META_MALFORMED | CAKE_META_TRUNCATED)) ||
	    gro_hdr_bytes(pkt) >= pkt->len ||
	    gro_hdr_bytes(pkt) > GRO_HDR_MAX ||
	    !(m->tcp_flags & GRO_TCP_ACK) || (m->tcp_flags & ~ok))
		return false;
	if (pkt->csum_partial && (pkt->csum_start != m->l4_off ||
	    pkt->csum_offset != GRO_TCP_CSUM))
		return false;
	ip = pkt->data + m->ip_off;
	if (m->l3 == CAKE_L3_IPV4)
		return (ip[6] & GRO_IPV4_DF) && (ip[6] & 0x1f) == 0 &&
		    ip[7] == 0 && (uint32_t)(ip[0] & 0x0f) * 4 ==
		    (uint32_t)(m->l4_off - m->ip_off);
	if (m->l3 == CAKE_L3_IPV6)
		return m->l4_off == m->ip_off + GRO_IPV6_HDR &&
		    ip[6] == GRO_PROTO_TCP;
	return false;
}

bool
gro_candidate(const struct cake_pkt *pkt)
{
	return gro_shape(pkt, false);
}

/* Headers equal but for the fields a segment may change. */
static bool
gro_same_headers(const struct cake_pkt *a, const struct cake_pkt *b)
{
	const struct cake_pkt_meta *m = &a->meta;
	const uint8_t	*pa = a->data, *pb = b->data;
	uint32_t	 ip = m->ip_off, l4 = m->l4_off;
	uint32_t	 end = gro_hdr_bytes(a);

	if (b->meta.ip_off != ip || b->meta.l4_off != l4 ||
	    b->meta.l3 != m->l3 || gro_hdr_bytes(b) != end)
		return false;
	if (memcmp(pa, pb, ip) != 0)
		return false;		/* link header */
	if (m->l3 == CAKE_L3_IPV4) {
		/* skip total length (2), ID (4), checksum (10) */
		if (memcmp(pa + ip, pb + ip, 2) != 0 ||
		    memcmp(pa + ip + 6, pb + ip + 6, 4) != 0 ||
		    memcmp(pa + ip + 12, pb + ip + 12, l4 - ip - 12) != 0)
			return false;
	} else if (memcmp(pa + ip, pb + ip, 4) != 0 ||
	    memcmp(pa + ip + 6, pb + ip + 6, GRO_IPV6_HDR - 6) != 0)
		return false;		/* skip the payload length (4) */
	/* TCP: skip sequence (4), flags (13), checksum (16) */
	return memcmp(pa + l4, pb + l4, 4) == 0 &&
	    memcmp(pa + l4 + 8, pb + l4 + 8, 5) == 0 &&
	    memcmp(pa + l4 + 14, pb + l4 + 14, 2) == 0 &&
	    memcmp(pa + l4 + 18, pb + l4 + 18, end - l4 - 18) == 0;
}

bool
gro_follows(struct cake_pkt *const run[], unsigned int n,
    const struct cake_pkt *pkt, uint32_t cap_bytes)
{
	const struct cake_pkt	*head = run[0], *last = run[n - 1];
	uint32_t		 hdr = gro_hdr_bytes(head);
	uint32_t		 mss = head->len - hdr, pay, total;

	if (n >= GRO_SEGS_MAX || !gro_shape(pkt, true) ||
	    last->len - hdr != mss ||
	    (last->meta.tcp_flags & GRO_TCP_PSH) ||
	    !gro_same_headers(head, pkt))
		return false;
	pay = pkt->len - hdr;
	total = hdr + n * mss + pay;
	if (pay > mss || total > cap_bytes ||
	    total > GRO_IP_MAX)
		return false;
	return csum_get32(pkt->data + pkt->meta.l4_off + GRO_TCP_SEQ) ==
	    csum_get32(last->data + last->meta.l4_off + GRO_TCP_SEQ) + mss;
}

/* Lengths and checksums of the glued packet's headers. */
static void
gro_fix_headers(struct cake_pkt *out, uint32_t total, uint8_t flags)
{
	const struct cake_pkt_meta *m = &out->meta;
	uint8_t		*ip = out->data + m->ip_off, *tcp = out->data + m->l4_off;
	uint32_t	 l4_len = total - m->l4_off, sum;

	if (m->l3 == CAKE_L3_IPV4) {
		csum_put16(ip + 2, (uint16_t)(total - m->ip_off));
		csum_put16(ip + 10, 0);
		csum_put16(ip + 10, csum_fold(csum_add(0, ip,
		    m->l4_off - m->ip_off)));
		sum = csum_pseudo(ip + 12, ip + 16, 4, GRO_PROTO_TCP, l4_len);
	} else {
		csum_put16(ip + 4, (uint16_t)(total - m->ip_off -
		    GRO_IPV6_HDR));
		sum = csum_pseudo(ip + 8, ip + 24, 16, GRO_PROTO_TCP, l4_len);
	}
	tcp[GRO_TCP_FLAGS] = flags;
	/* As the kernel's NEEDS_CSUM: the folded, uncomplemented sum. */
	csum_put16(tcp + GRO_TCP_CSUM, (uint16_t)~csum_fold(sum));
}

void
gro_gather(struct cake_pkt *const run[], unsigned int n, struct cake_pkt *out,
    uint8_t *hdr_buf, struct iovec *iov)
{
	const struct cake_pkt	*head = run[0];
	uint32_t		 hdr = gro_hdr_bytes(head), total = hdr;
	uint8_t			 flags = run[n - 1]->meta.tcp_flags;
	unsigned int		 i;

	memcpy(hdr_buf, head->data, hdr);
	for (i = 0; i < n; i++) {
		iov[i].iov_base = run[i]->data + hdr;
		iov[i].iov_len = run[i]->len - hdr;
		total += (uint32_t)iov[i].iov_len;
	}
	memset(out, 0, sizeof(*out));
	out->data = hdr_buf;
	out->cap = hdr;
	out->len = total;
	out->mark = head->mark;
	out->meta_valid = true;
	out->meta = head->meta;
	out->meta.ip_end = (uint16_t)total;
	out->meta.l4_len = (uint16_t)(total - head->meta.l4_off);
	out->meta.tcp_flags = flags;
	out->hash_valid = head->hash_valid;
	out->hash_tuple = head->hash_tuple;
	out->gso_type = head->meta.l3 == CAKE_L3_IPV4 ? CAKE_GSO_TCPV4 :
	    CAKE_GSO_TCPV6;
	out->gso_size = (uint16_t)(head->len - hdr);
	out->csum_partial = true;
	out->csum_start = head->meta.l4_off;
	out->csum_offset = GRO_TCP_CSUM;
	gro_fix_headers(out, total, flags);
}
