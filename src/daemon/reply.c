/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * reply.c: the asker's wait for an answer (reply.h). The mutex is held
 * by the answerer from reply_claim() to reply_done(), while it writes the
 * answer: the asker cannot give up half-way through it, and once it has
 * given up (open no longer seq) the answerer writes nothing. Neither side
 * takes it on the packet path; a packet thread meets it only when it
 * answers a request.
 */
#include <errno.h>
#include <time.h>

#include "daemon/reply.h"

#define REPLY_NS_PER_S	1000000000ULL

int
reply_init(struct reply *r)
{
	pthread_condattr_t	ca;
	int			rc;

	r->open = r->done = r->late = 0;
	r->next = 1;
	if ((rc = pthread_mutex_init(&r->mu, NULL)) != 0) {
		errno = rc;
		return -1;
	}
	if ((rc = pthread_condattr_init(&ca)) == 0) {
		if ((rc = pthread_condattr_setclock(&ca,
		    CLOCK_MONOTONIC)) == 0)
			rc = pthread_cond_init(&r->cond, &ca);
		(void)pthread_condattr_destroy(&ca);
	}
	if (rc != 0) {
		(void)pthread_mutex_destroy(&r->mu);
		errno = rc;
		return -1;
	}
	return 0;
}

void
reply_fini(struct reply *r)
{
	(void)pthread_cond_destroy(&r->cond);
	(void)pthread_mutex_destroy(&r->mu);
}

uint64_t
reply_begin(struct reply *r)
{
	uint64_t	seq;

	(void)pthread_mutex_lock(&r->mu);
	seq = r->next++;
	r->open = seq;
	(void)pthread_mutex_unlock(&r->mu);
	return seq;
}

/* The absolute CLOCK_MONOTONIC instant timeout_ns from now. */
static struct timespec
reply_deadline(uint64_t timeout_ns)
{
	struct timespec	ts;
	uint64_t	ns;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_nsec + timeout_ns % REPLY_NS_PER_S;
	ts.tv_sec += (time_t)(timeout_ns / REPLY_NS_PER_S +
	    ns / REPLY_NS_PER_S);
	ts.tv_nsec = (long)(ns % REPLY_NS_PER_S);
	return ts;
}

bool
reply_wait(struct reply *r, uint64_t seq, uint64_t timeout_ns)
{
	struct timespec	dl = reply_deadline(timeout_ns);
	bool		ok;

	(void)pthread_mutex_lock(&r->mu);
	while (r->done != seq && r->open == seq)
		if (pthread_cond_timedwait(&r->cond, &r->mu, &dl) ==
		    ETIMEDOUT)
			break;
	ok = r->done == seq;
	if (r->open == seq)
		r->open = 0;		/* answered, or given up */
	(void)pthread_mutex_unlock(&r->mu);
	return ok;
}

bool
reply_claim(struct reply *r, uint64_t seq)
{
	(void)pthread_mutex_lock(&r->mu);
	if (seq != 0 && r->open == seq)
		return true;		/* held until reply_done() */
	r->late++;
	(void)pthread_mutex_unlock(&r->mu);
	return false;
}

void
reply_done(struct reply *r, uint64_t seq)
{
	r->done = seq;
	(void)pthread_cond_signal(&r->cond);
	(void)pthread_mutex_unlock(&r->mu);
}
