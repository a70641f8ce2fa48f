/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * autorate_config.c: the autorate keys of caked.conf.
 *
 *   [general]  autorate-reflectors = IPv4 and IPv6 addresses (at most 16)
 *              autorate-reflectors-active = N (1..16, default 3)
 *              autorate-probe      = auto | echo | timestamp
 *              autorate-interval   = TIME (probe and tick period)
 *              autorate-idle-after = TIME (default 10s)
 *              autorate-idle-interval = TIME (default 1s)
 *   [upload] / [download]
 *              autorate = yes | no
 *              autorate-min, autorate-base, autorate-max = RATE
 *              autorate-delay-threshold = TIME
 *
 * Rates and times are spelled as in tc-cake (keywords_parse_rate/_time).
 * Every problem names the file, line, section and key; nothing is
 * clamped or guessed. This module reads values only; config.c owns the
 * file, the other keys and the reporting.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iniparser.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "daemon/autorate_config.h"
#include "daemon/autorate.h"
#include "common/units.h"
#include "daemon/config.h"
#include "daemon/config_int.h"
#include "daemon/inifile.h"

#define AR_THRESHOLD_MIN_US	1000		/* 1 ms */
#define AR_THRESHOLD_MAX_US	1000000		/* 1 s */
#define AR_INTERVAL_MIN_US	10000		/* 10 ms */
#define AR_INTERVAL_MAX_US	1000000		/* 1 s */
#define AR_IDLE_AFTER_MIN_US	1000000		/* 1 s */
#define AR_IDLE_AFTER_MAX_US	3600000000U	/* 1 h */
#define AR_IDLE_IVL_MIN_US	10000		/* 10 ms */
#define AR_IDLE_IVL_MAX_US	60000000	/* 1 min */

static const char *const ar_general_keys[] = {
	"autorate-reflectors", "autorate-interval",
	"autorate-reflectors-active", "autorate-probe", "autorate-idle-after",
	"autorate-idle-interval", "autorate-passive",
};
static const char *const ar_dir_keys[] = {
	"autorate", "autorate-min", "autorate-base", "autorate-max",
	"autorate-delay-threshold",
};
#define NKEYS(a)	(sizeof(a) / sizeof((a)[0]))

struct ar_ctx {
	struct inifile		*f;
	dictionary		*d;
	const char *const	*sections;
};

bool
autorate_config_known_key(bool general, const char *key)
{
	const char *const	*k = general ? ar_general_keys :
				    ar_dir_keys;
	size_t			 i, n = general ? NKEYS(ar_general_keys) :
				    NKEYS(ar_dir_keys);

	for (i = 0; i < n; i++)
		if (strcmp(k[i], key) == 0)
			return true;
	return false;
}

/* Sets the autorate defaults in cfg (autorate off). */
static void
ar_defaults(struct caked_config *cfg)
{
	int	i;

	for (i = 0; i < CONFIG_DIRS; i++)
		autorate_params_default(&cfg->autorate[i]);
	cfg->reflectors_n = 0;
	cfg->reflectors_active = AUTORATE_DEF_ACTIVE;
	cfg->autorate_probe = AUTORATE_PROBE_AUTO;
	cfg->autorate_passive = true;
	cfg->autorate_idle_after_ns = AUTORATE_DEF_IDLE_AFTER_NS;
	cfg->autorate_idle_interval_ns = AUTORATE_DEF_IDLE_INTERVAL_NS;
}

/* The value of sec:key without quotes, or NULL if the key is absent. */
static const char *
ar_value(struct ar_ctx *x, int sec, const char *key, int *line,
    char *buf, size_t len)
{
	if ((*line = inifile_find(x->f, sec, key)) == 0)
		return NULL;
	return inifile_value(x->d, x->sections[sec], key, buf, len);
}

static void
ar_expect(struct ar_ctx *x, int line, int sec, const char *key,
    const char *expected, const char *v)
{
	inifile_error(x->f, line, "[%s] %s: expected %s, found '%s'",
	    x->sections[sec], key, expected, v);
}

/* A time key between lo_us and hi_us; returns 0 and sets *ns. */
static int
ar_time(struct ar_ctx *x, int sec, const char *key, uint32_t lo_us,
    uint32_t hi_us, uint64_t *ns)
{
	char		 buf[INIFILE_LINE_MAX + 1], err[KEYWORDS_ERR_MAX];
	char		 expected[96];
	const char	*v;
	uint32_t	 us;
	int		 line;

	if ((v = ar_value(x, sec, key, &line, buf, sizeof(buf))) == NULL)
		return -1;
	if (keywords_parse_time(v, &us, err, sizeof(err)) == -1 ||
	    us < lo_us || us > hi_us) {
		(void)snprintf(expected, sizeof(expected), "a time from %ums "
		    "to %ums (e.g. 15ms)", lo_us / 1000, hi_us / 1000);
		ar_expect(x, line, sec, key, expected, v);
		return -1;
	}
	(void)config_note_unit(x->f, line, x->sections[sec], key, UNITS_TIME,
	    v);
	*ns = (uint64_t)us * 1000;
	return 0;
}

/* One address, IPv4 or IPv6; -1 if it is neither. */
static int
ar_addr(const char *tok, struct autorate_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, tok, &a->u.v4) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, tok, &a->u.v6) == 1)
		a->family = AF_INET6;
	else
		return -1;
	return 0;
}

static void
ar_reflectors(struct ar_ctx *x, struct caked_config *cfg)
{
	char			 buf[INIFILE_LINE_MAX + 1], *tok, *save = NULL;
	const char		*key = "autorate-reflectors";
	struct autorate_addr	 a;
	unsigned int		 n = 0, i;
	int			 line;

	if (ar_value(x, 0, key, &line, buf, sizeof(buf)) == NULL)
		return;
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t,", &save)) {
		if (ar_addr(tok, &a) == -1) {
			ar_expect(x, line, 0, key, "IPv4 or IPv6 addresses",
			    tok);
			return;
		}
		for (i = 0; i < n; i++)
			if (memcmp(&cfg->reflectors[i], &a, sizeof(a)) == 0)
				break;
		if (i < n) {
			ar_expect(x, line, 0, key, "each address once",
			    tok);
			return;
		}
		if (n == AUTORATE_REFLECTORS_MAX) {
			inifile_error(x->f, line, "[%s] %s: expected at most "
			    "%d addresses, found more", x->sections[0], key,
			    AUTORATE_REFLECTORS_MAX);
			return;
		}
		cfg->reflectors[n++] = a;
	}
	if (n == 0)
		ar_expect(x, line, 0, key, "IPv4 or IPv6 addresses", "");
	cfg->reflectors_n = n;
}

/* autorate-reflectors-active: how many of the pool are probed. */
static void
ar_active(struct ar_ctx *x, struct caked_config *cfg)
{
	char		 buf[INIFILE_LINE_MAX + 1], *end;
	const char	*key = "autorate-reflectors-active", *v;
	unsigned long	 n;
	int		 line;

	if ((v = ar_value(x, 0, key, &line, buf, sizeof(buf))) == NULL)
		return;
	n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || n < 1 ||
	    n > AUTORATE_REFLECTORS_MAX) {
		ar_expect(x, line, 0, key, "a number from 1 to 16", v);
		return;
	}
	cfg->reflectors_active = (unsigned int)n;
}

/* autorate-probe = auto | echo | timestamp */
static void
ar_probe(struct ar_ctx *x, struct caked_config *cfg)
{
	static const char *const names[] = { "auto", "echo", "timestamp" };
	char		 buf[INIFILE_LINE_MAX + 1];
	const char	*v;
	int		 line, i;

	if ((v = ar_value(x, 0, "autorate-probe", &line, buf,
	    sizeof(buf))) == NULL)
		return;
	for (i = 0; i < 3; i++)
		if (strcmp(v, names[i]) == 0) {
			cfg->autorate_probe = i;
			return;
		}
	ar_expect(x, line, 0, "autorate-probe", "auto, echo or timestamp",
	    v);
}

/* autorate-passive = yes|no: whether the passive delay reaches autorate. */
static void
ar_passive(struct ar_ctx *x, struct caked_config *cfg)
{
	char		 buf[INIFILE_LINE_MAX + 1];
	const char	*v;
	int		 line;

	if ((v = ar_value(x, 0, "autorate-passive", &line, buf,
	    sizeof(buf))) == NULL)
		return;
	if (config_bool(v) == -1)
		ar_expect(x, line, 0, "autorate-passive", "yes or no", v);
	else
		cfg->autorate_passive = config_bool(v) == 1;
}

/* autorate-min, -base and -max: sets *Bps if the key is present; -1 if
 * it is present and wrong (reported). */
static int
ar_rate(struct ar_ctx *x, int sec, const char *key, uint64_t *Bps)
{
	char		 buf[INIFILE_LINE_MAX + 1], err[KEYWORDS_ERR_MAX];
	const char	*v;
	uint64_t	 r;
	int		 line;

	if ((v = ar_value(x, sec, key, &line, buf, sizeof(buf))) == NULL)
		return 0;
	if (keywords_parse_rate(v, &r, err, sizeof(err)) == -1 || r == 0) {
		ar_expect(x, line, sec, key, "a rate above 0 (e.g. "
		    "20mbit)", v);
		return -1;
	}
	(void)config_note_unit(x->f, line, x->sections[sec], key, UNITS_RATE,
	    v);
	*Bps = r;
	return 0;
}

static void
ar_dir(struct ar_ctx *x, int dir, uint64_t interval_ns,
    int reflectors_bad, struct caked_config *cfg)
{
	struct autorate_params	*p = &cfg->autorate[dir];
	char			 buf[INIFILE_LINE_MAX + 1];
	const char		*v, *why;
	int			 sec = 1 + dir, line, first, bad;

	p->interval_ns = interval_ns;
	if ((v = ar_value(x, sec, "autorate", &line, buf,
	    sizeof(buf))) != NULL) {
		if (config_bool(v) != -1)
			p->enabled = config_bool(v);
		else
			ar_expect(x, line, sec, "autorate", "yes or no",
			    v);
	}
	/* A wrong value is one mistake: no "must be set" after it. */
	bad = ar_rate(x, sec, "autorate-min", &p->min_Bps);
	bad |= ar_rate(x, sec, "autorate-base", &p->base_Bps);
	bad |= ar_rate(x, sec, "autorate-max", &p->max_Bps);
	(void)ar_time(x, sec, "autorate-delay-threshold",
	    AR_THRESHOLD_MIN_US, AR_THRESHOLD_MAX_US,
	    &p->threshold_ns);
	if (!p->enabled)
		return;
	first = inifile_find(x->f, sec, "autorate");
	if (!bad && *(why = autorate_params_check(p)) != '\0')
		inifile_error(x->f, first, "[%s] autorate: %s",
		    x->sections[sec], why);
	if (cfg->cake[dir].autorate_ingress)
		inifile_error(x->f, first, "[%s] autorate: cannot be used "
		    "with autorate-ingress (two controllers would fight)",
		    x->sections[sec]);
	if (cfg->reflectors_n == 0 && !reflectors_bad)
		inifile_error(x->f, first, "[%s] autorate: needs "
		    "autorate-reflectors in [%s]", x->sections[sec],
		    x->sections[0]);
	cfg->cake[dir].rate_Bps = p->base_Bps;	/* the starting rate */
}

void
autorate_config_load(struct inifile *f, dictionary *d,
    const char *const sections[3], struct caked_config *cfg)
{
	struct ar_ctx	x = { f, d, sections };
	uint64_t		interval_ns = AUTORATE_DEF_INTERVAL_NS;
	int			dir, errors = inifile_errors(f);

	ar_defaults(cfg);
	ar_reflectors(&x, cfg);
	errors = inifile_errors(f) != errors;	/* reflectors wrong */
	(void)ar_time(&x, 0, "autorate-interval", AR_INTERVAL_MIN_US,
	    AR_INTERVAL_MAX_US, &interval_ns);
	ar_active(&x, cfg);
	ar_probe(&x, cfg);
	ar_passive(&x, cfg);
	(void)ar_time(&x, 0, "autorate-idle-after", AR_IDLE_AFTER_MIN_US,
	    AR_IDLE_AFTER_MAX_US, &cfg->autorate_idle_after_ns);
	(void)ar_time(&x, 0, "autorate-idle-interval", AR_IDLE_IVL_MIN_US,
	    AR_IDLE_IVL_MAX_US, &cfg->autorate_idle_interval_ns);
	for (dir = 0; dir < CONFIG_DIRS; dir++)
		ar_dir(&x, dir, interval_ns, errors, cfg);
}

void
autorate_config_print_general(const struct caked_config *cfg, FILE *fp)
{
	static const char *const probe[] = { "auto", "echo", "timestamp" };
	char		a[INET6_ADDRSTRLEN];
	unsigned int	i;

	if (cfg->reflectors_n == 0)
		return;
	fprintf(fp, "autorate-reflectors =");
	for (i = 0; i < cfg->reflectors_n; i++)
		if (inet_ntop(cfg->reflectors[i].family,
		    &cfg->reflectors[i].u, a, sizeof(a)))
			fprintf(fp, " %s", a);
	fprintf(fp, "\nautorate-reflectors-active = %u\n"
	    "autorate-probe = %s\nautorate-interval = %lluus\n"
	    "autorate-idle-after = %lluus\nautorate-idle-interval = %lluus\n"
	    "autorate-passive = %s\n",
	    cfg->reflectors_active, probe[cfg->autorate_probe],
	    (unsigned long long)(cfg->autorate[0].interval_ns / 1000),
	    (unsigned long long)(cfg->autorate_idle_after_ns / 1000),
	    (unsigned long long)(cfg->autorate_idle_interval_ns / 1000),
	    cfg->autorate_passive ? "yes" : "no");
}

void
autorate_config_print_dir(const struct caked_config *cfg, int dir, FILE *fp)
{
	const struct autorate_params	*p = &cfg->autorate[dir];
	char				 r[3][32];

	if (!p->enabled)
		return;
	if (keywords_format_rate(p->min_Bps, r[0], sizeof(r[0])) == -1 ||
	    keywords_format_rate(p->base_Bps, r[1], sizeof(r[1])) == -1 ||
	    keywords_format_rate(p->max_Bps, r[2], sizeof(r[2])) == -1)
		return;
	fprintf(fp, "autorate = yes\nautorate-min = %s\nautorate-base = %s\n"
	    "autorate-max = %s\nautorate-delay-threshold = %lluus\n", r[0],
	    r[1], r[2], (unsigned long long)(p->threshold_ns / 1000));
}
