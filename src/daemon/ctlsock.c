/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ctlsock.c: the control socket adapter. It owns the listening Unix
 * socket and its clients: non-blocking accept with a client cap and a
 * pause on EMFILE, SO_PEERCRED/SO_PEERGROUPS to decide who may change
 * state, line framing with a length cap, one reply in flight per client
 * (a client that does not read stalls only itself and is dropped after
 * CTL_WRITE_TIMEOUT_S), a deadline for each request (a client sending a
 * byte now and then cannot hold a slot), at most CTL_CLIENTS_PER_UID
 * clients per uid that is not root or admin and CTL_CLIENTS_ADMIN slots
 * they can never take (so root's cakectl always gets in), an idle
 * timeout, and at most CTL_BURST_MAX
 * requests per wake-up so that packets never wait behind a chatty client
 * (doc/design.md, "Control socket").
 *
 * It must not interpret requests (ctlcmd does) or touch the engine; it
 * never blocks, and no input can make it allocate more than
 * CTL_CLIENTS_MAX fixed-size client records.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "caked/ctl.h"
#include "daemon/ctlcmd.h"
#include "daemon/ctlsock.h"
#include "daemon/log.h"
#include "daemon/timer.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS	59	/* Linux >= 4.13 */
#endif

struct ctlsock_client {
	struct ctlsock		*cs;
	int			 fd;
	struct event		*ev_read;
	struct event		*ev_write;
	struct event		*ev_timeout;
	struct ctlcmd_peer	 peer;
	bool			 closing;	/* close once out is sent */
	bool			 eof;		/* the peer sent all it will */
	uint64_t		 req_start_ns;	/* first byte of a request */
	size_t			 in_len;
	size_t			 out_off;
	size_t			 out_len;	/* 0: nothing in flight */
	char			 in[CTL_LINE_MAX];
	char			 out[CTL_REPLY_MAX];
};

struct ctlsock {
	struct event_base	*base;
	struct ctlsock_params	 params;
	struct ctlcmd_ops	 ops;
	char			 path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int			 fd;
	struct event		*ev_accept;
	struct event		*ev_pause;
	struct ctlsock_client	*clients[CTL_CLIENTS_MAX];
	struct ctlcmd_counters	 count;
	struct log_rate		 denied_rl;
};

static void	ctlsock_serve(struct ctlsock_client *);

static void
ctlsock_client_free(struct ctlsock_client *cl)
{
	struct ctlsock	*cs = cl->cs;
	size_t		 i;

	for (i = 0; i < CTL_CLIENTS_MAX; i++)
		if (cs->clients[i] == cl)
			cs->clients[i] = NULL;
	cs->count.clients--;
	if (cl->ev_read != NULL)
		event_free(cl->ev_read);
	if (cl->ev_write != NULL)
		event_free(cl->ev_write);
	if (cl->ev_timeout != NULL)
		event_free(cl->ev_timeout);
	close(cl->fd);
	free(cl);
}

/*
 * The write timeout while a reply is in flight; else the request deadline
 * while part of a request is buffered (counted from its first byte, not
 * renewed by more bytes); else the idle timeout.
 */
static void
ctlsock_arm_timeout(struct ctlsock_client *cl)
{
	struct timeval	tv = { CTL_IDLE_S, 0 };
	uint64_t	now_ns, end_ns;

	if (cl->in_len == 0)
		cl->req_start_ns = 0;
	if (cl->out_len > 0)
		tv.tv_sec = CTL_WRITE_TIMEOUT_S;
	else if (cl->in_len > 0) {
		now_ns = timer_now_ns();
		if (cl->req_start_ns == 0)
			cl->req_start_ns = now_ns;
		end_ns = cl->req_start_ns + CTL_REQUEST_S * 1000000000ULL;
		end_ns = end_ns > now_ns ? end_ns - now_ns : 0;
		tv.tv_sec = (time_t)(end_ns / 1000000000ULL);
		tv.tv_usec = (suseconds_t)(end_ns % 1000000000ULL / 1000);
	}
	(void)event_add(cl->ev_timeout, &tv);
}

static void
ctlsock_on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct ctlsock_client	*cl = arg;

	(void)fd;
	(void)what;
	if (cl->out_len > 0) {
		cl->cs->count.slow_closed++;
		log_debug("control: pid %d did not read its reply, closed",
		    (int)cl->peer.pid);
	} else if (cl->in_len > 0) {
		cl->cs->count.slow_closed++;
		log_rate_warnx(&cl->cs->denied_rl, timer_now_ns(), "control: "
		    "uid %u pid %d: request not complete within %ds, closed",
		    (unsigned int)cl->peer.uid, (int)cl->peer.pid,
		    CTL_REQUEST_S);
	} else
		cl->cs->count.idle_closed++;
	ctlsock_client_free(cl);
}

/* Sends what it can. Returns 0, or -1 if the client was freed. */
static int
ctlsock_flush(struct ctlsock_client *cl)
{
	ssize_t	n;

	while (cl->out_off < cl->out_len) {
		n = send(cl->fd, cl->out + cl->out_off,
		    cl->out_len - cl->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			(void)event_del(cl->ev_read);
			(void)event_add(cl->ev_write, NULL);
			/* Refused whole: the idle timeout still runs. */
			if (cl->out_off == 0)
				ctlsock_arm_timeout(cl);
			return 0;
		}
		if (n == -1) {		/* EPIPE, ECONNRESET: gone */
			ctlsock_client_free(cl);
			return -1;
		}
		cl->out_off += (size_t)n;
		ctlsock_arm_timeout(cl);
	}
	cl->out_off = cl->out_len = 0;
	if (cl->closing) {
		ctlsock_client_free(cl);
		return -1;
	}
	ctlsock_arm_timeout(cl);
	return 0;
}

static void
ctlsock_on_write(evutil_socket_t fd, short what, void *arg)
{
	struct ctlsock_client	*cl = arg;

	(void)fd;
	(void)what;
	if (ctlsock_flush(cl) == -1 || cl->out_len > 0)
		return;
	if (!cl->eof)
		(void)event_add(cl->ev_read, NULL);
	ctlsock_serve(cl);		/* lines that waited behind the reply */
}

static void
ctlsock_log(struct ctlsock *cs, const struct ctlcmd_peer *peer,
    const char *line, int result)
{
	if (result == CTLCMD_CHANGED)
		log_info("control: uid %u pid %d: %s", (unsigned int)peer->uid,
		    (int)peer->pid, line);
	else if (result == CTLCMD_DENIED) {
		cs->count.denied++;
		log_rate_warnx(&cs->denied_rl, timer_now_ns(), "control: "
		    "uid %u pid %d: denied: %.64s", (unsigned int)peer->uid,
		    (int)peer->pid, line);
	}
}

/* Answers one complete line of in[0..len), which ends in "\n". */
static void
ctlsock_answer(struct ctlsock_client *cl, size_t len)
{
	struct ctlsock	*cs = cl->cs;
	int		 result, n;

	cl->in[len - 1] = '\0';
	cs->count.requests++;
	if (memchr(cl->in, '\0', len - 1) != NULL) {
		n = ctlcmd_error(&cs->ops, CTL_CODE_USAGE, "request contains "
		    "bytes other than printable ASCII", cl->out,
		    sizeof(cl->out));
		cl->out_len = n == -1 ? 0 : (size_t)n;
	} else {
		result = ctlcmd_handle(&cs->ops, &cl->peer, cl->in, cl->out,
		    sizeof(cl->out), &cl->out_len);
		ctlsock_log(cs, &cl->peer, cl->in, result);
	}
	memmove(cl->in, cl->in + len, cl->in_len - len);
	cl->in_len -= len;
	cl->req_start_ns = 0;	/* the next request's time starts now */
}

/* Answers buffered lines while no reply is in flight, CTL_BURST_MAX at most. */
static void
ctlsock_serve(struct ctlsock_client *cl)
{
	char	*nl;
	int	 served = 0, n;

	while (cl->out_len == 0 && !cl->closing) {
		nl = memchr(cl->in, '\n', cl->in_len);
		if (nl == NULL && cl->in_len < sizeof(cl->in)) {
			if (cl->eof)		/* all answered */
				ctlsock_client_free(cl);
			return;			/* else wait for more */
		}
		if (served++ == CTL_BURST_MAX) {
			/* Let the packet path run; come back next round. */
			event_active(cl->ev_read, EV_READ, 0);
			return;
		}
		if (nl == NULL) {
			cl->cs->count.too_long++;
			n = ctlcmd_error(&cl->cs->ops, CTL_CODE_TOOLONG,
			    "request longer than 4095 bytes", cl->out,
			    sizeof(cl->out));
			cl->out_len = n == -1 ? 0 : (size_t)n;
			cl->closing = true;
			(void)event_del(cl->ev_read);
		} else
			ctlsock_answer(cl, (size_t)(nl - cl->in) + 1);
		if (ctlsock_flush(cl) == -1)
			return;
	}
}

static void
ctlsock_on_read(evutil_socket_t fd, short what, void *arg)
{
	struct ctlsock_client	*cl = arg;
	ssize_t			 n;

	(void)what;
	if (!cl->eof && cl->in_len < sizeof(cl->in)) {
		n = read(fd, cl->in + cl->in_len, sizeof(cl->in) - cl->in_len);
		if (n > 0)
			cl->in_len += (size_t)n;
		else if (n == 0) {
			/* Done sending: answer what came, then close. */
			cl->eof = true;
			(void)event_del(cl->ev_read);
		} else if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			ctlsock_client_free(cl);
			return;
		}
	}
	ctlsock_arm_timeout(cl);
	ctlsock_serve(cl);
}

/*
 * Whether the peer is root, caked's own user or in the admin group
 * (primary or not). caked's own user may already signal it (SIGHUP
 * reloads), and it is who systemd's ExecReload= runs `cakectl reload` as.
 */
static bool
ctlsock_is_admin(const struct ctlsock *cs, int fd, const struct ucred *cr)
{
	gid_t		groups[CTLSOCK_GROUPS_MAX];
	socklen_t	len = sizeof(groups);
	size_t		i;

	if (cr->uid == 0 || cr->uid == geteuid())
		return true;
	if (!cs->params.has_admin)
		return false;
	if (cr->gid == cs->params.admin_gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == -1) {
		log_debug("control: SO_PEERGROUPS of pid %d: %s", (int)cr->pid,
		    strerror(errno));
		return false;
	}
	for (i = 0; i < len / sizeof(groups[0]); i++)
		if (groups[i] == cs->params.admin_gid)
			return true;
	return false;
}

/*
 * A free slot for a client of uid, or CTL_CLIENTS_MAX with the reason in
 * why: root and admin may take any slot; another uid at most
 * CTL_CLIENTS_PER_UID, and never the last CTL_CLIENTS_ADMIN free ones.
 */
static size_t
ctlsock_slot(const struct ctlsock *cs, uid_t uid, bool admin, char *why,
    size_t len)
{
	size_t	i, slot = CTL_CLIENTS_MAX, free_slots = 0, same_uid = 0;

	for (i = 0; i < CTL_CLIENTS_MAX; i++) {
		if (cs->clients[i] == NULL) {
			free_slots++;
			if (slot == CTL_CLIENTS_MAX)
				slot = i;
		} else if (cs->clients[i]->peer.uid == uid &&
		    !cs->clients[i]->peer.admin)
			same_uid++;
	}
	if (slot == CTL_CLIENTS_MAX)
		(void)snprintf(why, len, "too many control clients");
	else if (admin)
		return slot;
	else if (same_uid >= CTL_CLIENTS_PER_UID) {
		(void)snprintf(why, len, "too many control clients of uid %u "
		    "(at most %d)", (unsigned int)uid, CTL_CLIENTS_PER_UID);
		slot = CTL_CLIENTS_MAX;
	} else if (free_slots <= CTL_CLIENTS_ADMIN) {
		(void)snprintf(why, len, "too many control clients (the last "
		    "%d kept for root and admin)", CTL_CLIENTS_ADMIN);
		slot = CTL_CLIENTS_MAX;
	}
	return slot;
}

/* Refuses fd with a busy error (best effort: it is not read) and closes. */
static void
ctlsock_refuse(struct ctlsock *cs, int fd, const char *why)
{
	char	busy[320];	/* why (160) and a stamped head */
	int	n;

	cs->count.refused_busy++;
	n = ctlcmd_error(&cs->ops, CTL_CODE_BUSY, why, busy, sizeof(busy));
	if (n > 0)
		(void)send(fd, busy, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

/* Takes a new connection fd into a free slot, if its uid may have one. */
static void
ctlsock_add_client(struct ctlsock *cs, int fd)
{
	struct ctlsock_client	*cl;
	struct ucred		 cr;
	socklen_t		 len = sizeof(cr);
	size_t			 slot;
	bool			 admin;
	char			 why[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1) {
		log_warn("control: accept");
		close(fd);
		return;
	}
	admin = ctlsock_is_admin(cs, fd, &cr);
	if ((slot = ctlsock_slot(cs, cr.uid, admin, why, sizeof(why))) ==
	    CTL_CLIENTS_MAX) {
		ctlsock_refuse(cs, fd, why);
		return;
	}
	if ((cl = calloc(1, sizeof(*cl))) == NULL) {
		log_warn("control: accept");
		close(fd);
		return;
	}
	cl->cs = cs;
	cl->fd = fd;
	cl->peer.uid = cr.uid;
	cl->peer.pid = cr.pid;
	cl->peer.admin = admin;
	cs->clients[slot] = cl;
	cs->count.clients++;
	cs->count.accepted++;
	cl->ev_read = event_new(cs->base, fd, EV_READ | EV_PERSIST,
	    ctlsock_on_read, cl);
	cl->ev_write = event_new(cs->base, fd, EV_WRITE, ctlsock_on_write, cl);
	cl->ev_timeout = evtimer_new(cs->base, ctlsock_on_timeout, cl);
	if (cl->ev_read == NULL || cl->ev_write == NULL ||
	    cl->ev_timeout == NULL || event_add(cl->ev_read, NULL) == -1) {
		log_warnx("control: cannot watch a client");
		ctlsock_client_free(cl);
		return;
	}
	ctlsock_arm_timeout(cl);
}

static void
ctlsock_on_pause_end(evutil_socket_t fd, short what, void *arg)
{
	struct ctlsock	*cs = arg;

	(void)fd;
	(void)what;
	(void)event_add(cs->ev_accept, NULL);
}

static void
ctlsock_on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct ctlsock	*cs = arg;
	struct timeval	 tv = { 0, CTL_ACCEPT_PAUSE_MS * 1000 };
	int		 fd, i;

	(void)what;
	for (i = 0; i < CTLSOCK_ACCEPT_BURST; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd != -1) {
			ctlsock_add_client(cs, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* As tmux and iked: stop accepting for a while. */
			log_warn("control: accept, pausing");
			cs->count.accept_pauses++;
			(void)event_del(cs->ev_accept);
			(void)evtimer_add(cs->ev_pause, &tv);
		} else if (errno != EAGAIN && errno != EWOULDBLOCK)
			log_warn("control: accept");
		return;
	}
}

/*
 * Creates a missing parent directory (0750, as systemd's RuntimeDirectory)
 * and refuses a world-writable one unless it is sticky (as /tmp).
 */
static int
ctlsock_check_dir(const char *path, gid_t group)
{
	char		buf[PATH_MAX], *dir;
	struct stat	st;

	if (strlen(path) >= sizeof(buf))
		return -1;
	memcpy(buf, path, strlen(path) + 1);
	dir = dirname(buf);
	if (stat(dir, &st) == -1 && errno == ENOENT) {
		if (mkdir(dir, 0750) == -1 || (group != (gid_t)-1 &&
		    chown(dir, (uid_t)-1, group) == -1)) {
			log_warn("control: mkdir %s", dir);
			return -1;
		}
		log_info("control: created %s", dir);
		return 0;
	}
	if (stat(dir, &st) == -1) {
		log_warn("control: %s", dir);
		return -1;
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		log_warnx("control: %s is world-writable", dir);
		return -1;
	}
	return 0;
}

/* Leaves the path free: 0, or -1 if it is in use or not a socket. */
static int
ctlsock_clear_stale(const struct sockaddr_un *sun)
{
	struct stat	st;
	int		fd, rc;

	if (lstat(sun->sun_path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("control: %s exists and is not a socket",
		    sun->sun_path);
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rc == 0) {
		log_warnx("another caked is running on %s", sun->sun_path);
		return -1;
	}
	if (errno != ECONNREFUSED) {
		log_warn("control: %s", sun->sun_path);
		return -1;
	}
	log_info("control: removing stale socket %s", sun->sun_path);
	return unlink(sun->sun_path);
}

static int
ctlsock_listen(struct ctlsock *cs, const struct sockaddr_un *sun)
{
	mode_t	old;
	int	rc;

	cs->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (cs->fd == -1) {
		log_warn("control: socket");
		return -1;
	}
	old = umask(0117);		/* never wider than 0660, even briefly */
	rc = bind(cs->fd, (const struct sockaddr *)sun, sizeof(*sun));
	(void)umask(old);
	if (rc == -1) {
		log_warn("control: bind %s", sun->sun_path);
		return -1;
	}
	memcpy(cs->path, sun->sun_path, sizeof(cs->path));
	if (chmod(sun->sun_path, CTL_SOCKET_MODE) == -1 ||
	    (cs->params.group != (gid_t)-1 &&
	    chown(sun->sun_path, (uid_t)-1, cs->params.group) == -1)) {
		log_warn("control: %s: chmod/chown", sun->sun_path);
		return -1;
	}
	if (listen(cs->fd, CTL_CLIENTS_MAX) == -1) {
		log_warn("control: listen");
		return -1;
	}
	return 0;
}

struct ctlsock *
ctlsock_open(const struct ctlsock_params *p)
{
	struct ctlsock		*cs;
	struct sockaddr_un	 sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(p->path) >= sizeof(sun.sun_path)) {
		log_warnx("control: %s: path longer than %zu bytes", p->path,
		    sizeof(sun.sun_path) - 1);
		return NULL;
	}
	memcpy(sun.sun_path, p->path, strlen(p->path) + 1);
	if (ctlsock_check_dir(p->path, p->group) == -1 ||
	    ctlsock_clear_stale(&sun) == -1)
		return NULL;
	if ((cs = calloc(1, sizeof(*cs))) == NULL) {
		log_warn("control");
		return NULL;
	}
	cs->fd = -1;
	cs->params = *p;
	cs->count.clients_max = CTL_CLIENTS_MAX;
	if (ctlsock_listen(cs, &sun) == -1) {
		ctlsock_close(cs);
		return NULL;
	}
	return cs;
}

int
ctlsock_start(struct ctlsock *cs, struct event_base *base,
    const struct ctlcmd_ops *ops)
{
	cs->base = base;
	cs->ops = *ops;
	cs->ev_accept = event_new(base, cs->fd, EV_READ | EV_PERSIST,
	    ctlsock_on_accept, cs);
	cs->ev_pause = evtimer_new(base, ctlsock_on_pause_end, cs);
	if (cs->ev_accept == NULL || cs->ev_pause == NULL ||
	    event_add(cs->ev_accept, NULL) == -1) {
		log_warnx("control: cannot watch the socket");
		return -1;
	}
	return 0;
}

void
ctlsock_stop(struct ctlsock *cs)
{
	size_t	i;

	if (cs == NULL)
		return;
	for (i = 0; i < CTL_CLIENTS_MAX; i++)
		if (cs->clients[i] != NULL)
			ctlsock_client_free(cs->clients[i]);
	if (cs->ev_accept != NULL)
		event_free(cs->ev_accept);
	if (cs->ev_pause != NULL)
		event_free(cs->ev_pause);
	cs->ev_accept = cs->ev_pause = NULL;
	cs->base = NULL;
}

void
ctlsock_close(struct ctlsock *cs)
{
	if (cs == NULL)
		return;
	ctlsock_stop(cs);
	if (cs->fd != -1)
		close(cs->fd);
	/* After privdrop the directory may no longer be ours to change. */
	if (cs->path[0] != '\0' && unlink(cs->path) == -1 && errno != ENOENT)
		log_debug("control: unlink %s: %s", cs->path, strerror(errno));
	free(cs);
}

void
ctlsock_counters(const struct ctlsock *cs, struct ctlcmd_counters *c)
{
	*c = cs->count;
}
