/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * render.h: cakectl's output, from a parsed JSON reply (src/ctl/render.c).
 */
#ifndef CAKED_CTL_RENDER_H
#define CAKED_CTL_RENDER_H

#include <stdio.h>

struct json_value;

/*
 * Prints a stats reply as `tc -s qdisc show` prints a cake qdisc, one
 * block per direction. Returns 0, or -1 if the reply lacks a field.
 */
int	render_stats(FILE *fp, const struct json_value *reply);
/*
 * Print a hosts or flows reply: per direction a title line, then a table
 * with a header line and aligned columns. Return 0, or -1 if the reply
 * lacks a field.
 */
int	render_hosts(FILE *fp, const struct json_value *reply);
int	render_flows(FILE *fp, const struct json_value *reply);

#endif /* CAKED_CTL_RENDER_H */
