/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_autorate_run.c: the real autorate runner (src/daemon/autorate_run.c,
 * with the real controller autorate.c and engine) over fake reflectors
 * (tests/fake/fake_probe.c), the fake event layer and the fake clock. Checked:
 * one echo per reflector every interval, on time, each answer handed to the
 * controller with its exact round trip; reflectors that go silent bring the
 * engine to the minimum rate, applied with cake_change() and reported to the
 * loop; autorate turned off by a reload stops the probing.
 */
#include <arpa/inet.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "caked/cake.h"
#include "daemon/autorate_run.h"
#include "daemon/config.h"
#include "daemon/log.h"
#include "daemon/passive.h"
#include "engine/tsrtt.h"
#include "fake/fake_event.h"
#include "fake/fake_probe.h"
#include "fake/fake_timer.h"

#define MS		1000000ULL
#define S		1000000000ULL
#define MIN_BPS		1000000ULL
#define BASE_BPS	5000000ULL
#define MAX_BPS		10000000ULL
#define RTT0		(20 * MS)
#define RTT1		(30 * MS)
#define CHANGES_MAX	64

struct rig {
	struct event_base	*base;
	struct caked_config	 cfg;
	struct cake		*cake[CONFIG_DIRS];
	struct autorate_run		*ar;
	uint64_t		 until_ns;
	/* What the runner reported to the loop. */
	unsigned int		 nchanges;
	int			 change_dir[CHANGES_MAX];
	uint64_t		 change_ns[CHANGES_MAX];
	uint64_t		 change_rate[CHANGES_MAX];
};

static bool
ready(int fd, short what)
{
	(void)what;
	return fake_probe_ready(fd);
}

static void
changed(void *arg, int dir, uint64_t now_ns)
{
	struct rig		*r = arg;
	struct cake_config	 cc;

	assert_true(r->nchanges < CHANGES_MAX);
	cake_get_config(r->cake[dir], &cc);
	r->change_dir[r->nchanges] = dir;
	r->change_ns[r->nchanges] = now_ns;
	r->change_rate[r->nchanges++] = cc.rate_Bps;
}

static uint64_t
script(void *arg, uint64_t now_ns)
{
	struct rig	*r = arg;

	if (now_ns >= r->until_ns) {
		event_base_loopbreak(r->base);
		return FAKE_EVENT_NEVER;
	}
	return r->until_ns;
}

/* Runs the event loop until the clock reaches t_ns. */
static void
run_until(struct rig *r, uint64_t t_ns)
{
	r->until_ns = t_ns;
	fake_event_set_idle(script, r);
	assert_int_equal(event_base_dispatch(r->base), 0);
	assert_true(fake_timer.now_ns == t_ns);
}

/* Pool entry i of cfg: a (IPv4 or IPv6). */
static void
add_reflector(struct caked_config *cfg, unsigned int i, const char *a)
{
	struct autorate_addr	*ad = &cfg->reflectors[i];

	memset(ad, 0, sizeof(*ad));
	ad->family = strchr(a, ':') != NULL ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(ad->family, a, &ad->u), 1);
}

static int
rig_setup(void **state)
{
	struct rig		*r;
	struct cake_env		 env;
	int			 i, err;

	assert_non_null(r = calloc(1, sizeof(*r)));
	fake_timer_reset();
	fake_event_reset();
	fake_probe_reset();
	fake_event_set_ready(ready, fake_probe_next_ns);
	assert_non_null(r->base = event_base_new());
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = 1;
	for (i = 0; i < CONFIG_DIRS; i++) {
		cake_config_default(&r->cfg.cake[i]);
		r->cfg.cake[i].rate_Bps = BASE_BPS;
		autorate_params_default(&r->cfg.autorate[i]);
		assert_non_null(r->cake[i] = cake_create(&r->cfg.cake[i], &env,
		    &err));
	}
	/* Upload only: download keeps its fixed rate. */
	r->cfg.autorate[CONFIG_UPLOAD].enabled = true;
	r->cfg.autorate[CONFIG_UPLOAD].min_Bps = MIN_BPS;
	r->cfg.autorate[CONFIG_UPLOAD].base_Bps = BASE_BPS;
	r->cfg.autorate[CONFIG_UPLOAD].max_Bps = MAX_BPS;
	r->cfg.reflectors_n = 2;
	r->cfg.reflectors_active = 3;
	r->cfg.autorate_probe = AUTORATE_PROBE_ECHO;
	r->cfg.autorate_idle_after_ns = 3600 * S;	/* never, unless asked */
	r->cfg.autorate_idle_interval_ns = AUTORATE_DEF_IDLE_INTERVAL_NS;
	add_reflector(&r->cfg, 0, "192.0.2.1");
	add_reflector(&r->cfg, 1, "192.0.2.2");
	fake_probe.rtt_ns[0] = RTT0;
	fake_probe.rtt_ns[1] = RTT1;
	assert_non_null(r->ar = autorate_run_create(r->base, NULL, r->cake,
	    changed,
	    r));
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
	assert_true(fake_probe.open);
	*state = r;
	return 0;
}

static int
rig_teardown(void **state)
{
	struct rig	*r = *state;
	int		 i;

	autorate_run_destroy(r->ar);
	assert_false(fake_probe.open);	/* the runner closed its socket */
	for (i = 0; i < CONFIG_DIRS; i++)
		cake_destroy(r->cake[i]);
	event_base_free(r->base);
	fake_event_reset();
	free(r);
	return 0;
}

static void
each_interval_probes_every_reflector_and_hears_it(void **state)
{
	struct rig		*r = *state;
	struct autorate_run_view	 v;
	uint64_t		 t0 = fake_timer.now_ns;

	/* Ten intervals (100 ms), and the last answers' way back. */
	run_until(r, t0 + 10 * AUTORATE_DEF_INTERVAL_NS + 50 * MS);
	assert_int_equal(fake_probe.targets, 2);
	assert_int_equal(fake_probe.sent[0], 10);
	assert_int_equal(fake_probe.sent[1], 10);
	/* The last echo left at the tenth tick exactly. */
	assert_true(fake_probe.sent_ns[0] ==
	    t0 + 10 * AUTORATE_DEF_INTERVAL_NS);
	assert_false(autorate_run_view(r->ar, CONFIG_DOWNLOAD, &v));
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.probes_sent, 20);
	assert_int_equal(v.probe_replies, 20);
	assert_int_equal(v.delay.refl[0].replies, 10);
	assert_int_equal(v.delay.refl[1].replies, 10);
	assert_int_equal(v.delay.refl[0].rtt_ns, RTT0);
	assert_int_equal(v.delay.refl[1].rtt_ns, RTT1);
	assert_true(v.refl[0].fresh && v.refl[1].fresh);
	/* A steady path and no load: nothing to change. */
	assert_int_equal(r->nchanges, 0);
}

static void
silent_reflectors_bring_the_minimum_rate(void **state)
{
	struct rig		*r = *state;
	struct cake_config	 cc;
	uint64_t		 t0 = fake_timer.now_ns;

	fake_probe.rtt_ns[0] = fake_probe.rtt_ns[1] = 0;	/* silent */
	run_until(r, t0 + AUTORATE_STALL_NS - 50 * MS);
	assert_int_equal(r->nchanges, 0);
	run_until(r, t0 + AUTORATE_STALL_NS + 200 * MS);
	/* One change, upload, to the minimum, in the engine itself. */
	assert_int_equal(r->nchanges, 1);
	assert_int_equal(r->change_dir[0], CONFIG_UPLOAD);
	assert_int_equal(r->change_rate[0], MIN_BPS);
	assert_true(r->change_ns[0] >= t0 + AUTORATE_STALL_NS);
	cake_get_config(r->cake[CONFIG_UPLOAD], &cc);
	assert_int_equal(cc.rate_Bps, MIN_BPS);
	cake_get_config(r->cake[CONFIG_DOWNLOAD], &cc);
	assert_int_equal(cc.rate_Bps, BASE_BPS);
	/* Still probing all the while, so that a return is noticed. */
	assert_true(fake_probe.sent[0] >= AUTORATE_STALL_NS /
	    AUTORATE_DEF_INTERVAL_NS);
	assert_int_equal(fake_probe.replies, 0);
}

static void
reload_without_autorate_stops_probing(void **state)
{
	struct rig	*r = *state;
	struct autorate_run_view v;
	uint64_t	 t0 = fake_timer.now_ns, sent;

	run_until(r, t0 + 1 * S);
	sent = fake_probe.sent[0];
	assert_true(sent > 0);
	r->cfg.autorate[CONFIG_UPLOAD].enabled = false;
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
	run_until(r, t0 + 5 * S);
	assert_int_equal(fake_probe.sent[0], sent);
	assert_false(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
}

/* Sends stderr (the log) into a temporary file; returns the old fd. */
static int
log_capture(FILE **fp)
{
	int	saved;

	assert_non_null(*fp = tmpfile());
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(*fp), 2) == 2);
	log_init(0, LOG_DEBUG, "test");
	return saved;
}

/* Restores stderr; returns what was logged (to be freed). */
static char *
log_release(FILE *fp, int saved)
{
	char	*text;
	long	 n;

	assert_true(dup2(saved, 2) == 2);
	close(saved);
	log_init(0, LOG_INFO, "test");
	assert_true(fseek(fp, 0, SEEK_END) == 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	assert_non_null(text = calloc(1, (size_t)n + 1));
	assert_true(fread(text, 1, (size_t)n, fp) == (size_t)n);
	fclose(fp);
	return text;
}

/* Passive input for upload, every 100 ms, with the given excess delay. */
static void
feed_passive(struct rig *r, uint64_t until_ns, uint64_t extra_ns)
{
	while (fake_timer.now_ns < until_ns) {
		run_until(r, fake_timer.now_ns + 100 * MS);
		autorate_run_passive(r->ar, CONFIG_UPLOAD, 40 * MS + extra_ns,
		    40 * MS, fake_timer.now_ns);
	}
}

static void
decision_log_names_the_signal(void **state)
{
	struct rig	*r = *state;
	struct autorate_run_view v;
	FILE		*fp;
	char		*log;
	int		 saved;
	uint64_t	 t0 = fake_timer.now_ns;

	/* Below base and no load: the controller drifts up, once a second. */
	autorate_run_rate_set(r->ar, CONFIG_UPLOAD, 4000000);
	saved = log_capture(&fp);
	feed_passive(r, t0 + 1500 * MS, 2 * MS);
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.dir.in.signal, AUTORATE_SIG_PASSIVE);
	/* passive stops: the reflectors' echo drives the next drift */
	run_until(r, t0 + 4 * S);
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.dir.in.signal, AUTORATE_SIG_ECHO);
	log = log_release(fp, saved);
	assert_non_null(strstr(log, "upload: autorate drift 32Mbit -> "));
	assert_non_null(strstr(log, "(signal passive, delay 2.0ms"));
	assert_non_null(strstr(log, "(signal echo, delay 0.0ms"));
	free(log);
}

/*
 * passive_autorate() hands the table's fresh upload delay to the runner
 * (at most every PASSIVE_PUSH_NS), and nothing once it is stale: the
 * controller then goes back to the reflectors.
 */
static void
passive_table_reaches_the_controller(void **state)
{
	static struct tsrtt	 ts;
	struct rig		*r = *state;
	struct autorate_run_view v;
	uint64_t		 last = 0, t0 = fake_timer.now_ns;
	struct tsrtt_delay	*up = &ts.dir[TSRTT_UPLOAD];

	tsrtt_init(&ts);
	/* A window that closed just now with a 30 ms rise. */
	up->recent_ns = 30 * MS;
	up->recent_at_ns = t0;
	passive_autorate(&ts, r->ar, &last, t0);
	assert_int_equal(last, t0);
	/* Within PASSIVE_PUSH_NS nothing is handed over again. */
	up->recent_ns = 5 * MS;
	up->recent_at_ns = t0 + 20 * MS;
	passive_autorate(&ts, r->ar, &last, t0 + 20 * MS);
	assert_int_equal(last, t0);
	run_until(r, t0 + 150 * MS);
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.dir.in.signal, AUTORATE_SIG_PASSIVE);
	assert_int_equal(v.dir.in.passive_ns, (int64_t)(30 * MS));
	/* After it, the new value is. */
	passive_autorate(&ts, r->ar, &last, t0 + 160 * MS);
	assert_int_equal(last, t0 + 160 * MS);
	run_until(r, t0 + 250 * MS);
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.dir.in.passive_ns, (int64_t)(5 * MS));
	/* Stale after TSRTT_FRESH_NS: no more input, echo decides. */
	passive_autorate(&ts, r->ar, &last, t0 + 3 * S);
	run_until(r, t0 + 3 * S + 200 * MS);
	assert_true(autorate_run_view(r->ar, CONFIG_UPLOAD, &v));
	assert_int_equal(v.dir.in.signal, AUTORATE_SIG_ECHO);
}

/* Applies cfg again (a reload), with download autorate on too. */
static void
reapply_both(struct rig *r)
{
	r->cfg.autorate[CONFIG_DOWNLOAD] = r->cfg.autorate[CONFIG_UPLOAD];
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
}

/* The view of dir now. */
static struct autorate_run_view
view(struct rig *r, int dir)
{
	struct autorate_run_view	v;

	assert_true(autorate_run_view(r->ar, dir, &v));
	return v;
}

static void
owd_is_told_to_the_right_direction(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 up, down;
	uint64_t			 t0 = fake_timer.now_ns;
	unsigned int			 i;
	FILE				*fp;
	char				*log;
	int				 saved;

	r->cfg.autorate_probe = AUTORATE_PROBE_AUTO;
	for (i = 0; i < 2; i++) {
		fake_probe.up_ns[i] = 10 * MS;
		fake_probe.down_ns[i] = 10 * MS;
		fake_probe.offset_ms[i] = i == 0 ? -3600000 : 250;
	}
	reapply_both(r);
	run_until(r, t0 + 2 * S);
	/* the download way fills: 50 ms more on the way back only */
	fake_probe.down_ns[0] = fake_probe.down_ns[1] = 60 * MS;
	run_until(r, t0 + 3 * S);
	up = view(r, CONFIG_UPLOAD);
	down = view(r, CONFIG_DOWNLOAD);
	assert_int_equal(up.refl[0].kind, PROBE_TIMESTAMP);
	assert_int_equal(fake_probe.sent_ts[0], fake_probe.sent[0]);
	assert_int_equal(up.dir.in.signal, AUTORATE_SIG_OWD);
	assert_int_equal(down.dir.in.signal, AUTORATE_SIG_OWD);
	assert_true(up.dir.in.owd_ns < 2 * (int64_t)MS);
	assert_true(down.dir.in.owd_ns > 40 * (int64_t)MS);
	/* the round trip says the same for both: it cannot tell */
	assert_true(up.dir.in.echo_ns > 40 * (int64_t)MS);
	assert_true(up.delay.owd[AUTORATE_OWD_DOWN][0].delta_ns >
	    40 * (int64_t)MS);
	/* an upload change (a drift up from below base) names owd */
	autorate_run_rate_set(r->ar, CONFIG_UPLOAD, 4000000);
	saved = log_capture(&fp);
	run_until(r, t0 + 4500 * MS);
	log = log_release(fp, saved);
	assert_non_null(strstr(log, "upload: autorate drift 32Mbit -> "));
	assert_non_null(strstr(log, "(signal owd, delay 0.0ms"));
	free(log);
}

static void
owd_survives_midnight(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 v;
	uint64_t			 t0 = fake_timer.now_ns, t;

	r->cfg.autorate_probe = AUTORATE_PROBE_TIMESTAMP;
	fake_probe.up_ns[0] = 7 * MS;
	fake_probe.down_ns[0] = 13 * MS;
	fake_probe.rtt_ns[1] = 0;	/* one reflector only */
	/* our midnight 2 s in; the reflector's, 1 s later (its clock lags) */
	fake_probe.midnight_ns = t0 + 2 * S;
	fake_probe.offset_ms[0] = -1000;
	reapply_both(r);
	for (t = t0 + 500 * MS; t <= t0 + 5 * S; t += 100 * MS) {
		run_until(r, t);
		v = view(r, CONFIG_DOWNLOAD);
		if (v.delay.owd[AUTORATE_OWD_DOWN][0].replies < 2)
			continue;
		assert_int_equal(v.dir.in.signal, AUTORATE_SIG_OWD);
		assert_true(v.delay.owd[AUTORATE_OWD_UP][0].delta_ns <
		    2 * (int64_t)MS);
		assert_true(v.delay.owd[AUTORATE_OWD_DOWN][0].delta_ns <
		    2 * (int64_t)MS);
	}
	assert_true(fake_probe_ms(fake_timer.now_ns) < 4000);
	assert_true(v.delay.owd[AUTORATE_OWD_DOWN][0].replies > 40);
}

static void
timestamp_falls_back_to_echo_per_reflector(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 v;
	uint64_t			 t0 = fake_timer.now_ns;

	r->cfg.autorate_probe = AUTORATE_PROBE_AUTO;
	r->cfg.reflectors_n = 3;
	add_reflector(&r->cfg, 2, "192.0.2.3");
	fake_probe.rtt_ns[2] = RTT0;
	fake_probe.ts_mode[0] = FAKE_TS_SILENT;
	fake_probe.ts_mode[2] = FAKE_TS_NONSTD;
	reapply_both(r);
	run_until(r, t0 + 2 * S);
	v = view(r, CONFIG_UPLOAD);
	/* 0 never answered type 13: three tries, then echo */
	assert_int_equal(v.refl[0].kind, PROBE_ECHO);
	assert_int_equal(fake_probe.sent_ts[0], AUTORATE_TS_TRIES);
	assert_true(v.refl[0].fresh);
	/* 1 answers them: it keeps them */
	assert_int_equal(v.refl[1].kind, PROBE_TIMESTAMP);
	assert_int_equal(fake_probe.sent_ts[1], fake_probe.sent[1]);
	/* 2 answers with non-standard stamps: echo after three */
	assert_int_equal(v.refl[2].kind, PROBE_ECHO);
	assert_int_equal(fake_probe.sent_ts[2], AUTORATE_TS_TRIES);
	assert_int_equal(v.delay.owd[0][2].replies, 0);
	/* with echo probes as the mode, no timestamp request at all */
	r->cfg.autorate_probe = AUTORATE_PROBE_ECHO;
	fake_probe.sent_ts[1] = 0;
	reapply_both(r);
	run_until(r, t0 + 3 * S);
	assert_int_equal(fake_probe.sent_ts[1], 0);
	assert_true(fake_probe.sent[1] > 0);
	/* timestamp as the mode: no fallback, the silent one stays silent */
	r->cfg.autorate_probe = AUTORATE_PROBE_TIMESTAMP;
	reapply_both(r);
	run_until(r, t0 + 5 * S);
	v = view(r, CONFIG_UPLOAD);
	assert_int_equal(v.refl[0].kind, PROBE_TIMESTAMP);
	assert_false(v.refl[0].fresh);
	assert_int_equal(v.refl[2].kind, PROBE_TIMESTAMP);
	assert_true(v.refl[2].fresh);	/* its round trips still count */
}

static void
ipv6_reflectors_mix_with_ipv4(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 v;
	uint64_t			 t0 = fake_timer.now_ns;

	r->cfg.autorate_probe = AUTORATE_PROBE_AUTO;
	r->cfg.reflectors_n = 3;
	add_reflector(&r->cfg, 1, "2001:db8::1");
	add_reflector(&r->cfg, 2, "2001:db8::2");
	fake_probe.rtt_ns[2] = 25 * MS;
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
	run_until(r, t0 + 1 * S + 50 * MS);
	v = view(r, CONFIG_UPLOAD);
	assert_int_equal(fake_probe.addr[1].family, AF_INET6);
	/* IPv6 has no timestamp request: echo; IPv4 keeps timestamps */
	assert_int_equal(v.refl[1].kind, PROBE_ECHO);
	assert_int_equal(v.refl[2].kind, PROBE_ECHO);
	assert_int_equal(v.refl[0].kind, PROBE_TIMESTAMP);
	assert_int_equal(fake_probe.sent[1], 10);
	assert_int_equal(fake_probe.sent_ts[1], 0);
	assert_int_equal(v.refl[1].answered, 10);
	assert_int_equal(v.delay.refl[1].rtt_ns, RTT1);
	assert_int_equal(v.delay.refl[2].rtt_ns, 25 * MS);
	assert_true(v.refl[1].fresh && v.refl[2].fresh);
}

/* The pool position of address a in v, or -1. */
static int
pool_pos(const struct autorate_run_view *v, unsigned int n, const char *a)
{
	struct autorate_addr	ad;
	unsigned int		i;

	memset(&ad, 0, sizeof(ad));
	ad.family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, &ad.u.v4), 1);
	for (i = 0; i < n; i++)
		if (memcmp(&v->refl[i].addr, &ad, sizeof(ad)) == 0)
			return (int)i;
	return -1;
}

/* A pool of four, three active (the default). */
static void
pool_of_four(struct rig *r)
{
	unsigned int	i;
	char		a[32];

	r->cfg.reflectors_n = 4;
	r->cfg.reflectors_active = AUTORATE_DEF_ACTIVE;
	for (i = 0; i < 4; i++) {
		(void)snprintf(a, sizeof(a), "192.0.2.%u", i + 1);
		add_reflector(&r->cfg, i, a);
		fake_probe.rtt_ns[i] = RTT0 + i * MS;
	}
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
}

static void
silent_reflector_is_replaced_within_5s(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 v;
	uint64_t			 t0 = fake_timer.now_ns, t, sent;

	pool_of_four(r);
	run_until(r, t0 + 2 * S);
	v = view(r, CONFIG_UPLOAD);
	assert_true(v.refl[0].active && v.refl[2].active);
	assert_false(v.refl[3].active);
	assert_int_equal(fake_probe.sent[3], 0);	/* the spare waits */
	fake_probe.rtt_ns[1] = 0;	/* 192.0.2.2 dies */
	for (t = t0 + 2 * S; t < t0 + 10 * S; t += 100 * MS) {
		run_until(r, t);
		if (view(r, CONFIG_UPLOAD).replacements > 0)
			break;
	}
	assert_true(t <= t0 + 2 * S + 5 * S);
	v = view(r, CONFIG_UPLOAD);
	assert_int_equal(v.replacements, 1);
	/* it went to the back of the pool; the spare is active */
	assert_int_equal(pool_pos(&v, 4, "192.0.2.2"), 3);
	assert_false(v.refl[3].active);
	assert_true(v.refl[pool_pos(&v, 4, "192.0.2.4")].active);
	sent = fake_probe.sent[1];
	run_until(r, t + 2 * S);
	assert_int_equal(fake_probe.sent[1], sent);	/* not probed */
	v = view(r, CONFIG_UPLOAD);
	assert_true(v.refl[pool_pos(&v, 4, "192.0.2.4")].fresh);
	assert_int_equal(v.refl[pool_pos(&v, 4, "192.0.2.2")].lost,
	    v.refl[pool_pos(&v, 4, "192.0.2.2")].sent -
	    v.refl[pool_pos(&v, 4, "192.0.2.2")].answered);
}

static void
drifting_reflector_is_replaced(void **state)
{
	struct rig			*r = *state;
	struct autorate_run_view	 v;
	uint64_t			 t0 = fake_timer.now_ns;

	pool_of_four(r);
	run_until(r, t0 + 2 * S);
	/* 192.0.2.1's path gets 300 ms longer for good; the others' not */
	fake_probe.rtt_ns[0] = RTT0 + 300 * MS;
	run_until(r, t0 + 5 * S);
	assert_int_equal(view(r, CONFIG_UPLOAD).replacements, 0);
	run_until(r, t0 + 30 * S);
	v = view(r, CONFIG_UPLOAD);
	assert_int_equal(v.replacements, 1);
	assert_int_equal(pool_pos(&v, 4, "192.0.2.1"), 3);
	assert_true(v.refl[pool_pos(&v, 4, "192.0.2.4")].active);
}

/* One packet through the upload engine: traffic. */
static void
one_packet(struct rig *r)
{
	static uint8_t	 buf[128];
	struct cake_pkt	 pkt, *out;

	memset(buf, 0, sizeof(buf));
	memset(&pkt, 0, sizeof(pkt));
	buf[0] = 0x45;
	buf[3] = 100;
	buf[8] = 64;
	buf[9] = 17;
	buf[12] = buf[16] = 10;
	buf[15] = 1;
	buf[19] = 2;
	pkt.data = buf;
	pkt.len = 100;
	pkt.cap = sizeof(buf);
	pkt.truesize = cake_truesize(100);
	assert_int_equal(cake_enqueue(r->cake[CONFIG_UPLOAD], &pkt,
	    fake_timer.now_ns), CAKE_ENQ_QUEUED);
	out = cake_dequeue(r->cake[CONFIG_UPLOAD], fake_timer.now_ns);
	assert_ptr_equal(out, &pkt);
}

static void
idle_slows_probing_and_traffic_wakes_it(void **state)
{
	struct rig			*r = *state;
	uint64_t			 t0 = fake_timer.now_ns, n, t;

	r->cfg.autorate_idle_after_ns = 10 * S;
	assert_int_equal(autorate_run_apply(r->ar, &r->cfg), 0);
	run_until(r, t0 + 5 * S);
	one_packet(r);
	run_until(r, t0 + 9 * S);
	assert_false(view(r, CONFIG_UPLOAD).idle);
	/* last traffic at 5 s: idle from 15 s on */
	run_until(r, t0 + 14 * S + 900 * MS);
	assert_false(view(r, CONFIG_UPLOAD).idle);
	run_until(r, t0 + 16 * S);
	assert_true(view(r, CONFIG_UPLOAD).idle);
	assert_int_equal(view(r, CONFIG_UPLOAD).probe_interval_ns,
	    AUTORATE_DEF_IDLE_INTERVAL_NS);
	n = fake_probe.sent[0];
	run_until(r, t0 + 36 * S);
	/* 20 s idle: one round a second (10 a second before) */
	assert_true(fake_probe.sent[0] - n >= 19 &&
	    fake_probe.sent[0] - n <= 21);
	assert_true(view(r, CONFIG_UPLOAD).refl[0].fresh);
	/* traffic: a round within one interval, then ten a second */
	t = fake_timer.now_ns + 450 * MS;
	run_until(r, t);
	n = fake_probe.sent[0];
	one_packet(r);
	run_until(r, t + AUTORATE_DEF_INTERVAL_NS);
	assert_int_equal(fake_probe.sent[0], n + 1);
	assert_false(view(r, CONFIG_UPLOAD).idle);
	run_until(r, t + 1 * S + AUTORATE_DEF_INTERVAL_NS);
	assert_int_equal(fake_probe.sent[0], n + 11);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    each_interval_probes_every_reflector_and_hears_it,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    silent_reflectors_bring_the_minimum_rate,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    reload_without_autorate_stops_probing,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    passive_table_reaches_the_controller, rig_setup,
		    rig_teardown),
		cmocka_unit_test_setup_teardown(decision_log_names_the_signal,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    owd_is_told_to_the_right_direction, rig_setup,
		    rig_teardown),
		cmocka_unit_test_setup_teardown(owd_survives_midnight,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    timestamp_falls_back_to_echo_per_reflector, rig_setup,
		    rig_teardown),
		cmocka_unit_test_setup_teardown(ipv6_reflectors_mix_with_ipv4,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    silent_reflector_is_replaced_within_5s, rig_setup,
		    rig_teardown),
		cmocka_unit_test_setup_teardown(drifting_reflector_is_replaced,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    idle_slows_probing_and_traffic_wakes_it, rig_setup,
		    rig_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
