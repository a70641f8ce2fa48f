/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * floodsend: a small-packet UDP flood from one or several flows, for
 * test_isolation.sh.
 *
 *   floodsend ADDR PORT SECONDS FLOWS
 *
 * Opens FLOWS sockets (each with its own ephemeral source port, so the
 * kernel sees FLOWS distinct 5-tuples), connects them all to ADDR:PORT
 * and sends 18-byte datagrams (60-byte Ethernet frames) with sendmmsg()
 * in batches, one batch per socket in turn, for SECONDS. Prints the
 * number of datagrams the kernel accepted. It sends only to the address
 * it is given (a test namespace's).
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FLOODSEND_BATCH		64
#define FLOODSEND_MAX_FLOWS	64
#define FLOODSEND_BYTES		18

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
usage(void)
{
	fprintf(stderr, "usage: floodsend ADDR PORT SECONDS FLOWS\n");
	exit(2);
}

static int
open_flow(const struct sockaddr_in *dst)
{
	int	fd;

	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1) {
		perror("floodsend: socket");
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) == -1) {
		perror("floodsend: connect");
		close(fd);
		return -1;
	}
	return fd;
}

static unsigned long long
flood(const int *fds, int nfds, double secs)
{
	static uint8_t		payload[FLOODSEND_BYTES];
	struct mmsghdr		msgs[FLOODSEND_BATCH];
	struct iovec		iov;
	unsigned long long	sent = 0;
	double			end = now_s() + secs;
	int			i, n;

	iov.iov_base = payload;
	iov.iov_len = sizeof(payload);
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < FLOODSEND_BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (i = 0; now_s() < end; i = (i + 1) % nfds) {
		n = sendmmsg(fds[i], msgs, FLOODSEND_BATCH, 0);
		if (n > 0)
			sent += (unsigned long long)n;
		else if (n == -1 && errno != ENOBUFS && errno != EAGAIN &&
		    errno != EINTR && errno != ECONNREFUSED) {
			perror("floodsend: sendmmsg");
			break;
		}
	}
	return sent;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in	dst;
	int			fds[FLOODSEND_MAX_FLOWS];
	int			i, nflows, port;
	double			secs;

	if (argc != 5)
		usage();
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	port = atoi(argv[2]);
	secs = atof(argv[3]);
	nflows = atoi(argv[4]);
	if (inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 || port < 1 ||
	    port > 65535 || secs <= 0 || secs > 3600 || nflows < 1 ||
	    nflows > FLOODSEND_MAX_FLOWS)
		usage();
	dst.sin_port = htons((uint16_t)port);
	for (i = 0; i < nflows; i++)
		if ((fds[i] = open_flow(&dst)) == -1)
			return 1;
	printf("%llu\n", flood(fds, nflows, secs));
	return 0;
}
