/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * modem: a userspace bottleneck and delay line between two interfaces,
 * for the autorate namespace tests (this kernel has no netem).
 *
 *   modem [-q PKTS] [-r UP] [-R DOWN] [-d UPDELAY] [-D DOWNDELAY] [-i]
 *         [-o BYTES] [-s SCHEDULE] [-c CONTROL] [-t SECONDS] IF_A IF_B
 *
 * Frames read on IF_A (AF_PACKET) travel "up" and are written to IF_B;
 * frames read on IF_B travel "down" to IF_A. Each direction is a FIFO of
 * PKTS frames (default 1000, tail drop) served at a rate (bit/s of the
 * frame plus -o BYTES each; 0 = unlimited), followed by a fixed delay line
 * (ms). -i drops ICMP and ICMPv6 echo (IPv6 neighbour discovery passes).
 *
 * Rates, delays and phases change at run time by commands, one a line,
 * read from the CONTROL FIFO (created if missing) or from the SCHEDULE
 * file, where each line starts with a time offset in seconds from start:
 *
 *   up|down|both rate RATE      e.g. "down rate 20mbit" (kbit, mbit, bit)
 *   up|down|both delay MS       one-way delay, e.g. "both delay 20"
 *   icmp drop|pass
 *   phase NAME                  ends the current phase: prints its figures
 *                               (with the rate and delay in force at its
 *                               end: send it before the changes of NAME)
 *
 * At every phase end (and at exit: SIGTERM, SIGINT, -t) it prints one line
 * per direction of key=value figures: frames in, out, dropped (FIFO full,
 * ICMP), output rate, the queue sojourn p50/p95/p99/max in ms (arrival to
 * the end of serialisation: the bloat a flow sees in that direction; add
 * the fixed delay for the one-way delay), and its own accuracy: the rate
 * achieved while the FIFO was backlogged (measured on the real send times)
 * against the rate set, and how late frames left the delay line.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MODEM_RING	16384		/* frames per direction, FIFO + line */
#define MODEM_FRAME	2048		/* largest frame carried */
#define MODEM_HIST	50000		/* sojourn histogram: 0.1 ms bins */
#define MODEM_SCHED	512
#define MODEM_LINE	256
#define NS		1000000000LL

struct frame {
	int64_t		t_arr;		/* read from the socket */
	int64_t		t_dep;		/* serialised: leaves the FIFO */
	int64_t		t_rel;		/* leaves the delay line */
	int		backlog;	/* served back to back with the last */
	uint16_t	len;
	uint8_t		data[MODEM_FRAME];
};

struct phase_stats {
	uint64_t	in, out, drop, icmp_drop, oversize, txerr;
	uint64_t	out_bytes;
	uint64_t	busy_bytes;	/* sent back to back */
	int64_t		busy_ns;
	uint64_t	late_n;
	int64_t		late_sum, late_max;
	uint64_t	served;		/* frames in hist[] */
	uint32_t	hist[MODEM_HIST + 1];
	int64_t		soj_max;
};

struct dir {
	const char	*name;
	int		 in_fd, out_fd;
	uint64_t	 rate;		/* bit/s, 0: unlimited */
	int64_t		 delay;		/* ns */
	unsigned int	 qlimit;
	uint64_t	 head_rel, head_srv, tail;	/* ring positions */
	int64_t		 link_free;	/* end of the last serialisation */
	int64_t		 last_rel;	/* delay line keeps the order */
	int64_t		 last_send;	/* real time of the last send */
	struct frame	*ring;
	struct phase_stats st;
};

struct sched {
	int64_t		 at;
	char		 cmd[MODEM_LINE];
};

static volatile sig_atomic_t	stop;
static struct dir	dirs[2];
static int		drop_icmp;
static unsigned int	overhead;
static struct sched	sched[MODEM_SCHED];
static unsigned int	nsched, next_sched;
static char		phase_name[64] = "start";
static int64_t		phase_start, t_start;

static int64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: modem [-q PKTS] [-r UP] [-R DOWN] "
	    "[-d UPDELAY_MS] [-D DOWNDELAY_MS] [-i] [-o BYTES]\n"
	    "             [-s SCHEDULE] [-c CONTROL] [-t SECONDS] "
	    "IF_A IF_B\n");
	exit(2);
}

/* "20mbit", "500kbit", "1000000" (bit/s), "0" or "unlimited". */
static int
parse_rate(const char *s, uint64_t *out)
{
	char	*end;
	double	 v;

	if (strcmp(s, "unlimited") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || v < 0 || v > 1e11)
		return -1;
	if (strcmp(end, "gbit") == 0)
		v *= 1e9;
	else if (strcmp(end, "mbit") == 0)
		v *= 1e6;
	else if (strcmp(end, "kbit") == 0)
		v *= 1e3;
	else if (strcmp(end, "bit") != 0 && *end != '\0')
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int
parse_ms(const char *s, int64_t *out)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || v < 0 || v > 10000 ||
	    (*end != '\0' && strcmp(end, "ms") != 0))
		return -1;
	*out = (int64_t)(v * 1e6);
	return 0;
}

static int
percentile_bin(const struct phase_stats *st, uint64_t n, double q)
{
	uint64_t	want, acc = 0;
	int		i;

	want = (uint64_t)((double)n * q);
	if ((double)want < (double)n * q)
		want++;
	if (want < 1)
		want = 1;
	for (i = 0; i <= MODEM_HIST; i++) {
		acc += st->hist[i];
		if (acc >= want)
			return i;
	}
	return MODEM_HIST;
}

static void
print_dir(struct dir *d, int64_t now)
{
	struct phase_stats	*st = &d->st;
	double			 secs, ach = 0, late = 0;
	uint64_t		 n = st->served;

	secs = (double)(now - phase_start) / 1e9;
	/* a few back-to-back ACKs say nothing about the rate */
	if (st->busy_ns >= NS / 10)
		ach = (double)st->busy_bytes * 8 / ((double)st->busy_ns / 1e9);
	if (st->late_n > 0)
		late = (double)st->late_sum / (double)st->late_n / 1e6;
	printf("phase=%s dir=%s t0=%.3f secs=%.3f set_mbit=%.3f delay_ms=%.3f "
	    "in=%llu out=%llu drop=%llu icmp_drop=%llu oversize=%llu "
	    "txerr=%llu out_mbit=%.3f", phase_name, d->name,
	    (double)(phase_start - t_start) / 1e9, secs,
	    (double)d->rate / 1e6, (double)d->delay / 1e6,
	    (unsigned long long)st->in, (unsigned long long)st->out,
	    (unsigned long long)st->drop, (unsigned long long)st->icmp_drop,
	    (unsigned long long)st->oversize, (unsigned long long)st->txerr,
	    secs > 0 ? (double)st->out_bytes * 8 / secs / 1e6 : 0.0);
	if (n > 0)
		printf(" soj_p50=%.1f soj_p95=%.1f soj_p99=%.1f soj_max=%.1f",
		    percentile_bin(st, n, 0.50) / 10.0,
		    percentile_bin(st, n, 0.95) / 10.0,
		    percentile_bin(st, n, 0.99) / 10.0,
		    (double)st->soj_max / 1e6);
	else
		printf(" soj_p50=nan soj_p95=nan soj_p99=nan soj_max=nan");
	printf(" busy_s=%.3f achieved_mbit=%.3f late_ms_mean=%.3f "
	    "late_ms_max=%.3f\n", (double)st->busy_ns / 1e9, ach / 1e6, late,
	    (double)st->late_max / 1e6);
}

static void
end_phase(const char *next, int64_t now)
{
	int	i;

	for (i = 0; i < 2; i++) {
		print_dir(&dirs[i], now);
		memset(&dirs[i].st, 0, sizeof(dirs[i].st));
	}
	fflush(stdout);
	snprintf(phase_name, sizeof(phase_name), "%s", next);
	phase_start = now;
}

/* One command line (see the top of the file). */
static int
command(char *line, int64_t now)
{
	char		*w[4], *save = NULL;
	int		 n = 0, i, lo = 0, hi = 1;
	uint64_t	 rate;
	int64_t		 delay;

	for (w[n] = strtok_r(line, " \t\r\n", &save); w[n] != NULL && n < 3;
	    w[n] = strtok_r(NULL, " \t\r\n", &save))
		n++;
	if (n == 0 || w[0][0] == '#')
		return 0;
	if (n == 2 && strcmp(w[0], "phase") == 0) {
		end_phase(w[1], now);
		return 0;
	}
	if (n == 2 && strcmp(w[0], "icmp") == 0) {
		drop_icmp = strcmp(w[1], "drop") == 0;
		return 0;
	}
	if (n != 3)
		return -1;
	if (strcmp(w[0], "up") == 0)
		hi = 0;
	else if (strcmp(w[0], "down") == 0)
		lo = 1;
	else if (strcmp(w[0], "both") != 0)
		return -1;
	if (strcmp(w[1], "rate") == 0 && parse_rate(w[2], &rate) == 0) {
		for (i = lo; i <= hi; i++)
			dirs[i].rate = rate;
	} else if (strcmp(w[1], "delay") == 0 && parse_ms(w[2], &delay) == 0) {
		for (i = lo; i <= hi; i++)
			dirs[i].delay = delay;
	} else
		return -1;
	return 0;
}

static void
load_schedule(const char *path)
{
	FILE	*f;
	char	 line[MODEM_LINE];
	double	 at;
	int	 off;

	if ((f = fopen(path, "r")) == NULL) {
		perror(path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lf %n", &at, &off) != 1 ||
		    nsched == MODEM_SCHED) {
			fprintf(stderr, "modem: %s: bad line: %s", path, line);
			exit(1);
		}
		sched[nsched].at = (int64_t)(at * 1e9);
		snprintf(sched[nsched].cmd, MODEM_LINE, "%s", line + off);
		nsched++;
	}
	fclose(f);
}

static void
run_schedule(int64_t now)
{
	char	line[MODEM_LINE];

	while (next_sched < nsched && t_start + sched[next_sched].at <= now) {
		/* command() cuts its line into words */
		memcpy(line, sched[next_sched].cmd, sizeof(line));
		if (command(line, now) == -1)
			fprintf(stderr, "modem: bad schedule command: %s",
			    sched[next_sched].cmd);
		next_sched++;
	}
}

static int
open_if(const char *ifname)
{
	struct sockaddr_ll	sll;
	struct packet_mreq	mr;
	int			fd, one = 1, buf = 8 << 20;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    htons(ETH_P_ALL));
	if (fd == -1) {
		perror("modem: socket(AF_PACKET)");
		exit(1);
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (sll.sll_ifindex == 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) == -1) {
		fprintf(stderr, "modem: %s: %s\n", ifname, strerror(errno));
		exit(1);
	}
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = sll.sll_ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
	    sizeof(mr)) == -1)
		perror("modem: promiscuous");
	/* our own sends must not come back as input */
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
	    sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return fd;
}

/* ICMPv4 of any type, ICMPv6 echo (128, 129) only: ND must pass. */
static int
is_icmp(const uint8_t *p, size_t len)
{
	uint16_t	type;
	size_t		ihl;

	if (len < 14)
		return 0;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == ETHERTYPE_IP && len >= 34) {
		ihl = (size_t)(p[14] & 0x0f) * 4;
		return p[23] == IPPROTO_ICMP && len > 14 + ihl;
	}
	if (type == ETHERTYPE_IPV6 && len >= 55)
		return p[20] == IPPROTO_ICMPV6 && (p[54] == 128 || p[54] == 129);
	return 0;
}

static void
enqueue(struct dir *d, const uint8_t *buf, size_t len, int64_t now)
{
	struct frame	*f;

	d->st.in++;
	if (len > MODEM_FRAME) {
		d->st.oversize++;
		return;
	}
	if (drop_icmp && is_icmp(buf, len)) {
		d->st.icmp_drop++;
		return;
	}
	if (d->tail - d->head_srv >= d->qlimit ||
	    d->tail - d->head_rel >= MODEM_RING) {
		d->st.drop++;
		return;
	}
	f = &d->ring[d->tail % MODEM_RING];
	memcpy(f->data, buf, len);
	f->len = (uint16_t)len;
	f->t_arr = now;
	d->tail++;
}

static void
receive(struct dir *d, int64_t now)
{
	uint8_t			buf[65536];
	struct sockaddr_ll	from;
	socklen_t		fl;
	ssize_t			n;
	int			i;

	for (i = 0; i < 256; i++) {
		fl = sizeof(from);
		n = recvfrom(d->in_fd, buf, sizeof(buf), MSG_TRUNC,
		    (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		enqueue(d, buf, (size_t)n, now);
	}
}

static int64_t
tx_ns(const struct dir *d, const struct frame *f)
{
	if (d->rate == 0)
		return 0;
	return (int64_t)(((double)f->len + overhead) * 8 * 1e9 /
	    (double)d->rate);
}

/*
 * Serialise frames whose time has come. A frame's departure is computed
 * (start of service + its transmission time), not taken from the loop's
 * wake-up, so the rate is exact whatever the scheduling; lateness only
 * shows where frames leave the delay line.
 */
static void
serve(struct dir *d, int64_t now)
{
	struct frame	*f;
	int64_t		 start, dep, soj;
	int		 bin;

	while (d->head_srv != d->tail) {
		f = &d->ring[d->head_srv % MODEM_RING];
		start = d->link_free > f->t_arr ? d->link_free : f->t_arr;
		dep = start + tx_ns(d, f);
		if (dep > now)
			return;
		f->backlog = d->link_free >= f->t_arr && d->rate != 0;
		f->t_dep = dep;
		f->t_rel = dep + d->delay;
		if (f->t_rel < d->last_rel)
			f->t_rel = d->last_rel;
		d->last_rel = f->t_rel;
		d->link_free = dep;
		soj = dep - f->t_arr;
		bin = (int)(soj / 100000);
		d->st.hist[bin > MODEM_HIST ? MODEM_HIST : bin]++;
		d->st.served++;
		if (soj > d->st.soj_max)
			d->st.soj_max = soj;
		d->head_srv++;
	}
}

static void
release(struct dir *d, int64_t now)
{
	struct frame	*f;
	int64_t		 late;

	while (d->head_rel != d->head_srv) {
		f = &d->ring[d->head_rel % MODEM_RING];
		if (f->t_rel > now)
			return;
		if (send(d->out_fd, f->data, f->len, 0) != (ssize_t)f->len)
			d->st.txerr++;
		late = now - f->t_rel;
		d->st.late_n++;
		d->st.late_sum += late;
		if (late > d->st.late_max)
			d->st.late_max = late;
		d->st.out++;
		d->st.out_bytes += f->len;
		if (f->backlog && d->last_send != 0) {
			d->st.busy_ns += now - d->last_send;
			d->st.busy_bytes += f->len + overhead;
		}
		d->last_send = now;
		d->head_rel++;
	}
}

/* When the loop must wake next (-1: nothing scheduled). */
static int64_t
next_event(int64_t end)
{
	int64_t		 t = end, c;
	struct dir	*d;
	struct frame	*f;
	int		 i;

	for (i = 0; i < 2; i++) {
		d = &dirs[i];
		if (d->head_srv != d->tail) {
			f = &d->ring[d->head_srv % MODEM_RING];
			c = (d->link_free > f->t_arr ? d->link_free :
			    f->t_arr) + tx_ns(d, f);
			if (t < 0 || c < t)
				t = c;
		}
		if (d->head_rel != d->head_srv) {
			c = d->ring[d->head_rel % MODEM_RING].t_rel;
			if (t < 0 || c < t)
				t = c;
		}
	}
	if (next_sched < nsched) {
		c = t_start + sched[next_sched].at;
		if (t < 0 || c < t)
			t = c;
	}
	return t;
}

static void
control_read(int fd, int64_t now)
{
	static char	acc[4096];
	static size_t	used;
	char		*nl;
	ssize_t		 n;

	n = read(fd, acc + used, sizeof(acc) - 1 - used);
	if (n <= 0)
		return;
	used += (size_t)n;
	acc[used] = '\0';
	while ((nl = strchr(acc, '\n')) != NULL) {
		*nl = '\0';
		if (command(acc, now) == -1)
			fprintf(stderr, "modem: bad command: %s\n", acc);
		used -= (size_t)(nl + 1 - acc);
		memmove(acc, nl + 1, used + 1);
	}
	if (used == sizeof(acc) - 1)
		used = 0;	/* a line too long: forget it */
}

static int
control_open(const char *path)
{
	int	fd;

	if (mkfifo(path, 0600) == -1 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	/* read-write: no end of file when a writer goes */
	if ((fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) == -1) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void
loop(int ctl, int64_t end)
{
	struct pollfd	pfd[3];
	struct timespec	ts, *tp;
	int64_t		now, t;
	int		i, n = 2;

	pfd[0].fd = dirs[0].in_fd;
	pfd[1].fd = dirs[1].in_fd;
	pfd[2].fd = ctl;
	if (ctl != -1)
		n = 3;
	for (i = 0; i < 3; i++)
		pfd[i].events = POLLIN;
	while (!stop) {
		now = now_ns();
		if (end > 0 && now >= end)
			break;
		t = next_event(end);
		tp = NULL;
		if (t >= 0) {
			t = t > now ? t - now : 0;
			ts.tv_sec = t / NS;
			ts.tv_nsec = t % NS;
			tp = &ts;
		}
		if (ppoll(pfd, (nfds_t)n, tp, NULL) == -1 && errno != EINTR)
			break;
		now = now_ns();
		for (i = 0; i < 2; i++)
			if (pfd[i].revents & POLLIN)
				receive(&dirs[i], now);
		if (n == 3 && (pfd[2].revents & POLLIN))
			control_read(ctl, now);
		run_schedule(now);
		for (i = 0; i < 2; i++) {
			serve(&dirs[i], now);
			release(&dirs[i], now);
		}
	}
}

struct opts {
	const char	*ctlpath;
	double		 secs;
	uint64_t	 q;
};

static void
options(int argc, char *argv[], struct opts *o)
{
	int	c;

	while ((c = getopt(argc, argv, "q:r:R:d:D:io:s:c:t:")) != -1) {
		switch (c) {
		case 'q':
			o->q = strtoull(optarg, NULL, 10);
			if (o->q < 1 || o->q >= MODEM_RING)
				usage();
			break;
		case 'r':
		case 'R':
			if (parse_rate(optarg, &dirs[c == 'R'].rate) == -1)
				usage();
			break;
		case 'd':
		case 'D':
			if (parse_ms(optarg, &dirs[c == 'D'].delay) == -1)
				usage();
			break;
		case 'i':
			drop_icmp = 1;
			break;
		case 'o':
			overhead = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			load_schedule(optarg);
			break;
		case 'c':
			o->ctlpath = optarg;
			break;
		case 't':
			o->secs = strtod(optarg, NULL);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
}

/* Up reads a and writes b, down the other way. */
static void
setup_dirs(const char *ifa, const char *ifb, uint64_t q)
{
	int	a, b, i;

	a = open_if(ifa);
	b = open_if(ifb);
	dirs[0].name = "up";
	dirs[0].in_fd = a;
	dirs[0].out_fd = b;
	dirs[1].name = "down";
	dirs[1].in_fd = b;
	dirs[1].out_fd = a;
	for (i = 0; i < 2; i++) {
		dirs[i].qlimit = (unsigned int)q;
		dirs[i].ring = calloc(MODEM_RING, sizeof(struct frame));
		if (dirs[i].ring == NULL) {
			perror("modem: calloc");
			exit(1);
		}
	}
}

int
main(int argc, char *argv[])
{
	struct opts		o = { NULL, 0, 1000 };
	struct sigaction	sa;
	int			ctl = -1;

	options(argc, argv, &o);
	setup_dirs(argv[optind], argv[optind + 1], o.q);
	if (o.ctlpath != NULL)
		ctl = control_open(o.ctlpath);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	t_start = phase_start = now_ns();
	printf("modem: %s <-> %s, fifo %llu frames\n", argv[optind],
	    argv[optind + 1], (unsigned long long)o.q);
	fflush(stdout);
	loop(ctl, o.secs > 0 ? t_start + (int64_t)(o.secs * 1e9) : -1);
	end_phase("end", now_ns());
	return 0;
}
