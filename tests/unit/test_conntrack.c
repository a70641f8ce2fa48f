/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_conntrack.c: the real conntrack adapter (src/daemon/conntrack.c,
 * with natcache.c, libnetfilter_conntrack's parser and libmnl's message
 * builders) against a fake netlink kernel (tests/fake/fake_mnl.c), on the
 * fake event layer and clock. A masqueraded UDP flow is classified as
 * it leaves on the WAN; the kernel's answer to the query comes in time,
 * late (after the query timed out), twice, or never. The in-flight
 * count must stay exact, an answer must be used whenever it comes, and
 * missing answers must neither leak slots nor let queries pile up.
 * With threads = 2 a packet thread's cache asks through main and learns
 * what the adapter passes to its sink.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "caked/cake.h"
#include "daemon/conntrack.h"
#include "daemon/natcache.h"
#include "fake/fake_event.h"
#include "fake/fake_mnl.h"
#include "fake/fake_timer.h"

#define MARK		0x42
#define FLOWS_MANY	100
#define MS		1000000ULL

struct rig {
	struct event_base	*base;
	struct conntrack	*ct;
};

static const uint8_t	lan_host[4] = { 10, 0, 0, 2 };
static const uint8_t	remote[4] = { 198, 51, 100, 2 };
static const uint8_t	wan_addr[4] = { 203, 0, 113, 1 };

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
tuple(struct cake_tuple *t, const uint8_t *src, uint16_t sport,
    const uint8_t *dst, uint16_t dport)
{
	memset(t, 0, sizeof(*t));
	t->src[10] = t->src[11] = t->dst[10] = t->dst[11] = 0xff;
	memcpy(t->src + 12, src, 4);
	memcpy(t->dst + 12, dst, 4);
	t->sport = sport;
	t->dport = dport;
	t->proto = 17;
	t->family = 4;
}

/* Flow k as the LAN host opened it, and as masquerading answers it. */
static void
flow(unsigned int k, struct cake_tuple *orig, struct cake_tuple *reply)
{
	tuple(orig, lan_host, (uint16_t)(4000 + k), remote, 5000);
	tuple(reply, remote, 5000, wan_addr, (uint16_t)(62000 + k));
}

/* Flow k's datagram leaving on the WAN (after masquerading), parsed. */
static void
frame(unsigned int k, struct cake_pkt *pkt)
{
	static uint8_t	f[28];

	memset(f, 0, sizeof(f));
	f[0] = 0x45;
	put16(f + 2, sizeof(f));
	f[8] = 64;
	f[9] = 17;
	memcpy(f + 12, wan_addr, 4);
	memcpy(f + 16, remote, 4);
	put16(f + 20, 62000 + k);
	put16(f + 22, 5000);
	put16(f + 24, 8);
	memset(pkt, 0, sizeof(*pkt));
	pkt->data = f;
	pkt->len = pkt->cap = sizeof(f);
	cake_parse(f, sizeof(f), CAKE_LINK_IP, &pkt->meta);
	pkt->meta_valid = true;
}

/*
 * Flow k's datagram classified at the fake clock's now (threads = 1);
 * *pkt gets what the adapter decided.
 */
static void
classify(struct rig *r, unsigned int k, struct cake_pkt *pkt)
{
	frame(k, pkt);
	conntrack_classify(r->ct, pkt, false, true, true, fake_timer.now_ns);
}

static struct conntrack_stats
stats(const struct rig *r)
{
	struct conntrack_stats	st;

	conntrack_get_stats(r->ct, &st);
	return st;
}

static uint64_t
stop(void *arg, uint64_t now_ns)
{
	(void)now_ns;
	event_base_loopbreak(arg);
	return FAKE_EVENT_NEVER;
}

/* Lets the adapter read whatever the kernel has sent. */
static void
drain(struct rig *r)
{
	fake_event_set_idle(stop, r->base);
	assert_int_equal(event_base_dispatch(r->base), 0);
}

/* The kernel answers query number i (0: conntrack_open()'s probe). */
static void
answer(unsigned int i, unsigned int k)
{
	struct cake_tuple	orig, reply;
	uint8_t			msg[FAKE_MNL_MSG_MAX];
	size_t			len;

	assert_true(i < fake_mnl.nqueries);
	flow(k, &orig, &reply);
	len = fake_mnl_entry(msg, fake_mnl.seqs[i], &orig, &reply,
	    IPS_SRC_NAT | IPS_CONFIRMED, MARK);
	assert_int_equal(fake_mnl_deliver(fake_mnl.queries, msg, len), 0);
}

/* Flow k's packets are now hashed by its LAN tuple and marked. */
static void
assert_known(struct rig *r, unsigned int k)
{
	struct cake_tuple	orig, reply;
	struct cake_pkt		pkt;

	flow(k, &orig, &reply);
	classify(r, k, &pkt);
	assert_true(pkt.hash_valid);
	assert_memory_equal(&pkt.hash_tuple, &orig, sizeof(orig));
	assert_int_equal(pkt.mark, MARK);
}

static int
rig_setup(void **state)
{
	struct rig	*r;
	char		 why[128];

	assert_non_null(r = calloc(1, sizeof(*r)));
	fake_timer_reset();
	fake_event_reset();
	fake_mnl_reset();
	fake_mnl.auto_enoent = 1;	/* the probe */
	assert_non_null(r->base = event_base_new());
	r->ct = conntrack_open(r->base, 1024, 60000 * MS, why, sizeof(why));
	if (r->ct == NULL)
		fail_msg("conntrack_open: %s", why);
	assert_int_equal(fake_mnl.nqueries, 1);
	assert_int_equal(stats(r).in_flight, 0);
	*state = r;
	return 0;
}

static int
rig_teardown(void **state)
{
	struct rig	*r = *state;

	conntrack_close(r->ct);
	event_base_free(r->base);
	fake_event_reset();
	free(r);
	return 0;
}

static void
answer_in_time_is_used(void **state)
{
	struct rig	*r = *state;
	struct cake_pkt	 pkt;

	classify(r, 0, &pkt);
	assert_false(pkt.hash_valid);	/* own header until it is known */
	assert_int_equal(stats(r).queries, 1);
	assert_int_equal(stats(r).in_flight, 1);
	fake_timer.now_ns += 1 * MS;
	answer(1, 0);
	drain(r);
	assert_int_equal(stats(r).answers, 1);
	assert_int_equal(stats(r).in_flight, 0);
	assert_int_equal(stats(r).state, CONNTRACK_OK);
	assert_known(r, 0);
}

static void
late_answer_is_used_and_counted_once(void **state)
{
	struct rig	*r = *state;
	struct cake_pkt	 pkt;

	classify(r, 0, &pkt);
	/* No answer within the timeout: the next query frees the slot. */
	fake_timer.now_ns += CONNTRACK_QUERY_TIMEOUT_NS + 500 * MS;
	classify(r, 1, &pkt);
	assert_int_equal(stats(r).query_timeouts, 1);
	assert_int_equal(stats(r).in_flight, 1);
	/* Then flow 0's answer comes after all. */
	answer(1, 0);
	drain(r);
	assert_int_equal(stats(r).answers, 1);
	assert_int_equal(stats(r).in_flight, 1);	/* flow 1's, still */
	assert_known(r, 0);
	answer(2, 1);
	drain(r);
	assert_int_equal(stats(r).in_flight, 0);
	assert_known(r, 1);
}

static void
duplicated_answers_free_one_slot(void **state)
{
	struct rig	*r = *state;
	struct cake_pkt	 pkt;
	uint32_t	 entries;
	uint8_t		 msg[FAKE_MNL_MSG_MAX];
	size_t		 len;

	classify(r, 0, &pkt);
	classify(r, 1, &pkt);
	assert_int_equal(stats(r).in_flight, 2);
	answer(1, 0);
	drain(r);
	entries = stats(r).cache.entries;
	answer(1, 0);
	answer(1, 0);
	drain(r);
	/* Flow 1's query is still awaited: in flight 1, not 0 or -1. */
	assert_int_equal(stats(r).in_flight, 1);
	assert_int_equal(stats(r).cache.entries, entries);
	assert_known(r, 0);
	/* The same for "no such connection", twice. */
	len = fake_mnl_error(msg, fake_mnl.seqs[2], ENOENT);
	assert_int_equal(fake_mnl_deliver(fake_mnl.queries, msg, len), 0);
	assert_int_equal(fake_mnl_deliver(fake_mnl.queries, msg, len), 0);
	drain(r);
	assert_int_equal(stats(r).not_found, 2);
	assert_int_equal(stats(r).in_flight, 0);
	assert_int_equal(stats(r).state, CONNTRACK_OK);
}

static void
missing_answers_cap_queries_and_free_slots(void **state)
{
	struct rig	*r = *state;
	struct cake_pkt	 pkt;
	unsigned int	 k;

	for (k = 0; k < FLOWS_MANY; k++) {
		classify(r, k, &pkt);
		assert_false(pkt.hash_valid);
	}
	drain(r);
	assert_int_equal(stats(r).in_flight, CONNTRACK_INFLIGHT_MAX);
	assert_int_equal(stats(r).queries, CONNTRACK_INFLIGHT_MAX);
	assert_int_equal(stats(r).query_skipped,
	    FLOWS_MANY - CONNTRACK_INFLIGHT_MAX);
	/* Meanwhile a flow is not asked about again (negative entry). */
	classify(r, 0, &pkt);
	assert_false(pkt.hash_valid);
	assert_int_equal(stats(r).queries, CONNTRACK_INFLIGHT_MAX);
	/* A second on, every slot is free again for new questions. */
	fake_timer.now_ns += CONNTRACK_QUERY_TIMEOUT_NS + 1 * MS;
	for (k = FLOWS_MANY; k < FLOWS_MANY + CONNTRACK_INFLIGHT_MAX; k++)
		classify(r, k, &pkt);
	assert_int_equal(stats(r).query_timeouts, CONNTRACK_INFLIGHT_MAX);
	assert_int_equal(stats(r).in_flight, CONNTRACK_INFLIGHT_MAX);
	assert_int_equal(stats(r).queries, 2 * CONNTRACK_INFLIGHT_MAX);
	assert_int_equal(stats(r).state, CONNTRACK_OK);
	/* And the last one answered is used. */
	answer(fake_mnl.nqueries - 1, FLOWS_MANY + CONNTRACK_INFLIGHT_MAX - 1);
	drain(r);
	assert_int_equal(stats(r).in_flight, CONNTRACK_INFLIGHT_MAX - 1);
	assert_known(r, FLOWS_MANY + CONNTRACK_INFLIGHT_MAX - 1);
}

static void
failing_queries_back_off_then_recover(void **state)
{
	struct rig	*r = *state;
	struct cake_pkt	 pkt;
	uint8_t		 msg[FAKE_MNL_MSG_MAX];
	size_t		 len;

	classify(r, 0, &pkt);
	len = fake_mnl_error(msg, fake_mnl.seqs[1], EPERM);
	assert_int_equal(fake_mnl_deliver(fake_mnl.queries, msg, len), 0);
	drain(r);
	assert_int_equal(stats(r).query_failures, 1);
	assert_int_equal(stats(r).state, CONNTRACK_DEGRADED);
	assert_int_equal(stats(r).in_flight, 0);
	/* Backing off: no query for a new flow at once... */
	classify(r, 1, &pkt);
	assert_int_equal(stats(r).queries, 1);
	assert_int_equal(stats(r).query_skipped, 1);
	/* ...but after the back-off, and its answer heals the state. */
	fake_timer.now_ns += 200 * MS;
	classify(r, 2, &pkt);
	assert_int_equal(stats(r).queries, 2);
	answer(fake_mnl.nqueries - 1, 2);
	drain(r);
	assert_int_equal(stats(r).state, CONNTRACK_OK);
	assert_known(r, 2);
}

/* threads = 2: what the sink received, as a packet thread's inbox. */
struct sink {
	struct natcache_msg	m[8];
	unsigned int		n;
};

static void
sink_take(void *arg, const struct natcache_msg *m)
{
	struct sink	*k = arg;

	assert_true(k->n < 8);
	k->m[k->n++] = *m;
}

/*
 * threads = 2: a packet thread's cache misses, main asks with the tuple
 * natcache_classify() gave, the answer and a destroy event go to the
 * sink (not conntrack's own cache), and applied to the thread's cache
 * they make the flow known, then forgotten.
 */
static void
threads_ask_through_main_and_learn_from_the_sink(void **state)
{
	struct rig		*r = *state;
	struct natcache		*c = natcache_create(64, 60000 * MS, 7);
	struct sink		 k = { .n = 0 };
	struct cake_tuple	 orig, reply, ask;
	struct cake_pkt		 pkt;
	uint8_t			 msg[FAKE_MNL_MSG_MAX];
	size_t			 len;

	assert_non_null(c);
	conntrack_set_sink(r->ct, sink_take, &k);
	flow(0, &orig, &reply);
	frame(0, &pkt);
	assert_true(natcache_classify(c, &pkt, false, true, true,
	    fake_timer.now_ns, &ask));
	assert_memory_equal(&ask, &reply, sizeof(ask));
	conntrack_ask(r->ct, &ask, fake_timer.now_ns);
	assert_int_equal(stats(r).queries, 1);
	answer(1, 0);
	drain(r);
	assert_int_equal(stats(r).in_flight, 0);
	assert_int_equal(stats(r).cache.entries, 0);	/* main has none */
	assert_int_equal(k.n, 1);
	assert_int_equal(k.m[0].kind, NATCACHE_MSG_PUT);
	assert_memory_equal(&k.m[0].lan_out, &orig, sizeof(orig));
	assert_memory_equal(&k.m[0].wan_in, &reply, sizeof(reply));
	assert_int_equal(k.m[0].mark, MARK);
	assert_true(natcache_apply(c, &k.m[0]));
	frame(0, &pkt);
	assert_false(natcache_classify(c, &pkt, false, true, true,
	    fake_timer.now_ns, &ask));
	assert_true(pkt.hash_valid);
	assert_memory_equal(&pkt.hash_tuple, &orig, sizeof(orig));
	assert_int_equal(pkt.mark, MARK);
	/* The connection ends: a destroy event. */
	len = fake_mnl_entry(msg, 0, &orig, &reply, IPS_SRC_NAT, MARK);
	((struct nlmsghdr *)(void *)msg)->nlmsg_type =
	    (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE;
	assert_int_equal(fake_mnl_deliver(fake_mnl.events, msg, len), 0);
	drain(r);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.m[1].kind, NATCACHE_MSG_REMOVE);
	assert_true(natcache_apply(c, &k.m[1]));
	frame(0, &pkt);
	assert_true(natcache_classify(c, &pkt, false, true, true,
	    fake_timer.now_ns, &ask));
	assert_false(pkt.hash_valid);
	natcache_destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(answer_in_time_is_used,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    late_answer_is_used_and_counted_once,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    duplicated_answers_free_one_slot,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    missing_answers_cap_queries_and_free_slots,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    failing_queries_back_off_then_recover,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    threads_ask_through_main_and_learn_from_the_sink,
		    rig_setup, rig_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
