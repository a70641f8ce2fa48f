/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * metrics.h: the Prometheus text exposition of a stats reply
 * (src/common/metrics.c), shared by `cakectl metrics` and caked's own
 * /metrics endpoint so that both print the same families.
 */
#ifndef CAKED_COMMON_METRICS_H
#define CAKED_COMMON_METRICS_H

#include <stdio.h>

struct json_value;

/* What metrics_path() says of a numeric leaf of a stats reply. */
enum metrics_use {
	METRICS_UNKNOWN = -1,	/* neither exported nor omitted: a bug */
	METRICS_OMITTED = 0,	/* in the omission table, with a reason */
	METRICS_EXPORTED = 1,
};

/*
 * Prints reply (a parsed stats reply) in the Prometheus text exposition
 * format 0.0.4. Returns 0, or -1 if it is not a stats reply.
 */
int	metrics_render(FILE *fp, const struct json_value *reply);
/*
 * Classifies a leaf by its path in the reply: members joined by ".", the
 * name of a direction as "*", array elements as "[]" (for example
 * "directions.*.tins[].drops"). Returns enum metrics_use.
 */
int	metrics_path(const char *path);

#endif /* CAKED_COMMON_METRICS_H */
