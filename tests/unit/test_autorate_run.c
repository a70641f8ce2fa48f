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
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1",
	    &r->cfg.reflectors[0]), 1);
	assert_int_equal(inet_pton(AF_INET, "192.0.2.2",
	    &r->cfg.reflectors[1]), 1);
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
	assert_true(v.fresh[0] && v.fresh[1]);
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
		cmocka_unit_test_setup_teardown(decision_log_names_the_signal,
		    rig_setup, rig_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
