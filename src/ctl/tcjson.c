/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * tcjson.c: `cakectl -j stats --tc`, a stats reply in the layout of
 * `tc -s -j qdisc show dev DEV` for a cake qdisc, so that tools written
 * for tc's JSON read caked unchanged: per direction one line holding an
 * array of one qdisc object with kind, handle, root, refcnt, options (an
 * object, tc's keys and value types), bytes, packets, drops, overlimits,
 * requeues, backlog, qlen, the cake globals and the tins array, keys in
 * tc's order. tests/unit/golden/tc/cake.json is real output of iproute2's
 * tc for a kernel cake qdisc; test_tcjson compares key sets and types.
 *
 * What tc reports and caked has no equivalent for is given tc's value for
 * a root qdisc without it: requeues 0, refcnt 2. The handle is 1: for
 * upload and 2: for download.
 *
 * It only formats: the options come from the reply's keyword string,
 * parsed by src/common/keywords.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "ctl/tcjson.h"

#define TCJSON_OUT_MAX	16384	/* one direction; 8 tins take under 8 kB */

/* A tc key and the reply's name for the same value. */
struct tcjson_map {
	const char	*tc;
	const char	*caked;
};

static const struct tcjson_map tcjson_globals[] = {
	{ "bytes", "sent_bytes" },
	{ "packets", "sent_packets" },
	{ "drops", "drops" },
	{ "overlimits", "overlimits" },
	{ "requeues", NULL },
	{ "backlog", "backlog_bytes" },
	{ "qlen", "backlog_packets" },
	{ "memory_used", "memory_used" },
	{ "memory_limit", "memory_limit" },
	{ "capacity_estimate", "capacity_estimate" },
	{ "min_network_size", "min_network_size" },
	{ "max_network_size", "max_network_size" },
	{ "min_adj_size", "min_adj_size" },
	{ "max_adj_size", "max_adj_size" },
	{ "avg_hdr_offset", "avg_hdr_offset" },
};

/* tc's order of the per-tin keys (the reply uses the same names). */
static const char *const tcjson_tin_keys[] = {
	"threshold_rate", "sent_bytes", "backlog_bytes", "target_us",
	"interval_us", "peak_delay_us", "avg_delay_us", "base_delay_us",
	"sent_packets", "way_indirect_hits", "way_misses", "way_collisions",
	"drops", "ecn_mark", "ack_drops", "sparse_flows", "bulk_flows",
	"unresponsive_flows", "max_pkt_len", "flow_quantum",
};

#define TCJSON_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

static int
tcjson_copy(struct json_writer *w, const struct json_value *obj,
    const char *tc, const char *key)
{
	uint64_t	v = 0;

	if (key != NULL && json_get_u64(obj, key, &v) == -1)
		return -1;
	json_uint(w, tc, v);
	return 0;
}

/* The "options" object, as tc's q_cake.c prints it with -j. */
static int
tcjson_options(struct json_writer *w, const char *opts)
{
	static const char *const ack[] = { "disabled", "enabled",
	    "aggressive" };
	struct cake_config	 cfg;
	char			 err[KEYWORDS_ERR_MAX], mark[16];

	memset(&cfg, 0, sizeof(cfg));
	cfg.queues = CAKE_QUEUES_DEFAULT;
	if (opts == NULL || keywords_parse_line(&cfg, opts, err,
	    sizeof(err)) == -1 || keywords_diffserv_name(&cfg) == NULL ||
	    keywords_flow_mode_name(&cfg) == NULL ||
	    (unsigned int)cfg.ack_filter >= TCJSON_NITEMS(ack))
		return -1;
	json_object_begin(w, CTL_KEY_OPTIONS);
	if (cfg.rate_Bps != 0)
		json_uint(w, "bandwidth", cfg.rate_Bps);
	else
		json_string(w, "bandwidth", "unlimited");
	if (cfg.autorate_ingress)
		json_string(w, "autorate", "autorate-ingress");
	json_string(w, "diffserv", keywords_diffserv_name(&cfg));
	json_string(w, "flowmode", keywords_flow_mode_name(&cfg));
	json_bool(w, "nat", cfg.nat);
	json_bool(w, "wash", cfg.wash);
	json_bool(w, "ingress", cfg.ingress);
	json_string(w, "ack-filter", ack[cfg.ack_filter]);
	json_bool(w, "split_gso", cfg.split_gso);
	json_uint(w, "rtt", cfg.rtt_us);
	json_bool(w, "raw", cfg.raw);
	if ((cfg.atm != CAKE_ATM_NONE || !cfg.raw) &&
	    keywords_atm_name(&cfg) != NULL)
		json_string(w, "atm", keywords_atm_name(&cfg));
	json_int(w, "overhead", cfg.overhead);
	if (cfg.mpu != 0)
		json_uint(w, "mpu", cfg.mpu);
	if (cfg.memlimit_bytes != 0)
		json_uint(w, "memlimit", cfg.memlimit_bytes);
	if (cfg.fwmark_mask != 0)
		(void)snprintf(mark, sizeof(mark), "0x%x", cfg.fwmark_mask);
	else
		(void)snprintf(mark, sizeof(mark), "0");
	json_string(w, "fwmark", mark);
	json_object_end(w);
	return 0;
}

static int
tcjson_tins(struct json_writer *w, const struct json_value *d)
{
	const struct json_value	*tins = json_get(d, CTL_KEY_TINS), *t;
	size_t			 i;
	int			 bad = 0;

	if (tins == NULL || tins->type != JSON_ARRAY)
		return -1;
	json_array_begin(w, CTL_KEY_TINS);
	for (t = tins->child; t != NULL; t = t->next) {
		json_object_begin(w, NULL);
		for (i = 0; i < TCJSON_NITEMS(tcjson_tin_keys); i++)
			bad |= tcjson_copy(w, t, tcjson_tin_keys[i],
			    tcjson_tin_keys[i]);
		json_object_end(w);
	}
	json_array_end(w);
	return bad ? -1 : 0;
}

/* One direction as a one-element array of qdisc objects. */
static int
tcjson_direction(FILE *fp, const struct json_value *d, int n)
{
	static char		 out[TCJSON_OUT_MAX];
	struct json_writer	 w;
	size_t			 i;
	int			 bad = 0, len;

	json_init(&w, out, sizeof(out));
	json_array_begin(&w, NULL);
	json_object_begin(&w, NULL);
	json_string(&w, "kind", "cake");
	json_string(&w, "handle", n == 0 ? "1:" : "2:");
	json_bool(&w, "root", true);
	json_uint(&w, "refcnt", 2);
	bad |= tcjson_options(&w, json_get_str(d, CTL_KEY_OPTIONS));
	for (i = 0; i < TCJSON_NITEMS(tcjson_globals); i++)
		bad |= tcjson_copy(&w, d, tcjson_globals[i].tc,
		    tcjson_globals[i].caked);
	bad |= tcjson_tins(&w, d);
	json_object_end(&w);
	json_array_end(&w);
	if (bad || (len = json_finish(&w)) == -1)
		return -1;
	return fwrite(out, 1, (size_t)len, fp) == (size_t)len ? 0 : -1;
}

int
tcjson_render(FILE *fp, const struct json_value *reply)
{
	const struct json_value	*dirs, *d;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT || dirs->child == NULL)
		return -1;
	for (d = dirs->child; d != NULL; d = d->next)
		if (tcjson_direction(fp, d, strcmp(d->key, CTL_DIR_UPLOAD) ==
		    0 ? 0 : 1) == -1)
			return -1;
	return 0;
}
