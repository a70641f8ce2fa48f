/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config.h: caked's configuration file (INI, see caked.conf(5)), loaded
 * into a validated struct caked_config.
 */
#ifndef CAKED_DAEMON_CONFIG_H
#define CAKED_DAEMON_CONFIG_H

#include <sys/types.h>

#include <net/if.h>
#include <netinet/in.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "caked/cake.h"
#include "daemon/autorate.h"

#define CONFIG_DEFAULT_LAN	"caked-lan"
#define CONFIG_DEFAULT_WAN	"caked-wan"
#define CONFIG_DEFAULT_CONTROL	"/run/caked/caked.sock"
#define CONFIG_DEFAULT_MTU	1500
/* departure-horizon: packets due this soon leave in the same wakeup. */
#define CONFIG_HORIZON_DEFAULT_US	500
#define CONFIG_HORIZON_MAX_US		1000
#define CONFIG_MTU_MIN		68	/* IPv4 minimum (RFC 791) */
#define CONFIG_MTU_MAX		65535
#define CONFIG_DEFAULT_QUEUES	2	/* queues-per-device, measured */
#define CONFIG_QUEUES_MAX	16	/* TUN_QUEUES_MAX */
#define CONFIG_WORKERS_MAX	8	/* GROUP_WORKERS_MAX */
/*
 * threads: 1 moves both directions on the main thread, 2 gives each
 * direction a thread of its own (doc/design.md, Threads).
 */
#define CONFIG_THREADS_DEFAULT	1
#define CONFIG_THREADS_MAX	2
#define CONFIG_CONTROL_MAX	108	/* sizeof(sun_path), NUL included */
#define CONFIG_ADDR_MAX		46	/* INET6_ADDRSTRLEN */
#define CONFIG_USER_MAX		64
#define CONFIG_FILE_MAX		(1024 * 1024)	/* bytes read at most */
#define CONFIG_ENTRIES_MAX	256	/* sections + keys in one file */

enum config_mode {
	CONFIG_MODE_TAP = 0,		/* Ethernet frames */
	CONFIG_MODE_TUN,		/* IP packets */
};

/* The two shaped directions: upload is LAN -> WAN. */
enum config_direction {
	CONFIG_UPLOAD = 0,
	CONFIG_DOWNLOAD,
	CONFIG_DIRS,
};

struct caked_config {
	enum config_mode	mode;
	char			lan[IFNAMSIZ];
	char			wan[IFNAMSIZ];
	uint32_t		mtu;
	bool			offload;	/* vnet header, TSO/GSO, csum */
	uint32_t		horizon_us;	/* departure-horizon */
	uint32_t		queues;		/* queues-per-device */
	uint32_t		threads;	/* packet threads */
	uint32_t		nat_cache_size;		/* entries */
	uint32_t		nat_cache_expiry_s;	/* idle positive entries */
	char			control[CONFIG_CONTROL_MAX];
	char			metrics_addr[CONFIG_ADDR_MAX];	/* numeric */
	uint16_t		metrics_port;	/* 0: no /metrics endpoint */
	char			user[CONFIG_USER_MAX];	/* "" = stay root */
	char			control_group[CONFIG_USER_MAX];	/* "" = keep */
	char			admin_group[CONFIG_USER_MAX];	/* "" = root only */
	gid_t			control_gid;	/* resolved; (gid_t)-1 if "" */
	gid_t			admin_gid;	/* resolved; (gid_t)-1 if "" */
	int			log_level;		/* syslog priority */
	bool			log_syslog;
	struct cake_config	cake[CONFIG_DIRS];
	bool			shaped[CONFIG_DIRS];	/* section present */
	unsigned int		workers[CONFIG_DIRS];	/* CAKE instances */
	struct autorate_params	autorate[CONFIG_DIRS];	/* autorate_config.c */
	struct autorate_addr	reflectors[AUTORATE_REFLECTORS_MAX];
	unsigned int		reflectors_n;	/* the pool */
	unsigned int		reflectors_active;	/* probed at once */
	int			autorate_probe;	/* AUTORATE_PROBE_* */
	uint64_t		autorate_idle_after_ns;
	uint64_t		autorate_idle_interval_ns;
	bool			autorate_passive;	/* passive delay used */
	unsigned int		notes;		/* likely mistakes reported */
};

/* Receives one complete error line ("FILE:LINE: [section] key: ..."). */
typedef void	config_report_fn(void *arg, const char *msg);

/*
 * Reads and validates path into cfg. Every problem is handed to report
 * (one line each); returns 0, or -1 after reporting all of them. cfg is
 * written only on success.
 */
int		config_load(const char *path, struct caked_config *cfg,
		    config_report_fn *report, void *arg);
/* The default reporter: log_warnx() each line. */
void		config_report_log(void *arg, const char *msg);
/* Prints cfg as a canonical configuration file. Returns 0 or -1. */
int		config_print(const struct caked_config *cfg, FILE *fp);
/* Name of a setting that differs and needs a restart, or NULL. */
const char	*config_restart_needed(const struct caked_config *old,
		    const struct caked_config *new);
/* "upload" or "download". */
const char	*config_dir_name(enum config_direction dir);

#endif /* CAKED_DAEMON_CONFIG_H */
