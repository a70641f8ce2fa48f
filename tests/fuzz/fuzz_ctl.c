/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * fuzz_ctl.c: the control protocol: request lines through ctlcmd_handle()
 * (src/daemon/ctlcmd.c) against two real engine instances, and the JSON
 * reader and writer (src/common/json.c).
 *
 * Input: byte 0 holds flags (bit 0: the peer is admin; bit 1: a reply
 * buffer of only 200 bytes); the rest is request lines split at '\n'.
 * Invariants: every reply is one JSON object ended by a single "\n" that
 * the reader parses back, with a boolean "ok"; a non-admin peer never
 * changes state; any line written as a JSON string reads back unchanged.
 * The engines are reset to their first parameters before each input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"
#include "fuzz.h"

/* Every flow of its instances, which keep the default queues. */
#define CTL_FLOWS_MAX	(CAKE_MAX_TINS * CAKE_QUEUES_DEFAULT)
#define CTL_PKTS	8

struct ctl_fuzz {
	struct cake		*c[CTLCMD_DIRS];
	struct cake_config	 first[CTLCMD_DIRS];
	bool			 shaped[CTLCMD_DIRS];
	struct cake_pkt		 pkts[CTL_PKTS];
	uint8_t			 bufs[CTL_PKTS][128];
};

static struct ctl_fuzz		 cf;
static struct cake_flow_stats	 scratch_flows[CTL_FLOWS_MAX];
static struct ctlcmd_host	 scratch_hosts[CTL_FLOWS_MAX];
static char			 reply[CTL_REPLY_MAX];

static int
ctl_snapshot(void *arg, int dir, struct cake_stats *st,
    struct cake_config *cfg)
{
	struct ctl_fuzz	*f = arg;

	if (!f->shaped[dir])
		return -1;
	cake_get_stats(f->c[dir], st);
	cake_get_config(f->c[dir], cfg);
	return 0;
}

static int
ctl_change(void *arg, int dir, const struct cake_config *cfg, char *err,
    size_t errlen)
{
	struct ctl_fuzz	*f = arg;

	if (cake_change(f->c[dir], cfg, 0) != CAKE_OK) {
		(void)snprintf(err, errlen, "engine refused the options");
		return -1;
	}
	return 0;
}

static int
ctl_reload(void *arg, char *err, size_t errlen)
{
	(void)arg;
	(void)snprintf(err, errlen, "no configuration file here");
	return -1;
}

static int
ctl_flows(void *arg, int dir, struct cake_flow_stats *out, unsigned int max)
{
	struct ctl_fuzz	*f = arg;

	if (!f->shaped[dir])
		return -1;
	return (int)cake_get_flows(f->c[dir], out, max);
}

static const struct ctlcmd_ops ctl_ops = {
	.arg = &cf,
	.version = "fuzz",
	.snapshot = ctl_snapshot,
	.change = ctl_change,
	.reload = ctl_reload,
	.flows = ctl_flows,
	.scratch = { scratch_flows, scratch_hosts, CTL_FLOWS_MAX },
};

/* A few IPv4/UDP packets so that hosts and flows have something to say. */
static void
ctl_fill(struct cake *c)
{
	unsigned int	 i;
	uint8_t		*b;

	for (i = 0; i < CTL_PKTS; i++) {
		b = cf.bufs[i];
		memset(b, 0, sizeof(cf.bufs[i]));
		b[0] = 0x45;
		b[3] = 100;
		b[8] = 64;
		b[9] = 17;
		b[12] = 10, b[15] = (uint8_t)(1 + i % 3);
		b[16] = 10, b[17] = 2, b[19] = 1;
		b[20] = 0x9c, b[21] = (uint8_t)i, b[23] = 53;
		b[25] = 80;
		(void)fuzz_ipv4_fix(b, 20);
		memset(&cf.pkts[i], 0, sizeof(cf.pkts[i]));
		cf.pkts[i].data = b;
		cf.pkts[i].len = 100;
		cf.pkts[i].cap = cf.pkts[i].truesize = sizeof(cf.bufs[i]);
		(void)cake_enqueue(c, &cf.pkts[i], 0);
	}
}

static int
ctl_init(void)
{
	struct cake_env	env;
	char		err[KEYWORDS_ERR_MAX];
	int		dir, e;

	if (cf.c[0] != NULL)
		return 0;
	memset(&env, 0, sizeof(env));
	env.link = CAKE_LINK_IP;
	env.mtu = 1500;
	env.seed = 1;
	for (dir = 0; dir < CTLCMD_DIRS; dir++) {
		cake_config_default(&cf.first[dir]);
		if (keywords_parse_line(&cf.first[dir], dir == 0 ?
		    "bandwidth 20mbit diffserv4 nat" :
		    "bandwidth 100mbit besteffort dual-dsthost ingress",
		    err, sizeof(err)) != 0)
			abort();
		if ((cf.c[dir] = cake_create(&cf.first[dir], &env, &e)) == NULL)
			abort();
		cf.shaped[dir] = true;
	}
	ctl_fill(cf.c[0]);
	return 0;
}

/* A line written as a JSON string member reads back unchanged. */
static void
ctl_json_round_trip(const char *line)
{
	static char		 buf[CTL_LINE_MAX * 6 + 64];
	struct json_writer	 w;
	struct json_value	*v;
	char			 err[128];
	int			 n;

	json_init(&w, buf, sizeof(buf));
	json_object_begin(&w, NULL);
	json_string(&w, "s", line);
	json_object_end(&w);
	if ((n = json_finish(&w)) < 0)
		return;
	v = json_parse(buf, (size_t)n, err, sizeof(err));
	FUZZ_ASSERT(v != NULL);
	FUZZ_ASSERT(json_get_str(v, "s") != NULL);
	FUZZ_ASSERT(strcmp(json_get_str(v, "s"), line) == 0);
	json_free(v);
}

static void
ctl_one(const char *line, size_t len, const struct ctlcmd_peer *peer,
    size_t cap)
{
	struct json_value	*v;
	char			 err[128];
	size_t			 outlen = 0;
	int			 res;

	v = json_parse(line, len, err, sizeof(err));
	json_free(v);
	ctl_json_round_trip(line);
	res = ctlcmd_handle(&ctl_ops, peer, line, reply, cap, &outlen);
	FUZZ_ASSERT(res >= CTLCMD_READ && res <= CTLCMD_DENIED);
	FUZZ_ASSERT(outlen > 0 && outlen < cap);
	FUZZ_ASSERT(reply[outlen - 1] == '\n');
	FUZZ_ASSERT(memchr(reply, '\n', outlen) == reply + outlen - 1);
	if (!peer->admin)
		FUZZ_ASSERT(res != CTLCMD_CHANGED);
	v = json_parse(reply, outlen, err, sizeof(err));
	FUZZ_ASSERT(v != NULL && v->type == JSON_OBJECT);
	FUZZ_ASSERT(json_get(v, CTL_KEY_OK) != NULL &&
	    json_get(v, CTL_KEY_OK)->type == JSON_BOOL);
	json_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctlcmd_peer	 peer = { 1000, 4242, false };
	char			 line[CTL_LINE_MAX];
	size_t			 i, n, cap = sizeof(reply);
	int			 dir;

	if (size < 1 || ctl_init() != 0)
		return 0;
	peer.admin = data[0] & 1;
	peer.uid = peer.admin ? 0 : 1000;
	if (data[0] & 2)
		cap = 200;
	for (dir = 0; dir < CTLCMD_DIRS; dir++)
		FUZZ_ASSERT(cake_change(cf.c[dir], &cf.first[dir], 0) ==
		    CAKE_OK);
	for (i = 1; i < size; i++) {
		for (n = 0; i < size && data[i] != '\n'; i++)
			if (n < sizeof(line) - 1 && data[i] != '\0')
				line[n++] = (char)data[i];
		line[n] = '\0';
		ctl_one(line, n, &peer, cap);
	}
	return 0;
}
