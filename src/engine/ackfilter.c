/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ackfilter.c: CAKE's ACK filter (doc/cake.md §6).
 *
 * When a TCP ACK is enqueued, look in its flow queue for an older pure ACK
 * of the same connection and direction that the new one makes redundant:
 * no payload, flags exactly ACK (ECE/CWR allowed), only harmless options,
 * a cumulative ACK, timestamps and SACK blocks that the new packet
 * supersedes. Conservative mode drops the oldest eligible ACK once two are
 * queued; aggressive mode also drops a single one directly before the new
 * packet.
 *
 * What it must not do: modify, unlink or account packets (cake.c does);
 * trust anything in the packet bytes (every read is bounded by pkt->len
 * and meta.l4_len, and a packet it cannot read fully is left alone); drop
 * anything when in doubt. Sequence numbers use 32-bit serial arithmetic.
 *
 * Deliberate differences from the kernel (both keep more ACKs, never
 * fewer): a malformed option list makes a candidate ineligible (the kernel
 * stops parsing and may drop it), and a candidate with a timestamp is kept
 * when the new packet has none (the kernel compares against zero). SACK
 * coverage is exact: a SACKed range counts as covered when the union of
 * the new packet's blocks contains it (the kernel wants one block).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "engine/ackfilter.h"
#include "engine/csum.h"

#define ACKF_PROTO_TCP		6
#define ACKF_TCP_MIN_BYTES	20	/* RFC 9293: header, no options */
#define ACKF_SACK_MAX_BLOCKS	4	/* all 40 option bytes can hold */

/* The low 12 bits of TCP header bytes 12-13 (RFC 9293, RFC 3168). */
#define ACKF_TH_FIN		0x001
#define ACKF_TH_SYN		0x002
#define ACKF_TH_RST		0x004
#define ACKF_TH_PSH		0x008
#define ACKF_TH_ACK		0x010
#define ACKF_TH_URG		0x020
#define ACKF_TH_ECE		0x040
#define ACKF_TH_CWR		0x080
#define ACKF_TH_ECN		(ACKF_TH_ECE | ACKF_TH_CWR)
/* 0xf00: NS/AE and the 3 reserved bits, all must be clear in a candidate. */

/* TCP option kinds (IANA). */
#define ACKF_OPT_EOL		0
#define ACKF_OPT_NOP		1
#define ACKF_OPT_SACK		5
#define ACKF_OPT_TIMESTAMP	8
#define ACKF_OPT_MD5SIG		19
#define ACKF_OPT_TS_BYTES	10	/* RFC 7323 */
#define ACKF_OPT_MD5_BYTES	18	/* RFC 2385 */
#define ACKF_SACK_BLOCK_BYTES	8	/* RFC 2018 */

/* What the filter needs of one TCP segment, read from its bytes. */
struct ackf_tcp {
	uint32_t	ack_seq;
	uint16_t	flags;		/* ACKF_TH_* plus 0xf00 */
	uint32_t	payload_bytes;
	bool		malformed;	/* option list broken */
	bool		unsafe;		/* an option that may matter */
	bool		has_ts;
	uint32_t	tsval;
	uint32_t	tsecr;
	unsigned int	sack_blocks;
	uint32_t	sack_start[ACKF_SACK_MAX_BLOCKS];
	uint32_t	sack_end[ACKF_SACK_MAX_BLOCKS];
};

/* Serial-number order (RFC 1982) as the kernel's before(): a < b. */
static bool
seq_before(uint32_t a, uint32_t b)
{
	return (uint32_t)(a - b) >= 0x80000000u;
}

static bool
seq_after(uint32_t a, uint32_t b)
{
	return seq_before(b, a);
}

static void
opt_sack(const uint8_t *body, size_t body_bytes, struct ackf_tcp *t)
{
	unsigned int	i, n;

	n = (unsigned int)(body_bytes / ACKF_SACK_BLOCK_BYTES);
	if (t->sack_blocks != 0 || n == 0 || n > ACKF_SACK_MAX_BLOCKS ||
	    body_bytes % ACKF_SACK_BLOCK_BYTES != 0) {
		t->malformed = true;
		return;
	}
	for (i = 0; i < n; i++, body += ACKF_SACK_BLOCK_BYTES) {
		t->sack_start[i] = csum_get32(body);
		t->sack_end[i] = csum_get32(body + 4);
		/* An empty or reversed block is not well-formed. */
		if (!seq_after(t->sack_end[i], t->sack_start[i]))
			t->malformed = true;
	}
	t->sack_blocks = n;
}

/* Records one option (kind, body of body_bytes). */
static void
opt_one(uint8_t kind, const uint8_t *body, size_t body_bytes,
    struct ackf_tcp *t)
{
	switch (kind) {
	case ACKF_OPT_MD5SIG:
		/* Does not influence the receiver's state. */
		if (body_bytes + 2 != ACKF_OPT_MD5_BYTES)
			t->unsafe = true;
		break;
	case ACKF_OPT_SACK:
		opt_sack(body, body_bytes, t);
		break;
	case ACKF_OPT_TIMESTAMP:
		if (t->has_ts || body_bytes + 2 != ACKF_OPT_TS_BYTES) {
			t->malformed = true;
			break;
		}
		t->has_ts = true;
		t->tsval = csum_get32(body);
		t->tsecr = csum_get32(body + 4);
		break;
	default:
		/* MSS, WS, SACK-permitted, TFO, experimental, unknown. */
		t->unsafe = true;
		break;
	}
}

/* Walks the options at o (len bytes, all inside the header). */
static void
opt_walk(const uint8_t *o, size_t len, struct ackf_tcp *t)
{
	size_t	i = 0, size;

	while (i < len && !t->malformed) {
		if (o[i] == ACKF_OPT_EOL)
			break;
		if (o[i] == ACKF_OPT_NOP) {
			i++;
			continue;
		}
		if (len - i < 2 || o[i + 1] < 2 || o[i + 1] > len - i) {
			t->malformed = true;
			break;
		}
		size = o[i + 1];
		opt_one(o[i], o + i + 2, size - 2, t);
		i += size;
	}
}

/* Reads the TCP segment of p; false if p is not a complete TCP segment. */
static bool
tcp_read(const struct cake_pkt *p, struct ackf_tcp *t)
{
	const struct cake_pkt_meta	*m = &p->meta;
	const uint8_t			*th;
	size_t				 hdr_bytes;

	if (m->tuple.proto != ACKF_PROTO_TCP || m->l4_off == 0 ||
	    (m->tuple.family != 4 && m->tuple.family != 6) ||
	    (m->inner_l3 != CAKE_L3_IPV4 && m->inner_l3 != CAKE_L3_IPV6) ||
	    (m->flags & (CAKE_META_FRAG | CAKE_META_MALFORMED |
	    CAKE_META_TRUNCATED)) != 0)
		return false;
	if (p->data == NULL || m->l4_len < ACKF_TCP_MIN_BYTES ||
	    (uint32_t)m->l4_off + m->l4_len > p->len)
		return false;
	th = p->data + m->l4_off;
	hdr_bytes = (size_t)(th[12] >> 4) * 4;
	if (hdr_bytes < ACKF_TCP_MIN_BYTES || hdr_bytes > m->l4_len)
		return false;

	memset(t, 0, sizeof(*t));
	t->ack_seq = csum_get32(th + 8);
	t->flags = (uint16_t)((th[12] & 0x0f) << 8 | th[13]);
	t->payload_bytes = m->l4_len - (uint32_t)hdr_bytes;
	opt_walk(th + ACKF_TCP_MIN_BYTES, hdr_bytes - ACKF_TCP_MIN_BYTES, t);
	return true;
}

/* Same IP version, addresses and ports, in the same direction. */
static bool
same_connection(const struct cake_pkt *a, const struct cake_pkt *b)
{
	const struct cake_tuple	*x = &a->meta.tuple, *y = &b->meta.tuple;

	return a->meta.inner_l3 == b->meta.inner_l3 &&
	    x->family == y->family && x->proto == y->proto &&
	    x->sport == y->sport && x->dport == y->dport &&
	    memcmp(x->src, y->src, sizeof(x->src)) == 0 &&
	    memcmp(x->dst, y->dst, sizeof(x->dst)) == 0;
}

/* Whether the union of t's SACK blocks contains [start, end). */
static bool
sack_covers(const struct ackf_tcp *t, uint32_t start, uint32_t end)
{
	uint32_t	pos = start;
	unsigned int	i, step;

	/* Each step moves pos to the end of one block that contains it. */
	for (step = 0; step <= t->sack_blocks; step++) {
		if (!seq_before(pos, end))
			return true;
		for (i = 0; i < t->sack_blocks; i++)
			if (!seq_after(t->sack_start[i], pos) &&
			    seq_after(t->sack_end[i], pos))
				break;
		if (i == t->sack_blocks)
			return false;
		pos = t->sack_end[i];
	}
	return !seq_before(pos, end);
}

/* The SACK rules of §6: whether trig's SACK information supersedes c's. */
static bool
sack_superseded(const struct ackf_tcp *c, const struct ackf_tcp *trig)
{
	unsigned int	i;
	bool		more = false;

	/* Also implied by the coverage test below; kept as the rule of §6. */
	if (c->sack_blocks != 0 && trig->sack_blocks == 0)
		return false;
	for (i = 0; i < c->sack_blocks; i++) {
		if (seq_before(c->sack_start[i], c->ack_seq))
			return false;		/* DSACK (RFC 2883) */
		if (!sack_covers(trig, c->sack_start[i], c->sack_end[i]))
			return false;
	}
	if (c->ack_seq != trig->ack_seq)
		return true;
	/* Equal ACK numbers: the new one must SACK strictly more. */
	for (i = 0; i < trig->sack_blocks; i++)
		if (!sack_covers(c, trig->sack_start[i], trig->sack_end[i]))
			more = true;
	return more;
}

/* Whether candidate c is a pure ACK made redundant by trig. */
static bool
eligible(const struct ackf_tcp *c, const struct ackf_tcp *trig)
{
	if (c->malformed || c->unsafe)
		return false;
	if ((c->flags & ~ACKF_TH_ECN) != ACKF_TH_ACK || c->payload_bytes != 0)
		return false;
	if (c->has_ts && (!trig->has_ts || seq_after(c->tsval, trig->tsval) ||
	    seq_after(c->tsecr, trig->tsecr)))
		return false;
	if (seq_after(c->ack_seq, trig->ack_seq))
		return false;
	return sack_superseded(c, trig);
}

struct cake_pkt *
ackfilter_find(struct cake_pkt *head, const struct cake_pkt *trigger,
    enum cake_ack_filter mode, struct cake_pkt **prevp)
{
	struct ackf_tcp	 trig, cand;
	struct cake_pkt	*p, *prev = NULL;
	struct cake_pkt	*elig = NULL, *elig_prev = NULL;
	uint16_t	 elig_ecn = 0;
	unsigned int	 found = 0;

	if (prevp != NULL)
		*prevp = NULL;
	if ((mode != CAKE_ACK_FILTER && mode != CAKE_ACK_AGGRESSIVE) ||
	    head == NULL || trigger == NULL || head == trigger)
		return NULL;
	if (!tcp_read(trigger, &trig) || trig.malformed ||
	    (trig.flags & (ACKF_TH_ACK | ACKF_TH_SYN)) != ACKF_TH_ACK)
		return NULL;

	for (p = head; p != NULL && p != trigger; prev = p, p = p->next) {
		if (!same_connection(p, trigger) || !tcp_read(p, &cand))
			continue;
		/* Changed ECE/CWR carry news: keep the earlier candidate. */
		if (elig != NULL && (cand.flags & ACKF_TH_ECN) != elig_ecn) {
			elig = elig_prev = NULL;
			found--;
		}
		if (!eligible(&cand, &trig))
			continue;
		if (elig == NULL) {
			elig = p;
			elig_prev = prev;
			elig_ecn = cand.flags & ACKF_TH_ECN;
		}
		if (found++ > 0)
			goto drop;
	}
	/* Aggressive: a lone eligible ACK right before the trigger. */
	if (elig == NULL || mode != CAKE_ACK_AGGRESSIVE ||
	    elig->next != trigger || elig_ecn != (trig.flags & ACKF_TH_ECN))
		return NULL;
drop:
	if (prevp != NULL)
		*prevp = elig_prev;
	return elig;
}
