/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * parser.c: cakectl's command grammar as token tables, one per parser
 * state (as OpenBSD ikectl/parser.c): a word is looked up in the current
 * table, which names the action, the argument it sets and the next table.
 * The result is an action and the request line for the daemon.
 *
 * It checks only the shape of a command; the daemon validates CAKE
 * keywords itself (keywords_parse_argv), so their errors are the engine's
 * own. No I/O.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caked/ctl.h"
#include "ctl/parser.h"

enum token_type {
	TOK_END = 0,		/* end of a table */
	TOK_NONE,		/* the command may end here */
	TOK_KEYWORD,		/* a fixed word */
	TOK_DIR,		/* upload or download */
	TOK_REST,		/* one or more words, passed on as they are */
	TOK_FLAG,		/* a word for cakectl alone (--tc): not sent */
};

struct token {
	enum token_type		 type;
	const char		*word;
	enum parser_action	 action;
	const struct token	*next;
};

static const struct token t_keywords[] = {
	{ TOK_REST, "KEYWORD ...", PARSER_NONE, NULL },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_dir[] = {
	{ TOK_DIR, CTL_DIR_UPLOAD, PARSER_NONE, t_keywords },
	{ TOK_DIR, CTL_DIR_DOWNLOAD, PARSER_NONE, t_keywords },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_dir_opt[] = {
	{ TOK_NONE, NULL, PARSER_NONE, NULL },
	{ TOK_DIR, CTL_DIR_UPLOAD, PARSER_NONE, NULL },
	{ TOK_DIR, CTL_DIR_DOWNLOAD, PARSER_NONE, NULL },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_end[] = {
	{ TOK_NONE, NULL, PARSER_NONE, NULL },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_stats_tc[] = {
	{ TOK_NONE, NULL, PARSER_NONE, NULL },
	{ TOK_FLAG, "--tc", PARSER_NONE, t_end },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_stats[] = {
	{ TOK_NONE, NULL, PARSER_NONE, NULL },
	{ TOK_DIR, CTL_DIR_UPLOAD, PARSER_NONE, t_stats_tc },
	{ TOK_DIR, CTL_DIR_DOWNLOAD, PARSER_NONE, t_stats_tc },
	{ TOK_FLAG, "--tc", PARSER_NONE, t_end },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

static const struct token t_main[] = {
	{ TOK_KEYWORD, CTL_CMD_FLOWS, PARSER_FLOWS, t_dir_opt },
	{ TOK_KEYWORD, CTL_CMD_HOSTS, PARSER_HOSTS, t_dir_opt },
	{ TOK_KEYWORD, "metrics", PARSER_METRICS, t_dir_opt },
	{ TOK_KEYWORD, CTL_CMD_PING, PARSER_PING, t_end },
	{ TOK_KEYWORD, CTL_CMD_RELOAD, PARSER_RELOAD, t_end },
	{ TOK_KEYWORD, CTL_CMD_SET, PARSER_SET, t_dir },
	{ TOK_KEYWORD, CTL_CMD_STATS, PARSER_STATS, t_stats },
	{ TOK_KEYWORD, "top", PARSER_TOP, t_dir_opt },
	{ TOK_KEYWORD, CTL_CMD_VERSION, PARSER_VERSION, t_end },
	{ TOK_KEYWORD, "watch", PARSER_WATCH, t_dir_opt },
	{ TOK_END, NULL, PARSER_NONE, NULL },
};

/* The daemon's command for each action. */
static const char *const parser_request[] = {
	[PARSER_FLOWS] = CTL_CMD_FLOWS,
	[PARSER_HOSTS] = CTL_CMD_HOSTS,
	[PARSER_METRICS] = CTL_CMD_STATS,
	[PARSER_PING] = CTL_CMD_PING,
	[PARSER_RELOAD] = CTL_CMD_RELOAD,
	[PARSER_SET] = CTL_CMD_SET,
	[PARSER_STATS] = CTL_CMD_STATS,
	[PARSER_TOP] = CTL_CMD_STATS,	/* top.c makes its own requests */
	[PARSER_VERSION] = CTL_CMD_VERSION,
	[PARSER_WATCH] = CTL_CMD_STATS,
};

static int __attribute__((format(printf, 3, 4)))
parser_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* "upload, download" or "metrics, ping, ...": what a table accepts. */
static void
parser_expected(const struct token *table, char *buf, size_t len)
{
	size_t	i, n = 0;
	int	w;

	buf[0] = '\0';
	for (i = 0; table[i].type != TOK_END; i++) {
		if (table[i].word == NULL)
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n > 0 ? ", " : "",
		    table[i].word);
		if (w < 0 || (size_t)w >= len - n)
			return;
		n += (size_t)w;
	}
}

static const struct token *
parser_match(const struct token *table, const char *word)
{
	size_t	i;

	for (i = 0; table[i].type != TOK_END; i++) {
		switch (table[i].type) {
		case TOK_KEYWORD:
		case TOK_DIR:
		case TOK_FLAG:
			if (strcmp(word, table[i].word) == 0)
				return &table[i];
			break;
		case TOK_REST:
			return &table[i];
		default:
			break;
		}
	}
	return NULL;
}

static bool
parser_may_end(const struct token *table)
{
	size_t	i;

	for (i = 0; table[i].type != TOK_END; i++)
		if (table[i].type == TOK_NONE)
			return true;
	return false;
}

/* Appends " word" (or "word" first); refuses what would break the line. */
static int
parser_append(struct parser_result *res, size_t *n, const char *word,
    char *err, size_t errlen)
{
	const unsigned char	*p;
	int			 w;

	for (p = (const unsigned char *)word; *p != '\0'; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return parser_fail(err, errlen, "argument contains "
			    "characters other than printable ASCII");
	w = snprintf(res->request + *n, sizeof(res->request) - *n, "%s%s",
	    *n > 0 ? " " : "", word);
	if (w < 0 || (size_t)w >= sizeof(res->request) - *n - 1)
		return parser_fail(err, errlen, "command longer than %d bytes",
		    CTL_LINE_MAX - 2);
	*n += (size_t)w;
	return 0;
}

int
parser_parse(int argc, char *const argv[], struct parser_result *res,
    char *err, size_t errlen)
{
	const struct token	*table = t_main, *t;
	char			 expected[128];
	size_t			 n = 0;
	int			 i;
	bool			 rest = false;

	memset(res, 0, sizeof(*res));
	if (argc < 1)
		return parser_fail(err, errlen, "missing command");
	for (i = 0; i < argc; i++) {
		if (table == NULL || (t = parser_match(table, argv[i])) == NULL) {
			if (table == NULL || table == t_end)
				return parser_fail(err, errlen,
				    "unexpected argument '%.32s'", argv[i]);
			parser_expected(table, expected, sizeof(expected));
			return parser_fail(err, errlen, "%s '%.32s' (expected "
			    "%s)", table == t_main ? "unknown command" :
			    "unknown argument", argv[i], expected);
		}
		if (t->type == TOK_FLAG)
			res->tc = true;		/* the one flag so far */
		else if (t->action != PARSER_NONE) {
			res->action = t->action;
			if (parser_append(res, &n, parser_request[t->action],
			    err, errlen) == -1)
				return -1;
		} else if (parser_append(res, &n, argv[i], err, errlen) == -1)
			return -1;
		if (t->type == TOK_DIR)
			res->dir = t->word;
		if (t->type == TOK_REST)
			rest = true;
		else
			table = t->next;
	}
	if (!rest && table != NULL && !parser_may_end(table)) {
		parser_expected(table, expected, sizeof(expected));
		return parser_fail(err, errlen, "missing argument (expected "
		    "%s)", expected);
	}
	res->request[n] = '\n';
	res->request[n + 1] = '\0';
	return 0;
}

int
parser_top(struct parser_result *res, long rows, char *err, size_t errlen)
{
	size_t	n = strlen(res->request);
	char	word[32];

	if (!PARSER_HAS_TOP(res->action))
		return parser_fail(err, errlen, "-n: only with %s, %s and "
		    "watch", CTL_CMD_HOSTS, CTL_CMD_FLOWS);
	if (rows < 1 || rows > CTL_TOP_MAX)
		return parser_fail(err, errlen, "-n: %ld rows is not in 1 to "
		    "%d", rows, CTL_TOP_MAX);
	if (n == 0 || res->request[n - 1] != '\n')
		return parser_fail(err, errlen, "no command to count for");
	n--;	/* overwrite the "\n" */
	(void)snprintf(word, sizeof(word), "%ld", rows);
	if (parser_append(res, &n, CTL_ARG_TOP, err, errlen) == -1 ||
	    parser_append(res, &n, word, err, errlen) == -1)
		return -1;
	res->request[n] = '\n';
	res->request[n + 1] = '\0';
	return 0;
}
