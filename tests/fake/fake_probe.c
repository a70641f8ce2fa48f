/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_probe.c: the link-time fake of src/daemon/autorate_probe.c, for the
 * autorate runner (autorate_run.c). No ICMP socket: autorate_probe_send()
 * records the probe and, unless the test made that reflector silent (rtt_ns
 * 0, or FAKE_TS_SILENT for timestamp requests), schedules its answer on the
 * fake clock: an echo one round trip later, a timestamp reply after the
 * way out and back, stamped by a reflector clock offset_ms off ours, whose
 * midnight falls at midnight_ns. autorate_probe_recv() hands over the
 * answers that are due. The fds are the made-up FAKE_PROBE_FD and _FD6,
 * readable (fake_probe_ready()) while an answer is due, so a test's readiness
 * function passes them on to fake_event.c.
 */
#include <sys/socket.h>

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
	return (fd == FAKE_PROBE_FD || fd == FAKE_PROBE_FD6) &&
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

uint32_t
fake_probe_ms(uint64_t now_ns)
{
	uint64_t	t = now_ns + FAKE_DAY_NS -
			    fake_probe.midnight_ns % FAKE_DAY_NS;

	return (uint32_t)(t % FAKE_DAY_NS / 1000000ULL);
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

bool
autorate_probe_can_timestamp(const struct autorate_probe *p)
{
	(void)p;
	return !fake_probe.no_timestamp;
}

int
autorate_probe_fd(const struct autorate_probe *p)
{
	return p->fd;
}

int
autorate_probe_fd6(const struct autorate_probe *p)
{
	(void)p;
	return fake_probe.no_v6 ? -1 : FAKE_PROBE_FD6;
}

void
autorate_probe_set_targets(struct autorate_probe *p,
    const struct autorate_addr *a, unsigned int n)
{
	(void)p;
	fake_probe.targets = n;
	memcpy(fake_probe.addr, a, n * sizeof(*a));
	/* As autorate_probe.c: the probes in flight are forgotten. */
	fake_probe.npending = 0;
}

/* A reflector's clock reading (ms since its midnight) at now_ns. */
static uint32_t
fake_refl_ms(unsigned int idx, uint64_t now_ns)
{
	int64_t	ms = (int64_t)fake_probe_ms(now_ns) +
		    fake_probe.offset_ms[idx];

	ms %= (int64_t)(FAKE_DAY_NS / 1000000ULL);
	if (ms < 0)
		ms += (int64_t)(FAKE_DAY_NS / 1000000ULL);
	return (uint32_t)ms;
}

/* Schedules the answer to a timestamp request, if the reflector gives one. */
static void
fake_ts(struct fake_probe_reply *r, unsigned int idx, uint64_t now_ns)
{
	uint64_t	up = fake_probe.up_ns[idx], down = fake_probe.down_ns[idx];

	if (up == 0 && down == 0)
		up = down = fake_probe.rtt_ns[idx] / 2;
	r->rep.originate_ms = fake_probe_ms(now_ns);
	r->rep.receive_ms = fake_refl_ms(idx, now_ns + up);
	r->rep.transmit_ms = r->rep.receive_ms;
	if (fake_probe.ts_mode[idx] == FAKE_TS_NONSTD) {
		r->rep.receive_ms |= 0x80000000U;
		r->rep.transmit_ms |= 0x80000000U;
	}
	r->due_ns = now_ns + up + down;
}

int
autorate_probe_send(struct autorate_probe *p, unsigned int idx, int kind,
    uint64_t now_ns)
{
	struct fake_probe_reply	*r;

	(void)p;
	if (idx >= fake_probe.targets || idx >= PROBE_TARGETS_MAX ||
	    (kind == PROBE_TIMESTAMP && (fake_probe.addr[idx].family !=
	    AF_INET || fake_probe.no_timestamp)) ||
	    (fake_probe.addr[idx].family == AF_INET6 && fake_probe.no_v6)) {
		fake_probe.send_errors++;
		errno = EINVAL;
		return -1;
	}
	fake_probe.sent[idx]++;
	fake_probe.sent_ts[idx] += kind == PROBE_TIMESTAMP;
	fake_probe.sent_ns[idx] = now_ns;
	if (fake_probe.rtt_ns[idx] == 0 ||
	    fake_probe.npending == FAKE_PROBE_PENDING ||
	    (kind == PROBE_TIMESTAMP &&
	    fake_probe.ts_mode[idx] == FAKE_TS_SILENT))
		return 0;
	r = &fake_probe.pending[fake_probe.npending++];
	memset(r, 0, sizeof(*r));
	r->rep.idx = idx;
	r->rep.kind = kind;
	r->sent_ns = now_ns;
	r->due_ns = now_ns + fake_probe.rtt_ns[idx];
	if (kind == PROBE_TIMESTAMP)
		fake_ts(r, idx, now_ns);
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
		r.rep.rtt_ns = now_ns - r.sent_ns;
		r.rep.now_ns = now_ns;
		r.rep.arrival_ms = fake_probe_ms(now_ns);
		fn(arg, &r.rep);
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
	st->send_errors = fake_probe.send_errors;
}

void
autorate_probe_close(struct autorate_probe *p)
{
	if (p != NULL)
		fake_probe.open = false;
	free(p);
}
