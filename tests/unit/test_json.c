/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_json.c: the JSON writer and reader of the control protocol
 * (src/common/json.c): escaping, misuse and overflow of the writer, what
 * the reader accepts and refuses, and write-then-read round trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

static void
test_writer_escapes_quotes_backslashes_and_control_characters(void **state)
{
	static const struct {
		const char	*in;
		const char	*out;
	} cases[] = {
		{ "plain", "{\"k\":\"plain\"}\n" },
		{ "a\"b", "{\"k\":\"a\\\"b\"}\n" },
		{ "a\\b", "{\"k\":\"a\\\\b\"}\n" },
		{ "l1\nl2\t", "{\"k\":\"l1\\nl2\\t\"}\n" },
		{ "\x01\x1f\x7f", "{\"k\":\"\\u0001\\u001f\\u007f\"}\n" },
		{ "Best Effort", "{\"k\":\"Best Effort\"}\n" },
		{ "", "{\"k\":\"\"}\n" },
	};
	struct json_writer	w;
	char			buf[128];
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		json_init(&w, buf, sizeof(buf));
		json_object_begin(&w, NULL);
		json_string(&w, "k", cases[i].in);
		json_object_end(&w);
		assert_int_equal(json_finish(&w), strlen(cases[i].out));
		assert_string_equal(buf, cases[i].out);
	}
}

static void
test_writer_nests_objects_and_arrays_with_commas(void **state)
{
	struct json_writer	w;
	char			buf[256];

	(void)state;
	json_init(&w, buf, sizeof(buf));
	json_object_begin(&w, NULL);
	json_uint(&w, "u", UINT64_MAX);
	json_int(&w, "i", -5);
	json_bool(&w, "t", true);
	json_array_begin(&w, "a");
	json_uint(&w, NULL, 1);
	json_object_begin(&w, NULL);
	json_bool(&w, "f", false);
	json_object_end(&w);
	json_array_end(&w);
	json_object_begin(&w, "empty");
	json_object_end(&w);
	json_object_end(&w);
	assert_true(json_finish(&w) > 0);
	assert_string_equal(buf, "{\"u\":18446744073709551615,\"i\":-5,"
	    "\"t\":true,\"a\":[1,{\"f\":false}],\"empty\":{}}\n");
}

static void
test_writer_fails_instead_of_overflowing_at_every_size(void **state)
{
	struct json_writer	w;
	char			buf[64];
	size_t			cap;
	int			n;

	(void)state;
	/* 29 bytes, "\n" and NUL: every smaller buffer must fail. */
	for (cap = 0; cap <= 40; cap++) {
		memset(buf, 'X', sizeof(buf));
		json_init(&w, buf, cap);
		json_object_begin(&w, NULL);
		json_string(&w, "name", "Best Effort");
		json_uint(&w, "n", 42);
		json_object_end(&w);
		n = json_finish(&w);
		if (cap < 31)
			assert_int_equal(n, -1);
		else
			assert_int_equal(n, 30);
		assert_int_equal(buf[cap], 'X');	/* nothing past cap */
	}
}

static void
test_writer_refuses_misuse(void **state)
{
	struct json_writer	w;
	char			buf[128];
	int			i;

	(void)state;
	json_init(&w, buf, sizeof(buf));	/* value without key in object */
	json_object_begin(&w, NULL);
	json_uint(&w, NULL, 1);
	json_object_end(&w);
	assert_int_equal(json_finish(&w), -1);

	json_init(&w, buf, sizeof(buf));	/* key inside an array */
	json_array_begin(&w, NULL);
	json_uint(&w, "k", 1);
	json_array_end(&w);
	assert_int_equal(json_finish(&w), -1);

	json_init(&w, buf, sizeof(buf));	/* left open */
	json_object_begin(&w, NULL);
	assert_int_equal(json_finish(&w), -1);

	json_init(&w, buf, sizeof(buf));	/* mismatched close */
	json_object_begin(&w, NULL);
	json_array_end(&w);
	assert_int_equal(json_finish(&w), -1);

	json_init(&w, buf, sizeof(buf));	/* too deep */
	for (i = 0; i <= JSON_DEPTH_MAX; i++)
		json_array_begin(&w, NULL);
	assert_int_equal(json_finish(&w), -1);
}

static void
test_reader_accepts_valid_documents(void **state)
{
	static const char *const docs[] = {
		"{}", "[]", "  {\"a\" : [ 1 , 2.5e3, -4 ] }\n", "\"s\"",
		"true", "null", "{\"a\":{\"b\":{\"c\":[[]]}}}",
		"{\"e\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\"}",
	};
	struct json_value	*v;
	char			 err[128];
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(docs); i++) {
		v = json_parse(docs[i], strlen(docs[i]), err, sizeof(err));
		if (v == NULL)
			fail_msg("'%s' refused: %s", docs[i], err);
		json_free(v);
	}
}

static void
test_reader_refuses_malformed_documents_with_a_message(void **state)
{
	static const char *const docs[] = {
		"", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]",
		"[1 2]", "{a:1}", "\"unterminated", "\"bad \\x escape\"",
		"\"\\u12\"", "\"raw\ncontrol\"", "{} {}", "tru", "-",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	struct json_value	*v;
	char			 err[128];
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(docs); i++) {
		err[0] = '\0';
		v = json_parse(docs[i], strlen(docs[i]), err, sizeof(err));
		if (v != NULL)
			fail_msg("'%s' accepted", docs[i]);
		assert_true(strlen(err) > 0);
	}
}

static void
test_reader_reads_back_what_the_writer_wrote(void **state)
{
	struct json_writer	 w;
	struct json_value	*v;
	const struct json_value	*a;
	char			 buf[256], err[64];
	uint64_t		 u;
	int			 n;

	(void)state;
	json_init(&w, buf, sizeof(buf));
	json_object_begin(&w, NULL);
	json_string(&w, "name", "x\"y\\z\n\x01");
	json_uint(&w, "big", UINT64_MAX);
	json_int(&w, "neg", -1);
	json_bool(&w, "ok", true);
	json_array_begin(&w, "list");
	json_uint(&w, NULL, 7);
	json_uint(&w, NULL, 8);
	json_array_end(&w);
	json_object_end(&w);
	n = json_finish(&w);
	assert_true(n > 0);
	v = json_parse(buf, (size_t)n, err, sizeof(err));
	assert_non_null(v);
	assert_string_equal(json_get_str(v, "name"), "x\"y\\z\n\x01");
	assert_int_equal(json_get_u64(v, "big", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(json_get_u64(v, "neg", &u), -1);
	assert_int_equal(json_get_u64(v, "name", &u), -1);
	assert_int_equal(json_get_u64(v, "absent", &u), -1);
	assert_true(json_get_bool(v, "ok", false));
	assert_true(json_get_bool(v, "absent", true));
	assert_null(json_get_str(v, "big"));
	a = json_get(v, "list");
	assert_non_null(a);
	assert_int_equal(a->type, JSON_ARRAY);
	assert_int_equal(json_count(a), 2);
	assert_string_equal(a->child->next->str, "8");
	assert_int_equal(json_count(v), 5);
	json_free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_writer_escapes_quotes_backslashes_and_control_characters),
		cmocka_unit_test(test_writer_nests_objects_and_arrays_with_commas),
		cmocka_unit_test(
		    test_writer_fails_instead_of_overflowing_at_every_size),
		cmocka_unit_test(test_writer_refuses_misuse),
		cmocka_unit_test(test_reader_accepts_valid_documents),
		cmocka_unit_test(
		    test_reader_refuses_malformed_documents_with_a_message),
		cmocka_unit_test(test_reader_reads_back_what_the_writer_wrote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
