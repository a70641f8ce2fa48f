/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz_engine.c: the whole engine as a state machine. The input is
 * decoded into operations (enqueue a built packet or raw bytes, advance
 * time, dequeue, change parameters, flush) on one instance; after each
 * one the harness checks:
 *  - cake_check_invariants() (backlog counters equal the queued bytes);
 *  - after an enqueue, queued memory is at most the limit plus the
 *    largest truesize seen (one packet);
 *  - every dequeued IPv4 packet that entered with a valid header checksum
 *    (ECN-marked or washed on the way) still has one, and every segment of
 *    a split GSO packet has valid IPv4, TCP and UDP checksums;
 *  - buffers come from a fixed pool with in-use flags: every buffer the
 *    engine returns (dequeued or dropped) is one it was given or allocated
 *    and is returned once; after cake_flush() and cake_take_dropped() at
 *    the end, none is still out.
 * Test code only; it aborts on the first broken invariant.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "fuzz.h"

#define EF_BUFS		192
#define EF_BUF_BYTES	16384
#define EF_PAYLOAD_MAX	12000	/* GSO super-packet payload */
#define EF_TRUESIZE_PAD	64	/* bytes charged beyond the frame */
#define EF_OPS_MAX	1000

struct ef_buf {
	struct cake_pkt	pkt;
	bool		in_use;
	bool		segment;	/* allocated by the engine for GSO */
	int32_t		v4_off;		/* IPv4 header to verify, or -1 */
	uint8_t		data[EF_BUF_BYTES];
};

struct ef_in {
	const uint8_t	*p;
	size_t		 left;
};

struct ef {
	struct cake		*c;
	struct cake_config	 cfg;
	enum cake_link		 link;
	uint64_t		 now_ns;
	uint32_t		 max_truesize;
	unsigned int		 out;		/* buffers in use */
	uint64_t		 sent;		/* dequeued (GSO: segments) */
	struct ef_buf		 bufs[EF_BUFS];
};

static struct ef	ef;

static const char *const ef_lines[] = {
	"bandwidth 10mbit",
	"bandwidth 1mbit diffserv4 nat ack-filter",
	"bandwidth 100mbit diffserv8 triple-isolate wash",
	"unlimited besteffort flows",
	"bandwidth 500kbit precedence dual-srchost ack-filter-aggressive",
	"bandwidth 2mbit diffserv3 dual-dsthost ingress split-gso",
	"bandwidth 50mbit no-split-gso atm overhead 44 mpu 64",
	"bandwidth 20mbit ptm pppoe-ptm rtt 10ms",
	"bandwidth 5mbit memlimit 20000 srchost",
	"bandwidth 8mbit memlimit 4000 dsthost ack-filter",
	"bandwidth 30mbit autorate-ingress hosts",
	"bandwidth 3mbit raw fwmark 0xff flowblind",
	"bandwidth 1gbit lan diffserv4 wash",
	"bandwidth 64kbit satellite diffserv3",
	"bandwidth 200mbit overhead -20 mpu 0 conservative",
	"bandwidth 12mbit no-ack-filter nonat nowash egress",
};
#define EF_LINES	(sizeof(ef_lines) / sizeof(ef_lines[0]))

static uint8_t
ef_u8(struct ef_in *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

static uint16_t
ef_u16(struct ef_in *in)
{
	uint16_t	hi = ef_u8(in);

	return (uint16_t)(hi << 8 | ef_u8(in));
}

static struct ef_buf *
ef_get(bool segment)
{
	unsigned int	i;

	for (i = 0; i < EF_BUFS; i++) {
		if (!ef.bufs[i].in_use) {
			memset(&ef.bufs[i].pkt, 0, sizeof(ef.bufs[i].pkt));
			ef.bufs[i].in_use = true;
			ef.bufs[i].segment = segment;
			ef.bufs[i].v4_off = -1;
			ef.bufs[i].pkt.data = ef.bufs[i].data;
			ef.out++;
			return &ef.bufs[i];
		}
	}
	return NULL;
}

/* The engine's allocator for GSO segments: from the same pool. */
static struct cake_pkt *
ef_alloc(void *arg, uint32_t cap)
{
	struct ef_buf	*b;

	(void)arg;
	if (cap > EF_BUF_BYTES || (b = ef_get(true)) == NULL)
		return NULL;
	b->pkt.cap = cap;
	/* The engine charges a segment cake_truesize(len), len <= cap. */
	if (cake_truesize(cap) > ef.max_truesize)
		ef.max_truesize = cake_truesize(cap);
	return &b->pkt;
}

/* Takes back a buffer from the engine: it must be one of ours, out. */
static struct ef_buf *
ef_put(struct cake_pkt *pkt)
{
	struct ef_buf	*b = (struct ef_buf *)(void *)pkt;
	uintptr_t	 off = (uintptr_t)pkt - (uintptr_t)ef.bufs;

	FUZZ_ASSERT((uintptr_t)pkt >= (uintptr_t)ef.bufs &&
	    off < sizeof(ef.bufs) && off % sizeof(ef.bufs[0]) == 0);
	FUZZ_ASSERT(b->in_use);
	b->in_use = false;
	ef.out--;
	return b;
}

static void
ef_take_dropped(void)
{
	struct cake_pkt	*p, *next;

	for (p = cake_take_dropped(ef.c); p != NULL; p = next) {
		next = p->next;
		FUZZ_ASSERT(p->drop_reason != CAKE_DROP_NONE);
		(void)ef_put(p);
	}
}

/* A dequeued packet: checksums as promised, then back to the pool. */
static void
ef_check_sent(struct cake_pkt *pkt)
{
	struct cake_pkt_meta	 m;
	struct ef_buf		*b = ef_put(pkt);

	ef.sent += pkt->segs != 0 ? pkt->segs : 1;	/* as tc counts */
	FUZZ_ASSERT(pkt->len <= EF_BUF_BYTES);
	if (b->v4_off >= 0)
		FUZZ_ASSERT(fuzz_ipv4_ok(b->data + b->v4_off,
		    pkt->len - (uint32_t)b->v4_off));
	if (!b->segment)
		return;
	cake_parse(b->data, pkt->len, ef.link, &m);
	FUZZ_ASSERT(m.l3 == CAKE_L3_IPV4 || m.l3 == CAKE_L3_IPV6);
	if (m.l3 == CAKE_L3_IPV4)
		FUZZ_ASSERT(fuzz_ipv4_ok(b->data + m.net_off,
		    pkt->len - m.net_off));
	FUZZ_ASSERT(m.l4_off != 0 && (m.flags & CAKE_META_TRUNCATED) == 0);
	FUZZ_ASSERT(fuzz_l4_ok(b->data, &m));
}

/* Hands a filled buffer to the engine and checks the memory bound. */
static void
ef_enqueue(struct ef_buf *b)
{
	struct cake_pkt_meta	m;
	struct cake_stats	st;
	uint64_t		before;

	cake_parse(b->data, b->pkt.len, ef.link, &m);
	if (m.l3 == CAKE_L3_IPV4 && fuzz_ipv4_fix(b->data + m.net_off,
	    b->pkt.len - m.net_off))
		b->v4_off = m.net_off;
	b->pkt.cap = EF_BUF_BYTES;
	b->pkt.truesize = b->pkt.len + EF_TRUESIZE_PAD;
	if (b->pkt.truesize > ef.max_truesize)
		ef.max_truesize = b->pkt.truesize;
	cake_get_stats(ef.c, &st);
	before = st.memory_now;
	(void)cake_enqueue(ef.c, &b->pkt, ef.now_ns);
	cake_get_stats(ef.c, &st);
	/*
	 * A lowered memlimit (cake_change) is enforced by the next enqueue
	 * that queues something, as in the kernel: memory may stay above
	 * the limit, but never grow past it by more than a packet.
	 */
	if (st.memory_now <= before)
		return;
	if (st.memory_now > st.memory_limit + ef.max_truesize)
		fprintf(stderr, "memory_now %llu, limit %llu, largest %u, "
		    "backlog %llu packets\n",
		    (unsigned long long)st.memory_now,
		    (unsigned long long)st.memory_limit, ef.max_truesize,
		    (unsigned long long)st.backlog_pkts);
	FUZZ_ASSERT(st.memory_now <= st.memory_limit + ef.max_truesize);
}

/* Link header (Ethernet, optionally one VLAN tag); returns its length. */
static uint32_t
ef_link_hdr(uint8_t *d, bool v6, bool vlan, uint8_t host)
{
	uint32_t	off = 12;

	if (ef.link == CAKE_LINK_IP)
		return 0;
	memset(d, 0x02, 12);
	d[5] = host;
	if (vlan) {
		d[off++] = 0x81, d[off++] = 0x00;
		d[off++] = 0x00, d[off++] = 0x07;
	}
	d[off++] = v6 ? 0x86 : 0x08;
	d[off++] = v6 ? 0xdd : 0x00;
	return off;
}

/* IPv4 or IPv6 header for l4_bytes of TCP/UDP; returns its length. */
static uint32_t
ef_ip_hdr(uint8_t *d, bool v6, uint8_t proto, uint8_t tos, uint8_t hosts,
    uint32_t l4_bytes)
{
	uint8_t	src = (uint8_t)(1 + (hosts & 3)), dst = (uint8_t)(1 +
		    (hosts >> 2 & 3));

	if (v6) {
		memset(d, 0, 40);
		d[0] = (uint8_t)(0x60 | tos >> 4);
		d[1] = (uint8_t)(tos << 4);
		d[4] = (uint8_t)(l4_bytes >> 8), d[5] = (uint8_t)l4_bytes;
		d[6] = proto, d[7] = 64;
		d[8] = 0x20, d[9] = 0x01, d[10] = 0x0d, d[11] = 0xb8;
		d[23] = src;
		d[24] = 0x20, d[25] = 0x01, d[26] = 0x0d, d[27] = 0xb8;
		d[28] = 1, d[39] = dst;
		return 40;
	}
	memset(d, 0, 20);
	d[0] = 0x45, d[1] = tos;
	d[2] = (uint8_t)((20 + l4_bytes) >> 8), d[3] = (uint8_t)(20 + l4_bytes);
	d[6] = 0x40, d[8] = 64, d[9] = proto;
	d[12] = 10, d[13] = 1, d[15] = src;
	d[16] = 10, d[17] = 2, d[19] = dst;
	return 20;
}

/* The L4 checksum as a device would want it: whole, or pseudo only. */
static void
ef_l4_csum(struct ef_buf *b, uint32_t ip_off, uint32_t l4_off, bool v6,
    uint8_t proto, bool partial)
{
	uint8_t			*f = b->data + l4_off + (proto == 6 ? 16 : 6);
	uint32_t		 sum, i, l4_bytes = b->pkt.len - l4_off;
	const uint8_t		*ip = b->data + ip_off;

	f[0] = f[1] = 0;
	sum = proto + l4_bytes;
	for (i = v6 ? 8 : 12; i < (v6 ? 40u : 20u); i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	if (partial) {
		b->pkt.csum_partial = true;
		b->pkt.csum_start = (uint16_t)l4_off;
		b->pkt.csum_offset = proto == 6 ? 16 : 6;
	} else {
		for (i = 0; i < l4_bytes; i++)
			sum += i & 1 ? b->data[l4_off + i] :
			    (uint32_t)b->data[l4_off + i] << 8;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (!partial)
		sum = ~sum & 0xffff;
	f[0] = (uint8_t)(sum >> 8), f[1] = (uint8_t)sum;
}

/*
 * Op: a TCP or UDP packet built from the input (flags, hosts and ports,
 * TOS, payload length, GSO size, TCP flags, ack number, TCP options, mark).
 */
static void
ef_op_build(struct ef_in *in)
{
	struct ef_buf	*b;
	uint8_t		 fl = ef_u8(in), hosts = ef_u8(in), tos = ef_u8(in);
	bool		 v6 = fl & 1, udp = fl & 2, gso = fl & 4;
	uint32_t	 pay = ef_u16(in), gso_size = ef_u16(in) % 2000;
	uint8_t		 tcpfl = ef_u8(in), ackb = ef_u8(in), *l4;
	uint32_t	 optb = udp ? 0 : (uint32_t)(ef_u8(in) % 11) * 4;
	uint32_t	 off, ip_off, l4_off, l4_hdr = udp ? 8 : 20 + optb, i;
	uint8_t		 proto = udp ? 17 : 6;

	pay %= gso ? EF_PAYLOAD_MAX : 1500;
	if ((b = ef_get(false)) == NULL)
		return;
	ip_off = off = ef_link_hdr(b->data, v6, fl & 16, hosts);
	l4_off = off + ef_ip_hdr(b->data + off, v6, proto, tos, hosts,
	    l4_hdr + pay);
	l4 = b->data + l4_off;
	memset(l4, 0, l4_hdr);
	l4[0] = 0x80, l4[1] = (uint8_t)(hosts >> 4 & 3);
	l4[2] = 0x01, l4[3] = (uint8_t)(hosts >> 6);
	if (udp) {
		l4[4] = (uint8_t)((8 + pay) >> 8), l4[5] = (uint8_t)(8 + pay);
	} else {
		l4[7] = 1;
		l4[8] = ackb, l4[10] = 0x10;
		l4[12] = (uint8_t)(l4_hdr / 4 << 4), l4[13] = tcpfl;
		l4[14] = 0xff;
		for (i = 0; i < optb; i++)
			l4[20 + i] = ef_u8(in);
	}
	for (i = 0; i < pay; i++)
		l4[l4_hdr + i] = (uint8_t)(i * 7);
	b->pkt.len = l4_off + l4_hdr + pay;
	b->pkt.mark = fl & 32 ? 0x11 : 0;
	ef_l4_csum(b, ip_off, l4_off, v6, proto, gso && (fl & 8));
	if (gso) {
		b->pkt.gso_size = (uint16_t)gso_size;
		b->pkt.gso_type = (uint8_t)(udp ? CAKE_GSO_UDP_L4 :
		    v6 ? CAKE_GSO_TCPV6 : CAKE_GSO_TCPV4);
		if (fl & 64)
			b->pkt.gso_type = ef_u8(in);
		else if (fl & 128)
			b->pkt.gso_type |= CAKE_GSO_ECN;
	}
	ef_enqueue(b);
}

/*
 * Op: raw frame bytes from the input (IPv4 header checksum made valid).
 * At least one byte: the daemon never hands the engine an empty frame
 * (datapath.c drops them), and the memory limit cannot evict zero-length
 * packets, which the longest-queue-by-bytes search never finds.
 */
static void
ef_op_raw(struct ef_in *in)
{
	struct ef_buf	*b;
	uint32_t	 len = ef_u16(in) % 2048, i;

	if (len > in->left)
		len = (uint32_t)in->left;
	if (len == 0)
		len = 1;	/* ef_u8() gives 0 past the end */
	if ((b = ef_get(false)) == NULL)
		return;
	for (i = 0; i < len; i++)
		b->data[i] = ef_u8(in);
	b->pkt.len = len;
	b->pkt.mark = len;
	ef_enqueue(b);
}

/* Op: new parameters from a keyword line of the table, applied live. */
static void
ef_op_keywords(struct ef_in *in)
{
	struct cake_config	cfg = ef.cfg;
	char			err[KEYWORDS_ERR_MAX];

	if (keywords_parse_line(&cfg, ef_lines[ef_u8(in) % EF_LINES], err,
	    sizeof(err)) != 0)
		return;
	FUZZ_ASSERT(cake_change(ef.c, &cfg, ef.now_ns) == CAKE_OK);
	ef.cfg = cfg;
}

/* Op: raw parameter values, in or out of range; INVAL keeps the old. */
static void
ef_op_params(struct ef_in *in)
{
	struct cake_config	cfg = ef.cfg, now;
	uint8_t			sel = ef_u8(in);
	uint16_t		v = ef_u16(in);
	int			rc;

	switch (sel % 8) {
	case 0: cfg.rate_Bps = (uint64_t)v << (sel >> 3 & 15); break;
	case 1: cfg.memlimit_bytes = (uint64_t)v << (sel >> 3 & 7); break;
	case 2: cfg.overhead = (int16_t)v; break;
	case 3: cfg.mpu = v; break;
	case 4: cfg.rtt_us = (uint32_t)v << (sel >> 3 & 15); break;
	case 5: cfg.target_us = (uint32_t)v << (sel >> 3 & 7); break;
	case 6:
		cfg.diffserv = (enum cake_diffserv)(v & 7);
		cfg.flow_mode = (enum cake_flow_mode)(v >> 3 & 7);
		cfg.atm = (enum cake_atm)(v >> 6 & 3);
		cfg.ack_filter = (enum cake_ack_filter)(v >> 8 & 3);
		/* Another queue count is never applied live. */
		if ((v >> 10 & 3) == 3)
			cfg.queues = ef.cfg.queues << (v >> 12 & 3);
		break;
	default:
		cfg.split_gso = v & 1, cfg.wash = v & 2, cfg.nat = v & 4;
		cfg.ingress = v & 8, cfg.raw = v & 16;
		cfg.autorate_ingress = v & 32;
		cfg.fwmark_mask = v & 64 ? 0xff : 0;
		break;
	}
	rc = cake_change(ef.c, &cfg, ef.now_ns);
	if (rc == CAKE_OK)
		ef.cfg = cfg;
	FUZZ_ASSERT(cfg.queues == ef.cfg.queues || rc != CAKE_OK);
	cake_get_config(ef.c, &now);
	FUZZ_ASSERT(now.diffserv == ef.cfg.diffserv &&
	    now.flow_mode == ef.cfg.flow_mode && now.queues == ef.cfg.queues);
}

/* Op: dequeue up to n packets due by the current time + ahead_ns. */
static void
ef_op_dequeue(unsigned int n, uint64_t ahead_ns)
{
	struct cake_pkt	*p;

	while (n-- > 0 && (p = cake_dequeue_ahead(ef.c, ef.now_ns,
	    ahead_ns)) != NULL)
		ef_check_sent(p);
}

/* Op: jump to when the engine next wants to run, and run it. */
static void
ef_op_next(void)
{
	uint64_t	t = cake_next_ns(ef.c, ef.now_ns);

	if (t == CAKE_TIME_NEVER)
		return;
	if (t > ef.now_ns && t - ef.now_ns < 10ULL * 1000 * 1000 * 1000)
		ef.now_ns = t;
	ef_op_dequeue(4, 0);
}

static void
ef_op(struct ef_in *in)
{
	uint8_t	op = ef_u8(in);

	switch (op % 10) {
	case 0: case 1: case 2: ef_op_build(in); break;
	case 3: ef_op_raw(in); break;
	case 4: ef.now_ns += (uint64_t)ef_u16(in) << (op >> 4); break;
	case 5: /* the top bit: a departure horizon of 250 us */
		ef_op_dequeue((op >> 4 & 7) + 1U, op & 0x80 ? 250000 : 0);
		break;
	case 6: ef_op_next(); break;
	case 7: ef_op_keywords(in); break;
	case 8: ef_op_params(in); break;
	default:
		if (op >> 4 == 0)
			cake_flush(ef.c);
		else
			ef_op_dequeue(1, 0);
		break;
	}
}

static int
ef_start(struct ef_in *in)
{
	struct cake_env	env;
	char		err[KEYWORDS_ERR_MAX];
	uint8_t		b0 = ef_u8(in), b1 = ef_u8(in), b2 = ef_u8(in);
	int		e;

	memset(&env, 0, sizeof(env));
	ef.link = b0 & 1 ? CAKE_LINK_IP : CAKE_LINK_ETHERNET;
	env.link = ef.link;
	env.mtu = b0 & 2 ? 9000 : 1500;
	env.seed = b1;
	env.alloc = ef_alloc;
	cake_config_default(&ef.cfg);
	if (keywords_parse_line(&ef.cfg, ef_lines[b2 % EF_LINES], err,
	    sizeof(err)) != 0)
		abort();
	if (b0 >> 2 != 0)
		ef.cfg.memlimit_bytes = (uint64_t)(b0 >> 2) * 1024;
	/*
	 * caked's "queues": b2 from 192 up (no corpus file made before it)
	 * asks for 2048 or 4096 queues per tin; larger tables only cost
	 * time here, as the invariant check walks every queue.
	 */
	if (b2 >= 224)
		ef.cfg.queues = 4096;
	else if (b2 >= 192)
		ef.cfg.queues = 2048;
	if ((ef.c = cake_create(&ef.cfg, &env, &e)) == NULL)
		return -1;
	ef.now_ns = 1000000000ULL;
	ef.max_truesize = 0;
	ef.out = 0;
	ef.sent = 0;
	return 0;
}

/* Counters sound; every buffer out (none is on the dropped list now) is
 * queued, and every packet the engine counts as sent came out here. */
static void
ef_invariants(void)
{
	struct cake_stats	st;
	int			line = cake_check_invariants(ef.c);

	if (line != 0)
		fprintf(stderr, "cake_check_invariants: line %d\n", line);
	FUZZ_ASSERT(line == 0);
	cake_get_stats(ef.c, &st);
	FUZZ_ASSERT(st.backlog_pkts == ef.out);
	FUZZ_ASSERT(st.sent_pkts == ef.sent);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ef_in	in = { data, size };
	unsigned int	ops, i;

	if (ef_start(&in) == -1)
		return 0;
	for (ops = 0; in.left > 0 && ops < EF_OPS_MAX; ops++) {
		ef_op(&in);
		ef_take_dropped();
		/* The full check walks every queue: first ops, then 1 in 8. */
		if (ops < 32 || ops % 8 == 0)
			ef_invariants();
	}
	ef_invariants();
	cake_flush(ef.c);
	ef_take_dropped();
	FUZZ_ASSERT(cake_dequeue(ef.c, ef.now_ns + 1000000000ULL) == NULL);
	FUZZ_ASSERT(ef.out == 0);
	for (i = 0; i < EF_BUFS; i++)
		FUZZ_ASSERT(!ef.bufs[i].in_use);
	cake_destroy(ef.c);
	ef.c = NULL;
	return 0;
}
