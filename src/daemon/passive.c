/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * passive.c: owns the passive-delay table (engine/tsrtt.c) that the two
 * datapaths feed and the autorate runner and the control commands read,
 * and writes its statistics. Everything runs in the one event loop.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/json.h"
#include "daemon/autorate_run.h"
#include "daemon/log.h"
#include "daemon/passive.h"
#include "engine/tsrtt.h"

struct tsrtt *
passive_create(void)
{
	struct tsrtt	*ts;

	if ((ts = calloc(1, sizeof(*ts))) == NULL) {
		log_warn("%s", __func__);
		return NULL;
	}
	tsrtt_init(ts);
	return ts;
}

void
passive_destroy(struct tsrtt *ts)
{
	free(ts);
}

static int64_t
passive_us(int64_t ns)
{
	return ns < 0 ? -1 : ns / 1000;
}

void
passive_json_dir(struct tsrtt *ts, int dir, uint64_t now_ns,
    struct json_writer *w)
{
	struct tsrtt_view	v;

	if (ts == NULL)
		return;
	tsrtt_view(ts, dir, now_ns, &v);
	json_object_begin(w, "passive");
	json_bool(w, "fresh", v.fresh);
	/* false: this direction's own share is not known, the sum is used */
	json_bool(w, "split", v.split);
	json_int(w, "delay_us", passive_us(v.delay_ns));
	json_uint(w, "baseline_us", v.baseline_ns / 1000);
	json_int(w, "recent_us", v.delay_ns < 0 || v.baseline_ns == 0 ? -1 :
	    passive_us((int64_t)v.baseline_ns + v.delay_ns));
	json_uint(w, "samples", v.samples);
	json_uint(w, "flows", v.flows);
	json_object_end(w);
}

void
passive_autorate(struct tsrtt *ts, struct autorate_run *ar,
    uint64_t *last_ns, uint64_t now_ns)
{
	struct tsrtt_view	v;
	int			dir;

	if (ts == NULL || ar == NULL || (*last_ns != 0 &&
	    now_ns - *last_ns < PASSIVE_PUSH_NS))
		return;
	*last_ns = now_ns;
	autorate_run_acked(ar, ts->c.up_sent, ts->c.up_acked);
	for (dir = TSRTT_UPLOAD; dir <= TSRTT_DOWNLOAD; dir++) {
		tsrtt_view(ts, dir, now_ns, &v);
		if (v.fresh && v.delay_ns >= 0)
			autorate_run_passive(ar, dir, v.baseline_ns +
			    (uint64_t)v.delay_ns, v.baseline_ns, now_ns);
	}
}

void
passive_json(const struct tsrtt *ts, struct json_writer *w)
{
	if (ts == NULL)
		return;
	json_object_begin(w, "passive");
	json_uint(w, "segments", ts->c.segments);
	json_uint(w, "no_timestamp", ts->c.no_timestamp);
	json_uint(w, "bad_options", ts->c.bad_option);
	json_uint(w, "rtt_samples", ts->c.samples);
	json_uint(w, "retransmissions", ts->c.retrans);
	json_uint(w, "expired", ts->c.expired);
	json_uint(w, "evictions", ts->c.evictions);
	json_uint(w, "clocks_unknown", ts->c.ticks_unknown);
	json_uint(w, "flows_max", TSRTT_FLOWS_MAX);
	json_object_end(w);
}
