/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * json.h: a small JSON writer into a caller's fixed buffer (for caked's
 * control replies) and a small reader into a tree (for cakectl).
 */
#ifndef CAKED_COMMON_JSON_H
#define CAKED_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_DEPTH_MAX		16	/* nesting of objects and arrays */

/*
 * The writer never allocates and never writes past cap. Any error (the
 * buffer is full, too deep, a value without a key inside an object)
 * sticks, and json_finish() reports it.
 */
struct json_writer {
	char		*buf;
	size_t		 cap;
	size_t		 len;
	bool		 failed;
	int		 depth;
	bool		 first[JSON_DEPTH_MAX];	/* nothing written yet */
	bool		 object[JSON_DEPTH_MAX];	/* object, else array */
};

/* Starts writing into buf[0..cap). */
void	json_init(struct json_writer *w, char *buf, size_t cap);
/* Opens an object or array; key is NULL at the top and inside arrays. */
void	json_object_begin(struct json_writer *w, const char *key);
void	json_object_end(struct json_writer *w);
void	json_array_begin(struct json_writer *w, const char *key);
void	json_array_end(struct json_writer *w);
/* Members (key non-NULL inside objects, NULL inside arrays). */
void	json_string(struct json_writer *w, const char *key, const char *s);
void	json_uint(struct json_writer *w, const char *key, uint64_t v);
void	json_int(struct json_writer *w, const char *key, int64_t v);
void	json_bool(struct json_writer *w, const char *key, bool v);
/*
 * Ends the text with "\n" and a NUL. Returns its length (without the
 * NUL), or -1 if anything failed or an object or array is still open.
 */
int	json_finish(struct json_writer *w);

enum json_type {
	JSON_NULL = 0,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

/* A parsed value; members of objects and arrays are chained by next. */
struct json_value {
	enum json_type		 type;
	char			*key;		/* inside an object */
	char			*str;		/* string, or number text */
	bool			 b;
	struct json_value	*child;		/* first member */
	struct json_value	*next;
};

/*
 * Parses text[0..len) as one JSON value (trailing blanks allowed). Returns
 * a tree to free with json_free(), or NULL with a message in err.
 */
struct json_value	*json_parse(const char *text, size_t len, char *err,
			    size_t errlen);
void			 json_free(struct json_value *v);
/* Member key of an object, or NULL. */
const struct json_value	*json_get(const struct json_value *obj,
			    const char *key);
/* String member, or NULL if absent or not a string. */
const char		*json_get_str(const struct json_value *obj,
			    const char *key);
/* Unsigned number member into *out: 0, or -1 if absent or not one. */
int			 json_get_u64(const struct json_value *obj,
			    const char *key, uint64_t *out);
/* Boolean member, or dflt if absent or not a boolean. */
bool			 json_get_bool(const struct json_value *obj,
			    const char *key, bool dflt);
/* Number of members of an object or array. */
size_t			 json_count(const struct json_value *v);

#endif /* CAKED_COMMON_JSON_H */
