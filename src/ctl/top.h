/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * top.h: `cakectl top`, a live view of caked refreshed every second
 * (src/ctl/top.c).
 */
#ifndef CAKED_CTL_TOP_H
#define CAKED_CTL_TOP_H

#include <stdbool.h>
#include <stdio.h>

struct json_value;

#define TOP_ROWS	64	/* hosts and flows asked for per direction */
#define TOP_SHOWN	5	/* busiest hosts and flows shown */

/* Sends request (one line, "\n" included); the parsed reply, or NULL. */
typedef struct json_value *top_query_fn(void *arg, const char *request);

struct top_opts {
	const char	*dir;		/* NULL: both directions */
	long		 count;		/* frames to show; 0: until q or a signal */
	bool		 tty;		/* stdout is a terminal: redraw in place */
	bool		 keys;		/* stdin is a terminal: q quits */
	volatile int	*stop;		/* set by a signal handler */
};

/*
 * Runs the view: a frame every second from the difference of two samples
 * (stats, hosts and flows of each direction). Returns 0, or -1 if a reply
 * lacked a field.
 */
int	top_run(FILE *fp, const struct top_opts *o, top_query_fn *query,
	    void *arg);
/*
 * Prints one frame from two samples (replies of stats, hosts and flows,
 * taken at prev and cur) to fp. For tests; top_run() uses it.
 */
int	top_frame(FILE *fp, struct json_value *const prev[3],
	    struct json_value *const cur[3]);

#endif /* CAKED_CTL_TOP_H */
