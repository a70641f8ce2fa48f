/*
 * test_ackfilter.c: unit tests of the ACK filter (src/engine/ackfilter.c,
 * CAKE-SPEC §6). The tests build raw IPv4, IPv6, 6in4 and Ethernet TCP
 * frames and fill pkt->meta themselves from the offsets they wrote, so
 * they do not depend on the packet parser.
 *
 * Longer than 800 lines on purpose: one named test per filter rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/ackfilter.h"

#define TH_FIN		0x001
#define TH_SYN		0x002
#define TH_RST		0x004
#define TH_PSH		0x008
#define TH_ACK		0x010
#define TH_URG		0x020
#define TH_ECE		0x040
#define TH_CWR		0x080
#define TH_NS		0x100
#define TH_RES1		0x200	/* reserved bits of byte 12 */
#define TH_RES2		0x400
#define TH_RES3		0x800

#define TPKT_BUF_BYTES	384
#define OPT_MAX_BYTES	40
#define QUEUE_MAX	8

enum net {
	NET_V4,
	NET_V6,
	NET_6IN4,
	NET_ETH_V4,
};

struct conn {
	enum net	net;
	uint8_t		src4[4];	/* IPv4, or outer 6in4 header */
	uint8_t		dst4[4];
	uint8_t		src6[16];	/* IPv6, or inner 6in4 header */
	uint8_t		dst6[16];
	uint16_t	sport;
	uint16_t	dport;
};

struct seg {
	uint32_t	seq;
	uint32_t	ack;
	uint16_t	flags;		/* TH_*, reserved bits included */
	uint8_t		opt[OPT_MAX_BYTES];
	size_t		opt_bytes;
	uint32_t	payload_bytes;
};

struct tpkt {
	struct cake_pkt	pkt;
	uint8_t		buf[TPKT_BUF_BYTES];
};

static const struct conn conn_v4 = {
	.net = NET_V4,
	.src4 = { 192, 0, 2, 1 }, .dst4 = { 198, 51, 100, 2 },
	.sport = 40000, .dport = 443,
};

static const struct conn conn_v6 = {
	.net = NET_V6,
	.src6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	.dst6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	.sport = 40000, .dport = 443,
};

static const struct conn conn_6in4 = {
	.net = NET_6IN4,
	.src4 = { 192, 0, 2, 1 }, .dst4 = { 192, 0, 2, 99 },
	.src6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	.dst6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	.sport = 40000, .dport = 443,
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* ---- segments and options ----------------------------------------------- */

/* A pure ACK: no payload, no options, flags exactly ACK. */
static struct seg
ack_seg(uint32_t ack)
{
	struct seg	s;

	memset(&s, 0, sizeof(s));
	s.seq = 1000;
	s.ack = ack;
	s.flags = TH_ACK;
	return s;
}

static void
opt_add(struct seg *s, const uint8_t *bytes, size_t n)
{
	assert_true(s->opt_bytes + n <= OPT_MAX_BYTES);
	memcpy(s->opt + s->opt_bytes, bytes, n);
	s->opt_bytes += n;
}

/* NOP, NOP, TIMESTAMP (RFC 7323), as Linux sends it. */
static void
opt_ts(struct seg *s, uint32_t tsval, uint32_t tsecr)
{
	uint8_t	o[12] = { 1, 1, 8, 10 };

	put32(o + 4, tsval);
	put32(o + 8, tsecr);
	opt_add(s, o, sizeof(o));
}

/* NOP, NOP, SACK with n blocks given as start/end pairs. */
static void
opt_sack(struct seg *s, unsigned int n, const uint32_t *edges)
{
	uint8_t		o[4 + 8 * 4] = { 1, 1, 5 };
	unsigned int	i;

	assert_true(n <= 4);
	o[3] = (uint8_t)(2 + 8 * n);
	for (i = 0; i < 2 * n; i++)
		put32(o + 4 + 4 * i, edges[i]);
	opt_add(s, o, 4 + 8 * n);
}

static void
opt_sack1(struct seg *s, uint32_t start, uint32_t end)
{
	uint32_t	e[2] = { start, end };

	opt_sack(s, 1, e);
}

/* ---- frames ------------------------------------------------------------- */

static void
put_ipv4(uint8_t *p, const uint8_t *src, const uint8_t *dst, uint8_t proto,
    size_t total_bytes)
{
	p[0] = 0x45;
	put16(p + 2, (uint16_t)total_bytes);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
}

static void
put_ipv6(uint8_t *p, const uint8_t *src, const uint8_t *dst,
    size_t payload_bytes)
{
	p[0] = 0x60;
	put16(p + 4, (uint16_t)payload_bytes);
	p[6] = 6;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
}

static void
put_tcp(uint8_t *p, const struct conn *c, const struct seg *s,
    size_t hdr_bytes)
{
	put16(p, c->sport);
	put16(p + 2, c->dport);
	put32(p + 4, s->seq);
	put32(p + 8, s->ack);
	p[12] = (uint8_t)((hdr_bytes / 4) << 4 | ((s->flags >> 8) & 0x0f));
	p[13] = (uint8_t)s->flags;
	put16(p + 14, 65535);
	memcpy(p + 20, s->opt, s->opt_bytes);	/* padding stays EOL (0) */
	memset(p + hdr_bytes, 'x', s->payload_bytes);
}

/* Writes the IP header(s) at b+off; returns the offset of the TCP header. */
static size_t
put_ip(struct tpkt *t, const struct conn *c, size_t off, size_t l4_bytes)
{
	struct cake_pkt_meta	*m = &t->pkt.meta;
	uint8_t			*b = t->buf;

	m->net_off = (uint16_t)off;
	m->ip_off = (uint16_t)off;
	switch (c->net) {
	case NET_V6:
		put_ipv6(b + off, c->src6, c->dst6, l4_bytes);
		m->l3 = m->inner_l3 = CAKE_L3_IPV6;
		return off + 40;
	case NET_6IN4:
		put_ipv4(b + off, c->src4, c->dst4, 41, 60 + l4_bytes);
		put_ipv6(b + off + 20, c->src6, c->dst6, l4_bytes);
		m->l3 = CAKE_L3_IPV4;
		m->inner_l3 = CAKE_L3_IPV6;
		m->ip_off = (uint16_t)(off + 20);
		m->flags |= CAKE_META_6IN4;
		return off + 60;
	default:
		put_ipv4(b + off, c->src4, c->dst4, 6, 20 + l4_bytes);
		m->l3 = m->inner_l3 = CAKE_L3_IPV4;
		return off + 20;
	}
}

static void
fill_tuple(struct cake_tuple *tu, const struct conn *c)
{
	static const uint8_t	v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (c->net == NET_V4 || c->net == NET_ETH_V4) {
		memcpy(tu->src, v4mapped, 12);
		memcpy(tu->src + 12, c->src4, 4);
		memcpy(tu->dst, v4mapped, 12);
		memcpy(tu->dst + 12, c->dst4, 4);
		tu->family = 4;
	} else {
		memcpy(tu->src, c->src6, 16);
		memcpy(tu->dst, c->dst6, 16);
		tu->family = 6;
	}
	tu->sport = c->sport;
	tu->dport = c->dport;
	tu->proto = 6;
}

/* Builds the frame of segment s on connection c, with its parse result. */
static void
build(struct tpkt *t, const struct conn *c, const struct seg *s)
{
	struct cake_pkt_meta	*m = &t->pkt.meta;
	size_t			 hdr_bytes, l4_bytes, off = 0;

	memset(t, 0, sizeof(*t));
	hdr_bytes = 20 + ((s->opt_bytes + 3) & ~(size_t)3);
	l4_bytes = hdr_bytes + s->payload_bytes;
	if (c->net == NET_ETH_V4) {
		memset(t->buf, 0x02, 12);
		put16(t->buf + 12, 0x0800);
		off = 14;
	}
	off = put_ip(t, c, off, l4_bytes);
	assert_true(off + l4_bytes <= TPKT_BUF_BYTES);
	put_tcp(t->buf + off, c, s, hdr_bytes);

	m->l4_off = (uint16_t)off;
	m->l4_len = (uint16_t)l4_bytes;
	m->ip_end = (uint16_t)(off + l4_bytes);
	m->tcp_flags = (uint8_t)s->flags;
	m->tcp_hdr_len = (uint8_t)hdr_bytes;
	fill_tuple(&m->tuple, c);
	t->pkt.data = t->buf;
	t->pkt.len = (uint32_t)(off + l4_bytes);
	t->pkt.cap = TPKT_BUF_BYTES;
	t->pkt.meta_valid = true;
}

/* Links q[0..n) in order; the last one is the trigger. */
static struct cake_pkt *
chain(struct tpkt *q, size_t n)
{
	size_t	i;

	for (i = 0; i + 1 < n; i++)
		q[i].pkt.next = &q[i + 1].pkt;
	q[n - 1].pkt.next = NULL;
	return &q[0].pkt;
}

static struct cake_pkt *
find(struct tpkt *q, size_t n, enum cake_ack_filter mode,
    struct cake_pkt **prevp)
{
	return ackfilter_find(chain(q, n), &q[n - 1].pkt, mode, prevp);
}

/*
 * Checks one eligibility rule for candidate cand against trigger trig on
 * an IPv4 connection, in both modes:
 *   conservative, queue [cand, filler, trig]: cand is dropped iff eligible
 *   (filler is an ACK that is always eligible);
 *   aggressive, queue [cand, trig]: cand is dropped iff eligible.
 */
static void
check_rule(const struct seg *cand, const struct seg *trig, bool eligible)
{
	struct tpkt	 q[3];
	struct seg	 filler = ack_seg(trig->ack - 1);
	struct cake_pkt	*prev, *want = eligible ? &q[0].pkt : NULL;

	filler.flags |= cand->flags & (TH_ECE | TH_CWR);
	build(&q[0], &conn_v4, cand);
	build(&q[1], &conn_v4, &filler);
	build(&q[2], &conn_v4, trig);
	prev = &q[2].pkt;
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), want);
	assert_null(prev);

	build(&q[1], &conn_v4, trig);
	prev = &q[1].pkt;
	assert_ptr_equal(find(q, 2, CAKE_ACK_AGGRESSIVE, &prev), want);
	assert_null(prev);
}

/* Candidate = pure ACK 1000 with flags changed; trigger = ACK 2000. */
static void
check_flags(uint16_t flags, bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	cand.flags = flags;
	check_rule(&cand, &trig, eligible);
}

/* Candidate = pure ACK 1000 carrying raw option bytes o. */
static void
check_option(const uint8_t *o, size_t n, bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	opt_add(&cand, o, n);
	check_rule(&cand, &trig, eligible);
}

/* ---- which ACK is dropped ----------------------------------------------- */

static void
test_conservative_drops_oldest_of_two_pure_acks(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = NULL;

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), &q[0].pkt);
	assert_null(prev);
}

static void
test_conservative_keeps_a_single_pure_ack(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);
	struct cake_pkt	*prev = NULL;

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_null(find(q, 2, CAKE_ACK_FILTER, &prev));
	assert_null(prev);
}

static void
test_aggressive_drops_single_ack_directly_before_trigger(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);
	struct cake_pkt	*prev = &q[1].pkt;

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_ptr_equal(find(q, 2, CAKE_ACK_AGGRESSIVE, &prev), &q[0].pkt);
	assert_null(prev);
}

static void
test_aggressive_keeps_single_ack_not_adjacent_to_trigger(void **state)
{
	struct conn	 other = conn_v4;
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), x = ack_seg(5), t = ack_seg(300);

	(void)state;
	other.sport = 40001;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &other, &x);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_AGGRESSIVE, NULL));
}

static void
test_mode_none_never_drops(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_NONE, NULL));
}

static void
test_queue_with_only_the_trigger_drops_nothing(void **state)
{
	struct tpkt	 q[1];
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[0].pkt;

	(void)state;
	build(&q[0], &conn_v4, &t);
	assert_null(find(q, 1, CAKE_ACK_AGGRESSIVE, &prev));
	assert_null(prev);
	assert_null(ackfilter_find(NULL, &q[0].pkt, CAKE_ACK_AGGRESSIVE,
	    &prev));
}

/* A run of pure ACKs is thinned one per call, always the oldest first. */
static void
thin_run(enum cake_ack_filter mode, size_t survivors)
{
	struct tpkt	 q[6];
	struct seg	 s;
	struct cake_pkt	*head, *got, *prev, *p;
	size_t		 i, left = 6;

	for (i = 0; i < 6; i++) {
		s = ack_seg(100 * (uint32_t)(i + 1));
		build(&q[i], &conn_v4, &s);
	}
	head = chain(q, 6);
	for (i = 0; i < 6; i++) {
		got = ackfilter_find(head, &q[5].pkt, mode, &prev);
		if (got == NULL)
			break;
		assert_ptr_equal(got, head);	/* oldest first */
		assert_null(prev);
		head = got->next;
		left--;
	}
	assert_int_equal(left, survivors + 1);
	for (p = head, i = 0; p != NULL; p = p->next, i++)
		assert_ptr_equal(p, &q[6 - (survivors + 1) + i].pkt);
}

static void
test_conservative_thins_run_to_one_ack_before_trigger(void **state)
{
	(void)state;
	thin_run(CAKE_ACK_FILTER, 1);
}

static void
test_aggressive_thins_run_to_the_trigger_alone(void **state)
{
	(void)state;
	thin_run(CAKE_ACK_AGGRESSIVE, 0);
}

static void
test_other_connections_in_queue_are_skipped(void **state)
{
	struct conn	 other = conn_v4;
	struct tpkt	 q[5];
	struct seg	 x = ack_seg(100), a1 = ack_seg(100);
	struct seg	 a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = NULL;

	(void)state;
	other.dport = 80;
	build(&q[0], &other, &x);
	build(&q[1], &conn_v4, &a1);
	build(&q[2], &other, &x);
	build(&q[3], &conn_v4, &a2);
	build(&q[4], &conn_v4, &t);
	assert_ptr_equal(find(q, 5, CAKE_ACK_FILTER, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

/* ---- the trigger -------------------------------------------------------- */

static void
check_trigger(const struct seg *t, bool filters)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);

	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL),
	    filters ? &q[0].pkt : NULL);
}

static void
test_trigger_with_data_still_filters(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags |= TH_PSH;
	t.payload_bytes = 100;
	check_trigger(&t, true);
}

static void
test_trigger_without_ack_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags = TH_PSH;
	t.payload_bytes = 10;
	check_trigger(&t, false);
}

static void
test_trigger_with_syn_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);

	(void)state;
	t.flags |= TH_SYN;
	check_trigger(&t, false);
}

static void
test_trigger_with_malformed_options_does_not_filter(void **state)
{
	struct seg	t = ack_seg(300);
	/* A timestamp that claims 12 bytes. */
	const uint8_t	o[] = { 8, 12, 0, 0 };

	(void)state;
	opt_add(&t, o, sizeof(o));
	check_trigger(&t, false);
}

static void
test_trigger_that_is_not_tcp_does_not_filter(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	q[2].pkt.meta.tuple.proto = 17;
	q[0].pkt.meta.tuple.proto = 17;
	q[1].pkt.meta.tuple.proto = 17;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

/* ---- flags -------------------------------------------------------------- */

static void
test_plain_pure_ack_is_eligible(void **state)
{
	(void)state;
	check_flags(TH_ACK, true);
}

static void
test_ack_carrying_data_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	cand.payload_bytes = 1;
	check_rule(&cand, &trig, false);
}

static void
test_syn_ack_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_SYN, false);
}

static void
test_fin_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_FIN, false);
}

static void
test_rst_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_RST, false);
}

static void
test_psh_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_PSH, false);
}

static void
test_urg_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_URG, false);
}

static void
test_reserved_bits_and_ns_are_kept(void **state)
{
	static const uint16_t	bits[] = {
		TH_NS, TH_RES1, TH_RES2, TH_RES3
	};
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		check_flags(TH_ACK | bits[i], false);
}

static void
test_segment_without_ack_flag_is_kept(void **state)
{
	(void)state;
	check_flags(0, false);
}

static void
test_ece_and_cwr_are_allowed_when_they_match(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	cand.flags |= TH_ECE | TH_CWR;
	trig.flags |= TH_ECE | TH_CWR;
	check_rule(&cand, &trig, true);
}

/* [A1 ECE, A2, T]: A2's ECE change forgets A1; only A2 stays eligible. */
static void
test_ece_change_forgets_earlier_candidate(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[0].pkt;

	(void)state;
	a1.flags |= TH_ECE;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Aggressive may still take A2: adjacent and same bits as T. */
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

/* A data segment with new ECE/CWR bits also forgets the candidate. */
static void
test_cwr_change_on_data_segment_forgets_candidate(void **state)
{
	struct tpkt	 q[4];
	struct seg	 a1 = ack_seg(100), d = ack_seg(150);
	struct seg	 a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	d.flags |= TH_CWR | TH_PSH;
	d.payload_bytes = 50;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &d);
	build(&q[2], &conn_v4, &a2);
	build(&q[3], &conn_v4, &t);
	assert_null(find(q, 4, CAKE_ACK_FILTER, NULL));
}

static void
test_aggressive_keeps_ack_whose_ecn_bits_differ_from_trigger(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);

	(void)state;
	t.flags |= TH_ECE;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_null(find(q, 2, CAKE_ACK_AGGRESSIVE, NULL));
}

/* ---- options ------------------------------------------------------------ */

static void
test_nop_and_eol_options_are_allowed(void **state)
{
	/* NOPs, then EOL: what follows it is padding. */
	const uint8_t	o[] = { 1, 1, 1, 0, 2, 4, 5, 180 };

	(void)state;
	check_option(o, sizeof(o), true);
}

static void
test_md5sig_option_is_allowed(void **state)
{
	uint8_t	o[20] = { 1, 1, 19, 18 };

	(void)state;
	check_option(o, sizeof(o), true);
	o[3] = 10;		/* wrong length: not a real MD5 signature */
	check_option(o, 12, false);
}

static void
test_mss_option_is_kept(void **state)
{
	const uint8_t	o[] = { 2, 4, 5, 180 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_window_scale_option_is_kept(void **state)
{
	const uint8_t	o[] = { 1, 3, 3, 7 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_sack_permitted_option_is_kept(void **state)
{
	const uint8_t	o[] = { 1, 1, 4, 2 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_unknown_and_experimental_options_are_kept(void **state)
{
	const uint8_t	unknown[] = { 99, 4, 0, 0 };
	const uint8_t	fastopen[] = { 34, 2, 1, 1 };
	const uint8_t	exp[] = { 254, 4, 0xf9, 0x89 };

	(void)state;
	check_option(unknown, sizeof(unknown), false);
	check_option(fastopen, sizeof(fastopen), false);
	check_option(exp, sizeof(exp), false);
}

static void
test_malformed_option_lengths_are_kept(void **state)
{
	static const uint8_t	bad[][8] = {
		{ 1, 1, 1, 19, 1 },		/* length below 2 */
		{ 1, 1, 1, 19, 0 },		/* length 0: would loop */
		{ 1, 1, 19, 18, 0 },		/* runs past the header */
		{ 1, 1, 1, 1, 1, 1, 1, 19 },	/* kind without length */
		{ 8, 8, 0, 0, 0, 0, 0, 0 },	/* timestamp of 8 bytes */
		{ 5, 7, 0, 0, 0, 0, 0, 1 },	/* SACK not 2 + 8n */
		{ 1, 1, 5, 2 },			/* SACK with no block */
	};
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_option(bad[i], sizeof(bad[i]), false);
}

/* ---- timestamps --------------------------------------------------------- */

static void
check_ts(uint32_t c_val, uint32_t c_ecr, uint32_t t_val, uint32_t t_ecr,
    bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	opt_ts(&cand, c_val, c_ecr);
	opt_ts(&trig, t_val, t_ecr);
	check_rule(&cand, &trig, eligible);
}

static void
test_older_or_equal_timestamps_are_eligible(void **state)
{
	(void)state;
	check_ts(10, 20, 11, 21, true);
	check_ts(10, 20, 10, 20, true);
}

static void
test_newer_tsval_is_kept(void **state)
{
	(void)state;
	check_ts(12, 20, 11, 21, false);
}

static void
test_newer_tsecr_is_kept(void **state)
{
	(void)state;
	check_ts(10, 22, 11, 21, false);
}

static void
test_timestamp_comparison_wraps(void **state)
{
	(void)state;
	check_ts(0xfffffff0u, 0xfffffffeu, 0x10, 0x2, true);
	check_ts(0x10, 0x2, 0xfffffff0u, 0xfffffffeu, false);
}

static void
test_timestamp_kept_when_trigger_has_none(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	opt_ts(&cand, 0, 0);
	check_rule(&cand, &trig, false);
}

/* ---- cumulative ACK ------------------------------------------------------ */

static void
test_ack_beyond_trigger_is_kept(void **state)
{
	struct seg	cand = ack_seg(2001), trig = ack_seg(2000);

	(void)state;
	check_rule(&cand, &trig, false);
}

static void
test_duplicate_ack_without_sack_is_kept(void **state)
{
	struct seg	cand = ack_seg(2000), trig = ack_seg(2000);

	(void)state;
	check_rule(&cand, &trig, false);
}

static void
test_ack_comparison_wraps(void **state)
{
	struct seg	cand = ack_seg(0xffffff00u), trig = ack_seg(0x100);

	(void)state;
	check_rule(&cand, &trig, true);
	cand = ack_seg(0x100);
	trig = ack_seg(0xffffff00u);
	check_rule(&cand, &trig, false);
}

/* ---- SACK --------------------------------------------------------------- */

static void
test_sack_covered_by_trigger_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack1(&trig, 2000, 4000);
	check_rule(&cand, &trig, true);
}

static void
test_sack_covered_by_adjacent_trigger_blocks_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);
	uint32_t	e[4] = { 2500, 3500, 2000, 2500 };

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack(&trig, 2, e);
	check_rule(&cand, &trig, true);
}

static void
test_sack_not_covered_by_trigger_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);
	uint32_t	e[4] = { 2000, 3000, 5000, 6000 };

	(void)state;
	opt_sack(&cand, 2, e);
	opt_sack1(&trig, 2000, 3000);
	check_rule(&cand, &trig, false);
	cand = ack_seg(1000);
	opt_sack1(&cand, 1900, 2100);	/* overhangs the trigger's block */
	check_rule(&cand, &trig, false);
}

static void
test_sack_kept_when_trigger_has_none(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	check_rule(&cand, &trig, false);
}

static void
test_dsack_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 500, 900);	/* below its own ACK: RFC 2883 */
	opt_sack1(&trig, 500, 900);
	check_rule(&cand, &trig, false);
}

static void
test_equal_ack_with_equal_sack_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack1(&trig, 2000, 3000);
	check_rule(&cand, &trig, false);
}

static void
test_equal_ack_with_more_sacked_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);
	uint32_t	e[4] = { 4000, 5000, 2000, 3000 };

	(void)state;
	check_rule(&cand, &trig, false);	/* no SACK on either */
	opt_sack(&trig, 2, e);
	check_rule(&cand, &trig, true);		/* none vs some */
	opt_sack1(&cand, 2000, 3000);
	check_rule(&cand, &trig, true);		/* one block vs two */
}

static void
test_reversed_sack_block_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 3000, 2000);
	opt_sack1(&trig, 1000, 4000);
	check_rule(&cand, &trig, false);
}

static void
test_sack_comparison_wraps(void **state)
{
	struct seg	cand = ack_seg(0xfffff000u);
	struct seg	trig = ack_seg(0xfffff800u);

	(void)state;
	opt_sack1(&cand, 0xfffffc00u, 0x400);
	opt_sack1(&trig, 0xfffffa00u, 0x800);
	check_rule(&cand, &trig, true);
	cand = ack_seg(0xfffff000u);
	opt_sack1(&cand, 0xfffffc00u, 0x900);
	check_rule(&cand, &trig, false);
}

static void
test_sack_with_timestamps_together(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1200);

	(void)state;
	opt_ts(&cand, 5, 6);
	opt_sack1(&cand, 2000, 3000);
	opt_ts(&trig, 7, 6);
	opt_sack1(&trig, 2000, 3500);
	check_rule(&cand, &trig, true);
}

/* ---- connections -------------------------------------------------------- */

/* [A(c), A(conn_v4), T(conn_v4)] conservative: A(c) is another connection. */
static void
check_other_connection(const struct conn *c)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	build(&q[0], c, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Aggressive: the same-connection ACK before the trigger goes. */
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, NULL), &q[1].pkt);
}

static void
test_different_ports_are_other_connections(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	c.sport++;
	check_other_connection(&c);
	c = conn_v4;
	c.dport++;
	check_other_connection(&c);
}

static void
test_different_addresses_are_other_connections(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	c.src4[3]++;
	check_other_connection(&c);
	c = conn_v4;
	c.dst4[3]++;
	check_other_connection(&c);
}

static void
test_reverse_direction_is_another_connection(void **state)
{
	struct conn	c = conn_v4;

	(void)state;
	memcpy(c.src4, conn_v4.dst4, 4);
	memcpy(c.dst4, conn_v4.src4, 4);
	c.sport = conn_v4.dport;
	c.dport = conn_v4.sport;
	check_other_connection(&c);
}

static void
test_ipv6_with_same_ports_is_another_connection(void **state)
{
	(void)state;
	check_other_connection(&conn_v6);
}

/* ---- address families and link layers ----------------------------------- */

static void
check_family(const struct conn *c)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[2].pkt;

	opt_ts(&a1, 1, 1);
	opt_ts(&a2, 2, 2);
	opt_ts(&t, 3, 3);
	opt_sack1(&t, 500, 600);
	build(&q[0], c, &a1);
	build(&q[1], c, &a2);
	build(&q[2], c, &t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), &q[0].pkt);
	assert_null(prev);
	/* A payload byte in the oldest one keeps it; the other is alone. */
	a1.payload_bytes = 1;
	build(&q[0], c, &a1);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

static void
test_ipv6_acks_are_filtered(void **state)
{
	(void)state;
	check_family(&conn_v6);
}

static void
test_6in4_acks_are_filtered_on_inner_header(void **state)
{
	struct conn	c = conn_6in4;
	struct tpkt	q[3];
	struct seg	a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	t = ack_seg(300);

	(void)state;
	check_family(&conn_6in4);
	/* Another inner address is another connection. */
	c.src6[15] = 7;
	build(&q[0], &c, &a1);
	build(&q[1], &conn_6in4, &a2);
	build(&q[2], &conn_6in4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

static void
test_ethernet_framed_acks_are_filtered(void **state)
{
	(void)state;
	check_family(&(struct conn){
		.net = NET_ETH_V4,
		.src4 = { 10, 0, 0, 1 }, .dst4 = { 10, 0, 0, 2 },
		.sport = 5000, .dport = 22,
	});
}

/* ---- packets that cannot be trusted ------------------------------------- */

static void
test_candidate_whose_header_exceeds_the_frame_is_kept(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL), &q[0].pkt);
	/* Data offset 15 (60 bytes) beyond l4_len. */
	q[0].buf[q[0].pkt.meta.l4_off + 12] = 0xf0;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* l4_len beyond the frame. */
	build(&q[0], &conn_v4, &a1);
	q[0].pkt.len -= 1;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* A fragment is never a candidate. */
	build(&q[0], &conn_v4, &a1);
	q[0].pkt.meta.flags |= CAKE_META_FRAG;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

static void
test_truncated_trigger_does_not_filter(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, NULL), &q[0].pkt);
	q[2].pkt.meta.l4_len = 19;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Data offset 15 (60 bytes) beyond the segment's 20 bytes. */
	build(&q[2], &conn_v4, &t);
	q[2].buf[q[2].pkt.meta.l4_off + 12] = 0xf0;
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
}

/* Deterministic pseudo-random bytes (a 32-bit LCG) for the test below. */
static uint32_t
lcg_next(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* Appends random options: valid timestamps and SACK blocks among junk. */
static void
random_options(struct seg *s, uint32_t *x)
{
	uint32_t	start;
	uint8_t		junk;

	while (s->opt_bytes < OPT_MAX_BYTES) {
		switch (lcg_next(x) % 8) {
		case 0:
		case 1:
			return;
		case 2:
			if (OPT_MAX_BYTES - s->opt_bytes < 12)
				return;
			opt_ts(s, lcg_next(x) % 4, lcg_next(x) % 4);
			break;
		case 3:
			if (OPT_MAX_BYTES - s->opt_bytes < 12)
				return;
			start = 200 + lcg_next(x) % 256;
			opt_sack1(s, start, start + 1 + lcg_next(x) % 256);
			break;
		case 4:
			junk = 1;	/* NOP */
			opt_add(s, &junk, 1);
			break;
		default:
			junk = (uint8_t)(lcg_next(x) % 24);
			opt_add(s, &junk, 1);
			break;
		}
	}
}

/* Moves a built frame into a heap buffer of exactly its length. */
static uint8_t *
exact_copy(struct tpkt *t)
{
	uint8_t	*b = test_malloc(t->pkt.len);

	memcpy(b, t->buf, t->pkt.len);
	t->pkt.data = b;
	return b;
}

/*
 * Random flags and option bytes in candidate and trigger: the result is
 * always NULL or the candidate, and (under ASan) no read leaves a frame
 * that is exactly as long as pkt->len.
 */
static void
test_random_options_never_read_outside_the_frame(void **state)
{
	struct tpkt	 q[2];
	struct seg	 s[2];
	struct cake_pkt	*got;
	uint8_t		*b[2];
	uint32_t	 x = 12345;
	size_t		 i, j, drops = 0;

	(void)state;
	for (i = 0; i < 4000; i++) {
		for (j = 0; j < 2; j++) {
			s[j] = ack_seg(lcg_next(&x) & 0xff);
			s[j].flags = (uint16_t)(TH_ACK |
			    (lcg_next(&x) % 4 == 0 ? TH_PSH : 0));
			random_options(&s[j], &x);
			build(&q[j], &conn_v6, &s[j]);
			b[j] = exact_copy(&q[j]);
		}
		got = find(q, 2, (i & 1) ? CAKE_ACK_AGGRESSIVE :
		    CAKE_ACK_FILTER, NULL);
		assert_true(got == NULL || got == &q[0].pkt);
		drops += got != NULL;
		test_free(b[0]);
		test_free(b[1]);
	}
	assert_true(drops > 20);	/* the drop path was exercised too */
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_conservative_drops_oldest_of_two_pure_acks),
		cmocka_unit_test(test_conservative_keeps_a_single_pure_ack),
		cmocka_unit_test(test_aggressive_drops_single_ack_directly_before_trigger),
		cmocka_unit_test(test_aggressive_keeps_single_ack_not_adjacent_to_trigger),
		cmocka_unit_test(test_mode_none_never_drops),
		cmocka_unit_test(test_queue_with_only_the_trigger_drops_nothing),
		cmocka_unit_test(test_conservative_thins_run_to_one_ack_before_trigger),
		cmocka_unit_test(test_aggressive_thins_run_to_the_trigger_alone),
		cmocka_unit_test(test_other_connections_in_queue_are_skipped),
		cmocka_unit_test(test_trigger_with_data_still_filters),
		cmocka_unit_test(test_trigger_without_ack_does_not_filter),
		cmocka_unit_test(test_trigger_with_syn_does_not_filter),
		cmocka_unit_test(test_trigger_with_malformed_options_does_not_filter),
		cmocka_unit_test(test_trigger_that_is_not_tcp_does_not_filter),
		cmocka_unit_test(test_plain_pure_ack_is_eligible),
		cmocka_unit_test(test_ack_carrying_data_is_kept),
		cmocka_unit_test(test_syn_ack_is_kept),
		cmocka_unit_test(test_fin_is_kept),
		cmocka_unit_test(test_rst_is_kept),
		cmocka_unit_test(test_psh_is_kept),
		cmocka_unit_test(test_urg_is_kept),
		cmocka_unit_test(test_reserved_bits_and_ns_are_kept),
		cmocka_unit_test(test_segment_without_ack_flag_is_kept),
		cmocka_unit_test(test_ece_and_cwr_are_allowed_when_they_match),
		cmocka_unit_test(test_ece_change_forgets_earlier_candidate),
		cmocka_unit_test(test_cwr_change_on_data_segment_forgets_candidate),
		cmocka_unit_test(test_aggressive_keeps_ack_whose_ecn_bits_differ_from_trigger),
		cmocka_unit_test(test_nop_and_eol_options_are_allowed),
		cmocka_unit_test(test_md5sig_option_is_allowed),
		cmocka_unit_test(test_mss_option_is_kept),
		cmocka_unit_test(test_window_scale_option_is_kept),
		cmocka_unit_test(test_sack_permitted_option_is_kept),
		cmocka_unit_test(test_unknown_and_experimental_options_are_kept),
		cmocka_unit_test(test_malformed_option_lengths_are_kept),
		cmocka_unit_test(test_older_or_equal_timestamps_are_eligible),
		cmocka_unit_test(test_newer_tsval_is_kept),
		cmocka_unit_test(test_newer_tsecr_is_kept),
		cmocka_unit_test(test_timestamp_comparison_wraps),
		cmocka_unit_test(test_timestamp_kept_when_trigger_has_none),
		cmocka_unit_test(test_ack_beyond_trigger_is_kept),
		cmocka_unit_test(test_duplicate_ack_without_sack_is_kept),
		cmocka_unit_test(test_ack_comparison_wraps),
		cmocka_unit_test(test_sack_covered_by_trigger_is_eligible),
		cmocka_unit_test(test_sack_covered_by_adjacent_trigger_blocks_is_eligible),
		cmocka_unit_test(test_sack_not_covered_by_trigger_is_kept),
		cmocka_unit_test(test_sack_kept_when_trigger_has_none),
		cmocka_unit_test(test_dsack_is_kept),
		cmocka_unit_test(test_equal_ack_with_equal_sack_is_kept),
		cmocka_unit_test(test_equal_ack_with_more_sacked_is_eligible),
		cmocka_unit_test(test_reversed_sack_block_is_kept),
		cmocka_unit_test(test_sack_comparison_wraps),
		cmocka_unit_test(test_sack_with_timestamps_together),
		cmocka_unit_test(test_different_ports_are_other_connections),
		cmocka_unit_test(test_different_addresses_are_other_connections),
		cmocka_unit_test(test_reverse_direction_is_another_connection),
		cmocka_unit_test(test_ipv6_with_same_ports_is_another_connection),
		cmocka_unit_test(test_ipv6_acks_are_filtered),
		cmocka_unit_test(test_6in4_acks_are_filtered_on_inner_header),
		cmocka_unit_test(test_ethernet_framed_acks_are_filtered),
		cmocka_unit_test(test_candidate_whose_header_exceeds_the_frame_is_kept),
		cmocka_unit_test(test_truncated_trigger_does_not_filter),
		cmocka_unit_test(test_random_options_never_read_outside_the_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
