/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_loop.c: the real src/daemon/loop.c and datapath.c, with the real
 * engine, run by the link-time fakes of libevent (tests/fake/fake_event.c),
 * timer.c (fake_timer.c: a clock that jumps to the next deadline) and
 * tun.c/vnet.c (fake_tun.c). A script acts at given instants (frames
 * arrive, a device fills, empties or disappears, SIGTERM comes); every
 * run is the same whatever the machine's load. Checked: the timer is
 * armed for exactly the engines' next departure and never when nothing
 * is queued; with a departure horizon a wakeup sends all that falls
 * within it and the timer is armed for the first departure beyond it; a refused frame waits for EV_WRITE, not for the timer, and
 * leaves first; 10^5 frames, both ways, through devices that fill at
 * random and refuse 2 % of writes all leave, once each and in order; a
 * SIGHUP applies a new rate at once and a broken file changes nothing;
 * a device that disappears ends loop_run() with LOOP_EXIT_DEVICE; with
 * two queues per device, the second LAN queue is read and forwarded, and
 * its loss ends the loop as well.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "engine/csum.h"
#include "daemon/config.h"
#include "daemon/loop.h"
#include "daemon/pool.h"
#include "fake/fake_event.h"
#include "fake/fake_timer.h"
#include "fake/fake_tun.h"

#define LAN_FD		(FAKE_TUN_FD0 + 0)
#define WAN_FD		(FAKE_TUN_FD0 + 1)
#define LAN_FD2		(FAKE_TUN_FD0 + 2)	/* second queues */
#define WAN_FD2		(FAKE_TUN_FD0 + 3)
#define FRAME		1000
#define MS		1000000ULL
#define T0		FAKE_TIMER_T0
#define STEPS_MAX	32
#define SENT_MAX	20000

enum step_kind {
	STEP_PUSH,		/* n frames on the LAN (upload) */
	STEP_PUSH_WAN,		/* n frames on the WAN (download) */
	STEP_FULL,		/* the WAN device refuses (n) or takes (0) */
	STEP_LAN_GONE,		/* reads on the LAN fail with ENODEV */
	STEP_PUSH_LAN2,		/* n frames on the LAN's second queue */
	STEP_LAN2_GONE,		/* reads on that queue fail with EBADFD */
	STEP_WAN_GONE_AFTER,	/* the WAN takes n more writes, then EBADFD */
	STEP_SIGNAL,		/* signal n */
	STEP_CONF,		/* rewrites the file: n mbit/s, 0 broken */
};

struct step {
	uint64_t	at_ns;
	enum step_kind	kind;
	uint32_t	n;
};

struct world {
	struct caked_config	 cfg;
	struct loop_setup	 setup;
	struct fake_tun		*lan, *wan;
	struct step		 steps[STEPS_MAX];
	unsigned int		 nsteps, next_step;
	uint32_t		 seq;
	/* What the devices accepted: sequence number and instant. */
	uint32_t		 sent_seq[SENT_MAX];
	uint64_t		 sent_ns[SENT_MAX];
	unsigned int		 nsent;
	/* Every arming, checked against the engines when it happens. */
	unsigned int		 arms_checked;
	unsigned int		 arms_while_idle;
	unsigned int		 arms_off_target;
	unsigned int		 arms_within_horizon;
	uint64_t		 last_deadline;
	char			 conf_dir[64];
	char			 conf[128];
	/* The random run: what each side pushed and saw leave. */
	uint64_t		 rng;
	uint32_t		 pushed[CONFIG_DIRS], seen[CONFIG_DIRS];
	uint32_t		 last[CONFIG_DIRS];
	uint64_t		 full_until[CONFIG_DIRS];
	uint64_t		 next_ns, end_ns;
	uint64_t		 fulls;
	uint64_t		 refused[CONFIG_DIRS];	/* refusals(), as
							 * of the last write
							 * accepted */
};

static struct world	*W;

/* A UDP datagram of FRAME bytes carrying seq (one flow per device). */
static void
push(int fd, uint32_t seq)
{
	uint8_t		f[FRAME];
	uint32_t	sum = 0;
	int		i;

	memset(f, 0, sizeof(f));
	f[0] = 0x45;
	csum_put16(f + 2, sizeof(f));
	f[6] = 0x40;
	f[8] = 64;
	f[9] = 17;
	csum_put32(f + 12, 0xc0000201);
	csum_put32(f + 16, 0xc6336402);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)f[i] << 8 | f[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	csum_put16(f + 10, ~sum & 0xffff);
	csum_put16(f + 20, 4000);
	csum_put16(f + 22, 5000);
	csum_put16(f + 24, sizeof(f) - 20);
	csum_put32(f + 28, seq);
	assert_int_equal(fake_tun_push(fd, f, sizeof(f)), 0);
}

static void
sink(void *arg, const uint8_t *frame, uint32_t len, unsigned int pieces,
    const struct cake_pkt *desc)
{
	struct world	*w = arg;

	(void)pieces;
	(void)desc;
	assert_int_equal(len, FRAME);
	assert_true(w->nsent < SENT_MAX);
	w->sent_seq[w->nsent] = csum_get32(frame + 28);
	w->sent_ns[w->nsent++] = fake_timer.now_ns;
}

/* Writes refused by direction d's egress device so far. */
static uint64_t
refusals(const struct world *w, int d)
{
	const struct fake_tun	*out = d == CONFIG_UPLOAD ? w->wan : w->lan;

	return out->writes - out->written;
}

/*
 * The earliest departure of a direction that is not waiting for its
 * egress device (a write refused since its last accepted one: the loop
 * holds that packet and waits for EV_WRITE, not for the timer).
 */
static uint64_t
engines_next(const struct world *w, uint64_t now_ns)
{
	uint64_t	t, best = CAKE_TIME_NEVER;
	int		d;

	for (d = 0; d < CONFIG_DIRS; d++) {
		if (refusals(w, d) > w->refused[d])
			continue;
		t = cake_next_ns(w->setup.cake[d], now_ns);
		if (t < best)
			best = t;
	}
	return best;
}

/* The timer changed: it must be what the engines ask for, no more. */
static void
watch(void *arg, uint64_t deadline_ns, uint64_t period_ns, uint64_t now_ns)
{
	struct world	*w = arg;
	uint64_t	 want = engines_next(w, now_ns);

	w->arms_checked++;
	w->last_deadline = deadline_ns;
	if (deadline_ns == FAKE_EVENT_NEVER)
		return;
	if (want == CAKE_TIME_NEVER && period_ns == 0)
		w->arms_while_idle++;
	else if (period_ns == 0 && deadline_ns != want)
		w->arms_off_target++;
	/* What falls within the horizon was sent: never a timer for it. */
	if (period_ns == 0 && deadline_ns <= now_ns +
	    (uint64_t)w->cfg.horizon_us * 1000)
		w->arms_within_horizon++;
}

#define CONF_UNLIMITED	UINT32_MAX

/*
 * Both directions at mbit Mbit/s (CONF_UNLIMITED: no shaping); 0: a
 * file caked must refuse.
 */
static void
write_conf(struct world *w, uint32_t mbit)
{
	FILE	*fp;

	assert_non_null(fp = fopen(w->conf, "w"));
	(void)fprintf(fp, "[general]\nmode = tun\nlan = lan0\nwan = wan0\n"
	    "offload = no\nlog = stderr\n");
	if (mbit == 0)
		(void)fprintf(fp, "[upload]\nbandwidth = fast\n");
	else if (mbit == CONF_UNLIMITED)
		(void)fprintf(fp, "[upload]\nbandwidth = unlimited\n"
		    "[download]\nbandwidth = unlimited\n");
	else
		(void)fprintf(fp, "[upload]\nbandwidth = %umbit\n"
		    "[download]\nbandwidth = %umbit\n", mbit, mbit);
	assert_int_equal(fclose(fp), 0);
}

static void
step_do(struct world *w, const struct step *s)
{
	uint32_t	i;

	switch (s->kind) {
	case STEP_PUSH:
	case STEP_PUSH_WAN:
		for (i = 0; i < s->n; i++)
			push(s->kind == STEP_PUSH ? LAN_FD : WAN_FD, ++w->seq);
		break;
	case STEP_FULL:
		w->wan->full = s->n != 0;
		break;
	case STEP_LAN_GONE:
		w->lan->rx_err = ENODEV;
		break;
	case STEP_PUSH_LAN2:
		for (i = 0; i < s->n; i++)
			push(LAN_FD2, ++w->seq);
		break;
	case STEP_LAN2_GONE:
		fake_tun_get(LAN_FD2)->rx_err = EBADFD;
		break;
	case STEP_WAN_GONE_AFTER:
		w->wan->gone_after = (int64_t)(w->wan->written + s->n);
		break;
	case STEP_SIGNAL:
		fake_event_raise((int)s->n);
		break;
	case STEP_CONF:
		write_conf(w, s->n);
		break;
	}
}

static uint64_t
script(void *arg, uint64_t now_ns)
{
	struct world	*w = arg;

	while (w->next_step < w->nsteps &&
	    w->steps[w->next_step].at_ns <= now_ns)
		step_do(w, &w->steps[w->next_step++]);
	if (w->next_step == w->nsteps)
		return FAKE_EVENT_NEVER;
	return w->steps[w->next_step].at_ns;
}

static void
step(struct world *w, uint64_t at_ns, enum step_kind kind, uint32_t n)
{
	assert_true(w->nsteps < STEPS_MAX);
	w->steps[w->nsteps].at_ns = at_ns;
	w->steps[w->nsteps].kind = kind;
	w->steps[w->nsteps++].n = n;
}

static bool
ready(int fd, short what)
{
	return fake_tun_ready(fd, what) || fake_timer_ready(fd);
}

static int
world_setup(void **state)
{
	struct world		*w;
	struct cake_env		 env;
	int			 i, err;

	assert_non_null(w = calloc(1, sizeof(*w)));
	fake_tun_reset();
	fake_timer_reset();
	fake_event_reset();
	fake_event_set_ready(ready, NULL);
	fake_event_set_idle(script, w);
	fake_timer.watch = watch;
	fake_timer.arg = w;
	w->lan = fake_tun_add(LAN_FD, false);
	w->wan = fake_tun_add(WAN_FD, false);
	w->wan->sink = w->lan->sink = sink;
	w->wan->arg = w->lan->arg = w;
	w->cfg.mode = CONFIG_MODE_TUN;
	w->cfg.mtu = 1500;
	w->setup.cfg = &w->cfg;
	w->setup.path = "/nonexistent/caked.conf";
	w->setup.lan_fd = LAN_FD;
	w->setup.wan_fd = WAN_FD;
	w->setup.version = "test";
	for (i = 0; i < CONFIG_DIRS; i++) {
		cake_config_default(&w->cfg.cake[i]);
		w->cfg.cake[i].rate_Bps = 125000;	/* 1 Mbit/s */
		assert_non_null(w->setup.pool[i] = pool_create(1600));
		memset(&env, 0, sizeof(env));
		env.link = CAKE_LINK_IP;
		env.mtu = 1500;
		env.seed = 1;
		env.alloc = pool_alloc;
		env.alloc_arg = w->setup.pool[i];
		assert_non_null(w->setup.group[i] = group_create(
		    &w->cfg.cake[i], &env, 1, GROUP_SIDE_SRC, &err));
		w->setup.cake[i] = group_worker(w->setup.group[i], 0);
	}
	W = w;
	*state = w;
	return 0;
}

static int
world_teardown(void **state)
{
	struct world	*w = *state;
	int		 i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		group_destroy(w->setup.group[i]);
		pool_destroy(w->setup.pool[i]);
	}
	if (w->conf[0] != '\0') {
		(void)unlink(w->conf);
		(void)rmdir(w->conf_dir);
	}
	fake_tun_reset();
	fake_event_reset();
	fake_timer_reset();
	free(w);
	W = NULL;
	return 0;
}

/* Runs the loop over the script; returns loop_run()'s exit code. */
static int
world_run(struct world *w)
{
	struct loop	*l;
	int		 rc;

	assert_non_null(l = loop_create(&w->setup));
	rc = loop_run(l);
	loop_destroy(l);	/* puts back what is still queued */
	return rc;
}

static void
timer_is_armed_for_each_departure_and_never_idle(void **state)
{
	struct world	*w = *state;
	uint64_t	 gap;
	unsigned int	 i;

	step(w, T0 + 1 * MS, STEP_PUSH, 5);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	assert_int_equal(w->nsent, 5);
	/* The first leaves on arrival, the others each at a deadline. */
	assert_true(w->sent_ns[0] == T0 + 1 * MS);
	for (i = 1; i < 5; i++) {
		assert_int_equal(w->sent_seq[i], i + 1);
		gap = w->sent_ns[i] - w->sent_ns[i - 1];
		/* 1 Mbit/s: 8 ms per 1000-byte frame (plus overhead). */
		assert_true(gap >= 8 * MS && gap < 9 * MS);
	}
	assert_int_equal(fake_timer.arms, 4);
	assert_int_equal(fake_timer.fired, 4);
	assert_int_equal(fake_timer.ticks, 0);
	assert_int_equal(w->arms_while_idle, 0);
	assert_int_equal(w->arms_off_target, 0);
	/* After the last departure the one-shot timer stays spent. */
	assert_true(fake_timer.deadline_ns == FAKE_EVENT_NEVER);
	assert_true(fake_timer.now_ns == T0 + 1000 * MS);
}

/*
 * With a departure horizon of 250 us at 100 Mbit/s (80 us a frame), a
 * wakeup sends every frame due within it: four, the first on arrival,
 * none more than the horizon early and none late; the timer is armed
 * once per batch, for the first departure beyond the horizon, and is
 * disarmed when the queue empties.
 */
static void
horizon_sends_a_batch_per_wakeup(void **state)
{
	struct world	*w = *state;
	uint64_t	 due;
	unsigned int	 i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		w->cfg.cake[i].rate_Bps = 12500000;	/* 100 Mbit/s */
		assert_int_equal(cake_change(w->setup.cake[i],
		    &w->cfg.cake[i], T0), CAKE_OK);
	}
	w->cfg.horizon_us = 250;
	step(w, T0 + 1 * MS, STEP_PUSH, 50);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	assert_int_equal(w->nsent, 50);
	for (i = 0; i < 50; i++) {
		assert_int_equal(w->sent_seq[i], i + 1);
		due = T0 + 1 * MS + i * 80000;
		assert_true(w->sent_ns[i] + 250000 + 10 >= due);
		assert_true(w->sent_ns[i] <= due + 10);
		/* Four a wakeup: 0, 80, 160 and 240 us into its batch. */
		assert_true(w->sent_ns[i] == w->sent_ns[i - i % 4]);
	}
	print_message("50 frames: %" PRIu64 " arms, %" PRIu64 " expiries, %"
	    PRIu64 " ticks\n", fake_timer.arms, fake_timer.fired,
	    fake_timer.ticks);
	assert_int_equal(fake_timer.arms, 12);	/* 46 frames after the read */
	assert_int_equal(fake_timer.fired, 12);
	assert_int_equal(fake_timer.ticks, 0);
	assert_int_equal(w->arms_within_horizon, 0);
	assert_int_equal(w->arms_while_idle, 0);
	assert_int_equal(w->arms_off_target, 0);
	assert_true(fake_timer.deadline_ns == FAKE_EVENT_NEVER);
}

static void
crowded_deadlines_tick_instead_of_rearming(void **state)
{
	struct world	*w = *state;
	unsigned int	 i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		w->cfg.cake[i].rate_Bps = 125000000;	/* 1 Gbit/s */
		assert_int_equal(cake_change(w->setup.cake[i],
		    &w->cfg.cake[i], T0), CAKE_OK);
	}
	step(w, T0 + 1 * MS, STEP_PUSH, 200);
	step(w, T0 + 1 * MS, STEP_PUSH_WAN, 200);
	step(w, T0 + 100 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	print_message("400 frames in 2 x 1.6 ms: ticks %" PRIu64 ", arms %"
	    PRIu64 ", expiries %" PRIu64 ", disarms %" PRIu64 "\n",
	    fake_timer.ticks, fake_timer.arms, fake_timer.fired,
	    fake_timer.disarms);
	assert_int_equal(w->nsent, 400);
	/* 8 us apart: one periodic tick, not 399 re-armings. */
	assert_true(fake_timer.ticks >= 1);
	assert_true(fake_timer.arms + fake_timer.ticks < 10);
	assert_int_equal(w->arms_while_idle, 0);
	/* The tick stops with the last departure (1.6 ms: 8 ticks), it
	 * does not go on waking an idle daemon until the signal. */
	assert_true(fake_timer.fired <= 1600000 / 200000 + 2);
	assert_true(fake_timer.disarms >= 1);
	assert_true(fake_timer.deadline_ns == FAKE_EVENT_NEVER);
}

static void
refused_frame_waits_for_write_event_and_leaves_first(void **state)
{
	struct world	*w = *state;
	unsigned int	 i;

	step(w, T0, STEP_FULL, 1);
	step(w, T0 + 1 * MS, STEP_PUSH, 3);
	step(w, T0 + 50 * MS, STEP_FULL, 0);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	assert_int_equal(w->nsent, 3);
	/* Held from 1 ms: no timer for it, it left when writable. */
	assert_true(w->sent_ns[0] == T0 + 50 * MS);
	for (i = 0; i < 3; i++)
		assert_int_equal(w->sent_seq[i], i + 1);
	assert_int_equal(w->wan->writes, 4);	/* one refused */
	assert_int_equal(w->arms_while_idle, 0);
	assert_int_equal(w->arms_off_target, 0);
}

static void
lan_device_gone_ends_loop_with_device_status(void **state)
{
	struct world	*w = *state;

	step(w, T0 + 1 * MS, STEP_PUSH, 2);
	step(w, T0 + 30 * MS, STEP_LAN_GONE, 0);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(LOOP_EXIT_DEVICE, 3);	/* caked(8), EXIT STATUS */
	assert_int_equal(world_run(w), LOOP_EXIT_DEVICE);
	assert_true(fake_timer.now_ns == T0 + 30 * MS);
	assert_int_equal(w->nsent, 2);
}

static void
second_queue_is_read_and_its_loss_ends_loop(void **state)
{
	struct world	*w = *state;
	struct fake_tun	*d;
	int		 fd;

	for (fd = LAN_FD2; fd <= WAN_FD2; fd++) {
		d = fake_tun_add(fd, false);
		d->sink = sink;
		d->arg = w;
	}
	w->setup.queues = 2;
	w->setup.lan_fds[0] = LAN_FD;
	w->setup.lan_fds[1] = LAN_FD2;
	w->setup.wan_fds[0] = WAN_FD;
	w->setup.wan_fds[1] = WAN_FD2;
	step(w, T0 + 1 * MS, STEP_PUSH_LAN2, 3);
	step(w, T0 + 100 * MS, STEP_LAN2_GONE, 0);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_DEVICE);
	assert_true(fake_timer.now_ns == T0 + 100 * MS);
	assert_int_equal(w->nsent, 3);
	assert_int_equal(fake_tun_get(LAN_FD2)->reads, 3);
	assert_int_equal(w->wan->written + fake_tun_get(WAN_FD2)->written, 3);
}

static void
sighup_applies_at_once_and_ignores_a_broken_file(void **state)
{
	struct world		*w = *state;
	struct cake_config	 cc;
	unsigned int		 i;

	(void)snprintf(w->conf_dir, sizeof(w->conf_dir),
	    "/tmp/caked-loop.XXXXXX");
	assert_non_null(mkdtemp(w->conf_dir));
	(void)snprintf(w->conf, sizeof(w->conf), "%s/caked.conf",
	    w->conf_dir);
	write_conf(w, 1);
	assert_int_equal(config_load(w->conf, &w->cfg, config_report_log,
	    NULL), 0);
	for (i = 0; i < CONFIG_DIRS; i++)
		assert_int_equal(cake_change(w->setup.cake[i],
		    &w->cfg.cake[i], T0), CAKE_OK);
	w->setup.path = w->conf;
	w->setup.keep_debug = 1;
	step(w, T0 + 1 * MS, STEP_PUSH, 10);
	step(w, T0 + 20 * MS, STEP_CONF, CONF_UNLIMITED);
	step(w, T0 + 20 * MS, STEP_SIGNAL, SIGHUP);
	step(w, T0 + 100 * MS, STEP_CONF, 0);
	step(w, T0 + 100 * MS, STEP_SIGNAL, SIGHUP);
	step(w, T0 + 110 * MS, STEP_PUSH, 3);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	assert_int_equal(w->nsent, 13);
	for (i = 0; i < 13; i++)
		assert_int_equal(w->sent_seq[i], i + 1);
	/* 8 ms apart at 1 Mbit/s until the reload; the rest at once. */
	assert_true(w->sent_ns[2] - w->sent_ns[1] >= 8 * MS);
	assert_true(w->sent_ns[2] < T0 + 20 * MS);
	for (i = 3; i < 10; i++)
		assert_true(w->sent_ns[i] == T0 + 20 * MS);
	/* The broken file changed nothing, and traffic went on. */
	cake_get_config(w->setup.cake[CONFIG_UPLOAD], &cc);
	assert_int_equal(cc.rate_Bps, 0);
	assert_int_equal(w->cfg.cake[CONFIG_UPLOAD].rate_Bps, 0);
	for (i = 10; i < 13; i++)
		assert_true(w->sent_ns[i] == T0 + 110 * MS);
	assert_int_equal(w->arms_while_idle, 0);
	assert_int_equal(w->arms_off_target, 0);
}

static void
wan_device_gone_ends_loop_with_device_status(void **state)
{
	struct world	*w = *state;

	step(w, T0 + 1 * MS, STEP_WAN_GONE_AFTER, 2);
	step(w, T0 + 1 * MS, STEP_PUSH, 5);
	step(w, T0 + 1000 * MS, STEP_SIGNAL, SIGTERM);
	assert_int_equal(world_run(w), LOOP_EXIT_DEVICE);
	assert_int_equal(w->nsent, 2);
	/* The third frame's deadline, not the signal, ended it. */
	assert_true(fake_timer.now_ns < T0 + 30 * MS);
}

#define RANDOM_FRAMES	50000	/* per direction */
#define DOWN_SEQ0	0x40000000

static uint64_t
rnd(struct world *w, uint64_t n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng % n;
}

/* Each direction's frames leave once each, in their order. */
static void
random_sink(void *arg, const uint8_t *frame, uint32_t len,
    unsigned int pieces, const struct cake_pkt *desc)
{
	struct world	*w = arg;
	uint32_t	 seq = csum_get32(frame + 28);
	int		 dir = seq >= DOWN_SEQ0;

	(void)pieces;
	(void)desc;
	assert_int_equal(len, FRAME);
	assert_true(seq > w->last[dir]);
	w->last[dir] = seq;
	w->refused[dir] = refusals(w, dir);
	w->seen[dir]++;
}

/* A writable device may still refuse a write now and then. */
static int
random_policy(void *arg, uint64_t n)
{
	(void)n;
	return rnd(arg, 50) == 0 ? EAGAIN : 0;
}

/* Devices that fill for up to 3 ms at random, and bursts of traffic. */
static uint64_t
random_script(void *arg, uint64_t now_ns)
{
	struct world	*w = arg;
	struct fake_tun	*out[CONFIG_DIRS] = { w->wan, w->lan };
	int		 in_fd[CONFIG_DIRS] = { LAN_FD, WAN_FD };
	uint32_t	 k;
	int		 d;

	if (w->end_ns != 0) {
		fake_event_raise(SIGTERM);
		return FAKE_EVENT_NEVER;
	}
	for (d = 0; d < CONFIG_DIRS; d++) {
		if (out[d]->full && now_ns >= w->full_until[d])
			out[d]->full = false;
		else if (!out[d]->full && rnd(w, 10) == 0) {
			out[d]->full = true;
			w->full_until[d] = now_ns + 1 + rnd(w, 3 * MS);
			w->fulls++;
		}
		for (k = rnd(w, 11); k > 0 && w->pushed[d] < RANDOM_FRAMES;
		    k--)
			push(in_fd[d], ++w->pushed[d] + (d ? DOWN_SEQ0 : 0));
	}
	if (w->pushed[0] == RANDOM_FRAMES && w->pushed[1] == RANDOM_FRAMES) {
		w->wan->full = w->lan->full = false;
		w->end_ns = now_ns + 5000 * MS;	/* time to drain */
		return w->end_ns;
	}
	return now_ns + 200000 + rnd(w, 1800000);
}

static void
random_refusals_lose_and_duplicate_nothing(void **state)
{
	struct world	*w = *state;
	int		 i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		w->cfg.cake[i].rate_Bps = 12500000;	/* 100 Mbit/s */
		assert_int_equal(cake_change(w->setup.cake[i],
		    &w->cfg.cake[i], T0), CAKE_OK);
	}
	w->cfg.horizon_us = 250;	/* batches, with refusals in them */
	w->rng = 0x2545f4914f6cdd1dULL;
	w->wan->sink = w->lan->sink = random_sink;
	w->wan->policy = w->lan->policy = random_policy;
	fake_event_set_idle(random_script, w);
	assert_int_equal(world_run(w), LOOP_EXIT_STOP);
	print_message("%u + %u frames, %" PRIu64 " times a device filled, "
	    "%" PRIu64 " writes refused; %u + %u sent\n", w->pushed[0],
	    w->pushed[1], w->fulls, w->wan->writes - w->wan->written +
	    w->lan->writes - w->lan->written, w->seen[0], w->seen[1]);
	assert_true(w->fulls > 1000);
	assert_true(w->wan->writes - w->wan->written > 1000);
	assert_true(w->lan->writes - w->lan->written > 1000);
	/* Nothing dropped: every frame left once (the sink checks twice). */
	assert_int_equal(w->seen[0], RANDOM_FRAMES);
	assert_int_equal(w->seen[1], RANDOM_FRAMES);
	assert_int_equal(w->arms_within_horizon, 0);
	assert_int_equal(w->arms_while_idle, 0);
	assert_int_equal(w->arms_off_target, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    timer_is_armed_for_each_departure_and_never_idle,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    horizon_sends_a_batch_per_wakeup,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    crowded_deadlines_tick_instead_of_rearming,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    refused_frame_waits_for_write_event_and_leaves_first,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    lan_device_gone_ends_loop_with_device_status,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    second_queue_is_read_and_its_loss_ends_loop,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    wan_device_gone_ends_loop_with_device_status,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    random_refusals_lose_and_duplicate_nothing,
		    world_setup, world_teardown),
		cmocka_unit_test_setup_teardown(
		    sighup_applies_at_once_and_ignores_a_broken_file,
		    world_setup, world_teardown),
	};

	/* The loop must not talk to a service manager that runs make. */
	(void)unsetenv("NOTIFY_SOCKET");
	(void)unsetenv("WATCHDOG_USEC");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
