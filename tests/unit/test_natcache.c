/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_natcache.c: the NAT lookup cache (src/daemon/natcache.c): the
 * mapping of a masqueraded connection in both directions, LRU eviction,
 * idle expiry, negative entries and the counters; the packet path's
 * lookup (natcache_classify) and the messages that fill a packet
 * thread's cache (natcache_apply).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "daemon/natcache.h"

#define SEC_NS		(1000ULL * 1000 * 1000)
#define EXPIRY_NS	(120 * SEC_NS)

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

static struct cake_tuple
v4(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, uint8_t proto)
{
	struct cake_tuple	t;

	memset(&t, 0, sizeof(t));
	memcpy(t.src, v4mapped, sizeof(v4mapped));
	memcpy(t.dst, v4mapped, sizeof(v4mapped));
	t.src[12] = (uint8_t)(src >> 24);
	t.src[13] = (uint8_t)(src >> 16);
	t.src[14] = (uint8_t)(src >> 8);
	t.src[15] = (uint8_t)src;
	t.dst[12] = (uint8_t)(dst >> 24);
	t.dst[13] = (uint8_t)(dst >> 16);
	t.dst[14] = (uint8_t)(dst >> 8);
	t.dst[15] = (uint8_t)dst;
	t.sport = sport;
	t.dport = dport;
	t.proto = proto;
	t.family = 4;
	return t;
}

static struct cake_tuple
v6(uint8_t src_last, uint16_t sport, uint8_t dst_last, uint16_t dport)
{
	struct cake_tuple	t;

	memset(&t, 0, sizeof(t));
	t.src[0] = t.dst[0] = 0xfd;
	t.src[15] = src_last;
	t.dst[15] = dst_last;
	t.sport = sport;
	t.dport = dport;
	t.proto = 6;
	t.family = 6;
	return t;
}

#define HOST_A		0x0acb0102U	/* 10.203.1.2, LAN */
#define HOST_B		0x0acb0103U	/* 10.203.1.3, LAN */
#define ROUTER		0x0acc0001U	/* 10.204.0.1, WAN (public) */
#define SERVER		0x0acc0002U	/* 10.204.0.2 */

/* One masqueraded TCP connection A:40000 -> S:5201, NATed to R:61000. */
struct conn {
	struct cake_tuple	orig;	/* conntrack original */
	struct cake_tuple	reply;	/* conntrack reply */
};

static struct conn
masq(uint32_t host, uint16_t port, uint16_t nat_port)
{
	struct conn	c;

	c.orig = v4(host, port, SERVER, 5201, 6);
	c.reply = v4(SERVER, 5201, ROUTER, nat_port, 6);
	return c;
}

static void
masqueraded_connection_maps_both_wire_directions(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 1);
	struct conn		 k = masq(HOST_A, 40000, 61000);
	struct cake_tuple	 up_wire, down_wire, got;
	uint32_t		 mark = 0;

	(void)state;
	assert_non_null(c);
	natcache_put_conn(c, &k.orig, &k.reply, 4, 0);
	/* upload, after SNAT: R:61000 -> S:5201 hashes as A:40000 -> S */
	up_wire = v4(ROUTER, 61000, SERVER, 5201, 6);
	assert_int_equal(natcache_lookup(c, &up_wire, SEC_NS, &got, &mark),
	    NATCACHE_HIT);
	assert_memory_equal(&got, &k.orig, sizeof(got));
	assert_int_equal(mark, 4);
	/* download, before un-NAT: S -> R:61000 hashes as S -> A:40000 */
	down_wire = k.reply;
	assert_int_equal(natcache_lookup(c, &down_wire, SEC_NS, &got, &mark),
	    NATCACHE_HIT);
	assert_memory_equal(got.dst + 12, "\x0a\xcb\x01\x02", 4);
	assert_int_equal(got.dport, 40000);
	assert_int_equal(got.sport, 5201);
	natcache_destroy(c);
}

/* Table: which lookups hit after one connection is entered. */
static void
only_exact_wire_tuples_hit(void **state)
{
	static const struct {
		const char	*what;
		uint32_t	 src, dst;
		uint16_t	 sport, dport;
		uint8_t		 proto;
		int		 want;
	} cases[] = {
		{ "upload wire", ROUTER, SERVER, 61000, 5201, 6, NATCACHE_HIT },
		{ "download wire", SERVER, ROUTER, 5201, 61000, 6,
		    NATCACHE_HIT },
		{ "pre-NAT tuple is not a wire tuple", HOST_A, SERVER, 40000,
		    5201, 6, NATCACHE_MISS },
		{ "other port", ROUTER, SERVER, 61001, 5201, 6,
		    NATCACHE_MISS },
		{ "other protocol", ROUTER, SERVER, 61000, 5201, 17,
		    NATCACHE_MISS },
		{ "other server", ROUTER, SERVER + 1, 61000, 5201, 6,
		    NATCACHE_MISS },
	};
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 7);
	struct conn		 k = masq(HOST_A, 40000, 61000);
	struct cake_tuple	 t, got;
	uint32_t		 mark;
	size_t			 i;

	(void)state;
	natcache_put_conn(c, &k.orig, &k.reply, 0, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t = v4(cases[i].src, cases[i].sport, cases[i].dst,
		    cases[i].dport, cases[i].proto);
		if ((int)natcache_lookup(c, &t, 1, &got, &mark) !=
		    cases[i].want)
			fail_msg("case \"%s\": wrong result", cases[i].what);
	}
	natcache_destroy(c);
}

static void
ipv6_connections_are_kept_apart_by_address(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 3);
	struct cake_tuple	 a_orig = v6(0xa, 1000, 0x5, 443);
	struct cake_tuple	 a_reply = v6(0x5, 443, 0x1, 2000);
	struct cake_tuple	 b_orig = v6(0xb, 1000, 0x5, 443);
	struct cake_tuple	 b_reply = v6(0x5, 443, 0x1, 2001);
	struct cake_tuple	 w, got;
	uint32_t		 mark;

	(void)state;
	natcache_put_conn(c, &a_orig, &a_reply, 0, 0);
	natcache_put_conn(c, &b_orig, &b_reply, 0, 0);
	natcache_reverse(&b_reply, &w);
	assert_int_equal(natcache_lookup(c, &w, 1, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(got.src[15], 0xb);
	natcache_reverse(&a_reply, &w);
	assert_int_equal(natcache_lookup(c, &w, 1, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(got.src[15], 0xa);
	natcache_destroy(c);
}

static void
full_cache_evicts_the_least_recently_used(void **state)
{
	struct natcache		*c = natcache_create(NATCACHE_SIZE_MIN,
				    EXPIRY_NS, 5);
	struct natcache_stats	 st;
	struct cake_tuple	 t, got;
	uint32_t		 mark, i;

	(void)state;
	for (i = 0; i < NATCACHE_SIZE_MIN; i++) {
		t = v4(ROUTER, (uint16_t)(1000 + i), SERVER, 80, 6);
		natcache_put(c, &t, &t, i, 0);
	}
	/* touch entry 0 so that entry 1 is now the oldest */
	t = v4(ROUTER, 1000, SERVER, 80, 6);
	assert_int_equal(natcache_lookup(c, &t, 1, &got, &mark),
	    NATCACHE_HIT);
	t = v4(ROUTER, 5000, SERVER, 80, 6);
	natcache_put(c, &t, &t, 99, 2);
	natcache_get_stats(c, &st);
	assert_int_equal(st.entries, NATCACHE_SIZE_MIN);
	assert_int_equal(st.evictions, 1);
	t = v4(ROUTER, 1001, SERVER, 80, 6);
	assert_int_equal(natcache_lookup(c, &t, 3, &got, &mark),
	    NATCACHE_MISS);
	t = v4(ROUTER, 1000, SERVER, 80, 6);
	assert_int_equal(natcache_lookup(c, &t, 3, &got, &mark),
	    NATCACHE_HIT);
	t = v4(ROUTER, 5000, SERVER, 80, 6);
	assert_int_equal(natcache_lookup(c, &t, 3, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(mark, 99);
	natcache_destroy(c);
}

static void
many_more_connections_than_entries_stay_bounded(void **state)
{
	struct natcache		*c = natcache_create(100, EXPIRY_NS, 11);
	struct natcache_stats	 st;
	struct conn		 k;
	uint32_t		 i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		k = masq(HOST_A + (i % 50), (uint16_t)(1024 + i),
		    (uint16_t)(20000 + i));
		natcache_put_conn(c, &k.orig, &k.reply, 0, i);
	}
	natcache_get_stats(c, &st);
	assert_int_equal(st.entries, 100);
	assert_int_equal(st.inserts, 20000);
	assert_int_equal(st.evictions, 20000 - 100);
	/* the newest connection is still there */
	assert_int_equal(natcache_lookup(c, &k.reply, 10001, &k.orig, &i),
	    NATCACHE_HIT);
	natcache_flush(c);
	natcache_get_stats(c, &st);
	assert_int_equal(st.entries, 0);
	natcache_destroy(c);
}

static void
idle_positive_entries_expire_but_use_keeps_them(void **state)
{
	struct natcache		*c = natcache_create(64, 10 * SEC_NS, 2);
	struct natcache_stats	 st;
	struct conn		 k = masq(HOST_B, 50000, 62000);
	struct cake_tuple	 got;
	uint32_t		 mark;

	(void)state;
	natcache_put_conn(c, &k.orig, &k.reply, 0, 0);
	/* used every 9 s: survives well past 10 s */
	assert_int_equal(natcache_lookup(c, &k.reply, 9 * SEC_NS, &got,
	    &mark), NATCACHE_HIT);
	assert_int_equal(natcache_lookup(c, &k.reply, 18 * SEC_NS, &got,
	    &mark), NATCACHE_HIT);
	/* idle for 10 s: gone */
	assert_int_equal(natcache_lookup(c, &k.reply, 28 * SEC_NS, &got,
	    &mark), NATCACHE_MISS);
	natcache_get_stats(c, &st);
	assert_int_equal(st.expiries, 1);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.entries, 1);	/* the upload one remains */
	natcache_destroy(c);
}

static void
negative_entries_hold_for_their_ttl_then_miss(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 9);
	struct natcache_stats	 st;
	struct cake_tuple	 t = v4(ROUTER, 3333, SERVER, 53, 17), got;
	uint32_t		 mark;

	(void)state;
	assert_int_equal(natcache_lookup(c, &t, 0, &got, &mark),
	    NATCACHE_MISS);
	natcache_put_negative(c, &t, 0);
	assert_int_equal(natcache_lookup(c, &t, NATCACHE_NEG_TTL_NS - 1, &got,
	    &mark), NATCACHE_NEGATIVE);
	assert_int_equal(natcache_lookup(c, &t, NATCACHE_NEG_TTL_NS, &got,
	    &mark), NATCACHE_MISS);
	natcache_get_stats(c, &st);
	assert_int_equal(st.neg_hits, 1);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.expiries, 1);
	natcache_destroy(c);
}

static void
an_answer_replaces_a_negative_entry_but_not_the_reverse(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 4);
	struct conn		 k = masq(HOST_A, 40001, 61001);
	struct cake_tuple	 got;
	uint32_t		 mark;

	(void)state;
	natcache_put_negative(c, &k.reply, 0);
	natcache_put_conn(c, &k.orig, &k.reply, 8, 1);
	assert_int_equal(natcache_lookup(c, &k.reply, 2, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(mark, 8);
	/* a late negative must not wipe a live answer */
	natcache_put_negative(c, &k.reply, 3);
	assert_int_equal(natcache_lookup(c, &k.reply, 4, &got, &mark),
	    NATCACHE_HIT);
	natcache_destroy(c);
}

static void
destroyed_connection_is_forgotten_and_mark_updates_apply(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 6);
	struct natcache_stats	 st;
	struct conn		 k = masq(HOST_A, 40002, 61002);
	struct cake_tuple	 got, up;
	uint32_t		 mark;

	(void)state;
	natcache_put_conn(c, &k.orig, &k.reply, 0, 0);
	natcache_put_conn(c, &k.orig, &k.reply, 3, 1);	/* ct mark set 3 */
	natcache_reverse(&k.reply, &up);
	assert_int_equal(natcache_lookup(c, &up, 2, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(mark, 3);
	natcache_remove_conn(c, &k.orig, &k.reply);
	assert_int_equal(natcache_lookup(c, &up, 3, &got, &mark),
	    NATCACHE_MISS);
	assert_int_equal(natcache_lookup(c, &k.reply, 3, &got, &mark),
	    NATCACHE_MISS);
	natcache_get_stats(c, &st);
	assert_int_equal(st.removals, 2);
	assert_int_equal(st.updates, 2);
	assert_int_equal(st.entries, 0);
	natcache_destroy(c);
}

static void
sizes_out_of_range_are_refused(void **state)
{
	(void)state;
	assert_null(natcache_create(NATCACHE_SIZE_MIN - 1, EXPIRY_NS, 0));
	assert_null(natcache_create(NATCACHE_SIZE_MAX + 1, EXPIRY_NS, 0));
}

/* A parsed packet with tuple t (the engine's parse is not under test). */
static struct cake_pkt
parsed(const struct cake_tuple *t, uint32_t flags)
{
	struct cake_pkt	p;

	memset(&p, 0, sizeof(p));
	p.meta.tuple = *t;
	p.meta.flags = flags;
	p.meta_valid = true;
	return p;
}

/*
 * The packet path: only TCP and UDP packets that are not fragments are
 * looked up, and only when nat or fwmark asks; a miss asks once (an
 * inbound packet's tuple as it is, an outbound one's reversed), then
 * stays negative; a hit gives the keys only with nat, the mark only
 * with fwmark.
 */
static void
classify_asks_once_and_gives_what_was_asked_for(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 3);
	struct conn		 k = masq(HOST_A, 40000, 61000);
	struct cake_tuple	 up = v4(ROUTER, 61000, SERVER, 5201, 6);
	struct cake_tuple	 icmp = v4(ROUTER, 0, SERVER, 0, 1);
	struct cake_tuple	 ask;
	struct cake_pkt		 p;
	struct natcache_stats	 st;

	(void)state;
	assert_non_null(c);
	p = parsed(&icmp, 0);
	assert_false(natcache_classify(c, &p, false, true, true, 0, &ask));
	p = parsed(&up, CAKE_META_FRAG);
	assert_false(natcache_classify(c, &p, false, true, true, 0, &ask));
	p = parsed(&up, 0);
	assert_false(natcache_classify(c, &p, false, false, false, 0, &ask));
	natcache_get_stats(c, &st);
	assert_int_equal(st.misses, 0);		/* none was looked up */
	assert_true(natcache_classify(c, &p, false, true, true, 0, &ask));
	assert_memory_equal(&ask, &k.reply, sizeof(ask));
	assert_false(natcache_classify(c, &p, false, true, true, 1, &ask));
	p = parsed(&k.reply, 0);
	assert_true(natcache_classify(c, &p, true, true, true, 2, &ask));
	assert_memory_equal(&ask, &k.reply, sizeof(ask));
	assert_false(p.hash_valid);
	natcache_put_conn(c, &k.orig, &k.reply, 9, 3);
	p = parsed(&up, 0);
	assert_false(natcache_classify(c, &p, false, false, true, 4, &ask));
	assert_false(p.hash_valid);
	assert_int_equal(p.mark, 9);
	p = parsed(&up, 0);
	assert_false(natcache_classify(c, &p, false, true, false, 5, &ask));
	assert_true(p.hash_valid);
	assert_memory_equal(&p.hash_tuple, &k.orig, sizeof(k.orig));
	assert_int_equal(p.mark, 0);
	natcache_destroy(c);
}

/* Messages from main: a connection in, then out; a bad kind does nothing. */
static void
messages_put_and_remove_connections(void **state)
{
	struct natcache		*c = natcache_create(64, EXPIRY_NS, 4);
	struct conn		 k = masq(HOST_B, 40001, 61001);
	struct natcache_msg	 m = { .lan_out = k.orig, .wan_in = k.reply,
				    .now_ns = 0, .mark = 5,
				    .kind = NATCACHE_MSG_PUT };
	struct cake_tuple	 got;
	struct natcache_stats	 st;
	uint32_t		 mark = 0;

	(void)state;
	assert_non_null(c);
	assert_true(natcache_apply(c, &m));
	assert_int_equal(natcache_lookup(c, &k.reply, SEC_NS, &got, &mark),
	    NATCACHE_HIT);
	assert_int_equal(mark, 5);
	m.kind = 0;
	assert_false(natcache_apply(c, &m));
	m.kind = 99;
	assert_false(natcache_apply(c, &m));
	natcache_get_stats(c, &st);
	assert_int_equal(st.entries, 2);
	m.kind = NATCACHE_MSG_REMOVE;
	assert_true(natcache_apply(c, &m));
	assert_int_equal(natcache_lookup(c, &k.reply, SEC_NS, &got, &mark),
	    NATCACHE_MISS);
	natcache_get_stats(c, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.removals, 2);
	natcache_destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    masqueraded_connection_maps_both_wire_directions),
		cmocka_unit_test(only_exact_wire_tuples_hit),
		cmocka_unit_test(ipv6_connections_are_kept_apart_by_address),
		cmocka_unit_test(full_cache_evicts_the_least_recently_used),
		cmocka_unit_test(
		    many_more_connections_than_entries_stay_bounded),
		cmocka_unit_test(
		    idle_positive_entries_expire_but_use_keeps_them),
		cmocka_unit_test(
		    negative_entries_hold_for_their_ttl_then_miss),
		cmocka_unit_test(
		    an_answer_replaces_a_negative_entry_but_not_the_reverse),
		cmocka_unit_test(
		    destroyed_connection_is_forgotten_and_mark_updates_apply),
		cmocka_unit_test(sizes_out_of_range_are_refused),
		cmocka_unit_test(
		    classify_asks_once_and_gives_what_was_asked_for),
		cmocka_unit_test(messages_put_and_remove_connections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
