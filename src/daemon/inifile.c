/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * inifile.c: scans an INI file for its structure, because iniparser (which
 * config.c uses for the values) folds repeated keys into one, forgets line
 * numbers and accepts any name. The scan follows iniparser's syntax:
 * comments start with '#' or ';', "[name]" opens a section, "key = value"
 * sets a key, names are case-insensitive.
 *
 * It also keeps the list of error messages about the file, so that
 * config.c can report all of them, in line order, at the end. It knows
 * nothing of caked's keys beyond the schema it is given, and never logs.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iniparser.h>

#include "daemon/inifile.h"

#define INIFILE_MSG_BYTES	640
#define INIFILE_SECTIONS_MAX	16	/* size of section_line[] */
#define INIFILE_STOP		(-2)	/* scan state: stop reading lines */

struct inifile_entry {
	int	section;
	char	key[INIFILE_KEY_MAX];
	int	line;
};

struct inifile_msg {
	int	line;
	int	seq;			/* order of discovery, for ties */
	int	note;			/* a note, not an error */
	char	text[INIFILE_MSG_BYTES];
};

struct inifile {
	const char			*path;
	const struct inifile_schema	*schema;
	int				 section_line[INIFILE_SECTIONS_MAX];
	struct inifile_entry		 entries[INIFILE_ENTRIES_MAX];
	int				 nentries;
	struct inifile_msg		 msgs[INIFILE_ERRORS_MAX];
	int				 nmsgs;		/* errors + notes */
	int				 errors;
	int				 notes;
	int				 was_read;
	int				 headers;	/* "[...]" lines */
	int				 assignments;	/* "k = v" lines */
	int				 truncated;	/* scan stopped */
	int				 copy_fd;	/* what iniparser reads */
	char				*keep;		/* lines for iniparser */
	size_t				 keep_len;
};

static void
inifile_add(struct inifile *f, int line, const char *kind, const char *msg)
{
	struct inifile_msg	*m;

	if (f->nmsgs < INIFILE_ERRORS_MAX) {
		m = &f->msgs[f->nmsgs];
		m->line = line;
		m->seq = f->nmsgs;
		m->note = *kind != '\0';
		if (line > 0)
			(void)snprintf(m->text, sizeof(m->text), "%s:%d: %s%s",
			    f->path, line, kind, msg);
		else
			(void)snprintf(m->text, sizeof(m->text), "%s: %s%s",
			    f->path, kind, msg);
	}
	f->nmsgs++;
}

void
inifile_error(struct inifile *f, int line, const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	inifile_add(f, line, "", msg);
	f->errors++;
}

void
inifile_note(struct inifile *f, int line, const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	inifile_add(f, line, "note: ", msg);
	f->notes++;
}

int
inifile_notes(const struct inifile *f)
{
	return f->notes;
}

int
inifile_was_read(const struct inifile *f)
{
	return f->was_read;
}

int
inifile_errors(const struct inifile *f)
{
	return f->errors;
}

int
inifile_find(const struct inifile *f, int section, const char *key)
{
	int	i;

	for (i = 0; i < f->nentries; i++)
		if (f->entries[i].section == section &&
		    strcmp(f->entries[i].key, key) == 0)
			return f->entries[i].line;
	return 0;
}

int
inifile_section_line(const struct inifile *f, int section)
{
	if (section < 0 || section >= f->schema->nsections)
		return 0;
	return f->section_line[section];
}

static char *
inifile_trim(char *s)
{
	char	*end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static void
inifile_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Returns the section number of the header at s, or -1 if unknown. */
static int
inifile_section(struct inifile *f, char *s, int line)
{
	char	*end = strchr(s, ']');
	int	 i, cur = -1;

	if (end == NULL || *inifile_trim(end + 1) != '\0') {
		inifile_error(f, line, "expected '[section]', found '%s'", s);
		return -1;
	}
	*end = '\0';
	s = inifile_trim(s + 1);
	inifile_lower(s);
	for (i = 0; i < f->schema->nsections; i++)
		if (strcmp(f->schema->sections[i], s) == 0)
			cur = i;
	if (cur == -1)
		inifile_error(f, line, "unknown section [%s] (expected %s)", s,
		    f->schema->expected);
	else if (f->section_line[cur] != 0)
		inifile_error(f, line, "duplicate section [%s] (first at line "
		    "%d)", s, f->section_line[cur]);
	else
		f->section_line[cur] = line;
	return cur;
}

/*
 * A quoted value must end with its quote, followed by nothing but blanks
 * or a comment: iniparser silently drops whatever follows the closing
 * quote, and takes a value without one as the text up to the next quote
 * anywhere on the line (fuzz finding: control = "/a = "/b read as "/a = ").
 */
static int
inifile_value_ok(struct inifile *f, const char *sec, const char *key,
    const char *v, int line)
{
	const char	*end;

	while (isspace((unsigned char)*v))
		v++;
	if (*v != '"' && *v != '\'')
		return 1;
	if ((end = strchr(v + 1, *v)) == NULL) {
		inifile_error(f, line, "[%s] %s: expected a closing %c, found "
		    "'%s' (iniparser would read it differently)", sec, key,
		    *v, v);
		return 0;
	}
	for (end++; isspace((unsigned char)*end); end++)
		continue;
	if (*end != '\0' && *end != '#' && *end != ';') {
		inifile_error(f, line, "[%s] %s: expected nothing after the "
		    "closing quote, found '%s' (iniparser would drop it)", sec,
		    key, end);
		return 0;
	}
	return 1;
}

/* Checks and records a key line; returns whether it was recorded. */
static int
inifile_key(struct inifile *f, char *s, int line, int cur)
{
	const char	*sec = f->schema->sections[cur], *near;
	char		*value;
	int		 first;

	value = strchr(s, '=');
	*value++ = '\0';
	s = inifile_trim(s);
	inifile_lower(s);
	if (*s == '\0')
		inifile_error(f, line, "[%s] expected 'key = value', found no "
		    "key", sec);
	else if (strlen(s) >= INIFILE_KEY_MAX ||
	    !f->schema->known_key(cur, s)) {
		if ((near = f->schema->suggest_key(cur, s)) != NULL)
			inifile_error(f, line, "[%s] %s: unknown key (did you "
			    "mean '%s'?)", sec, s, near);
		else
			inifile_error(f, line, "[%s] %s: unknown key", sec, s);
	}
	else if ((first = inifile_find(f, cur, s)) != 0)
		inifile_error(f, line, "[%s] %s: duplicate key (first set at "
		    "line %d)", sec, s, first);
	else if (!inifile_value_ok(f, sec, s, value, line))
		return 0;
	else if (f->nentries == INIFILE_ENTRIES_MAX)
		inifile_error(f, line, "too many keys (at most %d)",
		    INIFILE_ENTRIES_MAX);
	else {
		f->entries[f->nentries].section = cur;
		(void)snprintf(f->entries[f->nentries].key, INIFILE_KEY_MAX,
		    "%s", s);
		f->entries[f->nentries].line = line;
		f->nentries++;
		return 1;
	}
	return 0;
}

/*
 * Whether the scan may go on: it stops at the first line over a bound, so
 * a huge or hostile file costs time linear in its size, and iniparser
 * (whose dictionary is quadratic in the number of names) never sees it.
 */
static int
inifile_bounded(struct inifile *f, const char *s, int line)
{
	if (*s == '[' && ++f->headers > INIFILE_HEADERS_MAX)
		inifile_error(f, line, "too many '[section]' lines (at most "
		    "%d): the rest of the file is not read",
		    INIFILE_HEADERS_MAX);
	else if (strchr("[#;", *s) == NULL && strchr(s, '=') != NULL &&
	    ++f->assignments > INIFILE_ASSIGNMENTS_MAX)
		inifile_error(f, line, "too many 'key = value' lines (at most "
		    "%d): the rest of the file is not read",
		    INIFILE_ASSIGNMENTS_MAX);
	else if (f->errors >= INIFILE_ERRORS_MAX - 1)
		inifile_error(f, line, "too many errors (at most %d): the "
		    "rest of the file is not read", INIFILE_ERRORS_MAX);
	else
		return 1;
	f->truncated = 1;
	return 0;
}

/*
 * Copies a line after the lines kept for iniparser; inifile_scan() keeps
 * it (adds the returned length to keep_len) unless it is blank, a comment,
 * or a key or section that the scan refused: iniparser, whose dictionary
 * is quadratic in the number of names, then sees little more than the
 * names caked knows, while syntax errors still make it fail.
 */
static size_t
inifile_stage_line(struct inifile *f, const char *text)
{
	size_t	len = strlen(text);

	if (f->keep == NULL)
		return 0;
	memcpy(f->keep + f->keep_len, text, len);
	f->keep[f->keep_len + len] = '\n';
	return len + 1;
}

/*
 * Whether line s, before any section, is in another format: OpenWrt's
 * UCI ("config queue 'eth1'", "option ...") or shell variables
 * ("UPLINK=20000", as in sqm-scripts' .iface.conf files).
 */
static const char *
inifile_foreign(const char *s)
{
	const char	*p;

	if (strncmp(s, "config ", 7) == 0 || strncmp(s, "config\t", 7) ==
	    0 || strncmp(s, "package ", 8) == 0 ||
	    strncmp(s, "option ", 7) == 0)
		return "an OpenWrt UCI file";
	for (p = s; isupper((unsigned char)*p) || isdigit((unsigned char)*p)
	    || *p == '_'; p++)
		continue;
	if (p != s && *p == '=')
		return "a shell variable file (sqm-scripts .iface.conf)";
	return NULL;
}

/*
 * A line ending in '\': iniparser joins the next line to it, which the
 * scan does not do, so the file is refused here, once; the lines it
 * would join are skipped (they are part of this mistake).
 */
static void
inifile_continued(struct inifile *f, char *s, int line, int cur)
{
	char	*eq = strchr(s, '=');

	if (cur >= 0 && eq != NULL && *s != '[') {
		*eq = '\0';
		s = inifile_trim(s);
		inifile_lower(s);
		inifile_error(f, line, "[%s] %s: expected a value on one "
		    "line, found a '\\' continuation (iniparser would join "
		    "the next line to it)", f->schema->sections[cur], s);
	} else
		inifile_error(f, line, "expected a line without a '\\' "
		    "continuation (iniparser would join the next line to it)");
}

/* The lines a continued line swallows: 1 + those that end in '\' too. */
static int
inifile_joined(char **text)
{
	char	*next, *s;
	int	 n = 0;

	while (*text != NULL) {
		if ((next = strchr(*text, '\n')) != NULL)
			*next++ = '\0';
		s = inifile_trim(*text);
		*text = next;
		n++;
		if (*s == '\0' || s[strlen(s) - 1] != '\\')
			break;
	}
	return n;
}

/* Scans text (NUL-terminated, modified) line by line. */
static void
inifile_scan(struct inifile *f, char *text)
{
	const char	*foreign;
	char		*next, *s;
	size_t		 staged;
	int		 line = 0, cur = -1, seen_section = 0, keep;
	int		 outside = 0;

	for (; text != NULL && !f->truncated; text = next) {
		line++;
		if ((next = strchr(text, '\n')) != NULL)
			*next++ = '\0';
		staged = inifile_stage_line(f, text);
		keep = 1;
		s = inifile_trim(text);
		if (!inifile_bounded(f, s, line))
			break;
		if (strlen(text) > INIFILE_LINE_MAX)
			inifile_error(f, line, "line too long (at most %d "
			    "characters)", INIFILE_LINE_MAX);
		else if (*s == '\0' || *s == '#' || *s == ';')
			keep = 0;
		else if (!seen_section && f->schema->foreign != NULL &&
		    (foreign = inifile_foreign(s)) != NULL) {
			inifile_error(f, line, "this looks like %s, not "
			    "caked.conf: %s", foreign, f->schema->foreign);
			return;
		} else if (s[strlen(s) - 1] == '\\') {
			inifile_continued(f, s, line, seen_section ? cur : -1);
			line += inifile_joined(&next);
		} else if (*s == '[') {
			cur = inifile_section(f, s, line);
			seen_section = 1;
			keep = cur != -1;
		} else if (strchr(s, '=') == NULL)
			inifile_error(f, line, "expected 'key = value' or "
			    "'[section]', found '%s'", s);
		else if (!seen_section) {
			/* One missing header is one mistake. */
			if (outside++ == 0)
				inifile_error(f, line, "'%s' is outside any "
				    "section (expected %s before it)", s,
				    f->schema->expected);
		} else if (cur != -1)
			keep = inifile_key(f, s, line, cur);
		else
			keep = 0;	/* in an unknown section, reported */
		if (keep)
			f->keep_len += staged;
	}
}

/*
 * Keeps the lines that were scanned in an anonymous file, from which
 * iniparser (which reads only by name) loads them: it never reopens the
 * path, which may meanwhile name a FIFO, a device or a bigger file.
 */
static void
inifile_keep_copy(struct inifile *f, const char *text, size_t len)
{
	size_t	off = 0;
	ssize_t	n;

	if ((f->copy_fd = memfd_create("caked-config", MFD_CLOEXEC)) == -1) {
		inifile_error(f, 0, "cannot keep a copy: %s", strerror(errno));
		return;
	}
	while (off < len) {
		if ((n = write(f->copy_fd, text + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			inifile_error(f, 0, "cannot keep a copy: %s",
			    strerror(errno));
			return;
		}
		off += (size_t)n;
	}
}

/*
 * A NUL byte ends the scan's reading of the text, while iniparser reads
 * on past it: refused once, at its line.
 */
static int
inifile_nul(struct inifile *f, const char *text, size_t len)
{
	const char	*nul = memchr(text, '\0', len), *p;
	int		 line = 1;

	if (nul == NULL)
		return 0;
	for (p = text; p < nul; p++)
		line += *p == '\n';
	inifile_error(f, line, "expected text, found a NUL byte (iniparser "
	    "would read past it, the scan would not)");
	return -1;
}

/*
 * Reads the whole file into a NUL-terminated buffer. The open never
 * waits (O_NONBLOCK: a FIFO without a writer, a device), and only a
 * regular file within the size bound is read.
 */
static char *
inifile_read(struct inifile *f)
{
	struct stat	 st;
	char		*text = NULL;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	if ((fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) == -1) {
		inifile_error(f, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > INIFILE_BYTES_MAX)
		inifile_error(f, 0, "expected a regular file of at most %d "
		    "bytes, found %s", INIFILE_BYTES_MAX,
		    !S_ISREG(st.st_mode) ? "another kind of file" :
		    "a bigger one");
	else if ((text = malloc((size_t)st.st_size + 1)) == NULL)
		inifile_error(f, 0, "cannot read: %s", strerror(errno));
	while (text != NULL && got < (size_t)st.st_size &&
	    (n = read(fd, text + got, (size_t)st.st_size - got)) != 0) {
		if (n == -1 && errno != EINTR) {
			inifile_error(f, 0, "cannot read: %s",
			    strerror(errno));
			free(text);
			text = NULL;
		} else if (n > 0)
			got += (size_t)n;
	}
	if (text != NULL) {
		text[got] = '\0';
		/* Kept lines take at most the file's bytes and a newline. */
		if ((f->keep = malloc(got + 1)) == NULL)
			inifile_error(f, 0, "cannot read: %s", strerror(errno));
	}
	close(fd);
	if (text != NULL && inifile_nul(f, text, got) == -1) {
		free(text);
		free(f->keep);
		f->keep = NULL;
		return NULL;
	}
	return text;
}

struct inifile *
inifile_open(const char *path, const struct inifile_schema *schema)
{
	struct inifile	*f;
	char		*text;

	if (schema->nsections > INIFILE_SECTIONS_MAX ||
	    (f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->path = path;
	f->schema = schema;
	f->copy_fd = -1;
	if ((text = inifile_read(f)) != NULL) {
		f->was_read = 1;
		inifile_scan(f, text);
		free(text);
		if (f->keep != NULL)
			inifile_keep_copy(f, f->keep, f->keep_len);
		free(f->keep);
		f->keep = NULL;
	}
	return f;
}

static int
inifile_msg_cmp(const void *a, const void *b)
{
	const struct inifile_msg	*x = a, *y = b;

	/* Messages about the whole file (line 0) come after located ones. */
	if (x->line != y->line)
		return x->line == 0 ? 1 : y->line == 0 ? -1 :
		    x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
inifile_close(struct inifile *f, void (*report)(void *, const char *),
    void *arg)
{
	char	msg[128];
	int	i, n;

	if (f == NULL)
		return;
	n = f->nmsgs < INIFILE_ERRORS_MAX ? f->nmsgs : INIFILE_ERRORS_MAX;
	qsort(f->msgs, (size_t)n, sizeof(f->msgs[0]), inifile_msg_cmp);
	/* A file with errors shows them alone: one mistake, one line. */
	for (i = 0; i < n; i++)
		if (f->errors == 0 || !f->msgs[i].note)
			report(arg, f->msgs[i].text);
	if (f->nmsgs > n) {
		(void)snprintf(msg, sizeof(msg), "%s: %d more messages not "
		    "shown", f->path, f->nmsgs - n);
		report(arg, msg);
	}
	if (f->copy_fd != -1)
		close(f->copy_fd);
	free(f);
}

dictionary *
inifile_dictionary(struct inifile *f)
{
	char	name[64];

	if (f->copy_fd == -1 || f->truncated)
		return NULL;
	(void)snprintf(name, sizeof(name), "/proc/self/fd/%d", f->copy_fd);
	return iniparser_load(name);
}

const char *
inifile_value(dictionary *d, const char *section, const char *key,
    char *buf, size_t len)
{
	char		 name[2 * INIFILE_KEY_MAX];
	const char	*v;
	size_t		 n;

	(void)snprintf(name, sizeof(name), "%s:%s", section, key);
	if ((v = iniparser_getstring(d, name, NULL)) == NULL)
		v = "";
	n = strlen(v);
	/* iniparser strips one pair of quotes; this is a second guard. */
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return buf;
}
