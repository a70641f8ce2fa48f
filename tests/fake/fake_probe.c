/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_probe.c: the link-time fake of src/daemon/autorate_probe.c, for the
 * autorate runner (autorate_run.c). No ICMP socket: autorate_probe_send()
 * records the echo and, unless the test made that reflector silent (rtt_ns 0),
 * schedules its answer one round trip later on the fake clock;
 * autorate_probe_recv() hands over the answers that are due. The fd is the
 * made-up FAKE_PROBE_FD, readable (fake_probe_ready()) while an answer is due,
 * so a test's readiness function passes it on to fake_event.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/autorate_probe.h"
#include "fake/fake_probe.h"
#include "fake/fake_timer.h"

struct autorate_probe {
	int	fd;
};

struct fake_probe	fake_probe;

void
fake_probe_reset(void)
{
	memset(&fake_probe, 0, sizeof(fake_probe));
}

bool
fake_probe_ready(int fd)
{
	return fd == FAKE_PROBE_FD &&
	    fake_probe_next_ns() <= fake_timer.now_ns;
}

uint64_t
fake_probe_next_ns(void)
{
	uint64_t	next = UINT64_MAX;
	unsigned int	i;

	for (i = 0; i < fake_probe.npending; i++)
		if (fake_probe.pending[i].due_ns < next)
			next = fake_probe.pending[i].due_ns;
	return next;
}

struct autorate_probe *
autorate_probe_open(void)
{
	struct autorate_probe	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->fd = FAKE_PROBE_FD;
	fake_probe.open = true;
	return p;
}

const char *
autorate_probe_kind(const struct autorate_probe *p)
{
	(void)p;
	return "fake";
}

int
autorate_probe_fd(const struct autorate_probe *p)
{
	return p->fd;
}

void
autorate_probe_set_targets(struct autorate_probe *p, const struct in_addr *a,
    unsigned int n)
{
	(void)p;
	(void)a;
	fake_probe.targets = n;
	/* As autorate_probe.c: the echoes in flight are forgotten. */
	fake_probe.npending = 0;
}

int
autorate_probe_send(struct autorate_probe *p, unsigned int idx, uint64_t now_ns)
{
	struct fake_probe_reply	*r;

	(void)p;
	if (idx >= fake_probe.targets || idx >= PROBE_TARGETS_MAX) {
		errno = EINVAL;
		return -1;
	}
	fake_probe.sent[idx]++;
	fake_probe.sent_ns[idx] = now_ns;
	if (fake_probe.rtt_ns[idx] == 0 ||
	    fake_probe.npending == FAKE_PROBE_PENDING)
		return 0;
	r = &fake_probe.pending[fake_probe.npending++];
	r->idx = idx;
	r->sent_ns = now_ns;
	r->due_ns = now_ns + fake_probe.rtt_ns[idx];
	return 0;
}

void
autorate_probe_recv(struct autorate_probe *p, uint64_t now_ns,
    autorate_probe_reply_fn *fn, void *arg)
{
	struct fake_probe_reply	r;
	unsigned int		i = 0;

	(void)p;
	while (i < fake_probe.npending) {
		if (fake_probe.pending[i].due_ns > now_ns) {
			i++;
			continue;
		}
		r = fake_probe.pending[i];
		fake_probe.pending[i] =
		    fake_probe.pending[--fake_probe.npending];
		fake_probe.replies++;
		fn(arg, r.idx, now_ns - r.sent_ns, now_ns);
	}
}

void
autorate_probe_stats(const struct autorate_probe *p,
    struct autorate_probe_stats *st)
{
	unsigned int	i;

	(void)p;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < PROBE_TARGETS_MAX; i++)
		st->sent += fake_probe.sent[i];
	st->replies = fake_probe.replies;
}

void
autorate_probe_close(struct autorate_probe *p)
{
	if (p != NULL)
		fake_probe.open = false;
	free(p);
}
