/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tapfwd: the bare TAP/TUN forwarder.
 *
 * Opens two TAP devices (or TUN devices with -u) by name and copies every
 * frame read from one to the other, both ways, with poll(). It is the
 * baseline for benchmarks ("what does a userspace bump in the wire cost
 * without any shaping") and lets the netns testbeds be checked without
 * caked.
 *
 * It must not do anything else: no engine, no queue, no shaping, no
 * device configuration (the caller brings the devices up, sets the MTU and
 * attaches them to bridges or routes). Devices that do not exist are
 * created by TUNSETIFF and vanish when tapfwd exits. SIGHUP is accepted
 * and ignored (there is nothing to reload), so reload tests can run on it.
 *
 * With -o (offload) both devices are opened with IFF_VNET_HDR and offer
 * the kernel checksum, TSO and USO offloads (TUNSETOFFLOAD); the virtio-net
 * header read with each frame is written out with it unchanged, so GSO
 * super-packets and partial checksums pass through whole: the upper bound
 * of any TAP-based daemon.
 */

#include <sys/ioctl.h>
#include <sys/types.h>

#include <linux/if.h>
#include <linux/if_tun.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAPFWD_BUF_BYTES	(65536 + 256)	/* vnet header + 64 KB GSO */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#define TUN_F_USO6	0x40
#endif

struct tapfwd_dir {
	uint64_t	 frames;
	uint64_t	 bytes;
	uint64_t	 write_errors;
};

static volatile sig_atomic_t tapfwd_stop;
static volatile sig_atomic_t tapfwd_hups;

static void
tapfwd_on_signal(int sig)
{
	if (sig == SIGHUP)
		tapfwd_hups++;	/* nothing to reload: lets reload tests run */
	else
		tapfwd_stop = 1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: tapfwd [-ou] dev-a dev-b\n"
	    "  copies frames between two TAP devices (-u: TUN devices,\n"
	    "  -o: vnet headers and offloads, GSO passed through)\n");
	exit(2);
}

/* Offers the most offloads the kernel accepts; 0 if none. */
static unsigned int
tapfwd_offload(int fd)
{
	static const unsigned int tries[] = {
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN |
		    TUN_F_USO4 | TUN_F_USO6,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
		TUN_F_CSUM,
	};
	size_t	i;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++)
		if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)tries[i]) == 0)
			return tries[i];
	return 0;
}

static int
tapfwd_open(const char *name, int tun, int offload)
{
	struct ifreq	 ifr;
	int		 fd;

	if (strlen(name) >= IFNAMSIZ) {
		fprintf(stderr, "tapfwd: device name too long: %s\n", name);
		return -1;
	}
	if ((fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)) == -1) {
		fprintf(stderr, "tapfwd: /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (tun ? IFF_TUN : IFF_TAP) | IFF_NO_PI |
	    (offload ? IFF_VNET_HDR : 0);
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) == -1) {
		fprintf(stderr, "tapfwd: TUNSETIFF %s: %s\n", name,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (offload)
		fprintf(stderr, "tapfwd: %s: offloads 0x%x\n", name,
		    tapfwd_offload(fd));
	if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		fprintf(stderr, "tapfwd: O_NONBLOCK %s: %s\n", name,
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Move every frame currently readable on from_fd to to_fd. Returns -1 on a
 * read error other than "nothing more to read".
 */
static int
tapfwd_drain(int from_fd, int to_fd, unsigned char *buf,
    struct tapfwd_dir *dir)
{
	ssize_t	 n;
	int	 budget;

	for (budget = 64; budget > 0; budget--) {
		n = read(from_fd, buf, TAPFWD_BUF_BYTES);
		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			fprintf(stderr, "tapfwd: read: %s\n", strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		if (write(to_fd, buf, (size_t)n) != n)
			dir->write_errors++;
		dir->frames++;
		dir->bytes += (uint64_t)n;
	}
	return 0;
}

static int
tapfwd_loop(int fd_a, int fd_b, struct tapfwd_dir dirs[2])
{
	static unsigned char	 buf[TAPFWD_BUF_BYTES];
	struct pollfd		 pfd[2];

	pfd[0].fd = fd_a;
	pfd[1].fd = fd_b;
	pfd[0].events = pfd[1].events = POLLIN;
	while (!tapfwd_stop) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "tapfwd: poll: %s\n", strerror(errno));
			return -1;
		}
		if ((pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) ||
		    (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
			fprintf(stderr, "tapfwd: device went away\n");
			return -1;
		}
		if ((pfd[0].revents & POLLIN) &&
		    tapfwd_drain(fd_a, fd_b, buf, &dirs[0]) == -1)
			return -1;
		if ((pfd[1].revents & POLLIN) &&
		    tapfwd_drain(fd_b, fd_a, buf, &dirs[1]) == -1)
			return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct tapfwd_dir	 dirs[2];
	struct sigaction	 sa;
	int			 ch, tun = 0, offload = 0, fd_a, fd_b, rc;

	while ((ch = getopt(argc, argv, "ouh")) != -1) {
		switch (ch) {
		case 'o':
			offload = 1;
			break;
		case 'u':
			tun = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tapfwd_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if ((fd_a = tapfwd_open(argv[0], tun, offload)) == -1)
		return 1;
	if ((fd_b = tapfwd_open(argv[1], tun, offload)) == -1)
		return 1;
	fprintf(stderr, "tapfwd: forwarding %s <-> %s (%s%s)\n", argv[0],
	    argv[1], tun ? "tun" : "tap", offload ? ", offload" : "");

	memset(dirs, 0, sizeof(dirs));
	rc = tapfwd_loop(fd_a, fd_b, dirs);
	fprintf(stderr, "tapfwd: %s->%s %llu frames %llu bytes %llu write "
	    "errors; %s->%s %llu frames %llu bytes %llu write errors\n",
	    argv[0], argv[1], (unsigned long long)dirs[0].frames,
	    (unsigned long long)dirs[0].bytes,
	    (unsigned long long)dirs[0].write_errors, argv[1], argv[0],
	    (unsigned long long)dirs[1].frames,
	    (unsigned long long)dirs[1].bytes,
	    (unsigned long long)dirs[1].write_errors);
	close(fd_a);
	close(fd_b);
	return rc == 0 ? 0 : 1;
}
