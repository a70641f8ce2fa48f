/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_autorate.c: the autorate controller (src/daemon/autorate.c), driven
 * by synthetic probe series and loads with a fake clock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/autorate.h"

#define MS		1000000ULL
#define MBIT		125000ULL	/* bytes per second in one Mbit/s */
#define BASE_RTT_NS	(10 * MS)

/* A fake link: one direction, n reflectors, a clock and a byte counter. */
struct rig {
	struct autorate_params	p;
	struct autorate_delay	dl;
	struct autorate_dir	d;
	uint64_t		now_ns;
	uint64_t		sent_bytes;
	unsigned int		changes;
};

static void
rig_init(struct rig *r, unsigned int reflectors)
{
	memset(r, 0, sizeof(*r));
	autorate_params_default(&r->p);
	r->p.enabled = true;
	r->p.min_Bps = 5 * MBIT;
	r->p.base_Bps = 20 * MBIT;
	r->p.max_Bps = 50 * MBIT;
	r->now_ns = 1000 * MS;
	autorate_delay_init(&r->dl, reflectors, r->now_ns);
	autorate_dir_init(&r->d, &r->p, 0, r->now_ns);
}

/* One tick of the direction, on the reflectors' round trips alone. */
static bool
tick(struct autorate_dir *d, const struct autorate_delay *dl,
    uint64_t sent_bytes, uint32_t queue_us, uint64_t now_ns)
{
	struct autorate_input	in;

	autorate_input_get(&in, dl, AUTORATE_OWD_UP, NULL, now_ns);
	return autorate_dir_tick(d, &in, sent_bytes, queue_us, now_ns);
}

/*
 * Runs for ms milliseconds in 100 ms ticks: every reflector answers each
 * tick with BASE_RTT_NS + extra_ns[i] (UINT64_MAX: silent), and the
 * direction sends load_pct of its current rate.
 */
static void
rig_run(struct rig *r, uint64_t ms, uint32_t load_pct,
    const uint64_t *extra_ns, uint32_t queue_us)
{
	uint64_t	t;
	unsigned int	i;

	for (t = 0; t < ms; t += 100) {
		r->now_ns += 100 * MS;
		for (i = 0; i < r->dl.count; i++)
			if (extra_ns[i] != UINT64_MAX)
				autorate_delay_sample(&r->dl, i,
				    BASE_RTT_NS + extra_ns[i], r->now_ns);
		r->sent_bytes += r->d.rate_Bps * load_pct / 100 / 10;
		if (tick(&r->d, &r->dl, r->sent_bytes, queue_us,
		    r->now_ns))
			r->changes++;
	}
}

static const uint64_t no_extra[AUTORATE_REFLECTORS_MAX];

static void
rises_under_load_without_delay(void **state)
{
	struct rig	r;

	(void)state;
	rig_init(&r, 3);
	rig_run(&r, 1000, 95, no_extra, 0);
	assert_true(r.d.rate_Bps > 20 * MBIT * 110 / 100);
	assert_true(r.d.rises >= 5);
	assert_int_equal(r.d.cuts, 0);
	/* at most 2.5 % per 100 ms: 1.025^10 < 1.29 */
	assert_true(r.d.rate_Bps < 20 * MBIT * 129 / 100);
}

static void
caked_queue_counts_as_load(void **state)
{
	struct rig	r;

	(void)state;
	rig_init(&r, 1);
	/* 60 % load alone would drift; a standing queue in caked rises */
	rig_run(&r, 1000, 60, no_extra, 5000);
	assert_true(r.d.rate_Bps > 20 * MBIT);
	assert_true(r.d.rises > 0);
}

static void
cuts_multiplicatively_on_delay(void **state)
{
	struct rig	r;
	uint64_t	bloat[1] = { 30 * MS }, before;

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 500, 95, no_extra, 0);
	before = r.d.rate_Bps;
	rig_run(&r, 100, 95, bloat, 0);
	rig_run(&r, 100, 95, bloat, 0);
	assert_int_equal(r.d.cuts, 1);
	assert_true(r.d.rate_Bps < before);
	assert_true(r.d.rate_Bps >= before / 2);	/* one cut: >= 50 % */
}

static void
deeper_cut_for_larger_delay(void **state)
{
	static const uint64_t	delays_ms[] = { 20, 40, 80, 400 };
	struct rig		r;
	uint64_t		bloat[1], prev = 1000, before;
	size_t			i;
	uint64_t		permille;

	(void)state;
	for (i = 0; i < sizeof(delays_ms) / sizeof(delays_ms[0]); i++) {
		rig_init(&r, 1);
		r.d.rate_Bps = 40 * MBIT;
		rig_run(&r, 500, 95, no_extra, 0);
		before = r.d.rate_Bps;
		bloat[0] = delays_ms[i] * MS;
		/* enough samples for the fast EWMA to settle, one cut */
		rig_run(&r, 200, 95, bloat, 0);
		assert_int_equal(r.d.cuts, 1);
		permille = r.d.rate_Bps * 1000 / before;
		assert_true(permille < prev);
		/* (less one for the rounding of two integer divisions) */
		assert_true(permille >= AUTORATE_CUT_MIN_PERMILLE - 1);
		prev = permille;
	}
}

static void
holds_between_cuts_and_while_delay_drains(void **state)
{
	struct rig	r;
	uint64_t	bloat[1] = { 200 * MS }, falling[1];
	uint64_t	cuts;

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 300, 95, no_extra, 0);
	rig_run(&r, 200, 95, bloat, 0);
	assert_int_equal(r.d.cuts, 1);
	/* the cut cannot show before the hold plus the delay itself */
	rig_run(&r, 400, 95, bloat, 0);
	assert_int_equal(r.d.cuts, 1);
	/* still 200 ms after it: not draining, so one more cut */
	rig_run(&r, 400, 95, bloat, 0);
	assert_int_equal(r.d.cuts, 2);
	cuts = r.d.cuts;
	/* falling 20 ms per 100 ms: drains, so no further cut */
	for (falling[0] = 200 * MS; falling[0] > 20 * MS;
	    falling[0] -= 20 * MS)
		rig_run(&r, 100, 95, falling, 0);
	assert_int_equal(r.d.cuts, cuts);
	/* stuck at 100 ms: the drain stopped, cut again */
	falling[0] = 100 * MS;
	rig_run(&r, 1500, 95, falling, 0);
	assert_true(r.d.cuts > cuts);
}

static void
drifts_to_base_when_idle(void **state)
{
	struct rig	r;

	(void)state;
	rig_init(&r, 2);
	r.d.rate_Bps = 30 * MBIT;
	rig_run(&r, 120000, 1, no_extra, 0);
	assert_int_equal(r.d.rate_Bps, 20 * MBIT);
	assert_true(r.d.drifts > 10);
	/* from below, too */
	r.d.rate_Bps = 10 * MBIT;
	rig_run(&r, 100000, 0, no_extra, 0);
	assert_int_equal(r.d.rate_Bps, 20 * MBIT);
	assert_int_equal(r.d.cuts, 0);
	assert_int_equal(r.d.rises, 0);
}

static void
drift_is_slow(void **state)
{
	struct rig	r;

	(void)state;
	rig_init(&r, 1);
	r.d.rate_Bps = 40 * MBIT;
	rig_run(&r, 5000, 0, no_extra, 0);
	/* 1 % per second: five seconds leave more than 37 Mbit/s */
	assert_true(r.d.rate_Bps < 40 * MBIT);
	assert_true(r.d.rate_Bps > 37 * MBIT);
}

static void
clamps_to_min_and_max(void **state)
{
	struct rig	r;
	uint64_t	bloat[1] = { 500 * MS };

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 60000, 100, no_extra, 0);
	assert_int_equal(r.d.rate_Bps, 50 * MBIT);
	rig_run(&r, 20000, 100, bloat, 0);
	assert_int_equal(r.d.rate_Bps, 5 * MBIT);
	autorate_dir_set_rate(&r.d, 1);
	assert_int_equal(r.d.rate_Bps, 5 * MBIT);
	autorate_dir_set_rate(&r.d, 1000 * MBIT);
	assert_int_equal(r.d.rate_Bps, 50 * MBIT);
}

static void
no_cut_when_direction_is_idle(void **state)
{
	struct rig	r;
	uint64_t	bloat[1] = { 100 * MS };

	(void)state;
	/* the other direction's bloat shows in the RTT; we send 3 % */
	rig_init(&r, 1);
	rig_run(&r, 1000, 3, no_extra, 0);
	rig_run(&r, 3000, 3, bloat, 0);
	assert_true(r.d.delta_ns > (int64_t)r.p.threshold_ns);
	assert_int_equal(r.d.cuts, 0);
	assert_int_equal(r.d.rate_Bps, 20 * MBIT);
}

/*
 * The bottleneck beyond fell to 60 % of the rate: caked sends only that
 * much and the delay grows. One cut goes below what was sent, not 10 %
 * below the rate (several steps, while the buffer fills).
 */
static void
cuts_from_what_was_sent(void **state)
{
	struct rig	r;
	uint64_t	bloat[1] = { 20 * MS };

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 1000, 60, no_extra, 0);
	rig_run(&r, 300, 60, bloat, 0);
	assert_int_equal(r.d.cuts, 1);
	assert_true(r.d.rate_Bps < 11 * MBIT);
	assert_true(r.d.rate_Bps > 9 * MBIT);
	/* with light traffic (10 %), only a mild cut from the rate */
	rig_init(&r, 1);
	rig_run(&r, 1000, 10, no_extra, 0);
	rig_run(&r, 300, 10, bloat, 0);
	assert_int_equal(r.d.cuts, 1);
	assert_true(r.d.rate_Bps > 17 * MBIT);
}

static void
dead_reflector_is_ignored(void **state)
{
	struct rig	r;
	uint64_t	extra[3] = { 0, 0, 0 };

	(void)state;
	rig_init(&r, 3);
	rig_run(&r, 1000, 95, extra, 0);
	/* reflector 2 stops answering; the others keep the rate rising */
	extra[2] = UINT64_MAX;
	rig_run(&r, 2000, 95, extra, 0);
	assert_false(autorate_delay_fresh(&r.dl, 2, r.now_ns));
	assert_true(autorate_delay_fresh(&r.dl, 0, r.now_ns));
	assert_int_equal(r.d.cuts, 0);
	assert_true(r.d.rate_Bps > 30 * MBIT);
}

static void
one_bloated_reflector_is_outvoted(void **state)
{
	struct rig	r;
	uint64_t	extra[3] = { 0, 80 * MS, 0 };
	int64_t		delta;

	(void)state;
	rig_init(&r, 3);
	rig_run(&r, 200, 95, no_extra, 0);
	rig_run(&r, 2000, 95, extra, 0);
	assert_true(autorate_delay_get(&r.dl, r.now_ns, &delta));
	assert_true(delta < (int64_t)MS);
	assert_int_equal(r.d.cuts, 0);
	/* two of three bloated: the median says bloat */
	extra[0] = 80 * MS;
	rig_run(&r, 500, 95, extra, 0);
	assert_true(r.d.cuts >= 1);
}

static void
slow_reflector_baseline_adapts(void **state)
{
	struct rig	r;
	uint64_t	extra[1] = { 40 * MS };

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 1000, 0, no_extra, 0);
	assert_int_equal(r.dl.refl[0].baseline_ns, BASE_RTT_NS);
	/* its path becomes 40 ms longer for good: first a delta... */
	rig_run(&r, 500, 0, extra, 0);
	assert_true(r.dl.refl[0].delta_ns > 30 * (int64_t)MS);
	/* ...which the slow baseline absorbs within minutes */
	rig_run(&r, 300000, 0, extra, 0);
	assert_true(r.dl.refl[0].baseline_ns > BASE_RTT_NS + 39 * MS);
	assert_true(r.dl.refl[0].delta_ns < 1 * (int64_t)MS);
	/* a lower sample resets the baseline at once */
	rig_run(&r, 100, 0, no_extra, 0);
	assert_int_equal(r.dl.refl[0].baseline_ns, BASE_RTT_NS);
}

static void
short_bloat_barely_moves_baseline(void **state)
{
	struct rig	r;
	uint64_t	extra[1] = { 200 * MS };

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 1000, 0, no_extra, 0);
	rig_run(&r, 2000, 0, extra, 0);
	/* 2 s of a 60 s time constant: under 4 % of the excess */
	assert_true(r.dl.refl[0].baseline_ns < BASE_RTT_NS + 8 * MS);
}

static void
stall_goes_to_min_and_recovers(void **state)
{
	struct rig	r;
	uint64_t	silent[1] = { UINT64_MAX };

	(void)state;
	rig_init(&r, 1);
	rig_run(&r, 500, 95, no_extra, 0);
	rig_run(&r, 5000, 95, silent, 0);
	assert_true(r.d.rate_Bps > 5 * MBIT);	/* not yet a stall */
	assert_int_equal(r.d.delta_ns, -1);
	rig_run(&r, 6000, 95, silent, 0);
	assert_int_equal(r.d.rate_Bps, 5 * MBIT);
	assert_int_equal(r.d.stalls, 1);
	rig_run(&r, 2000, 95, no_extra, 0);
	assert_true(r.d.rate_Bps > 5 * MBIT);
}

/*
 * A bloated link of capacity cap: the delay grows while rate > cap. The
 * rate settles within 5 s and overshoots by at most 4 %, in less than
 * half of the ticks (without the slow rise near the ceiling: 6.2 %, half).
 */
static void
follows_a_bloated_link(void **state)
{
	static const uint64_t	caps_mbit[] = { 20, 8, 20 };
	struct rig		r;
	double			queue_s = 0, rate, cap, max_ratio = 0;
	unsigned int		above = 0, settled = 0;
	uint64_t		extra[1];
	size_t			i;
	int			t;

	(void)state;
	rig_init(&r, 1);
	for (i = 0; i < 3; i++) {
		cap = (double)caps_mbit[i];
		for (t = 0; t < 200; t++) {	/* 20 s */
			rate = (double)r.d.rate_Bps / MBIT;
			queue_s += (rate - cap) / cap * 0.1;
			if (queue_s < 0)
				queue_s = 0;
			if (queue_s > 1.5)
				queue_s = 1.5;	/* the FIFO is full */
			extra[0] = (uint64_t)(queue_s * 1e9);
			rig_run(&r, 100, 99, extra, 0);
			if (t >= 50) {	/* settled after 5 s */
				assert_true(rate >= 0.70 * cap);
				assert_true(rate <= 1.10 * cap);
				assert_true(queue_s < 0.030);
				if (rate > max_ratio * cap)
					max_ratio = rate / cap;
				above += rate > cap;
				settled++;
			}
		}
	}
	print_message("settled: max %.3f of the capacity, %u of %u ticks "
	    "above it\n", max_ratio, above, settled);
	/* Slow near the last cut's rate: small overshoots, and rarer. */
	assert_true(max_ratio <= 1.04);
	assert_true(above * 2 < settled);
}

/*
 * A closer model of the testbed: 10 ms steps; TCP sends what caked lets
 * through but, ACK-clocked, at most 10 % more than the link beyond carries
 * while its buffer fills; a probe sent at t waits behind the buffer of t
 * and answers that much later. The link drops from 20 to 8 Mbit/s and
 * goes back: within 5 s of each change the rate is at least 75 % of the
 * capacity and the buffer under 30 ms. (The law before, which cut from
 * the rate and cut again before a cut could show in the probes, failed
 * this.)
 */
static void
recovers_from_a_sudden_drop(void **state)
{
	static const double	caps_mbit[] = { 20, 8, 20, 8 };
	struct rig		r;
	double			queue_s = 0, rate, send, cap;
	double			due[64];
	uint64_t		sent_at[64];
	unsigned int		nprobe = 0, i, step;
	size_t			ph;

	(void)state;
	rig_init(&r, 1);
	r.p.min_Bps = 2 * MBIT;
	r.d.p.min_Bps = 2 * MBIT;
	for (ph = 0; ph < sizeof(caps_mbit) / sizeof(caps_mbit[0]); ph++) {
		cap = caps_mbit[ph];
		for (step = 0; step < 2000; step++) {	/* 20 s */
			rate = (double)r.d.rate_Bps / MBIT;
			send = rate < cap * 1.1 || step < 5 ? rate : cap * 1.1;
			queue_s += (send - cap) / cap * 0.01;
			queue_s = queue_s < 0 ? 0 : queue_s > 1.5 ? 1.5 : queue_s;
			r.sent_bytes += (uint64_t)(send * MBIT * 0.01);
			r.now_ns += 10 * MS;
			for (i = 0; i < nprobe; )
				if (due[i] <= (double)r.now_ns) {
					autorate_delay_sample(&r.dl, 0,
					    r.now_ns - sent_at[i], r.now_ns);
					due[i] = due[--nprobe];
					sent_at[i] = sent_at[nprobe];
				} else
					i++;
			if (step % 10 == 9) {
				(void)tick(&r.d, &r.dl,
				    r.sent_bytes, 2000, r.now_ns);
				assert_true(nprobe < 64);
				sent_at[nprobe] = r.now_ns;
				due[nprobe++] = (double)r.now_ns +
				    (double)BASE_RTT_NS + queue_s * 1e9;
			}
			if (ph > 0 && step >= 500) {
				assert_true((double)r.d.rate_Bps / MBIT >=
				    0.75 * cap);
				assert_true(queue_s < 0.030);
			}
		}
	}
}

/* Feeds reflector 0 one-way delays (ms) out and back, 100 ms apart. */
static void
owd_feed(struct autorate_delay *dl, uint64_t *now_ns, int64_t up_ms,
    int64_t down_ms, unsigned int n)
{
	unsigned int	i;

	for (i = 0; i < n; i++) {
		*now_ns += 100 * MS;
		autorate_delay_sample(dl, 0, BASE_RTT_NS, *now_ns);
		autorate_delay_owd(dl, 0, AUTORATE_OWD_UP, up_ms * (int64_t)MS,
		    *now_ns);
		autorate_delay_owd(dl, 0, AUTORATE_OWD_DOWN,
		    down_ms * (int64_t)MS, *now_ns);
	}
}

static void
owd_goes_to_its_own_direction(void **state)
{
	struct autorate_delay	dl;
	struct autorate_input	up, down;
	uint64_t		now = 1000 * MS;

	(void)state;
	autorate_delay_init(&dl, 1, now);
	/* a reflector 3 h behind our clock: only the variation counts */
	owd_feed(&dl, &now, -10800000 + 5, 10800000 + 5, 10);
	owd_feed(&dl, &now, -10800000 + 5, 10800000 + 65, 10);
	autorate_input_get(&up, &dl, AUTORATE_OWD_UP, NULL, now);
	autorate_input_get(&down, &dl, AUTORATE_OWD_DOWN, NULL, now);
	assert_int_equal(up.signal, AUTORATE_SIG_OWD);
	assert_int_equal(down.signal, AUTORATE_SIG_OWD);
	assert_true(up.delta_ns < (int64_t)MS);
	assert_true(down.delta_ns > 50 * (int64_t)MS);
	/* the offset shows in the baseline, which rose a little since */
	assert_true(down.baseline_ns >= (uint64_t)(10800000 + 5) * MS &&
	    down.baseline_ns < (uint64_t)(10800000 + 7) * MS);
	assert_string_equal(autorate_signal_name(down.signal), "owd");
	/* the round trip did not move: echo alone would have said 0 */
	assert_true(down.echo_ns < (int64_t)MS);
}

static void
owd_ms_handles_midnight_and_nonstandard(void **state)
{
	int64_t	ns;

	(void)state;
	/* sent 10 ms before midnight, received 5 ms after it */
	assert_true(autorate_owd_ms(AUTORATE_DAY_MS - 10, 5, &ns));
	assert_int_equal(ns, 15 * (int64_t)MS);
	/* and the other way round: the reflector's clock is behind */
	assert_true(autorate_owd_ms(5, AUTORATE_DAY_MS - 10, &ns));
	assert_int_equal(ns, -15 * (int64_t)MS);
	assert_true(autorate_owd_ms(1000, 1040, &ns));
	assert_int_equal(ns, 40 * (int64_t)MS);
	/* high bit: not ms since midnight (RFC 792) */
	assert_false(autorate_owd_ms(1000, 0x80000000U | 1040, &ns));
	assert_false(autorate_owd_ms(AUTORATE_DAY_MS, 1040, &ns));
}

static void
signals_combine_per_direction(void **state)
{
	struct autorate_delay	dl;
	struct autorate_passive	pv = { 0, 0, 0 };
	struct autorate_input	in;
	uint64_t		now = 1000 * MS;
	unsigned int		i;

	(void)state;
	autorate_delay_init(&dl, 1, now);
	/* echo only: echo */
	for (i = 0; i < 5; i++) {
		now += 100 * MS;
		autorate_delay_sample(&dl, 0, BASE_RTT_NS, now);
	}
	autorate_input_get(&in, &dl, AUTORATE_OWD_UP, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_ECHO);
	assert_int_equal(in.passive_ns, -1);
	assert_int_equal(in.owd_ns, -1);
	/* fresh passive beats echo, even when lower */
	pv.delay_ns = 42 * MS;
	pv.baseline_ns = 40 * MS;
	pv.last_ns = now;
	autorate_input_get(&in, &dl, AUTORATE_OWD_UP, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_PASSIVE);
	assert_int_equal(in.delta_ns, 2 * (int64_t)MS);
	assert_int_equal(in.baseline_ns, 40 * MS);
	/* fresh passive beats owd, even when owd sees more */
	owd_feed(&dl, &now, 20, 20, 5);
	owd_feed(&dl, &now, 40, 20, 10);
	pv.last_ns = now;
	autorate_input_get(&in, &dl, AUTORATE_OWD_UP, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_PASSIVE);
	assert_true(in.owd_ns > 15 * (int64_t)MS);
	assert_int_equal(in.delta_ns, 2 * (int64_t)MS);
	autorate_input_get(&in, &dl, AUTORATE_OWD_DOWN, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_PASSIVE);
	/* passive goes stale after a second without update */
	now += AUTORATE_PASSIVE_STALE_NS + MS;
	owd_feed(&dl, &now, 20, 20, 1);
	autorate_input_get(&in, &dl, AUTORATE_OWD_DOWN, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_OWD);
	assert_int_equal(in.passive_ns, -1);
	/* nothing at all for long: none, and the stall clock runs */
	now += 20 * AUTORATE_STALE_NS;
	autorate_input_get(&in, &dl, AUTORATE_OWD_DOWN, &pv, now);
	assert_int_equal(in.signal, AUTORATE_SIG_NONE);
	assert_string_equal(autorate_signal_name(in.signal), "none");
}

/*
 * A modelled bottleneck of capacity cap_Bps beyond caked, with a FIFO:
 * the traffic offers 5 % more than caked's rate (TCP probing, so caked's
 * own queue stands while caked is the narrower), the FIFO fills with
 * what the capacity cannot carry, and the passive delay is its sojourn.
 * The delivery counter is what leaves the bottleneck.
 */
struct link {
	struct autorate_dir	d;
	struct autorate_passive	pv;
	uint64_t		now_ns;
	uint64_t		cap_Bps;
	bool			estimate;	/* delivery not exact */
	double			fifo;		/* bytes */
	uint64_t		sent, deliv;
	bool			deliv_known;
	bool			bunched;	/* ACKs every other tick */
	uint64_t		owed;		/* delivered, not yet ACKed */
	uint64_t		peak_Bps;	/* highest rate since reset */
	uint64_t		low_Bps;	/* lowest rate since reset */
	uint64_t		demand_Bps;	/* what arrives; 0: above the rate */
};

static void
link_init(struct link *l, uint64_t rate_Bps, uint64_t cap_Bps)
{
	struct autorate_params	p;

	memset(l, 0, sizeof(*l));
	autorate_params_default(&p);
	p.enabled = true;
	p.min_Bps = 1 * MBIT;
	p.base_Bps = rate_Bps;
	p.max_Bps = 80 * MBIT;
	l->now_ns = 1000 * MS;
	l->cap_Bps = cap_Bps;
	l->deliv_known = true;
	autorate_dir_init(&l->d, &p, 0, l->now_ns);
}

/* ms of the link in 10 ms steps, the controller ticking every 100 ms. */
static void
link_run(struct link *l, uint64_t ms)
{
	struct autorate_delay	dl;
	struct autorate_input	in;
	double			dt = 0.01, offer, out;
	uint64_t		t;
	uint32_t		queue_us;

	autorate_delay_init(&dl, 0, l->now_ns);
	for (t = 10; t <= ms; t += 10) {
		l->now_ns += 10 * MS;
		offer = (double)l->d.rate_Bps * 1.05 * dt;
		if (l->demand_Bps != 0 && l->demand_Bps < l->d.rate_Bps)
			offer = (double)l->demand_Bps * dt;
		out = (double)l->cap_Bps * dt;
		l->fifo += offer - out;
		if (l->fifo < 0) {
			out += l->fifo;
			l->fifo = 0;
		}
		l->sent += (uint64_t)(offer < out ? offer : out);
		l->owed += (uint64_t)out;
		/* bunched: a cumulative ACK that stalls every other tick */
		if (!l->bunched || t % 200 == 0) {
			l->deliv += l->owed;
			l->owed = 0;
		}
		l->pv.baseline_ns = 40 * MS;
		l->pv.delay_ns = 40 * MS + (uint64_t)(l->fifo * 1e9 /
		    (double)l->cap_Bps);
		l->pv.last_ns = l->now_ns;
		if (t % 100 != 0)
			continue;
		autorate_input_get(&in, &dl, AUTORATE_OWD_DOWN, &l->pv,
		    l->now_ns);
		in.deliv_known = l->deliv_known;
		in.deliv_exact = l->deliv_known && !l->estimate;
		in.deliv_bytes = l->deliv;
		/* caked's queue stands while the demand exceeds its rate */
		queue_us = l->fifo == 0 && (l->demand_Bps == 0 ||
		    l->demand_Bps > l->d.rate_Bps) ? 5000 : 0;
		(void)autorate_dir_tick(&l->d, &in, l->sent, queue_us,
		    l->now_ns);
		if (l->d.rate_Bps > l->peak_Bps)
			l->peak_Bps = l->d.rate_Bps;
		if (l->low_Bps == 0 || l->d.rate_Bps < l->low_Bps)
			l->low_Bps = l->d.rate_Bps;
	}
}

/* The sojourn of the modelled FIFO now, in ms. */
static double
link_fifo_ms(const struct link *l)
{
	return l->fifo * 1e3 / (double)l->cap_Bps;
}

static void
delivery_cut_lands_below_a_fallen_capacity(void **state)
{
	struct link	with, without;
	uint64_t	cuts;

	(void)state;
	link_init(&with, 60 * MBIT, 60 * MBIT);
	link_init(&without, 60 * MBIT, 60 * MBIT);
	without.deliv_known = false;
	link_run(&with, 2000);
	link_run(&without, 2000);
	/* the capacity falls to a twelfth */
	with.cap_Bps = without.cap_Bps = 5 * MBIT;
	cuts = with.d.cuts;
	link_run(&with, 1000);
	link_run(&without, 1000);
	/* with the delivery: one cut, below the new capacity */
	assert_true(with.d.rate_Bps < 5 * MBIT);
	assert_true(with.d.cuts - cuts <= 2);
	/* without: halving steps, still above it after a second */
	assert_true(without.d.rate_Bps > 5 * MBIT);
	link_run(&with, 2000);
	assert_true(link_fifo_ms(&with) < 15.0);
}

static void
delivery_allows_a_fast_rise(void **state)
{
	struct link	l;

	(void)state;
	/* caked at 10 Mbit, the link carries 40: 8 % a tick */
	link_init(&l, 10 * MBIT, 40 * MBIT);
	link_run(&l, 2000);
	assert_true(l.d.rate_Bps >= 30 * MBIT);
	/* the rise ends soon after the capacity: the delivery lags */
	link_run(&l, 3000);
	assert_true(l.peak_Bps < 40 * MBIT * 125 / 100);
	/* without the delivery, 2.5 % a tick at most: under 17 Mbit */
	link_init(&l, 10 * MBIT, 40 * MBIT);
	l.deliv_known = false;
	link_run(&l, 2000);
	assert_true(l.d.rate_Bps < 17 * MBIT);
}

static void
no_rise_above_what_is_delivered(void **state)
{
	struct link	l;

	(void)state;
	/* the rate stands 30 % above the capacity, with no delay yet */
	link_init(&l, 26 * MBIT, 20 * MBIT);
	l.d.rate_Bps = 26 * MBIT;
	link_run(&l, 300);
	assert_int_equal(l.d.rises, 0);
	assert_true(l.d.deliv_valid);
	assert_true(l.d.deliv_Bps < 21 * MBIT);
}

/*
 * An estimated delivery (upload, from ACKs) sets where a cut starts: one
 * second after the capacity falls from 30 to 5 Mbit the rate is under
 * it. It allows no fast rise: it errs by a few per cent.
 */
static void
estimated_delivery_only_cuts(void **state)
{
	struct link	l;

	(void)state;
	link_init(&l, 10 * MBIT, 40 * MBIT);
	l.estimate = true;
	link_run(&l, 2000);
	assert_true(l.d.rate_Bps < 17 * MBIT);
	link_init(&l, 30 * MBIT, 30 * MBIT);
	l.estimate = true;
	link_run(&l, 3000);
	assert_true(l.d.cuts > 0);
	l.cap_Bps = 5 * MBIT;
	link_run(&l, 1000);
	assert_true(l.d.rate_Bps < 5 * MBIT);
}

/*
 * With an estimated delivery, a rate the demand does not reach (caked
 * sends what the senders' ACK clock lets through, here the capacity, 77 %
 * of the rate) does not rise: no standing queue in caked, no rise
 * (no_rise_above_what_is_delivered has the exact delivery's gate).
 */
static void
estimated_delivery_needs_a_queue_to_rise(void **state)
{
	struct link	l;

	(void)state;
	link_init(&l, 26 * MBIT, 20 * MBIT);
	l.estimate = true;
	l.demand_Bps = 20 * MBIT;
	link_run(&l, 1000);
	assert_true(l.d.load_pct >= AUTORATE_HIGH_LOAD_PCT);
	assert_int_equal(l.d.rises, 0);
	/* once the demand exceeds the rate, it rises */
	l.cap_Bps = l.demand_Bps = 40 * MBIT;
	link_run(&l, 1000);
	assert_true(l.d.rises > 0);
	assert_true(l.d.rate_Bps > 30 * MBIT);
}

/*
 * ACKs (the estimated delivery) that stall for a tick, as while a sender
 * recovers a loss, must not send a cut far below the capacity: no cut
 * under 75 % of it, where the steady cycle cuts to about 90 %. A real
 * fall is still followed.
 */
static void
estimate_stalls_do_not_deepen_cuts(void **state)
{
	struct link	l;

	(void)state;
	link_init(&l, 20 * MBIT, 20 * MBIT);
	l.estimate = l.bunched = true;
	link_run(&l, 2000);
	l.low_Bps = 0;
	link_run(&l, 20000);
	assert_true(l.d.cuts >= 3);
	assert_true(l.low_Bps >= 20 * MBIT * 75 / 100);
	l.cap_Bps = 8 * MBIT;
	link_run(&l, 3000);
	assert_true(l.d.rate_Bps < 8 * MBIT);
}

static void
params_are_checked(void **state)
{
	struct autorate_params	p;

	(void)state;
	autorate_params_default(&p);
	assert_string_equal(autorate_params_check(&p), "");
	p.enabled = true;
	assert_string_not_equal(autorate_params_check(&p), "");
	p.min_Bps = 10;
	p.base_Bps = 5;
	p.max_Bps = 20;
	assert_string_not_equal(autorate_params_check(&p), "");
	p.base_Bps = 15;
	assert_string_equal(autorate_params_check(&p), "");
	p.interval_ns = 5 * MS;
	assert_string_not_equal(autorate_params_check(&p), "");
	assert_string_equal(autorate_action_name(AUTORATE_CUT), "cut");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rises_under_load_without_delay),
		cmocka_unit_test(caked_queue_counts_as_load),
		cmocka_unit_test(cuts_multiplicatively_on_delay),
		cmocka_unit_test(deeper_cut_for_larger_delay),
		cmocka_unit_test(holds_between_cuts_and_while_delay_drains),
		cmocka_unit_test(drifts_to_base_when_idle),
		cmocka_unit_test(drift_is_slow),
		cmocka_unit_test(clamps_to_min_and_max),
		cmocka_unit_test(no_cut_when_direction_is_idle),
		cmocka_unit_test(cuts_from_what_was_sent),
		cmocka_unit_test(dead_reflector_is_ignored),
		cmocka_unit_test(one_bloated_reflector_is_outvoted),
		cmocka_unit_test(slow_reflector_baseline_adapts),
		cmocka_unit_test(short_bloat_barely_moves_baseline),
		cmocka_unit_test(stall_goes_to_min_and_recovers),
		cmocka_unit_test(follows_a_bloated_link),
		cmocka_unit_test(recovers_from_a_sudden_drop),
		cmocka_unit_test(owd_goes_to_its_own_direction),
		cmocka_unit_test(owd_ms_handles_midnight_and_nonstandard),
		cmocka_unit_test(signals_combine_per_direction),
		cmocka_unit_test(delivery_cut_lands_below_a_fallen_capacity),
		cmocka_unit_test(delivery_allows_a_fast_rise),
		cmocka_unit_test(no_rise_above_what_is_delivered),
		cmocka_unit_test(estimated_delivery_only_cuts),
		cmocka_unit_test(estimated_delivery_needs_a_queue_to_rise),
		cmocka_unit_test(estimate_stalls_do_not_deepen_cuts),
		cmocka_unit_test(params_are_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
