/*
 * test_packet.c: cake_parse() and the packet_* header rewrites.
 *
 * Frames are built by hand with the small fb_* builders below. Each entry
 * of the case table is run twice: once whole (every meta field checked)
 * and once cut at every length 0..full, in a heap buffer of exactly that
 * size, so that an ASan build (configure --enable-sanitizers) proves the
 * parser reads nothing outside the frame. ECN and wash results are
 * verified with a checksum written here, independent of engine/csum.c.
 *
 * Over 800 lines on purpose: the case table and the frame builders it
 * names read best side by side in one file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/packet.h"

#define FB_MAX		512

struct fb {
	uint8_t		b[FB_MAX];
	size_t		len;
};

static const uint8_t v4_src[4] = { 192, 0, 2, 1 };
static const uint8_t v4_dst[4] = { 198, 51, 100, 2 };
static const uint8_t v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* ---- frame builders ------------------------------------------------- */

static void
fb_u8(struct fb *f, uint8_t v)
{
	assert_true(f->len < FB_MAX);
	f->b[f->len++] = v;
}

static void
fb_u16(struct fb *f, uint16_t v)
{
	fb_u8(f, (uint8_t)(v >> 8));
	fb_u8(f, (uint8_t)v);
}

static void
fb_fill(struct fb *f, size_t n, uint8_t v)
{
	while (n-- > 0)
		fb_u8(f, v);
}

static void
fb_bytes(struct fb *f, const uint8_t *p, size_t n)
{
	while (n-- > 0)
		fb_u8(f, *p++);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
fb_eth(struct fb *f, uint16_t type)
{
	static const uint8_t macs[12] = {
		2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2
	};

	fb_bytes(f, macs, sizeof(macs));
	fb_u16(f, type);
}

static void
fb_tag(struct fb *f, uint16_t vid, uint16_t next_type)
{
	fb_u16(f, vid);
	fb_u16(f, next_type);
}

static void
fb_pppoe(struct fb *f, uint8_t ver_type, uint16_t ppp)
{
	fb_u8(f, ver_type);
	fb_u8(f, 0);		/* code: session data */
	fb_u16(f, 0x1234);	/* session id */
	fb_u16(f, 0);		/* length, not used by the parser */
	fb_u16(f, ppp);
}

/* Independent RFC 1071 sum, folded but not complemented. */
static uint16_t
ref_sum(const uint8_t *p, size_t n)
{
	uint32_t	s = 0;
	size_t		i;

	for (i = 0; i < n; i += 2)
		s += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static bool
ipv4_csum_ok(const uint8_t *ip)
{
	return ref_sum(ip, (size_t)(ip[0] & 0x0f) * 4) == 0xffff;
}

/* IPv4 header with opt_words words of NOP options; returns its offset. */
static size_t
fb_ipv4(struct fb *f, uint8_t tos, uint8_t proto, uint16_t frag,
    unsigned int opt_words)
{
	size_t	ip = f->len;

	fb_u8(f, (uint8_t)(0x40 | (5 + opt_words)));
	fb_u8(f, tos);
	fb_u16(f, 0);		/* total length, set by fb_ipv4_done() */
	fb_u16(f, 0x1234);
	fb_u16(f, frag);
	fb_u8(f, 64);
	fb_u8(f, proto);
	fb_u16(f, 0);
	fb_bytes(f, v4_src, 4);
	fb_bytes(f, v4_dst, 4);
	fb_fill(f, opt_words * 4, 0x01);
	return ip;
}

static void
fb_ipv4_done(struct fb *f, size_t ip)
{
	uint8_t	*h = f->b + ip;

	put16(h + 2, (uint16_t)(f->len - ip));
	put16(h + 10, 0);
	put16(h + 10, (uint16_t)~ref_sum(h, (size_t)(h[0] & 0x0f) * 4));
	assert_true(ipv4_csum_ok(h));
}

static size_t
fb_ipv6(struct fb *f, uint8_t tc, uint8_t nh)
{
	size_t	ip = f->len;

	fb_u8(f, (uint8_t)(0x60 | tc >> 4));
	/* Flow label 0xabcde. */
	fb_u8(f, (uint8_t)((tc & 0x0f) << 4 | 0x0a));
	fb_u16(f, 0xbcde);
	fb_u16(f, 0);		/* payload length, set by fb_ipv6_done() */
	fb_u8(f, nh);
	fb_u8(f, 64);
	fb_bytes(f, v6_src, 16);
	fb_bytes(f, v6_dst, 16);
	return ip;
}

static void
fb_ipv6_done(struct fb *f, size_t ip)
{
	put16(f->b + ip + 4, (uint16_t)(f->len - ip - 40));
}

/* Hop-by-hop, routing or destination options: (len8 + 1) * 8 bytes. */
static void
fb_ext(struct fb *f, uint8_t nh, uint8_t len8)
{
	fb_u8(f, nh);
	fb_u8(f, len8);
	fb_fill(f, ((size_t)len8 + 1) * 8 - 2, 0);
}

static void
fb_ah(struct fb *f, uint8_t nh, uint8_t len4)
{
	fb_u8(f, nh);
	fb_u8(f, len4);
	fb_fill(f, ((size_t)len4 + 2) * 4 - 2, 0x77);
}

static void
fb_frag6(struct fb *f, uint8_t nh, uint16_t off8, bool more)
{
	fb_u8(f, nh);
	fb_u8(f, 0);
	fb_u16(f, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
	fb_fill(f, 4, 0x99);
}

static void
fb_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint8_t flags,
    unsigned int opt_words)
{
	fb_u16(f, sport);
	fb_u16(f, dport);
	fb_fill(f, 8, 0x11);	/* seq, ack */
	fb_u8(f, (uint8_t)((5 + opt_words) << 4));
	fb_u8(f, flags);
	fb_u16(f, 0xffff);	/* window */
	fb_fill(f, 4, 0);	/* checksum, urgent */
	fb_fill(f, opt_words * 4, 0x01);
}

static void
fb_udp(struct fb *f, uint16_t sport, uint16_t dport, size_t payload)
{
	fb_u16(f, sport);
	fb_u16(f, dport);
	fb_u16(f, (uint16_t)(8 + payload));
	fb_u16(f, 0);
	fb_fill(f, payload, 0x5a);
}

static void
fb_icmp(struct fb *f, uint8_t type, size_t payload)
{
	fb_u8(f, type);
	fb_u8(f, 0);
	fb_fill(f, 6, 0);	/* checksum, id, sequence */
	fb_fill(f, payload, 0x5a);
}

/* ---- the frames of the case table ------------------------------------ */

/* Ethernet + IPv4 (tos) + UDP, the base several cases patch. */
static size_t
mk_eth_v4_udp(struct fb *f, uint8_t tos, size_t payload)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, tos, 17, 0, 0);
	fb_udp(f, 5353, 53, payload);
	fb_ipv4_done(f, ip);
	return ip;
}

static void
b_eth_v4_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0xba, 6, 0, 0);
	fb_tcp(f, 40000, 443, PACKET_TCP_ACK | PACKET_TCP_PSH, 0);
	fb_fill(f, 10, 0x5a);
	fb_ipv4_done(f, ip);
}

static void
b_eth_v4_udp(struct fb *f)
{
	mk_eth_v4_udp(f, 0, 4);
}

static void
b_eth_v4_icmp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 1, 0, 0);
	fb_icmp(f, 8, 8);
	fb_ipv4_done(f, ip);
}

static void
b_eth_v4_options_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 6, 0, 3);
	fb_tcp(f, 1025, 25, PACKET_TCP_SYN, 3);
	fb_ipv4_done(f, ip);
}

static void
b_eth_v4_padded(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 17, 0, 0);
	fb_udp(f, 1000, 2000, 2);
	fb_ipv4_done(f, ip);
	fb_fill(f, 60 - f->len, 0);
}

static void
b_vlan_v4_udp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x8100);
	fb_tag(f, 10, 0x0800);
	ip = fb_ipv4(f, 0x20, 17, 0, 0);
	fb_udp(f, 1111, 2222, 0);
	fb_ipv4_done(f, ip);
}

static void
b_qinq_v6_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x88a8);
	fb_tag(f, 100, 0x8100);
	fb_tag(f, 10, 0x86dd);
	ip = fb_ipv6(f, 0x01, 6);
	fb_tcp(f, 22, 50000, PACKET_TCP_ACK, 0);
	fb_fill(f, 5, 0x5a);
	fb_ipv6_done(f, ip);
}

/* Ethernet with ntags stacked tags, then IPv4 + UDP. */
static void
mk_tags_v4_udp(struct fb *f, unsigned int ntags)
{
	unsigned int	i;
	size_t		ip;

	fb_eth(f, 0x8100);
	for (i = 0; i < ntags; i++)
		fb_tag(f, (uint16_t)(i + 1), i + 1 < ntags ?
		    (i % 2 ? 0x8100 : 0x88a8) : 0x0800);
	ip = fb_ipv4(f, 0, 17, 0, 0);
	fb_udp(f, 3000, 4000, 0);
	fb_ipv4_done(f, ip);
}

static void
b_four_tags(struct fb *f)
{
	mk_tags_v4_udp(f, 4);
}

static void
b_five_tags(struct fb *f)
{
	mk_tags_v4_udp(f, 5);
}

static void
b_pppoe_v4_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x8864);
	fb_pppoe(f, 0x11, 0x0021);
	ip = fb_ipv4(f, 0, 6, 0, 0);
	fb_tcp(f, 1234, 80, PACKET_TCP_SYN | PACKET_TCP_ACK, 0);
	fb_ipv4_done(f, ip);
}

static void
b_vlan_pppoe_v6_udp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x8100);
	fb_tag(f, 7, 0x8864);
	fb_pppoe(f, 0x11, 0x0057);
	ip = fb_ipv6(f, 0, 17);
	fb_udp(f, 546, 547, 3);
	fb_ipv6_done(f, ip);
}

static void
b_pppoe_lcp(struct fb *f)
{
	fb_eth(f, 0x8864);
	fb_pppoe(f, 0x11, 0xc021);
	fb_fill(f, 10, 0x01);
}

static void
b_pppoe_bad_version(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x8864);
	fb_pppoe(f, 0x12, 0x0021);
	ip = fb_ipv4(f, 0, 17, 0, 0);
	fb_udp(f, 1, 2, 0);
	fb_ipv4_done(f, ip);
}

static void
b_arp(struct fb *f)
{
	fb_eth(f, 0x0806);
	fb_u16(f, 1);		/* Ethernet */
	fb_u16(f, 0x0800);
	fb_u8(f, 6);
	fb_u8(f, 4);
	fb_u16(f, 1);		/* request */
	fb_fill(f, 20, 0x42);
}

static void
b_lldp(struct fb *f)
{
	fb_eth(f, 0x88cc);
	fb_fill(f, 20, 0x02);
}

static void
b_eth_v6_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0xb8, 6);
	fb_tcp(f, 443, 40000, PACKET_TCP_ACK | PACKET_TCP_FIN, 0);
	fb_ipv6_done(f, ip);
}

static void
b_v6_ext_chain_udp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 0);
	fb_ext(f, 43, 0);	/* hop-by-hop, 8 bytes */
	fb_ext(f, 60, 2);	/* routing, 24 bytes */
	fb_ext(f, 17, 0);	/* destination options, 8 bytes */
	fb_udp(f, 1, 2, 0);
	fb_ipv6_done(f, ip);
}

static void
b_v6_ah_tcp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 51);
	fb_ah(f, 6, 4);		/* (4 + 2) * 4 = 24 bytes */
	fb_tcp(f, 500, 4500, PACKET_TCP_ACK, 0);
	fb_ipv6_done(f, ip);
}

static void
b_v6_first_frag(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 44);
	fb_frag6(f, 17, 0, true);
	fb_udp(f, 7, 9, 16);
	fb_ipv6_done(f, ip);
}

static void
b_v6_later_frag(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 44);
	fb_frag6(f, 17, 185, false);
	fb_fill(f, 16, 0x5a);
	fb_ipv6_done(f, ip);
}

static void
b_v6_esp(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 50);
	fb_fill(f, 24, 0x5a);
	fb_ipv6_done(f, ip);
}

static void
b_v6_no_next(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 59);
	fb_ipv6_done(f, ip);
}

/* IPv6 with n destination-options headers, then UDP. */
static size_t
mk_v6_dstopts(struct fb *f, unsigned int n)
{
	unsigned int	i;
	size_t		ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 60);
	for (i = 0; i < n; i++)
		fb_ext(f, i + 1 < n ? 60 : 17, 0);
	fb_udp(f, 11, 12, 0);
	fb_ipv6_done(f, ip);
	return ip;
}

static void
b_v6_eight_ext(struct fb *f)
{
	mk_v6_dstopts(f, 8);
}

static void
b_v6_nine_ext(struct fb *f)
{
	mk_v6_dstopts(f, 9);
}

static void
b_v6_ext_runs_off(struct fb *f)
{
	size_t	ip = mk_v6_dstopts(f, 1);

	f->b[ip + 40 + 1] = 255;	/* announces 2048 bytes */
}

static void
b_v6_hop_not_first(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 60);
	fb_ext(f, 0, 0);
	fb_ext(f, 17, 0);
	fb_udp(f, 1, 2, 0);
	fb_ipv6_done(f, ip);
}

static void
b_v6_plen_lies(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x86dd);
	ip = fb_ipv6(f, 0, 17);
	fb_udp(f, 1, 2, 4);
	fb_ipv6_done(f, ip);
	put16(f->b + ip + 4, 13);
}

static void
b_v4_first_frag(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 17, 0x2000, 0);
	fb_udp(f, 5000, 6000, 8);
	fb_ipv4_done(f, ip);
}

static void
b_v4_later_frag(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 17, 100, 0);
	fb_fill(f, 16, 0x5a);
	fb_ipv4_done(f, ip);
}

static void
b_v4_gre(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 47, 0, 0);
	fb_fill(f, 8, 0);
	fb_ipv4_done(f, ip);
}

/* Ethernet + IPv4 (tos 0x28, frag) + IPv6 (tc 0xb8) + TCP. */
static size_t
mk_6in4(struct fb *f, uint16_t frag)
{
	size_t	ip4, ip6;

	fb_eth(f, 0x0800);
	ip4 = fb_ipv4(f, 0x28, 41, frag, 0);
	ip6 = fb_ipv6(f, 0xb8, 6);
	fb_tcp(f, 443, 50000, PACKET_TCP_ACK, 0);
	fb_fill(f, 4, 0x5a);
	fb_ipv6_done(f, ip6);
	fb_ipv4_done(f, ip4);
	return ip6;
}

static void
b_6in4_tcp(struct fb *f)
{
	mk_6in4(f, 0);
}

static void
b_6in4_first_frag(struct fb *f)
{
	mk_6in4(f, 0x2000);
}

static void
b_6in4_inner_lies(struct fb *f)
{
	size_t	ip6 = mk_6in4(f, 0);

	put16(f->b + ip6 + 4, 25);	/* 1 byte more than the outer holds */
}

static void
b_6in4_inner_v4(struct fb *f)
{
	size_t	ip6 = mk_6in4(f, 0);

	f->b[ip6] = 0x45;
}

static void
b_tun_v4_udp(struct fb *f)
{
	size_t	ip;

	ip = fb_ipv4(f, 0x04, 17, 0, 0);
	fb_udp(f, 53, 33333, 20);
	fb_ipv4_done(f, ip);
}

static void
b_tun_v6_icmpv6(struct fb *f)
{
	size_t	ip;

	ip = fb_ipv6(f, 0, 58);
	fb_icmp(f, 128, 4);
	fb_ipv6_done(f, ip);
}

static void
b_tun_bad_version(struct fb *f)
{
	fb_u8(f, 0x55);
	fb_fill(f, 27, 0);
}

static void
b_v4_ihl4(struct fb *f)
{
	size_t	ip = mk_eth_v4_udp(f, 0, 4);

	f->b[ip] = 0x44;
}

static void
b_v4_total_lies(struct fb *f)
{
	size_t	ip = mk_eth_v4_udp(f, 0, 4);

	put16(f->b + ip + 2, (uint16_t)(f->len - ip + 1));
}

static void
b_v4_total_below_ihl(struct fb *f)
{
	size_t	ip = mk_eth_v4_udp(f, 0, 4);

	put16(f->b + ip + 2, 19);
}

static void
b_ethertype_v4_version6(struct fb *f)
{
	size_t	ip = mk_eth_v4_udp(f, 0, 4);

	f->b[ip] = 0x65;
}

static void
b_tcp_doff4(struct fb *f)
{
	b_eth_v4_tcp(f);
	f->b[34 + 12] = 0x40;
}

static void
b_tcp_doff_past_end(struct fb *f)
{
	b_eth_v4_tcp(f);
	f->b[34 + 12] = 0xf0;		/* 60 bytes, 30 in the packet */
}

static void
b_udp_cut(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 17, 0, 0);
	fb_fill(f, 4, 0);
	fb_ipv4_done(f, ip);
	fb_fill(f, 60 - f->len, 0);	/* the bytes exist, as padding */
}

static void
b_icmp_cut(struct fb *f)
{
	size_t	ip;

	fb_eth(f, 0x0800);
	ip = fb_ipv4(f, 0, 1, 0, 0);
	fb_fill(f, 3, 0);
	fb_ipv4_done(f, ip);
}

/* ---- the case table ------------------------------------------------- */

#define L_NONE	CAKE_L3_NONE
#define L_ARP	CAKE_L3_ARP
#define L_V4	CAKE_L3_IPV4
#define L_V6	CAKE_L3_IPV6
#define F_FRAG	CAKE_META_FRAG
#define F_6IN4	CAKE_META_6IN4
#define F_BAD	CAKE_META_MALFORMED
#define F_TRUNC	CAKE_META_TRUNCATED

struct pcase {
	const char	*name;
	void		(*build)(struct fb *);
	enum cake_link	link;
	uint8_t		l3, inner_l3, flags;
	uint16_t	net_off, ip_off, l4_off, l4_len, ip_end;
	uint8_t		dsfield, proto, family;
	uint16_t	sport, dport;
	uint8_t		tcp_flags, tcp_hdr_len;
};

#define ETH	CAKE_LINK_ETHERNET
#define TUN	CAKE_LINK_IP

static const struct pcase cases[] = {
	/* name, build, link, l3, inner, flags,
	 * net, ip, l4, l4_len, ip_end, ds, proto, fam, sport, dport,
	 * tcp_flags, tcp_hdr_len */
	{ "eth_ipv4_tcp", b_eth_v4_tcp, ETH, L_V4, L_V4, 0,
	    14, 14, 34, 30, 64, 0xba, 6, 4, 40000, 443, 0x18, 20 },
	{ "eth_ipv4_udp", b_eth_v4_udp, ETH, L_V4, L_V4, 0,
	    14, 14, 34, 12, 46, 0, 17, 4, 5353, 53, 0, 0 },
	{ "eth_ipv4_icmp_no_ports", b_eth_v4_icmp, ETH, L_V4, L_V4, 0,
	    14, 14, 34, 16, 50, 0, 1, 4, 0, 0, 0, 0 },
	{ "ipv4_options_and_tcp_options_skipped", b_eth_v4_options_tcp, ETH,
	    L_V4, L_V4, 0, 14, 14, 46, 32, 78, 0, 6, 4, 1025, 25, 0x02, 32 },
	{ "ethernet_padding_trimmed_by_ip_end", b_eth_v4_padded, ETH,
	    L_V4, L_V4, 0, 14, 14, 34, 10, 44, 0, 17, 4, 1000, 2000, 0, 0 },
	{ "vlan_ipv4_udp", b_vlan_v4_udp, ETH, L_V4, L_V4, 0,
	    18, 18, 38, 8, 46, 0x20, 17, 4, 1111, 2222, 0, 0 },
	{ "qinq_ipv6_tcp", b_qinq_v6_tcp, ETH, L_V6, L_V6, 0,
	    22, 22, 62, 25, 87, 0x01, 6, 6, 22, 50000, 0x10, 20 },
	{ "four_stacked_tags_accepted", b_four_tags, ETH, L_V4, L_V4, 0,
	    30, 30, 50, 8, 58, 0, 17, 4, 3000, 4000, 0, 0 },
	{ "fifth_tag_is_non_ip", b_five_tags, ETH, L_NONE, L_NONE, 0,
	    30, 30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "pppoe_ipv4_tcp", b_pppoe_v4_tcp, ETH, L_V4, L_V4, 0,
	    22, 22, 42, 20, 62, 0, 6, 4, 1234, 80, 0x12, 20 },
	{ "vlan_pppoe_ipv6_udp", b_vlan_pppoe_v6_udp, ETH, L_V6, L_V6, 0,
	    26, 26, 66, 11, 77, 0, 17, 6, 546, 547, 0, 0 },
	{ "pppoe_lcp_is_non_ip", b_pppoe_lcp, ETH, L_NONE, L_NONE, 0,
	    22, 22, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "pppoe_bad_version_is_non_ip", b_pppoe_bad_version, ETH,
	    L_NONE, L_NONE, 0, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "arp", b_arp, ETH, L_ARP, L_ARP, 0,
	    14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "unknown_ethertype_is_non_ip", b_lldp, ETH, L_NONE, L_NONE, 0,
	    14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "eth_ipv6_tcp", b_eth_v6_tcp, ETH, L_V6, L_V6, 0,
	    14, 14, 54, 20, 74, 0xb8, 6, 6, 443, 40000, 0x11, 20 },
	{ "ipv6_hop_routing_dstopts_udp", b_v6_ext_chain_udp, ETH, L_V6, L_V6,
	    0, 14, 14, 94, 8, 102, 0, 17, 6, 1, 2, 0, 0 },
	{ "ipv6_ah_sized_in_32bit_words", b_v6_ah_tcp, ETH, L_V6, L_V6, 0,
	    14, 14, 78, 20, 98, 0, 6, 6, 500, 4500, 0x10, 20 },
	{ "ipv6_first_fragment_has_ports", b_v6_first_frag, ETH, L_V6, L_V6,
	    F_FRAG, 14, 14, 62, 24, 86, 0, 17, 6, 7, 9, 0, 0 },
	{ "ipv6_later_fragment_no_ports", b_v6_later_frag, ETH, L_V6, L_V6,
	    F_FRAG, 14, 14, 0, 0, 78, 0, 17, 6, 0, 0, 0, 0 },
	{ "ipv6_esp_stops_walk", b_v6_esp, ETH, L_V6, L_V6, 0,
	    14, 14, 0, 0, 78, 0, 50, 6, 0, 0, 0, 0 },
	{ "ipv6_no_next_header", b_v6_no_next, ETH, L_V6, L_V6, 0,
	    14, 14, 0, 0, 54, 0, 59, 6, 0, 0, 0, 0 },
	{ "ipv6_eight_ext_headers_accepted", b_v6_eight_ext, ETH, L_V6, L_V6,
	    0, 14, 14, 118, 8, 126, 0, 17, 6, 11, 12, 0, 0 },
	{ "ipv4_first_fragment_has_ports", b_v4_first_frag, ETH, L_V4, L_V4,
	    F_FRAG, 14, 14, 34, 16, 50, 0, 17, 4, 5000, 6000, 0, 0 },
	{ "ipv4_later_fragment_no_ports", b_v4_later_frag, ETH, L_V4, L_V4,
	    F_FRAG, 14, 14, 0, 0, 50, 0, 17, 4, 0, 0, 0, 0 },
	{ "ipv4_other_protocol_number_only", b_v4_gre, ETH, L_V4, L_V4, 0,
	    14, 14, 0, 0, 42, 0, 47, 4, 0, 0, 0, 0 },
	{ "6in4_inner_keys_outer_dsfield", b_6in4_tcp, ETH, L_V4, L_V6,
	    F_6IN4, 14, 34, 74, 24, 98, 0x28, 6, 6, 443, 50000, 0x10, 20 },
	{ "6in4_fragment_not_decapsulated", b_6in4_first_frag, ETH,
	    L_V4, L_V4, F_FRAG, 14, 14, 0, 0, 98, 0x28, 41, 4, 0, 0, 0, 0 },
	{ "tun_ipv4_udp", b_tun_v4_udp, TUN, L_V4, L_V4, 0,
	    0, 0, 20, 28, 48, 0x04, 17, 4, 53, 33333, 0, 0 },
	{ "tun_ipv6_icmpv6", b_tun_v6_icmpv6, TUN, L_V6, L_V6, 0,
	    0, 0, 40, 12, 52, 0, 58, 6, 0, 0, 0, 0 },
	/* Malformed and truncated: best-effort non-IP with a flag. */
	{ "tun_bad_version_malformed", b_tun_bad_version, TUN,
	    L_NONE, L_NONE, F_BAD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv4_ihl_below_5_malformed", b_v4_ihl4, ETH, L_NONE, L_NONE, F_BAD,
	    14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv4_total_length_past_frame_truncated", b_v4_total_lies, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv4_total_length_below_ihl_malformed", b_v4_total_below_ihl, ETH,
	    L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ethertype_ipv4_with_version_6_malformed", b_ethertype_v4_version6,
	    ETH, L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "tcp_data_offset_below_5_malformed", b_tcp_doff4, ETH,
	    L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "tcp_header_past_ip_end_truncated", b_tcp_doff_past_end, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "udp_header_cut_by_ip_length_truncated", b_udp_cut, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "icmp_below_4_bytes_truncated", b_icmp_cut, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv6_nine_ext_headers_malformed", b_v6_nine_ext, ETH,
	    L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv6_hop_by_hop_not_first_malformed", b_v6_hop_not_first, ETH,
	    L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv6_ext_header_runs_off_end_truncated", b_v6_ext_runs_off, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ipv6_payload_length_past_frame_truncated", b_v6_plen_lies, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "6in4_inner_length_past_outer_truncated", b_6in4_inner_lies, ETH,
	    L_NONE, L_NONE, F_TRUNC, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "6in4_inner_bad_version_malformed", b_6in4_inner_v4, ETH,
	    L_NONE, L_NONE, F_BAD, 14, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* ---- checks ----------------------------------------------------------- */

/* Parses len bytes of src from a heap copy of exactly len bytes. */
static void
parse_exact(const uint8_t *src, uint32_t len, enum cake_link link,
    struct cake_pkt_meta *m)
{
	uint8_t	*buf = malloc((size_t)len + 1);

	assert_non_null(buf);
	/* Data end at the end of the allocation, so ASan sees any overrun. */
	memcpy(buf + 1, src, len);
	memset(m, 0xa5, sizeof(*m));	/* no old data may survive */
	cake_parse(buf + 1, len, link, m);
	free(buf);
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t	*b = p;

	while (n-- > 0)
		if (*b++ != 0)
			return false;
	return true;
}

/* What holds for any parse result of a frame of len bytes. */
static void
check_sane(const struct cake_pkt_meta *m, uint32_t len)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	assert_true(m->net_off <= len);
	if (m->l3 == CAKE_L3_NONE || m->l3 == CAKE_L3_ARP) {
		assert_int_equal(m->inner_l3, m->l3);
		assert_int_equal(m->ip_off, m->net_off);
		assert_int_equal(m->ip_end, 0);
		assert_int_equal(m->l4_off, 0);
		assert_int_equal(m->l4_len, 0);
		assert_int_equal(m->dsfield, 0);
		assert_int_equal(m->tcp_flags, 0);
		assert_int_equal(m->tcp_hdr_len, 0);
		assert_true(all_zero(&m->tuple, sizeof(m->tuple)));
		assert_true(m->flags == 0 || m->flags == F_BAD ||
		    m->flags == F_TRUNC);
		if (m->l3 == CAKE_L3_ARP)
			assert_int_equal(m->flags, 0);
		return;
	}
	assert_true(m->l3 == CAKE_L3_IPV4 || m->l3 == CAKE_L3_IPV6);
	assert_int_equal(m->flags & (F_BAD | F_TRUNC), 0);
	assert_true(m->ip_end <= len);
	assert_true(m->net_off < m->ip_end);
	assert_true(m->ip_off >= m->net_off && m->ip_off < m->ip_end);
	if (m->l4_off != 0) {
		assert_true(m->l4_off > m->ip_off);
		assert_true(m->l4_off + m->l4_len <= m->ip_end);
	} else
		assert_int_equal(m->l4_len, 0);
	if (m->tuple.family == 4) {
		assert_int_equal(m->inner_l3, CAKE_L3_IPV4);
		assert_memory_equal(m->tuple.src, v4map, 12);
		assert_memory_equal(m->tuple.dst, v4map, 12);
	} else {
		assert_int_equal(m->tuple.family, 6);
		assert_int_equal(m->inner_l3, CAKE_L3_IPV6);
	}
	assert_int_equal((m->flags & F_6IN4) != 0, m->inner_l3 != m->l3);
}

static void
check_case(const struct pcase *c, const struct cake_pkt_meta *m,
    uint32_t len)
{
	uint8_t	v4mapped[16] = { [10] = 0xff, [11] = 0xff };

	check_sane(m, len);
	assert_int_equal(m->l3, c->l3);
	assert_int_equal(m->inner_l3, c->inner_l3);
	assert_int_equal(m->flags, c->flags);
	assert_int_equal(m->net_off, c->net_off);
	assert_int_equal(m->ip_off, c->ip_off);
	assert_int_equal(m->l4_off, c->l4_off);
	assert_int_equal(m->l4_len, c->l4_len);
	assert_int_equal(m->ip_end, c->ip_end);
	assert_int_equal(m->dsfield, c->dsfield);
	assert_int_equal(m->tuple.proto, c->proto);
	assert_int_equal(m->tuple.family, c->family);
	assert_int_equal(m->tuple.sport, c->sport);
	assert_int_equal(m->tuple.dport, c->dport);
	assert_int_equal(m->tcp_flags, c->tcp_flags);
	assert_int_equal(m->tcp_hdr_len, c->tcp_hdr_len);
	if (c->family == 4) {
		memcpy(v4mapped + 12, v4_src, 4);
		assert_memory_equal(m->tuple.src, v4mapped, 16);
		memcpy(v4mapped + 12, v4_dst, 4);
		assert_memory_equal(m->tuple.dst, v4mapped, 16);
	} else if (c->family == 6) {
		assert_memory_equal(m->tuple.src, v6_src, 16);
		assert_memory_equal(m->tuple.dst, v6_dst, 16);
	}
}

/* A whole frame parses to exactly the table's meta. */
static void
test_case_whole(void **state)
{
	const struct pcase	*c = *state;
	struct cake_pkt_meta	 m;
	struct fb		 f = { .len = 0 };

	c->build(&f);
	parse_exact(f.b, (uint32_t)f.len, c->link, &m);
	check_case(c, &m, (uint32_t)f.len);
}

/*
 * Every prefix of the frame: either the whole frame's result (only once
 * the IP packet is complete) or truncated non-IP; never a read outside.
 */
static void
test_case_every_length(void **state)
{
	const struct pcase	*c = *state;
	struct cake_pkt_meta	 whole, m;
	struct fb		 f = { .len = 0 };
	uint32_t		 len;

	c->build(&f);
	parse_exact(f.b, (uint32_t)f.len, c->link, &whole);
	for (len = 0; len < f.len; len++) {
		parse_exact(f.b, len, c->link, &m);
		check_sane(&m, len);
		if (c->l3 == L_V4 || c->l3 == L_V6) {
			if (len >= whole.ip_end) {
				assert_memory_equal(&m, &whole, sizeof(m));
				continue;
			}
		} else if (memcmp(&m, &whole, sizeof(m)) == 0)
			continue;
		assert_int_equal(m.l3, CAKE_L3_NONE);
		assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	}
}

/* ---- targeted parser tests -------------------------------------------- */

static void
test_empty_frames_truncated(void **state)
{
	struct cake_pkt_meta	m;
	uint8_t			b[1] = { 0x45 };

	(void)state;
	cake_parse(b, 0, CAKE_LINK_ETHERNET, &m);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	assert_int_equal(m.net_off, 0);
	cake_parse(b, 0, CAKE_LINK_IP, &m);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
	cake_parse(b, 1, CAKE_LINK_IP, &m);
	assert_int_equal(m.l3, CAKE_L3_NONE);
	assert_int_equal(m.flags, CAKE_META_TRUNCATED);
}

/* An IP packet whose end lies past 65535 cannot be described: malformed. */
static void
test_ip_end_beyond_16_bits_malformed(void **state)
{
	struct cake_pkt_meta	m;
	uint32_t		len = 14 + 65535;
	uint8_t			*b = calloc(1, len);
	struct fb		f = { .len = 0 };
	size_t			ip;

	(void)state;
	assert_non_null(b);
	fb_eth(&f, 0x0800);
	ip = fb_ipv4(&f, 0, 17, 0, 0);
	fb_udp(&f, 1, 2, 0);
	memcpy(b, f.b, f.len);
	put16(b + ip + 2, 65535);
	cake_parse(b, len, CAKE_LINK_ETHERNET, &m);
	assert_int_equal(m.l3, CAKE_L3_NONE);
	assert_int_equal(m.flags, CAKE_META_MALFORMED);
	/* The same packet on TUN fits (ip_end 65535). */
	cake_parse(b + 14, 65535, CAKE_LINK_IP, &m);
	assert_int_equal(m.l3, CAKE_L3_IPV4);
	assert_int_equal(m.ip_end, 65535);
	assert_int_equal(m.l4_len, 65535 - 20);
	free(b);
}

/*
 * Every single-byte mutation of every valid frame (three values per
 * byte) parses to a sane result and stays inside the buffer.
 */
static void
test_mutations_stay_sane(void **state)
{
	static const uint8_t	vals[] = { 0x00, 0xff, 0x3c };
	struct cake_pkt_meta	m;
	struct fb		f;
	size_t			i, pos, v;

	(void)state;
	for (i = 0; i < NCASES; i++) {
		f.len = 0;
		cases[i].build(&f);
		for (pos = 0; pos < f.len; pos++) {
			for (v = 0; v < sizeof(vals); v++) {
				struct fb	g = f;

				g.b[pos] = vals[v];
				parse_exact(g.b, (uint32_t)g.len,
				    cases[i].link, &m);
				check_sane(&m, (uint32_t)g.len);
			}
		}
	}
}

/* ---- ECN and wash ---------------------------------------------------- */

static void
pkt_from(struct cake_pkt *p, struct fb *f, enum cake_link link)
{
	memset(p, 0, sizeof(*p));
	p->data = f->b;
	p->len = (uint32_t)f->len;
	p->cap = FB_MAX;
	cake_parse(p->data, p->len, link, &p->meta);
	p->meta_valid = true;
}

/* Every TOS value: CE only on ECT, DSCP kept, checksum still valid. */
static void
test_set_ce_ipv4_every_tos(void **state)
{
	struct cake_pkt		p;
	struct cake_pkt_meta	re;
	struct fb		f, orig;
	unsigned int		tos, ecn;
	bool			marked;

	(void)state;
	for (tos = 0; tos < 256; tos++) {
		f.len = 0;
		mk_eth_v4_udp(&f, (uint8_t)tos, 4);
		orig = f;
		pkt_from(&p, &f, CAKE_LINK_ETHERNET);
		ecn = tos & 3;
		marked = packet_set_ce(&p);
		assert_int_equal(marked, ecn != 0);
		if (ecn == 0 || ecn == 3) {
			/* Not-ECT untouched; CE already: counts, no rewrite. */
			assert_memory_equal(f.b, orig.b, f.len);
			continue;
		}
		assert_int_equal(f.b[15], tos | 3);
		assert_true(ipv4_csum_ok(f.b + 14));
		assert_int_equal(p.meta.dsfield, tos | 3);
		/* Only the TOS byte and the header checksum change. */
		assert_memory_equal(f.b, orig.b, 15);
		assert_memory_equal(f.b + 16, orig.b + 16, 8);
		assert_memory_equal(f.b + 26, orig.b + 26, f.len - 26);
		cake_parse(f.b, (uint32_t)f.len, CAKE_LINK_ETHERNET, &re);
		assert_int_equal(re.dsfield, tos | 3);
	}
}

/* IPv6: the ECN bits straddle bytes 0/1; version and flow label survive. */
static void
test_set_ce_ipv6_keeps_flow_label(void **state)
{
	static const uint8_t	tcs[] = { 0x01, 0x02, 0xba, 0xfd, 0x03 };
	struct cake_pkt		p;
	struct fb		f;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(tcs); i++) {
		f.len = 0;
		fb_ipv6(&f, tcs[i], 59);
		fb_ipv6_done(&f, 0);
		pkt_from(&p, &f, CAKE_LINK_IP);
		assert_true(packet_set_ce(&p));
		assert_int_equal(f.b[0], 0x60 | tcs[i] >> 4);
		assert_int_equal(f.b[1], ((tcs[i] | 3) & 0x0f) << 4 | 0x0a);
		assert_int_equal(f.b[2], 0xbc);
		assert_int_equal(f.b[3], 0xde);
		assert_int_equal(p.meta.dsfield, tcs[i] | 3);
	}
}

static void
test_set_ce_not_ect_ipv6_untouched(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	b_eth_v6_tcp(&f);	/* tc 0xb8: EF, Not-ECT */
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_is_ect(&p.meta));
	assert_false(packet_set_ce(&p));
	assert_memory_equal(f.b, orig.b, f.len);
	assert_int_equal(p.meta.dsfield, 0xb8);
}

/* VLAN-tagged IPv4: the header at net_off 18 is the one marked. */
static void
test_set_ce_behind_vlan_tag(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };
	size_t			ip;

	(void)state;
	fb_eth(&f, 0x8100);
	fb_tag(&f, 10, 0x0800);
	ip = fb_ipv4(&f, 0x02, 6, 0, 0);
	fb_tcp(&f, 1, 2, PACKET_TCP_ACK, 0);
	fb_ipv4_done(&f, ip);
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[18 + 1], 0x03);
	assert_true(ipv4_csum_ok(f.b + 18));
}

/* 6in4: the outer IPv4 header is marked, the inner one is left alone. */
static void
test_set_ce_6in4_marks_outer_only(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };
	uint8_t			inner[40];
	size_t			ip6;

	(void)state;
	ip6 = mk_6in4(&f, 0);
	f.b[15] = 0x2a;		/* outer ECT(0); fix the checksum */
	fb_ipv4_done(&f, 14);
	memcpy(inner, f.b + ip6, sizeof(inner));
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[15], 0x2b);
	assert_true(ipv4_csum_ok(f.b + 14));
	assert_memory_equal(f.b + ip6, inner, sizeof(inner));
}

static void
test_set_ce_and_wash_ignore_non_ip(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	b_arp(&f);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
	f.len = 0;
	b_v4_ihl4(&f);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
}

/* A meta that does not match the buffer is never written through. */
static void
test_stale_meta_not_written(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 }, orig;

	(void)state;
	mk_eth_v4_udp(&f, 0x02, 4);
	orig = f;
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	p.len = 30;			/* header no longer inside */
	assert_false(packet_set_ce(&p));
	p.len = (uint32_t)f.len;
	p.meta.l3 = CAKE_L3_IPV6;	/* version nibble disagrees */
	assert_false(packet_set_ce(&p));
	packet_wash(&p);
	assert_memory_equal(f.b, orig.b, f.len);
}

/* Wash on every TOS: DSCP cleared, ECN kept, checksum valid. */
static void
test_wash_ipv4_every_tos(void **state)
{
	struct cake_pkt		p;
	struct fb		f, orig;
	unsigned int		tos;

	(void)state;
	for (tos = 0; tos < 256; tos++) {
		f.len = 0;
		mk_eth_v4_udp(&f, (uint8_t)tos, 4);
		orig = f;
		pkt_from(&p, &f, CAKE_LINK_ETHERNET);
		packet_wash(&p);
		if (tos >> 2 == 0) {
			assert_memory_equal(f.b, orig.b, f.len);
			continue;
		}
		assert_int_equal(f.b[15], tos & 3);
		assert_int_equal(p.meta.dsfield, tos & 3);
		assert_int_equal(packet_dscp(&p.meta), 0);
		assert_true(ipv4_csum_ok(f.b + 14));
	}
}

static void
test_wash_ipv6_keeps_ecn_and_flow_label(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };

	(void)state;
	fb_ipv6(&f, 0xb9, 59);	/* EF + ECT(1) */
	fb_ipv6_done(&f, 0);
	pkt_from(&p, &f, CAKE_LINK_IP);
	packet_wash(&p);
	assert_int_equal(f.b[0], 0x60);
	assert_int_equal(f.b[1], 0x1a);
	assert_int_equal(f.b[2], 0xbc);
	assert_int_equal(p.meta.dsfield, 0x01);
	cake_parse(f.b, (uint32_t)f.len, CAKE_LINK_IP, &p.meta);
	assert_int_equal(p.meta.dsfield, 0x01);
}

/* Wash then CE: both rewrites compose and the checksum still verifies. */
static void
test_wash_then_ce_checksum(void **state)
{
	struct cake_pkt		p;
	struct fb		f = { .len = 0 };

	(void)state;
	mk_eth_v4_udp(&f, 0xba, 4);
	pkt_from(&p, &f, CAKE_LINK_ETHERNET);
	packet_wash(&p);
	assert_true(packet_set_ce(&p));
	assert_int_equal(f.b[15], 0x03);
	assert_true(ipv4_csum_ok(f.b + 14));
}

static void
test_dscp_and_is_ect_table(void **state)
{
	static const struct {
		uint8_t		l3, ds;
		unsigned int	dscp;
		bool		ect;
	} t[] = {
		{ CAKE_L3_IPV4, 0xb8, 46, false },
		{ CAKE_L3_IPV4, 0xba, 46, true },
		{ CAKE_L3_IPV4, 0x21, 8, true },
		{ CAKE_L3_IPV6, 0xff, 63, true },
		{ CAKE_L3_IPV6, 0x03, 0, true },
		{ CAKE_L3_IPV6, 0x00, 0, false },
		{ CAKE_L3_ARP, 0xff, 0, false },
		{ CAKE_L3_NONE, 0xff, 0, false },
	};
	struct cake_pkt_meta	m;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.l3 = t[i].l3;
		m.dsfield = t[i].ds;
		assert_int_equal(packet_dscp(&m), t[i].dscp);
		assert_int_equal(packet_is_ect(&m), t[i].ect);
	}
}

/* ---- runner ----------------------------------------------------------- */

static const struct CMUnitTest fixed_tests[] = {
	cmocka_unit_test(test_empty_frames_truncated),
	cmocka_unit_test(test_ip_end_beyond_16_bits_malformed),
	cmocka_unit_test(test_mutations_stay_sane),
	cmocka_unit_test(test_set_ce_ipv4_every_tos),
	cmocka_unit_test(test_set_ce_ipv6_keeps_flow_label),
	cmocka_unit_test(test_set_ce_not_ect_ipv6_untouched),
	cmocka_unit_test(test_set_ce_behind_vlan_tag),
	cmocka_unit_test(test_set_ce_6in4_marks_outer_only),
	cmocka_unit_test(test_set_ce_and_wash_ignore_non_ip),
	cmocka_unit_test(test_stale_meta_not_written),
	cmocka_unit_test(test_wash_ipv4_every_tos),
	cmocka_unit_test(test_wash_ipv6_keeps_ecn_and_flow_label),
	cmocka_unit_test(test_wash_then_ce_checksum),
	cmocka_unit_test(test_dscp_and_is_ect_table),
};
#define NFIXED	(sizeof(fixed_tests) / sizeof(fixed_tests[0]))

int
main(void)
{
	static struct CMUnitTest	tests[2 * NCASES + NFIXED];
	static char			names[2 * NCASES][96];
	size_t				i, n = 0;
	int				w;

	for (i = 0; i < NCASES; i++) {
		w = snprintf(names[n], sizeof(names[n]), "parse/%s",
		    cases[i].name);
		if (w < 0 || (size_t)w >= sizeof(names[n]))
			return 1;
		tests[n] = (struct CMUnitTest){ names[n], test_case_whole,
		    NULL, NULL, (void *)&cases[i] };
		n++;
		w = snprintf(names[n], sizeof(names[n]), "every_length/%s",
		    cases[i].name);
		if (w < 0 || (size_t)w >= sizeof(names[n]))
			return 1;
		tests[n] = (struct CMUnitTest){ names[n],
		    test_case_every_length, NULL, NULL, (void *)&cases[i] };
		n++;
	}
	for (i = 0; i < NFIXED; i++)
		tests[n++] = fixed_tests[i];
	return _cmocka_run_group_tests("packet", tests, n, NULL, NULL);
}
