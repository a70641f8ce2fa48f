/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * gso.c: GSO super-packet segmentation (doc/cake.md §7, "split-gso").
 *
 * A TAP with IFF_VNET_HDR hands over TCPv4, TCPv6 and UDP (UDP_L4) GSO
 * super-packets: one set of link/IP/L4 headers and up to 64 KB of payload,
 * cut at gso_size payload bytes per wire segment. The kernel leaves the
 * L4 checksum field holding only the pseudo-header sum (NEEDS_CSUM). Each
 * segment gets its IPv4 header checksum, and either its full L4 checksum,
 * or, when the egress device completes checksums (env keep_partial_csum)
 * and the super-packet's was partial, its own pseudo-header sum, left
 * partial as the kernel's own segmentation does: summing every payload
 * byte twice (here and in the kernel) was most of a split's cost.
 *
 * This module must not: trust any offset or length without checking it
 * against pkt->len (the input is hostile), modify or free the input
 * packet, keep a buffer it allocated (on failure they go back to the
 * caller on *out), or support UFO (CAKE_GSO_UDP, which means IP
 * fragmentation rather than segmentation).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "engine/csum.h"
#include "engine/gso.h"

#define GSO_PROTO_TCP		6
#define GSO_PROTO_UDP		17
#define GSO_IPV4_HDR_MIN	20	/* RFC 791 */
#define GSO_IPV6_HDR		40	/* RFC 8200 */
#define GSO_TCP_HDR_MIN		20	/* RFC 9293 */
#define GSO_UDP_HDR		8	/* RFC 768 */
#define GSO_TCP_FIN		0x01
#define GSO_TCP_PSH		0x08
#define GSO_TCP_CWR		0x80
#define GSO_TCP_CSUM_OFF	16
#define GSO_UDP_CSUM_OFF	6

/* Where the parts of a validated super-packet lie, in bytes from data. */
struct gso_layout {
	bool		v6;
	uint8_t		proto;		/* GSO_PROTO_TCP or GSO_PROTO_UDP */
	uint32_t	ip_off;
	uint32_t	ip_hdr_bytes;	/* IPv4 header incl. options; 40 for IPv6 */
	uint32_t	l4_off;
	uint32_t	l4_hdr_bytes;	/* TCP header incl. options, or 8 */
	uint32_t	hdr_bytes;	/* l4_off + l4_hdr_bytes */
	uint32_t	payload_bytes;	/* after hdr_bytes up to the IP end */
	uint32_t	mss_bytes;	/* gso_size */
	uint32_t	segs;
	/* Sums every segment shares, so that each adds only its own fields. */
	uint32_t	ip_sum;		/* IPv4 header without length, ID, csum */
	uint32_t	pseudo_sum;	/* pseudo-header without the length */
};


/* Maps the GSO type to the L4 protocol and IP family it requires. */
static int
gso_type_check(const struct cake_pkt *pkt, struct gso_layout *lo)
{
	const struct cake_pkt_meta *m = &pkt->meta;

	switch (pkt->gso_type & ~CAKE_GSO_ECN) {
	case CAKE_GSO_TCPV4:
		lo->proto = GSO_PROTO_TCP;
		lo->v6 = false;
		return m->l3 == CAKE_L3_IPV4 ? 0 : -1;
	case CAKE_GSO_TCPV6:
		lo->proto = GSO_PROTO_TCP;
		lo->v6 = true;
		return m->l3 == CAKE_L3_IPV6 ? 0 : -1;
	case CAKE_GSO_UDP_L4:
		lo->proto = GSO_PROTO_UDP;
		lo->v6 = m->l3 == CAKE_L3_IPV6;
		return m->l3 == CAKE_L3_IPV4 || m->l3 == CAKE_L3_IPV6 ? 0 : -1;
	default:
		/* CAKE_GSO_NONE, CAKE_GSO_UDP (UFO) and unknown types. */
		return -1;
	}
}

/*
 * Checks the IP header against the meta and the frame, and returns the
 * end of the IP packet in *end_bytes. A zero IP length (BIG TCP, jumbo)
 * means "to the end of the frame".
 */
static int
gso_ip_check(const struct cake_pkt *pkt, struct gso_layout *lo,
    uint32_t *end_bytes)
{
	const uint8_t	*ip = pkt->data + lo->ip_off;
	uint32_t	 ip_len;

	if (!lo->v6) {
		if (lo->ip_off + GSO_IPV4_HDR_MIN > pkt->len || ip[0] >> 4 != 4)
			return -1;
		lo->ip_hdr_bytes = (uint32_t)(ip[0] & 0x0f) * 4;
		if (lo->ip_hdr_bytes < GSO_IPV4_HDR_MIN || ip[9] != lo->proto)
			return -1;
		/* A fragment (MF or an offset) cannot be a GSO packet. */
		if (csum_get16(ip + 6) & 0x3fff)
			return -1;
		ip_len = csum_get16(ip + 2);
	} else {
		if (lo->ip_off + GSO_IPV6_HDR > pkt->len || ip[0] >> 4 != 6)
			return -1;
		lo->ip_hdr_bytes = GSO_IPV6_HDR;
		/* Extension headers are the parser's job; else check next. */
		if (lo->l4_off == lo->ip_off + GSO_IPV6_HDR &&
		    ip[6] != lo->proto)
			return -1;
		ip_len = csum_get16(ip + 4);
		if (ip_len != 0)
			ip_len += GSO_IPV6_HDR;
	}
	if (lo->ip_off + lo->ip_hdr_bytes > lo->l4_off)
		return -1;
	*end_bytes = ip_len != 0 ? lo->ip_off + ip_len : pkt->len;
	return *end_bytes <= pkt->len ? 0 : -1;
}

/* Checks the TCP or UDP header; it must end inside the IP packet. */
static int
gso_l4_check(const struct cake_pkt *pkt, struct gso_layout *lo,
    uint32_t end_bytes)
{
	const uint8_t	*l4 = pkt->data + lo->l4_off;

	if (lo->proto == GSO_PROTO_UDP)
		lo->l4_hdr_bytes = GSO_UDP_HDR;
	else {
		if (lo->l4_off + GSO_TCP_HDR_MIN > end_bytes)
			return -1;
		lo->l4_hdr_bytes = (uint32_t)(l4[12] >> 4) * 4;
		if (lo->l4_hdr_bytes < GSO_TCP_HDR_MIN ||
		    lo->l4_hdr_bytes != pkt->meta.tcp_hdr_len)
			return -1;
	}
	lo->hdr_bytes = lo->l4_off + lo->l4_hdr_bytes;
	return lo->hdr_bytes < end_bytes ? 0 : -1;
}

/* Validates a super-packet and fills its layout; -1 if it cannot be cut. */
static int
gso_layout(const struct cake_pkt *pkt, struct gso_layout *lo)
{
	const struct cake_pkt_meta	*m = &pkt->meta;
	uint32_t			 end_bytes, max_seg_bytes;

	memset(lo, 0, sizeof(*lo));
	if (pkt->data == NULL || !pkt->meta_valid || pkt->gso_size == 0 ||
	    gso_type_check(pkt, lo) == -1)
		return -1;
	/* No tunnels, fragments or damage: the headers are the outer ones. */
	if (m->net_off != m->ip_off || m->tuple.proto != lo->proto ||
	    (m->flags & (CAKE_META_FRAG | CAKE_META_6IN4 |
	    CAKE_META_MALFORMED | CAKE_META_TRUNCATED)))
		return -1;
	lo->ip_off = m->ip_off;
	lo->l4_off = m->l4_off;
	lo->mss_bytes = pkt->gso_size;
	if (gso_ip_check(pkt, lo, &end_bytes) == -1 ||
	    gso_l4_check(pkt, lo, end_bytes) == -1)
		return -1;
	lo->payload_bytes = end_bytes - lo->hdr_bytes;
	lo->segs = lo->payload_bytes / lo->mss_bytes +
	    (lo->payload_bytes % lo->mss_bytes != 0);
	if (lo->segs > GSO_SEGS_MAX)
		return -1;
	/* Every length field (IP, UDP, meta) of a segment must fit 16 bits. */
	max_seg_bytes = lo->hdr_bytes + (lo->payload_bytes < lo->mss_bytes ?
	    lo->payload_bytes : lo->mss_bytes);
	return max_seg_bytes <= UINT16_MAX ? 0 : -1;
}

unsigned int
gso_segs(const struct cake_pkt *pkt)
{
	struct gso_layout	lo;
	uint32_t		hdr_bytes, payload_bytes;

	if ((pkt->gso_type & ~CAKE_GSO_ECN) == CAKE_GSO_NONE ||
	    pkt->gso_size == 0)
		return 1;
	if (gso_layout(pkt, &lo) == 0)
		return lo.segs;
	/* Not cuttable here (e.g. UFO): estimate from the frame length. */
	hdr_bytes = gso_hdr_len(pkt);
	if (pkt->len <= hdr_bytes)
		return 1;
	payload_bytes = pkt->len - hdr_bytes;
	return payload_bytes / pkt->gso_size +
	    (payload_bytes % pkt->gso_size != 0);
}

uint32_t
gso_hdr_len(const struct cake_pkt *pkt)
{
	const struct cake_pkt_meta *m = &pkt->meta;

	if (m->l4_off == 0)
		return 0;
	switch (m->tuple.proto) {
	case GSO_PROTO_TCP:
		return (uint32_t)m->l4_off + m->tcp_hdr_len;
	case GSO_PROTO_UDP:
		return (uint32_t)m->l4_off + GSO_UDP_HDR;
	default:
		return m->l4_off;
	}
}

/* The sums of the super-packet's headers that all its segments share. */
static void
gso_shared_sums(const struct cake_pkt *pkt, struct gso_layout *lo)
{
	const uint8_t	*ip = pkt->data + lo->ip_off;

	if (lo->v6)
		lo->pseudo_sum = csum_pseudo(ip + 8, ip + 24, 16, lo->proto, 0);
	else {
		lo->pseudo_sum = csum_pseudo(ip + 12, ip + 16, 4, lo->proto, 0);
		/* all but total length (2), ID (4) and checksum (10) */
		lo->ip_sum = csum_add(csum_add(csum_add(0, ip, 2), ip + 6, 4),
		    ip + 12, lo->ip_hdr_bytes - 12);
	}
}

/* Sets segment i's IP length, and for IPv4 its ID and header checksum. */
static void
gso_fill_ip(uint8_t *seg, const struct gso_layout *lo, uint32_t i,
    uint32_t slice_bytes)
{
	uint8_t		*ip = seg + lo->ip_off;
	uint32_t	 ip_len = lo->hdr_bytes - lo->ip_off + slice_bytes;
	uint16_t	 id;

	if (lo->v6) {
		csum_put16(ip + 4, (uint16_t)(ip_len - GSO_IPV6_HDR));
		return;
	}
	id = (uint16_t)(csum_get16(ip + 4) + i);
	csum_put16(ip + 2, (uint16_t)ip_len);
	csum_put16(ip + 4, id);
	csum_put16(ip + 10, csum_fold(lo->ip_sum + ip_len + id));
}

/*
 * Sets segment i's TCP sequence number and flags or UDP length, then its
 * L4 checksum, full or (partial) the pseudo-header sum; returns the TCP
 * flags.
 */
static uint8_t
gso_fill_l4(uint8_t *seg, const struct gso_layout *lo, uint32_t i,
    uint32_t slice_bytes, bool partial)
{
	uint8_t		*l4 = seg + lo->l4_off;
	uint32_t	 l4_len = lo->l4_hdr_bytes + slice_bytes, sum;
	uint16_t	 csum;
	uint8_t		 flags = 0;
	size_t		 csum_off;

	if (lo->proto == GSO_PROTO_TCP) {
		csum_put32(l4 + 4, csum_get32(l4 + 4) + i * lo->mss_bytes);
		flags = l4[13];
		if (i + 1 < lo->segs)
			flags &= (uint8_t)~(GSO_TCP_FIN | GSO_TCP_PSH);
		if (i > 0)
			flags &= (uint8_t)~GSO_TCP_CWR;
		l4[13] = flags;
		csum_off = GSO_TCP_CSUM_OFF;
	} else {
		csum_put16(l4 + 4, (uint16_t)l4_len);
		csum_off = GSO_UDP_CSUM_OFF;
	}
	csum_put16(l4 + csum_off, 0);
	sum = lo->pseudo_sum + (l4_len >> 16) + (l4_len & 0xffff);
	if (partial) {
		/* As NEEDS_CSUM: the folded sum, not its complement. */
		csum_put16(l4 + csum_off, (uint16_t)~csum_fold(sum));
		return flags;
	}
	csum = csum_fold(csum_add(sum, l4, l4_len));
	/* RFC 768: a computed UDP checksum of 0 is sent as all ones. */
	if (csum == 0 && lo->proto == GSO_PROTO_UDP)
		csum = 0xffff;
	csum_put16(l4 + csum_off, csum);
	return flags;
}

/* Everything but the bytes: a plain packet, its checksum maybe partial. */
static void
gso_fill_pkt(struct cake_pkt *seg, const struct cake_pkt *pkt,
    uint32_t len_bytes, uint8_t tcp_flags, const struct gso_layout *lo,
    bool partial)
{
	seg->len = len_bytes;
	seg->truesize = cake_truesize(len_bytes);
	seg->mark = pkt->mark;
	seg->meta_valid = true;
	seg->hash_valid = pkt->hash_valid;
	seg->gso_type = CAKE_GSO_NONE;
	seg->csum_partial = partial;
	seg->gso_size = 0;
	seg->csum_start = partial ? (uint16_t)lo->l4_off : 0;
	seg->csum_offset = !partial ? 0 : lo->proto == GSO_PROTO_TCP ?
	    GSO_TCP_CSUM_OFF : GSO_UDP_CSUM_OFF;
	seg->meta = pkt->meta;
	seg->meta.l4_len = (uint16_t)(len_bytes - lo->l4_off);
	seg->meta.ip_end = (uint16_t)len_bytes;
	if (lo->proto == GSO_PROTO_TCP)
		seg->meta.tcp_flags = tcp_flags;
	seg->hash_tuple = pkt->hash_tuple;
	seg->enqueue_ns = 0;
	seg->adj_len = 0;
	seg->segs = 1;
	seg->tin = 0;
	seg->drop_reason = CAKE_DROP_NONE;
}

int
gso_split(const struct cake_pkt *pkt, const struct cake_env *env,
    struct cake_pkt **out)
{
	struct gso_layout	 lo;
	struct cake_pkt		*seg, **tail = out;
	uint32_t		 i, off_bytes, slice_bytes, len_bytes;
	uint8_t			 flags;
	bool			 partial;

	*out = NULL;
	if (env == NULL || env->alloc == NULL || gso_layout(pkt, &lo) == -1)
		return -1;
	gso_shared_sums(pkt, &lo);
	partial = env->keep_partial_csum && pkt->csum_partial &&
	    pkt->csum_start == lo.l4_off && pkt->csum_offset ==
	    (lo.proto == GSO_PROTO_TCP ? GSO_TCP_CSUM_OFF : GSO_UDP_CSUM_OFF);
	for (i = 0; i < lo.segs; i++) {
		off_bytes = i * lo.mss_bytes;
		slice_bytes = lo.payload_bytes - off_bytes;
		if (slice_bytes > lo.mss_bytes)
			slice_bytes = lo.mss_bytes;
		len_bytes = lo.hdr_bytes + slice_bytes;
		if ((seg = env->alloc(env->alloc_arg, len_bytes)) == NULL)
			return -1;
		/* Linked at once, so that a failure hands it back too. */
		seg->next = NULL;
		seg->len = 0;
		*tail = seg;
		tail = &seg->next;
		if (seg->data == NULL || seg->cap < len_bytes)
			return -1;
		memcpy(seg->data, pkt->data, lo.hdr_bytes);
		memcpy(seg->data + lo.hdr_bytes,
		    pkt->data + lo.hdr_bytes + off_bytes, slice_bytes);
		gso_fill_ip(seg->data, &lo, i, slice_bytes);
		flags = gso_fill_l4(seg->data, &lo, i, slice_bytes, partial);
		gso_fill_pkt(seg, pkt, len_bytes, flags, &lo, partial);
	}
	return (int)lo.segs;
}

int
gso_finish_csum(struct cake_pkt *pkt)
{
	uint32_t	start = pkt->csum_start;
	uint32_t	field = start + pkt->csum_offset;
	uint16_t	csum;

	if (!pkt->csum_partial)
		return 0;
	if (pkt->data == NULL || field + 2 > pkt->len)
		return -1;
	/* The field already holds the pseudo-header sum: sum over it. */
	csum = csum_fold(csum_add(0, pkt->data + start, pkt->len - start));
	/* As the kernel's skb_checksum_help(): 0 goes out as all ones. */
	if (csum == 0)
		csum = 0xffff;
	csum_put16(pkt->data + field, csum);
	pkt->csum_partial = false;
	return 0;
}
