/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * packet_cases.c: the case table of test_packet.c (packet_cases.h) and
 * the frames it names, side by side: each entry is a frame built with
 * the fb_* builders and the parse result cake_parse() must give for it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caked/cake.h"
#include "engine/packet.h"

#include "fbuild.h"
#include "packet_cases.h"

/* ---- the frames of the case table ------------------------------------ */

/* Ethernet + IPv4 (tos) + UDP, the base several cases patch. */
size_t
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

void
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

void
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
size_t
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

void
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

#define ETH	CAKE_LINK_ETHERNET
#define TUN	CAKE_LINK_IP

static const struct pcase table[] = {
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
_Static_assert(sizeof(table) / sizeof(table[0]) == NCASES,
    "NCASES in packet_cases.h is not the number of cases");

const struct pcase *const cases = table;
