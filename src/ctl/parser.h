/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * parser.h: cakectl's command line words -> an action and the request
 * line to send (src/ctl/parser.c).
 */
#ifndef CAKED_CTL_PARSER_H
#define CAKED_CTL_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "caked/ctl.h"

enum parser_action {
	PARSER_NONE = 0,
	PARSER_FLOWS,		/* the busiest flows */
	PARSER_HOSTS,		/* the busiest hosts */
	PARSER_METRICS,		/* stats, printed for Prometheus */
	PARSER_PING,
	PARSER_RELOAD,
	PARSER_SET,
	PARSER_STATS,
	PARSER_TOP,		/* live view, refreshed every second */
	PARSER_VERSION,
	PARSER_WATCH,		/* stats, repeated every second */
};

struct parser_result {
	enum parser_action	 action;
	const char		*dir;		/* NULL: both directions */
	bool			 tc;		/* stats --tc: tc's JSON layout */
	char			 request[CTL_LINE_MAX];	/* ends in "\n" */
};

/* Whether the command takes a row count (hosts, flows: cakectl -n). */
#define PARSER_HAS_TOP(a)	((a) == PARSER_HOSTS || (a) == PARSER_FLOWS)

/*
 * Parses argv[0..argc) (the words after the options). Returns 0, or -1
 * with a one-line message in err.
 */
int	parser_parse(int argc, char *const argv[], struct parser_result *res,
	    char *err, size_t errlen);
/*
 * Asks for the top rows rows of a hosts or flows command (cakectl -n):
 * appends "top N" to the request. Returns 0, or -1 with a message if the
 * command takes no count or rows is not in 1..CTL_TOP_MAX.
 */
int	parser_top(struct parser_result *res, long rows, char *err,
	    size_t errlen);

#endif /* CAKED_CTL_PARSER_H */
