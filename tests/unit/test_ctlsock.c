/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ctlsock.c: the real src/daemon/ctlsock.c and ctlcmd.c on a real
 * Unix socket in a private directory, run by the fake event layer
 * (tests/fake/fake_event.c, which asks poll(2) about real fds) on the
 * fake clock (fake_timer.c), so that the idle and write timeouts come
 * by jumps of the clock, not by waiting. Each test's script plays the
 * clients between the daemon's passes: a request that arrives in pieces,
 * a client that never reads its replies beside one that does, and 1 000
 * clients against CTL_CLIENTS_MAX slots.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "caked/ctl.h"
#include "daemon/ctlcmd.h"
#include "daemon/ctlsock.h"
#include "fake/fake_event.h"
#include "fake/fake_timer.h"

#define MS		1000000ULL
#define S		1000000000ULL
#define TEST_VERSION		"9.9-test"
#define MANY_CLIENTS	1000
#define WAVE		8	/* clients connecting between two passes */

struct rig {
	char			 dir[64];
	char			 path[128];
	struct ctlsock		*cs;
	struct event_base	*base;
	int			 step;
	int			 fd[CTL_CLIENTS_MAX + WAVE];
	/* 1 000 clients */
	unsigned int		 tried, busy, held, served;
	int			 holders[CTL_CLIENTS_MAX + 1];
	/* the slow client */
	uint64_t		 last_requests;
	unsigned int		 still;
	size_t			 slow_sent;
};

static struct ctlcmd_counters
counters(const struct rig *r)
{
	struct ctlcmd_counters	c;

	ctlsock_counters(r->cs, &c);
	return c;
}

/* A non-blocking client; -1 if the backlog is full (EAGAIN). */
static int
client(const struct rig *r)
{
	struct sockaddr_un	sun;
	int			fd;

	assert_true((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) != -1);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, r->path, strlen(r->path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		assert_int_equal(errno, EAGAIN);
		close(fd);
		return -1;
	}
	return fd;
}

static void
say(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL),
	    (ssize_t)strlen(s));
}

/* What waits on fd, NUL-terminated; 0 bytes if nothing, -1 at EOF. */
static ssize_t
hear(int fd, char *buf, size_t cap)
{
	ssize_t	n;

	n = recv(fd, buf, cap - 1, MSG_DONTWAIT);
	if (n == -1) {
		assert_true(errno == EAGAIN || errno == ECONNRESET);
		n = errno == EAGAIN ? 0 : -1;
	} else if (n == 0)
		n = -1;
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static unsigned int
lines(const char *s)
{
	unsigned int	n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static int
rig_setup(void **state)
{
	static struct ctlcmd_ops	ops;
	struct ctlsock_params		p;
	struct rig			*r;

	assert_non_null(r = calloc(1, sizeof(*r)));
	(void)snprintf(r->dir, sizeof(r->dir), "/tmp/caked-ctlsock.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	(void)snprintf(r->path, sizeof(r->path), "%s/caked.sock", r->dir);
	memset(&p, 0, sizeof(p));
	p.path = r->path;
	p.group = (gid_t)-1;
	assert_non_null(r->cs = ctlsock_open(&p));
	fake_timer_reset();
	fake_event_reset();
	assert_non_null(r->base = event_base_new());
	memset(&ops, 0, sizeof(ops));
	ops.version = TEST_VERSION;
	assert_int_equal(ctlsock_start(r->cs, r->base, &ops), 0);
	*state = r;
	return 0;
}

static int
rig_teardown(void **state)
{
	struct rig	*r = *state;

	ctlsock_close(r->cs);
	event_base_free(r->base);
	(void)rmdir(r->dir);
	fake_event_reset();
	free(r);
	return 0;
}

static void
rig_run(struct rig *r, fake_event_idle_fn *script)
{
	fake_event_set_idle(script, r);
	assert_int_equal(event_base_dispatch(r->base), 0);
}

/* ---- a request in pieces --------------------------------------------- */

static uint64_t
pieces_script(void *arg, uint64_t now_ns)
{
	/* "version\n" cut anywhere, then a second request glued on. */
	static const char *const part[] = {
		"v", "er", "sio", "n", "\nping", "\n",
	};
	struct rig	*r = arg;
	char		 buf[CTL_REPLY_MAX];
	int		 i = r->step++;

	if (i == 0)
		assert_true((r->fd[0] = client(r)) != -1);
	if (i > 0 && i < 7) {
		assert_true(hear(r->fd[0], buf, sizeof(buf)) >= 0);
		/* Nothing before "\n"; then exactly one answer per line. */
		if (i < 5)
			assert_string_equal(buf, "");
		if (i == 5) {
			assert_int_equal(lines(buf), 1);
			assert_non_null(strstr(buf, "\"" TEST_VERSION "\""));
		}
		if (i == 6) {
			assert_int_equal(lines(buf), 1);
			assert_non_null(strstr(buf, "pong"));
			close(r->fd[0]);
		}
	}
	if (i < 6)
		say(r->fd[0], part[i]);
	if (i == 7) {
		assert_int_equal(counters(r).requests, 2);
		assert_int_equal(counters(r).clients, 0);	/* saw EOF */
		event_base_loopbreak(r->base);
	}
	return now_ns + 1 * MS;
}

static void
request_in_pieces_is_answered_once_complete(void **state)
{
	struct rig	*r = *state;

	rig_run(r, pieces_script);
	assert_int_equal(r->step, 8);
}

/* ---- a client that never reads its replies ----------------------------- */

static void
slow_stuffs(struct rig *r)
{
	static char	reqs[4096];
	ssize_t		n;
	size_t		i;

	if (reqs[0] == '\0')
		for (i = 0; i + 5 <= sizeof(reqs); i += 5)
			memcpy(reqs + i, "ping\n", 5);
	n = send(r->fd[0], reqs, sizeof(reqs) / 5 * 5, MSG_NOSIGNAL |
	    MSG_DONTWAIT);
	if (n > 0)
		r->slow_sent += (size_t)n;
}

static uint64_t
slow_script(void *arg, uint64_t now_ns)
{
	struct rig	*r = arg;
	char		 buf[CTL_REPLY_MAX];
	uint64_t	 req;

	switch (r->step) {
	case 0:
		r->fd[0] = client(r);	/* never reads */
		r->fd[1] = client(r);
		assert_true(r->fd[0] != -1 && r->fd[1] != -1);
		r->step++;
		/* FALLTHROUGH */
	case 1:
		/* Until the daemon stops reading it: its reply is stuck. */
		slow_stuffs(r);
		req = counters(r).requests;
		r->still = req == r->last_requests ? r->still + 1 : 0;
		r->last_requests = req;
		assert_true(req < 1000000);
		if (r->still < 3)
			return now_ns + 1 * MS;
		r->step++;
		say(r->fd[1], "version\n");
		return now_ns + 1 * MS;
	case 2:
		/* The other client is served all the same. */
		assert_true(hear(r->fd[1], buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, TEST_VERSION));
		assert_int_equal(counters(r).slow_closed, 0);
		r->step++;
		return now_ns + (CTL_WRITE_TIMEOUT_S + 1) * S;
	case 3:
		/* The stuck one was dropped at its write timeout; the
		 * other one, idle for less than CTL_IDLE_S, stays. */
		assert_int_equal(counters(r).slow_closed, 1);
		assert_int_equal(counters(r).idle_closed, 0);
		assert_int_equal(counters(r).clients, 1);
		say(r->fd[1], "ping\n");
		r->step++;
		return now_ns + 1 * MS;
	default:
		assert_true(hear(r->fd[1], buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, "pong"));
		close(r->fd[0]);
		close(r->fd[1]);
		event_base_loopbreak(r->base);
		return FAKE_EVENT_NEVER;
	}
}

static void
client_that_never_reads_stalls_only_itself(void **state)
{
	struct rig	*r = *state;

	rig_run(r, slow_script);
	print_message("the slow client sent %zu bytes (%llu requests) "
	    "before the daemon stopped reading it\n", r->slow_sent,
	    (unsigned long long)r->last_requests);
	assert_int_equal(r->step, 4);
	/* More than one reply was in flight, so a send really blocked. */
	assert_true(r->last_requests > CTL_BURST_MAX);
}

/* ---- 1 000 clients ------------------------------------------------------ */

/* Sorts the clients of the last wave: refused (told so) or holding. */
static void
many_sort(struct rig *r, int n)
{
	char	buf[256];
	int	i;

	for (i = 0; i < n; i++) {
		if (hear(r->fd[i], buf, sizeof(buf)) > 0) {
			assert_non_null(strstr(buf, "\"" CTL_CODE_BUSY "\""));
			assert_int_equal(lines(buf), 1);
			r->busy++;
			close(r->fd[i]);
		} else {
			assert_true(r->held < CTL_CLIENTS_MAX);
			r->holders[r->held++] = r->fd[i];
		}
	}
}

static uint64_t
many_script(void *arg, uint64_t now_ns)
{
	struct rig	*r = arg;
	char		 buf[256];
	unsigned int	 i;
	int		 n = 0;

	if (r->step == 0 && r->tried < MANY_CLIENTS) {
		while (n < WAVE && r->tried < MANY_CLIENTS &&
		    (r->fd[n] = client(r)) != -1) {
			n++;
			r->tried++;
		}
		assert_true(n > 0);
		r->step = n;	/* sorted at the next call, after accept */
		return now_ns + 1 * MS;
	}
	if (r->step > 0) {
		many_sort(r, r->step);
		r->step = 0;
		if (r->tried < MANY_CLIENTS)
			return now_ns + 1 * MS;
		assert_int_equal(counters(r).accepted, CTL_CLIENTS_MAX);
		assert_int_equal(counters(r).refused_busy,
		    MANY_CLIENTS - CTL_CLIENTS_MAX);
		assert_int_equal(counters(r).clients, CTL_CLIENTS_MAX);
		say(r->holders[0], "ping\n");
		r->step = -1;
		return now_ns + 1 * MS;
	}
	if (r->step == -1) {
		/* A slot holder is served; then all go idle. */
		assert_true(hear(r->holders[0], buf, sizeof(buf)) > 0);
		assert_non_null(strstr(buf, "pong"));
		r->served++;
		r->step = -2;
		return now_ns + (CTL_IDLE_S + 1) * S;
	}
	if (r->step == -2) {
		assert_int_equal(counters(r).idle_closed, CTL_CLIENTS_MAX);
		assert_int_equal(counters(r).clients, 0);
		for (i = 0; i < r->held; i++) {
			assert_int_equal(hear(r->holders[i], buf,
			    sizeof(buf)), -1);
			close(r->holders[i]);
		}
		/* The slots are free again. */
		assert_true((r->fd[0] = client(r)) != -1);
		say(r->fd[0], "ping\n");
		r->step = -3;
		return now_ns + 1 * MS;
	}
	assert_true(hear(r->fd[0], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "pong"));
	r->served++;
	close(r->fd[0]);
	event_base_loopbreak(r->base);
	return FAKE_EVENT_NEVER;
}

static void
thousand_clients_get_bounded_slots_and_counted_refusals(void **state)
{
	struct rig	*r = *state;

	rig_run(r, many_script);
	assert_int_equal(r->tried, MANY_CLIENTS);
	assert_int_equal(r->held, CTL_CLIENTS_MAX);
	assert_int_equal(r->busy, MANY_CLIENTS - CTL_CLIENTS_MAX);
	assert_int_equal(r->served, 2);
	assert_int_equal(counters(r).accepted, CTL_CLIENTS_MAX + 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    request_in_pieces_is_answered_once_complete,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    client_that_never_reads_stalls_only_itself,
		    rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(
		    thousand_clients_get_bounded_slots_and_counted_refusals,
		    rig_setup, rig_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
