/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * json.c: the JSON of the control protocol (RFC 8259).
 *
 * The writer fills a caller's fixed buffer, escaping every string (quote,
 * backslash and control characters; other bytes pass as they are), so the
 * daemon can build a reply without allocating. The reader builds a small
 * malloc'd tree for cakectl; it accepts all of RFC 8259 except that
 * "\u" escapes outside ASCII become '?' (no reply key or value needs
 * them). Neither does I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

/* ---- writer -------------------------------------------------------------- */

void
json_init(struct json_writer *w, char *buf, size_t cap)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = cap;
	w->depth = -1;
	if (cap == 0)
		w->failed = true;
	else
		buf[0] = '\0';
}

static void
json_put(struct json_writer *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (n >= w->cap - w->len) {		/* keep room for the NUL */
		w->failed = true;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void
json_putc(struct json_writer *w, char c)
{
	json_put(w, &c, 1);
}

static void
json_put_string(struct json_writer *w, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 esc[6];
	const unsigned char	*p;

	json_putc(w, '"');
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			json_put(w, esc, 2);
		} else if (*p == '\n')
			json_put(w, "\\n", 2);
		else if (*p == '\t')
			json_put(w, "\\t", 2);
		else if (*p < 0x20 || *p == 0x7f) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 0xf];
			json_put(w, esc, 6);
		} else
			json_putc(w, (char)*p);
	}
	json_putc(w, '"');
}

/* Writes the comma and key that come before a value. */
static void
json_member(struct json_writer *w, const char *key)
{
	if (w->depth < 0) {
		if (key != NULL || w->len > 0)
			w->failed = true;	/* one top-level value */
		return;
	}
	if (w->object[w->depth] != (key != NULL)) {
		w->failed = true;
		return;
	}
	if (!w->first[w->depth])
		json_putc(w, ',');
	w->first[w->depth] = false;
	if (key != NULL) {
		json_put_string(w, key);
		json_putc(w, ':');
	}
}

static void
json_open(struct json_writer *w, const char *key, bool object)
{
	json_member(w, key);
	if (w->depth + 1 >= JSON_DEPTH_MAX) {
		w->failed = true;
		return;
	}
	w->depth++;
	w->first[w->depth] = true;
	w->object[w->depth] = object;
	json_putc(w, object ? '{' : '[');
}

static void
json_close(struct json_writer *w, bool object)
{
	if (w->depth < 0 || w->object[w->depth] != object) {
		w->failed = true;
		return;
	}
	w->depth--;
	json_putc(w, object ? '}' : ']');
}

void
json_object_begin(struct json_writer *w, const char *key)
{
	json_open(w, key, true);
}

void
json_object_end(struct json_writer *w)
{
	json_close(w, true);
}

void
json_array_begin(struct json_writer *w, const char *key)
{
	json_open(w, key, false);
}

void
json_array_end(struct json_writer *w)
{
	json_close(w, false);
}

void
json_string(struct json_writer *w, const char *key, const char *s)
{
	json_member(w, key);
	json_put_string(w, s);
}

void
json_uint(struct json_writer *w, const char *key, uint64_t v)
{
	char	num[24];
	int	n;

	json_member(w, key);
	n = snprintf(num, sizeof(num), "%" PRIu64, v);
	json_put(w, num, (size_t)n);
}

void
json_int(struct json_writer *w, const char *key, int64_t v)
{
	char	num[24];
	int	n;

	json_member(w, key);
	n = snprintf(num, sizeof(num), "%" PRId64, v);
	json_put(w, num, (size_t)n);
}

void
json_bool(struct json_writer *w, const char *key, bool v)
{
	json_member(w, key);
	if (v)
		json_put(w, "true", 4);
	else
		json_put(w, "false", 5);
}

int
json_finish(struct json_writer *w)
{
	if (w->depth != -1 || w->len == 0)
		w->failed = true;
	json_putc(w, '\n');
	if (w->failed || w->len > INT32_MAX)
		return -1;
	return (int)w->len;
}

/* ---- reader -------------------------------------------------------------- */

struct json_reader {
	const char	*base;
	const char	*p;
	const char	*end;
	char		*err;
	size_t		 errlen;
	int		 depth;
	bool		 failed;
};

static void __attribute__((format(printf, 2, 3)))
json_error(struct json_reader *r, const char *fmt, ...)
{
	va_list	ap;

	if (r->failed)
		return;
	r->failed = true;
	if (r->errlen == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

static void
json_skip_blanks(struct json_reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
	    *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int
json_hex4(const char *p, unsigned int *out)
{
	unsigned int	v = 0;
	int		i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= (unsigned int)(p[i] - '0');
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= (unsigned int)(p[i] - 'a' + 10);
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= (unsigned int)(p[i] - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* One escape after the backslash at r->p; returns the byte it stands for. */
static int
json_escape(struct json_reader *r)
{
	static const char	 from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char		*hit;
	unsigned int		 u;

	if (++r->p >= r->end)
		return -1;
	if (*r->p == 'u') {
		if (r->end - r->p < 5 || json_hex4(r->p + 1, &u) == -1)
			return -1;
		r->p += 5;
		return u > 0 && u < 0x80 ? (int)u : '?';
	}
	if (*r->p == '\0' || (hit = strchr(from, *r->p)) == NULL)
		return -1;
	r->p++;
	return (unsigned char)to[hit - from];
}

/* A string at r->p (on the opening quote), into a new NUL-terminated copy. */
static char *
json_read_string(struct json_reader *r)
{
	const char	*start = r->p;
	char		*out;
	size_t		 n = 0;
	int		 c;

	if ((out = malloc((size_t)(r->end - start) + 1)) == NULL) {
		json_error(r, "out of memory");
		return NULL;
	}
	for (r->p++; r->p < r->end && *r->p != '"'; ) {
		if ((unsigned char)*r->p < 0x20)
			break;
		if (*r->p == '\\') {
			if ((c = json_escape(r)) == -1)
				break;
			out[n++] = (char)c;
		} else
			out[n++] = *r->p++;
	}
	if (r->p >= r->end || *r->p != '"') {
		json_error(r, "bad string at offset %td", start - r->base);
		free(out);
		return NULL;
	}
	r->p++;
	out[n] = '\0';
	return out;
}

static char *
json_read_number(struct json_reader *r)
{
	const char	*start = r->p;
	char		*out;
	size_t		 n;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	while (r->p < r->end && strchr("0123456789.eE+-", *r->p) != NULL &&
	    *r->p != '\0')
		r->p++;
	n = (size_t)(r->p - start);
	if (n == 0 || (n == 1 && *start == '-')) {
		json_error(r, "unexpected character");
		return NULL;
	}
	if ((out = malloc(n + 1)) == NULL) {
		json_error(r, "out of memory");
		return NULL;
	}
	memcpy(out, start, n);
	out[n] = '\0';
	return out;
}

static struct json_value	*json_read_value(struct json_reader *);

/* Members of an object or array, after its opening character. */
static int
json_read_members(struct json_reader *r, struct json_value *v, char close)
{
	struct json_value	**tail = &v->child, *m;
	char			 *key = NULL;

	json_skip_blanks(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		json_skip_blanks(r);
		if (close == '}') {
			if (r->p >= r->end || *r->p != '"' ||
			    (key = json_read_string(r)) == NULL)
				goto bad;
			json_skip_blanks(r);
			if (r->p >= r->end || *r->p++ != ':')
				goto bad;
		}
		if ((m = json_read_value(r)) == NULL)
			goto bad;
		m->key = key;
		key = NULL;
		*tail = m;
		tail = &m->next;
		json_skip_blanks(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		goto bad;
	}
bad:
	free(key);
	json_error(r, "malformed %s", close == '}' ? "object" : "array");
	return -1;
}

static int
json_read_word(struct json_reader *r, struct json_value *v)
{
	static const struct {
		const char	*word;
		enum json_type	 type;
		bool		 b;
	} words[] = {
		{ "true", JSON_BOOL, true },
		{ "false", JSON_BOOL, false },
		{ "null", JSON_NULL, false },
	};
	size_t	i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i].word);
		if ((size_t)(r->end - r->p) >= n &&
		    memcmp(r->p, words[i].word, n) == 0) {
			r->p += n;
			v->type = words[i].type;
			v->b = words[i].b;
			return 0;
		}
	}
	if ((v->str = json_read_number(r)) == NULL)
		return -1;
	v->type = JSON_NUMBER;
	return 0;
}

static struct json_value *
json_read_value(struct json_reader *r)
{
	struct json_value	*v;
	int			 rc;

	json_skip_blanks(r);
	if (r->p >= r->end) {
		json_error(r, "unexpected end of text");
		return NULL;
	}
	if (r->depth >= JSON_DEPTH_MAX) {
		json_error(r, "nested too deeply");
		return NULL;
	}
	if ((v = calloc(1, sizeof(*v))) == NULL) {
		json_error(r, "out of memory");
		return NULL;
	}
	r->depth++;
	if (*r->p == '{' || *r->p == '[') {
		v->type = *r->p == '{' ? JSON_OBJECT : JSON_ARRAY;
		r->p++;
		rc = json_read_members(r, v, v->type == JSON_OBJECT ?
		    '}' : ']');
	} else if (*r->p == '"') {
		v->type = JSON_STRING;
		rc = (v->str = json_read_string(r)) == NULL ? -1 : 0;
	} else
		rc = json_read_word(r, v);
	r->depth--;
	if (rc == -1) {
		json_free(v);
		return NULL;
	}
	return v;
}

struct json_value *
json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct json_reader	 r;
	struct json_value	*v;

	memset(&r, 0, sizeof(r));
	r.base = r.p = text;
	r.end = text + len;
	r.err = err;
	r.errlen = errlen;
	if (errlen > 0)
		err[0] = '\0';
	if ((v = json_read_value(&r)) == NULL)
		return NULL;
	json_skip_blanks(&r);
	if (r.p != r.end) {
		json_error(&r, "trailing characters after the value");
		json_free(v);
		return NULL;
	}
	return v;
}

void
json_free(struct json_value *v)
{
	struct json_value	*next;

	for (; v != NULL; v = next) {
		next = v->next;
		json_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
	}
}

const struct json_value *
json_get(const struct json_value *obj, const char *key)
{
	const struct json_value	*m;

	if (obj == NULL || obj->type != JSON_OBJECT)
		return NULL;
	for (m = obj->child; m != NULL; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const char *
json_get_str(const struct json_value *obj, const char *key)
{
	const struct json_value	*m = json_get(obj, key);

	return m != NULL && m->type == JSON_STRING ? m->str : NULL;
}

int
json_get_u64(const struct json_value *obj, const char *key, uint64_t *out)
{
	const struct json_value	*m = json_get(obj, key);
	char			*end;
	unsigned long long	 v;

	if (m == NULL || m->type != JSON_NUMBER || m->str[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(m->str, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

bool
json_get_bool(const struct json_value *obj, const char *key, bool dflt)
{
	const struct json_value	*m = json_get(obj, key);

	return m != NULL && m->type == JSON_BOOL ? m->b : dflt;
}

size_t
json_count(const struct json_value *v)
{
	const struct json_value	*m;
	size_t			 n = 0;

	if (v == NULL || (v->type != JSON_OBJECT && v->type != JSON_ARRAY))
		return 0;
	for (m = v->child; m != NULL; m = m->next)
		n++;
	return n;
}
