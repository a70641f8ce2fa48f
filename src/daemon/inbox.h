/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * inbox.h: messages from one thread to another: a ring (ring.h) of
 * fixed-size messages and an eventfd the receiver's event loop watches.
 * One sender and one receiver per inbox; neither ever blocks.
 */
#ifndef CAKED_DAEMON_INBOX_H
#define CAKED_DAEMON_INBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct inbox;

/* An inbox of slots messages of msg_size bytes; NULL on failure (errno). */
struct inbox	*inbox_create(size_t slots, size_t msg_size);
void		 inbox_destroy(struct inbox *ib);
/* The eventfd that becomes readable when a message was posted. */
int		 inbox_fd(const struct inbox *ib);
/*
 * Sender: queues a copy of msg and wakes the receiver. 0, or -1 with
 * errno ENOBUFS when the inbox is full (the message is not queued).
 */
int		 inbox_post(struct inbox *ib, const void *msg);
/*
 * Receiver, when inbox_fd() is readable: clears the wakeup; then takes
 * messages with inbox_take() until it returns false. A message posted
 * after the wakeup was cleared wakes the receiver again.
 */
void		 inbox_ack(struct inbox *ib);
bool		 inbox_take(struct inbox *ib, void *msg);
/* Messages refused because the inbox was full, ever. */
uint64_t	 inbox_refused(const struct inbox *ib);

#endif /* CAKED_DAEMON_INBOX_H */
