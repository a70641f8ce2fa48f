/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * scenarios.c: the simulator's scenarios: host
 * fairness at 1 000 hosts, 100 000 flows through one tin, TCP-like flows
 * at 20 Mbit and 100 ms RTT, an unresponsive UDP flood beside TCP, and a
 * sparse probe beside saturation. Each sets up sources and states its
 * assertions as measured figure against threshold; thresholds come from
 * CAKE's documented behaviour (doc/cake.md) and are not tuned to pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "report.h"
#include "scenarios.h"
#include "sim.h"
#include "workers.h"

#define SERVER		SIM_IP(10, 255, 0, 1)
#define TARGET_NS	(5 * SIM_MS)	/* CAKE's default target (§1) */

static uint32_t
host_addr(uint32_t h)
{
	return SIM_IP(10, (h >> 8) & 0xff, h & 0xff, 2);
}

void
scenarios_src_init(struct sim_src *src, enum sim_kind kind, uint32_t host,
    uint16_t sport)
{
	memset(src, 0, sizeof(*src));
	src->kind = kind;
	src->proto = kind == SIM_SRC_TCP || kind == SIM_SRC_ACKS ? 6 : 17;
	src->saddr = host_addr(host);
	src->daddr = SERVER;
	src->sport = sport;
	src->dport = 5201;
	src->host = host;
	src->len_bytes = 1500;
	src->depth_pkts = 2;
}

void
scenarios_add(struct sim *s, const struct sim_src *src)
{
	if (sim_add(s, src) < 0) {
		fprintf(stderr, "caked-sim: out of memory\n");
		abort();
	}
}

int
scenarios_verdict(const struct scenario *sc, const char *fig, double v,
    bool at_least, double thr)
{
	bool	ok = at_least ? v >= thr : v <= thr;

	printf("%s: %s=%.4g (%s %.4g) %s\n", sc->name, fig, v,
	    at_least ? ">=" : "<=", thr, ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

int
scenarios_common(struct sim *s, const struct scenario *sc)
{
	struct cake_stats	st;
	int			fail = 0;

	group_get_stats(s->g, &st);
	fail |= scenarios_verdict(sc, "invariant_failures",
	    s->invariant_line != 0, false, 0);
	fail |= scenarios_verdict(sc, "memory_used_over_limit_bytes",
	    (double)st.memory_used - (double)st.memory_limit, false,
	    SIM_PKT_TRUESIZE);
	return fail;
}

static double
link_rate_Bps(const struct sim *s)
{
	struct cake_config	cfg;

	group_get_config(s->g, &cfg);
	return (double)cfg.rate_Bps;
}

/* ---- hosts-1000 ---------------------------------------------------------- */

/*
 * hosts-1000 needs caked's "queues 16384". With CAKE's fixed 1024 queues
 * per tin (doc/cake.md §3, as in the kernel) its ~8500 bulk flows, over 8
 * per queue, collide all the time (way_cols ~1.1 million in 10 s): flows
 * of different hosts share one queue and one host slot's bulk count, so
 * a host's quantum no longer follows its own flows and fairness turns
 * per-flow (Jain over hosts 0.77-0.79 for seeds 1-6). In 16384 queues
 * the same flows barely collide (way_cols 1200-2200) and Jain is above
 * 0.99. hosts-100 runs the same test within the default's capacity.
 */

/*
 * Hosts start one after another over the first second. Started all at
 * once, two hosts of one 8-way host set can share a host slot for good:
 * a new host takes over any slot whose bulk count is still 0 (doc/cake.md
 * §3, as in the kernel), and flows that stay backlogged never look
 * their host up again.
 */
static void
hosts_add(struct sim *s, uint32_t nhosts)
{
	struct sim_src	src;
	uint32_t	h, k, n;

	for (h = 0; h < nhosts; h++) {
		n = 1 + (uint32_t)sim_rand_below(s, 16);
		for (k = 0; k < n; k++) {
			scenarios_src_init(&src, SIM_SRC_BACKLOG, h,
			    (uint16_t)(1024 + k));
			src.depth_pkts = 1;
			src.start_ns = h * SIM_S / nhosts +
			    sim_rand_below(s, SIM_MS);
			scenarios_add(s, &src);
		}
	}
}

static void
hosts_setup(struct sim *s)
{
	hosts_add(s, 1000);
}

static void
hosts100_setup(struct sim *s)
{
	hosts_add(s, 100);
}

static int
hosts_check(struct sim *s, const struct scenario *sc)
{
	struct cake_stats	st;

	group_get_stats(s->g, &st);
	printf("%s: flows=%u hosts=%u way_cols=%llu\n", sc->name, s->nsrcs,
	    s->nhosts, (unsigned long long)st.tins[0].way_cols);
	return scenarios_verdict(sc, "jain_hosts", report_jain_hosts(s), true,
	    0.98) |
	    scenarios_common(s, sc);
}

/* ---- flows-100k ------------------------------------------------------------ */

#define FLOWS_100K	100000

static void
flows_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	i;

	/* Each flow offers 1 packet/s: 1.2 Gbit/s in all at 1 Gbit/s. */
	for (i = 0; i < FLOWS_100K; i++) {
		scenarios_src_init(&src, SIM_SRC_CBR, i / 100,
		    (uint16_t)(1024 + i % 100));
		src.interval_ns = SIM_S;
		src.start_ns = sim_rand_below(s, SIM_S);
		scenarios_add(s, &src);
	}
}

static int
flows_check(struct sim *s, const struct scenario *sc)
{
	struct cake_stats	st;
	uint32_t		served;
	double			j;
	int			fail = 0;

	group_get_stats(s->g, &st);
	j = report_jain_srcs(s, -1, &served);
	printf("%s: served=%u of %u way_inds=%llu way_miss=%llu "
	    "way_cols=%llu memory_used=%llu of %llu pool_max=%llu\n",
	    sc->name, served, s->nsrcs,
	    (unsigned long long)st.tins[0].way_inds,
	    (unsigned long long)st.tins[0].way_miss,
	    (unsigned long long)st.tins[0].way_cols,
	    (unsigned long long)st.memory_used,
	    (unsigned long long)st.memory_limit,
	    (unsigned long long)s->pool_out_max);
	fail |= scenarios_verdict(sc, "way_cols", (double)st.tins[0].way_cols,
	    true, 1);
	fail |= scenarios_verdict(sc, "served_fraction",
	    (double)served / s->nsrcs, true, 0.99);
	fail |= scenarios_verdict(sc, "jain_flows", j, true, 0.9);
	return fail | scenarios_common(s, sc);
}

/* ---- tcp-20mbit ------------------------------------------------------------ */

static void
tcp_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	i;

	for (i = 0; i < 8; i++) {
		scenarios_src_init(&src, SIM_SRC_TCP, i, 40000);
		src.tos = i % 2 ? 0x02 : 0;	/* half ECT(0): CE marks */
		src.rtt_ns = 100 * SIM_MS;
		src.start_ns = sim_rand_below(s, 100 * SIM_MS);
		scenarios_add(s, &src);
	}
}

static int
tcp_check(struct sim *s, const struct scenario *sc)
{
	double		util = (double)s->link_bytes /
			    (link_rate_Bps(s) * (double)sc->duration_ns / 1e9);
	int		fail = 0;
	uint64_t	marks = 0, drops = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++) {
		marks += s->srcs[i].marks;
		drops += s->srcs[i].drops;
	}
	printf("%s: max_sojourn_ms=%.2f ce_marks=%llu drops=%llu\n",
	    sc->name, (double)report_max_delay_ns(s, -1) / 1e6,
	    (unsigned long long)marks, (unsigned long long)drops);
	fail |= scenarios_verdict(sc, "mean_sojourn_ms",
	    report_mean_delay_ns(s, -1) / 1e6, false,
	    2.0 * (double)TARGET_NS / 1e6);
	fail |= scenarios_verdict(sc, "utilisation", util, true, 0.95);
	fail |= scenarios_verdict(sc, "jain_flows",
	    report_jain_srcs(s, -1, NULL), true, 0.9);
	return fail | scenarios_common(s, sc);
}

/* ---- udp-flood ------------------------------------------------------------- */

static void
flood_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	i;

	for (i = 0; i < 4; i++) {
		scenarios_src_init(&src, SIM_SRC_TCP, i, 40000);
		src.rtt_ns = 50 * SIM_MS;
		src.start_ns = sim_rand_below(s, 50 * SIM_MS);
		scenarios_add(s, &src);
	}
	/* 1500-byte packets every 300 us: 40 Mbit/s, 2x the link. */
	scenarios_src_init(&src, SIM_SRC_CBR, 4, 9999);
	src.interval_ns = 300000;
	scenarios_add(s, &src);
}

static int
flood_check(struct sim *s, const struct scenario *sc)
{
	struct cake_stats	st;
	double			cap, tcp, udp;
	int			fail = 0;

	group_get_stats(s->g, &st);
	cap = link_rate_Bps(s) * (double)sc->duration_ns / 1e9;
	tcp = (double)report_bytes(s, SIM_SRC_TCP) / cap;
	udp = (double)report_bytes(s, SIM_SRC_CBR) / cap;
	fail |= scenarios_verdict(sc, "tcp_share", tcp, true, 0.40);
	/* Contained: the flood gets no more than a flow's fair share. */
	fail |= scenarios_verdict(sc, "flood_share", udp, false, 0.25);
	fail |= scenarios_verdict(sc, "un_flows",
	    st.tins[0].unresponsive_flows, true, 1);
	printf("%s: tcp_mean_sojourn_ms=%.2f flood_drops=%llu\n", sc->name,
	    report_mean_delay_ns(s, SIM_SRC_TCP) / 1e6,
	    (unsigned long long)s->srcs[4].drops);
	return fail | scenarios_common(s, sc);
}

/* ---- sparse-probe ---------------------------------------------------------- */

static void
probe_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	i;

	for (i = 0; i < 8; i++) {
		scenarios_src_init(&src, SIM_SRC_BACKLOG, i % 4,
		    (uint16_t)(2000 + i));
		src.depth_pkts = 4;
		scenarios_add(s, &src);
	}
	scenarios_src_init(&src, SIM_SRC_PROBE, 4, 7);
	src.len_bytes = 84;		/* a ping */
	src.interval_ns = 10 * SIM_MS;
	src.start_ns = 1234567;
	scenarios_add(s, &src);
}

static int
probe_check(struct sim *s, const struct scenario *sc)
{
	double	mtu_ms = 1500.0 / link_rate_Bps(s) * 1e3;
	double	want = (double)sc->duration_ns / (double)s->srcs[8].interval_ns;
	int	fail = 0;

	printf("%s: probe_pkts=%llu probe_mean_ms=%.3f bulk_mean_ms=%.2f\n",
	    sc->name, (unsigned long long)s->srcs[8].sent_pkts,
	    report_mean_delay_ns(s, SIM_SRC_PROBE) / 1e6,
	    report_mean_delay_ns(s, SIM_SRC_BACKLOG) / 1e6);
	/*
	 * Delay and drops of a probe that never sent are 0: every ping of
	 * the window (less one at its edge) must have gone through.
	 */
	fail |= scenarios_verdict(sc, "probe_pkts",
	    (double)s->srcs[8].sent_pkts, true, want - 1);
	fail |= scenarios_verdict(sc, "probe_max_delay_ms",
	    (double)report_max_delay_ns(s, SIM_SRC_PROBE) / 1e6, false,
	    mtu_ms + 1.0);
	fail |= scenarios_verdict(sc, "probe_drops",
	    (double)s->srcs[8].drops, false, 0);
	return fail | scenarios_common(s, sc);
}

/* ---- ack-filter ------------------------------------------------------------ */

static void
acks_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	i;

	for (i = 0; i < 4; i++) {
		scenarios_src_init(&src, SIM_SRC_BACKLOG, i,
		    (uint16_t)(3000 + i));
		src.depth_pkts = 4;
		scenarios_add(s, &src);
	}
	/* 4 upload ACK streams of 5000 ACKs/s (1.6 Mbit/s each). */
	for (i = 0; i < 4; i++) {
		scenarios_src_init(&src, SIM_SRC_ACKS, 4 + i, 443);
		src.len_bytes = 40;
		src.interval_ns = 200000;
		src.start_ns = sim_rand_below(s, 200000);
		scenarios_add(s, &src);
	}
}

static int
acks_check(struct sim *s, const struct scenario *sc)
{
	struct cake_stats	st;
	uint64_t		offered = 0, delivered = 0;
	uint32_t		i;
	int			fail = 0;

	group_get_stats(s->g, &st);
	for (i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].kind == SIM_SRC_ACKS) {
			offered += s->srcs[i].offered_pkts;
			delivered += s->srcs[i].sent_pkts;
		}
	printf("%s: acks offered=%llu delivered=%llu ack_drops=%llu "
	    "ack_mean_ms=%.3f\n", sc->name, (unsigned long long)offered,
	    (unsigned long long)delivered,
	    (unsigned long long)st.tins[0].ack_drops,
	    report_mean_delay_ns(s, SIM_SRC_ACKS) / 1e6);
	fail |= scenarios_verdict(sc, "ack_drops",
	    (double)st.tins[0].ack_drops, true, 1);
	/*
	 * Unfiltered, the ACK streams (6.4 Mbit/s offered) would take their
	 * fair half of the link; the filter leaves most of it to the bulk.
	 */
	fail |= scenarios_verdict(sc, "bulk_share", (double)report_bytes(s,
	    SIM_SRC_BACKLOG) / (double)s->link_bytes, true, 0.65);
	return fail | scenarios_common(s, sc);
}

static const struct scenario scenarios[] = {
	{ "hosts-1000", "1000 hosts with 1-16 backlogged flows each, "
	    "dual-srchost, queues 16384: Jain over hosts >= 0.98",
	    "bandwidth 200mbit besteffort dual-srchost memlimit 64mb "
	    "queues 16384",
	    2 * SIM_S, 8 * SIM_S, hosts_setup, hosts_check, 1, NULL },
	{ "hosts-100", "100 hosts with 1-16 backlogged flows each (fewer "
	    "flows than queues), dual-srchost: Jain over hosts >= 0.98",
	    "bandwidth 200mbit besteffort dual-srchost memlimit 64mb",
	    2 * SIM_S, 8 * SIM_S, hosts100_setup, hosts_check, 1, NULL },
	{ "flows-100k", "100000 CBR UDP flows through one tin at 1.2x the "
	    "link: collisions, Jain over served flows >= 0.9, memory bounded",
	    "bandwidth 1gbit besteffort flows",
	    2 * SIM_S, 10 * SIM_S, flows_setup, flows_check, 1, NULL },
	{ "tcp-20mbit", "8 TCP-like flows (4 ECN), 20 Mbit, 100 ms RTT: mean "
	    "sojourn <= 2x target, utilisation >= 95%",
	    "bandwidth 20mbit",
	    5 * SIM_S, 30 * SIM_S, tcp_setup, tcp_check, 1, NULL },
	{ "udp-flood", "UDP flood at 2x the link beside 4 TCP-like flows: "
	    "TCP >= 40%, flood contained, un_flows > 0",
	    "bandwidth 20mbit besteffort flows",
	    5 * SIM_S, 30 * SIM_S, flood_setup, flood_check, 1, NULL },
	{ "ack-filter", "4 pure-ACK streams beside 4 saturating flows, "
	    "ack-filter: redundant ACKs filtered, bulk share >= 65%",
	    "bandwidth 10mbit besteffort flows ack-filter",
	    2 * SIM_S, 10 * SIM_S, acks_setup, acks_check, 1, NULL },
	{ "workers-rate-100m", "2 workers at 100 Mbit, mixed load, one "
	    "worker light half the time: rate within 0.5 % of 1 worker",
	    "bandwidth 100mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_rate_setup,
	    workers_rate_check, 2, NULL },
	{ "workers-rate-1g", "as workers-rate-100m at 1 Gbit",
	    "bandwidth 1gbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_rate_setup,
	    workers_rate_check, 2, NULL },
	{ "workers-tcp-10m", "2 workers at 10 Mbit, one TCP-like flow "
	    "(1 ms RTT), the other worker idle: rate within 0.5 % of 1 worker",
	    "bandwidth 10mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_tcp_setup,
	    workers_tcp_check, 2, NULL },
	{ "workers-sparse", "3 bulk hosts on one worker, 2 and a light "
	    "host on the other: Jain over bulk hosts >= 0.99",
	    "bandwidth 100mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_sparse_setup,
	    workers_sparse_check, 2, NULL },
	{ "workers-hosts", "host A (1 flow) and host B (4 flows) on 2 "
	    "workers, dual-srchost: A gets 45-55 %",
	    "bandwidth 100mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_hosts_setup,
	    workers_hosts_check, 2, NULL },
	{ "workers-collide", "A (1 flow) and B (4) on one worker, C (2) on "
	    "the other: Jain over hosts >= 0.99",
	    "bandwidth 100mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_collide_setup,
	    workers_collide_check, 2, NULL },
	{ "workers-idle", "B's worker goes idle: A's worker lent 95 % "
	    "within 10 ms",
	    "bandwidth 100mbit besteffort dual-srchost",
	    WORKERS_WARMUP_NS, WORKERS_DURATION_NS, workers_idle_setup,
	    workers_idle_check, 2, workers_idle_run },
	{ "sparse-probe", "a ping every 10 ms beside 8 saturating flows: "
	    "delay < MTU time + 1 ms",
	    "bandwidth 20mbit",
	    2 * SIM_S, 20 * SIM_S, probe_setup, probe_check, 1, NULL },
};

const struct scenario *
scenarios_get(unsigned int i)
{
	return i < sizeof(scenarios) / sizeof(scenarios[0]) ?
	    &scenarios[i] : NULL;
}

const struct scenario *
scenarios_find(const char *name)
{
	const struct scenario	*sc;
	unsigned int		 i;

	for (i = 0; (sc = scenarios_get(i)) != NULL; i++)
		if (strcmp(sc->name, name) == 0)
			return sc;
	return NULL;
}
