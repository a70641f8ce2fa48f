/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * inifile.h: the structure of an INI file (sections, keys, their lines)
 * and a list of located error messages about it.
 */
#ifndef CAKED_DAEMON_INIFILE_H
#define CAKED_DAEMON_INIFILE_H

#include <stddef.h>

#include <iniparser.h>

#define INIFILE_BYTES_MAX	(1024 * 1024)	/* bytes read at most */
#define INIFILE_LINE_MAX	1023	/* iniparser's ASCIILINESZ - 1 */
#define INIFILE_KEY_MAX		32	/* longer names are unknown anyway */
#define INIFILE_ENTRIES_MAX	256	/* keys kept per file */
#define INIFILE_ERRORS_MAX	64	/* then the scan stops */
#define INIFILE_HEADERS_MAX	32	/* "[section]" lines read at most */
#define INIFILE_ASSIGNMENTS_MAX	512	/* "key = value" lines read at most */

/* What the file may contain. Section numbers index sections[]. */
struct inifile_schema {
	const char *const	*sections;	/* lower-case names */
	int			 nsections;
	const char		*expected;	/* "[a], [b] or [c]" */
	/* Whether key (lower case) belongs in section. */
	int			(*known_key)(int section, const char *key);
	/* The known key nearest to an unknown one, or NULL. */
	const char		*(*suggest_key)(int section, const char *key);
	/* What to do with a file in another format (UCI, shell variables). */
	const char		*foreign;
};

struct inifile;

/*
 * Reads and scans path: syntax errors, unknown sections and keys, and
 * repeated sections and keys become messages. NULL only without memory.
 */
struct inifile	*inifile_open(const char *path,
		    const struct inifile_schema *schema);
/* The line at which section sets key, or 0. */
int		 inifile_find(const struct inifile *f, int section,
		    const char *key);
/* The line of section's header, or 0 if the file lacks it. */
int		 inifile_section_line(const struct inifile *f, int section);
/* Adds "PATH:LINE: message" (line 0: "PATH: message", listed last). */
void		 inifile_error(struct inifile *f, int line, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
/* Adds "PATH:LINE: note: message": a likely mistake, not an error. */
void		 inifile_note(struct inifile *f, int line, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
/* Number of notes so far. */
int		 inifile_notes(const struct inifile *f);
/* Whether the file could be read (else a message says why not). */
int		 inifile_was_read(const struct inifile *f);
/* Number of errors so far (notes not counted). */
int		 inifile_errors(const struct inifile *f);
/*
 * The value of section:key in iniparser's dictionary d, one pair of
 * enclosing quotes removed, cut to fit buf: "" if the key is absent.
 */
const char	*inifile_value(dictionary *d, const char *section,
		    const char *key, char *buf, size_t len);
/*
 * iniparser's dictionary of the very bytes that were scanned; NULL when
 * the file was not read, the scan stopped at a bound, or iniparser fails.
 * The caller frees it with iniparser_freedict().
 */
dictionary	*inifile_dictionary(struct inifile *f);
/* Hands every message to report, sorted by line, then frees f. */
void		 inifile_close(struct inifile *f,
		    void (*report)(void *arg, const char *msg), void *arg);

#endif /* CAKED_DAEMON_INIFILE_H */
