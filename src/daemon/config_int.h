/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_int.h: what config.c shares with config_direction.c, which reads the
 * [upload] and [download] sections: config.c calls config_direction.c, never
 * the other way. Internal to the configuration loader: other modules
 * include config.h only.
 */
#ifndef CAKED_DAEMON_CONFIG_INT_H
#define CAKED_DAEMON_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

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

struct caked_config;

/* What the notes need to know of an [upload] or [download] section. */
struct config_dir_info {
	int		options_line;
	unsigned int	options_mask;	/* what options sets */
	int		rate_line;	/* the last line that set a rate */
	uint64_t	rate_Bps;	/* and the rate it set */
};

struct config_ctx {
	const char		*path;
	struct inifile		*file;		/* structure, lines, errors */
	dictionary		*dict;		/* values */
	const char *const	*sections;	/* by enum config_section */
	struct config_dir_info	 dir[2];	/* upload, download */
};

/*
 * The value of section:key as iniparser read it, quotes stripped. Inline
 * (as config_expect()) so that config_direction.c needs nothing from config.c,
 * which calls it: the loader's modules depend one way only.
 */
static inline const char *
config_value(struct config_ctx *ctx, int section, const char *key,
    char *buf, size_t len)
{
	return inifile_value(ctx->dict, ctx->sections[section], key, buf, len);
}

/* 1 for yes, on, true or 1; 0 for no, off, false or 0; else -1. */
static inline int
config_bool(const char *v)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };
	size_t	i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* Reports "[section] key: expected EXPECTED, found 'VALUE'" at line. */
static inline void
config_expect(struct config_ctx *ctx, int line, int section, const char *key,
    const char *expected, const char *value)
{
	inifile_error(ctx->file, line, "[%s] %s: expected %s, found '%s'",
	    ctx->sections[section], key, expected, value);
}

/* config_direction.c */
/* Whether key belongs in [upload] or [download] (autorate keys aside). */
int		 config_direction_known_key(const char *key);
/* Reads section sec ([upload] or [download]) into cc, from the defaults. */
void		 config_direction(struct config_ctx *ctx, int sec,
		    struct cake_config *cc);

/* config_note.c */
/*
 * Notes a value of kind (enum units_kind) that is bytes per second where
 * bits were likely meant ("20mbps") or has no unit ("20000"). Returns
 * whether it did.
 */
bool		 config_note_unit(struct inifile *f, int line,
		    const char *section, const char *key, int kind,
		    const char *v);
/* Notes what a valid configuration probably did not mean. */
void		 config_note_file(struct config_ctx *ctx,
		    const struct caked_config *cfg);

#endif /* CAKED_DAEMON_CONFIG_INT_H */
