/*
 * test_render.c: cakectl's renderers (src/ctl/render.c): the golden JSON
 * replies (written by test_ctlcmd from known snapshots) give golden tc-style
 * text and Prometheus text; incomplete replies are reported, not guessed.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "ctl/render.h"
#include "golden.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const replies[] = {
	"stats", "stats-upload", "stats-download",
};

typedef int	render_fn(FILE *, const struct json_value *);

/* Renders the golden reply name.json with fn; returns a malloc'd text. */
static char *
render_golden(const char *name, render_fn *fn, int *rc, size_t *len)
{
	struct json_value	*v;
	char			 file[128], err[128], *json, *text = NULL;
	size_t			 json_len;
	FILE			*fp;

	(void)snprintf(file, sizeof(file), "%s.json", name);
	json = golden_read(file, &json_len);
	v = json_parse(json, json_len, err, sizeof(err));
	if (v == NULL)
		fail_msg("%s: %s", file, err);
	assert_non_null(fp = open_memstream(&text, len));
	*rc = fn(fp, v);
	assert_int_equal(fclose(fp), 0);
	json_free(v);
	free(json);
	return text;
}

static void
test_stats_text_matches_the_golden_tc_layout(void **state)
{
	char	file[128], *text;
	size_t	i, len;
	int	rc;

	(void)state;
	for (i = 0; i < NITEMS(replies); i++) {
		text = render_golden(replies[i], render_stats, &rc, &len);
		assert_int_equal(rc, 0);
		(void)snprintf(file, sizeof(file), "%s.txt", replies[i]);
		golden_check(file, text, len);
		free(text);
	}
}

static void
test_tin_table_has_tc_column_widths(void **state)
{
	char	*text, *line;
	size_t	 len;
	int	 rc;

	(void)state;
	text = render_golden("stats-upload", render_stats, &rc, &len);
	/* tc/q_cake.c: 10-character label, " %12s" per tin. */
	line = strstr(text, "\n                   Bulk  Best Effort"
	    "        Voice\n");
	assert_non_null(line);
	line = strstr(text, "\n  thresh  ");
	assert_non_null(line);
	assert_int_equal(strcspn(line + 1, "\n"), 10 + 3 * 13);
	free(text);
}

static void
test_metrics_match_the_golden_exposition(void **state)
{
	char	file[128], *text;
	size_t	i, len;
	int	rc;

	(void)state;
	for (i = 0; i < NITEMS(replies); i++) {
		text = render_golden(replies[i], render_metrics, &rc, &len);
		assert_int_equal(rc, 0);
		(void)snprintf(file, sizeof(file), "%s.prom", replies[i]);
		golden_check(file, text, len);
		free(text);
	}
}

static void
test_incomplete_replies_are_reported(void **state)
{
	static const char *const docs[] = {
		"{\"version\":1,\"ok\":true}",
		"{\"version\":1,\"ok\":true,\"directions\":[]}",
		"{\"version\":1,\"ok\":true,\"directions\":{\"upload\":{}}}",
		"{\"version\":1,\"ok\":true,\"directions\":{\"upload\":"
		    "{\"tins\":{}}}}",
	};
	struct json_value	*v;
	char			*text = NULL, err[64];
	size_t			 i, len;
	FILE			*fp;

	(void)state;
	for (i = 0; i < NITEMS(docs); i++) {
		v = json_parse(docs[i], strlen(docs[i]), err, sizeof(err));
		assert_non_null(v);
		assert_non_null(fp = open_memstream(&text, &len));
		assert_int_equal(render_stats(fp, v), -1);
		fclose(fp);
		free(text);
		json_free(v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_text_matches_the_golden_tc_layout),
		cmocka_unit_test(test_tin_table_has_tc_column_widths),
		cmocka_unit_test(test_metrics_match_the_golden_exposition),
		cmocka_unit_test(test_incomplete_replies_are_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
