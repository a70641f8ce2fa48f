/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_mnl.h: the link-time fake of libmnl's socket calls (fake_mnl.c):
 * a netlink "kernel" that records conntrack's queries and answers them
 * when, and as often as, the test says.
 */
#ifndef CAKED_TESTS_FAKE_MNL_H
#define CAKED_TESTS_FAKE_MNL_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_MNL_QUERIES	4096	/* queries recorded */
#define FAKE_MNL_MSG_MAX	512

struct cake_tuple;
struct mnl_socket;

struct fake_mnl {
	struct mnl_socket	*events;	/* bound to groups */
	struct mnl_socket	*queries;	/* bound to none */
	uint32_t		 seqs[FAKE_MNL_QUERIES];	/* sent */
	uint32_t		 nqueries;
	unsigned int		 auto_enoent;	/* next queries answered so */
	int			 send_errno;	/* non-zero: sendto fails */
};

extern struct fake_mnl	fake_mnl;

void	fake_mnl_reset(void);
/* Queues one datagram for nl's reader. 0, or -1 if it does not fit. */
int	fake_mnl_deliver(struct mnl_socket *nl, const void *msg, size_t len);
/*
 * Builds into buf (FAKE_MNL_MSG_MAX bytes) a conntrack entry as the
 * kernel sends it: the answer to query seq (0: an event), IPv4, with
 * its original and reply tuples, status (IPS_*) and mark. Its length.
 */
size_t	fake_mnl_entry(uint8_t *buf, uint32_t seq,
	    const struct cake_tuple *orig, const struct cake_tuple *reply,
	    uint32_t status, uint32_t mark);
/* An error answer (NLMSG_ERROR with -err) to query seq. Its length. */
size_t	fake_mnl_error(uint8_t *buf, uint32_t seq, int err);

#endif /* CAKED_TESTS_FAKE_MNL_H */
