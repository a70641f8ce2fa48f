/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * workers.c: the scenarios of a worker group (doc/workers.md). Hosts are
 * placed on workers by asking the group where a packet of theirs goes
 * (group_steer()), so each scenario states which host shares a worker
 * with which. Thresholds are the ones the group promises: the rate within
 * 0.5 % of one instance, a host's share across workers as within one
 * (45-55 % for two), an idle worker's share lent on within 10 ms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "report.h"
#include "scenarios.h"
#include "sim.h"
#include "workers.h"

#define HOST_A		0
#define IDLE_STEP_NS	(SIM_MS / 20)	/* how finely the hand-over is timed */
#define IDLE_LIMIT_NS	(100 * SIM_MS)	/* give up looking after this */
#define IDLE_SHARE	0.95		/* "the busy worker's rate" */
#define CBR_SHARE	10		/* the light host: 1/10 of the rate */

static double
rate_Bps(const struct sim *s)
{
	struct cake_config	cfg;

	group_get_config(s->g, &cfg);
	return (double)cfg.rate_Bps;
}

/* The worker a host's packets are steered to. */
static unsigned int
worker_of(struct sim *s, uint32_t host)
{
	struct sim_src	 src;
	struct sim_pkt	*p;
	unsigned int	 w;

	scenarios_src_init(&src, SIM_SRC_BACKLOG, host, 1024);
	if ((p = sim_pkt_get(s)) == NULL)
		abort();	/* test code: out of memory is fatal */
	sources_build(&src, p);
	w = group_steer(s->g, &p->pkt);
	sim_pkt_put(s, &p->pkt);
	return w;
}

/* The first host from `from` on that is steered to worker w. */
static uint32_t
host_on(struct sim *s, unsigned int w, uint32_t from)
{
	while (worker_of(s, from) != w)
		from++;
	return from;
}

static void
add_host(struct sim *s, uint32_t host, unsigned int flows, uint64_t stop_ns)
{
	struct sim_src	src;
	unsigned int	k;

	for (k = 0; k < flows; k++) {
		scenarios_src_init(&src, SIM_SRC_BACKLOG, host,
		    (uint16_t)(1024 + k));
		src.start_ns = sim_rand_below(s, SIM_MS);
		src.stop_ns = stop_ns;
		scenarios_add(s, &src);
	}
}

static uint64_t
host_bytes(const struct sim *s, uint32_t host)
{
	uint64_t	b = 0;
	uint32_t	i;

	for (i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].host == host)
			b += s->srcs[i].sent_bytes;
	return b;
}

static double
share(uint64_t part, uint64_t whole)
{
	return whole == 0 ? 0 : (double)part / (double)whole;
}

/* ---- workers-rate-* --------------------------------------------------- */

/*
 * Worker 0 carries three backlogged hosts (1, 2 and 3 flows) throughout;
 * worker 1 two backlogged hosts that stop half-way through the measured
 * window, and a light host sending at a tenth of the rate, so worker 1
 * is busy, then light: its unused share must reach worker 0.
 */
void
workers_rate_setup(struct sim *s)
{
	struct sim_src	src;
	uint64_t	stop_ns = WORKERS_WARMUP_NS + WORKERS_DURATION_NS / 2;
	uint32_t	h = 0;
	unsigned int	i;

	for (i = 0; i < 3; i++) {
		h = host_on(s, 0, h);
		add_host(s, h++, 1 + i, 0);
	}
	for (i = 0; i < 2; i++) {
		h = host_on(s, 1, h);
		add_host(s, h++, 2 + i, stop_ns);
	}
	scenarios_src_init(&src, SIM_SRC_CBR, host_on(s, 1, h), 7000);
	src.interval_ns = (uint64_t)(src.len_bytes * 1e9 * CBR_SHARE /
	    rate_Bps(s));
	scenarios_add(s, &src);
}

/* The run's sources as set up, before any of their state changed. */
static void
pristine(struct sim_src *dst, const struct sim_src *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->kind = src->kind;
	dst->proto = src->proto;
	dst->tos = src->tos;
	dst->saddr = src->saddr;
	dst->daddr = src->daddr;
	dst->sport = src->sport;
	dst->dport = src->dport;
	dst->host = src->host;
	dst->len_bytes = src->len_bytes;
	dst->interval_ns = src->interval_ns;
	dst->start_ns = src->start_ns;
	dst->stop_ns = src->stop_ns;
	dst->depth_pkts = src->depth_pkts;
	dst->rtt_ns = src->rtt_ns;
}

/* Runs s's sources again with another number of workers: link bytes. */
static uint64_t
rerun(const struct sim *s, const struct scenario *sc, unsigned int workers)
{
	struct sim	r;
	struct sim_src	src;
	char		err[160];
	uint64_t	bytes;
	uint32_t	i;

	if (sim_init(&r, sc->keywords, workers, s->seed, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "caked-sim: %s: %s\n", sc->name, err);
		abort();
	}
	for (i = 0; i < s->nsrcs; i++) {
		pristine(&src, &s->srcs[i]);
		scenarios_add(&r, &src);
	}
	r.measure_from_ns = sc->warmup_ns;
	sim_run(&r, sc->warmup_ns + sc->duration_ns);
	bytes = r.link_bytes;
	sim_done(&r);
	return bytes;
}

int
workers_rate_check(struct sim *s, const struct scenario *sc)
{
	double		cap = rate_Bps(s) * (double)sc->duration_ns / 1e9;
	double		acc1, acc2 = (double)s->link_bytes / cap;
	uint64_t	again, w[2];
	struct cake_stats st;
	unsigned int	i;
	int		fail = 0;

	for (i = 0; i < 2; i++) {
		cake_get_stats(group_worker(s->g, i), &st);
		w[i] = st.sent_bytes;
	}
	acc1 = (double)rerun(s, sc, 1) / cap;
	again = rerun(s, sc, group_workers(s->g));
	printf("%s: rate_accuracy workers=1 %.5f workers=%u %.5f "
	    "(worker bytes %llu %llu)\n", sc->name, acc1,
	    group_workers(s->g), acc2, (unsigned long long)w[0],
	    (unsigned long long)w[1]);
	fail |= scenarios_verdict(sc, "accuracy_diff", fabs(acc2 - acc1),
	    false, 0.005);
	fail |= scenarios_verdict(sc, "worker1_byte_share",
	    share(w[1], w[0] + w[1]), true, 0.05);
	fail |= scenarios_verdict(sc, "rerun_byte_diff",
	    fabs((double)again - (double)s->link_bytes), false, 0);
	return fail | scenarios_common(s, sc);
}

/*
 * One TCP-like flow alone, a short RTT: its worker is light whenever its
 * queue happens to be empty when the lender looks, and must still get
 * the whole rate (the other worker is idle throughout).
 */
void
workers_tcp_setup(struct sim *s)
{
	struct sim_src	src;

	scenarios_src_init(&src, SIM_SRC_TCP, HOST_A, 40000);
	src.rtt_ns = SIM_MS;
	scenarios_add(s, &src);
}

int
workers_tcp_check(struct sim *s, const struct scenario *sc)
{
	double	cap = rate_Bps(s) * (double)sc->duration_ns / 1e9;
	double	acc1, acc2 = (double)s->link_bytes / cap;
	int	fail = 0;

	acc1 = (double)rerun(s, sc, 1) / cap;
	printf("%s: rate_accuracy workers=1 %.5f workers=%u %.5f\n",
	    sc->name, acc1, group_workers(s->g), acc2);
	fail |= scenarios_verdict(sc, "accuracy_diff", fabs(acc2 - acc1),
	    false, 0.005);
	return fail | scenarios_common(s, sc);
}

/*
 * Three bulk hosts on worker 0; two bulk hosts and a light host (a tenth
 * of the rate, below its fair share) on worker 1. In one instance the
 * light host gets what it sends and the five bulk hosts share the rest
 * alike; the group must do the same across its workers.
 */
void
workers_sparse_setup(struct sim *s)
{
	struct sim_src	src;
	uint32_t	h = 0;
	unsigned int	i;

	for (i = 0; i < 5; i++) {
		h = host_on(s, i < 3 ? 0 : 1, h);
		add_host(s, h++, 2, 0);
	}
	scenarios_src_init(&src, SIM_SRC_CBR, host_on(s, 1, h), 7000);
	src.interval_ns = (uint64_t)(src.len_bytes * 1e9 * CBR_SHARE /
	    rate_Bps(s));
	scenarios_add(s, &src);
}

int
workers_sparse_check(struct sim *s, const struct scenario *sc)
{
	const struct sim_src	*cbr = &s->srcs[s->nsrcs - 1];
	double			 x[5], lo = 1, hi = 0;
	uint32_t		 i;
	int			 fail = 0;

	for (i = 0; i < 5; i++) {
		x[i] = share(host_bytes(s, s->srcs[2 * i].host),
		    s->link_bytes);
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	printf("%s: bulk host shares %.4f-%.4f, light host %.4f of the "
	    "link, %.4f of what it sent\n", sc->name, lo, hi,
	    share(cbr->sent_bytes, s->link_bytes),
	    share(cbr->sent_pkts, cbr->offered_pkts));
	fail |= scenarios_verdict(sc, "jain_bulk_hosts", report_jain(x, 5),
	    true, 0.99);
	fail |= scenarios_verdict(sc, "light_host_delivered",
	    share(cbr->sent_pkts, cbr->offered_pkts), true, 0.98);
	return fail | scenarios_common(s, sc);
}

/* ---- workers-hosts, workers-collide ------------------------------------ */

void
workers_hosts_setup(struct sim *s)
{
	unsigned int	wa = worker_of(s, HOST_A);

	add_host(s, HOST_A, 1, 0);
	add_host(s, host_on(s, 1 - wa, HOST_A + 1), 4, 0);
}

int
workers_hosts_check(struct sim *s, const struct scenario *sc)
{
	double	a = share(host_bytes(s, HOST_A), s->link_bytes);
	int	fail = 0;

	printf("%s: host A (1 flow) on worker %u, host B (4 flows) on "
	    "worker %u\n", sc->name, worker_of(s, HOST_A),
	    worker_of(s, s->srcs[1].host));
	fail |= scenarios_verdict(sc, "host_a_share", a, true, 0.45);
	fail |= scenarios_verdict(sc, "host_a_share", a, false, 0.55);
	return fail | scenarios_common(s, sc);
}

void
workers_collide_setup(struct sim *s)
{
	unsigned int	wa = worker_of(s, HOST_A);

	add_host(s, HOST_A, 1, 0);
	add_host(s, host_on(s, wa, HOST_A + 1), 4, 0);
	add_host(s, host_on(s, 1 - wa, HOST_A + 1), 2, 0);
}

int
workers_collide_check(struct sim *s, const struct scenario *sc)
{
	uint32_t	b = s->srcs[1].host, c = s->srcs[5].host;
	double		sa = share(host_bytes(s, HOST_A), s->link_bytes);
	double		sb = share(host_bytes(s, b), s->link_bytes);
	double		sc_ = share(host_bytes(s, c), s->link_bytes);
	int		fail = 0;

	printf("%s: workers A %u B %u C %u; shares A %.4f B %.4f C %.4f\n",
	    sc->name, worker_of(s, HOST_A), worker_of(s, b), worker_of(s, c),
	    sa, sb, sc_);
	fail |= scenarios_verdict(sc, "same_worker",
	    worker_of(s, HOST_A) == worker_of(s, b), true, 1);
	fail |= scenarios_verdict(sc, "jain_hosts", report_jain_hosts(s),
	    true, 0.99);
	return fail | scenarios_common(s, sc);
}

/* ---- workers-idle ------------------------------------------------------ */

#define IDLE_STOP_NS	(WORKERS_WARMUP_NS + WORKERS_DURATION_NS / 3)

/* A (2 flows) on one worker, B (3 flows) on the other until IDLE_STOP_NS. */
void
workers_idle_setup(struct sim *s)
{
	unsigned int	wa = worker_of(s, HOST_A);

	add_host(s, HOST_A, 2, 0);
	add_host(s, host_on(s, 1 - wa, HOST_A + 1), 3, IDLE_STOP_NS);
}

/*
 * fig[0]: ms from B's stop until A's worker is lent IDLE_SHARE of the
 * rate (-1 if never); fig[1]: A's rate over the rest of the run, 10 ms
 * on, as a share of the rate; fig[2]: A's worker's lent share at the stop.
 */
void
workers_idle_run(struct sim *s, const struct scenario *sc)
{
	unsigned int	wa = worker_of(s, HOST_A);
	uint64_t	end = sc->warmup_ns + sc->duration_ns, t, a0;
	double		r = rate_Bps(s);

	sim_run(s, IDLE_STOP_NS);
	s->fig[2] = (double)group_lend_rate_Bps(s->g, wa) / r;
	s->fig[0] = -1;
	for (t = IDLE_STOP_NS; t <= IDLE_STOP_NS + IDLE_LIMIT_NS;
	    t += IDLE_STEP_NS) {
		sim_run(s, t);
		if ((double)group_lend_rate_Bps(s->g, wa) >= IDLE_SHARE * r) {
			s->fig[0] = (double)(t - IDLE_STOP_NS) / 1e6;
			break;
		}
	}
	sim_run(s, IDLE_STOP_NS + 10 * SIM_MS);
	a0 = host_bytes(s, HOST_A);
	sim_run(s, end);
	s->fig[1] = (double)(host_bytes(s, HOST_A) - a0) /
	    (r * (double)(end - IDLE_STOP_NS - 10 * SIM_MS) / 1e9);
}

int
workers_idle_check(struct sim *s, const struct scenario *sc)
{
	double	handoff = s->fig[0] < 0 ? 1e9 : s->fig[0];
	int	fail = 0;

	printf("%s: A's worker lent %.4f of the rate before B stopped\n",
	    sc->name, s->fig[2]);
	fail |= scenarios_verdict(sc, "handoff_ms", handoff, false, 10);
	fail |= scenarios_verdict(sc, "a_rate_after_share", s->fig[1], true,
	    IDLE_SHARE);
	return fail | scenarios_common(s, sc);
}
