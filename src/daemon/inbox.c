/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * inbox.c: a ring plus an eventfd (inbox.h). The sender publishes the
 * message in the ring before it writes the eventfd, and the receiver
 * clears the eventfd before it empties the ring: a message is therefore
 * either seen by this round of inbox_take() or wakes the receiver again.
 * At worst a wakeup finds the ring already empty, which costs nothing.
 */
#include <sys/eventfd.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/inbox.h"
#include "daemon/ring.h"

struct inbox {
	struct ring		*ring;
	int			 efd;
	_Atomic uint64_t	 refused;	/* written by the sender */
};

struct inbox *
inbox_create(size_t slots, size_t msg_size)
{
	struct inbox	*ib;

	if ((ib = calloc(1, sizeof(*ib))) == NULL)
		return NULL;
	ib->efd = -1;
	atomic_init(&ib->refused, 0);
	if ((ib->ring = ring_create(slots, msg_size)) == NULL) {
		errno = errno != 0 ? errno : EINVAL;
		inbox_destroy(ib);
		return NULL;
	}
	if ((ib->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1) {
		inbox_destroy(ib);
		return NULL;
	}
	return ib;
}

void
inbox_destroy(struct inbox *ib)
{
	int	saved = errno;

	if (ib == NULL)
		return;
	if (ib->efd != -1)
		(void)close(ib->efd);
	ring_destroy(ib->ring);
	free(ib);
	errno = saved;
}

int
inbox_fd(const struct inbox *ib)
{
	return ib->efd;
}

int
inbox_post(struct inbox *ib, const void *msg)
{
	uint64_t	one = 1;

	if (!ring_push(ib->ring, msg)) {
		atomic_fetch_add_explicit(&ib->refused, 1,
		    memory_order_relaxed);
		errno = ENOBUFS;
		return -1;
	}
	/* EAGAIN: the counter is near overflow, so a wakeup is pending. */
	(void)write(ib->efd, &one, sizeof(one));
	return 0;
}

void
inbox_ack(struct inbox *ib)
{
	uint64_t	n;

	(void)read(ib->efd, &n, sizeof(n));
}

bool
inbox_take(struct inbox *ib, void *msg)
{
	return ring_pop(ib->ring, msg);
}

uint64_t
inbox_refused(const struct inbox *ib)
{
	return atomic_load_explicit(&ib->refused, memory_order_relaxed);
}
