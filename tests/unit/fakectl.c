/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fakectl.c: the fake daemon behind the control command tests
 * (fakectl.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"

#include "fakectl.h"
#include "golden.h"

struct fake		fake;
char			out[CTL_REPLY_MAX];
static struct cake_flow_stats	scratch_flows[FLOWS_MAX];
static struct ctlcmd_host	scratch_hosts[FLOWS_MAX];

const struct ctlcmd_peer root_peer = { 0, 100, true };
const struct ctlcmd_peer user_peer = { 65534, 200, false };

static int
fake_snapshot(void *arg, int dir, struct cake_stats *st,
    struct cake_config *cfg)
{
	struct fake	*f = arg;

	if (!f->shaped[dir] || f->busy[dir])
		return -1;
	*st = f->st[dir];
	*cfg = f->cfg[dir];
	return 0;
}

static int
fake_change(void *arg, int dir, const struct cake_config *cfg, char *err,
    size_t errlen)
{
	struct fake	*f = arg;

	if (cfg->rate_Bps == 12345) {	/* a refusal the engine might give */
		(void)snprintf(err, errlen, "engine refused the options");
		return -1;
	}
	f->cfg[dir] = *cfg;
	f->changes++;
	return 0;
}

static int
fake_reload(void *arg, char *err, size_t errlen)
{
	struct fake	*f = arg;

	f->reloads++;
	if (f->reload_rc == -1)
		(void)snprintf(err, errlen, "/etc/caked.conf has errors");
	return f->reload_rc;
}

static void
fake_counters(void *arg, struct ctlcmd_counters *c)
{
	(void)arg;
	c->clients = 1;
	c->clients_max = CTL_CLIENTS_MAX;
	c->accepted = 7;
	c->refused_busy = 2;
	c->requests = 41;
	c->denied = 3;
	c->too_long = 1;
}

static int
fake_flows(void *arg, int dir, struct cake_flow_stats *fs, unsigned int max)
{
	struct fake	*f = arg;
	unsigned int	 n = f->nflows[dir] < max ? f->nflows[dir] : max;

	if (!f->shaped[dir] || f->busy[dir])
		return -1;
	if (n > 0)
		memcpy(fs, f->flows[dir], n * sizeof(*fs));
	return (int)n;
}

/* A fixed clock: 2026-01-01T00:00:00.123456789Z, up for an hour. */
static void
fake_clock(void *arg, uint64_t *real_ns, uint64_t *uptime_ns)
{
	(void)arg;
	*real_ns = FAKE_TIME_NS;
	*uptime_ns = FAKE_UPTIME_NS;
}

static void
fake_daemon(void *arg, struct json_writer *w)
{
	(void)arg;
	json_object_begin(w, "daemon");
	json_string(w, "version", "1.2.3");
	json_uint(w, "reloads", 2);
	json_uint(w, "reload_failures", 1);
	json_uint(w, "last_reload_ok", 0);
	json_uint(w, "last_reload_ok_time_ns", FAKE_TIME_NS - 60000000000ULL);
	json_uint(w, "timer_spins", 5);
	json_object_end(w);
}

/* Passive delay: split in upload, only the round trip in download. */
static void
fake_passive(void *arg, int dir, struct json_writer *w)
{
	(void)arg;
	json_object_begin(w, "passive");
	if (dir == -1) {
		json_uint(w, "segments", 90210);
		json_uint(w, "no_timestamp", 310);
		json_uint(w, "bad_options", 2);
		json_uint(w, "rtt_samples", 8800);
		json_uint(w, "retransmissions", 17);
		json_uint(w, "expired", 40);
		json_uint(w, "evictions", 1);
		json_uint(w, "clocks_unknown", 0);
		json_uint(w, "flows_max", 1024);
	} else {
		json_bool(w, "fresh", true);
		json_bool(w, "split", dir == 0);
		json_int(w, "delay_us", dir == 0 ? 3400 : 12800);
		json_uint(w, "baseline_us", 21300);
		json_int(w, "recent_us", dir == 0 ? 24700 : 34100);
		json_uint(w, "samples", dir == 0 ? 4100 : 4700);
		json_uint(w, "flows", 2);
	}
	json_object_end(w);
}

/* 10.1.0.2 measured on both sides, 10.1.0.4 on the WAN side only. */
static void
fake_host_rtt(void *arg, const uint8_t addr[16], uint8_t family,
    uint64_t *lan_ns, uint64_t *wan_ns)
{
	(void)arg;
	*lan_ns = *wan_ns = 0;
	if (family != 4 || addr[12] != 10 || addr[13] != 1)
		return;
	if (addr[15] == 2) {
		*lan_ns = 1234000;
		*wan_ns = 23456000;
	} else if (addr[15] == 4)
		*wan_ns = 41000000;
}

static bool
fake_busy(void *arg, int dir)
{
	struct fake	*f = arg;

	return f->shaped[dir] && f->busy[dir];
}

const struct ctlcmd_ops fake_ops = {
	.arg = &fake,
	.version = "1.2.3",
	.snapshot = fake_snapshot,
	.busy = fake_busy,
	.change = fake_change,
	.reload = fake_reload,
	.counters = fake_counters,
	.flows = fake_flows,
	.daemon = fake_daemon,
	.passive = fake_passive,
	.host_rtt = fake_host_rtt,
	.clock = fake_clock,
	.scratch = { scratch_flows, scratch_hosts, FLOWS_MAX },
};

#define V4(a, b, c, d)	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, \
			  a, b, c, d }
#define V6(a, b, z)	{ 0x20, 0x01, 0x0d, 0xb8, 0, a, 0, 0, 0, 0, 0, 0, \
			  0, 0, b, z }

/*
 * Upload (diffserv3): 10.1.0.2 has three flows, 10.1.0.3 one ICMP flow,
 * 2001:db8:1::2 one, and a non-IP queue has no addresses. The ICMP flow
 * and the 10.2.0.9 flow tie on bytes: packets break the tie.
 */
const struct cake_flow_stats up_flows[FAKE_UP_FLOWS] = {
	{ { V4(10, 1, 0, 2), V4(10, 2, 0, 9), 40002, 80, 6, 4 }, 1,
	    CAKE_FLOW_STATE_IDLE, 0, 0, 8400, 7, 0, 0 },
	{ { V4(10, 1, 0, 2), V4(10, 2, 0, 1), 40000, 5201, 6, 4 }, 1,
	    CAKE_FLOW_STATE_BULK, 3, 4542, 9000000, 6000, 12, 4 },
	{ { V4(10, 1, 0, 3), V4(10, 2, 0, 1), 0, 0, 1, 4 }, 1,
	    CAKE_FLOW_STATE_SPARSE, 0, 0, 8400, 100, 0, 0 },
	{ { V6(1, 0, 2), V6(2, 0, 1), 50000, 443, 6, 6 }, 0,
	    CAKE_FLOW_STATE_DECAYING, 1, 1514, 500000, 400, 1, 0 },
	{ { V4(10, 1, 0, 2), V4(10, 2, 0, 1), 40001, 53, 17, 4 }, 2,
	    CAKE_FLOW_STATE_SPARSE, 0, 0, 1200, 10, 0, 0 },
	{ { { 0 }, { 0 }, 0, 0, 0, 0 }, 1, CAKE_FLOW_STATE_SPARSE, 0, 0,
	    600, 10, 0, 0 },
};

/* Download (besteffort nat): pre-NAT destinations are the LAN hosts. */
const struct cake_flow_stats down_flows[FAKE_DOWN_FLOWS] = {
	{ { V4(10, 2, 0, 1), V4(10, 1, 0, 2), 5201, 40000, 6, 4 }, 0,
	    CAKE_FLOW_STATE_SPARSE, 0, 0, 300000, 5000, 0, 0 },
	{ { V4(10, 2, 0, 9), V4(10, 1, 0, 4), 443, 51000, 6, 4 }, 0,
	    CAKE_FLOW_STATE_BULK, 2, 3028, 2000000, 1400, 3, 7 },
	{ { V4(10, 2, 0, 1), V4(10, 1, 0, 4), 53, 40001, 17, 4 }, 0,
	    CAKE_FLOW_STATE_SPARSE, 0, 0, 400, 4, 0, 0 },
};

/* A diffserv3 tin with distinct numbers in every field. */
static void
fill_tin(struct cake_tin_stats *t, const char *name, uint64_t base,
    uint64_t thresh_Bps, uint32_t quantum)
{
	(void)snprintf(t->name, sizeof(t->name), "%s", name);
	t->threshold_Bps = thresh_Bps;
	t->target_us = 5000;
	t->interval_us = 100000;
	t->peak_delay_us = 8700 + (uint32_t)base;
	t->avg_delay_us = 4900 + (uint32_t)base;
	t->base_delay_us = 727 + (uint32_t)base;
	t->backlog_bytes = 3028 * base;
	t->pkts = 10000 + base;
	t->bytes = 14000000 + base;
	t->way_inds = base;
	t->way_miss = 20 + base;
	t->way_cols = base / 2;
	t->drops = 20 - base;
	t->ecn_marks = 3 * base;
	t->ack_drops = base / 3;
	t->sparse_flows = 2;
	t->bulk_flows = 1;
	t->unresponsive_flows = 0;
	t->max_pkt_len = 1514;
	t->flow_quantum = quantum;
}

/* A 20 Mbit diffserv3 upload as tc shows one, plus a 1-tin download. */
int
setup(void **state)
{
	struct cake_stats	*u = &fake.st[0], *d = &fake.st[1];
	char			 err[KEYWORDS_ERR_MAX];

	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.shaped[0] = fake.shaped[1] = true;
	cake_config_default(&fake.cfg[0]);
	cake_config_default(&fake.cfg[1]);
	assert_int_equal(keywords_parse_line(&fake.cfg[0],
	    "bandwidth 100mbit ethernet", err, sizeof(err)), 0);
	assert_int_equal(keywords_parse_line(&fake.cfg[1],
	    "bandwidth 20mbit besteffort nat ingress", err, sizeof(err)), 0);
	u->sent_bytes = 123456789;
	u->sent_pkts = 98765;
	u->dropped_pkts = 45;
	u->overlimits = 6789;
	u->backlog_bytes = 4542;
	u->backlog_pkts = 3;
	u->memory_used = 292352;
	u->memory_limit = 5000000;
	u->memory_now = 8192;
	u->capacity_estimate_Bps = 12500000;
	u->min_netlen = 28;
	u->max_netlen = 1500;
	u->min_adjlen = 84;
	u->max_adjlen = 1538;
	u->avg_netoff = 14;
	u->tin_count = 3;
	fill_tin(&u->tins[0], "Bulk", 1, 781250, 300);
	fill_tin(&u->tins[1], "Best Effort", 2, 12500000, 1514);
	fill_tin(&u->tins[2], "Voice", 3, 3125000, 762);
	d->sent_bytes = 5000;
	d->sent_pkts = 50;
	d->memory_limit = 4194304;
	d->capacity_estimate_Bps = 2500000;
	d->min_netlen = 65535;
	d->tin_count = 1;
	fill_tin(&d->tins[0], "Tin 0", 0, 2500000, 1514);
	fake.flows[0] = up_flows;
	fake.nflows[0] = NITEMS(up_flows);
	fake.flows[1] = down_flows;
	fake.nflows[1] = NITEMS(down_flows);
	return 0;
}

/* Runs one request; checks the framing every reply must have. */
int
run(const struct ctlcmd_peer *peer, const char *line, struct json_value **v)
{
	char	err[128];
	size_t	len = 0;
	int	rc;

	memset(out, 'X', sizeof(out));
	rc = ctlcmd_handle(&fake_ops, peer, line, out, sizeof(out), &len);
	assert_true(len > 0 && len < sizeof(out));
	assert_int_equal(out[len - 1], '\n');
	assert_int_equal(out[len], '\0');
	assert_ptr_equal(memchr(out, '\n', len), out + len - 1);
	*v = json_parse(out, len, err, sizeof(err));
	if (*v == NULL)
		fail_msg("reply to '%s' is not JSON (%s): %s", line, err, out);
	assert_int_equal(json_get_u64(*v, CTL_KEY_VERSION, &(uint64_t){0}), 0);
	return rc;
}

void
golden_request(const char *line, const char *golden)
{
	struct json_value	*v;

	assert_int_equal(run(&user_peer, line, &v), CTLCMD_READ);
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	golden_check(golden, out, strlen(out));
	json_free(v);
}
