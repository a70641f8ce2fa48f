/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_ackfilter_rules.c: the eligibility rules of the ACK filter
 * (src/engine/ackfilter.c, doc/cake.md §6), one named test per rule: TCP
 * flags, options, timestamps, the cumulative ACK and SACK blocks. Each
 * rule is checked in both modes on an IPv4 connection; the frames come
 * from ackframes.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "engine/ackfilter.h"

#include "ackframes.h"

/*
 * Checks one eligibility rule for candidate cand against trigger trig on
 * an IPv4 connection, in both modes:
 *   conservative, queue [cand, filler, trig]: cand is dropped iff eligible
 *   (filler is an ACK that is always eligible);
 *   aggressive, queue [cand, trig]: cand is dropped iff eligible.
 */
static void
check_rule(const struct seg *cand, const struct seg *trig, bool eligible)
{
	struct tpkt	 q[3];
	struct seg	 filler = ack_seg(trig->ack - 1);
	struct cake_pkt	*prev, *want = eligible ? &q[0].pkt : NULL;

	filler.flags |= cand->flags & (TH_ECE | TH_CWR);
	build(&q[0], &conn_v4, cand);
	build(&q[1], &conn_v4, &filler);
	build(&q[2], &conn_v4, trig);
	prev = &q[2].pkt;
	assert_ptr_equal(find(q, 3, CAKE_ACK_FILTER, &prev), want);
	assert_null(prev);

	build(&q[1], &conn_v4, trig);
	prev = &q[1].pkt;
	assert_ptr_equal(find(q, 2, CAKE_ACK_AGGRESSIVE, &prev), want);
	assert_null(prev);
}

/* Candidate = pure ACK 1000 with flags changed; trigger = ACK 2000. */
static void
check_flags(uint16_t flags, bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	cand.flags = flags;
	check_rule(&cand, &trig, eligible);
}

/* Candidate = pure ACK 1000 carrying raw option bytes o. */
static void
check_option(const uint8_t *o, size_t n, bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	opt_add(&cand, o, n);
	check_rule(&cand, &trig, eligible);
}

/* ---- flags -------------------------------------------------------------- */

static void
test_plain_pure_ack_is_eligible(void **state)
{
	(void)state;
	check_flags(TH_ACK, true);
}

static void
test_ack_carrying_data_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	cand.payload_bytes = 1;
	check_rule(&cand, &trig, false);
}

static void
test_syn_ack_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_SYN, false);
}

static void
test_fin_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_FIN, false);
}

static void
test_rst_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_RST, false);
}

static void
test_psh_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_PSH, false);
}

static void
test_urg_is_kept(void **state)
{
	(void)state;
	check_flags(TH_ACK | TH_URG, false);
}

static void
test_reserved_bits_and_ns_are_kept(void **state)
{
	static const uint16_t	bits[] = {
		TH_NS, TH_RES1, TH_RES2, TH_RES3
	};
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		check_flags(TH_ACK | bits[i], false);
}

static void
test_segment_without_ack_flag_is_kept(void **state)
{
	(void)state;
	check_flags(0, false);
}

static void
test_ece_and_cwr_are_allowed_when_they_match(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	cand.flags |= TH_ECE | TH_CWR;
	trig.flags |= TH_ECE | TH_CWR;
	check_rule(&cand, &trig, true);
}

/* [A1 ECE, A2, T]: A2's ECE change forgets A1; only A2 stays eligible. */
static void
test_ece_change_forgets_earlier_candidate(void **state)
{
	struct tpkt	 q[3];
	struct seg	 a1 = ack_seg(100), a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);
	struct cake_pkt	*prev = &q[0].pkt;

	(void)state;
	a1.flags |= TH_ECE;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &a2);
	build(&q[2], &conn_v4, &t);
	assert_null(find(q, 3, CAKE_ACK_FILTER, NULL));
	/* Aggressive may still take A2: adjacent and same bits as T. */
	assert_ptr_equal(find(q, 3, CAKE_ACK_AGGRESSIVE, &prev), &q[1].pkt);
	assert_ptr_equal(prev, &q[0].pkt);
}

/* A data segment with new ECE/CWR bits also forgets the candidate. */
static void
test_cwr_change_on_data_segment_forgets_candidate(void **state)
{
	struct tpkt	 q[4];
	struct seg	 a1 = ack_seg(100), d = ack_seg(150);
	struct seg	 a2 = ack_seg(200);
	struct seg	 t = ack_seg(300);

	(void)state;
	d.flags |= TH_CWR | TH_PSH;
	d.payload_bytes = 50;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &d);
	build(&q[2], &conn_v4, &a2);
	build(&q[3], &conn_v4, &t);
	assert_null(find(q, 4, CAKE_ACK_FILTER, NULL));
}

static void
test_aggressive_keeps_ack_whose_ecn_bits_differ_from_trigger(void **state)
{
	struct tpkt	 q[2];
	struct seg	 a1 = ack_seg(100), t = ack_seg(300);

	(void)state;
	t.flags |= TH_ECE;
	build(&q[0], &conn_v4, &a1);
	build(&q[1], &conn_v4, &t);
	assert_null(find(q, 2, CAKE_ACK_AGGRESSIVE, NULL));
}

/* ---- options ------------------------------------------------------------ */

static void
test_nop_and_eol_options_are_allowed(void **state)
{
	/* NOPs, then EOL: what follows it is padding. */
	const uint8_t	o[] = { 1, 1, 1, 0, 2, 4, 5, 180 };

	(void)state;
	check_option(o, sizeof(o), true);
}

static void
test_md5sig_option_is_allowed(void **state)
{
	uint8_t	o[20] = { 1, 1, 19, 18 };

	(void)state;
	check_option(o, sizeof(o), true);
	o[3] = 10;		/* wrong length: not a real MD5 signature */
	check_option(o, 12, false);
}

static void
test_mss_option_is_kept(void **state)
{
	const uint8_t	o[] = { 2, 4, 5, 180 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_window_scale_option_is_kept(void **state)
{
	const uint8_t	o[] = { 1, 3, 3, 7 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_sack_permitted_option_is_kept(void **state)
{
	const uint8_t	o[] = { 1, 1, 4, 2 };

	(void)state;
	check_option(o, sizeof(o), false);
}

static void
test_unknown_and_experimental_options_are_kept(void **state)
{
	const uint8_t	unknown[] = { 99, 4, 0, 0 };
	const uint8_t	fastopen[] = { 34, 2, 1, 1 };
	const uint8_t	exp[] = { 254, 4, 0xf9, 0x89 };

	(void)state;
	check_option(unknown, sizeof(unknown), false);
	check_option(fastopen, sizeof(fastopen), false);
	check_option(exp, sizeof(exp), false);
}

static void
test_malformed_option_lengths_are_kept(void **state)
{
	static const uint8_t	bad[][8] = {
		{ 1, 1, 1, 19, 1 },		/* length below 2 */
		{ 1, 1, 1, 19, 0 },		/* length 0: would loop */
		{ 1, 1, 19, 18, 0 },		/* runs past the header */
		{ 1, 1, 1, 1, 1, 1, 1, 19 },	/* kind without length */
		{ 8, 8, 0, 0, 0, 0, 0, 0 },	/* timestamp of 8 bytes */
		{ 5, 7, 0, 0, 0, 0, 0, 1 },	/* SACK not 2 + 8n */
		{ 1, 1, 5, 2 },			/* SACK with no block */
	};
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_option(bad[i], sizeof(bad[i]), false);
}

/* ---- timestamps --------------------------------------------------------- */

static void
check_ts(uint32_t c_val, uint32_t c_ecr, uint32_t t_val, uint32_t t_ecr,
    bool eligible)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	opt_ts(&cand, c_val, c_ecr);
	opt_ts(&trig, t_val, t_ecr);
	check_rule(&cand, &trig, eligible);
}

static void
test_older_or_equal_timestamps_are_eligible(void **state)
{
	(void)state;
	check_ts(10, 20, 11, 21, true);
	check_ts(10, 20, 10, 20, true);
}

static void
test_newer_tsval_is_kept(void **state)
{
	(void)state;
	check_ts(12, 20, 11, 21, false);
}

static void
test_newer_tsecr_is_kept(void **state)
{
	(void)state;
	check_ts(10, 22, 11, 21, false);
}

static void
test_timestamp_comparison_wraps(void **state)
{
	(void)state;
	check_ts(0xfffffff0u, 0xfffffffeu, 0x10, 0x2, true);
	check_ts(0x10, 0x2, 0xfffffff0u, 0xfffffffeu, false);
}

static void
test_timestamp_kept_when_trigger_has_none(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(2000);

	(void)state;
	opt_ts(&cand, 0, 0);
	check_rule(&cand, &trig, false);
}

/* ---- cumulative ACK ------------------------------------------------------ */

static void
test_ack_beyond_trigger_is_kept(void **state)
{
	struct seg	cand = ack_seg(2001), trig = ack_seg(2000);

	(void)state;
	check_rule(&cand, &trig, false);
}

static void
test_duplicate_ack_without_sack_is_kept(void **state)
{
	struct seg	cand = ack_seg(2000), trig = ack_seg(2000);

	(void)state;
	check_rule(&cand, &trig, false);
}

static void
test_ack_comparison_wraps(void **state)
{
	struct seg	cand = ack_seg(0xffffff00u), trig = ack_seg(0x100);

	(void)state;
	check_rule(&cand, &trig, true);
	cand = ack_seg(0x100);
	trig = ack_seg(0xffffff00u);
	check_rule(&cand, &trig, false);
}

/* ---- SACK --------------------------------------------------------------- */

static void
test_sack_covered_by_trigger_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack1(&trig, 2000, 4000);
	check_rule(&cand, &trig, true);
}

static void
test_sack_covered_by_adjacent_trigger_blocks_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);
	uint32_t	e[4] = { 2500, 3500, 2000, 2500 };

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack(&trig, 2, e);
	check_rule(&cand, &trig, true);
}

static void
test_sack_not_covered_by_trigger_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);
	uint32_t	e[4] = { 2000, 3000, 5000, 6000 };

	(void)state;
	opt_sack(&cand, 2, e);
	opt_sack1(&trig, 2000, 3000);
	check_rule(&cand, &trig, false);
	cand = ack_seg(1000);
	opt_sack1(&cand, 1900, 2100);	/* overhangs the trigger's block */
	check_rule(&cand, &trig, false);
}

static void
test_sack_kept_when_trigger_has_none(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	check_rule(&cand, &trig, false);
}

static void
test_dsack_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 500, 900);	/* below its own ACK: RFC 2883 */
	opt_sack1(&trig, 500, 900);
	check_rule(&cand, &trig, false);
}

static void
test_equal_ack_with_equal_sack_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);

	(void)state;
	opt_sack1(&cand, 2000, 3000);
	opt_sack1(&trig, 2000, 3000);
	check_rule(&cand, &trig, false);
}

static void
test_equal_ack_with_more_sacked_is_eligible(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1000);
	uint32_t	e[4] = { 4000, 5000, 2000, 3000 };

	(void)state;
	check_rule(&cand, &trig, false);	/* no SACK on either */
	opt_sack(&trig, 2, e);
	check_rule(&cand, &trig, true);		/* none vs some */
	opt_sack1(&cand, 2000, 3000);
	check_rule(&cand, &trig, true);		/* one block vs two */
}

static void
test_reversed_sack_block_is_kept(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1500);

	(void)state;
	opt_sack1(&cand, 3000, 2000);
	opt_sack1(&trig, 1000, 4000);
	check_rule(&cand, &trig, false);
}

static void
test_sack_comparison_wraps(void **state)
{
	struct seg	cand = ack_seg(0xfffff000u);
	struct seg	trig = ack_seg(0xfffff800u);

	(void)state;
	opt_sack1(&cand, 0xfffffc00u, 0x400);
	opt_sack1(&trig, 0xfffffa00u, 0x800);
	check_rule(&cand, &trig, true);
	cand = ack_seg(0xfffff000u);
	opt_sack1(&cand, 0xfffffc00u, 0x900);
	check_rule(&cand, &trig, false);
}

static void
test_sack_with_timestamps_together(void **state)
{
	struct seg	cand = ack_seg(1000), trig = ack_seg(1200);

	(void)state;
	opt_ts(&cand, 5, 6);
	opt_sack1(&cand, 2000, 3000);
	opt_ts(&trig, 7, 6);
	opt_sack1(&trig, 2000, 3500);
	check_rule(&cand, &trig, true);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_plain_pure_ack_is_eligible),
		cmocka_unit_test(test_ack_carrying_data_is_kept),
		cmocka_unit_test(test_syn_ack_is_kept),
		cmocka_unit_test(test_fin_is_kept),
		cmocka_unit_test(test_rst_is_kept),
		cmocka_unit_test(test_psh_is_kept),
		cmocka_unit_test(test_urg_is_kept),
		cmocka_unit_test(test_reserved_bits_and_ns_are_kept),
		cmocka_unit_test(test_segment_without_ack_flag_is_kept),
		cmocka_unit_test(test_ece_and_cwr_are_allowed_when_they_match),
		cmocka_unit_test(test_ece_change_forgets_earlier_candidate),
		cmocka_unit_test(test_cwr_change_on_data_segment_forgets_candidate),
		cmocka_unit_test(test_aggressive_keeps_ack_whose_ecn_bits_differ_from_trigger),
		cmocka_unit_test(test_nop_and_eol_options_are_allowed),
		cmocka_unit_test(test_md5sig_option_is_allowed),
		cmocka_unit_test(test_mss_option_is_kept),
		cmocka_unit_test(test_window_scale_option_is_kept),
		cmocka_unit_test(test_sack_permitted_option_is_kept),
		cmocka_unit_test(test_unknown_and_experimental_options_are_kept),
		cmocka_unit_test(test_malformed_option_lengths_are_kept),
		cmocka_unit_test(test_older_or_equal_timestamps_are_eligible),
		cmocka_unit_test(test_newer_tsval_is_kept),
		cmocka_unit_test(test_newer_tsecr_is_kept),
		cmocka_unit_test(test_timestamp_comparison_wraps),
		cmocka_unit_test(test_timestamp_kept_when_trigger_has_none),
		cmocka_unit_test(test_ack_beyond_trigger_is_kept),
		cmocka_unit_test(test_duplicate_ack_without_sack_is_kept),
		cmocka_unit_test(test_ack_comparison_wraps),
		cmocka_unit_test(test_sack_covered_by_trigger_is_eligible),
		cmocka_unit_test(test_sack_covered_by_adjacent_trigger_blocks_is_eligible),
		cmocka_unit_test(test_sack_not_covered_by_trigger_is_kept),
		cmocka_unit_test(test_sack_kept_when_trigger_has_none),
		cmocka_unit_test(test_dsack_is_kept),
		cmocka_unit_test(test_equal_ack_with_equal_sack_is_kept),
		cmocka_unit_test(test_equal_ack_with_more_sacked_is_eligible),
		cmocka_unit_test(test_reversed_sack_block_is_kept),
		cmocka_unit_test(test_sack_comparison_wraps),
		cmocka_unit_test(test_sack_with_timestamps_together),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
