/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate.h: the rate controller that lets one direction follow a link
 * whose capacity changes (see autorate.c and caked.conf(5)).
 *
 * Pure: no I/O, no clock. The daemon hands in probe round-trip times and
 * one-way delays per reflector, the passive delay of the traffic, the
 * engine's sent-byte counter and queue delay, and the time; each
 * direction's controller takes its own delay input (struct autorate_input)
 * and hands back a new rate or "no change".
 */
#ifndef CAKED_DAEMON_AUTORATE_H
#define CAKED_DAEMON_AUTORATE_H

#include <netinet/in.h>

#include <stdbool.h>
#include <stdint.h>

#define AUTORATE_REFLECTORS_MAX	16	/* reflector addresses: the pool */

/* A reflector's address: IPv4 or IPv6 (family AF_INET or AF_INET6). */
struct autorate_addr {
	int	family;
	union {
		struct in_addr	v4;
		struct in6_addr	v6;
	}	u;
};

/* Defaults (the reasoning is in caked.conf(5) and autorate.c). */
#define AUTORATE_DEF_THRESHOLD_NS	15000000ULL	/* 15 ms extra RTT */
#define AUTORATE_DEF_INTERVAL_NS	100000000ULL	/* probe and tick */
#define AUTORATE_HOLD_NS	300000000ULL	/* between two cuts, plus ... */
#define AUTORATE_HOLD_MAX_NS	1000000000ULL	/* ... the delay, up to 1 s */
#define AUTORATE_DRAIN_NS	2000000000ULL	/* no cut while draining in this */
#define AUTORATE_DRIFT_NS	1000000000ULL	/* between two drift steps */
#define AUTORATE_STALE_NS	1000000000ULL	/* reflector counts as gone */
#define AUTORATE_STALL_NS	10000000000ULL	/* no reflector: go to min */
#define AUTORATE_BASELINE_TAU_NS 60000000000ULL	/* baseline rises this slowly */
#define AUTORATE_DELTA_TAU_NS	150000000ULL	/* recent delta smoothing */
#define AUTORATE_HIGH_LOAD_PCT	75	/* load that allows a rise */
#define AUTORATE_CUT_LOAD_PCT	50	/* load: this direction is busy */
#define AUTORATE_IDLE_LOAD_PCT	5	/* below: idle, never cut */
#define AUTORATE_SENT_LOAD_PCT	75	/* below: cut from what was sent */
#define AUTORATE_RISE_PERMILLE	25	/* +2.5 % per interval at most */
#define AUTORATE_CUT_MIN_PERMILLE 500	/* one cut keeps at least 50 % */
#define AUTORATE_DRIFT_PERMILLE	10	/* 1 % per drift step */
#define AUTORATE_QUEUE_BUSY_US	1000	/* caked's own queue: demand > rate */
#define AUTORATE_CEILING_PERMILLE 900	/* rise slowly from 90 % of it ... */
#define AUTORATE_CEILING_SLOW	4	/* ... at 1/4 of the speed ... */
#define AUTORATE_CEILING_NS	30000000000ULL	/* ... for 30 s after a cut */
#define AUTORATE_FAST_PERMILLE	80	/* +8 % a tick while ... */
#define AUTORATE_FAST_DELIV_PCT	95	/* ... this much is delivered */
#define AUTORATE_DELIV_RISE_PCT	90	/* delivered under this: no rise */
/* The reflector pool and idle probing ([general] keys). */
#define AUTORATE_PROBE_AUTO	0	/* autorate-probe = auto */
#define AUTORATE_PROBE_ECHO	1
#define AUTORATE_PROBE_TIMESTAMP 2
#define AUTORATE_DEF_ACTIVE	3	/* reflectors probed at once */
#define AUTORATE_DEF_IDLE_AFTER_NS	10000000000ULL	/* 10 s */
#define AUTORATE_DEF_IDLE_INTERVAL_NS	1000000000ULL	/* 1 s */
#define AUTORATE_SILENT_NS	3000000000ULL	/* replace a silent one ... */
#define AUTORATE_SILENT_ROUNDS	3	/* ... (and after this many rounds) */
#define AUTORATE_TS_TRIES	3	/* timestamps unanswered: echo */
#define AUTORATE_REPLACE_DRIFT_NS 30000000ULL	/* baseline rise over peers */
#define AUTORATE_PASSIVE_STALE_NS 1000000000ULL	/* passive input is gone */
/*
 * One-way delays carry the reflector's unknown clock offset and may be
 * negative: they are kept biased by half a day, so that the estimator
 * (which works on unsigned values) sees them positive.
 */
#define AUTORATE_OWD_BIAS_NS	43200000000000ULL
#define AUTORATE_DAY_MS		86400000U	/* ICMP timestamps wrap */

/* One direction's settings (caked.conf [upload]/[download] autorate-*). */
struct autorate_params {
	bool		enabled;
	uint64_t	min_Bps;
	uint64_t	base_Bps;
	uint64_t	max_Bps;
	uint64_t	threshold_ns;	/* extra path delay that means bloat */
	uint64_t	interval_ns;	/* tick */
};

/* What one reflector has told us. */
struct autorate_reflector {
	uint64_t	baseline_ns;	/* slow: rises slowly, falls at once */
	int64_t		delta_ns;	/* fast EWMA of rtt - baseline */
	uint64_t	rtt_ns;		/* last sample */
	uint64_t	last_reply_ns;	/* time of the last sample */
	uint64_t	replies;
};

/* Directions of a one-way delay: out (upload) and back (download). */
#define AUTORATE_OWD_UP		0
#define AUTORATE_OWD_DOWN	1

/*
 * The path delay seen through all reflectors: the round trip of each
 * (echo or timestamp), and for those that answer ICMP timestamps the
 * one-way delay out and back (biased, see AUTORATE_OWD_BIAS_NS).
 */
struct autorate_delay {
	unsigned int			count;
	struct autorate_reflector	refl[AUTORATE_REFLECTORS_MAX];
	struct autorate_reflector	owd[2][AUTORATE_REFLECTORS_MAX];
	uint64_t			last_reply_ns;	/* any reflector */
	uint64_t			start_ns;
	uint64_t			stale_ns;	/* 0: AUTORATE_STALE_NS */
};

/* Which signal a direction's delay input came from. */
enum autorate_signal {
	AUTORATE_SIG_NONE = 0,	/* nothing fresh */
	AUTORATE_SIG_ECHO,	/* round trips to the reflectors */
	AUTORATE_SIG_OWD,	/* one-way delay, this direction's */
	AUTORATE_SIG_PASSIVE,	/* RTT of the forwarded TCP traffic */
};

/* The passive delay of one direction, as the traffic showed it. */
struct autorate_passive {
	uint64_t	delay_ns;	/* recent */
	uint64_t	baseline_ns;
	uint64_t	last_ns;	/* time of the last update; 0: never */
};

/* One direction's delay input for one tick (autorate_input_get()). */
struct autorate_input {
	enum autorate_signal	signal;		/* NONE: delta_ns unset */
	int64_t			delta_ns;	/* recent - baseline */
	uint64_t		baseline_ns;	/* of that signal (shown) */
	uint64_t		last_ns;	/* last sample of any; 0: none */
	uint64_t		start_ns;	/* inputs counted from */
	/* Each candidate, -1 when not fresh (for statistics). */
	int64_t			echo_ns;
	int64_t			owd_ns;
	int64_t			passive_ns;
	/*
	 * What the bottleneck of this direction delivered: a byte counter
	 * (the caller's, monotonic) when deliv_known. For download the
	 * bytes arriving at caked from the WAN, for upload the bytes the
	 * WAN hosts acknowledge (scaled to the wire).
	 */
	bool			deliv_known;
	bool			deliv_exact;	/* counted, not estimated */
	uint64_t		deliv_bytes;
};

/* What a tick did. */
enum autorate_action {
	AUTORATE_HOLD = 0,
	AUTORATE_RISE,
	AUTORATE_CUT,
	AUTORATE_DRIFT,
	AUTORATE_STALL,		/* no reflector answers: minimum */
};

/* One direction's controller. */
struct autorate_dir {
	struct autorate_params	p;
	uint64_t		rate_Bps;	/* in force */
	uint64_t		achieved_Bps;	/* smoothed */
	uint32_t		load_pct;	/* achieved / rate */
	uint64_t		deliv_Bps;	/* delivered, smoothed */
	uint64_t		deliv_now_Bps;	/* the last tick alone */
	bool			deliv_valid;	/* both set this tick */
	bool			deliv_exact;	/* as the input's */
	bool			deliv_last_set;
	uint64_t		last_deliv_bytes;
	uint32_t		queue_delay_us;	/* last input */
	int64_t			delta_ns;	/* last input; -1 = none */
	struct autorate_input	in;		/* last input */
	uint64_t		last_tick_ns;
	uint64_t		last_sent_bytes;
	uint64_t		last_cut_ns;	/* 0 = never */
	int64_t			cut_delta_ns;	/* delta at the last cut */
	uint64_t		drain_ref_ns;	/* end of its hold; 0: not yet */
	int64_t			drain_ref_delta_ns; /* delta then */
	uint64_t		ceiling_Bps;	/* rate at an episode's first cut */
	uint64_t		rises_at_cut;	/* rises counted at the last cut */
	uint64_t		last_drift_ns;
	enum autorate_action	last_action;
	uint64_t		rises;
	uint64_t		cuts;
	uint64_t		drifts;
	uint64_t		stalls;
};

/* Fills p with the defaults; the rates stay 0 (the config sets them). */
void	autorate_params_default(struct autorate_params *p);
/* "" if p is consistent, else a one-line reason (static string). */
const char *autorate_params_check(const struct autorate_params *p);

/* Forgets every reflector; count reflectors from now_ns on. */
void	autorate_delay_init(struct autorate_delay *dl, unsigned int count,
	    uint64_t now_ns);
/* One probe answer: reflector idx had round-trip rtt_ns, at now_ns. */
void	autorate_delay_sample(struct autorate_delay *dl, unsigned int idx,
	    uint64_t rtt_ns, uint64_t now_ns);
/*
 * One timestamp answer from reflector idx: the one-way delay out (way 0)
 * or back (way 1), including the reflector's clock offset (see
 * autorate_owd_ms()).
 */
void	autorate_delay_owd(struct autorate_delay *dl, unsigned int idx,
	    int way, int64_t owd_ns, uint64_t now_ns);
/*
 * to_ms - from_ms for two ICMP timestamps (ms since midnight UTC), across
 * midnight, as a signed value in ns in *ns. False if either is
 * non-standard (high bit set) or out of range.
 */
bool	autorate_owd_ms(uint32_t from_ms, uint32_t to_ms, int64_t *ns);
/* True if reflector idx answered recently enough to be believed. */
bool	autorate_delay_fresh(const struct autorate_delay *dl,
	    unsigned int idx, uint64_t now_ns);
/*
 * The path's extra delay now: the lower median of the fresh reflectors'
 * recent deltas, in *delta_ns. Returns false if no reflector is fresh.
 */
bool	autorate_delay_get(const struct autorate_delay *dl, uint64_t now_ns,
	    int64_t *delta_ns);
/* The same over the fresh one-way delays of way (AUTORATE_OWD_*). */
bool	autorate_delay_owd_get(const struct autorate_delay *dl, int way,
	    uint64_t now_ns, int64_t *delta_ns);
/*
 * Builds direction way's input from the reflectors (dl) and the passive
 * delay (pv, or NULL): see autorate.c for how they combine.
 */
void	autorate_input_get(struct autorate_input *in,
	    const struct autorate_delay *dl, int way,
	    const struct autorate_passive *pv, uint64_t now_ns);
/* "none", "echo", "owd" or "passive". */
const char *autorate_signal_name(enum autorate_signal s);

/* Starts a direction at its base rate; sent_bytes is the engine counter. */
void	autorate_dir_init(struct autorate_dir *d,
	    const struct autorate_params *p, uint64_t sent_bytes,
	    uint64_t now_ns);
/*
 * One tick. sent_bytes: the engine's sent-byte counter; queue_delay_us:
 * caked's own queue delay (0 if its queue is empty); in: this direction's
 * delay input. Returns true if d->rate_Bps changed (apply it).
 */
bool	autorate_dir_tick(struct autorate_dir *d,
	    const struct autorate_input *in, uint64_t sent_bytes,
	    uint32_t queue_delay_us, uint64_t now_ns);
/* Adopts a rate set from outside (cakectl set), clamped to min..max. */
void	autorate_dir_set_rate(struct autorate_dir *d, uint64_t rate_Bps);
/* "hold", "rise", "cut", "drift" or "stall". */
const char *autorate_action_name(enum autorate_action a);

#endif /* CAKED_DAEMON_AUTORATE_H */
