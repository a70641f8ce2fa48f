/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_tun.h: scripted TUN/TAP devices for the link-time fakes of
 * tun.c and vnet.c (fake_tun.c, fake_vnet.c). A test registers a device
 * under a made-up fd, queues frames for it to read, and decides through
 * a policy (or the full flag) what each write meets: acceptance, EAGAIN,
 * EIO or a device
 * that is gone (at once, or after N writes). Accepted frames go to the
 * test's sink.
 */
#ifndef CAKED_TESTS_FAKE_TUN_H
#define CAKED_TESTS_FAKE_TUN_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_TUN_FD0		1000	/* made-up fds: FAKE_TUN_FD0 + i */
#define FAKE_TUN_DEVS		8
#define FAKE_TUN_RX_MAX		4096	/* frames queued for reading */
#define FAKE_TUN_FRAME_MAX	2048

struct cake_pkt;

/*
 * Errno the write number n (from 0) meets, 0 to accept it. EAGAIN and
 * EWOULDBLOCK make tun_write() and vnet_write() return 0, as a full
 * device does.
 */
typedef int	fake_tun_policy_fn(void *arg, uint64_t n);
/*
 * An accepted write: the whole frame (gathered if written in pieces),
 * the number of pieces of payload (1 unless coalesced), and the packet
 * that described it (its gso_* fields; NULL for tun_write()).
 */
typedef void	fake_tun_sink_fn(void *arg, const uint8_t *frame,
		    uint32_t len, unsigned int pieces,
		    const struct cake_pkt *desc);

struct fake_tun_frame {
	uint32_t	len;
	uint8_t		data[FAKE_TUN_FRAME_MAX];
};

struct fake_tun {
	bool			 used;
	bool			 vnet;		/* tun_has_vnet() */
	struct fake_tun_frame	*rx;		/* ring of FAKE_TUN_RX_MAX */
	unsigned int		 rx_head, rx_count;
	unsigned int		 rx_limit;	/* 0: FAKE_TUN_RX_MAX; like a
						 * TAP queue's txqueuelen */
	uint64_t		 rx_dropped;	/* pushes refused: ring full */
	int			 rx_err;	/* non-zero: reads fail so */
	bool			 full;		/* writes meet EAGAIN */
	int64_t			 gone_after;	/* -1, or writes accepted
						 * before reads and writes
						 * fail with EBADFD */
	fake_tun_policy_fn	*policy;	/* NULL: accept every write */
	fake_tun_sink_fn	*sink;		/* NULL: count only */
	void			*arg;
	uint64_t		 writes;	/* attempts, refused ones too */
	uint64_t		 written;	/* accepted */
	uint64_t		 reads;		/* frames handed out */
};

/* Registers fd (FAKE_TUN_FD0 + i) as a device; returns it, cleared. */
struct fake_tun	*fake_tun_add(int fd, bool vnet);
/* The device registered as fd, or NULL. */
struct fake_tun	*fake_tun_get(int fd);
/*
 * Whether fd would not block (fake_event.c): readable with a frame or
 * an error waiting, writable unless full; a gone device is both.
 */
bool		 fake_tun_ready(int fd, short what);
/* Forgets every device. */
void		 fake_tun_reset(void);
/*
 * Queues a frame for fd to read; -1 if its ring is full (counted in
 * rx_dropped, as a TAP queue's tx_dropped) or the frame too long. A
 * multi-queue device is one fake device per queue.
 */
int		 fake_tun_push(int fd, const uint8_t *frame, uint32_t len);
/*
 * The fakes' common steps: the next frame of dev into buf (cap bytes;
 * longer frames are cut to cap, as read(2) does), 1 if one was read, 0
 * if none waits, -1 with errno as rx_err says.
 */
int		 fake_tun_take(struct fake_tun *dev, uint8_t *buf,
		    uint32_t cap, uint32_t *len);
/* Asks dev's policy about a write: 1 accepted, 0 full, -1 with errno. */
int		 fake_tun_admit(struct fake_tun *dev);

#endif /* CAKED_TESTS_FAKE_TUN_H */
