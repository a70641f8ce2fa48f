/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz_keywords.c: the tc-cake keyword parser and printer
 * (src/common/keywords.c) on hostile lines.
 *
 * Input: one line (cut at the first NUL or newline, and to
 * KEYWORDS_LINE_MAX - 1 bytes). Invariants: an error leaves the config
 * untouched and gives a NUL-terminated message; a line that parses prints,
 * the printed line parses to the same parameters and prints the same text
 * again (the round trip keywords.h promises); the single-value parsers
 * and printers round-trip too.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "fuzz.h"

static void
same_config(const struct cake_config *a, const struct cake_config *b)
{
	FUZZ_ASSERT(a->rate_Bps == b->rate_Bps);
	FUZZ_ASSERT(a->autorate_ingress == b->autorate_ingress);
	FUZZ_ASSERT(a->diffserv == b->diffserv);
	FUZZ_ASSERT(a->flow_mode == b->flow_mode);
	FUZZ_ASSERT(a->nat == b->nat && a->wash == b->wash);
	FUZZ_ASSERT(a->ingress == b->ingress);
	FUZZ_ASSERT(a->ack_filter == b->ack_filter);
	FUZZ_ASSERT(a->split_gso == b->split_gso);
	FUZZ_ASSERT(a->rtt_us == b->rtt_us && a->target_us == b->target_us);
	FUZZ_ASSERT(a->raw == b->raw && a->overhead == b->overhead);
	FUZZ_ASSERT(a->mpu == b->mpu && a->atm == b->atm);
	FUZZ_ASSERT(a->memlimit_bytes == b->memlimit_bytes);
	FUZZ_ASSERT(a->fwmark_mask == b->fwmark_mask);
	FUZZ_ASSERT(a->queues == b->queues);
}

static void
check_line(const char *line)
{
	struct cake_config	cfg, before, again;
	char			err[KEYWORDS_ERR_MAX], out[KEYWORDS_LINE_MAX];
	char			out2[KEYWORDS_LINE_MAX];

	cake_config_default(&cfg);
	before = cfg;
	memset(err, 'x', sizeof(err));
	if (keywords_parse_line(&cfg, line, err, sizeof(err)) != 0) {
		FUZZ_ASSERT(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_ASSERT(memcmp(&cfg, &before, sizeof(cfg)) == 0);
		return;
	}
	FUZZ_ASSERT(keywords_format(&cfg, out, sizeof(out)) == 0);
	cake_config_default(&again);
	FUZZ_ASSERT(keywords_parse_line(&again, out, err, sizeof(err)) == 0);
	same_config(&cfg, &again);
	FUZZ_ASSERT(keywords_format(&again, out2, sizeof(out2)) == 0);
	FUZZ_ASSERT(strcmp(out, out2) == 0);
}

/* Each value parser: what parses prints, and the print parses back. */
static void
check_values(const char *s)
{
	char		err[KEYWORDS_ERR_MAX], buf[64];
	uint64_t	v, w;
	uint32_t	t;

	if (keywords_parse_rate(s, &v, err, sizeof(err)) == 0 &&
	    keywords_format_rate(v, buf, sizeof(buf)) == 0) {
		FUZZ_ASSERT(keywords_parse_rate(buf, &w, err,
		    sizeof(err)) == 0);
		FUZZ_ASSERT(v == w);
	}
	if (keywords_parse_size(s, &v, err, sizeof(err)) == 0 &&
	    keywords_format_size(v, buf, sizeof(buf)) == 0) {
		FUZZ_ASSERT(keywords_parse_size(buf, &w, err,
		    sizeof(err)) == 0);
		FUZZ_ASSERT(v == w);
	}
	if (keywords_parse_time(s, &t, err, sizeof(err)) == 0)
		(void)keywords_format_time(t, buf, sizeof(buf));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	line[KEYWORDS_LINE_MAX];
	size_t	n;

	for (n = 0; n < size && n < sizeof(line) - 1; n++) {
		if (data[n] == '\0' || data[n] == '\n')
			break;
		line[n] = (char)data[n];
	}
	line[n] = '\0';
	check_line(line);
	if (n < 64)
		check_values(line);
	return 0;
}
