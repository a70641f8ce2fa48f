/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tun.c: the adapter for /dev/net/tun. It opens a TAP or TUN device (new,
 * or an existing persistent one), and moves frames between the fd and the
 * caller's buffers, a batch of reads per wakeup.
 *
 * No packet information header (IFF_NO_PI). tun_open() adds no vnet
 * header: the kernel hands over plain frames, at most one MTU long.
 * tun_open_offload() adds one (IFF_VNET_HDR) and negotiates offloads
 * (TUNSETOFFLOAD), so reads may return GSO super-packets with partial
 * checksums; vnet.c reads and writes such fds. tun_open_queues() opens
 * a device as several queues (IFF_MULTI_QUEUE), one fd each: the kernel
 * puts each flow on one queue, so that a reader that visits them in
 * turn is not held up by one flow filling the only queue. This module neither
 * parses nor queues, and it does not configure links (rtnl.c does).
 */
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <net/if.h>
#include <linux/if_tun.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/tun.h"

#define TUN_DEV		"/dev/net/tun"
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20	/* UDP segmentation, Linux 6.2 */
#define TUN_F_USO6	0x40
#endif

static int
tun_open_flags(const char *name, int tap, int flags)
{
	struct ifreq	ifr;
	int		fd, saved;

	if (strlen(name) >= sizeof(ifr.ifr_name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(TUN_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (short)((tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI | flags);
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
tun_open(const char *name, int tap)
{
	return tun_open_flags(name, tap, 0);
}

/* Asks for the most offloads the kernel accepts; *features gets them. */
static void
tun_offload(int fd, unsigned int *features)
{
	/* Most first: USO needs Linux 6.2, TSO_ECN may be refused. */
	static const unsigned int tries[] = {
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN |
		    TUN_F_USO4 | TUN_F_USO6,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6,
		TUN_F_CSUM,
	};
	size_t	i;

	*features = 0;
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)tries[i]) == 0) {
			*features = tries[i];
			return;
		}
	}
	/* None accepted: the kernel sends plain frames, headers still on. */
}

int
tun_open_offload(const char *name, int tap, unsigned int *features)
{
	int	fd;

	*features = 0;
	if ((fd = tun_open_flags(name, tap, IFF_VNET_HDR)) == -1)
		return -1;
	tun_offload(fd, features);
	return fd;
}

/*
 * Queues attached to device name, from its sysfs queue directories (the
 * kernel keeps one tx-N per attached queue of a TUN/TAP device); 0 if
 * sysfs cannot tell.
 */
static unsigned int
tun_queues_attached(const char *name)
{
	char		 path[64];
	DIR		*d;
	struct dirent	*e;
	unsigned int	 n = 0;

	if (snprintf(path, sizeof(path), "/sys/class/net/%s/queues",
	    name) >= (int)sizeof(path) || (d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "tx-", 3) == 0)
			n++;
	closedir(d);
	return n;
}

/* Closes fds[0..n-1] and fails with err. */
static int
tun_close_queues(int fds[], unsigned int n, int err)
{
	while (n-- > 0)
		close(fds[n]);
	errno = err;
	return -1;
}

int
tun_open_queues(const char *name, int tap, int vnet, unsigned int n,
    int fds[], unsigned int *features)
{
	unsigned int	i;
	int		flags;

	*features = 0;
	if (n < 1 || n > TUN_QUEUES_MAX) {
		errno = EINVAL;
		return -1;
	}
	flags = (vnet ? IFF_VNET_HDR : 0) | (n > 1 ? IFF_MULTI_QUEUE : 0);
	for (i = 0; i < n; i++) {
		if ((fds[i] = tun_open_flags(name, tap, flags)) == -1)
			return tun_close_queues(fds, i, errno);
	}
	/*
	 * A multi-queue device takes more queues from anyone who asks: more
	 * than ours means another process (a second caked) has it. Busy,
	 * as a single-queue device would be.
	 */
	if (n > 1 && tun_queues_attached(name) > n)
		return tun_close_queues(fds, n, EBUSY);
	if (vnet)
		tun_offload(fds[0], features);
	return 0;
}

int
tun_read_batch(int fd, uint8_t *const bufs[], const uint32_t caps[],
    uint32_t lens[], int n)
{
	ssize_t	r;
	int	i;

	for (i = 0; i < n; i++) {
		r = read(fd, bufs[i], caps[i]);
		if (r == -1 && errno == EINTR) {
			i--;
			continue;
		}
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r == -1)
			return i > 0 ? i : -1;	/* reported by the next call */
		lens[i] = (uint32_t)r;	/* 0: an empty frame, counted */
	}
	return i;
}

int
tun_write(int fd, const uint8_t *buf, uint32_t len)
{
	ssize_t	r;

	do {
		r = write(fd, buf, len);
	} while (r == -1 && errno == EINTR);
	if (r == -1)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	return 1;
}

int
tun_has_vnet(int fd)
{
	struct ifreq	ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) == -1)
		return 0;
	return (ifr.ifr_flags & IFF_VNET_HDR) != 0;
}

int
tun_gone(int err)
{
	/* The kernel returns EBADFD once the device is deleted (tun.c). */
	return err == EBADFD || err == ENODEV || err == EBADF;
}

int
tun_get_mtu(const char *name, uint32_t *mtu)
{
	struct ifreq	ifr;
	int		fd, rc, saved;

	/* Any socket will do for SIOCGIFMTU; AF_UNIX is always allowed. */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	(void)snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	rc = ioctl(fd, SIOCGIFMTU, &ifr);
	saved = errno;
	close(fd);
	errno = saved;
	if (rc == -1 || ifr.ifr_mtu <= 0)
		return -1;
	*mtu = (uint32_t)ifr.ifr_mtu;
	return 0;
}
