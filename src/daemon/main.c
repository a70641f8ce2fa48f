/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * main.c: caked's entry point. It reads the command line, then starts the
 * daemon in a fixed order that can be read top to bottom here: logging,
 * configuration, devices, engines, privileges, loop, readiness; and stops
 * it in reverse.
 *
 * caked stays in the foreground (as systemd wants); exit codes are those
 * of caked(8): 0 stopped cleanly or configuration OK, 1 configuration or
 * other error, 2 usage error, 3 device error.
 */
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "caked/cake.h"
#include "caked/group.h"
#include "daemon/config.h"
#include "daemon/datapath.h"
#include "daemon/gro.h"
#include "daemon/ctlsock.h"
#include "daemon/log.h"
#include "daemon/loop.h"
#include "daemon/notify.h"
#include "daemon/pool.h"
#include "daemon/privdrop.h"
#include "daemon/autorate_probe.h"
#include "daemon/rtnl.h"
#include "daemon/tun.h"
#include "daemon/vnet.h"

#ifndef CAKED_CONFFILE
#define CAKED_CONFFILE		"/etc/caked.conf"	/* set by Makefile.am */
#endif
#ifndef CAKED_VERSION
#define CAKED_VERSION		"unknown"
#endif
#define EXIT_CONFIG		1
#define EXIT_USAGE		2
#define EXIT_DEVICE		3
#define MAIN_LINK_HDR_BYTES	22	/* Ethernet header and two VLAN tags */

struct main_state {
	struct caked_config	 cfg;
	int			 fd[CONFIG_DIRS][TUN_QUEUES_MAX]; /* lan, wan */
	unsigned int		 queues;		/* opened per device */
	struct pool		*pool[CONFIG_DIRS];	/* upload, download */
	/* A thread per worker: the pools of workers 1.. (loop.h). */
	struct pool		*wpool[CONFIG_DIRS][GROUP_WORKERS_MAX];
	struct group		*group[CONFIG_DIRS];	/* workers */
	struct ctlsock		*ctl;			/* control socket */
	struct autorate_probe	*probe;		/* autorate ICMP, or NULL */
};

/*
 * Signals nobody handles would end caked by their default action; they are
 * ignored from the start. Those the loop handles (loop.c) are blocked, so
 * a SIGHUP or SIGUSR1 sent while caked starts stays pending and is acted
 * on once the loop's handlers exist; SIGTERM and SIGINT keep their default
 * action until then, so a stop is honoured at any moment.
 */
static const int main_ignored[] = {
	SIGPIPE, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
	SIGSTKFLT, SIGXFSZ, SIGTSTP, SIGTTIN, SIGTTOU,
};
static const int main_held[] = { SIGHUP, SIGUSR1 };

static void
main_signals_hold(void)
{
	sigset_t	set;
	size_t		i;
	int		sig;

	for (i = 0; i < sizeof(main_ignored) / sizeof(main_ignored[0]); i++)
		(void)signal(main_ignored[i], SIG_IGN);
	/* Real-time signals end a process by default too. */
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		(void)signal(sig, SIG_IGN);
	(void)sigemptyset(&set);
	for (i = 0; i < sizeof(main_held) / sizeof(main_held[0]); i++)
		(void)sigaddset(&set, main_held[i]);
	(void)sigprocmask(SIG_BLOCK, &set, NULL);
}

/* The loop's handlers exist: what was held pending is delivered now. */
static void
main_signals_release(void)
{
	sigset_t	set, pending;
	size_t		i;

	(void)sigemptyset(&set);
	for (i = 0; i < sizeof(main_held) / sizeof(main_held[0]); i++)
		(void)sigaddset(&set, main_held[i]);
	/* A mask inherited from whoever started caked goes too. */
	(void)sigaddset(&set, SIGTERM);
	(void)sigaddset(&set, SIGINT);
	if (sigpending(&pending) == 0 && sigismember(&pending, SIGHUP) == 1)
		log_info("SIGHUP arrived during start-up: reloading now");
	if (sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
		log_warn("sigprocmask");
}

static void
usage(FILE *fp)
{
	fprintf(fp, "usage: caked [-dhstVvW] [-c file]\n");
}

static void
main_report_stderr(void *arg, const char *msg)
{
	(void)arg;
	/* A config error of -t (ExecStartPre=) is a warning in the journal. */
	fprintf(stderr, "%s%s\n", log_prefix(LOG_WARNING), msg);
}

/*
 * Opens device name as ms->queues queues into fds[]. A persistent
 * device made without multi_queue refuses more than one (EINVAL): it is
 * then used with one, as before queues-per-device existed.
 */
static int
main_device_queues(struct main_state *ms, const char *name, int vnet,
    int fds[], unsigned int *features)
{
	int	tap = ms->cfg.mode == CONFIG_MODE_TAP;

	if (tun_open_queues(name, tap, vnet, ms->queues, fds,
	    features) == 0)
		return 0;
	if (errno != EINVAL || ms->queues == 1)
		return -1;
	log_warn("%s: cannot open %u queues (a persistent device made "
	    "without multi_queue?), using one", name, ms->queues);
	ms->queues = 1;
	return tun_open_queues(name, tap, vnet, 1, fds, features);
}

/* Closes every queue of device i; its fds become -1. */
static void
main_device_close(struct main_state *ms, int i)
{
	unsigned int	q;

	for (q = 0; q < TUN_QUEUES_MAX; q++) {
		if (ms->fd[i][q] != -1)
			close(ms->fd[i][q]);
		ms->fd[i][q] = -1;
	}
}

/*
 * Opens both devices with a vnet header and offloads; if either refuses,
 * neither keeps them (a frame must be writable as it was read). 0 or -1.
 */
static int
main_devices_offload(struct main_state *ms, const char *const names[])
{
	unsigned int	 features;
	int		 i;

	for (i = 0; i < CONFIG_DIRS; i++) {
		if (main_device_queues(ms, names[i], 1, ms->fd[i],
		    &features) == -1) {
			log_warn("%s: no vnet header, offloads off", names[i]);
			while (i-- > 0)
				main_device_close(ms, i);
			return -1;
		}
		log_debug("%s: offloads 0x%x", names[i], features);
	}
	return 0;
}

/*
 * After rtnl_link_up() failed with EPERM: true if the (persistent)
 * device is already up with that MTU, so caked can run without
 * CAP_NET_ADMIN on devices set up for it. errno is kept otherwise.
 */
static bool
main_link_ready(const char *name, uint32_t mtu)
{
	struct ifreq	ifr;
	int		fd, saved = errno;
	bool		ready = false;

	if (saved != EPERM)
		return false;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		errno = saved;
		return false;
	}
	memset(&ifr, 0, sizeof(ifr));
	(void)snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) &&
	    ioctl(fd, SIOCGIFMTU, &ifr) == 0 && (uint32_t)ifr.ifr_mtu == mtu)
		ready = true;
	close(fd);
	if (ready)
		log_info("%s: already up with mtu %u (no permission to set "
		    "it)", name, mtu);
	errno = saved;
	return ready;
}

static int
main_devices(struct main_state *ms)
{
	const char	*names[CONFIG_DIRS] = { ms->cfg.lan, ms->cfg.wan };
	unsigned int	 features, q;
	int		 i, tap = ms->cfg.mode == CONFIG_MODE_TAP, opened;

	ms->queues = ms->cfg.queues >= 1 ? ms->cfg.queues : 1;
	opened = ms->cfg.offload && main_devices_offload(ms, names) == 0;
	for (i = 0; i < CONFIG_DIRS; i++) {
		if (!opened && main_device_queues(ms, names[i], 0, ms->fd[i],
		    &features) == -1) {
			log_warn("%s: cannot open %s device", names[i],
			    tap ? "tap" : "tun");
			return -1;
		}
		if (rtnl_link_up(names[i], ms->cfg.mtu) == -1 &&
		    !main_link_ready(names[i], ms->cfg.mtu)) {
			log_warn("%s: cannot set mtu %u and bring it up",
			    names[i], ms->cfg.mtu);
			return -1;
		}
		log_debug("%s: %s device up, mtu %u, offloads %s, %u "
		    "queue(s)", names[i], tap ? "tap" : "tun", ms->cfg.mtu,
		    opened ? "on" : "off", ms->queues);
	}
	/* One device fell back to one queue: the other follows. */
	for (i = 0; i < CONFIG_DIRS; i++)
		for (q = ms->queues; q < TUN_QUEUES_MAX; q++)
			if (ms->fd[i][q] != -1) {
				close(ms->fd[i][q]);
				ms->fd[i][q] = -1;
			}
	return 0;
}

/*
 * Memory is charged by bytes (cake_truesize()), so a flood of small
 * frames could empty the pool before memlimit binds, and the pool would
 * then drop at the read, from every flow alike. The engine is told how
 * many packets it may keep, leaving room for a read chunk, the segments
 * of one super-packet and a held run, so that it drops from the fattest
 * flow first, as for memlimit.
 */
static uint32_t
main_queue_bound(const struct pool *p)
{
	struct pool_stats	st;
	uint32_t		reserve = DATAPATH_RX_CHUNK + 2 * GRO_SEGS_MAX;

	pool_get_stats(p, &st);
	return st.bufs > 2 * reserve ? st.bufs - reserve : st.bufs / 2 + 1;
}

/* A packet pool for direction i, with large buffers behind vnet. */
static struct pool *
main_pool(struct main_state *ms, int i, uint32_t frame_bytes)
{
	struct pool	*p;

	if ((p = pool_create(frame_bytes)) == NULL) {
		log_warn("%s: packet pool", config_dir_name(i));
		return NULL;
	}
	/* GSO super-packets of up to 64 KB (vnet.c). */
	if (tun_has_vnet(ms->fd[i][0]) && pool_add_large(p,
	    VNET_FRAME_MAX_BYTES, VNET_LARGE_BUFS) == -1)
		log_warnx("%s: no large buffers: super-packets will "
		    "be dropped", config_dir_name(i));
	return p;
}

/*
 * threads = 2 with workers = N: a pool for each of workers 1..N-1, whose
 * threads take their buffers there (pools belong to one thread).
 */
static int
main_worker_pools(struct main_state *ms, int i, uint32_t frame_bytes)
{
	unsigned int	w;

	if (ms->cfg.threads < 2)
		return 0;
	for (w = 1; w < ms->cfg.workers[i]; w++)
		if ((ms->wpool[i][w] = main_pool(ms, i, frame_bytes)) == NULL)
			return -1;
	return 0;
}

static int
main_engines(struct main_state *ms)
{
	struct cake_env	env;
	uint32_t	frame_bytes;
	int		i, err;

	memset(&env, 0, sizeof(env));
	env.link = ms->cfg.mode == CONFIG_MODE_TAP ? CAKE_LINK_ETHERNET :
	    CAKE_LINK_IP;
	env.mtu = ms->cfg.mtu;
	frame_bytes = ms->cfg.mtu + 1 +
	    (env.link == CAKE_LINK_ETHERNET ? MAIN_LINK_HDR_BYTES : 0);
	env.alloc = pool_alloc;
	for (i = 0; i < CONFIG_DIRS; i++) {
		if (getrandom(&env.seed, sizeof(env.seed), 0) !=
		    (ssize_t)sizeof(env.seed)) {
			log_warn("getrandom");
			return -1;
		}
		if ((ms->pool[i] = main_pool(ms, i, frame_bytes)) == NULL ||
		    main_worker_pools(ms, i, frame_bytes) == -1)
			return -1;
		env.alloc_arg = ms->pool[i];
		/* The workers share the pool: each keeps its part. */
		env.max_pkts = main_queue_bound(ms->pool[i]) /
		    ms->cfg.workers[i];
		if (env.max_pkts == 0)
			env.max_pkts = 1;	/* 0 would mean no bound */
		/* Both devices have vnet headers, or neither has. */
		env.keep_partial_csum = tun_has_vnet(ms->fd[i][0]);
		/* Workers steer by the LAN host: source up, destination down. */
		if ((ms->group[i] = group_create(&ms->cfg.cake[i], &env,
		    ms->cfg.workers[i], i == CONFIG_UPLOAD ? GROUP_SIDE_SRC :
		    GROUP_SIDE_DST, &err)) == NULL) {
			log_warnx("%s: cannot create the CAKE instance: %s",
			    config_dir_name(i), cake_strerror(err));
			return -1;
		}
	}
	return 0;
}

static void
main_cleanup(struct main_state *ms)
{
	unsigned int	w;
	int		i;

	ctlsock_close(ms->ctl);
	autorate_probe_close(ms->probe);
	for (i = 0; i < CONFIG_DIRS; i++) {
		group_destroy(ms->group[i]);
		pool_destroy(ms->pool[i]);
		for (w = 0; w < GROUP_WORKERS_MAX; w++)
			pool_destroy(ms->wpool[i][w]);
		main_device_close(ms, i);
	}
}

static int
main_run(struct main_state *ms, const char *path, int debug)
{
	struct loop_setup	 setup;
	struct loop		*l;
	int			 i, rv;

	memset(&setup, 0, sizeof(setup));
	setup.cfg = &ms->cfg;
	setup.path = path;
	setup.keep_debug = debug;
	setup.lan_fd = ms->fd[0][0];
	setup.wan_fd = ms->fd[1][0];
	setup.queues = ms->queues;
	memcpy(setup.lan_fds, ms->fd[0], sizeof(setup.lan_fds));
	memcpy(setup.wan_fds, ms->fd[1], sizeof(setup.wan_fds));
	for (i = 0; i < CONFIG_DIRS; i++) {
		setup.group[i] = ms->group[i];
		setup.cake[i] = group_worker(ms->group[i], 0);
	}
	setup.pool[CONFIG_UPLOAD] = ms->pool[CONFIG_UPLOAD];
	setup.pool[CONFIG_DOWNLOAD] = ms->pool[CONFIG_DOWNLOAD];
	memcpy(setup.wpool, ms->wpool, sizeof(setup.wpool));
	setup.ctl = ms->ctl;
	setup.probe = ms->probe;
	ms->probe = NULL;	/* the loop owns it now */
	setup.version = CAKED_VERSION;
	if ((l = loop_create(&setup)) == NULL)
		return EXIT_CONFIG;
	main_signals_release();
	if (notify_send("READY=1") == -1)
		log_warn("notify READY");
	log_info("started: %s mode, lan %s, wan %s, mtu %u",
	    ms->cfg.mode == CONFIG_MODE_TAP ? "tap" : "tun", ms->cfg.lan,
	    ms->cfg.wan, ms->cfg.mtu);
	rv = loop_run(l);
	loop_destroy(l);
	log_info("stopped");
	return rv;
}

struct main_opts {
	const char	*path;
	int		 debug;
	int		 to_syslog;
	int		 test;
	int		 verbose;
	int		 werror;	/* -W: notes are errors */
};

/* Parses the command line: -1 to go on, else the exit status. */
static int
main_options(int argc, char *argv[], struct main_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int	ch;

	while ((ch = getopt_long(argc, argv, "c:dhstVvW", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c':
			o->path = optarg;
			break;
		case 'd':
			o->debug = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 's':
			o->to_syslog = 1;
			break;
		case 't':
			o->test = 1;
			break;
		case 'V':
			printf("caked %s\n", CAKED_VERSION);
			return 0;
		case 'v':
			o->verbose = 1;
			break;
		case 'W':
			o->werror = 1;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "caked: unexpected argument '%s'\n",
		    argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

int
main(int argc, char *argv[])
{
	struct main_opts	o = { CAKED_CONFFILE, 0, 0, 0, 0, 0 };
	struct main_state	ms;
	struct ctlsock_params	ctl;
	int			rv;

	main_signals_hold();
	if ((rv = main_options(argc, argv, &o)) != -1)
		return rv;

	/* 1. logging: stderr until the configuration says otherwise */
	log_init(0, o.debug ? LOG_DEBUG : LOG_INFO, "caked");

	/* 2. configuration */
	memset(&ms, 0, sizeof(ms));
	memset(ms.fd, -1, sizeof(ms.fd));
	if (config_load(o.path, &ms.cfg, o.test ? main_report_stderr :
	    config_report_log, NULL) == -1) {
		/* -t has printed every error already, one line each. */
		if (o.test)
			return EXIT_CONFIG;
		fatalx("%s: configuration has errors", o.path);	/* exit 1 */
	}
	if (o.werror && ms.cfg.notes > 0) {
		/* -t has printed them: its exit status says the rest. */
		if (!o.test)
			fatalx("%s: notes are errors with -W", o.path);
		return EXIT_CONFIG;
	}
	if (o.verbose && config_print(&ms.cfg, stdout) == -1) {
		fprintf(stderr, "caked: cannot print the configuration\n");
		return EXIT_CONFIG;
	}
	if (o.test) {
		printf("configuration OK\n");
		return 0;
	}
	log_init(o.to_syslog || ms.cfg.log_syslog,
	    o.debug ? LOG_DEBUG : ms.cfg.log_level, "caked");

	/* 3. devices, 4. engines, 5. privileges */
	rv = EXIT_DEVICE;
	if (main_devices(&ms) == -1)
		goto out;
	rv = EXIT_CONFIG;
	if (main_engines(&ms) == -1)
		goto out;
	/* The socket is bound and chowned while still root. */
	ctl.path = ms.cfg.control;
	ctl.group = ms.cfg.control_gid;
	ctl.has_admin = ms.cfg.admin_gid != (gid_t)-1;
	ctl.admin_gid = ms.cfg.admin_gid;
	if ((ms.ctl = ctlsock_open(&ctl)) == NULL)
		goto out;
	/* A raw ICMP socket for autorate needs CAP_NET_RAW: open it now. */
	if ((ms.cfg.autorate[CONFIG_UPLOAD].enabled ||
	    ms.cfg.autorate[CONFIG_DOWNLOAD].enabled) &&
	    (ms.probe = autorate_probe_open()) == NULL)
		log_warn("autorate: cannot open an ICMP socket");
	if (ms.cfg.user[0] != '\0') {
		if (privdrop_user(ms.cfg.user) == -1) {
			log_warn("cannot switch to user %s", ms.cfg.user);
			goto out;
		}
		log_info("running as user %s, keeping CAP_NET_ADMIN only",
		    ms.cfg.user);
	} else if (privdrop_restrict() == -1)
		log_warn("cannot clear ambient capabilities or set "
		    "no_new_privs");

	/* 6. loop and readiness */
	rv = main_run(&ms, o.path, o.debug);
out:
	main_cleanup(&ms);
	return rv;
}
