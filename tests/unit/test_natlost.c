/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_natlost.c: with threads = 2 the NAT messages lost to full packet
 * thread inboxes (src/daemon/inbox.c) are counters of the stats reply
 * (nat.inbox_lost_news and nat.inbox_lost_asks, src/daemon/ctlcmd.c), of
 * cakectl's text (src/ctl/render.c) and of the Prometheus exposition
 * (caked_nat_inbox_lost_total{kind}, src/common/metrics.c). Real inboxes
 * of a few slots are overfilled, and the number they refused must come
 * out of all three; with one thread (no inboxes) the fields are left out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "common/metrics.h"
#include "ctl/render.h"
#include "daemon/ctlcmd.h"
#include "daemon/inbox.h"

#include "fakectl.h"

#define NEWS_SLOTS	4
#define ASK_SLOTS	2

/* The packet thread's two inboxes, as loop.c has them; NULL: threads = 1. */
static struct inbox	*news_ib, *ask_ib;

/* The fake daemon's "nat": conntrack fine, the inboxes' refusals. */
static int
natlost_nat(void *arg, struct ctlcmd_nat *n)
{
	(void)arg;
	n->state = "ok";
	if (news_ib == NULL)
		return 0;
	n->inboxes = true;
	n->inbox_lost_news = inbox_refused(news_ib);
	n->inbox_lost_asks = inbox_refused(ask_ib);
	return 0;
}

/* Posts n messages to ib; returns how many it refused (ENOBUFS). */
static int
natlost_post(struct inbox *ib, int n)
{
	uint64_t	msg = 0;
	int		refused = 0;

	for (; n > 0; n--, msg++)
		if (inbox_post(ib, &msg) == -1) {
			assert_int_equal(errno, ENOBUFS);
			refused++;
		}
	return refused;
}

/* The stats reply of the fake daemon with natlost_nat(), parsed. */
static struct json_value *
natlost_stats(void)
{
	struct ctlcmd_ops	 ops = fake_ops;
	struct json_value	*v;
	char			 err[128];
	size_t			 len = 0;

	ops.nat = natlost_nat;
	assert_int_equal(ctlcmd_handle(&ops, &user_peer, "stats", out,
	    sizeof(out), &len), CTLCMD_READ);
	assert_non_null(v = json_parse(out, len, err, sizeof(err)));
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	assert_non_null(json_get(v, "nat"));
	return v;
}

typedef int	natlost_render_fn(FILE *, const struct json_value *);

/* Renders v with fn into a malloc'd string. */
static char *
natlost_render(natlost_render_fn *fn, const struct json_value *v)
{
	char	*text = NULL;
	size_t	 len = 0;
	FILE	*fp;

	assert_non_null(fp = open_memstream(&text, &len));
	assert_int_equal(fn(fp, v), 0);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static int
natlost_setup(void **state)
{
	news_ib = ask_ib = NULL;
	return setup(state);
}

static int
natlost_teardown(void **state)
{
	(void)state;
	inbox_destroy(news_ib);
	inbox_destroy(ask_ib);
	news_ib = ask_ib = NULL;
	return 0;
}

static void
test_full_inboxes_count_in_json_text_and_metrics(void **state)
{
	struct json_value	*v;
	const struct json_value	*nat;
	uint64_t		 news = 0, asks = 0;
	char			*text;

	(void)state;
	assert_non_null(news_ib = inbox_create(NEWS_SLOTS, sizeof(uint64_t)));
	assert_non_null(ask_ib = inbox_create(ASK_SLOTS, sizeof(uint64_t)));
	assert_int_equal(natlost_post(news_ib, NEWS_SLOTS + 3), 3);
	assert_int_equal(natlost_post(ask_ib, ASK_SLOTS + 5), 5);

	v = natlost_stats();
	nat = json_get(v, "nat");
	assert_int_equal(json_get_u64(nat, "inbox_lost_news", &news), 0);
	assert_int_equal(json_get_u64(nat, "inbox_lost_asks", &asks), 0);
	assert_int_equal(news, 3);
	assert_int_equal(asks, 5);

	text = natlost_render(render_stats, v);
	if (strstr(text, "\n inboxes full: 3 news and 5 questions lost\n") ==
	    NULL)
		fail_msg("text lacks the inboxes' losses:\n%s", text);
	free(text);

	text = natlost_render(metrics_render, v);
	if (strstr(text, "\n# TYPE caked_nat_inbox_lost_total counter\n"
	    "caked_nat_inbox_lost_total{kind=\"news\"} 3\n"
	    "caked_nat_inbox_lost_total{kind=\"asks\"} 5\n") == NULL)
		fail_msg("metrics lack the inboxes' losses:\n%s", text);
	free(text);
	json_free(v);
}

/* Losses keep counting while the receiver empties the inbox. */
static void
test_counts_only_grow(void **state)
{
	struct json_value	*v;
	uint64_t		 news = 0, msg;

	(void)state;
	assert_non_null(news_ib = inbox_create(NEWS_SLOTS, sizeof(uint64_t)));
	assert_non_null(ask_ib = inbox_create(ASK_SLOTS, sizeof(uint64_t)));
	assert_int_equal(natlost_post(news_ib, NEWS_SLOTS + 1), 1);
	while (inbox_take(news_ib, &msg))
		;
	assert_int_equal(natlost_post(news_ib, NEWS_SLOTS + 2), 2);
	v = natlost_stats();
	assert_int_equal(json_get_u64(json_get(v, "nat"), "inbox_lost_news",
	    &news), 0);
	assert_int_equal(news, 3);
	json_free(v);
}

/* threads = 1: no inboxes, so no such fields, line or samples. */
static void
test_one_thread_leaves_the_fields_out(void **state)
{
	struct json_value	*v;
	char			*text;

	(void)state;
	v = natlost_stats();
	assert_null(json_get(json_get(v, "nat"), "inbox_lost_news"));
	assert_null(json_get(json_get(v, "nat"), "inbox_lost_asks"));
	text = natlost_render(render_stats, v);
	assert_non_null(strstr(text, "\nnat: conntrack ok"));
	assert_null(strstr(text, "inboxes full"));
	free(text);
	text = natlost_render(metrics_render, v);
	assert_non_null(strstr(text, "\ncaked_nat_cache_hits_total 0\n"));
	assert_null(strstr(text, "caked_nat_inbox_lost_total"));
	free(text);
	json_free(v);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_full_inboxes_count_in_json_text_and_metrics,
		    natlost_setup, natlost_teardown),
		cmocka_unit_test_setup_teardown(test_counts_only_grow,
		    natlost_setup, natlost_teardown),
		cmocka_unit_test_setup_teardown(
		    test_one_thread_leaves_the_fields_out, natlost_setup,
		    natlost_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
