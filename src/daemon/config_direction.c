/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_direction.c: the [upload] and [download] sections of caked.conf, for
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
#include "common/units.h"

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
config_direction_known_key(const char *key)
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
 * diffserv accept exactly the keywords of its kind without config_direction.c
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

/* What each keyword that takes a value expects of it. */
static const struct {
	const char	*kw;
	const char	*expected;
} dir_values[] = {
	{ "bandwidth", "a rate (e.g. 20mbit) or unlimited" },
	{ "rtt", "a time above 0 (e.g. 100ms)" },
	{ "memlimit", "a size (e.g. 4mb)" },
	{ "overhead", "a byte count from -64 to 256" },
	{ "mpu", "a byte count from 0 to 256" },
	{ "fwmark", "a mask (e.g. 0xff)" },
	{ "queues", "a power of two from 1024 to 65536" },
};

static const char *
config_value_expected(const char *kw)
{
	size_t	i;

	for (i = 0; i < sizeof(dir_values) / sizeof(dir_values[0]); i++)
		if (strcmp(dir_values[i].kw, kw) == 0)
			return dir_values[i].expected;
	return "a value";
}

/* One keyword (and its value) of a key's value, and where it came from. */
struct dir_item {
	const char	*argv[2];
	int		 argc;
	int		 from, to;	/* the value's tokens [from, to) */
	bool		 word;		/* a bare keyword of the value */
	unsigned int	 mask;		/* F_* it changes */
};

/* A key's value being read. */
struct dir_val {
	struct config_ctx	*ctx;
	int			 sec, line;
	const char		*key;
	const struct dir_key	*k;
	char			*tok[CONFIG_TOKENS_MAX];
	int			 ntok;
	struct dir_item		 item[CONFIG_TOKENS_MAX];
	int			 nitem;
};

/* Reports "[sec] key: expected EXPECTED, found 'tokens' HINT". */
static void
config_blame(struct dir_val *dv, const char *expected, int from, int to,
    const char *hint)
{
	char	found[INIFILE_LINE_MAX + 1];
	size_t	pos = 0;
	int	i;

	found[0] = '\0';
	for (i = from; i < to && i < dv->ntok; i++)
		(void)units_append(found, sizeof(found), &pos, "%s%s",
		    i > from ? " " : "", dv->tok[i]);
	inifile_error(dv->ctx->file, dv->line, "[%s] %s: expected %s, found "
	    "'%s'%s", dv->ctx->sections[dv->sec], dv->key, expected, found,
	    hint != NULL ? hint : "");
}

static struct dir_item *
config_item(struct dir_val *dv, const char *a, const char *b, int from,
    int to)
{
	struct dir_item	*it = &dv->item[dv->nitem++];

	memset(it, 0, sizeof(*it));
	it->argv[0] = a;
	it->argv[1] = b;
	it->argc = a == NULL ? 0 : b == NULL ? 1 : 2;
	it->from = from;
	it->to = to;
	return it;
}

/* A key that takes one token: bandwidth, mpu, nat, rtt 100ms, ... */
static int
config_items_single(struct dir_val *dv)
{
	const struct dir_key	*k = dv->k;
	const char		*v = dv->ntok > 0 ? dv->tok[0] : "";
	int			 b = config_bool(v);

	if (dv->ntok != 1 || (k->kind == DK_BOOL && b == -1) ||
	    (k->kind == DK_ACK && b == -1 && strcmp(v, "aggressive") != 0)) {
		config_blame(dv, k->expected, 0, dv->ntok, NULL);
		return -1;
	}
	if (k->kind == DK_BOOL)
		(void)config_item(dv, b ? k->arg_kw : k->no_kw, NULL, 0, 1);
	else if (k->kind == DK_ACK)
		(void)config_item(dv, b == -1 ? "ack-filter-aggressive" :
		    b ? "ack-filter" : "no-ack-filter", NULL, 0, 1);
	else if (k->kind == DK_RATE && strcmp(v, k->no_kw) == 0)
		(void)config_item(dv, v, NULL, 0, 1);
	else
		(void)config_item(dv, k->arg_kw, v, 0, 1);
	return 0;
}

/* Whether a bare keyword is of the kind key k takes. */
static bool
config_word_fits(const struct dir_key *k, unsigned int m)
{
	if (k->kind == DK_NUM_OR_WORDS)	/* framing presets, raw */
		return (m & ~F_FRAMING) == 0 && (m == 0 || (m & F_OVERHEAD));
	return m != 0 && (m & ~k->allowed) == 0;
}

/* options, and the keys that take bare keywords (diffserv, overhead). */
static int
config_items_words(struct dir_val *dv)
{
	const struct dir_key	*k = dv->k;
	const char		*t, *near;
	char			 hint[80];
	int			 i, a, opts = k->kind == DK_OPTIONS;

	for (i = 0; i < dv->ntok; i++) {
		t = dv->tok[i];
		if (k->kind == DK_NUM_OR_WORDS && config_is_number(t)) {
			(void)config_item(dv, k->arg_kw, t, i, i + 1);
			continue;
		}
		if ((a = keywords_arity(t)) == -1) {
			hint[0] = '\0';
			if ((near = keywords_suggest(t)) != NULL &&
			    (opts || (keywords_arity(near) == 0 &&
			    config_word_fits(k, config_probe(1,
			    (char **)&near)))))
				(void)snprintf(hint, sizeof(hint), " (did you "
				    "mean '%s'?)", near);
			config_blame(dv, opts ? "tc-cake keywords" :
			    k->expected, i, i + 1, hint);
			return -1;
		}
		if (a == 1 && !opts) {
			config_blame(dv, k->expected, i, i + 2, NULL);
			return -1;
		}
		if (a == 1 && i + 1 == dv->ntok) {
			inifile_error(dv->ctx->file, dv->line, "[%s] %s: "
			    "expected %s after '%s', found nothing",
			    dv->ctx->sections[dv->sec], dv->key,
			    config_value_expected(t), t);
			return -1;
		}
		if (a == 1) {
			(void)config_item(dv, t, dv->tok[i + 1], i, i + 2);
			i++;
		} else
			config_item(dv, t, NULL, i, i + 1)->word = !opts;
	}
	return 0;
}

/* Checks each item alone, so that the offending one can be named. */
static int
config_items_check(struct dir_val *dv)
{
	struct cake_config	 tmp;
	struct dir_item		*it;
	char			 err[KEYWORDS_ERR_MAX];
	int			 i, rtts = 0;

	for (i = 0; i < dv->nitem; i++) {
		it = &dv->item[i];
		cake_config_default(&tmp);
		if (it->argc > 0 && keywords_parse_argv(&tmp, it->argc,
		    (char *const *)it->argv, err, sizeof(err)) == -1) {
			config_blame(dv, config_value_expected(it->argv[0]),
			    it->to - 1, it->to, NULL);
			return -1;
		}
		it->mask = it->argc > 0 ? config_probe(it->argc,
		    (char **)it->argv) : 0;
		if (it->argc > 0 && (strcmp(it->argv[0], "bandwidth") == 0 ||
		    strcmp(it->argv[0], "unlimited") == 0))
			it->mask &= ~(F_GSO | F_AUTORATE);
		if ((it->word && !config_word_fits(dv->k, it->mask)) ||
		    (dv->k->kind == DK_WORD && i > 0)) {
			config_blame(dv, dv->k->expected, it->from, it->to,
			    NULL);
			return -1;
		}
		if ((it->mask & F_RTT) && rtts++ > 0) {
			config_blame(dv, "at most one rtt or RTT preset",
			    it->from, it->to, NULL);
			return -1;
		}
	}
	return 0;
}

/* Notes on values that are valid but probably not what was meant. */
static void
config_items_notes(struct dir_val *dv)
{
	struct config_dir_info	*di = &dv->ctx->dir[dv->sec - SEC_UPLOAD];
	struct dir_item		*it;
	unsigned int		 m = 0;
	int			 i, kind;

	for (i = 0; i < dv->nitem; i++) {
		it = &dv->item[i];
		m |= it->mask;
		if (it->argc != 2)
			continue;
		kind = strcmp(it->argv[0], "bandwidth") == 0 ? UNITS_RATE :
		    strcmp(it->argv[0], "rtt") == 0 ? UNITS_TIME :
		    strcmp(it->argv[0], "memlimit") == 0 ? UNITS_SIZE : -1;
		if (kind != -1)
			(void)config_note_unit(dv->ctx->file, dv->line,
			    dv->ctx->sections[dv->sec], dv->key, kind,
			    it->argv[1]);
	}
	if (m & F_RATE)
		di->rate_line = dv->line;
	if (dv->k->kind == DK_OPTIONS) {
		di->options_line = dv->line;
		di->options_mask = m;
	} else if ((m & di->options_mask) != 0)
		inifile_note(dv->ctx->file, dv->line, "[%s] %s: overrides "
		    "what options (line %d) sets", dv->ctx->sections[dv->sec],
		    dv->key, di->options_line);
}

static void
config_dir_key(struct config_ctx *ctx, int sec, const char *key, int lineno,
    const struct dir_key *k, struct cake_config *cc)
{
	char			 value[INIFILE_LINE_MAX + 1];
	char			 err[KEYWORDS_ERR_MAX];
	const char		*argv[2 * CONFIG_TOKENS_MAX];
	struct dir_val		 dv;
	struct cake_config	 next = *cc;
	int			 argc = 0, i, j, words;

	memset(&dv, 0, sizeof(dv));
	dv.ctx = ctx;
	dv.sec = sec;
	dv.line = lineno;
	dv.key = key;
	dv.k = k;
	config_value(ctx, sec, key, value, sizeof(value));
	if ((dv.ntok = config_split(value, dv.tok, CONFIG_TOKENS_MAX)) ==
	    -1) {
		inifile_error(ctx->file, lineno, "[%s] %s: expected at most "
		    "%d keywords, found more", ctx->sections[sec], key,
		    CONFIG_TOKENS_MAX);
		return;
	}
	words = k->kind == DK_OPTIONS || k->kind == DK_WORD ||
	    k->kind == DK_NUM_OR_WORDS || (k->kind == DK_TIME_OR_WORD &&
	    dv.ntok == 1 && !isdigit((unsigned char)*dv.tok[0]));
	if (words && dv.ntok == 0 && k->kind != DK_OPTIONS) {
		config_blame(&dv, k->expected, 0, 0, NULL);
		return;
	}
	if ((words ? config_items_words(&dv) : config_items_single(&dv)) ==
	    -1 || config_items_check(&dv) == -1)
		return;
	for (i = 0; i < dv.nitem; i++)
		for (j = 0; j < dv.item[i].argc; j++)
			argv[argc++] = dv.item[i].argv[j];
	/* tc-cake has no keyword that turns autorate-ingress off. */
	if (k->kind == DK_BOOL && argc == 0) {
		cc->autorate_ingress = false;
		return;
	}
	if (keywords_parse_argv(&next, argc, (char *const *)argv, err,
	    sizeof(err)) == -1) {
		(void)snprintf(value, sizeof(value), " (%s)", err);
		config_blame(&dv, k->expected, 0, dv.ntok, value);
		return;
	}
	config_items_notes(&dv);
	if (ctx->dir[sec - SEC_UPLOAD].rate_line == lineno)
		ctx->dir[sec - SEC_UPLOAD].rate_Bps = next.rate_Bps;
	*cc = next;
}

void
config_direction(struct config_ctx *ctx, int sec, struct cake_config *cc)
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
