/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * scrape: a small HTTP/1.1 client for test_metrics.sh (no curl needed).
 *
 *   scrape one HOST PORT METHOD PATH [HEADER_BYTES]
 *	one request (Connection: close, with a padding header of
 *	HEADER_BYTES if given); prints the status, then the body
 *   scrape raw HOST PORT
 *	sends standard input as it is (a malformed request, say) and
 *	prints the status of the answer, or "error ..." if there is none
 *   scrape load HOST PORT CLIENTS HZ SECONDS
 *	CLIENTS keep-alive connections, each asking GET /metrics HZ times
 *	a second for SECONDS; prints "requests ok errors cpu_percent"
 *	(its own user and system time over the run)
 *
 * The load is one thread and one poll() loop, so that scraping 1000
 * times a second costs little CPU and the scrape test measures caked's
 * answer to the load rather than the scraper's hunger for a CPU on a
 * loaded machine (a Python scraper with 50 threads was starved there and
 * asked for fewer scrapes than it meant to). A response counts as ok if
 * its status is 200 and its body starts with "# HELP". HOST must be an
 * IPv4 address of a test namespace.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define SCRAPE_CLIENTS_MAX	256
#define SCRAPE_RESP_MAX		(1024 * 1024)	/* a response, at most */
#define SCRAPE_TIMEOUT_S	10

struct conn {
	int	 fd;		/* -1: not connected */
	int	 busy;		/* a request is out */
	double	 next;		/* when to send the next request */
	char	*buf;
	size_t	 got;
};

static struct sockaddr_in	 scrape_dst;
static unsigned long		 scrape_ok, scrape_err;

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* User and system CPU time this process has used, in seconds. */
static double
cpu_s(void)
{
	struct rusage	ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void
usage(void)
{
	fprintf(stderr, "usage: scrape one HOST PORT METHOD PATH "
	    "[HEADER_BYTES]\n       scrape raw HOST PORT\n"
	    "       scrape load HOST PORT CLIENTS HZ SECONDS\n");
	exit(2);
}

static int
dial(void)
{
	struct timeval	tv = { SCRAPE_TIMEOUT_S, 0 };
	int		fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&scrape_dst,
	    sizeof(scrape_dst)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t	w;

	while (n > 0) {
		if ((w = send(fd, p, n, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Whether buf[0..got) holds a whole response; *status and *body (its
 * offset) are set once the header is complete, *close if the server
 * said so. Returns 1 (whole), 0 (not yet) or -1 (no Content-Length).
 */
static int
response_done(const char *buf, size_t got, int *status, size_t *body,
    int *close_it)
{
	const char	*end, *p;
	char		 hdr[8192];
	size_t		 hl;

	if ((end = memmem(buf, got, "\r\n\r\n", 4)) == NULL)
		return 0;
	hl = (size_t)(end - buf) + 4;
	if (hl >= sizeof(hdr))
		return -1;
	memcpy(hdr, buf, hl);
	hdr[hl] = '\0';
	*status = strncmp(hdr, "HTTP/1.", 7) == 0 ? atoi(hdr + 9) : 0;
	*body = hl;
	*close_it = strcasestr(hdr, "\r\nconnection: close") != NULL;
	if ((p = strcasestr(hdr, "\r\ncontent-length:")) == NULL)
		return -1;
	return got >= hl + strtoul(p + 17, NULL, 10);
}

static void
conn_close(struct conn *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	c->busy = 0;
	c->got = 0;
}

static void
conn_send(struct conn *c, const char *host)
{
	char	req[256];
	int	n;

	if (c->fd == -1 && (c->fd = dial()) != -1)
		(void)fcntl(c->fd, F_SETFL, O_NONBLOCK);
	n = snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\n"
	    "Host: %s\r\n\r\n", host);
	/* A request this small fits an empty socket buffer at once. */
	if (c->fd == -1 || send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		scrape_err++;
		conn_close(c);
		return;
	}
	c->busy = 1;
	c->got = 0;
}

/* Reads what c's socket has; counts the response once it is whole. */
static void
conn_read(struct conn *c)
{
	ssize_t	r;
	size_t	body;
	int	status, close_it, done;

	r = recv(c->fd, c->buf + c->got, SCRAPE_RESP_MAX - c->got, 0);
	if (r == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		scrape_err++;
		conn_close(c);
		return;
	}
	c->got += (size_t)r;
	done = response_done(c->buf, c->got, &status, &body, &close_it);
	if (done == 0 && c->got < SCRAPE_RESP_MAX)
		return;
	if (done == 1 && status == 200 && c->got - body >= 6 &&
	    memcmp(c->buf + body, "# HELP", 6) == 0)
		scrape_ok++;
	else
		scrape_err++;
	c->busy = 0;
	c->got = 0;
	if (done != 1 || close_it)
		conn_close(c);
}

/* The poll() timeout until the first idle connection is due, in ms. */
static int
due_ms(const struct conn *cs, int n, double now, double until)
{
	double	first = until;
	int	i;

	for (i = 0; i < n; i++)
		if (!cs[i].busy && cs[i].next < first)
			first = cs[i].next;
	return first <= now ? 0 : (int)((first - now) * 1000) + 1;
}

static void
load(const char *host, int n, double hz, double secs)
{
	static struct conn	cs[SCRAPE_CLIENTS_MAX];
	struct pollfd		pfd[SCRAPE_CLIENTS_MAX];
	double			t0 = now_s(), now, until = t0 + secs;
	int			i;

	for (i = 0; i < n; i++) {
		cs[i].fd = -1;
		/* Spread over one period, so the load is even. */
		cs[i].next = t0 + i / (hz * n);
		if ((cs[i].buf = malloc(SCRAPE_RESP_MAX)) == NULL) {
			perror("scrape: malloc");
			exit(1);
		}
	}
	while ((now = now_s()) < until) {
		for (i = 0; i < n; i++) {
			if (!cs[i].busy && cs[i].next <= now) {
				/* Late: the next one a period on from now. */
				cs[i].next = cs[i].next + 1 / hz > now ?
				    cs[i].next + 1 / hz : now + 1 / hz;
				conn_send(&cs[i], host);
			}
			pfd[i].fd = cs[i].busy ? cs[i].fd : -1;
			pfd[i].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)n, due_ms(cs, n, now, until)) == -1 &&
		    errno != EINTR) {
			perror("scrape: poll");
			exit(1);
		}
		for (i = 0; i < n; i++)
			if (cs[i].busy && (pfd[i].revents & (POLLIN |
			    POLLHUP | POLLERR)))
				conn_read(&cs[i]);
	}
	for (i = 0; i < n; i++) {
		conn_close(&cs[i]);
		free(cs[i].buf);
	}
	printf("%lu %lu %lu %.1f\n", scrape_ok + scrape_err, scrape_ok,
	    scrape_err, 100 * cpu_s() / (now_s() - t0));
}

/* One request; prints the status and the body, or "error ...". */
static void
one(const char *host, const char *method, const char *path, long pad)
{
	char	*buf, head[512];
	size_t	 got = 0, body;
	ssize_t	 r;
	int	 fd, n, status = 0, close_it;

	if (pad < 0 || pad > SCRAPE_RESP_MAX ||
	    (buf = malloc(SCRAPE_RESP_MAX)) == NULL)
		usage();
	if ((fd = dial()) == -1) {
		printf("error connect: %s\n", strerror(errno));
		free(buf);
		return;
	}
	n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: %s\r\n"
	    "Connection: close\r\n", method, path, host);
	if (n < 0 || (size_t)n >= sizeof(head) || write_all(fd, head,
	    (size_t)n) == -1 || (pad > 0 && (write_all(fd, "X-Padding: ", 11)
	    == -1 || write_all(fd, memset(buf, 'a', (size_t)pad),
	    (size_t)pad) == -1 || write_all(fd, "\r\n", 2) == -1)) ||
	    write_all(fd, "\r\n", 2) == -1) {
		printf("error write: %s\n", strerror(errno));
		close(fd);
		free(buf);
		return;
	}
	/* Connection: close, so the response ends where the stream does. */
	while (got < SCRAPE_RESP_MAX &&
	    (r = recv(fd, buf + got, SCRAPE_RESP_MAX - got, 0)) > 0)
		got += (size_t)r;
	close(fd);
	/* A HEAD response has a Content-Length but no body: header only. */
	(void)response_done(buf, got, &status, &body, &close_it);
	if (status == 0) {
		printf("error no HTTP status line (%zu bytes)\n", got);
		free(buf);
		return;
	}
	printf("%d\n", status);
	fwrite(buf + body, 1, got - body, stdout);
	free(buf);
}

/* Standard input as a request; prints the status, or "error ...". */
static void
raw(void)
{
	static char	buf[SCRAPE_RESP_MAX];
	size_t		n, got = 0, body;
	ssize_t		r;
	int		fd, status = 0, close_it;

	n = fread(buf, 1, sizeof(buf), stdin);
	if ((fd = dial()) == -1 || write_all(fd, buf, n) == -1) {
		printf("error connect or write: %s\n", strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	/* The server answers and closes, or times out (HTTPD_TIMEOUT_S). */
	while (got < sizeof(buf) &&
	    (r = recv(fd, buf + got, sizeof(buf) - got, 0)) > 0)
		got += (size_t)r;
	close(fd);
	(void)response_done(buf, got, &status, &body, &close_it);
	if (status == 0)
		printf("error no HTTP status line (%zu bytes)\n", got);
	else
		printf("%d\n", status);
}

int
main(int argc, char *argv[])
{
	int	n;

	/* A reader that stops early (| head -n 1) is not an error. */
	signal(SIGPIPE, SIG_DFL);
	if (argc < 4)
		usage();
	memset(&scrape_dst, 0, sizeof(scrape_dst));
	scrape_dst.sin_family = AF_INET;
	scrape_dst.sin_port = htons((unsigned short)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &scrape_dst.sin_addr) != 1)
		usage();
	if (strcmp(argv[1], "raw") == 0 && argc == 4)
		raw();
	else if (strcmp(argv[1], "one") == 0 && argc >= 6 && argc <= 7)
		one(argv[2], argv[4], argv[5], argc == 7 ? atol(argv[6]) : 0);
	else if (strcmp(argv[1], "load") == 0 && argc == 7) {
		n = atoi(argv[4]);
		if (n < 1 || n > SCRAPE_CLIENTS_MAX || atof(argv[5]) <= 0)
			usage();
		load(argv[2], n, atof(argv[5]), atof(argv[6]));
	} else
		usage();
	return 0;
}
