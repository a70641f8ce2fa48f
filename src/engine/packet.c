/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * packet.c: the frame parser (cake_parse(), the one exception to the
 * packet_ prefix because include/caked/cake.h names it) and the in-place
 * rewrites of the outer IP header (ECN CE mark, DSCP wash).
 *
 * The parser walks a frame once and never reads outside data[0..len):
 * every read is preceded by a check against the bytes known to exist,
 * and IP-level reads are bounded by the IP packet's own length. It
 * allocates nothing, keeps no state and trusts nothing in the frame.
 *
 * Layers understood:
 *   Ethernet (TAP): MAC header, up to 4 stacked 802.1Q / 802.1ad tags,
 *     a PPPoE session (RFC 2516) carrying PPP IPv4 / IPv6, ARP.
 *   Raw IP (TUN): the version nibble chooses IPv4 or IPv6.
 *   IPv4 (options skipped, fragments), IPv6 (hop-by-hop, routing,
 *     fragment, destination options and AH extension headers, at most
 *     PACKET_IPV6_EXT_MAX of them), 6in4 (RFC 4213), then TCP, UDP,
 *     ICMP / ICMPv6. Other protocols give the protocol number only.
 *
 * The rule for bad input (doc/hacking.md, "Rules of the code"): a frame
 * that does not parse is classified best-effort non-IP. meta->l3 =
 * inner_l3 = CAKE_L3_NONE, dsfield 0, tuple zeroed, ip_off = net_off,
 * ip_end = l4_off = l4_len = 0, and one flag says why, so the daemon can
 * count the kinds:
 *   CAKE_META_TRUNCATED  the data ended before a header or length that
 *                        was announced (MAC header, VLAN tag, PPPoE,
 *                        IP header, IP total / payload length beyond the
 *                        bytes read, an extension or L4 header past the
 *                        end of the IP packet);
 *   CAKE_META_MALFORMED  a field holds an impossible value (IP version,
 *                        IHL < 5, total length < header length, TCP data
 *                        offset < 5, a hop-by-hop header that is not
 *                        first or more than PACKET_IPV6_EXT_MAX extension
 *                        headers, i.e. a looping chain), or the IP end lies
 *                        beyond the 16-bit offsets of struct cake_pkt_meta.
 * Frames that are merely not IP (unknown ethertype, non-IP PPP, a fifth
 * VLAN tag, a PPPoE header of another version) get CAKE_L3_NONE without
 * a flag. ARP gets CAKE_L3_ARP and no keys. net_off is always the end of
 * the complete link-layer headers read (0 if the MAC header is cut).
 * The IPv4 header checksum is not verified (the kernel does not either).
 *
 * This module must not keep state, allocate, or re-walk headers for other
 * modules: they use the offsets in struct cake_pkt_meta.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "engine/csum.h"
#include "engine/packet.h"

#define PACKET_ETH_HLEN		14	/* two MACs + ethertype */
#define PACKET_VLAN_HLEN	4	/* TCI + inner ethertype */
#define PACKET_VLAN_MAX		4	/* stacked tags accepted */
#define PACKET_PPPOE_HLEN	8	/* PPPoE 6 + PPP protocol 2 */
#define PACKET_ARP_HLEN		8	/* fixed part, RFC 826 */
#define PACKET_IPV4_HLEN	20
#define PACKET_IPV6_HLEN	40
#define PACKET_IPV6_EXT_MAX	8	/* extension headers walked */
#define PACKET_TCP_HLEN		20
#define PACKET_UDP_HLEN		8
#define PACKET_ICMP_HLEN	4

#define ETHERTYPE_IPV4		0x0800
#define ETHERTYPE_ARP		0x0806
#define ETHERTYPE_VLAN		0x8100	/* 802.1Q */
#define ETHERTYPE_QINQ		0x88a8	/* 802.1ad */
#define ETHERTYPE_IPV6		0x86dd
#define ETHERTYPE_PPPOE		0x8864	/* session stage */
#define PPP_IPV4		0x0021
#define PPP_IPV6		0x0057
#define PPPOE_VER_TYPE		0x11
#define PPPOE_CODE_SESSION	0x00

#define IPV4_FRAG_OFFSET	0x1fff
#define IPV4_FRAG_MF		0x2000
#define IPV6_FRAG_OFFSET	0xfff8
#define IPV6_FRAG_MF		0x0001

/* IPv6 next-header values walked as extension headers (RFC 8200). */
#define IPV6_EXT_HOPOPTS	0
#define IPV6_EXT_ROUTING	43
#define IPV6_EXT_FRAGMENT	44
#define IPV6_EXT_AH		51
#define IPV6_EXT_DSTOPTS	60

/* Outcome of one parsing step. */
enum packet_res {
	PACKET_OK = 0,
	PACKET_NONIP,		/* not IP, nothing wrong */
	PACKET_TRUNC,		/* CAKE_META_TRUNCATED */
	PACKET_BAD,		/* CAKE_META_MALFORMED */
};

/* Where the extension header walk of one IPv6 header ended. */
struct packet_ext {
	uint32_t	off;		/* just past the last ext header */
	uint8_t		nh;		/* the upper-layer protocol */
	bool		later_frag;	/* non-first fragment: no L4 */
};

static const uint8_t v4mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

/*
 * Reads the link-layer headers of an Ethernet frame. *off gets the end of
 * the complete ones, *type the ethertype of what follows (0 if unknown).
 */
static enum packet_res
packet_link(const uint8_t *d, uint32_t len, uint32_t *off, uint16_t *type)
{
	uint32_t	o = PACKET_ETH_HLEN;
	uint16_t	t, ppp;
	unsigned int	tags;

	*off = 0;
	*type = 0;
	if (len < PACKET_ETH_HLEN)
		return PACKET_TRUNC;
	t = csum_get16(d + 12);
	for (tags = 0; t == ETHERTYPE_VLAN || t == ETHERTYPE_QINQ; tags++) {
		*off = o;
		if (tags == PACKET_VLAN_MAX)
			return PACKET_NONIP;
		if (len - o < PACKET_VLAN_HLEN)
			return PACKET_TRUNC;
		t = csum_get16(d + o + 2);
		o += PACKET_VLAN_HLEN;
	}
	*off = o;
	if (t == ETHERTYPE_PPPOE) {
		if (len - o < PACKET_PPPOE_HLEN)
			return PACKET_TRUNC;
		if (d[o] != PPPOE_VER_TYPE || d[o + 1] != PPPOE_CODE_SESSION)
			return PACKET_NONIP;
		ppp = csum_get16(d + o + 6);
		o += PACKET_PPPOE_HLEN;
		*off = o;
		if (ppp == PPP_IPV4)
			t = ETHERTYPE_IPV4;
		else if (ppp == PPP_IPV6)
			t = ETHERTYPE_IPV6;
		else
			return PACKET_NONIP;
	}
	*type = t;
	return PACKET_OK;
}

/* Reads the TCP, UDP or ICMP header at off, which ends by end. */
static enum packet_res
packet_l4(const uint8_t *d, uint32_t off, uint32_t end, uint8_t icmp_proto,
    struct cake_pkt_meta *m)
{
	uint32_t	avail = end - off, doff;
	uint8_t		proto = m->tuple.proto;

	if (proto == PACKET_PROTO_TCP) {
		if (avail < PACKET_TCP_HLEN)
			return PACKET_TRUNC;
		doff = (uint32_t)(d[off + 12] >> 4) * 4;
		if (doff < PACKET_TCP_HLEN)
			return PACKET_BAD;
		if (doff > avail)
			return PACKET_TRUNC;
		m->tcp_flags = d[off + 13];
		m->tcp_hdr_len = (uint8_t)doff;
	} else if (proto == PACKET_PROTO_UDP) {
		if (avail < PACKET_UDP_HLEN)
			return PACKET_TRUNC;
	} else if (proto == icmp_proto) {
		if (avail < PACKET_ICMP_HLEN)
			return PACKET_TRUNC;
	} else
		return PACKET_OK;	/* another protocol: number only */
	if (proto != icmp_proto) {
		m->tuple.sport = csum_get16(d + off);
		m->tuple.dport = csum_get16(d + off + 2);
	}
	m->l4_off = (uint16_t)off;
	m->l4_len = (uint16_t)avail;
	return PACKET_OK;
}

/* Size of the IPv6 extension header nh at d[o..end), or 0 if it is none. */
static enum packet_res
packet_ext_len(const uint8_t *d, uint32_t o, uint32_t end, uint8_t nh,
    uint32_t *hlen)
{
	*hlen = 0;
	switch (nh) {
	case IPV6_EXT_HOPOPTS:
	case IPV6_EXT_ROUTING:
	case IPV6_EXT_DSTOPTS:
		if (end - o < 2)
			return PACKET_TRUNC;
		*hlen = ((uint32_t)d[o + 1] + 1) * 8;
		break;
	case IPV6_EXT_AH:
		if (end - o < 2)
			return PACKET_TRUNC;
		*hlen = ((uint32_t)d[o + 1] + 2) * 4;
		break;
	case IPV6_EXT_FRAGMENT:
		*hlen = 8;
		break;
	default:
		return PACKET_OK;
	}
	return *hlen > end - o ? PACKET_TRUNC : PACKET_OK;
}

/* Walks the extension headers from x->off (next header x->nh) to end. */
static enum packet_res
packet_ipv6_ext(const uint8_t *d, uint32_t end, struct packet_ext *x,
    struct cake_pkt_meta *m)
{
	enum packet_res	rc;
	uint32_t	hlen;
	uint16_t	frag;
	unsigned int	n;

	for (n = 0;; n++) {
		rc = packet_ext_len(d, x->off, end, x->nh, &hlen);
		if (rc != PACKET_OK || hlen == 0)
			return rc;
		if (n == PACKET_IPV6_EXT_MAX)
			return PACKET_BAD;
		if (x->nh == IPV6_EXT_HOPOPTS && n != 0)
			return PACKET_BAD;
		if (x->nh == IPV6_EXT_FRAGMENT) {
			frag = csum_get16(d + x->off + 2);
			if (frag & (IPV6_FRAG_OFFSET | IPV6_FRAG_MF))
				m->flags |= CAKE_META_FRAG;
			x->later_frag = (frag & IPV6_FRAG_OFFSET) != 0;
		}
		x->nh = d[x->off];
		x->off += hlen;
		if (x->later_frag)
			return PACKET_OK;
	}
}

/*
 * Reads the IPv6 header at off, with lim the end of the bytes it may use.
 * The outer header sets l3, dsfield and ip_end; an inner (6in4) one only
 * the keys.
 */
static enum packet_res
packet_ipv6(const uint8_t *d, uint32_t lim, uint32_t off, bool inner,
    struct cake_pkt_meta *m)
{
	const uint8_t	*ip = d + off;
	struct packet_ext x;
	enum packet_res	rc;
	uint32_t	end;

	if (lim - off >= 1 && ip[0] >> 4 != 6)
		return PACKET_BAD;
	if (lim - off < PACKET_IPV6_HLEN)
		return PACKET_TRUNC;
	end = off + PACKET_IPV6_HLEN + csum_get16(ip + 4);
	if (end > lim)
		return PACKET_TRUNC;
	if (end > UINT16_MAX)
		return PACKET_BAD;
	if (!inner) {
		m->l3 = CAKE_L3_IPV6;
		m->ip_end = (uint16_t)end;
		m->dsfield = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
	}
	m->inner_l3 = CAKE_L3_IPV6;
	m->ip_off = (uint16_t)off;
	memcpy(m->tuple.src, ip + 8, 16);
	memcpy(m->tuple.dst, ip + 24, 16);
	m->tuple.family = 6;

	x.off = off + PACKET_IPV6_HLEN;
	x.nh = ip[6];
	x.later_frag = false;
	rc = packet_ipv6_ext(d, end, &x, m);
	if (rc != PACKET_OK)
		return rc;
	m->tuple.proto = x.nh;
	if (x.later_frag)
		return PACKET_OK;
	return packet_l4(d, x.off, end, PACKET_PROTO_ICMPV6, m);
}

/* Reads the IPv4 header at off (and what it carries) from d[0..len). */
static enum packet_res
packet_ipv4(const uint8_t *d, uint32_t len, uint32_t off,
    struct cake_pkt_meta *m)
{
	const uint8_t	*ip = d + off;
	uint32_t	avail = len - off, hlen, tot;
	uint16_t	frag;
	enum packet_res	rc;

	if (avail >= 1 && ip[0] >> 4 != 4)
		return PACKET_BAD;
	if (avail < PACKET_IPV4_HLEN)
		return PACKET_TRUNC;
	hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	if (hlen < PACKET_IPV4_HLEN)
		return PACKET_BAD;
	if (hlen > avail)
		return PACKET_TRUNC;
	tot = csum_get16(ip + 2);
	if (tot < hlen)
		return PACKET_BAD;
	if (tot > avail)
		return PACKET_TRUNC;
	if (off + tot > UINT16_MAX)
		return PACKET_BAD;

	m->l3 = m->inner_l3 = CAKE_L3_IPV4;
	m->ip_off = (uint16_t)off;
	m->ip_end = (uint16_t)(off + tot);
	m->dsfield = ip[1];
	memcpy(m->tuple.src, v4mapped_prefix, sizeof(v4mapped_prefix));
	memcpy(m->tuple.src + 12, ip + 12, 4);
	memcpy(m->tuple.dst, v4mapped_prefix, sizeof(v4mapped_prefix));
	memcpy(m->tuple.dst + 12, ip + 16, 4);
	m->tuple.proto = ip[9];
	m->tuple.family = 4;

	frag = csum_get16(ip + 6);
	if (frag & (IPV4_FRAG_OFFSET | IPV4_FRAG_MF))
		m->flags |= CAKE_META_FRAG;
	if (frag & IPV4_FRAG_OFFSET)
		return PACKET_OK;
	if (ip[9] == PACKET_PROTO_IPV6 && !(frag & IPV4_FRAG_MF)) {
		/* 6in4: keys from the inner header, within the outer. */
		memset(&m->tuple, 0, sizeof(m->tuple));
		rc = packet_ipv6(d, off + tot, off + hlen, true, m);
		if (rc == PACKET_OK)
			m->flags |= CAKE_META_6IN4;
		return rc;
	}
	return packet_l4(d, off + hlen, off + tot, PACKET_PROTO_ICMP, m);
}

/* Turns a frame that did not parse into best-effort non-IP (file header). */
static void
packet_nonip(struct cake_pkt_meta *m, uint32_t net_off, enum packet_res rc)
{
	memset(m, 0, sizeof(*m));
	m->net_off = (uint16_t)net_off;
	m->ip_off = (uint16_t)net_off;
	if (rc == PACKET_TRUNC)
		m->flags = CAKE_META_TRUNCATED;
	else if (rc == PACKET_BAD)
		m->flags = CAKE_META_MALFORMED;
}

void
cake_parse(const uint8_t *data, uint32_t len, enum cake_link link,
    struct cake_pkt_meta *meta)
{
	enum packet_res	rc = PACKET_OK;
	uint32_t	off = 0;
	uint16_t	type = 0;

	memset(meta, 0, sizeof(*meta));
	if (link == CAKE_LINK_ETHERNET)
		rc = packet_link(data, len, &off, &type);
	else if (len == 0)
		rc = PACKET_TRUNC;
	else if (data[0] >> 4 == 4)
		type = ETHERTYPE_IPV4;
	else if (data[0] >> 4 == 6)
		type = ETHERTYPE_IPV6;
	else
		rc = PACKET_BAD;
	meta->net_off = (uint16_t)off;
	meta->ip_off = (uint16_t)off;
	if (rc != PACKET_OK) {
		packet_nonip(meta, off, rc);
		return;
	}
	switch (type) {
	case ETHERTYPE_IPV4:
		rc = packet_ipv4(data, len, off, meta);
		break;
	case ETHERTYPE_IPV6:
		rc = packet_ipv6(data, len, off, false, meta);
		break;
	case ETHERTYPE_ARP:
		if (len - off < PACKET_ARP_HLEN) {
			rc = PACKET_TRUNC;
			break;
		}
		meta->l3 = meta->inner_l3 = CAKE_L3_ARP;
		return;
	default:
		rc = PACKET_NONIP;
		break;
	}
	if (rc != PACKET_OK)
		packet_nonip(meta, off, rc);
}

unsigned int
packet_dscp(const struct cake_pkt_meta *m)
{
	if (m->l3 != CAKE_L3_IPV4 && m->l3 != CAKE_L3_IPV6)
		return 0;
	return m->dsfield >> 2;
}

bool
packet_is_ect(const struct cake_pkt_meta *m)
{
	if (m->l3 != CAKE_L3_IPV4 && m->l3 != CAKE_L3_IPV6)
		return false;
	return (m->dsfield & PACKET_ECN_MASK) != PACKET_ECN_NOT_ECT;
}

/*
 * The outer IP header of a parsed packet, or NULL if it is not IP or the
 * meta does not match the buffer (never write on a stale parse).
 */
static uint8_t *
packet_outer_ip(struct cake_pkt *pkt)
{
	const struct cake_pkt_meta *m = &pkt->meta;
	uint32_t	need;
	unsigned int	version;
	uint8_t		*ip;

	if (m->l3 == CAKE_L3_IPV4) {
		need = PACKET_IPV4_HLEN;
		version = 4;
	} else if (m->l3 == CAKE_L3_IPV6) {
		need = PACKET_IPV6_HLEN;
		version = 6;
	} else
		return NULL;
	if (pkt->data == NULL || pkt->len < need ||
	    m->net_off > pkt->len - need)
		return NULL;
	ip = pkt->data + m->net_off;
	return ip[0] >> 4 == version ? ip : NULL;
}

/* Reads the dsfield of the outer header ip. */
static uint8_t
packet_ds_read(const uint8_t *ip, uint8_t l3)
{
	if (l3 == CAKE_L3_IPV4)
		return ip[1];
	return (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
}

/* Writes the dsfield of the outer header ip and of the meta. */
static void
packet_ds_write(uint8_t *ip, struct cake_pkt_meta *m, uint8_t ds)
{
	uint16_t	old_word;

	if (m->l3 == CAKE_L3_IPV4) {
		old_word = csum_get16(ip);
		ip[1] = ds;
		csum_replace16(ip + 10, old_word, csum_get16(ip));
	} else {
		ip[0] = (uint8_t)((ip[0] & 0xf0) | ds >> 4);
		ip[1] = (uint8_t)((ip[1] & 0x0f) | (ds & 0x0f) << 4);
	}
	m->dsfield = ds;
}

bool
packet_set_ce(struct cake_pkt *pkt)
{
	uint8_t		*ip, ds;

	if ((ip = packet_outer_ip(pkt)) == NULL)
		return false;
	ds = packet_ds_read(ip, pkt->meta.l3);
	switch (ds & PACKET_ECN_MASK) {
	case PACKET_ECN_NOT_ECT:
		return false;
	case PACKET_ECN_CE:
		pkt->meta.dsfield = ds;
		return true;
	default:
		packet_ds_write(ip, &pkt->meta, ds | PACKET_ECN_CE);
		return true;
	}
}

void
packet_wash(struct cake_pkt *pkt)
{
	uint8_t		*ip, ds;

	if ((ip = packet_outer_ip(pkt)) == NULL)
		return;
	ds = packet_ds_read(ip, pkt->meta.l3);
	if ((ds & ~PACKET_ECN_MASK) == 0)
		return;
	packet_ds_write(ip, &pkt->meta, ds & PACKET_ECN_MASK);
}
