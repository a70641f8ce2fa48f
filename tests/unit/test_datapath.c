/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_datapath.c: the real src/daemon/datapath.c (with the real engine,
 * pool.c and gro.c) against scripted devices: tests/fake/fake_tun.c and
 * fake_vnet.c are linked in place of tun.c and vnet.c. A frame refused
 * with EAGAIN is held and leaves first; 10^5 frames under random
 * refusals all end as sent or in exactly one counter; a device that is
 * gone ends the path with DATAPATH_GONE; segments of one TCP flow leave
 * as one super-packet. With two queues per device, a flood on one queue
 * cannot starve a quiet flow on the other (it does with one queue), and
 * each flow is written to one queue. With a packet thread's NAT cache a
 * miss is posted to main once and a hit hashes by the pre-NAT host.
 */
#include <sys/eventfd.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "common/json.h"
#include "engine/csum.h"
#include "daemon/datapath.h"
#include "daemon/handoff.h"
#include "daemon/inbox.h"
#include "daemon/natcache.h"
#include "daemon/pool.h"
#include "engine/tsrtt.h"
#include "fake/fake_tun.h"

#define IN_FD		(FAKE_TUN_FD0 + 0)
#define OUT_FD		(FAKE_TUN_FD0 + 1)
#define IN_FD2		(FAKE_TUN_FD0 + 2)	/* second queues */
#define OUT_FD2		(FAKE_TUN_FD0 + 3)
#define TAP_QUEUE_LEN	128	/* frames a fake queue holds */
#define WAKEUPS		200
#define QUIET_SEQ	0x80000000U	/* the quiet flow's frames */
#define FLOWS		4
#define UDP_FRAME	(20 + 8 + 64)
#define SEG_PAYLOAD	100
#define SEG_FRAME	(20 + 20 + SEG_PAYLOAD)
#define MANY		100000
#define T0		1000000000ULL

struct rig {
	struct pool	*pool;
	struct group	*group;		/* one worker: */
	struct cake	*cake;		/* the instance */
	struct datapath	 dp;
	struct fake_tun	*in, *out;
	/* What the egress device accepted, in order. */
	uint32_t	*seen;		/* sequence numbers */
	uint32_t	 nseen, maxseen;
	uint32_t	 pieces;	/* of the last accepted write */
	uint32_t	 last_len;
	uint8_t		 last_gso;
	uint16_t	 last_gso_size;
	uint8_t		 last_frame[SEG_FRAME * 16];
	/* The random policy: refusals it made. */
	uint64_t	 rng;
	uint64_t	 again, eio;
	int		 refuse_first;	/* errno for writes < refuse_n */
	uint64_t	 refuse_n;
};

static uint64_t
rig_rand(struct rig *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng;
}

/* An IPv4 header for len bytes of proto, DF, its checksum set. */
static void
ipv4(uint8_t *ip, uint32_t len, uint8_t proto, uint16_t id)
{
	uint32_t	sum = 0;
	int		i;

	memset(ip, 0, 20);
	ip[0] = 0x45;
	csum_put16(ip + 2, len);
	csum_put16(ip + 4, id);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = proto;
	csum_put32(ip + 12, 0xc0000201);
	csum_put32(ip + 16, 0xc6336402);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	csum_put16(ip + 10, ~sum & 0xffff);
}

/* The flow of frame seq: scattered, but known when it comes out. */
static unsigned int
flow_of(uint32_t seq)
{
	return (seq * 2654435761U) >> 30;
}

/* Queues on fd a UDP datagram of flow (its source port) carrying seq. */
static int
push_udp_fd(int fd, unsigned int flow, uint32_t seq)
{
	uint8_t	f[UDP_FRAME];

	memset(f, 0, sizeof(f));
	ipv4(f, sizeof(f), 17, (uint16_t)seq);
	csum_put16(f + 20, 4000 + flow);
	csum_put16(f + 22, 5000);
	csum_put16(f + 24, sizeof(f) - 20);
	csum_put32(f + 28, seq);
	return fake_tun_push(fd, f, sizeof(f));
}

static void
push_udp(struct rig *r, unsigned int flow, uint32_t seq)
{
	assert_int_equal(push_udp_fd(IN_FD, flow, seq), 0);
	(void)r;
}

/* TCP segment i of one flow (ACK only, SEG_PAYLOAD bytes of i). */
static void
push_seg(unsigned int i)
{
	uint8_t	f[SEG_FRAME];

	memset(f, 0, sizeof(f));
	ipv4(f, sizeof(f), 6, (uint16_t)(100 + i));
	csum_put16(f + 20, 40000);
	csum_put16(f + 22, 443);
	csum_put32(f + 24, 1000 + i * SEG_PAYLOAD);
	csum_put32(f + 28, 1);
	f[32] = 5 << 4;
	f[33] = 0x10;
	csum_put16(f + 34, 65535);
	memset(f + 40, (int)i, SEG_PAYLOAD);
	assert_int_equal(fake_tun_push(IN_FD, f, sizeof(f)), 0);
}

static void
sink(void *arg, const uint8_t *frame, uint32_t len, unsigned int pieces,
    const struct cake_pkt *desc)
{
	struct rig	*r = arg;

	assert_true(r->nseen < r->maxseen);
	/* UDP frames carry a sequence number; segments their TCP seq. */
	r->seen[r->nseen++] = frame[9] == 17 ? csum_get32(frame + 28) :
	    csum_get32(frame + 24);
	r->pieces = pieces;
	r->last_len = len;
	r->last_gso = desc != NULL ? desc->gso_type : 0;
	r->last_gso_size = desc != NULL ? desc->gso_size : 0;
	if (len <= sizeof(r->last_frame))
		memcpy(r->last_frame, frame, len);
}

static int
policy(void *arg, uint64_t n)
{
	struct rig	*r = arg;
	uint64_t	 x;

	if (n < r->refuse_n)
		return r->refuse_first;
	if (r->rng == 0)
		return 0;
	x = rig_rand(r) % 1000;
	if (x < 30) {
		r->again++;
		return EAGAIN;
	}
	if (x < 33) {
		r->eio++;
		return EIO;
	}
	return 0;
}

/* A rig whose engine is a group of workers isolating flows by mode. */
static void
rig_init_group(struct rig *r, bool vnet, uint64_t rate_Bps,
    unsigned int workers, enum cake_flow_mode mode)
{
	struct cake_config	cfg;
	struct cake_env		env;
	int			err;

	memset(r, 0, sizeof(*r));
	fake_tun_reset();
	r->in = fake_tun_add(IN_FD, vnet);
	r->out = fake_tun_add(OUT_FD, vnet);
	r->out->policy = policy;
	r->out->sink = sink;
	r->out->arg = r;
	r->maxseen = MANY;
	assert_non_null(r->seen = calloc(r->maxseen, sizeof(*r->seen)));
	assert_non_null(r->pool = pool_create(1600));
	cake_config_default(&cfg);
	cfg.rate_Bps = rate_Bps;
	cfg.flow_mode = mode;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = 1;
	env.alloc = pool_alloc;
	env.alloc_arg = r->pool;
	env.keep_partial_csum = vnet;
	assert_non_null(r->group = group_create(&cfg, &env, workers,
	    GROUP_SIDE_SRC, &err));
	r->cake = group_worker(r->group, 0);
	datapath_init(&r->dp, "test", IN_FD, OUT_FD, CAKE_LINK_IP, r->group,
	    r->pool);
	assert_int_equal(r->dp.in_vnet, vnet);
}

static void
rig_init(struct rig *r, bool vnet, uint64_t rate_Bps)
{
	rig_init_group(r, vnet, rate_Bps, 1, CAKE_FLOW_TRIPLE);
}

/* Everything went back to the pool: nothing leaked, nothing lost twice. */
static void
rig_done(struct rig *r)
{
	struct pool_stats	st;

	datapath_flush(&r->dp);
	pool_get_stats(r->pool, &st);
	assert_int_equal(st.free, st.bufs);
	group_destroy(r->group);
	pool_destroy(r->pool);
	free(r->seen);
	fake_tun_reset();
}

static uint64_t
drops(const struct datapath *dp)
{
	uint64_t	n = 0;
	int		i;

	for (i = 0; i < DATAPATH_DROP_REASONS; i++)
		if (i != CAKE_DROP_SPLIT)
			n += dp->st.drops[i];
	return n;
}

static void
eagain_frame_is_held_and_leaves_first(void **state)
{
	struct rig	r;
	uint32_t	i;

	(void)state;
	rig_init(&r, false, 0);
	r.refuse_first = EAGAIN;
	r.refuse_n = 2;		/* two refusals, then the device drains */
	for (i = 1; i <= 3; i++)
		push_udp(&r, 0, i);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.dp.st.rx_pkts, 3);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_BLOCKED);
	assert_non_null(r.dp.held);
	assert_int_equal(r.dp.st.tx_blocked, 1);
	assert_int_equal(r.nseen, 0);
	/* Blocked: the loop waits for EV_WRITE, never for the timer. */
	assert_true(datapath_next_ns(&r.dp, T0) == CAKE_TIME_NEVER);
	/* Still full: held again, nothing dropped or sent. */
	assert_int_equal(datapath_send(&r.dp, T0 + 1), DATAPATH_BLOCKED);
	assert_int_equal(r.dp.st.tx_blocked, 2);
	for (i = 4; i <= 5; i++)
		push_udp(&r, 0, i);
	assert_int_equal(datapath_read(&r.dp, T0 + 2), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0 + 3), DATAPATH_OK);
	assert_null(r.dp.held);
	assert_int_equal(r.nseen, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(r.seen[i], i + 1);
	assert_int_equal(r.dp.st.tx_pkts, 5);
	assert_int_equal(r.dp.st.tx_errors, 0);
	assert_int_equal(drops(&r.dp), 0);
	rig_done(&r);
}

static void
eio_drops_one_counted_frame_and_goes_on(void **state)
{
	struct rig	r;
	uint32_t	i;

	(void)state;
	rig_init(&r, false, 0);
	r.refuse_first = EIO;
	r.refuse_n = 1;
	for (i = 1; i <= 3; i++)
		push_udp(&r, 0, i);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.dp.st.tx_errors, 1);
	assert_int_equal(r.dp.st.tx_pkts, 2);
	assert_int_equal(r.nseen, 2);
	assert_int_equal(r.seen[0], 2);
	assert_int_equal(r.seen[1], 3);
	assert_null(r.dp.held);
	rig_done(&r);
}

/*
 * The stats JSON names each worker with what it sent (more than one
 * worker only): worker i's "sent_packets" is its instance's count.
 */
static void
workers_json_says_who_sent(struct rig *r, unsigned int workers)
{
	static char		buf[65536];
	struct json_writer	w;
	struct cake_stats	st;
	char			want[64];
	const char		*p;
	unsigned int		i;

	json_init(&w, buf, sizeof(buf));
	json_object_begin(&w, NULL);
	datapath_json(&r->dp, &w, T0);
	json_object_end(&w);
	p = strstr(buf, "\"workers\":[");
	if (workers == 1) {
		assert_null(p);
		return;
	}
	assert_non_null(p);
	for (i = 0; i < workers; i++) {
		cake_get_stats(group_worker(r->group, i), &st);
		snprintf(want, sizeof(want), "\"sent_packets\":%" PRIu64,
		    st.sent_pkts);
		assert_non_null(p = strstr(p, want));
	}
}

/* Random batches, random refusals, a clock that moves: every frame read
 * ends as sent or in exactly one counter, none twice, none reordered. */
static void
random_refusals(unsigned int workers)
{
	struct rig	 r;
	uint32_t	 last[FLOWS], seq = 0, k, i;
	uint64_t	 now = T0;
	uint8_t		*hit;
	int		 rv, rounds = 0;

	rig_init_group(&r, false, 0, workers, workers > 1 ?
	    CAKE_FLOW_FLOWS : CAKE_FLOW_TRIPLE);
	r.rng = 0x9e3779b97f4a7c15ULL;
	assert_non_null(hit = calloc(MANY + 1, 1));
	while (seq < MANY) {
		k = (uint32_t)(rig_rand(&r) % 48);
		for (i = 0; i < k && seq < MANY; i++) {
			seq++;
			push_udp(&r, flow_of(seq), seq);
		}
		while (r.in->rx_count > 0)
			assert_int_equal(datapath_read(&r.dp, now),
			    DATAPATH_OK);
		now += rig_rand(&r) % 50000;
		/* As the loop does: the timer, then EV_WRITE while blocked. */
		for (i = 0; i < 8; i++) {
			rv = datapath_send(&r.dp, now);
			assert_true(rv == DATAPATH_OK ||
			    rv == DATAPATH_BLOCKED);
			assert_true((rv == DATAPATH_BLOCKED) ==
			    (r.dp.held != NULL));
			if (rv == DATAPATH_OK)
				break;
		}
	}
	r.rng = 0;	/* the device drains */
	while (r.dp.held != NULL || group_next_ns(r.group, now) !=
	    CAKE_TIME_NEVER) {
		assert_int_equal(datapath_send(&r.dp, now), DATAPATH_OK);
		now += 1000;
		assert_true(++rounds < 10000);
	}
	print_message("frames %u: sent %" PRIu64 ", EAGAIN %" PRIu64
	    ", EIO %" PRIu64 ", engine drops %" PRIu64 ", no buffer %"
	    PRIu64 "\n", MANY, r.dp.st.tx_pkts, r.again, r.eio, drops(&r.dp),
	    r.dp.st.rx_nobuf);
	/* Refusals really happened, at the policy's rates. */
	assert_int_equal(r.dp.st.tx_blocked, r.again);
	assert_int_equal(r.dp.st.tx_errors, r.eio);
	assert_true(r.again > MANY / 100);
	assert_true(r.eio > MANY / 1000);
	/* Every frame read: sent, failed or dropped by the engine. */
	assert_int_equal(r.dp.st.rx_pkts + r.dp.st.rx_nobuf +
	    r.dp.st.rx_oversize + r.dp.st.rx_empty, MANY);
	assert_int_equal(r.dp.st.rx_pkts, r.dp.st.tx_pkts +
	    r.dp.st.tx_errors + drops(&r.dp));
	assert_int_equal(r.nseen, r.dp.st.tx_pkts);
	assert_true(r.nseen > MANY * 9 / 10);
	/* No frame twice; within a flow, never out of order. */
	memset(last, 0, sizeof(last));
	for (i = 0; i < r.nseen; i++) {
		assert_true(r.seen[i] >= 1 && r.seen[i] <= MANY);
		assert_int_equal(hit[r.seen[i]], 0);
		hit[r.seen[i]] = 1;
	}
	for (i = 0; i < r.nseen; i++) {
		k = flow_of(r.seen[i]);
		assert_true(r.seen[i] > last[k]);
		last[k] = r.seen[i];
	}
	free(hit);
	for (i = 0, k = 0; i < workers; i++) {
		struct cake_stats	st;

		cake_get_stats(group_worker(r.group, i), &st);
		k += st.sent_pkts > 0;
	}
	print_message("workers %u, of which %u sent\n", workers, k);
	assert_true(workers == 1 || k > 1);
	workers_json_says_who_sent(&r, workers);
	rig_done(&r);
}

static void
many_frames_under_random_refusals_are_all_accounted(void **state)
{
	(void)state;
	random_refusals(1);
}

/* The same through three workers, the flows spread over them. */
static void
many_frames_through_workers_are_all_accounted(void **state)
{
	(void)state;
	random_refusals(3);
}

static void
device_gone_on_write_ends_with_gone(void **state)
{
	struct rig	r;
	uint32_t	i;

	(void)state;
	rig_init(&r, false, 0);
	r.out->gone_after = 2;
	for (i = 1; i <= 5; i++)
		push_udp(&r, 0, i);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_GONE);
	assert_int_equal(r.dp.gone_errno, EBADFD);
	assert_int_equal(r.nseen, 2);
	assert_int_equal(r.dp.st.tx_errors, 1);
	/* The rest stays queued and is flushed (counted) by rig_done(). */
	rig_done(&r);
}

static void
device_gone_on_read_ends_with_gone(void **state)
{
	struct rig	r;

	(void)state;
	rig_init(&r, false, 0);
	r.in->rx_err = ENODEV;
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_GONE);
	assert_int_equal(r.dp.gone_errno, ENODEV);
	assert_int_equal(r.dp.st.rx_errors, 1);
	/* Any other failed read is counted and the path goes on. */
	r.in->rx_err = EIO;
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.dp.st.rx_errors, 2);
	rig_done(&r);
}

static void
empty_pool_discards_and_counts(void **state)
{
	struct rig		 r;
	struct cake_pkt		*all[POOL_BUFS_MAX];
	uint32_t		 n = 0, i;

	(void)state;
	rig_init(&r, false, 0);
	while (n < POOL_BUFS_MAX && (all[n] = pool_get(r.pool)) != NULL)
		n++;
	for (i = 1; i <= 3; i++)
		push_udp(&r, 0, i);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.dp.st.rx_nobuf, 3);
	assert_int_equal(r.dp.st.rx_pkts, 0);
	assert_int_equal(r.in->rx_count, 0);
	for (i = 0; i < n; i++)
		pool_put(r.pool, all[i]);
	rig_done(&r);
}

static void
tcp_segments_leave_as_one_super_packet(void **state)
{
	struct rig	r;
	unsigned int	i;

	(void)state;
	rig_init(&r, true, 0);
	for (i = 0; i < 8; i++)
		push_seg(i);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.out->written, 1);
	assert_int_equal(r.nseen, 1);
	assert_int_equal(r.pieces, 8);
	assert_int_equal(r.dp.st.tx_coalesced, 8);
	assert_int_equal(r.dp.st.tx_pkts, 1);
	assert_int_equal(r.last_gso, CAKE_GSO_TCPV4);
	assert_int_equal(r.last_gso_size, SEG_PAYLOAD);
	assert_int_equal(r.last_len, 40 + 8 * SEG_PAYLOAD);
	assert_int_equal(csum_get32(r.last_frame + 24), 1000);
	for (i = 0; i < 8; i++)
		assert_int_equal(r.last_frame[40 + i * SEG_PAYLOAD + 7], i);
	rig_done(&r);
}

static void
refused_super_packet_is_held_whole_in_order(void **state)
{
	struct rig	r;
	unsigned int	i;

	(void)state;
	rig_init(&r, true, 0);
	r.refuse_first = EAGAIN;
	r.refuse_n = 1;
	for (i = 0; i < 8; i++)
		push_seg(i);
	push_udp(&r, 0, 77);	/* the packet after the run */
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_BLOCKED);
	assert_int_equal(r.nseen, 0);
	assert_int_equal(datapath_send(&r.dp, T0 + 1), DATAPATH_OK);
	/* Held packets leave one by one, in their order, then the rest. */
	assert_int_equal(r.nseen, 9);
	for (i = 0; i < 8; i++)
		assert_int_equal(r.seen[i], 1000 + i * SEG_PAYLOAD);
	assert_int_equal(r.seen[8], 77);
	assert_int_equal(r.dp.st.tx_pkts, 9);
	rig_done(&r);
}

/*
 * The passive delay sees a segment as it arrives and as it leaves: the
 * round trip it gives starts at the departure, so caked's own 5 ms of
 * queueing are not in it.
 */
static void
tsrtt_times_from_departure(void **state)
{
	static struct tsrtt	ts;
	struct tsrtt_seg	echo;
	struct rig		r;
	uint8_t			f[20 + 32 + SEG_PAYLOAD];
	uint64_t		lan, wan, ms = 1000000;

	(void)state;
	rig_init(&r, false, 0);
	tsrtt_init(&ts);
	datapath_set_tsrtt(&r.dp, &ts, true);
	memset(f, 0, sizeof(f));
	ipv4(f, sizeof(f), 6, 1);
	csum_put16(f + 20, 40000);
	csum_put16(f + 22, 443);
	csum_put32(f + 24, 1000);
	f[32] = 8 << 4;
	f[33] = 0x10;
	f[40] = f[41] = 1;		/* NOP NOP TS: TSval 77, TSecr 5 */
	f[42] = 8;
	f[43] = 10;
	csum_put32(f + 44, 77);
	csum_put32(f + 48, 5);
	assert_int_equal(fake_tun_push(IN_FD, f, sizeof(f)), 0);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(ts.c.segments, 1);
	assert_int_equal(datapath_send(&r.dp, T0 + 5 * ms), DATAPATH_OK);
	assert_int_equal(r.nseen, 1);
	assert_int_equal(ts.c.segments, 2);
	/* The WAN host's echo, 20 ms after the departure. */
	memset(&echo, 0, sizeof(echo));
	echo.lan[10] = echo.lan[11] = echo.wan[10] = echo.wan[11] = 0xff;
	memcpy(echo.lan + 12, f + 12, 4);
	memcpy(echo.wan + 12, f + 16, 4);
	echo.lan_port = 40000;
	echo.wan_port = 443;
	echo.family = 4;
	echo.flags = 0x10;
	echo.tsval = 9;
	echo.tsecr = 77;
	tsrtt_segment(&ts, TSRTT_WAN_ARRIVE, &echo, T0 + 25 * ms);
	tsrtt_host(&ts, echo.lan, 4, T0 + 30 * ms, &lan, &wan);
	assert_int_equal(wan, 20 * ms);
	rig_done(&r);
}

/* Each out queue's accepted frames: which flows (source ports) it saw. */
struct mq_seen {
	struct rig	*r;
	uint32_t	 flows;		/* bit (port - 4000) */
};

static void
mq_sink(void *arg, const uint8_t *frame, uint32_t len, unsigned int pieces,
    const struct cake_pkt *desc)
{
	struct mq_seen	*m = arg;

	m->flows |= 1U << ((csum_get16(frame + 20) - 4000) & 31);
	sink(m->r, frame, len, pieces, desc);
}

/* Gives r's datapath a second queue on each device. */
static struct fake_tun *
rig_two_queues(struct rig *r, struct mq_seen *m)
{
	const int	 in[2] = { IN_FD, IN_FD2 };
	const int	 out[2] = { OUT_FD, OUT_FD2 };
	struct fake_tun	*in2, *out2;

	in2 = fake_tun_add(IN_FD2, false);
	out2 = fake_tun_add(OUT_FD2, false);
	m[0].r = m[1].r = r;
	r->out->sink = out2->sink = mq_sink;
	r->out->arg = &m[0];
	out2->arg = &m[1];
	datapath_set_queues(&r->dp, in, 2, out, 2);
	return in2;
}

/* As the loop's poll does: each queue that has frames, read once. */
static void
wakeup(struct rig *r, uint64_t now)
{
	unsigned int	q;

	for (q = 0; q < r->dp.in_queues; q++)
		if (fake_tun_ready(r->dp.in_fds[q], EV_READ))
			assert_int_equal(datapath_read_fd(&r->dp,
			    r->dp.in_fds[q], now), DATAPATH_OK);
}

/*
 * WAKEUPS wakeups; before each, one flow floods flood_fd with twice a
 * batch, another offers quiet_fd one frame in the middle of it; each
 * wakeup reads the ready queues and sends everything (unlimited).
 * Returns how many of the quiet flow's frames were sent.
 */
static uint32_t
flood_run(struct rig *r, int flood_fd, int quiet_fd)
{
	uint32_t	i, k, seq = 0, quiet = 0;

	for (i = 0; i < WAKEUPS; i++) {
		for (k = 0; k < 2 * DATAPATH_RX_BATCH; k++) {
			(void)push_udp_fd(flood_fd, 1, ++seq);
			if (k == DATAPATH_RX_BATCH)
				(void)push_udp_fd(quiet_fd, 2, QUIET_SEQ | i);
		}
		wakeup(r, T0 + i);
		assert_int_equal(datapath_send(&r->dp, T0 + i), DATAPATH_OK);
	}
	for (i = 0; i < r->nseen; i++)
		quiet += (r->seen[i] & QUIET_SEQ) != 0;
	return quiet;
}

static void
flooded_queue_cannot_starve_a_quiet_one(void **state)
{
	struct mq_seen	 m[2];
	struct fake_tun	*in2;
	struct rig	 r;
	uint32_t	 quiet;

	(void)state;
	/* One queue: the flood keeps it full, the quiet flow's frames die. */
	rig_init(&r, false, 0);
	r.in->rx_limit = TAP_QUEUE_LEN;
	quiet = flood_run(&r, IN_FD, IN_FD);
	print_message("one queue: quiet flow %u of %u, queue drops %" PRIu64
	    "\n", quiet, WAKEUPS, r.in->rx_dropped);
	assert_true(r.in->rx_dropped > WAKEUPS * DATAPATH_RX_BATCH / 2);
	assert_true(quiet < WAKEUPS / 10);
	rig_done(&r);
	/* Two: the flood fills its own; the other is read every wakeup. */
	rig_init(&r, false, 0);
	in2 = rig_two_queues(&r, m);
	r.in->rx_limit = in2->rx_limit = TAP_QUEUE_LEN;
	quiet = flood_run(&r, IN_FD, IN_FD2);
	print_message("two queues: quiet flow %u of %u, flooded queue drops %"
	    PRIu64 ", quiet queue drops %" PRIu64 "\n", quiet, WAKEUPS,
	    r.in->rx_dropped, in2->rx_dropped);
	assert_true(r.in->rx_dropped > WAKEUPS * DATAPATH_RX_BATCH / 2);
	assert_int_equal(in2->rx_dropped, 0);
	assert_int_equal(quiet, WAKEUPS);
	/* The flood still got a whole batch each wakeup. */
	assert_int_equal(r.in->reads, (uint64_t)WAKEUPS * DATAPATH_RX_BATCH);
	rig_done(&r);
}

static void
each_flow_is_written_to_one_queue(void **state)
{
	struct mq_seen	m[2];
	struct rig	r;
	uint32_t	seq;

	(void)state;
	rig_init(&r, false, 0);
	(void)rig_two_queues(&r, m);
	memset(m, 0, sizeof(m));
	m[0].r = m[1].r = &r;
	for (seq = 0; seq < 16 * 20; seq++)
		push_udp(&r, seq % 16, seq);
	while (r.in->rx_count > 0)
		assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	while (cake_next_ns(r.cake, T0) != CAKE_TIME_NEVER)
		assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.nseen, 16 * 20);
	/* Both queues used, no flow on both. */
	assert_int_not_equal(m[0].flows, 0);
	assert_int_not_equal(m[1].flows, 0);
	assert_int_equal(m[0].flows & m[1].flows, 0);
	assert_int_equal(m[0].flows | m[1].flows, 0xffff);
	rig_done(&r);
}

static void
flows_move_off_a_busy_queue(void **state)
{
	struct mq_seen	m[2];
	struct rig	r;
	uint32_t	seq, before[2];
	_Atomic uint32_t hot = 0;

	(void)state;
	rig_init(&r, false, 0);
	(void)rig_two_queues(&r, m);
	memset(m, 0, sizeof(m));
	m[0].r = m[1].r = &r;
	r.dp.out_hot = &hot;
	for (seq = 0; seq < 16; seq++)
		push_udp(&r, seq, seq);
	(void)datapath_read(&r.dp, T0);
	assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_OK);
	before[0] = m[0].flows;
	before[1] = m[1].flows;
	assert_int_not_equal(before[0], 0);
	/* Queue 0 busy: its flows go to queue 1, queue 1's stay. */
	hot = 1;
	memset(m, 0, sizeof(m));
	m[0].r = m[1].r = &r;
	for (seq = 0; seq < 16; seq++)
		push_udp(&r, seq, 16 + seq);
	(void)datapath_read(&r.dp, T0 + 1);
	assert_int_equal(datapath_send(&r.dp, T0 + 1), DATAPATH_OK);
	assert_int_equal(m[0].flows, 0);
	assert_int_equal(m[1].flows, before[0] | before[1]);
	/* Both busy: each flow keeps its own. */
	hot = 3;
	memset(m, 0, sizeof(m));
	m[0].r = m[1].r = &r;
	for (seq = 0; seq < 16; seq++)
		push_udp(&r, seq, 32 + seq);
	(void)datapath_read(&r.dp, T0 + 2);
	assert_int_equal(datapath_send(&r.dp, T0 + 2), DATAPATH_OK);
	assert_int_equal(m[0].flows, before[0]);
	assert_int_equal(m[1].flows, before[1]);
	rig_done(&r);
}

static void
reading_marks_a_queue_busy_while_frames_wait(void **state)
{
	struct rig	r;
	uint32_t	seq;

	(void)state;
	rig_init(&r, false, 0);
	for (seq = 0; seq < DATAPATH_RX_BATCH + 1; seq++)
		push_udp(&r, 0, seq);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_int_equal(r.dp.in_hot, 1);	/* one frame left */
	assert_int_equal(datapath_read(&r.dp, T0 + 1), DATAPATH_OK);
	assert_int_equal(r.dp.in_hot, 1);	/* drained, but held busy */
	push_udp(&r, 0, seq);
	assert_int_equal(datapath_read(&r.dp, T0 + DATAPATH_BUSY_HOLD_NS + 1),
	    DATAPATH_OK);
	assert_int_equal(r.dp.in_hot, 0);	/* quiet for the hold time */
	while (cake_next_ns(r.cake, T0) != CAKE_TIME_NEVER)
		assert_int_equal(datapath_send(&r.dp, T0), DATAPATH_OK);
	rig_done(&r);
}

static void
device_gone_on_any_queue_ends_with_gone(void **state)
{
	struct mq_seen	 m[2];
	struct fake_tun	*in2;
	struct rig	 r;

	(void)state;
	rig_init(&r, false, 0);
	in2 = rig_two_queues(&r, m);
	push_udp(&r, 0, 1);
	in2->rx_err = EBADFD;
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_GONE);
	assert_int_equal(r.dp.gone_errno, EBADFD);
	rig_done(&r);
}

/* The packets sent for host addr (IPv4, the last 4 bytes of a tuple). */
static uint64_t
host_pkts(const struct rig *r, const uint8_t addr[4])
{
	struct hostacct_entry	e[8];
	unsigned int		i, n;

	n = hostacct_busiest(&r->dp.hosts, T0 + 1, e, 8);
	for (i = 0; i < n; i++)
		if (memcmp(e[i].addr + 12, addr, 4) == 0)
			return e[i].pkts;
	return 0;
}

/*
 * threads = 2: the datapath looks frames up in its thread's own cache;
 * a miss posts the tuple to ask conntrack about (an outbound frame's
 * reversed) once, and after main's answer entered the cache the
 * flow's frames count for its pre-NAT host.
 */
static void
nat_cache_miss_is_posted_once_then_hits(void **state)
{
	static const uint8_t	 lan[4] = { 10, 0, 0, 2 };
	static const uint8_t	 wan[4] = { 192, 0, 2, 1 };
	static const uint8_t	 far[4] = { 198, 51, 100, 2 };
	struct rig		 r;
	struct natcache		*c;
	struct inbox		*ask;
	struct cake_tuple	 t, lan_out;

	(void)state;
	rig_init(&r, false, 0);
	assert_non_null(c = natcache_create(64, 60 * T0, 1));
	assert_non_null(ask = inbox_create(8, sizeof(struct cake_tuple)));
	datapath_set_natcache(&r.dp, c, ask, false);
	datapath_set_nat(&r.dp, true, false);
	push_udp(&r, 0, 1);
	push_udp(&r, 0, 2);
	assert_int_equal(datapath_read(&r.dp, T0), DATAPATH_OK);
	assert_true(inbox_take(ask, &t));
	assert_false(inbox_take(ask, &lan_out));	/* asked once */
	assert_memory_equal(t.src + 12, far, 4);
	assert_memory_equal(t.dst + 12, wan, 4);
	assert_int_equal(t.sport, 5000);
	assert_int_equal(t.dport, 4000);
	natcache_reverse(&t, &lan_out);
	memcpy(lan_out.src + 12, lan, 4);
	natcache_put_conn(c, &lan_out, &t, 0, T0);
	push_udp(&r, 0, 3);
	assert_int_equal(datapath_read(&r.dp, T0 + 1), DATAPATH_OK);
	assert_int_equal(datapath_send(&r.dp, T0 + 1), DATAPATH_OK);
	assert_int_equal(r.nseen, 3);
	assert_int_equal(host_pkts(&r, wan), 2);
	assert_int_equal(host_pkts(&r, lan), 1);
	assert_false(inbox_take(ask, &t));
	inbox_destroy(ask);
	natcache_destroy(c);
	rig_done(&r);
}


/* ---- a thread per worker (datapath_set_worker()) ---------------------- */

#define WHOSTS		16	/* source hosts of the worker tests */

/* A UDP frame from host 10.0.1.host carrying seq, into fd. */
static void
push_host(int fd, unsigned int host, uint32_t seq)
{
	uint8_t	f[UDP_FRAME];

	memset(f, 0, sizeof(f));
	ipv4(f, sizeof(f), 17, (uint16_t)seq);
	f[12] = 10;
	f[13] = 0;
	f[14] = 1;
	f[15] = (uint8_t)host;
	f[10] = f[11] = 0;	/* checksums are not checked on the way */
	csum_put16(f + 20, 4000 + host);
	csum_put16(f + 22, 5000);
	csum_put16(f + 24, sizeof(f) - 20);
	csum_put32(f + 28, seq);
	assert_int_equal(fake_tun_push(fd, f, sizeof(f)), 0);
}

/* The worker the group steers host's frames to. */
static unsigned int
worker_of(struct group *g, unsigned int host)
{
	uint8_t		f[UDP_FRAME];
	struct cake_pkt	pkt;

	memset(f, 0, sizeof(f));
	ipv4(f, sizeof(f), 17, 0);
	f[12] = 10;
	f[14] = 1;
	f[15] = (uint8_t)host;
	csum_put16(f + 20, 4000 + host);
	csum_put16(f + 22, 5000);
	csum_put16(f + 24, sizeof(f) - 20);
	memset(&pkt, 0, sizeof(pkt));
	pkt.data = f;
	pkt.len = sizeof(f);
	pkt.cap = sizeof(f);
	return group_steer(g, &pkt);
}

/* Two worker datapaths of a group: dp[w] reads in[w], both write OUT_FD. */
struct wrig {
	struct rig	 r;		/* group, worker 0's pool, the sink */
	struct pool	*pool1;
	struct datapath	 dp[2];
	struct handoff	*h[2];		/* h[j]: to worker j */
	int		 wake[2];	/* eventfds */
};

static void
wrig_init(struct wrig *w, uint64_t rate_Bps, size_t hand_bytes)
{
	struct handoff	*out[GROUP_WORKERS_MAX] = { NULL };
	struct handoff	*in[GROUP_WORKERS_MAX] = { NULL };
	int		 wake[GROUP_WORKERS_MAX];
	unsigned int	 i;

	rig_init_group(&w->r, false, rate_Bps, 2, CAKE_FLOW_SRCHOST);
	(void)fake_tun_add(IN_FD2, false);
	assert_non_null(w->pool1 = pool_create(1600));
	for (i = 0; i < 2; i++) {
		assert_non_null(w->h[i] = handoff_create(hand_bytes));
		assert_true((w->wake[i] = eventfd(0, EFD_NONBLOCK)) != -1);
	}
	datapath_init(&w->dp[0], "w0", IN_FD, OUT_FD, CAKE_LINK_IP,
	    w->r.group, w->r.pool);
	datapath_init(&w->dp[1], "w1", IN_FD2, OUT_FD, CAKE_LINK_IP,
	    w->r.group, w->pool1);
	for (i = 0; i < GROUP_WORKERS_MAX; i++)
		wake[i] = -1;
	/* Reader 0 hands to worker 1 through h[1], and the reverse. */
	out[1] = w->h[1];
	in[1] = w->h[0];
	wake[1] = w->wake[1];
	datapath_set_worker(&w->dp[0], 0, out, in, wake);
	out[0] = w->h[0];
	in[0] = w->h[1];
	wake[0] = w->wake[0];
	out[1] = in[1] = NULL;
	wake[1] = -1;
	datapath_set_worker(&w->dp[1], 1, out, in, wake);
	assert_int_equal(w->dp[1].worker, 1);
}

static bool
woken(int fd)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	uint64_t	v;

	if (poll(&pfd, 1, 0) != 1)
		return false;
	assert_int_equal(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	return true;
}

/* Both pools whole again; the rig freed. */
static void
wrig_done(struct wrig *w)
{
	struct pool_stats	st;
	unsigned int		i;

	datapath_flush(&w->dp[1]);
	pool_get_stats(w->pool1, &st);
	assert_int_equal(st.free, st.bufs);
	w->r.dp = w->dp[0];	/* rig_done() flushes and checks pool 0 */
	rig_done(&w->r);
	for (i = 0; i < 2; i++) {
		handoff_destroy(w->h[i]);
		(void)close(w->wake[i]);
	}
	pool_destroy(w->pool1);
}

/*
 * Reader 0 reads every host's frames: it queues its own worker's, hands
 * the others' bytes to worker 1 (its buffers stay in pool 0) and wakes
 * it; each worker sends only its own hosts, every frame exactly once.
 */
static void
worker_reader_hands_frames_to_their_worker(void **state)
{
	struct wrig	w;
	unsigned int	mine[2] = { 0, 0 }, host, i, k;
	uint32_t	seq;
	bool		*seen;

	(void)state;
	wrig_init(&w, 0, 1 << 20);
	for (host = 0; host < WHOSTS; host++)
		mine[worker_of(w.r.group, host)] += 4;
	assert_true(mine[0] > 0 && mine[1] > 0);	/* both have hosts */
	for (seq = 0; seq < 4 * WHOSTS; seq++)
		push_host(IN_FD, seq % WHOSTS, seq);
	assert_int_equal(datapath_read(&w.dp[0], T0), DATAPATH_OK);
	assert_int_equal(w.dp[0].st.rx_pkts, 4 * WHOSTS);
	assert_int_equal(w.dp[0].st.hand_out, mine[1]);
	assert_int_equal(w.dp[0].st.hand_full, 0);
	assert_true(woken(w.wake[1]));
	assert_false(woken(w.wake[0]));
	assert_int_equal(datapath_take_handed(&w.dp[1], T0), mine[1]);
	assert_int_equal(w.dp[1].st.hand_in, mine[1]);
	assert_int_equal(datapath_take_handed(&w.dp[1], T0), 0);
	assert_int_equal(datapath_send(&w.dp[0], T0), DATAPATH_OK);
	assert_int_equal(w.r.nseen, mine[0]);
	assert_int_equal(datapath_send(&w.dp[1], T0), DATAPATH_OK);
	assert_int_equal(w.r.nseen, 4 * WHOSTS);
	assert_int_equal(w.dp[0].st.tx_pkts, mine[0]);
	assert_int_equal(w.dp[1].st.tx_pkts, mine[1]);
	assert_non_null(seen = calloc(4 * WHOSTS, sizeof(*seen)));
	for (i = 0; i < w.r.nseen; i++) {
		seq = w.r.seen[i];
		assert_true(seq < 4 * WHOSTS && !seen[seq]);
		seen[seq] = true;
		k = i < mine[0] ? 0 : 1;	/* who sent it */
		assert_int_equal(worker_of(w.r.group, seq % WHOSTS), k);
	}
	free(seen);
	wrig_done(&w);
}

/*
 * A full hand-off queue drops the frame, counted, and never blocks; what
 * did fit arrives whole; nothing leaks from either pool.
 */
static void
worker_full_handoff_drops_counted(void **state)
{
	struct wrig	w;
	unsigned int	host = 0;
	uint32_t	seq;

	(void)state;
	wrig_init(&w, 0, 4096);
	while (worker_of(w.r.group, host) != 1)
		host++;
	for (seq = 0; seq < 64; seq++)
		push_host(IN_FD, host, seq);
	assert_int_equal(datapath_read(&w.dp[0], T0), DATAPATH_OK);
	assert_int_equal(w.dp[0].st.hand_out, 64);
	assert_true(w.dp[0].st.hand_full > 0);
	assert_true(w.dp[0].st.hand_full < 64);
	assert_int_equal(datapath_take_handed(&w.dp[1], T0),
	    64 - w.dp[0].st.hand_full);
	assert_int_equal(datapath_send(&w.dp[1], T0), DATAPATH_OK);
	assert_int_equal(w.r.nseen, 64 - w.dp[0].st.hand_full);
	for (seq = 0; seq < w.r.nseen; seq++)	/* in order, none twice */
		assert_int_equal(w.r.seen[seq], seq);
	/* Handed, not yet taken: flushed as drops. */
	push_host(IN_FD, host, 100);
	assert_int_equal(datapath_read(&w.dp[0], T0 + 1), DATAPATH_OK);
	datapath_flush(&w.dp[1]);
	assert_int_equal(w.dp[1].st.drops[CAKE_DROP_FLUSH], 1);
	wrig_done(&w);
}

/*
 * Shaped, a backlogged worker wakes at least every lending period to
 * apply what it was lent: the lender gives the busy worker nearly all
 * of the rate, and its next departure comes sooner.
 */
static void
worker_syncs_each_lending_period(void **state)
{
	struct wrig	w;
	unsigned int	host = 0;
	uint64_t	now = T0, before;
	uint32_t	seq;

	(void)state;
	wrig_init(&w, 125000, 1 << 20);		/* 1 Mbit/s */
	while (worker_of(w.r.group, host) != 1)
		host++;
	for (seq = 0; seq < 60; seq++)
		push_host(IN_FD2, host, seq);
	assert_int_equal(datapath_read(&w.dp[1], now), DATAPATH_OK);
	assert_int_equal(w.dp[1].st.hand_out, 0);	/* its own host */
	assert_int_equal(datapath_send(&w.dp[1], now), DATAPATH_OK);
	datapath_sync(&w.dp[1], now);
	datapath_sync(&w.dp[0], now);
	assert_true(datapath_next_ns(&w.dp[1], now) <=
	    now + GROUP_LEND_PERIOD_NS);
	before = group_lend_rate_Bps(w.r.group, 1);
	for (; now < T0 + 20 * GROUP_LEND_PERIOD_NS;
	    now += GROUP_LEND_PERIOD_NS) {
		group_lend(w.r.group, now);
		(void)datapath_send(&w.dp[1], now);
		datapath_sync(&w.dp[1], now);
		datapath_sync(&w.dp[0], now);
	}
	assert_true(group_lend_rate_Bps(w.r.group, 1) > before);
	assert_true(group_lend_rate_Bps(w.r.group, 1) > 125000 * 9 / 10);
	assert_true(w.r.nseen > 1);
	wrig_done(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eagain_frame_is_held_and_leaves_first),
		cmocka_unit_test(tsrtt_times_from_departure),
		cmocka_unit_test(eio_drops_one_counted_frame_and_goes_on),
		cmocka_unit_test(
		    many_frames_under_random_refusals_are_all_accounted),
		cmocka_unit_test(many_frames_through_workers_are_all_accounted),
		cmocka_unit_test(device_gone_on_write_ends_with_gone),
		cmocka_unit_test(device_gone_on_read_ends_with_gone),
		cmocka_unit_test(empty_pool_discards_and_counts),
		cmocka_unit_test(tcp_segments_leave_as_one_super_packet),
		cmocka_unit_test(refused_super_packet_is_held_whole_in_order),
		cmocka_unit_test(flooded_queue_cannot_starve_a_quiet_one),
		cmocka_unit_test(each_flow_is_written_to_one_queue),
		cmocka_unit_test(device_gone_on_any_queue_ends_with_gone),
		cmocka_unit_test(nat_cache_miss_is_posted_once_then_hits),
		cmocka_unit_test(flows_move_off_a_busy_queue),
		cmocka_unit_test(reading_marks_a_queue_busy_while_frames_wait),
		cmocka_unit_test(worker_reader_hands_frames_to_their_worker),
		cmocka_unit_test(worker_full_handoff_drops_counted),
		cmocka_unit_test(worker_syncs_each_lending_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
