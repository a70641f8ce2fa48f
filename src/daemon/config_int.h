/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_int.h: what config.c shares with config_dir.c, which reads the
 * [upload] and [download] sections. Internal to the configuration
 * loader: other modules include config.h only.
 */
#ifndef CAKED_DAEMON_CONFIG_INT_H
#define CAKED_DAEMON_CONFIG_INT_H

#include <stddef.h>

#include <iniparser.h>

#include "caked/cake.h"

enum config_section {
	SEC_UNKNOWN = -1,
	SEC_GENERAL = 0,
	SEC_UPLOAD,
	SEC_DOWNLOAD,
	SEC_COUNT,
};

/* Section names, indexed by enum config_section. */
extern const char *const config_sections[SEC_COUNT];

struct inifile;

struct config_ctx {
	const char	*path;
	struct inifile	*file;		/* structure, lines and errors */
	dictionary	*dict;		/* values */
};

/* config.c */
/* The value of section:key as iniparser read it, quotes stripped. */
const char	*config_value(struct config_ctx *ctx, int section,
		    const char *key, char *buf, size_t len);
/* Reports "[section] key: expected EXPECTED, found 'VALUE'" at line. */
void		 config_expect(struct config_ctx *ctx, int line, int section,
		    const char *key, const char *expected, const char *value);

/* config_dir.c */
/* Whether key belongs in [upload] or [download] (autorate keys aside). */
int		 config_dir_known_key(const char *key);
/* Reads section sec ([upload] or [download]) into cc, from the defaults. */
void		 config_dir(struct config_ctx *ctx, int sec,
		    struct cake_config *cc);

#endif /* CAKED_DAEMON_CONFIG_INT_H */
