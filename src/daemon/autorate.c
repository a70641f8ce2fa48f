/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate.c: a delay-based rate controller for one shaped direction,
 * after cake-autorate and sqm-autorate (see the README), written anew.
 *
 * Signals. (1) Load: the bytes the engine sent during a tick against the
 * rate in force. (2) Path delay: round-trip times of small probes to a few
 * reflectors beyond the bottleneck. Each reflector keeps a baseline that
 * falls at once to a lower sample and rises only with a 60 s time constant
 * (so a reflector whose path got longer is re-learned, while a bloat
 * episode of a second or two barely moves it), and a recent delta (an
 * EWMA of sample - baseline over about 150 ms). The path's delay is the
 * lower median of the fresh reflectors' deltas, so one slow or dead
 * reflector cannot cut or hold the rate alone; a reflector silent for 1 s
 * is left out. (3) caked's own queue delay: a standing queue in caked
 * means the demand exceeds the rate, i.e. the direction is loaded (if
 * caked sends at least half the rate).
 *
 * Each direction has its own delay input, chosen every tick from:
 *   - owd: the one-way delay of this direction (out for upload, back for
 *     download) from reflectors that answer ICMP timestamp requests. The
 *     reflector's clock offset is unknown but constant, so only the
 *     variation over its own minimum counts: the same baseline and delta
 *     as for round trips, per reflector and way, and the lower median of
 *     the fresh ones.
 *   - passive: the RTT that the forwarded TCP traffic shows for this
 *     direction (its recent value over its baseline), handed in by the
 *     daemon; fresh for 1 s after its last update.
 *   - echo: the round trips (echo, or timestamp requests timed by caked),
 *     which cannot tell the directions apart.
 * owd and passive both see this direction alone: when both are fresh the
 * larger delta wins (a missed bloat costs every user latency, a cut too
 * many costs a little throughput for a second), on a tie owd. Echo is
 * used only when neither is fresh; with nothing fresh the controller
 * holds, and goes to the minimum after 10 s without any sample at all.
 *
 * Control law, once per tick:
 *   - delay above the threshold: cut, unless the direction is idle (under
 *     5 % load: the delay is then the other direction's). The factor is
 *     1 - 0.1 * delay / threshold, at least 0.5: mild at the threshold,
 *     deep when a bloated buffer has already filled. It applies to the
 *     rate, or, when caked sent under 75 % of the rate with at least half
 *     of it (the link beyond has become slower than the rate), to what
 *     caked sent: one step to below the new capacity instead of several
 *     while the buffer fills. A cut shows in the probes only after the
 *     path delay itself (they queue behind the backlog): the next cut
 *     waits that delay plus 300 ms, and then comes only if the delay does
 *     not fall fast enough to drain within about 2 s.
 *   - load >= 75 % (or a standing queue in caked, with at least half the
 *     rate sent; where the delivery is estimated from ACKs, the upload,
 *     the standing queue alone) and delay below half the threshold:
 *     rise by up to 2.5 % per tick, scaled down to 0 as the delay
 *     approaches half the threshold. Near the ceiling, the rate at which
 *     the delay last began to grow (the rate of a cut that followed a
 *     rise; a follow-up cut while it drains does not lower it), from
 *     90 % of it up to it and for 30 s after the cut, the rise is 4
 *     times slower: the capacity is probably just there, and a
 *     delay-based controller overshoots by about the square root of its
 *     rise speed before the delay shows it.
 *     10 % past the ceiling the rise is twice as fast: the capacity has
 *     grown, find it soon.
 *   - low load and no bloat: drift 1 % per second toward the base rate.
 *   - no reflector has answered for 10 s: the minimum rate (the safe
 *     choice), until they answer again.
 * The result is clamped to [min, max].
 *
 * This module must not do I/O or read a clock: the caller passes now_ns.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "daemon/autorate.h"
#include "engine/ewma.h"

#define NS_PER_S	1000000000ULL

void
autorate_params_default(struct autorate_params *p)
{
	memset(p, 0, sizeof(*p));
	p->threshold_ns = AUTORATE_DEF_THRESHOLD_NS;
	p->interval_ns = AUTORATE_DEF_INTERVAL_NS;
}

const char *
autorate_params_check(const struct autorate_params *p)
{
	if (!p->enabled)
		return "";
	if (p->min_Bps == 0 || p->base_Bps == 0 || p->max_Bps == 0)
		return "autorate-min, autorate-base and autorate-max must be "
		    "set and above 0";
	if (p->min_Bps > p->base_Bps || p->base_Bps > p->max_Bps)
		return "autorate-min <= autorate-base <= autorate-max must "
		    "hold";
	if (p->threshold_ns == 0)
		return "autorate-delay-threshold must be above 0";
	if (p->interval_ns < 10000000ULL || p->interval_ns > NS_PER_S)
		return "autorate-interval must be from 10ms to 1s";
	return "";
}

/* ---- path delay ------------------------------------------------------- */

void
autorate_delay_init(struct autorate_delay *dl, unsigned int count,
    uint64_t now_ns)
{
	memset(dl, 0, sizeof(*dl));
	dl->count = count > AUTORATE_REFLECTORS_MAX ?
	    AUTORATE_REFLECTORS_MAX : count;
	dl->start_ns = now_ns;
	dl->stale_ns = AUTORATE_STALE_NS;
}


/* One sample v into the estimator r. */
static void
autorate_est_sample(struct autorate_reflector *r, uint64_t v, uint64_t now_ns)
{
	uint64_t	dt;
	int64_t		raw;

	if (r->replies == 0) {
		r->baseline_ns = v;
		r->delta_ns = 0;
	} else {
		dt = now_ns > r->last_reply_ns ? now_ns - r->last_reply_ns : 0;
		if (v < r->baseline_ns)
			r->baseline_ns = v;
		else
			r->baseline_ns = (uint64_t)ewma_toward(
			    (int64_t)r->baseline_ns, (int64_t)v, dt,
			    AUTORATE_BASELINE_TAU_NS);
		raw = (int64_t)(v - r->baseline_ns);
		r->delta_ns = ewma_toward(r->delta_ns, raw, dt,
		    AUTORATE_DELTA_TAU_NS);
	}
	r->rtt_ns = v;
	r->last_reply_ns = now_ns;
	r->replies++;
}

void
autorate_delay_sample(struct autorate_delay *dl, unsigned int idx,
    uint64_t rtt_ns, uint64_t now_ns)
{
	if (idx >= dl->count)
		return;
	autorate_est_sample(&dl->refl[idx], rtt_ns, now_ns);
	dl->last_reply_ns = now_ns;
}

void
autorate_delay_owd(struct autorate_delay *dl, unsigned int idx, int way,
    int64_t owd_ns, uint64_t now_ns)
{
	int64_t	bias = (int64_t)AUTORATE_OWD_BIAS_NS;

	if (idx >= dl->count || way < 0 || way > 1 || owd_ns <= -bias ||
	    owd_ns >= bias)
		return;
	autorate_est_sample(&dl->owd[way][idx], (uint64_t)(owd_ns + bias),
	    now_ns);
	dl->last_reply_ns = now_ns;
}

bool
autorate_owd_ms(uint32_t from_ms, uint32_t to_ms, int64_t *ns)
{
	int64_t	d;

	if (from_ms >= AUTORATE_DAY_MS || to_ms >= AUTORATE_DAY_MS)
		return false;	/* also catches the high bit */
	/* across midnight: into (-half a day, half a day] */
	d = (int64_t)to_ms - (int64_t)from_ms;
	if (d > (int64_t)AUTORATE_DAY_MS / 2)
		d -= AUTORATE_DAY_MS;
	else if (d <= -(int64_t)AUTORATE_DAY_MS / 2)
		d += AUTORATE_DAY_MS;
	*ns = d * 1000000;
	return true;
}

/* Whether estimator r has had a recent enough second sample. */
static bool
autorate_est_fresh(const struct autorate_delay *dl,
    const struct autorate_reflector *r, uint64_t now_ns)
{
	uint64_t	stale = dl->stale_ns != 0 ? dl->stale_ns :
			    AUTORATE_STALE_NS;

	return r->replies >= 2 && now_ns - r->last_reply_ns <= stale;
}

bool
autorate_delay_fresh(const struct autorate_delay *dl, unsigned int idx,
    uint64_t now_ns)
{
	if (idx >= dl->count)
		return false;
	return autorate_est_fresh(dl, &dl->refl[idx], now_ns);
}

/* The lower median of the fresh deltas of the estimators e[0..n). */
static bool
autorate_median(const struct autorate_delay *dl,
    const struct autorate_reflector *e, unsigned int n, uint64_t now_ns,
    int64_t *delta_ns)
{
	int64_t		v[AUTORATE_REFLECTORS_MAX], t;
	unsigned int	i, j, k = 0;

	for (i = 0; i < n; i++) {
		if (!autorate_est_fresh(dl, &e[i], now_ns))
			continue;
		/* insertion sort: at most AUTORATE_REFLECTORS_MAX values */
		t = e[i].delta_ns;
		for (j = k++; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	if (k == 0)
		return false;
	*delta_ns = v[(k - 1) / 2];
	return true;
}

bool
autorate_delay_get(const struct autorate_delay *dl, uint64_t now_ns,
    int64_t *delta_ns)
{
	return autorate_median(dl, dl->refl, dl->count, now_ns, delta_ns);
}

bool
autorate_delay_owd_get(const struct autorate_delay *dl, int way,
    uint64_t now_ns, int64_t *delta_ns)
{
	if (way < 0 || way > 1)
		return false;
	return autorate_median(dl, dl->owd[way], dl->count, now_ns,
	    delta_ns);
}

/* The baseline shown for a signal: the first fresh estimator's. */
static uint64_t
autorate_first_baseline(const struct autorate_delay *dl,
    const struct autorate_reflector *e, uint64_t bias, uint64_t now_ns)
{
	unsigned int	i;

	for (i = 0; i < dl->count; i++)
		if (autorate_est_fresh(dl, &e[i], now_ns))
			return e[i].baseline_ns - bias;
	return 0;
}

void
autorate_input_get(struct autorate_input *in, const struct autorate_delay *dl,
    int way, const struct autorate_passive *pv, uint64_t now_ns)
{
	int64_t	v;

	memset(in, 0, sizeof(*in));
	in->start_ns = dl->start_ns;
	in->last_ns = dl->last_reply_ns;
	in->echo_ns = in->owd_ns = in->passive_ns = -1;
	if (autorate_delay_get(dl, now_ns, &v))
		in->echo_ns = v < 0 ? 0 : v;
	if (autorate_delay_owd_get(dl, way, now_ns, &v))
		in->owd_ns = v < 0 ? 0 : v;
	if (pv != NULL && pv->last_ns != 0 && now_ns - pv->last_ns <=
	    AUTORATE_PASSIVE_STALE_NS) {
		in->passive_ns = pv->delay_ns > pv->baseline_ns ?
		    (int64_t)(pv->delay_ns - pv->baseline_ns) : 0;
	}
	if (pv != NULL && pv->last_ns > in->last_ns)
		in->last_ns = pv->last_ns;
	/*
	 * The traffic's own delay wins when fresh: it is the path the
	 * traffic takes, sampled several times a round trip, and its
	 * baseline follows a path that got longer within seconds; the
	 * reflectors stand in when no TCP traffic shows it.
	 */
	if (in->passive_ns >= 0) {
		in->signal = AUTORATE_SIG_PASSIVE;
		in->delta_ns = in->passive_ns;
		in->baseline_ns = pv->baseline_ns;
	} else if (in->owd_ns >= 0) {
		in->signal = AUTORATE_SIG_OWD;
		in->delta_ns = in->owd_ns;
		in->baseline_ns = autorate_first_baseline(dl, dl->owd[way],
		    AUTORATE_OWD_BIAS_NS, now_ns);
	} else if (in->echo_ns >= 0) {
		in->signal = AUTORATE_SIG_ECHO;
		in->delta_ns = in->echo_ns;
		in->baseline_ns = autorate_first_baseline(dl, dl->refl, 0,
		    now_ns);
	}
}

const char *
autorate_signal_name(enum autorate_signal s)
{
	switch (s) {
	case AUTORATE_SIG_ECHO:
		return "echo";
	case AUTORATE_SIG_OWD:
		return "owd";
	case AUTORATE_SIG_PASSIVE:
		return "passive";
	case AUTORATE_SIG_NONE:
		break;
	}
	return "none";
}

/* True if no signal at all has come for AUTORATE_STALL_NS. */
static bool
autorate_input_stalled(const struct autorate_input *in, uint64_t now_ns)
{
	uint64_t	since;

	since = in->last_ns != 0 ? in->last_ns : in->start_ns;
	return now_ns - since >= AUTORATE_STALL_NS;
}

/* ---- one direction ----------------------------------------------------- */

void
autorate_dir_init(struct autorate_dir *d, const struct autorate_params *p,
    uint64_t sent_bytes, uint64_t now_ns)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	d->rate_Bps = p->base_Bps;
	d->last_tick_ns = now_ns;
	d->last_sent_bytes = sent_bytes;
	d->last_drift_ns = now_ns;
	d->delta_ns = -1;
}

static uint64_t
autorate_clamp(const struct autorate_dir *d, uint64_t rate_Bps)
{
	if (rate_Bps < d->p.min_Bps)
		return d->p.min_Bps;
	if (rate_Bps > d->p.max_Bps)
		return d->p.max_Bps;
	return rate_Bps;
}

void
autorate_dir_set_rate(struct autorate_dir *d, uint64_t rate_Bps)
{
	d->rate_Bps = autorate_clamp(d, rate_Bps);
}

/*
 * What the bottleneck delivered during the dt_ns since the last tick, from
 * the input's counter: smoothed as the achieved rate, and the last tick
 * alone (a capacity that just fell shows there first).
 */
static void
autorate_deliv(struct autorate_dir *d, const struct autorate_input *in,
    uint64_t dt_ns)
{
	uint64_t	bytes = in->deliv_bytes - d->last_deliv_bytes;
	bool		had = d->deliv_last_set &&
			    in->deliv_bytes >= d->last_deliv_bytes;

	d->deliv_valid = false;
	d->deliv_last_set = in->deliv_known;
	d->last_deliv_bytes = in->deliv_bytes;
	if (!in->deliv_known || !had || dt_ns == 0)
		return;
	d->deliv_now_Bps = (uint64_t)((double)bytes * (double)NS_PER_S /
	    (double)dt_ns);
	d->deliv_Bps = d->deliv_Bps == 0 ? d->deliv_now_Bps :
	    (d->deliv_Bps + d->deliv_now_Bps) / 2;
	d->deliv_valid = true;
	d->deliv_exact = in->deliv_exact;
}

/* Updates the achieved rate and load from the engine's byte counter. */
static void
autorate_load(struct autorate_dir *d, const struct autorate_input *in,
    uint64_t sent_bytes, uint64_t now_ns)
{
	uint64_t	dt = now_ns - d->last_tick_ns;
	uint64_t	bytes = sent_bytes - d->last_sent_bytes;
	uint64_t	rate;

	d->last_tick_ns = now_ns;
	d->last_sent_bytes = sent_bytes;
	autorate_deliv(d, in, dt);
	if (dt == 0)
		return;
	rate = (uint64_t)((double)bytes * (double)NS_PER_S / (double)dt);
	/* half-weight smoothing: one odd tick does not decide alone */
	d->achieved_Bps = (d->achieved_Bps + rate) / 2;
	d->load_pct = d->rate_Bps == 0 ? 0 : (uint32_t)(d->achieved_Bps *
	    100 / d->rate_Bps);
}

/*
 * Whether the last cut has had time to show and the delay still does not
 * drain fast enough. A cut shows in the probes one path delay after it
 * was made (they queue behind the backlog it left) plus the smoothing:
 * the hold. The delay at the end of the hold is the reference; from then
 * on it must fall fast enough to be gone within about AUTORATE_DRAIN_NS.
 */
static bool
autorate_cut_due(struct autorate_dir *d, int64_t delta_ns, uint64_t now_ns)
{
	uint64_t	since, hold, fall_ns;
	int64_t		need_ns;

	/* the first cut, or the first since the rate rose again */
	if (d->last_cut_ns == 0 || d->rises != d->rises_at_cut)
		return true;
	since = now_ns - d->last_cut_ns;
	hold = AUTORATE_HOLD_NS + (d->cut_delta_ns > 0 ?
	    (uint64_t)d->cut_delta_ns : 0);
	if (hold > AUTORATE_HOLD_MAX_NS)
		hold = AUTORATE_HOLD_MAX_NS;
	if (since < hold)
		return false;
	if (d->drain_ref_ns == 0) {
		d->drain_ref_ns = now_ns;
		d->drain_ref_delta_ns = delta_ns;
		return false;
	}
	since = now_ns - d->drain_ref_ns;
	if (since >= AUTORATE_DRAIN_NS)
		return true;
	need_ns = (int64_t)((double)d->drain_ref_delta_ns * (double)since /
	    (double)AUTORATE_DRAIN_NS);
	if (need_ns < 2000000)
		need_ns = 2000000;
	fall_ns = delta_ns < d->drain_ref_delta_ns ?
	    (uint64_t)(d->drain_ref_delta_ns - delta_ns) : 0;
	return fall_ns < (uint64_t)need_ns;
}

/*
 * What a cut starts from. Where the bottleneck's delivery is known, and
 * below the rate, that: the capacity now, so one cut lands below it
 * however far it fell. Where it is counted, the lower of the last tick's
 * and the smoothed figure, since a capacity that just fell shows in the
 * last tick first. An estimate, from ACKs, is only smoothed, and never
 * taken below what caked sent: the cumulative ACK stalls while a sender
 * recovers a loss, though its data (and caked's) still gets through at
 * the bottleneck's pace; a cut from such a dip lands far below the
 * capacity (a third under it in one test_autorate.sh run). Except at
 * twice the threshold or more, where the capacity has fallen: what caked
 * sent is then the senders' old pace, a round trip late, and a cut from
 * it left the queue beyond growing (30 to 5 Mbit up: a cut to 15 Mbit,
 * and a sojourn p95 of 100 to 197 ms in the modem); the estimate is then
 * taken as the counted delivery is.
 * Otherwise what caked sent, when that is between half and 75 % of the
 * rate, else the rate.
 */
static uint64_t
autorate_cut_from(const struct autorate_dir *d, int64_t delta_ns)
{
	uint64_t	c;
	bool		as_counted;

	if (d->deliv_valid && d->deliv_Bps > 0) {
		as_counted = d->deliv_exact ||
		    delta_ns >= 2 * (int64_t)d->p.threshold_ns;
		c = d->deliv_Bps;
		if (as_counted && d->deliv_now_Bps < c)
			c = d->deliv_now_Bps;
		else if (!as_counted && d->achieved_Bps > c)
			c = d->achieved_Bps;
		return c < d->rate_Bps ? c : d->rate_Bps;
	}
	if (d->load_pct >= AUTORATE_CUT_LOAD_PCT &&
	    d->load_pct < AUTORATE_SENT_LOAD_PCT)
		return d->achieved_Bps;
	return d->rate_Bps;
}

/*
 * Bloat: cut, unless the last cut cannot have shown yet or the delay
 * already drains. The cut is relative to what caked actually sent when
 * that is under 75 % of the rate (the bottleneck beyond is slower than the
 * rate; cutting from the rate would take several steps and let the
 * buffer fill meanwhile), except when this direction sends under half
 * its rate (the delay may then be the other direction's: cut from the
 * rate, mildly).
 */
static enum autorate_action
autorate_cut(struct autorate_dir *d, int64_t delta_ns, uint64_t now_ns)
{
	uint64_t	permille, from;

	if (!autorate_cut_due(d, delta_ns, now_ns))
		return AUTORATE_HOLD;
	permille = 1000 - (uint64_t)((double)delta_ns * 100.0 /
	    (double)d->p.threshold_ns);
	if ((int64_t)permille < AUTORATE_CUT_MIN_PERMILLE ||
	    permille > 1000)
		permille = AUTORATE_CUT_MIN_PERMILLE;
	from = autorate_cut_from(d, delta_ns);
	/*
	 * The capacity is just below the rate at which the delay began to
	 * grow: a follow-up cut (no rise since the last) does not lower it.
	 */
	if (d->rises_at_cut != d->rises || d->ceiling_Bps == 0)
		d->ceiling_Bps = d->rate_Bps;
	d->rises_at_cut = d->rises;
	d->rate_Bps = autorate_clamp(d, from * permille / 1000);
	d->last_cut_ns = now_ns;
	d->cut_delta_ns = delta_ns;
	d->drain_ref_ns = 0;
	d->cuts++;
	return AUTORATE_CUT;
}

/* Whether the rate is just below the last cut's, which came lately. */
static bool
autorate_near_ceiling(const struct autorate_dir *d, uint64_t now_ns)
{
	return d->ceiling_Bps != 0 && d->last_cut_ns != 0 &&
	    now_ns - d->last_cut_ns < AUTORATE_CEILING_NS &&
	    d->rate_Bps < d->ceiling_Bps &&
	    d->rate_Bps >= d->ceiling_Bps * AUTORATE_CEILING_PERMILLE / 1000;
}

/* Well past the rate of the last cut: the capacity has grown. */
static bool
autorate_past_ceiling(const struct autorate_dir *d)
{
	return d->ceiling_Bps != 0 &&
	    d->rate_Bps >= d->ceiling_Bps + d->ceiling_Bps / 10;
}

/*
 * Whether the rate is known to be below the capacity (only where the
 * delivery is counted: an estimate from ACKs errs by a few per cent, and
 * this rule sits within a few per cent of the capacity): caked's own queue
 * stands (the demand exceeds the rate) and the bottleneck delivers at
 * least AUTORATE_FAST_DELIV_PCT of the rate. Then the rise needs no
 * caution, whatever the delay under the threshold (a path that just got
 * longer looks like a queue until its baseline follows): the rate is not
 * the capacity yet, and soon after it passes the capacity the delivery
 * falls behind the rate (and the queue beyond shows) and the fast rise
 * ends.
 */
static bool
autorate_fast(const struct autorate_dir *d)
{
	return d->deliv_valid && d->deliv_exact &&
	    d->queue_delay_us >= AUTORATE_QUEUE_BUSY_US &&
	    d->deliv_Bps * 100 >= d->rate_Bps * AUTORATE_FAST_DELIV_PCT;
}

/* Loaded and no delay: rise, less as the delay nears half the threshold. */
static enum autorate_action
autorate_rise(struct autorate_dir *d, int64_t delta_ns, uint64_t now_ns)
{
	int64_t		half = (int64_t)d->p.threshold_ns / 2;
	int64_t		quarter = half / 2;
	uint64_t	permille, step;

	if (autorate_fast(d))
		permille = AUTORATE_FAST_PERMILLE;
	else if (delta_ns >= half)
		return AUTORATE_HOLD;
	else {
		permille = delta_ns <= quarter ? AUTORATE_RISE_PERMILLE :
		    (uint64_t)(AUTORATE_RISE_PERMILLE * (half - delta_ns) /
		    (half - quarter));
		if (autorate_near_ceiling(d, now_ns))
			permille /= AUTORATE_CEILING_SLOW;
		else if (autorate_past_ceiling(d))
			permille *= 2;
	}
	/* the interval scales the step: the rise per second is fixed */
	step = (uint64_t)((double)d->rate_Bps * (double)permille / 1000.0 *
	    (double)d->p.interval_ns / (double)AUTORATE_DEF_INTERVAL_NS);
	if (step == 0 || d->rate_Bps >= d->p.max_Bps)
		return AUTORATE_HOLD;
	d->rate_Bps = autorate_clamp(d, d->rate_Bps + step);
	d->rises++;
	return AUTORATE_RISE;
}

/* Low load: one step toward the base rate per AUTORATE_DRIFT_NS. */
static enum autorate_action
autorate_drift(struct autorate_dir *d, uint64_t now_ns)
{
	uint64_t	base = d->p.base_Bps, step;

	if (d->rate_Bps == base || now_ns - d->last_drift_ns <
	    AUTORATE_DRIFT_NS)
		return AUTORATE_HOLD;
	d->last_drift_ns = now_ns;
	step = d->rate_Bps * AUTORATE_DRIFT_PERMILLE / 1000;
	if (step == 0)
		step = 1;
	if (d->rate_Bps > base)
		d->rate_Bps = d->rate_Bps - step < base ? base :
		    d->rate_Bps - step;
	else
		d->rate_Bps = d->rate_Bps + step > base ? base :
		    d->rate_Bps + step;
	d->rate_Bps = autorate_clamp(d, d->rate_Bps);
	d->drifts++;
	return AUTORATE_DRIFT;
}

bool
autorate_dir_tick(struct autorate_dir *d, const struct autorate_input *in,
    uint64_t sent_bytes, uint32_t queue_delay_us, uint64_t now_ns)
{
	uint64_t		old = d->rate_Bps;
	int64_t			delta_ns;
	bool			have, loaded;
	enum autorate_action	a = AUTORATE_HOLD;

	autorate_load(d, in, sent_bytes, now_ns);
	d->queue_delay_us = queue_delay_us;
	d->in = *in;
	have = in->signal != AUTORATE_SIG_NONE;
	delta_ns = in->delta_ns;
	d->delta_ns = have ? delta_ns : -1;
	/*
	 * A standing queue in caked means the demand exceeds the rate, unless
	 * caked does not even send half of it (starved of CPU, say): rising
	 * would then only hide the real bottleneck from the delay signal.
	 */
	loaded = d->load_pct >= AUTORATE_HIGH_LOAD_PCT ||
	    (queue_delay_us >= AUTORATE_QUEUE_BUSY_US &&
	    d->load_pct >= AUTORATE_CUT_LOAD_PCT);
	/*
	 * Where the delivery is only estimated (from ACKs: the upload), the
	 * load alone does not allow a rise. caked sends what the senders'
	 * ACK clock lets through, which a rate above the capacity does not
	 * bind: such a rate floats up (to 1.3 times the capacity) and leaves
	 * nothing to shape with when the capacity falls. A standing queue in
	 * caked shows that the rate binds.
	 */
	if (d->deliv_valid && !d->deliv_exact &&
	    queue_delay_us < AUTORATE_QUEUE_BUSY_US)
		loaded = false;
	/*
	 * Where the bottleneck's delivery is counted, a rate it does not
	 * reach is either above the capacity or above the demand: rising
	 * would only build a queue beyond caked, or do nothing.
	 */
	if (d->deliv_valid && d->deliv_exact && d->deliv_Bps * 100 <
	    d->rate_Bps * AUTORATE_DELIV_RISE_PCT)
		loaded = false;
	if (!have) {
		if (autorate_input_stalled(in, now_ns) &&
		    d->rate_Bps != d->p.min_Bps) {
			d->rate_Bps = d->p.min_Bps;
			d->stalls++;
			a = AUTORATE_STALL;
		}
	} else if (delta_ns > (int64_t)d->p.threshold_ns) {
		if (d->load_pct >= AUTORATE_IDLE_LOAD_PCT)
			a = autorate_cut(d, delta_ns, now_ns);
	} else if (loaded)
		a = autorate_rise(d, delta_ns, now_ns);
	else
		a = autorate_drift(d, now_ns);
	if (a != AUTORATE_DRIFT && a != AUTORATE_HOLD)
		d->last_drift_ns = now_ns;
	d->last_action = a;
	return d->rate_Bps != old;
}

const char *
autorate_action_name(enum autorate_action a)
{
	switch (a) {
	case AUTORATE_RISE:
		return "rise";
	case AUTORATE_CUT:
		return "cut";
	case AUTORATE_DRIFT:
		return "drift";
	case AUTORATE_STALL:
		return "stall";
	case AUTORATE_HOLD:
		break;
	}
	return "hold";
}
