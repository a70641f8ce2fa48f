/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fake_tun.c: the link-time fake of src/daemon/tun.c. Test programs link
 * it instead of tun.c, so that the real datapath.c and loop.c run against
 * scripted devices (fake_tun.h) without /dev/net/tun, root or timing:
 * reads come from a ring the test fills, writes are accepted, refused
 * with EAGAIN, failed with EIO or EBADFD as the test's policy says, and
 * a device may vanish after N writes, or stay full until the test
 * empties it. The fds are made-up numbers from FAKE_TUN_FD0 on, which
 * fake_event.c asks fake_tun_ready() about.
 *
 * A multi-queue device is a set of fake devices, one per queue (the
 * datapath only ever sees one fd per queue).
 *
 * tun_open(), tun_open_offload() and tun_open_queues() are not faked:
 * nothing under test opens devices (main.c does). tun_gone() restates
 * tun.c's list of errno values that mean "gone for good": keep the two
 * in step.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "daemon/tun.h"
#include "fake/fake_tun.h"

static struct fake_tun	fake_tun_devs[FAKE_TUN_DEVS];

struct fake_tun *
fake_tun_get(int fd)
{
	fd -= FAKE_TUN_FD0;
	if (fd < 0 || fd >= FAKE_TUN_DEVS || !fake_tun_devs[fd].used)
		return NULL;
	return &fake_tun_devs[fd];
}

struct fake_tun *
fake_tun_add(int fd, bool vnet)
{
	struct fake_tun	*dev;

	fd -= FAKE_TUN_FD0;
	if (fd < 0 || fd >= FAKE_TUN_DEVS)
		abort();
	dev = &fake_tun_devs[fd];
	free(dev->rx);
	memset(dev, 0, sizeof(*dev));
	if ((dev->rx = calloc(FAKE_TUN_RX_MAX, sizeof(*dev->rx))) == NULL)
		abort();
	dev->used = true;
	dev->vnet = vnet;
	dev->gone_after = -1;
	return dev;
}

void
fake_tun_reset(void)
{
	int	i;

	for (i = 0; i < FAKE_TUN_DEVS; i++) {
		free(fake_tun_devs[i].rx);
		memset(&fake_tun_devs[i], 0, sizeof(fake_tun_devs[i]));
	}
}

int
fake_tun_push(int fd, const uint8_t *frame, uint32_t len)
{
	struct fake_tun		*dev = fake_tun_get(fd);
	struct fake_tun_frame	*f;
	unsigned int		 limit;

	if (dev == NULL || len > FAKE_TUN_FRAME_MAX)
		return -1;
	limit = dev->rx_limit > 0 && dev->rx_limit < FAKE_TUN_RX_MAX ?
	    dev->rx_limit : FAKE_TUN_RX_MAX;
	if (dev->rx_count >= limit) {
		dev->rx_dropped++;
		return -1;
	}
	f = &dev->rx[(dev->rx_head + dev->rx_count) % FAKE_TUN_RX_MAX];
	f->len = len;
	memcpy(f->data, frame, len);
	dev->rx_count++;
	return 0;
}

static bool
fake_tun_is_gone(const struct fake_tun *dev)
{
	return dev->gone_after >= 0 &&
	    dev->written >= (uint64_t)dev->gone_after;
}

int
fake_tun_take(struct fake_tun *dev, uint8_t *buf, uint32_t cap,
    uint32_t *len)
{
	struct fake_tun_frame	*f;

	if (dev->rx_err != 0 || fake_tun_is_gone(dev)) {
		errno = dev->rx_err != 0 ? dev->rx_err : EBADFD;
		return -1;
	}
	if (dev->rx_count == 0)
		return 0;
	f = &dev->rx[dev->rx_head];
	dev->rx_head = (dev->rx_head + 1) % FAKE_TUN_RX_MAX;
	dev->rx_count--;
	dev->reads++;
	*len = f->len < cap ? f->len : cap;
	memcpy(buf, f->data, *len);
	return 1;
}

int
fake_tun_admit(struct fake_tun *dev)
{
	int	err;

	if (fake_tun_is_gone(dev)) {
		dev->writes++;
		errno = EBADFD;
		return -1;
	}
	if (dev->full)
		err = EAGAIN;
	else if (dev->policy != NULL)
		err = dev->policy(dev->arg, dev->writes);
	else
		err = 0;
	dev->writes++;
	if (err == EAGAIN || err == EWOULDBLOCK)
		return 0;
	if (err != 0) {
		errno = err;
		return -1;
	}
	dev->written++;
	return 1;
}

bool
fake_tun_ready(int fd, short what)
{
	struct fake_tun	*dev = fake_tun_get(fd);

	if (dev == NULL)
		return false;
	if (dev->rx_err != 0 || fake_tun_is_gone(dev))
		return true;
	if (what & EV_READ)
		return dev->rx_count > 0;
	return (what & EV_WRITE) && !dev->full;
}

int
tun_read_batch(int fd, uint8_t *const bufs[], const uint32_t caps[],
    uint32_t lens[], int n)
{
	struct fake_tun	*dev = fake_tun_get(fd);
	int		 i, rv;

	if (dev == NULL) {
		errno = EBADF;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((rv = fake_tun_take(dev, bufs[i], caps[i], &lens[i])) == 0)
			break;
		if (rv == -1)
			return i > 0 ? i : -1;
	}
	return i;
}

int
tun_write(int fd, const uint8_t *buf, uint32_t len)
{
	struct fake_tun	*dev = fake_tun_get(fd);
	int		 rv;

	if (dev == NULL) {
		errno = EBADF;
		return -1;
	}
	if ((rv = fake_tun_admit(dev)) == 1 && dev->sink != NULL)
		dev->sink(dev->arg, buf, len, 1, NULL);
	return rv;
}

int
tun_has_vnet(int fd)
{
	struct fake_tun	*dev = fake_tun_get(fd);

	return dev != NULL && dev->vnet;
}

int
tun_gone(int err)
{
	return err == EBADFD || err == ENODEV || err == EBADF;
}

/*
 * The fake devices have no names and no MTU of their own: the loop keeps
 * the configured maximum, as it does when the ioctl fails on a real one.
 */
int
tun_get_mtu(const char *name, uint32_t *mtu)
{
	(void)name;
	(void)mtu;
	errno = ENODEV;
	return -1;
}
