/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * config_note.c: notes on a valid caked.conf, for config.c. A note is a
 * likely mistake that is not an error: tc's units read "20mbps" as
 * megabytes per second and a bare number as bit/s, microseconds or
 * bytes; keys that have no effect; values that another key overrides.
 * (A memlimit too small for a few frames is an error: config.c's floors.)
 * caked -t prints them ("FILE:LINE: note: ..."), caked -t -W fails on
 * them, and the daemon logs them.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "common/units.h"
#include "daemon/config.h"
#include "daemon/config_int.h"
#include "daemon/inifile.h"


static const char *const note_autorate_keys[] = {
	"autorate-min", "autorate-base", "autorate-max",
	"autorate-delay-threshold",
};
#define NOTE_AUTORATE_KEYS \
	(sizeof(note_autorate_keys) / sizeof(note_autorate_keys[0]))

/* Length of the number at the start of v (digits and a point), or 0. */
static size_t
note_number(const char *v)
{
	size_t	n = 0, digits = 0;

	for (; isdigit((unsigned char)v[n]) || v[n] == '.'; n++)
		digits += isdigit((unsigned char)v[n]) != 0;
	return digits > 0 ? n : 0;
}

/* "20mbps" -> "20mbit": bytes per second where bits were likely meant. */
static bool
note_bps(struct inifile *f, int line, const char *sec, const char *key,
    const char *v, size_t n)
{
	const char	*unit = v + n;
	char		 bits[32];
	uint64_t	 Bps;

	if (strlen(unit) > 4 || strlen(unit) < 3 ||
	    strcasecmp(unit + strlen(unit) - 3, "bps") != 0 ||
	    keywords_parse_rate(v, &Bps, NULL, 0) == -1 ||
	    keywords_format_rate(Bps, bits, sizeof(bits)) == -1)
		return false;
	inifile_note(f, line, "[%s] %s: '%s' is bytes per second (%s); "
	    "write '%.*s%.*sbit' for bits per second", sec, key, v, bits,
	    (int)n, v, (int)(strlen(unit) - 3), unit);
	return true;
}

bool
config_note_unit(struct inifile *f, int line, const char *sec,
    const char *key, int kind, const char *v)
{
	static const struct {
		const char	*suffix, *meant;
	} what[] = {
		[UNITS_RATE] = { "kbit", "kbit/s" },
		[UNITS_TIME] = { "ms", "milliseconds" },
		[UNITS_SIZE] = { "kb", "kilobytes" },
	};
	char		 is[32];
	uint64_t	 u;
	size_t		 n = note_number(v);

	if (n == 0 || kind < 0 || kind > UNITS_SIZE)
		return false;
	if (v[n] != '\0')
		return kind == UNITS_RATE && note_bps(f, line, sec, key, v, n);
	if (strcmp(v, "0") == 0 || units_parse(kind, v, &u) != UNITS_OK)
		return false;
	if ((kind == UNITS_RATE && units_format_rate(u, is, sizeof(is)) ==
	    -1) || (kind == UNITS_TIME && units_format_time(u, true, is,
	    sizeof(is)) == -1) || (kind == UNITS_SIZE &&
	    units_format_size(u, is, sizeof(is)) == -1))
		return false;
	inifile_note(f, line, "[%s] %s: '%s' has no unit, so it means %s; "
	    "write e.g. '%s%s' for %s", sec, key, v, is, v,
	    what[kind].suffix, what[kind].meant);
	return true;
}

/* The first autorate key of a direction without autorate = yes, or 0. */
static int
note_autorate_stray(struct config_ctx *ctx, const struct caked_config *cfg,
    int dir, const char **key)
{
	size_t	i;
	int	line, first = 0;

	if (cfg->autorate[dir].enabled)
		return 0;
	for (i = 0; i < NOTE_AUTORATE_KEYS; i++) {
		line = inifile_find(ctx->file, SEC_UPLOAD + dir,
		    note_autorate_keys[i]);
		if (line != 0 && (first == 0 || line < first)) {
			first = line;
			*key = note_autorate_keys[i];
		}
	}
	return first;
}

static void
note_autorate(struct config_ctx *ctx, const struct caked_config *cfg)
{
	const char	*key = NULL;
	int		 dir, line, used = 0, stray = 0;

	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		used |= cfg->autorate[dir].enabled;
		if ((line = note_autorate_stray(ctx, cfg, dir, &key)) != 0) {
			stray = 1;
			inifile_note(ctx->file, line, "[%s] %s: ignored, "
			    "because the section has no 'autorate = yes'",
			    config_dir_name(dir), key);
		}
		/* The same rate as autorate-base (a printed file) is fine. */
		if (cfg->autorate[dir].enabled && ctx->dir[dir].rate_line &&
		    ctx->dir[dir].rate_Bps != cfg->autorate[dir].base_Bps)
			inifile_note(ctx->file, ctx->dir[dir].rate_line,
			    "[%s] bandwidth: not used: autorate (line %d) "
			    "starts at autorate-base and sets the rate",
			    config_dir_name(dir), inifile_find(ctx->file,
			    SEC_UPLOAD + dir, "autorate"));
	}
	if (used || stray)
		return;		/* stray keys: noted once, above */
	key = "autorate-reflectors";
	if ((line = inifile_find(ctx->file, SEC_GENERAL, key)) == 0) {
		key = "autorate-interval";
		line = inifile_find(ctx->file, SEC_GENERAL, key);
	}
	if (line != 0)
		inifile_note(ctx->file, line, "[general] %s: not used, "
		    "because no section has 'autorate = yes'", key);
}

/* Neither direction has a rate (nor autorate): nothing is shaped. */
static void
note_unshaped(struct config_ctx *ctx, const struct caked_config *cfg)
{
	int	dir, line = 0;

	for (dir = 0; dir < CONFIG_DIRS; dir++) {
		if (cfg->shaped[dir] && (cfg->cake[dir].rate_Bps != 0 ||
		    cfg->cake[dir].autorate_ingress))
			return;
		if (line == 0)
			line = inifile_section_line(ctx->file,
			    SEC_UPLOAD + dir);
	}
	inifile_note(ctx->file, line, "shapes nothing: no [upload] or "
	    "[download] section sets a bandwidth or autorate, so caked "
	    "only forwards");
}

void
config_note_file(struct config_ctx *ctx, const struct caked_config *cfg)
{
	note_autorate(ctx, cfg);
	note_unshaped(ctx, cfg);
}
