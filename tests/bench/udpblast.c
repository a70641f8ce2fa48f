/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * udpblast: minimum-size UDP packets per second, for the datapath
 * benchmark (tests/bench/bench-datapath.sh) and the small-packet flood of
 * tests/netns/test_isolation.sh.
 *
 *   udpblast -s ADDR PORT SECONDS [BYTES [FLOWS [PPS]]]   send
 *   udpblast -r ADDR PORT SECONDS                         count
 *
 * The sender writes BYTES-byte datagrams (default 18: a 60-byte Ethernet
 * frame, 64 on the wire with the FCS) with sendmmsg() in batches from
 * FLOWS sockets (default 1; each its own ephemeral source port, so FLOWS
 * distinct 5-tuples), one batch per socket in turn, as fast as the kernel
 * takes them or, with PPS, at most PPS a second on average (it sleeps
 * while ahead of that pace), and prints how many the kernel accepted; the receiver binds ADDR:PORT, counts datagrams
 * with recvmmsg() for SECONDS after the first one and prints
 * "packets seconds pps". Both stop by themselves. It measures; it never
 * judges, and it sends only to the address it is given (a namespace's).
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UDPBLAST_BATCH		64
#define UDPBLAST_MAX_BYTES	1472
#define UDPBLAST_MAX_FLOWS	64
#define UDPBLAST_MAX_SECS	3600

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
	fprintf(stderr, "usage: udpblast -s ADDR PORT SECONDS "
	    "[BYTES [FLOWS [PPS]]]\n"
	    "       udpblast -r ADDR PORT SECONDS\n");
	exit(2);
}

static int
open_flow(const struct sockaddr_in *dst)
{
	int	fd;

	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1) {
		perror("udpblast: socket");
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst)) == -1) {
		perror("udpblast: connect");
		close(fd);
		return -1;
	}
	return fd;
}

/* With a pace (pps > 0): sleeps until sent datagrams are due. */
static void
pace(unsigned long long sent, double start, double pps)
{
	struct timespec	ts;
	double		ahead;

	if (pps <= 0 || (ahead = start + (double)sent / pps - now_s()) <= 0)
		return;
	ts.tv_sec = (time_t)ahead;
	ts.tv_nsec = (long)((ahead - (double)ts.tv_sec) * 1e9);
	(void)nanosleep(&ts, NULL);
}

static int
blast(const int *fds, int nfds, double secs, size_t bytes, double pps)
{
	static uint8_t		payload[UDPBLAST_MAX_BYTES];
	struct mmsghdr		msgs[UDPBLAST_BATCH];
	struct iovec		iov;
	unsigned long long	sent = 0;
	double			start = now_s(), end = start + secs;
	int			i, n;

	iov.iov_base = payload;
	iov.iov_len = bytes;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < UDPBLAST_BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (i = 0; now_s() < end; i = (i + 1) % nfds) {
		pace(sent, start, pps);
		if ((n = sendmmsg(fds[i], msgs, UDPBLAST_BATCH, 0)) == -1) {
			if (errno == ENOBUFS || errno == EAGAIN ||
			    errno == EINTR || errno == ECONNREFUSED)
				continue;
			perror("udpblast: sendmmsg");
			return 1;
		}
		sent += (unsigned long long)n;
	}
	printf("%llu\n", sent);
	return 0;
}

static int
count(int fd, double secs)
{
	static uint8_t		bufs[UDPBLAST_BATCH][64];
	struct mmsghdr		msgs[UDPBLAST_BATCH];
	struct iovec		iov[UDPBLAST_BATCH];
	struct timespec		tmo = { 0, 100000000 };
	struct pollfd		pfd = { fd, POLLIN, 0 };
	unsigned long long	got = 0;
	double			start = 0, end = 0, t;
	int			i, n;

	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < UDPBLAST_BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	/* Wait up to 10 s for the first datagram; the clock starts there. */
	if (poll(&pfd, 1, 10000) != 1) {
		printf("0 0 0\n");
		return 0;
	}
	start = now_s();
	end = start + secs;
	while ((t = now_s()) < end) {
		n = recvmmsg(fd, msgs, UDPBLAST_BATCH, MSG_WAITFORONE, &tmo);
		if (n > 0)
			got += (unsigned long long)n;
	}
	printf("%llu %.3f %.0f\n", got, t - start, (double)got / (t - start));
	return 0;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	sin;
	struct timeval		tv = { 0, 100000 };
	size_t			bytes = 18;
	double			secs, pps = 0;
	int			fds[UDPBLAST_MAX_FLOWS];
	int			fd, i, nflows = 1, send_mode;

	if (argc < 5 || (strcmp(argv[1], "-s") != 0 &&
	    strcmp(argv[1], "-r") != 0))
		usage();
	send_mode = argv[1][1] == 's';
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
		usage();
	secs = atof(argv[4]);
	if (argc > 5)
		bytes = (size_t)atoi(argv[5]);
	if (argc > 6)
		nflows = atoi(argv[6]);
	if (argc > 7 && ((pps = atof(argv[7])) < 1 || pps > 1e9))
		usage();
	if (argc > 8 || (!send_mode && argc > 5) || secs <= 0 ||
	    secs > UDPBLAST_MAX_SECS || bytes < 1 ||
	    bytes > UDPBLAST_MAX_BYTES || nflows < 1 ||
	    nflows > UDPBLAST_MAX_FLOWS)
		usage();
	if (send_mode) {
		for (i = 0; i < nflows; i++)
			if ((fds[i] = open_flow(&sin)) == -1)
				return 1;
		return blast(fds, nflows, secs, bytes, pps);
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1) {
		perror("udpblast: socket");
		return 1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ 4 << 20 },
	    sizeof(int));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		perror("udpblast: bind");
		return 1;
	}
	return count(fd, secs);
}
