/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config.c: reads caked.conf (INI) into a validated struct caked_config.
 *
 * iniparser supplies the values; inifile.c supplies what iniparser cannot
 * (line numbers, unknown names, duplicates) and collects the errors.
 * config_direction.c reads [upload] and [download]: each key is turned into
 * tc-cake keyword tokens and given to keywords_parse_argv(), so that
 * keywords are spelled and checked in one place (src/common/keywords.c);
 * this file reads [general]. Every problem is reported with file,
 * line, section, key, what was expected and what was found; loading goes
 * on to find them all and fails at the end.
 *
 * This module does no I/O besides reading the file and looking up the
 * user; errors go to the caller's reporter (config_report_log() logs
 * them), and it never clamps or guesses a value.
 */
#include <arpa/inet.h>

#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include <iniparser.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/units.h"
#include "daemon/autorate_config.h"
#include "daemon/config.h"
#include "daemon/config_int.h"
#include "daemon/inifile.h"
#include "daemon/log.h"
#include "daemon/natcache.h"

/* Section names, indexed by enum config_section. */
static const char *const config_sections[SEC_COUNT] = {
	"general", CTL_DIR_UPLOAD, CTL_DIR_DOWNLOAD,
};

static const char *const general_keys[] = {
	"mode", "lan", "wan", "mtu", "control", "user", "log-level", "log",
	"control-group", "admin-group", "offload", "nat-cache-size",
	"nat-cache-expiry", "metrics-listen", "departure-horizon",
	"queues-per-device", "threads",
};
#define GENERAL_KEYS	(sizeof(general_keys) / sizeof(general_keys[0]))

void
config_report_log(void *arg, const char *msg)
{
	(void)arg;
	log_warnx("%s", msg);
}

const char *
config_dir_name(enum config_direction dir)
{
	return dir == CONFIG_UPLOAD ? CTL_DIR_UPLOAD : CTL_DIR_DOWNLOAD;
}

static int
config_known_key(int section, const char *key)
{
	size_t	i;

	if (autorate_config_known_key(section == SEC_GENERAL, key))
		return 1;
	if (section == SEC_GENERAL) {
		for (i = 0; i < GENERAL_KEYS; i++)
			if (strcmp(general_keys[i], key) == 0)
				return 1;
		return 0;
	}
	return config_direction_known_key(key) ||
	    strcmp(key, "workers") == 0;
}

/* A likely misspelling of a known key of section ("bandwith"). */
static const char *
config_suggest_key(int section, const char *key)
{
	static const char *const dir_keys[] = {
		"options", "bandwidth", "autorate-ingress", "diffserv",
		"flow-mode", "isolation", "rtt", "overhead", "mpu", "atm",
		"memlimit", "fwmark", "queues", "ack-filter", "nat", "wash",
		"ingress", "split-gso", "autorate", "autorate-min",
		"autorate-base", "autorate-max", "autorate-delay-threshold",
		"workers",
	};
	static const char *const ar_keys[] = {
		"autorate-reflectors", "autorate-interval",
		"autorate-reflectors-active", "autorate-probe",
		"autorate-idle-after", "autorate-idle-interval",
	};
	const char	*best = NULL;
	size_t		 i, d, best_d = 3;

	for (i = 0; section == SEC_GENERAL && i < GENERAL_KEYS +
	    sizeof(ar_keys) / sizeof(ar_keys[0]); i++) {
		d = keywords_distance(key, i < GENERAL_KEYS ?
		    general_keys[i] : ar_keys[i - GENERAL_KEYS]);
		if (d < best_d) {
			best_d = d;
			best = i < GENERAL_KEYS ? general_keys[i] :
			    ar_keys[i - GENERAL_KEYS];
		}
	}
	for (i = 0; section != SEC_GENERAL &&
	    i < sizeof(dir_keys) / sizeof(dir_keys[0]); i++)
		if ((d = keywords_distance(key, dir_keys[i])) < best_d) {
			best_d = d;
			best = dir_keys[i];
		}
	return best;
}

/* ---- values ------------------------------------------------------------ */

/* Strict unsigned decimal: digits only, no sign, no overflow. */
static int
config_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long	v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		/* A digit above max would wrap the bound below. */
		if ((unsigned long)(*s - '0') > max ||
		    v > (max - (unsigned long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*out = v;
	return 0;
}

/* ---- [general] --------------------------------------------------------- */

/* Whether s has white space or a control character (the kernel refuses
 * a device name with white space; a control character is never meant). */
static int
config_has_space(const char *s)
{
	for (; *s != '\0'; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	return 0;
}

static void
config_device(struct config_ctx *ctx, const char *key, int line,
    const char *v, char *dst)
{
	char	expected[96];

	if (strlen(v) >= IFNAMSIZ) {
		(void)snprintf(expected, sizeof(expected), "a device name of "
		    "at most %d characters (IFNAMSIZ)", IFNAMSIZ - 1);
		config_expect(ctx, line, SEC_GENERAL, key, expected, v);
	} else if (*v == '\0' || strcmp(v, ".") == 0 || strcmp(v, "..") ==
	    0 || strpbrk(v, "/:") != NULL || config_has_space(v))
		config_expect(ctx, line, SEC_GENERAL, key, "a device name "
		    "without '/', ':', white space or control characters", v);
	else
		(void)snprintf(dst, IFNAMSIZ, "%s", v);
}

/* metrics-listen ADDRESS:PORT: an IPv4 address, or an IPv6 one in []. */
static void
config_metrics_listen(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	struct in6_addr	 a;
	const char	*colon = strrchr(v, ':'), *p = v;
	char		 addr[CONFIG_ADDR_MAX];
	unsigned long	 port;
	size_t		 n = colon != NULL ? (size_t)(colon - v) : 0;
	int		 v6 = n > 2 && v[0] == '[' && v[n - 1] == ']';

	if (v6) {
		p++;
		n -= 2;
	}
	if (colon == NULL || n == 0 || n >= sizeof(addr) ||
	    config_parse_uint(colon + 1, 65535, &port) == -1 || port == 0) {
		config_expect(ctx, line, SEC_GENERAL, key,
		    "ADDRESS:PORT (for example 127.0.0.1:9464)", v);
		return;
	}
	memcpy(addr, p, n);
	addr[n] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, &a) != 1) {
		config_expect(ctx, line, SEC_GENERAL, key, v6 ?
		    "an IPv6 address in [] and a port" :
		    "an IPv4 address and a port", v);
		return;
	}
	memcpy(cfg->metrics_addr, addr, n + 1);
	cfg->metrics_port = (uint16_t)port;
}

/* queues-per-device N: 1 keeps single-queue devices. */
static void
config_queues(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	char		expected[64];
	unsigned long	n;

	if (config_parse_uint(v, CONFIG_QUEUES_MAX, &n) == -1 || n < 1) {
		(void)snprintf(expected, sizeof(expected), "a number from 1 "
		    "to %d", CONFIG_QUEUES_MAX);
		config_expect(ctx, line, SEC_GENERAL, key, expected, v);
	} else
		cfg->queues = (uint32_t)n;
}

/*
 * [upload]/[download] workers N: the direction's CAKE instances, lending
 * each other the rate (doc/workers.md). Autorate and autorate-ingress
 * move one instance's rate: they need one worker.
 */
static void
config_workers(struct config_ctx *ctx, int dir, struct caked_config *cfg)
{
	char		 value[INIFILE_LINE_MAX + 1], expected[64];
	const char	*v;
	unsigned long	 n;
	int		 sec = SEC_UPLOAD + dir, line;

	if ((line = inifile_find(ctx->file, sec, "workers")) == 0)
		return;
	v = config_value(ctx, sec, "workers", value, sizeof(value));
	if (config_parse_uint(v, CONFIG_WORKERS_MAX, &n) == -1 || n < 1) {
		(void)snprintf(expected, sizeof(expected), "a number from 1 "
		    "to %d", CONFIG_WORKERS_MAX);
		config_expect(ctx, line, sec, "workers", expected, v);
	} else if (n > 1 && (cfg->cake[dir].autorate_ingress ||
	    cfg->autorate[dir].enabled))
		inifile_error(ctx->file, line, "[%s] workers: expected 1 "
		    "with autorate or autorate-ingress (they move one "
		    "instance's rate), found '%s'", config_sections[sec], v);
	else
		cfg->workers[dir] = (unsigned int)n;
}

/*
 * threads N: the threads that move packets: 1, both directions on the
 * main thread, or 2, a thread per direction (doc/design.md, Threads).
 */
static void
config_threads(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	unsigned long	n;

	if (config_parse_uint(v, 1000, &n) == -1 || n < 1 ||
	    n > CONFIG_THREADS_MAX)
		config_expect(ctx, line, SEC_GENERAL, key, "1 or 2", v);
	else
		cfg->threads = (uint32_t)n;
}

/* nat-cache-size ENTRIES, nat-cache-expiry SECONDS[s]. */
static void
config_nat_cache(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	char		 num[32], expected[96];
	size_t		 n = strlen(v);
	unsigned long	 val;

	if (strcmp(key, "nat-cache-size") == 0) {
		if (config_parse_uint(v, NATCACHE_SIZE_MAX, &val) == -1 ||
		    val < NATCACHE_SIZE_MIN) {
			(void)snprintf(expected, sizeof(expected), "a number "
			    "of entries from %u to %u", NATCACHE_SIZE_MIN,
			    NATCACHE_SIZE_MAX);
			config_expect(ctx, line, SEC_GENERAL, key, expected,
			    v);
		} else
			cfg->nat_cache_size = (uint32_t)val;
		return;
	}
	if (n > 1 && v[n - 1] == 's')
		n--;
	if (n >= sizeof(num))
		n = sizeof(num) - 1;
	memcpy(num, v, n);
	num[n] = '\0';
	if (config_parse_uint(num, NATCACHE_EXPIRY_MAX_S, &val) == -1 ||
	    val == 0) {
		(void)snprintf(expected, sizeof(expected), "seconds from 1 to "
		    "%u (e.g. 120s)", NATCACHE_EXPIRY_MAX_S);
		config_expect(ctx, line, SEC_GENERAL, key, expected, v);
	} else
		cfg->nat_cache_expiry_s = (uint32_t)val;
}

/* departure-horizon TIME: 0 (one departure per wakeup) to 1 ms. */
static void
config_horizon(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	char		err[KEYWORDS_ERR_MAX], expected[96];
	uint32_t	us;

	if (keywords_parse_time(v, &us, err, sizeof(err)) == -1 ||
	    us > CONFIG_HORIZON_MAX_US) {
		(void)snprintf(expected, sizeof(expected), "a time from 0 to "
		    "%uus (e.g. %uus)", CONFIG_HORIZON_MAX_US,
		    CONFIG_HORIZON_DEFAULT_US);
		config_expect(ctx, line, SEC_GENERAL, key, expected, v);
		return;
	}
	if (us != 0)
		(void)config_note_unit(ctx->file, line, "general", key,
		    UNITS_TIME, v);
	cfg->horizon_us = us;
}

static void
config_general_key(struct config_ctx *ctx, const char *key, int line,
    const char *v, struct caked_config *cfg)
{
	unsigned long	 n;
	char		 expected[96];

	if (strcmp(key, "mode") == 0) {
		if (strcmp(v, "tap") == 0)
			cfg->mode = CONFIG_MODE_TAP;
		else if (strcmp(v, "tun") == 0)
			cfg->mode = CONFIG_MODE_TUN;
		else
			config_expect(ctx, line, SEC_GENERAL, key,
			    "tap or tun", v);
	} else if (strcmp(key, "lan") == 0)
		config_device(ctx, key, line, v, cfg->lan);
	else if (strcmp(key, "wan") == 0)
		config_device(ctx, key, line, v, cfg->wan);
	else if (strcmp(key, "mtu") == 0) {
		if (config_parse_uint(v, CONFIG_MTU_MAX, &n) == -1 ||
		    n < CONFIG_MTU_MIN) {
			(void)snprintf(expected, sizeof(expected), "a number "
			    "from %d to %d", CONFIG_MTU_MIN, CONFIG_MTU_MAX);
			config_expect(ctx, line, SEC_GENERAL, key, expected,
			    v);
		} else
			cfg->mtu = (uint32_t)n;
	} else if (strcmp(key, "control") == 0) {
		if (*v != '/')
			config_expect(ctx, line, SEC_GENERAL, key,
			    "an absolute path", v);
		else if (strlen(v) >= CONFIG_CONTROL_MAX) {
			(void)snprintf(expected, sizeof(expected), "a path of "
			    "at most %d bytes (sun_path)",
			    CONFIG_CONTROL_MAX - 1);
			config_expect(ctx, line, SEC_GENERAL, key, expected,
			    v);
		} else
			(void)snprintf(cfg->control, sizeof(cfg->control),
			    "%s", v);
	} else if (strcmp(key, "user") == 0) {
		if (strlen(v) >= CONFIG_USER_MAX || strpbrk(v, ":/ \t"))
			config_expect(ctx, line, SEC_GENERAL, key,
			    "a user name", v);
		else
			(void)snprintf(cfg->user, sizeof(cfg->user), "%s", v);
	} else if (strcmp(key, "control-group") == 0 ||
	    strcmp(key, "admin-group") == 0) {
		if (strlen(v) >= CONFIG_USER_MAX || strpbrk(v, ":/ \t"))
			config_expect(ctx, line, SEC_GENERAL, key,
			    "a group name", v);
		else
			(void)snprintf(key[0] == 'c' ? cfg->control_group :
			    cfg->admin_group, CONFIG_USER_MAX, "%s", v);
	} else if (strcmp(key, "log-level") == 0) {
		if (strcmp(v, "debug") == 0)
			cfg->log_level = LOG_DEBUG;
		else if (strcmp(v, "info") == 0)
			cfg->log_level = LOG_INFO;
		else if (strcmp(v, "warning") == 0)
			cfg->log_level = LOG_WARNING;
		else if (strcmp(v, "error") == 0)
			cfg->log_level = LOG_ERR;
		else
			config_expect(ctx, line, SEC_GENERAL, key,
			    "debug, info, warning or error", v);
	} else if (strncmp(key, "nat-cache-", 10) == 0)
		config_nat_cache(ctx, key, line, v, cfg);
	else if (strcmp(key, "metrics-listen") == 0)
		config_metrics_listen(ctx, key, line, v, cfg);
	else if (strcmp(key, "departure-horizon") == 0)
		config_horizon(ctx, key, line, v, cfg);
	else if (strcmp(key, "queues-per-device") == 0)
		config_queues(ctx, key, line, v, cfg);
	else if (strcmp(key, "threads") == 0)
		config_threads(ctx, key, line, v, cfg);
	else if (strcmp(key, "offload") == 0) {
		if (config_bool(v) != -1)
			cfg->offload = config_bool(v) == 1;
		else
			config_expect(ctx, line, SEC_GENERAL, key,
			    "yes or no", v);
	} else if (strcmp(key, "log") == 0) {
		if (strcmp(v, "stderr") == 0 || strcmp(v, "syslog") == 0)
			cfg->log_syslog = strcmp(v, "syslog") == 0;
		else
			config_expect(ctx, line, SEC_GENERAL, key,
			    "stderr or syslog", v);
	}
}

/* Resolves a group name once, at load time (never in the loop). */
static void
config_group(struct config_ctx *ctx, const char *key, const char *name,
    gid_t *gid)
{
	struct group	*gr;

	*gid = (gid_t)-1;
	if (name[0] == '\0')
		return;
	if ((gr = getgrnam(name)) == NULL)
		config_expect(ctx, inifile_find(ctx->file, SEC_GENERAL, key),
		    SEC_GENERAL, key, "an existing group", name);
	else
		*gid = gr->gr_gid;
}

static void
config_general(struct config_ctx *ctx, struct caked_config *cfg)
{
	char	value[INIFILE_LINE_MAX + 1];
	size_t	i;
	int	line, lan_line, wan_line;

	for (i = 0; i < GENERAL_KEYS; i++) {
		line = inifile_find(ctx->file, SEC_GENERAL, general_keys[i]);
		if (line == 0)
			continue;
		config_value(ctx, SEC_GENERAL, general_keys[i], value,
		    sizeof(value));
		config_general_key(ctx, general_keys[i], line, value, cfg);
	}
	lan_line = inifile_find(ctx->file, SEC_GENERAL, "lan");
	wan_line = inifile_find(ctx->file, SEC_GENERAL, "wan");
	if (strcmp(cfg->lan, cfg->wan) == 0)
		config_expect(ctx, wan_line != 0 ? wan_line : lan_line,
		    SEC_GENERAL, wan_line != 0 ? "wan" : "lan",
		    wan_line != 0 ? "a device other than lan" :
		    "a device other than wan", cfg->lan);
	line = inifile_find(ctx->file, SEC_GENERAL, "user");
	if (cfg->user[0] != '\0' && getpwnam(cfg->user) == NULL)
		config_expect(ctx, line, SEC_GENERAL, "user",
		    "an existing user", cfg->user);
	config_group(ctx, "control-group", cfg->control_group,
	    &cfg->control_gid);
	config_group(ctx, "admin-group", cfg->admin_group, &cfg->admin_gid);
}

/* ---- loading ----------------------------------------------------------- */

/* iniparser's own messages repeat what the scan has already reported. */
static int
config_iniparser_error(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

static void
config_defaults(struct caked_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = CONFIG_MODE_TAP;
	(void)snprintf(cfg->lan, sizeof(cfg->lan), "%s", CONFIG_DEFAULT_LAN);
	(void)snprintf(cfg->wan, sizeof(cfg->wan), "%s", CONFIG_DEFAULT_WAN);
	cfg->mtu = CONFIG_DEFAULT_MTU;
	cfg->offload = true;
	cfg->horizon_us = CONFIG_HORIZON_DEFAULT_US;
	cfg->queues = CONFIG_DEFAULT_QUEUES;
	cfg->workers[CONFIG_UPLOAD] = 1;
	cfg->workers[CONFIG_DOWNLOAD] = 1;
	cfg->threads = CONFIG_THREADS_DEFAULT;
	cfg->nat_cache_size = NATCACHE_SIZE_DEFAULT;
	cfg->nat_cache_expiry_s = NATCACHE_EXPIRY_DEFAULT_S;
	(void)snprintf(cfg->control, sizeof(cfg->control), "%s",
	    CONFIG_DEFAULT_CONTROL);
	cfg->log_level = LOG_INFO;
	cfg->control_gid = cfg->admin_gid = (gid_t)-1;
	cake_config_default(&cfg->cake[CONFIG_UPLOAD]);
	cake_config_default(&cfg->cake[CONFIG_DOWNLOAD]);
}

/* Settings under which nothing passes are refused (keywords.h). */
static void
config_check_floors(struct config_ctx *ctx, const struct caked_config *cfg,
    int dir)
{
	char	err[KEYWORDS_ERR_MAX];
	int	line;

	if (keywords_check_floors(&cfg->cake[dir], cfg->mtu, err,
	    sizeof(err)) == 0)
		return;
	/* The key that set it, else the options line, else the section. */
	line = inifile_find(ctx->file, SEC_UPLOAD + dir,
	    strncmp(err, "memlimit", 8) == 0 ? "memlimit" : "bandwidth");
	if (line == 0)
		line = inifile_find(ctx->file, SEC_UPLOAD + dir, "options");
	if (line == 0)
		line = inifile_section_line(ctx->file, SEC_UPLOAD + dir);
	inifile_error(ctx->file, line, "[%s] %s",
	    config_sections[SEC_UPLOAD + dir], err);
}

static const struct inifile_schema config_schema = {
	config_sections, SEC_COUNT, "[general], [upload] or [download]",
	config_known_key,
	config_suggest_key,
	"convert it with caked-import-sqm(1)",
};

int
config_load(const char *path, struct caked_config *out,
    config_report_fn *report, void *arg)
{
	struct config_ctx	ctx;
	struct caked_config	cfg;
	int			dir, rv = -1;

	memset(&ctx, 0, sizeof(ctx));
	ctx.path = path;
	ctx.sections = config_sections;
	if ((ctx.file = inifile_open(path, &config_schema)) == NULL) {
		log_warn("%s", __func__);
		return -1;
	}
	config_defaults(&cfg);
	iniparser_set_error_callback(config_iniparser_error);
	if (!inifile_was_read(ctx.file))
		goto out;	/* reported */
	if ((ctx.dict = inifile_dictionary(ctx.file)) == NULL) {
		/* The scan's own errors say it already, once. */
		if (inifile_errors(ctx.file) == 0)
			inifile_error(ctx.file, 0, "iniparser cannot read "
			    "the file, so it is refused");
		goto out;
	}
	config_general(&ctx, &cfg);
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (inifile_section_line(ctx.file, SEC_UPLOAD + dir) == 0)
			continue;	/* absent: unshaped defaults */
		cfg.shaped[dir] = true;
		config_direction(&ctx, SEC_UPLOAD + dir, &cfg.cake[dir]);
		config_check_floors(&ctx, &cfg, dir);
	}
	autorate_config_load(ctx.file, ctx.dict, config_sections, &cfg);
	for (dir = 0; dir < CONFIG_DIRS; dir++)
		if (cfg.shaped[dir])
			config_workers(&ctx, dir, &cfg);
	if (inifile_errors(ctx.file) == 0)
		config_note_file(&ctx, &cfg);
	cfg.notes = (unsigned int)inifile_notes(ctx.file);
	if (inifile_errors(ctx.file) == 0) {
		*out = cfg;
		rv = 0;
	}
out:
	inifile_close(ctx.file, report != NULL ? report : config_report_log,
	    arg);
	if (ctx.dict != NULL)
		iniparser_freedict(ctx.dict);
	return rv;
}

/* ---- printing and comparing -------------------------------------------- */

/*
 * "key = value", quoted when the value holds a comment character, which
 * iniparser would otherwise cut at (fuzz finding: lan = "a#b read as a#b
 * was printed bare and read back as "a"). A parsed value cannot hold both
 * kinds of quote and a comment character.
 */
static void
config_print_str(FILE *fp, const char *key, const char *v)
{
	if (strpbrk(v, "#;") == NULL)
		fprintf(fp, "%s = %s\n", key, v);
	else if (strchr(v, '"') == NULL)
		fprintf(fp, "%s = \"%s\"\n", key, v);
	else
		fprintf(fp, "%s = '%s'\n", key, v);
}

int
config_print(const struct caked_config *cfg, FILE *fp)
{
	static const char *const levels[] = {
		"error", "error", "error", "error", "warning", "warning",
		"info", "debug",
	};
	char	opts[512];
	int	dir, lvl = cfg->log_level;

	if (lvl < 0 || lvl > LOG_DEBUG)
		lvl = LOG_INFO;
	fprintf(fp, "[general]\nmode = %s\n",
	    cfg->mode == CONFIG_MODE_TAP ? "tap" : "tun");
	config_print_str(fp, "lan", cfg->lan);
	config_print_str(fp, "wan", cfg->wan);
	fprintf(fp, "mtu = %u\n", cfg->mtu);
	config_print_str(fp, "control", cfg->control);
	if (cfg->user[0] != '\0')
		config_print_str(fp, "user", cfg->user);
	if (cfg->control_group[0] != '\0')
		config_print_str(fp, "control-group", cfg->control_group);
	if (cfg->admin_group[0] != '\0')
		config_print_str(fp, "admin-group", cfg->admin_group);
	fprintf(fp, "offload = %s\n", cfg->offload ? "yes" : "no");
	fprintf(fp, "queues-per-device = %u\n", cfg->queues);
	if (cfg->threads != CONFIG_THREADS_DEFAULT)
		fprintf(fp, "threads = %u\n", cfg->threads);
	if (cfg->nat_cache_size != NATCACHE_SIZE_DEFAULT)
		fprintf(fp, "nat-cache-size = %u\n", cfg->nat_cache_size);
	if (cfg->nat_cache_expiry_s != NATCACHE_EXPIRY_DEFAULT_S)
		fprintf(fp, "nat-cache-expiry = %us\n",
		    cfg->nat_cache_expiry_s);
	if (cfg->horizon_us != CONFIG_HORIZON_DEFAULT_US)
		fprintf(fp, "departure-horizon = %uus\n", cfg->horizon_us);
	if (cfg->metrics_port != 0)
		fprintf(fp, strchr(cfg->metrics_addr, ':') != NULL ?
		    "metrics-listen = [%s]:%u\n" : "metrics-listen = %s:%u\n",
		    cfg->metrics_addr, cfg->metrics_port);
	fprintf(fp, "log-level = %s\nlog = %s\n", levels[lvl],
	    cfg->log_syslog ? "syslog" : "stderr");
	autorate_config_print_general(cfg, fp);
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (keywords_format(&cfg->cake[dir], opts, sizeof(opts)) == -1)
			return -1;
		fprintf(fp, "\n[%s]\noptions = \"%s\"\n",
		    config_dir_name(dir), opts);
		if (cfg->workers[dir] != 1)
			fprintf(fp, "workers = %u\n", cfg->workers[dir]);
		autorate_config_print_dir(cfg, dir, fp);
	}
	return ferror(fp) ? -1 : 0;
}

const char *
config_restart_needed(const struct caked_config *old,
    const struct caked_config *new)
{
	if (old->mode != new->mode)
		return "[general] mode";
	if (strcmp(old->lan, new->lan) != 0)
		return "[general] lan";
	if (strcmp(old->wan, new->wan) != 0)
		return "[general] wan";
	if (old->mtu != new->mtu)
		return "[general] mtu";
	if (old->offload != new->offload)
		return "[general] offload";
	if (old->queues != new->queues)
		return "[general] queues-per-device";
	if (old->threads != new->threads)
		return "[general] threads";
	if (old->nat_cache_size != new->nat_cache_size)
		return "[general] nat-cache-size";
	if (strcmp(old->control, new->control) != 0)
		return "[general] control";
	if (strcmp(old->metrics_addr, new->metrics_addr) != 0 ||
	    old->metrics_port != new->metrics_port)
		return "[general] metrics-listen";
	if (strcmp(old->user, new->user) != 0)
		return "[general] user";
	if (strcmp(old->control_group, new->control_group) != 0)
		return "[general] control-group";
	if (strcmp(old->admin_group, new->admin_group) != 0)
		return "[general] admin-group";
	if (old->log_syslog != new->log_syslog)
		return "[general] log";
	/* The engine sizes its flow tables once (cake_change refuses). */
	if (old->cake[CONFIG_UPLOAD].queues != new->cake[CONFIG_UPLOAD].queues)
		return "[upload] queues";
	if (old->cake[CONFIG_DOWNLOAD].queues !=
	    new->cake[CONFIG_DOWNLOAD].queues)
		return "[download] queues";
	if (old->workers[CONFIG_UPLOAD] != new->workers[CONFIG_UPLOAD])
		return "[upload] workers";
	if (old->workers[CONFIG_DOWNLOAD] != new->workers[CONFIG_DOWNLOAD])
		return "[download] workers";
	return NULL;
}
