/*
 * config.c: reads caked.conf (INI) into a validated struct caked_config.
 *
 * iniparser supplies the values; inifile.c supplies what iniparser cannot
 * (line numbers, unknown names, duplicates) and collects the errors. Each
 * [upload]/[download] key is turned into tc-cake keyword tokens and given
 * to keywords_parse_argv(), so that keywords are spelled and checked in
 * one place (src/common/keywords.c). Every problem is reported with file,
 * line, section, key, what was expected and what was found; loading goes
 * on to find them all and fails at the end.
 *
 * This module does no I/O besides reading the file and looking up the
 * user; errors go to the caller's reporter (config_report_log() logs
 * them), and it never clamps or guesses a value.
 */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <iniparser.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "daemon/arconf.h"
#include "daemon/config.h"
#include "daemon/inifile.h"
#include "daemon/log.h"
#include "daemon/natcache.h"

#define CONFIG_TOKENS_MAX	32	/* keyword tokens in one value */

enum config_section {
	SEC_UNKNOWN = -1,
	SEC_GENERAL = 0,
	SEC_UPLOAD,
	SEC_DOWNLOAD,
	SEC_COUNT,
};

static const char *const config_sections[SEC_COUNT] = {
	"general", "upload", "download",
};

struct config_ctx {
	const char	*path;
	struct inifile	*file;		/* structure, lines and errors */
	dictionary	*dict;		/* values */
};

/* The parts of a struct cake_config that a key may change (see probe). */
#define F_RATE		0x0001
#define F_AUTORATE	0x0002
#define F_DIFFSERV	0x0004
#define F_FLOW		0x0008
#define F_NAT		0x0010
#define F_WASH		0x0020
#define F_INGRESS	0x0040
#define F_ACK		0x0080
#define F_GSO		0x0100
#define F_RTT		0x0200
#define F_OVERHEAD	0x0400	/* overhead and raw */
#define F_MPU		0x0800
#define F_ATM		0x1000
#define F_MEMLIMIT	0x2000
#define F_FWMARK	0x4000
#define F_QUEUES	0x8000
#define F_FRAMING	(F_OVERHEAD | F_MPU | F_ATM)

enum dir_kind {
	DK_OPTIONS,		/* a whole keyword line */
	DK_RATE,		/* "unlimited" or bandwidth RATE */
	DK_BOOL,		/* yes -> yes_kw, no -> no_kw */
	DK_WORD,		/* one bare keyword of the allowed kind */
	DK_ARG,			/* arg_kw VALUE */
	DK_TIME_OR_WORD,	/* arg_kw TIME, or one bare keyword */
	DK_NUM_OR_WORDS,	/* arg_kw NUMBER, or bare keywords */
	DK_ACK,			/* yes | no | aggressive */
};

struct dir_key {
	const char	*name;
	enum dir_kind	 kind;
	const char	*arg_kw;	/* keyword before value; DK_BOOL: yes */
	const char	*no_kw;		/* DK_BOOL: the no keyword */
	unsigned int	 allowed;	/* F_* a bare keyword may change */
	const char	*expected;	/* for error messages */
};

/*
 * [upload]/[download] keys in the order they are applied: options first,
 * so the other keys override it, and overhead before mpu and atm, so an
 * explicit mpu or atm overrides what a framing preset set.
 */
static const struct dir_key dir_keys[] = {
	{ "options", DK_OPTIONS, NULL, NULL, 0, "tc-cake keywords" },
	{ "bandwidth", DK_RATE, "bandwidth", "unlimited",
	    F_RATE | F_AUTORATE, "a rate (e.g. 20mbit) or unlimited" },
	{ "autorate-ingress", DK_BOOL, "autorate-ingress", NULL,
	    F_AUTORATE, "yes or no" },
	{ "diffserv", DK_WORD, NULL, NULL, F_DIFFSERV,
	    "a DiffServ keyword (e.g. diffserv4)" },
	{ "flow-mode", DK_WORD, NULL, NULL, F_FLOW,
	    "an isolation keyword (e.g. triple-isolate)" },
	{ "rtt", DK_TIME_OR_WORD, "rtt", NULL, F_RTT,
	    "a time (e.g. 100ms) or an RTT preset (e.g. internet)" },
	{ "overhead", DK_NUM_OR_WORDS, "overhead", NULL, F_FRAMING,
	    "a byte count or framing keywords (e.g. docsis)" },
	{ "mpu", DK_ARG, "mpu", NULL, F_MPU, "a byte count" },
	{ "atm", DK_WORD, NULL, NULL, F_ATM, "atm, ptm or noatm" },
	{ "memlimit", DK_ARG, "memlimit", NULL, F_MEMLIMIT,
	    "a size (e.g. 4mb)" },
	{ "fwmark", DK_ARG, "fwmark", NULL, F_FWMARK, "a mask (e.g. 0xff)" },
	{ "queues", DK_ARG, "queues", NULL, F_QUEUES,
	    "a power of two from 1024 to 65536" },
	{ "ack-filter", DK_ACK, NULL, NULL, F_ACK, "yes, no or aggressive" },
	{ "nat", DK_BOOL, "nat", "nonat", F_NAT, "yes or no" },
	{ "wash", DK_BOOL, "wash", "nowash", F_WASH, "yes or no" },
	{ "ingress", DK_BOOL, "ingress", "egress", F_INGRESS, "yes or no" },
	{ "split-gso", DK_BOOL, "split-gso", "no-split-gso", F_GSO,
	    "yes or no" },
};
#define DIR_KEYS	(sizeof(dir_keys) / sizeof(dir_keys[0]))
#define DIR_ALIAS	"isolation"	/* spelled like tc-cake's man page */
#define DIR_ALIASED	"flow-mode"

static const char *const general_keys[] = {
	"mode", "lan", "wan", "mtu", "control", "user", "log-level", "log",
	"control-group", "admin-group", "offload", "nat-cache-size",
	"nat-cache-expiry",
};
#define GENERAL_KEYS	(sizeof(general_keys) / sizeof(general_keys[0]))

void
config_report_log(void *arg, const char *msg)
{
	(void)arg;
	log_warnx("%s", msg);
}

const char *
config_dir_name(enum config_dir dir)
{
	return dir == CONFIG_UPLOAD ? "upload" : "download";
}

static int
config_known_key(int section, const char *key)
{
	size_t	i;

	if (arconf_known_key(section == SEC_GENERAL, key))
		return 1;
	if (section == SEC_GENERAL) {
		for (i = 0; i < GENERAL_KEYS; i++)
			if (strcmp(general_keys[i], key) == 0)
				return 1;
		return 0;
	}
	if (strcmp(key, DIR_ALIAS) == 0)
		return 1;
	for (i = 0; i < DIR_KEYS; i++)
		if (strcmp(dir_keys[i].name, key) == 0)
			return 1;
	return 0;
}

/* ---- values ------------------------------------------------------------ */

/* The value of section:key as iniparser read it, quotes stripped. */
static const char *
config_value(struct config_ctx *ctx, int section, const char *key,
    char *buf, size_t len)
{
	return inifile_value(ctx->dict, config_sections[section], key, buf,
	    len);
}

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
		if (v > (max - (unsigned long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*out = v;
	return 0;
}

static int
config_is_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Splits s (modified) at white space into argv; returns argc or -1. */
static int
config_split(char *s, char *argv[], int max)
{
	int	argc = 0;
	char	*save = NULL, *tok;

	for (tok = strtok_r(s, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		if (argc == max)
			return -1;
		argv[argc++] = tok;
	}
	return argc;
}

static void
config_expect(struct config_ctx *ctx, int line, int section, const char *key,
    const char *expected, const char *value)
{
	inifile_error(ctx->file, line, "[%s] %s: expected %s, found '%s'",
	    config_sections[section], key, expected, value);
}

/* ---- [upload] and [download] ------------------------------------------- */

static unsigned int
config_changed(const struct cake_config *a, const struct cake_config *b)
{
	unsigned int	m = 0;

	m |= a->rate_Bps != b->rate_Bps ? F_RATE : 0;
	m |= a->autorate_ingress != b->autorate_ingress ? F_AUTORATE : 0;
	m |= a->diffserv != b->diffserv ? F_DIFFSERV : 0;
	m |= a->flow_mode != b->flow_mode ? F_FLOW : 0;
	m |= a->nat != b->nat ? F_NAT : 0;
	m |= a->wash != b->wash ? F_WASH : 0;
	m |= a->ingress != b->ingress ? F_INGRESS : 0;
	m |= a->ack_filter != b->ack_filter ? F_ACK : 0;
	m |= a->split_gso != b->split_gso ? F_GSO : 0;
	m |= a->rtt_us != b->rtt_us || a->target_us != b->target_us ?
	    F_RTT : 0;
	m |= a->raw != b->raw || a->overhead != b->overhead ? F_OVERHEAD : 0;
	m |= a->mpu != b->mpu ? F_MPU : 0;
	m |= a->atm != b->atm ? F_ATM : 0;
	m |= a->memlimit_bytes != b->memlimit_bytes ? F_MEMLIMIT : 0;
	m |= a->fwmark_mask != b->fwmark_mask ? F_FWMARK : 0;
	m |= a->queues != b->queues ? F_QUEUES : 0;
	return m;
}

/*
 * Which parts of a configuration the keywords in argv change. They are
 * applied to two bases that differ in every field, so a keyword shows up
 * even where it restates a base's value. This lets a key such as
 * diffserv accept exactly the keywords of its kind without config.c
 * keeping its own list of them.
 */
static unsigned int
config_probe(int argc, char *argv[])
{
	struct cake_config	base[2], probe;
	char			err[KEYWORDS_ERR_MAX];
	unsigned int		m = 0;
	int			i;

	cake_config_default(&base[0]);
	base[1] = base[0];
	base[1].rate_Bps = 1000;
	base[1].autorate_ingress = !base[0].autorate_ingress;
	base[1].diffserv = base[0].diffserv == CAKE_BESTEFFORT ?
	    CAKE_DIFFSERV8 : CAKE_BESTEFFORT;
	base[1].flow_mode = base[0].flow_mode == CAKE_FLOW_FLOWS ?
	    CAKE_FLOW_BLIND : CAKE_FLOW_FLOWS;
	base[1].nat = !base[0].nat;
	base[1].wash = !base[0].wash;
	base[1].ingress = !base[0].ingress;
	base[1].ack_filter = base[0].ack_filter == CAKE_ACK_AGGRESSIVE ?
	    CAKE_ACK_NONE : CAKE_ACK_AGGRESSIVE;
	base[1].split_gso = !base[0].split_gso;
	base[1].rtt_us = base[0].rtt_us + 1234;
	base[1].target_us = base[0].target_us + 56;
	base[1].raw = !base[0].raw;
	base[1].overhead = base[0].overhead + 7;
	base[1].mpu = base[0].mpu + 9;
	base[1].atm = base[0].atm == CAKE_ATM_PTM ? CAKE_ATM_NONE :
	    CAKE_ATM_PTM;
	base[1].memlimit_bytes = base[0].memlimit_bytes + 123456;
	base[1].fwmark_mask = base[0].fwmark_mask ^ 0x10;
	base[1].queues = base[0].queues * 2;
	for (i = 0; i < 2; i++) {
		probe = base[i];
		if (keywords_parse_argv(&probe, argc, argv, err,
		    sizeof(err)) == 0)
			m |= config_changed(&base[i], &probe);
	}
	return m;
}

/* Writes "kw value" (or either alone, if the other is NULL) into line. */
static void
config_join(char *line, size_t len, const char *kw, const char *value)
{
	(void)snprintf(line, len, "%s%s%s", kw != NULL ? kw : "",
	    kw != NULL && value != NULL ? " " : "", value != NULL ? value : "");
}

/*
 * Writes the keyword line that "key = value" stands for into line.
 * Returns 1 if it consists of bare keywords (to be probed), 0 if not, -1
 * if the value does not have the shape the key expects.
 */
static int
config_dir_line(const struct dir_key *k, const char *v, char *line,
    size_t len)
{
	int	single = *v != '\0' && strpbrk(v, " \t") == NULL;

	switch (k->kind) {
	case DK_OPTIONS:
		config_join(line, len, NULL, v);
		return 0;
	case DK_BOOL:
	case DK_ACK:
		if (strcmp(v, "yes") == 0)
			config_join(line, len, k->kind == DK_BOOL ?
			    k->arg_kw : "ack-filter", NULL);
		else if (strcmp(v, "no") == 0)
			config_join(line, len, k->kind == DK_BOOL ?
			    k->no_kw : "no-ack-filter", NULL);
		else if (k->kind == DK_ACK && strcmp(v, "aggressive") == 0)
			config_join(line, len, "ack-filter-aggressive", NULL);
		else
			return -1;
		return 0;
	case DK_RATE:
		if (single && strcmp(v, k->no_kw) == 0)
			config_join(line, len, NULL, v);
		else
			config_join(line, len, k->arg_kw, v);
		return single ? 0 : -1;
	case DK_WORD:
		config_join(line, len, NULL, v);
		return single ? 1 : -1;
	case DK_ARG:
		config_join(line, len, k->arg_kw, v);
		return single ? 0 : -1;
	case DK_TIME_OR_WORD:
		if (!single)
			return -1;
		if (isdigit((unsigned char)*v)) {
			config_join(line, len, k->arg_kw, v);
			return 0;
		}
		config_join(line, len, NULL, v);
		return 1;
	case DK_NUM_OR_WORDS:
		if (*v == '\0')
			return -1;
		if (config_is_number(v)) {
			config_join(line, len, k->arg_kw, v);
			return 0;
		}
		config_join(line, len, NULL, v);
		return 1;
	}
	return -1;
}

static void
config_dir_key(struct config_ctx *ctx, int sec, const char *key, int lineno,
    const struct dir_key *k, struct cake_config *cc)
{
	char			 value[INIFILE_LINE_MAX + 1];
	char			 line[INIFILE_LINE_MAX + 64];
	char			 err[KEYWORDS_ERR_MAX];
	char			*argv[CONFIG_TOKENS_MAX];
	struct cake_config	 next = *cc;
	int			 argc, bare;

	config_value(ctx, sec, key, value, sizeof(value));
	if ((bare = config_dir_line(k, value, line, sizeof(line))) == -1) {
		config_expect(ctx, lineno, sec, key, k->expected, value);
		return;
	}
	if ((argc = config_split(line, argv, CONFIG_TOKENS_MAX)) == -1) {
		inifile_error(ctx->file, lineno, "[%s] %s: expected at most "
		    "%d keywords, found more", config_sections[sec], key,
		    CONFIG_TOKENS_MAX);
		return;
	}
	/* tc-cake has no keyword that turns autorate-ingress off. */
	if (k->kind == DK_BOOL && argc == 0 && strcmp(value, "no") == 0) {
		cc->autorate_ingress = false;
		return;
	}
	if (keywords_parse_argv(&next, argc, argv, err, sizeof(err)) == -1) {
		if (strstr(err, value) != NULL)
			inifile_error(ctx->file, lineno, "[%s] %s: %s",
			    config_sections[sec], key, err);
		else
			inifile_error(ctx->file, lineno, "[%s] %s: %s (found "
			    "'%s')", config_sections[sec], key, err, value);
		return;
	}
	if (bare && (config_probe(argc, argv) & ~k->allowed) != 0) {
		config_expect(ctx, lineno, sec, key, k->expected, value);
		return;
	}
	*cc = next;
}

/*
 * options comes first, so a bandwidth key after it brings the split-gso
 * default of its rate; a split-gso or no-split-gso written in options
 * must still win (unless the split-gso key itself is set).
 */
static void
config_dir_options_split(struct config_ctx *ctx, int sec,
    struct cake_config *cc)
{
	char	 value[INIFILE_LINE_MAX + 1];
	char	*argv[CONFIG_TOKENS_MAX];
	int	 argc, i;

	if (inifile_find(ctx->file, sec, "options") == 0 ||
	    inifile_find(ctx->file, sec, "split-gso") != 0)
		return;
	config_value(ctx, sec, "options", value, sizeof(value));
	if ((argc = config_split(value, argv, CONFIG_TOKENS_MAX)) == -1)
		return;		/* reported */
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "split-gso") == 0)
			cc->split_gso = true;
		else if (strcmp(argv[i], "no-split-gso") == 0)
			cc->split_gso = false;
	}
}

static void
config_dir(struct config_ctx *ctx, int sec, struct cake_config *cc)
{
	const char	*key;
	size_t		 i;
	int		 line, alias;

	cake_config_default(cc);
	line = inifile_find(ctx->file, sec, DIR_ALIASED);
	alias = inifile_find(ctx->file, sec, DIR_ALIAS);
	if (line != 0 && alias != 0) {
		inifile_error(ctx->file, line > alias ? line : alias,
		    "[%s] %s: duplicate key (%s and %s are the same key; "
		    "first set at line %d)", config_sections[sec],
		    line > alias ? DIR_ALIASED : DIR_ALIAS, DIR_ALIASED,
		    DIR_ALIAS, line < alias ? line : alias);
	}
	for (i = 0; i < DIR_KEYS; i++) {
		key = dir_keys[i].name;
		line = inifile_find(ctx->file, sec, key);
		if (line == 0 && strcmp(key, DIR_ALIASED) == 0) {
			key = DIR_ALIAS;
			line = inifile_find(ctx->file, sec, key);
		}
		if (line != 0)
			config_dir_key(ctx, sec, key, line, &dir_keys[i], cc);
	}
	config_dir_options_split(ctx, sec, cc);
}

/* ---- [general] --------------------------------------------------------- */

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
	    0 || strpbrk(v, "/: \t") != NULL)
		config_expect(ctx, line, SEC_GENERAL, key, "a device name "
		    "without '/', ':' or white space", v);
	else
		(void)snprintf(dst, IFNAMSIZ, "%s", v);
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
	else if (strcmp(key, "offload") == 0) {
		if (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0)
			cfg->offload = strcmp(v, "yes") == 0;
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
	cfg->nat_cache_size = NATCACHE_SIZE_DEFAULT;
	cfg->nat_cache_expiry_s = NATCACHE_EXPIRY_DEFAULT_S;
	(void)snprintf(cfg->control, sizeof(cfg->control), "%s",
	    CONFIG_DEFAULT_CONTROL);
	cfg->log_level = LOG_INFO;
	cfg->control_gid = cfg->admin_gid = (gid_t)-1;
	cake_config_default(&cfg->cake[CONFIG_UPLOAD]);
	cake_config_default(&cfg->cake[CONFIG_DOWNLOAD]);
}

static const struct inifile_schema config_schema = {
	config_sections, SEC_COUNT, "[general], [upload] or [download]",
	config_known_key,
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
	if ((ctx.file = inifile_open(path, &config_schema)) == NULL) {
		log_warn("%s", __func__);
		return -1;
	}
	config_defaults(&cfg);
	iniparser_set_error_callback(config_iniparser_error);
	if (!inifile_was_read(ctx.file))
		goto out;	/* reported */
	if ((ctx.dict = iniparser_load(path)) == NULL) {
		if (inifile_errors(ctx.file) == 0)
			inifile_error(ctx.file, 0, "iniparser cannot parse "
			    "the file");
		else
			inifile_error(ctx.file, 0, "values not checked "
			    "because of the syntax errors above");
		goto out;
	}
	config_general(&ctx, &cfg);
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (inifile_section_line(ctx.file, SEC_UPLOAD + dir) == 0)
			continue;	/* absent: unshaped defaults */
		cfg.shaped[dir] = true;
		config_dir(&ctx, SEC_UPLOAD + dir, &cfg.cake[dir]);
	}
	arconf_load(ctx.file, ctx.dict, config_sections, &cfg);
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
	if (cfg->nat_cache_size != NATCACHE_SIZE_DEFAULT)
		fprintf(fp, "nat-cache-size = %u\n", cfg->nat_cache_size);
	if (cfg->nat_cache_expiry_s != NATCACHE_EXPIRY_DEFAULT_S)
		fprintf(fp, "nat-cache-expiry = %us\n",
		    cfg->nat_cache_expiry_s);
	fprintf(fp, "log-level = %s\nlog = %s\n", levels[lvl],
	    cfg->log_syslog ? "syslog" : "stderr");
	arconf_print_general(cfg, fp);
	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (keywords_format(&cfg->cake[dir], opts, sizeof(opts)) == -1)
			return -1;
		fprintf(fp, "\n[%s]\noptions = \"%s\"\n",
		    config_dir_name(dir), opts);
		arconf_print_dir(cfg, dir, fp);
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
	if (old->nat_cache_size != new->nat_cache_size)
		return "[general] nat-cache-size";
	if (strcmp(old->control, new->control) != 0)
		return "[general] control";
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
	return NULL;
}
