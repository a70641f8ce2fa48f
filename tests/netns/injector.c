/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * injector.c: writes malformed frames onto a network device through a raw
 * AF_PACKET socket, for the fault tests (tests/netns/test_malformed.sh).
 *
 *   injector [-e] [-n COUNT] [-i INTERVAL_US] [-s BYTES] IFNAME KIND
 *   injector -l                  lists the kinds and what caked counts
 *
 * -e prefixes an Ethernet header (TAP testbeds: the frame goes on a veth
 * and is bridged to caked's TAP device); without it the frame is raw IP,
 * as on a TUN device (sent straight into caked's TUN device). Each kind
 * is one class of damage; -l prints the counter caked must file it under.
 * The frames are sent to a locally administered MAC nobody owns, so the
 * bridge floods them to caked and the far side discards them.
 *
 * Test tool only: it never sends more than COUNT frames (at most 100000),
 * and only on the device named.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INJ_FRAME_MAX	16384
#define INJ_COUNT_MAX	100000
#define INJ_ETH_HLEN	14

struct inj_kind {
	const char	*name;
	const char	*counter;	/* where caked counts it */
	const char	*what;
	/* Builds the L3 part at p; returns its length. */
	size_t		(*build)(uint8_t *p, size_t size);
	uint16_t	 ethertype;	/* with -e */
};

static void
inj_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A plausible IPv4 header: 10.201.1.1 -> 10.201.1.2, given length. */
static void
inj_ipv4(uint8_t *p, uint8_t proto, uint16_t tot)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	inj_put16(p + 2, tot);
	p[8] = 64;
	p[9] = proto;
	p[12] = 10; p[13] = 201; p[14] = 1; p[15] = 1;
	p[16] = 10; p[17] = 201; p[18] = 1; p[19] = 2;
}

/* A plausible IPv6 header, fd00::1 -> fd00::2. */
static void
inj_ipv6(uint8_t *p, uint8_t nh, uint16_t plen)
{
	memset(p, 0, 40);
	p[0] = 0x60;
	inj_put16(p + 4, plen);
	p[6] = nh;
	p[7] = 64;
	p[8] = 0xfd; p[23] = 1;
	p[24] = 0xfd; p[39] = 2;
}

static size_t
b_empty(uint8_t *p, size_t size)
{
	(void)p;
	(void)size;
	return 0;
}

static size_t
b_ipv4_trunc(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 17, 20);
	return 10;			/* half an IPv4 header */
}

static size_t
b_ipv4_ihl(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 17, 28);
	p[0] = 0x43;			/* IHL 3: 12 bytes, impossible */
	return 28;
}

static size_t
b_ipv4_version(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 17, 28);
	p[0] = 0x55;		/* version 5 under an IPv4 ethertype */
	return 28;
}

static size_t
b_ipv4_len_long(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 17, 1400);		/* claims 1400 bytes, has 28 */
	return 28;
}

static size_t
b_ipv4_len_short(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 17, 12);		/* total length below the header */
	return 28;
}

static size_t
b_tcp_trunc(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 6, 30);		/* 10 of 20 TCP header bytes */
	return 30;
}

static size_t
b_tcp_doff(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv4(p, 6, 40);
	memset(p + 20, 0, 20);
	inj_put16(p + 20, 40000);
	inj_put16(p + 22, 5201);
	p[32] = 0x30;		/* data offset 3: 12 bytes, impossible */
	p[33] = 0x10;
	return 40;
}

static size_t
b_ipv6_trunc(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv6(p, 17, 8);
	return 30;			/* 30 of 40 header bytes */
}

/* A chain of destination-options headers, each naming the next: "loops". */
static size_t
b_ipv6_ext_loop(uint8_t *p, size_t size)
{
	size_t	i, n = 32;

	(void)size;
	inj_ipv6(p, 60, (uint16_t)(n * 8));
	for (i = 0; i < n; i++) {
		memset(p + 40 + i * 8, 0, 8);
		p[40 + i * 8] = 60;	/* next: destination options */
	}
	return 40 + n * 8;
}

/* An extension header whose length runs past the end of the packet. */
static size_t
b_ipv6_ext_end(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv6(p, 60, 16);
	memset(p + 40, 0, 16);
	p[40] = 17;
	p[41] = 20;		/* (20 + 1) * 8 bytes: beyond the end */
	return 56;
}

/* A hop-by-hop header after another extension header. */
static size_t
b_ipv6_hbh_late(uint8_t *p, size_t size)
{
	(void)size;
	inj_ipv6(p, 60, 24);
	memset(p + 40, 0, 24);
	p[40] = 0;			/* dst opts -> hop-by-hop: illegal */
	p[48] = 17;
	return 64;
}

static size_t
b_unknown(uint8_t *p, size_t size)
{
	(void)size;
	memset(p, 0x5a, 46);		/* payload of ethertype 0x88b5 */
	return 46;
}

/* -s BYTES of a valid-looking UDP packet: for frames above the MTU. */
static size_t inj_big_bytes = 4000;

static size_t
b_big(uint8_t *p, size_t size)
{
	size_t	n = inj_big_bytes;

	if (n > size)
		n = size;
	if (n < 28)
		n = 28;
	memset(p, 0, n);
	inj_ipv4(p, 17, (uint16_t)n);
	inj_put16(p + 20, 40000);
	inj_put16(p + 22, 9);
	inj_put16(p + 24, (uint16_t)(n - 20));
	return n;
}

static const struct inj_kind inj_kinds[] = {
	{ "empty", "rx_empty", "zero-length frame (TUN only)", b_empty,
	    ETH_P_IP },
	{ "ipv4-trunc", "rx_truncated", "IPv4 header cut at 10 bytes",
	    b_ipv4_trunc, ETH_P_IP },
	{ "ipv4-ihl", "rx_malformed", "IPv4 IHL 3", b_ipv4_ihl, ETH_P_IP },
	{ "ipv4-version", "rx_malformed", "version 5 in an IPv4 packet",
	    b_ipv4_version, ETH_P_IP },
	{ "ipv4-len-long", "rx_truncated", "IPv4 total length past the end",
	    b_ipv4_len_long, ETH_P_IP },
	{ "ipv4-len-short", "rx_malformed", "IPv4 total length < IHL",
	    b_ipv4_len_short, ETH_P_IP },
	{ "tcp-trunc", "rx_truncated", "TCP header cut at 10 bytes",
	    b_tcp_trunc, ETH_P_IP },
	{ "tcp-doff", "rx_malformed", "TCP data offset 3", b_tcp_doff,
	    ETH_P_IP },
	{ "ipv6-trunc", "rx_truncated", "IPv6 header cut at 30 bytes",
	    b_ipv6_trunc, ETH_P_IPV6 },
	{ "ipv6-ext-loop", "rx_malformed", "32 chained extension headers",
	    b_ipv6_ext_loop, ETH_P_IPV6 },
	{ "ipv6-ext-end", "rx_truncated", "extension header past the end",
	    b_ipv6_ext_end, ETH_P_IPV6 },
	{ "ipv6-hbh-late", "rx_malformed", "hop-by-hop not first",
	    b_ipv6_hbh_late, ETH_P_IPV6 },
	{ "unknown-ethertype", "rx_non_ip", "ethertype 0x88b5 (with -e)",
	    b_unknown, 0x88b5 },
	{ "big", "rx_oversize", "UDP packet of -s bytes (above the MTU)",
	    b_big, ETH_P_IP },
};

#define INJ_NKINDS	(sizeof(inj_kinds) / sizeof(inj_kinds[0]))

static void
usage(void)
{
	fprintf(stderr, "usage: injector [-e] [-n count] [-i interval_us] "
	    "[-s bytes] ifname kind\n       injector -l\n");
	exit(2);
}

static const struct inj_kind *
inj_find(const char *name)
{
	size_t	i;

	for (i = 0; i < INJ_NKINDS; i++)
		if (strcmp(inj_kinds[i].name, name) == 0)
			return &inj_kinds[i];
	return NULL;
}

static int
inj_open(const char *ifname, int eth, struct sockaddr_ll *sll)
{
	int	fd;

	fd = socket(AF_PACKET, eth ? SOCK_RAW : SOCK_DGRAM, 0);
	if (fd == -1)
		return -1;
	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_protocol = htons(ETH_P_IP);
	if ((sll->sll_ifindex = (int)if_nametoindex(ifname)) == 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static unsigned long
inj_number(const char *s, unsigned long max)
{
	char		*end;
	unsigned long	 v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v > max)
		usage();
	return v;
}

int
main(int argc, char *argv[])
{
	static uint8_t		 frame[INJ_FRAME_MAX];
	const struct inj_kind	*k;
	struct sockaddr_ll	 sll;
	struct timespec		 gap;
	unsigned long		 count = 1, interval_us = 1000, sent = 0;
	unsigned long		 i;
	size_t			 off, len;
	int			 ch, eth = 0, fd;

	while ((ch = getopt(argc, argv, "ei:ln:s:")) != -1) {
		switch (ch) {
		case 'e':
			eth = 1;
			break;
		case 'i':
			interval_us = inj_number(optarg, 1000000);
			break;
		case 'l':
			for (i = 0; i < INJ_NKINDS; i++)
				printf("%s %s %s\n", inj_kinds[i].name,
				    inj_kinds[i].counter, inj_kinds[i].what);
			return 0;
		case 'n':
			count = inj_number(optarg, INJ_COUNT_MAX);
			break;
		case 's':
			inj_big_bytes = inj_number(optarg, INJ_FRAME_MAX -
			    INJ_ETH_HLEN);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || (k = inj_find(argv[optind + 1])) == NULL)
		usage();
	if ((fd = inj_open(argv[optind], eth, &sll)) == -1) {
		fprintf(stderr, "injector: %s: %s\n", argv[optind],
		    strerror(errno));
		return 1;
	}
	off = 0;
	if (eth) {
		/* dst 02:00:00:00:00:99 (nobody), src 02:00:00:00:00:01 */
		memset(frame, 0, INJ_ETH_HLEN);
		frame[0] = 0x02; frame[5] = 0x99;
		frame[6] = 0x02; frame[11] = 0x01;
		inj_put16(frame + 12, k->ethertype);
		off = INJ_ETH_HLEN;
	}
	len = off + k->build(frame + off, sizeof(frame) - off);
	gap.tv_sec = (time_t)(interval_us / 1000000);
	gap.tv_nsec = (long)(interval_us % 1000000) * 1000;
	for (i = 0; i < count; i++) {
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
		    sizeof(sll)) == (ssize_t)len)
			sent++;
		else if (sent == 0 && i == 0)
			fprintf(stderr, "injector: %s: send %zu bytes: %s\n",
			    k->name, len, strerror(errno));
		if (interval_us > 0)
			(void)nanosleep(&gap, NULL);
	}
	close(fd);
	printf("%s: sent %lu of %lu frames of %zu bytes\n", k->name, sent,
	    count, len);
	return sent == count ? 0 : 1;
}
