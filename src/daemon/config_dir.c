/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_dir.c: the [upload] and [download] sections of caked.conf, for
 * config.c.
 *
 * Each key is turned into tc-cake keyword tokens and given to
 * keywords_parse_argv(), so that keywords are spelled and checked in one
 * place (src/common/keywords.c). A key that takes bare keywords (such as
 * diffserv) accepts exactly those of its kind: the keywords are probed
 * for the fields they change. Every problem goes to the file's error
 * list (inifile_error()); nothing is clamped or guessed.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "daemon/config_int.h"
#include "daemon/inifile.h"

#define CONFIG_TOKENS_MAX	32	/* keyword tokens in one value */

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

/* Whether key belongs in [upload] or [download] (autorate keys aside). */
int
config_dir_known_key(const char *key)
{
	size_t	i;

	if (strcmp(key, DIR_ALIAS) == 0)
		return 1;
	for (i = 0; i < DIR_KEYS; i++)
		if (strcmp(dir_keys[i].name, key) == 0)
			return 1;
	return 0;
}

/* ---- values ------------------------------------------------------------ */

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

/* ---- keys -------------------------------------------------------------- */

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
 * diffserv accept exactly the keywords of its kind without config_dir.c
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
		    "%d keywords, found more", ctx->sections[sec], key,
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
			    ctx->sections[sec], key, err);
		else
			inifile_error(ctx->file, lineno, "[%s] %s: %s (found "
			    "'%s')", ctx->sections[sec], key, err, value);
		return;
	}
	if (bare && (config_probe(argc, argv) & ~k->allowed) != 0) {
		config_expect(ctx, lineno, sec, key, k->expected, value);
		return;
	}
	*cc = next;
}

void
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
		    "first set at line %d)", ctx->sections[sec],
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
}
