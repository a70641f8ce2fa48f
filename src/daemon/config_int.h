/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_int.h: what config.c shares with config_dir.c, which reads the
 * [upload] and [download] sections: config.c calls config_dir.c, never
 * the other way. Internal to the configuration loader: other modules
 * include config.h only.
 */
#ifndef CAKED_DAEMON_CONFIG_INT_H
#define CAKED_DAEMON_CONFIG_INT_H

#include <stddef.h>

#include <iniparser.h>

#include "caked/cake.h"
#include "daemon/inifile.h"

enum config_section {
	SEC_UNKNOWN = -1,
	SEC_GENERAL = 0,
	SEC_UPLOAD,
	SEC_DOWNLOAD,
	SEC_COUNT,
};

struct config_ctx {
	const char		*path;
	struct inifile		*file;		/* structure, lines, errors */
	dictionary		*dict;		/* values */
	const char *const	*sections;	/* by enum config_section */
};

/*
 * The value of section:key as iniparser read it, quotes stripped. Inline
 * (as config_expect()) so that config_dir.c needs nothing from config.c,
 * which calls it: the loader's modules depend one way only.
 */
static inline const char *
config_value(struct config_ctx *ctx, int section, const char *key,
    char *buf, size_t len)
{
	return inifile_value(ctx->dict, ctx->sections[section], key, buf, len);
}

/* Reports "[section] key: expected EXPECTED, found 'VALUE'" at line. */
static inline void
config_expect(struct config_ctx *ctx, int line, int section, const char *key,
    const char *expected, const char *value)
{
	inifile_error(ctx->file, line, "[%s] %s: expected %s, found '%s'",
	    ctx->sections[section], key, expected, value);
}

/* config_dir.c */
/* Whether key belongs in [upload] or [download] (autorate keys aside). */
int		 config_dir_known_key(const char *key);
/* Reads section sec ([upload] or [download]) into cc, from the defaults. */
void		 config_dir(struct config_ctx *ctx, int sec,
		    struct cake_config *cc);

#endif /* CAKED_DAEMON_CONFIG_INT_H */
