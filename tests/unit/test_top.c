/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_top.c: one frame of `cakectl top` (src/ctl/top.c) from two known
 * samples a second apart: rates come from the differences, and the
 * busiest hosts and flows are ordered by their rate now, not by their
 * bytes since they started.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json.h"
#include "ctl/top.h"

/* A sample at t seconds: sent bytes, drops, and two hosts' bytes. */
static void
sample(struct json_value *s[3], unsigned int t, unsigned long sent,
    unsigned int drops, unsigned long old_host, unsigned long new_host)
{
	char	buf[2048], err[128];
	int	i, n[3];

	n[0] = snprintf(buf, sizeof(buf), "{\"ok\":true,\"time_ns\":%u000000000,"
	    "\"directions\":{\"upload\":{\"bandwidth\":2500000,"
	    "\"sent_bytes\":%lu,\"drops\":%u,\"tins\":[{\"name\":"
	    "\"Best Effort\",\"sent_bytes\":%lu,\"ecn_mark\":%u,\"ack_drops\":0,"
	    "\"avg_delay_us\":4900,\"peak_delay_us\":8700,\"base_delay_us\":"
	    "727,\"bulk_flows\":3,\"sparse_flows\":1}]}}}", t, sent, drops,
	    sent, 2 * t);
	s[0] = json_parse(buf, (size_t)n[0], err, sizeof(err));
	n[1] = snprintf(buf, sizeof(buf), "{\"ok\":true,\"directions\":"
	    "{\"upload\":{\"total\":2,\"hosts\":[{\"address\":\"10.0.0.1\","
	    "\"bytes\":%lu},{\"address\":\"10.0.0.2\",\"bytes\":%lu}]}}}",
	    old_host, new_host);
	s[1] = json_parse(buf, (size_t)n[1], err, sizeof(err));
	n[2] = snprintf(buf, sizeof(buf), "{\"ok\":true,\"directions\":"
	    "{\"upload\":{\"total\":1,\"flows\":[{\"proto\":\"tcp\",\"src\":"
	    "\"10.0.0.2\",\"sport\":4000,\"dst\":\"10.9.0.1\",\"dport\":80,"
	    "\"bytes\":%lu}]}}}", new_host);
	s[2] = json_parse(buf, (size_t)n[2], err, sizeof(err));
	for (i = 0; i < 3; i++)
		assert_non_null(s[i]);
}

static void
test_rates_are_differences_and_hosts_sort_by_rate_now(void **state)
{
	struct json_value	*prev[3], *cur[3];
	char			*out = NULL;
	size_t			 len = 0;
	FILE			*fp;
	int			 i;

	(void)state;
	/* 1 MB in the second: 8 Mbit/s of 20; 10.0.0.1 old and idle. */
	sample(prev, 100, 5000000, 10, 90000000, 1000);
	sample(cur, 101, 6000000, 30, 90000000, 1001000);
	assert_non_null(fp = open_memstream(&out, &len));
	assert_int_equal(top_frame(fp, prev, cur), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(out, "upload: rate 20Mbit  achieved 8.00 "
	    "Mbit/s (40%)  drops/s 20  marks/s 2  ack_drops/s 0\n"));
	assert_non_null(strstr(out, "Best Effort      8.00"));
	/* The new host is shown at 8 Mbit/s; the old idle one not at all. */
	assert_non_null(strstr(out, "   10.0.0.2 "));
	assert_null(strstr(out, "   10.0.0.1 "));
	assert_non_null(strstr(out, "tcp 10.0.0.2:4000 > 10.9.0.1:80"));
	assert_null(strchr(out, '\033'));
	for (i = 0; i < 3; i++) {
		json_free(prev[i]);
		json_free(cur[i]);
	}
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_rates_are_differences_and_hosts_sort_by_rate_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
