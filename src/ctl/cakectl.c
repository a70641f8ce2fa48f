/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * cakectl.c: the command-line client of caked's control socket (see
 * cakectl(8)). It parses the command (parser.c), sends one request line,
 * reads one JSON reply and prints it as text (render.c) or as it is (-j).
 *
 * It must stay a thin client: it never links the engine, and all checks of
 * CAKE keywords are the daemon's. Every failure is one line on stderr and
 * a distinct exit status (enum ctl_exit).
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "common/metrics.h"
#include "ctl/parser.h"
#include "ctl/render.h"
#include "ctl/tcjson.h"
#include "ctl/top.h"

#define CAKECTL_TIMEOUT_MS	10000	/* for the daemon's reply */
#define CAKECTL_WATCH_NS	1000000000L

struct cakectl {
	const char		*path;
	int			 json;
	long			 count;		/* watch: 0 = until interrupted */
	int			 count_set;	/* -n given (hosts, flows: rows) */
	int			 fd;
	struct parser_result	 cmd;
	char			 reply[CTL_REPLY_MAX + 1];
	size_t			 reply_len;
};

static volatile sig_atomic_t	cakectl_stop;

static void __attribute__((noreturn, format(printf, 2, 3)))
cakectl_die(int status, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "cakectl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(status);
}

#define CAKECTL_USAGE \
	"usage: cakectl [-hjV] [-n count] [-s socket] command " \
	"[argument ...]\n" \
	"       (options may also follow the command: cakectl stats -j)\n" \
	"commands: flows [upload | download], hosts [upload | download],\n" \
	"          metrics [upload | download], ping, reload,\n" \
	"          set upload | download keyword ...,\n" \
	"          stats [upload | download] [--tc],\n" \
	"          top [upload | download], version,\n" \
	"          watch [upload | download]\n" \
	"-n count: rows of hosts and flows, refreshes of top and watch\n"

static void __attribute__((noreturn))
usage(int status)
{
	fputs(CAKECTL_USAGE, status == CTL_EXIT_OK ? stdout : stderr);
	exit(status);
}

static void __attribute__((noreturn))
cakectl_version(void)
{
	printf("cakectl %s\n", CAKED_VERSION);
	exit(CTL_EXIT_OK);
}

static void
cakectl_connect(struct cakectl *c)
{
	struct sockaddr_un	sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(c->path) >= sizeof(sun.sun_path))
		cakectl_die(CTL_EXIT_USAGE, "%s: socket path too long",
		    c->path);
	memcpy(sun.sun_path, c->path, strlen(c->path) + 1);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		cakectl_die(CTL_EXIT_NODAEMON, "socket: %s", strerror(errno));
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		return;
	if (errno == EACCES || errno == EPERM)
		cakectl_die(CTL_EXIT_DENIED, "%s: permission denied", c->path);
	if (errno == ENOENT || errno == ECONNREFUSED)
		cakectl_die(CTL_EXIT_NODAEMON, "no daemon is running on %s",
		    c->path);
	cakectl_die(CTL_EXIT_NODAEMON, "%s: %s", c->path, strerror(errno));
}

/* Waits for fd to be ready for events, at most CAKECTL_TIMEOUT_MS. */
static void
cakectl_wait(struct cakectl *c, short events)
{
	struct pollfd	pfd = { .fd = c->fd, .events = events };
	int		n;

	while ((n = poll(&pfd, 1, CAKECTL_TIMEOUT_MS)) == -1 && errno == EINTR)
		;
	if (n == 0)
		cakectl_die(CTL_EXIT_PROTOCOL, "no reply from the daemon "
		    "within %d s", CAKECTL_TIMEOUT_MS / 1000);
	if (n == -1)
		cakectl_die(CTL_EXIT_PROTOCOL, "poll: %s", strerror(errno));
}

static void
cakectl_send(struct cakectl *c, const char *p)
{
	size_t		 left = strlen(p);
	ssize_t		 n;

	while (left > 0) {
		cakectl_wait(c, POLLOUT);
		n = send(c->fd, p, left, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			cakectl_die(CTL_EXIT_PROTOCOL, "send: %s",
			    strerror(errno));
		p += n;
		left -= (size_t)n;
	}
}

/* Reads one reply line into c->reply (NUL-terminated, "\n" kept). */
static void
cakectl_receive(struct cakectl *c)
{
	ssize_t	n;

	c->reply_len = 0;
	for (;;) {
		if (c->reply_len == CTL_REPLY_MAX)
			cakectl_die(CTL_EXIT_PROTOCOL, "reply longer than %d "
			    "bytes", CTL_REPLY_MAX);
		cakectl_wait(c, POLLIN);
		n = read(c->fd, c->reply + c->reply_len,
		    CTL_REPLY_MAX - c->reply_len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			cakectl_die(CTL_EXIT_PROTOCOL, "read: %s",
			    strerror(errno));
		if (n == 0)
			cakectl_die(CTL_EXIT_PROTOCOL, "the daemon closed the "
			    "connection");
		c->reply_len += (size_t)n;
		c->reply[c->reply_len] = '\0';
		if (memchr(c->reply, '\n', c->reply_len) != NULL)
			return;
	}
}

/* Exits with the status an error reply calls for (v is freed first). */
static void
cakectl_refused(struct json_value *v)
{
	const char	*code = json_get_str(v, CTL_KEY_CODE);
	const char	*msg = json_get_str(v, CTL_KEY_ERROR);
	char		 line[512];
	int		 status = CTL_EXIT_REFUSED;

	if (code != NULL && strcmp(code, CTL_CODE_DENIED) == 0)
		status = CTL_EXIT_DENIED;
	else if (code != NULL && (strcmp(code, CTL_CODE_UNKNOWN) == 0 ||
	    strcmp(code, CTL_CODE_USAGE) == 0))
		status = CTL_EXIT_USAGE;
	(void)snprintf(line, sizeof(line), "%s",
	    msg != NULL ? msg : "request refused");
	json_free(v);
	cakectl_die(status, "%s", line);
}

/* Prints a successful reply; -1 if it lacks a field. */
static int
cakectl_print(struct cakectl *c, const struct json_value *v)
{
	const char	*s;
	int		 rc = 0;

	switch (c->cmd.action) {
	case PARSER_STATS:
	case PARSER_WATCH:
		rc = render_stats(stdout, v);
		break;
	case PARSER_METRICS:
		rc = metrics_render(stdout, v);
		break;
	case PARSER_HOSTS:
		rc = render_hosts(stdout, v);
		break;
	case PARSER_FLOWS:
		rc = render_flows(stdout, v);
		break;
	case PARSER_VERSION:	/* "cakectl X" is printed already */
		s = json_get_str(v, CTL_KEY_DAEMON_VERSION);
		printf("caked %s\n", s != NULL ? s : "?");
		break;
	case PARSER_SET:
		s = json_get_str(v, CTL_KEY_OPTIONS);
		printf("%s: %s\n", c->cmd.dir, s != NULL ? s : "?");
		break;
	default:
		s = json_get_str(v, CTL_KEY_MESSAGE);
		printf("%s\n", s != NULL ? s : "ok");
		break;
	}
	return rc;
}

/* One request and its reply, printed. */
static void
cakectl_exchange(struct cakectl *c)
{
	struct json_value	*v;
	char			 err[128];
	int			 rc = 0;

	cakectl_send(c, c->cmd.request);
	cakectl_receive(c);
	if ((v = json_parse(c->reply, c->reply_len, err, sizeof(err))) == NULL)
		cakectl_die(CTL_EXIT_PROTOCOL, "bad reply: %s", err);
	if (!json_get_bool(v, CTL_KEY_OK, false))
		cakectl_refused(v);
	if (c->json && c->cmd.tc)
		rc = tcjson_render(stdout, v);
	else if (c->json)
		fwrite(c->reply, 1, c->reply_len, stdout);
	else
		rc = cakectl_print(c, v);
	json_free(v);
	if (rc == -1)
		cakectl_die(CTL_EXIT_PROTOCOL, "incomplete reply from the "
		    "daemon");
	if (fflush(stdout) == EOF)
		cakectl_die(CTL_EXIT_USAGE, "stdout: %s", strerror(errno));
}

/* top's query: one request, its reply parsed (refusals exit). */
static struct json_value *
cakectl_query(void *arg, const char *request)
{
	struct cakectl		*c = arg;
	struct json_value	*v;
	char			 err[128];

	cakectl_send(c, request);
	cakectl_receive(c);
	if ((v = json_parse(c->reply, c->reply_len, err, sizeof(err))) == NULL)
		cakectl_die(CTL_EXIT_PROTOCOL, "bad reply: %s", err);
	if (!json_get_bool(v, CTL_KEY_OK, false))
		cakectl_refused(v);
	return v;
}

static void
cakectl_on_signal(int sig)
{
	(void)sig;
	cakectl_stop = 1;
}

/* ts += CAKECTL_WATCH_NS */
static void
cakectl_tick(struct timespec *ts)
{
	ts->tv_nsec += CAKECTL_WATCH_NS % 1000000000L;
	ts->tv_sec += CAKECTL_WATCH_NS / 1000000000L + ts->tv_nsec /
	    1000000000L;
	ts->tv_nsec %= 1000000000L;
}

static void
cakectl_watch(struct cakectl *c)
{
	struct sigaction	sa;
	struct timespec		ts;
	/* -j: one compact reply per line for a log, never screen codes. */
	int			tty = isatty(STDOUT_FILENO) && !c->json;
	long			n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cakectl_on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	for (n = 0; !cakectl_stop && (c->count == 0 || n < c->count); n++) {
		/*
		 * Absolute deadlines a second apart, so that the time the
		 * daemon takes to answer does not stretch the interval (a
		 * relative tv_nsec of 10^9 was refused with EINVAL, and watch
		 * then spun without waiting).
		 */
		if (n > 0) {
			cakectl_tick(&ts);
			if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			    &ts, NULL) != 0)
				continue;	/* interrupted: cakectl_stop */
		}
		if (tty)
			printf("\033[H\033[2J");	/* home, clear */
		cakectl_exchange(c);
	}
}

/* Applies option ch (with arg, for -n and -s). */
static void
cakectl_option(struct cakectl *c, int ch, const char *arg)
{
	long	 v;
	char	*end;

	switch (ch) {
	case 'h':
		usage(CTL_EXIT_OK);
	case 'j':
		c->json = 1;
		break;
	case 'n':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno != 0 || *end != '\0' || end == arg || v < 0 ||
		    v > INT_MAX)
			cakectl_die(CTL_EXIT_USAGE, "-n: not a count: '%s'",
			    arg);
		c->count = v;
		c->count_set = 1;
		break;
	case 's':
		c->path = arg;
		break;
	case 'V':
		cakectl_version();
	default:
		usage(CTL_EXIT_USAGE);
	}
}

/*
 * Takes the options that follow the command out of argv (cakectl stats
 * -j); returns the number of words left. After "--", and for the
 * keywords of set (overhead -4), a word that is not one of cakectl's
 * options is passed on as it is.
 */
static int
cakectl_late_options(struct cakectl *c, int argc, char *argv[])
{
	const char	*w;
	int		 i, n = 1, words = 0;
	int		 set = strcmp(argv[0], CTL_CMD_SET) == 0;

	for (i = 1; i < argc; i++) {
		w = argv[i];
		if (words || w[0] != '-' || w[1] == '\0') {
			argv[n++] = argv[i];
			continue;
		}
		if (strcmp(w, "--") == 0)
			words = 1;
		else if (strcmp(w, "--help") == 0 || strcmp(w, "-h") == 0)
			usage(CTL_EXIT_OK);
		else if (strcmp(w, "--version") == 0 || strcmp(w, "-V") == 0)
			cakectl_version();
		else if (strcmp(w, "-j") == 0)
			c->json = 1;
		else if ((w[1] == 'n' || w[1] == 's') && w[2] != '\0')
			cakectl_option(c, w[1], w + 2);
		else if ((w[1] == 'n' || w[1] == 's') && i + 1 < argc) {
			cakectl_option(c, w[1], argv[i + 1]);
			i++;
		} else if (w[1] == 'n' || w[1] == 's')
			cakectl_die(CTL_EXIT_USAGE, "-%c: missing argument",
			    w[1]);
		else if (set || strcmp(w, "--tc") == 0)
			argv[n++] = argv[i];	/* the parser's to judge */
		else
			cakectl_die(CTL_EXIT_USAGE, "unknown option '%.32s' "
			    "(cakectl's options are -h, -j, -n count, "
			    "-s socket and -V, before or after the command)",
			    w);
	}
	return n;
}

static void
cakectl_top(struct cakectl *c)
{
	struct top_opts		o;
	struct sigaction	sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cakectl_on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	memset(&o, 0, sizeof(o));
	o.dir = c->cmd.dir;
	o.count = c->count;
	o.tty = isatty(STDOUT_FILENO);
	o.keys = o.tty && isatty(STDIN_FILENO);
	o.stop = (volatile int *)&cakectl_stop;
	if (top_run(stdout, &o, cakectl_query, c) == -1)
		cakectl_die(CTL_EXIT_PROTOCOL, "incomplete reply from the "
		    "daemon");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct cakectl	 c;
	char			 err[256];
	int			 ch;

	c.path = CTL_DEFAULT_PATH;
	while ((ch = getopt_long(argc, argv, "+hjn:s:V", longopts, NULL)) !=
	    -1)
		cakectl_option(&c, ch, optarg);
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(CTL_EXIT_USAGE);
	argc = cakectl_late_options(&c, argc, argv);
	if (parser_parse(argc, argv, &c.cmd, err, sizeof(err)) == -1)
		cakectl_die(CTL_EXIT_USAGE, "%s", err);
	/* An option the command would ignore is a mistake. */
	if (c.count_set && c.cmd.action != PARSER_WATCH &&
	    c.cmd.action != PARSER_TOP &&
	    parser_top(&c.cmd, c.count, err, sizeof(err)) == -1)
		cakectl_die(CTL_EXIT_USAGE, "%s", err);
	if (c.cmd.action == PARSER_VERSION && !c.json) {
		/* The client's version, whether or not a daemon answers. */
		printf("cakectl %s\n", CAKED_VERSION);
		(void)fflush(stdout);
	}
	cakectl_connect(&c);
	if (c.cmd.action == PARSER_WATCH)
		cakectl_watch(&c);
	else if (c.cmd.action == PARSER_TOP)
		cakectl_top(&c);
	else
		cakectl_exchange(&c);
	close(c.fd);
	return CTL_EXIT_OK;
}
