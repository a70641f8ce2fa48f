/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * packet.h: the engine's view of a frame's headers (doc/cake.md §2, §3, §4,
 * §6). cake_parse() (declared in include/caked/cake.h) fills struct
 * cake_pkt_meta once; these helpers read it and rewrite the outer IP
 * header in place (ECN CE marks, DSCP wash) without walking headers again.
 */
#ifndef CAKED_ENGINE_PACKET_H
#define CAKED_ENGINE_PACKET_H

#include <stdbool.h>

struct cake_pkt;
struct cake_pkt_meta;

/* IP protocol numbers the parser reads further (IANA). */
#define PACKET_PROTO_ICMP	1
#define PACKET_PROTO_TCP	6
#define PACKET_PROTO_UDP	17
#define PACKET_PROTO_IPV6	41	/* 6in4, RFC 4213 */
#define PACKET_PROTO_ICMPV6	58

/* TCP flag bits as in cake_pkt_meta.tcp_flags (RFC 9293 byte 13). */
#define PACKET_TCP_FIN		0x01
#define PACKET_TCP_SYN		0x02
#define PACKET_TCP_RST		0x04
#define PACKET_TCP_PSH		0x08
#define PACKET_TCP_ACK		0x10
#define PACKET_TCP_URG		0x20
#define PACKET_TCP_ECE		0x40
#define PACKET_TCP_CWR		0x80

/* The ECN field, the low two bits of dsfield (RFC 3168). */
#define PACKET_ECN_MASK		0x03
#define PACKET_ECN_NOT_ECT	0x00
#define PACKET_ECN_ECT1		0x01
#define PACKET_ECN_ECT0		0x02
#define PACKET_ECN_CE		0x03

/* DSCP (0..63) of the outer IP header; 0 for non-IP (ARP included). */
unsigned int	packet_dscp(const struct cake_pkt_meta *m);
/* True if the outer IP header is ECN-capable: ECT(0), ECT(1) or CE. */
bool		packet_is_ect(const struct cake_pkt_meta *m);
/*
 * Marks CE in the outer IP header of a parsed packet (IPv4 checksum
 * updated) and keeps meta.dsfield in sync. True if the packet now carries
 * CE (it was ECT or already CE); false for Not-ECT or non-IP, untouched.
 */
bool		packet_set_ce(struct cake_pkt *pkt);
/* Clears the DSCP of the outer IP header, keeping ECN (wash, §1). */
void		packet_wash(struct cake_pkt *pkt);

#endif /* CAKED_ENGINE_PACKET_H */
