/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tcjson.h: a stats reply in the JSON layout of `tc -s -j qdisc show`
 * for a cake qdisc (src/ctl/tcjson.c).
 */
#ifndef CAKED_CTL_TCJSON_H
#define CAKED_CTL_TCJSON_H

#include <stdio.h>

struct json_value;

/*
 * Prints each direction of reply as one line: a JSON array holding one
 * cake qdisc object, upload first. Returns 0, or -1 if the reply lacks a
 * field (nothing of that direction is printed).
 */
int	tcjson_render(FILE *fp, const struct json_value *reply);

#endif /* CAKED_CTL_TCJSON_H */
