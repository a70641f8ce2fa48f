/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * reply.h: a request one thread makes of another and waits for, with a
 * timeout, on the control path only (a statistics snapshot from a packet
 * thread). The request itself travels as a message (inbox.h) carrying
 * the sequence number reply_begin() gave; the answer is written into a
 * buffer both sides know, between reply_claim() and reply_done(). An
 * answer that comes after the asker gave up is refused by reply_claim(),
 * so it never writes into a buffer the asker reads again.
 */
#ifndef CAKED_DAEMON_REPLY_H
#define CAKED_DAEMON_REPLY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct reply {
	pthread_mutex_t	mu;
	pthread_cond_t	cond;		/* CLOCK_MONOTONIC */
	uint64_t	open;		/* the request waited for; 0: none */
	uint64_t	done;		/* the last request answered */
	uint64_t	next;		/* the next sequence number */
	uint64_t	late;		/* answers refused: the asker gave up */
};

/* 0, or -1 (errno) when the mutex or condition cannot be made. */
int		reply_init(struct reply *r);
void		reply_fini(struct reply *r);
/* Asker: opens a request; its number (never 0) goes into the message. */
uint64_t	reply_begin(struct reply *r);
/*
 * Asker: waits at most timeout_ns for request seq. True if answered (the
 * buffer holds the answer); false on timeout, and the request is closed.
 */
bool		reply_wait(struct reply *r, uint64_t seq, uint64_t timeout_ns);
/*
 * Answerer: true if seq is still awaited; the answer is then written and
 * reply_done() called. False (counted as late): write nothing.
 */
bool		reply_claim(struct reply *r, uint64_t seq);
void		reply_done(struct reply *r, uint64_t seq);

#endif /* CAKED_DAEMON_REPLY_H */
