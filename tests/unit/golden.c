/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * golden.c: golden-file comparison for the unit tests (golden.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"

static void
golden_path(const char *name, char *buf, size_t len)
{
	int	n = snprintf(buf, len, "%s/%s", TEST_GOLDEN_DIR, name);

	assert_true(n > 0 && (size_t)n < len);
}

char *
golden_read(const char *name, size_t *len)
{
	char	 path[1024], *buf;
	FILE	*fp;
	long	 size;

	golden_path(name, path, sizeof(path));
	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("%s: cannot open (run make golden-regen?)", path);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	size = ftell(fp);
	assert_true(size >= 0);
	rewind(fp);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, fp), (size_t)size);
	buf[size] = '\0';
	fclose(fp);
	*len = (size_t)size;
	return buf;
}

/* Fails showing the first line that differs. */
static void
golden_diff(const char *name, const char *want, const char *got)
{
	size_t	line = 1, i, start = 0;

	for (i = 0; want[i] != '\0' && want[i] == got[i]; i++) {
		if (want[i] == '\n') {
			line++;
			start = i + 1;
		}
	}
	fail_msg("%s differs at line %zu:\n want: %.*s\n got:  %.*s", name,
	    line, (int)strcspn(want + start, "\n"), want + start,
	    (int)strcspn(got + start, "\n"), got + start);
}

void
golden_check(const char *name, const char *text, size_t len)
{
	const char	*regen = getenv("CAKED_GOLDEN_REGEN");
	char		 path[1024], *want;
	size_t		 want_len;
	FILE		*fp;

	if (regen != NULL && strcmp(regen, "1") == 0) {
		golden_path(name, path, sizeof(path));
		assert_non_null(fp = fopen(path, "w"));
		assert_int_equal(fwrite(text, 1, len, fp), len);
		assert_int_equal(fclose(fp), 0);
		return;
	}
	want = golden_read(name, &want_len);
	if (want_len != len || memcmp(want, text, len) != 0)
		golden_diff(name, want, text);
	free(want);
}
