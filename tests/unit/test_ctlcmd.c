/*
 * test_ctlcmd.c: the control commands (src/daemon/ctlcmd.c) against a
 * fake daemon: golden JSON for known snapshots, permissions, the exact
 * errors for bad requests and bad keywords, and that nothing changes when
 * a request is refused. hosts and flows get a fake flow table: golden
 * JSON, sums per host (source in upload, destination in download), the
 * order, the top N cut and a worst case that must fit the reply cap.
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
#include "golden.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* Every flow of a default-sized instance (no "queues"). */
#define FLOWS_MAX	(CAKE_MAX_TINS * CAKE_QUEUES_DEFAULT)

struct fake {
	struct cake_stats	st[CTLCMD_DIRS];
	const struct cake_flow_stats *flows[CTLCMD_DIRS];
	unsigned int		nflows[CTLCMD_DIRS];
	struct cake_config	cfg[CTLCMD_DIRS];
	bool			shaped[CTLCMD_DIRS];
	int			changes;
	int			reloads;
	int			reload_rc;
};

static struct fake	fake;
static char		out[CTL_REPLY_MAX];
static struct cake_flow_stats	scratch_flows[FLOWS_MAX];
static struct ctlcmd_host	scratch_hosts[FLOWS_MAX];
static struct cake_flow_stats	big_flows[FLOWS_MAX];

static const struct ctlcmd_peer root_peer = { 0, 100, true };
static const struct ctlcmd_peer user_peer = { 65534, 200, false };

static int
fake_snapshot(void *arg, int dir, struct cake_stats *st,
    struct cake_config *cfg)
{
	struct fake	*f = arg;

	if (!f->shaped[dir])
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

	if (!f->shaped[dir])
		return -1;
	if (n > 0)
		memcpy(fs, f->flows[dir], n * sizeof(*fs));
	return (int)n;
}

static const struct ctlcmd_ops fake_ops = {
	.arg = &fake,
	.version = "1.2.3",
	.snapshot = fake_snapshot,
	.change = fake_change,
	.reload = fake_reload,
	.counters = fake_counters,
	.flows = fake_flows,
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
static const struct cake_flow_stats up_flows[] = {
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
static const struct cake_flow_stats down_flows[] = {
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

/* The example of cake-reference.md §3.3, plus a 1-tin download. */
static int
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
static int
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

static void
test_stats_replies_match_the_golden_json(void **state)
{
	static const struct {
		const char	*line;
		const char	*golden;
	} cases[] = {
		{ "stats", "stats.json" },
		{ "stats upload", "stats-upload.json" },
		{ "stats download", "stats-download.json" },
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(&user_peer, cases[i].line, &v),
		    CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		golden_check(cases[i].golden, out, strlen(out));
		json_free(v);
	}
}

static void
test_stats_has_every_tc_per_tin_name_for_every_tin(void **state)
{
	static const char *const keys[] = {
		"name", "threshold_rate", "target_us", "interval_us",
		"peak_delay_us", "avg_delay_us", "base_delay_us",
		"backlog_bytes", "sent_packets", "sent_bytes",
		"way_indirect_hits", "way_misses", "way_collisions", "drops",
		"ecn_mark", "ack_drops", "sparse_flows", "bulk_flows",
		"unresponsive_flows", "max_pkt_len", "flow_quantum",
	};
	struct json_value	*v;
	const struct json_value	*up, *tins, *t;
	size_t			 i;

	(void)state;
	run(&user_peer, "stats", &v);
	up = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_non_null(up);
	tins = json_get(up, CTL_KEY_TINS);
	assert_int_equal(json_count(tins), 3);
	for (t = tins->child; t != NULL; t = t->next) {
		assert_int_equal(json_count(t), NITEMS(keys));
		for (i = 0; i < NITEMS(keys); i++)
			if (json_get(t, keys[i]) == NULL)
				fail_msg("tin lacks %s", keys[i]);
	}
	assert_string_equal(json_get_str(up, CTL_KEY_OPTIONS),
	    "bandwidth 100Mbit diffserv3 triple-isolate nonat nowash "
	    "no-ack-filter split-gso rtt 100ms noatm overhead 38 mpu 84");
	json_free(v);
}

static void
test_read_only_commands_are_allowed_to_anyone(void **state)
{
	static const char *const lines[] = {
		"ping", "version", "stats", "stats upload", "  stats\tdownload ",
		"ping\r",
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(lines); i++) {
		assert_int_equal(run(&user_peer, lines[i], &v), CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		json_free(v);
	}
	run(&user_peer, "version", &v);
	assert_string_equal(json_get_str(v, CTL_KEY_DAEMON_VERSION), "1.2.3");
	json_free(v);
	run(&user_peer, "ping", &v);
	assert_string_equal(json_get_str(v, CTL_KEY_MESSAGE), "pong");
	json_free(v);
}

static void
test_bad_requests_get_a_coded_error_and_change_nothing(void **state)
{
	static char	long_line[CTL_LINE_MAX + 10], many[CTL_LINE_MAX];
	struct {
		const struct ctlcmd_peer	*peer;
		const char			*line;
		int				 result;
		const char			*code;
		const char			*error;
	} cases[] = {
		{ &root_peer, "", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "empty request" },
		{ &root_peer, "   ", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "empty request" },
		{ &root_peer, "frobnicate now", CTLCMD_ERROR, CTL_CODE_UNKNOWN,
		    "unknown command 'frobnicate'" },
		{ &root_peer, "STATS", CTLCMD_ERROR, CTL_CODE_UNKNOWN,
		    "unknown command 'STATS'" },
		{ &root_peer, "stats sideways", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "unknown direction 'sideways' (upload or download)" },
		{ &root_peer, "stats upload download", CTLCMD_ERROR,
		    CTL_CODE_USAGE, "usage: stats [upload | download]" },
		{ &root_peer, "ping pong", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "usage: ping" },
		{ &root_peer, "set upload", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "usage: set upload | download KEYWORD ..." },
		{ &root_peer, "set sideways rtt 5ms", CTLCMD_ERROR,
		    CTL_CODE_USAGE,
		    "unknown direction 'sideways' (upload or download)" },
		{ &user_peer, "set upload bandwidth 30mbit", CTLCMD_DENIED,
		    CTL_CODE_DENIED, "permission denied: 'set' needs root or "
		    "the admin group" },
		{ &user_peer, "reload", CTLCMD_DENIED, CTL_CODE_DENIED,
		    "permission denied: 'reload' needs root or the admin "
		    "group" },
		{ &root_peer, "set upload bandwidth 98760bit", CTLCMD_ERROR,
		    CTL_CODE_INVALID, "engine refused the options" },
		{ &root_peer, "ping\x01", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "request contains bytes other than printable ASCII" },
		{ &root_peer, "st\xc3\xa4ts", CTLCMD_ERROR, CTL_CODE_USAGE,
		    "request contains bytes other than printable ASCII" },
		{ &root_peer, long_line, CTLCMD_ERROR, CTL_CODE_TOOLONG,
		    "request longer than 4095 bytes" },
		{ &root_peer, many, CTLCMD_ERROR, CTL_CODE_USAGE,
		    "more than 64 words" },
	};
	struct json_value	*v;
	struct fake		 before;
	size_t			 i;

	(void)state;
	memset(long_line, 'a', sizeof(long_line) - 1);
	for (i = 0; i < 65; i++)
		memcpy(many + 2 * i, "x ", 2);
	before = fake;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(cases[i].peer, cases[i].line, &v),
		    cases[i].result);
		assert_false(json_get_bool(v, CTL_KEY_OK, true));
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    cases[i].code);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
		    cases[i].error);
		json_free(v);
	}
	assert_int_equal(fake.changes, 0);
	assert_int_equal(fake.reloads, 0);
	assert_memory_equal(&before, &fake, sizeof(fake));
}

static void
test_set_with_bad_keywords_returns_the_keyword_parsers_message(void **state)
{
	static const char *const args[] = {
		"bandwith 30mbit", "bandwidth fast", "rtt", "overhead 1000",
		"diffserv9", "besteffort diffserv4 nat nonat mpu 999",
	};
	struct cake_config	 cfg;
	struct json_value	*v;
	char			 line[256], want[KEYWORDS_ERR_MAX];
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(args); i++) {
		cfg = fake.cfg[0];
		assert_int_equal(keywords_parse_line(&cfg, args[i], want,
		    sizeof(want)), -1);
		(void)snprintf(line, sizeof(line), "set upload %s", args[i]);
		assert_int_equal(run(&root_peer, line, &v), CTLCMD_ERROR);
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    CTL_CODE_INVALID);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR), want);
		json_free(v);
	}
	assert_int_equal(fake.changes, 0);
}

static void
test_set_applies_keywords_on_top_of_the_running_options(void **state)
{
	struct cake_config	 want = fake.cfg[1];
	struct json_value	*v;
	char			 err[KEYWORDS_ERR_MAX], line[KEYWORDS_LINE_MAX];

	(void)state;
	assert_int_equal(keywords_parse_line(&want, "bandwidth 30mbit rtt 50ms",
	    err, sizeof(err)), 0);
	assert_int_equal(run(&root_peer, "set download bandwidth 30mbit "
	    "rtt 50ms", &v), CTLCMD_CHANGED);
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	assert_int_equal(fake.changes, 1);
	assert_memory_equal(&fake.cfg[1], &want, sizeof(want));
	assert_int_equal(fake.cfg[1].rate_Bps, 3750000);
	assert_true(fake.cfg[1].nat);	/* kept from before */
	assert_int_equal(keywords_format(&want, line, sizeof(line)), 0);
	assert_string_equal(json_get_str(v, CTL_KEY_OPTIONS), line);
	assert_string_equal(json_get_str(v, "direction"), "download");
	json_free(v);
}

static void
test_reload_reports_success_and_failure(void **state)
{
	struct json_value	*v;

	(void)state;
	assert_int_equal(run(&root_peer, "reload", &v), CTLCMD_CHANGED);
	assert_true(json_get_bool(v, CTL_KEY_OK, false));
	json_free(v);
	fake.reload_rc = -1;
	assert_int_equal(run(&root_peer, "reload", &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_CODE), CTL_CODE_FAILED);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "/etc/caked.conf has errors");
	json_free(v);
	assert_int_equal(fake.reloads, 2);
}

static void
test_unshaped_direction_is_left_out_or_refused(void **state)
{
	struct json_value	*v;
	const struct json_value	*dirs;

	(void)state;
	fake.shaped[1] = false;
	run(&user_peer, "stats", &v);
	dirs = json_get(v, CTL_KEY_DIRECTIONS);
	assert_int_equal(json_count(dirs), 1);
	assert_non_null(json_get(dirs, "upload"));
	json_free(v);
	assert_int_equal(run(&user_peer, "stats download", &v), CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "download is not shaped");
	json_free(v);
	run(&user_peer, "hosts", &v);
	dirs = json_get(v, CTL_KEY_DIRECTIONS);
	assert_int_equal(json_count(dirs), 1);
	assert_non_null(json_get(dirs, "upload"));
	json_free(v);
	assert_int_equal(run(&user_peer, "flows download top 3", &v),
	    CTLCMD_ERROR);
	assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
	    "download is not shaped");
	json_free(v);
}

static void
test_too_small_a_buffer_gives_an_error_reply_not_an_overflow(void **state)
{
	char	buf[512];
	size_t	len = 0, cap;

	(void)state;
	for (cap = 100; cap < 400; cap += 50) {
		memset(buf, 'X', sizeof(buf));
		assert_int_equal(ctlcmd_handle(&fake_ops, &user_peer, "stats",
		    buf, cap, &len), CTLCMD_ERROR);
		assert_true(len > 0 && len < cap);
		assert_non_null(strstr(buf, "reply too large"));
		assert_int_equal(buf[cap], 'X');
	}
}

static void
test_hosts_and_flows_replies_match_the_golden_json(void **state)
{
	static const struct {
		const char	*line;
		const char	*golden;
	} cases[] = {
		{ "hosts", "hosts.json" },
		{ "hosts download", "hosts-download.json" },
		{ "flows", "flows.json" },
		{ "flows upload top 2", "flows-upload-top2.json" },
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(&user_peer, cases[i].line, &v),
		    CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		golden_check(cases[i].golden, out, strlen(out));
		json_free(v);
	}
}

/* Member i of array a (or NULL). */
static const struct json_value *
nth(const struct json_value *a, size_t i)
{
	const struct json_value	*m;

	assert_non_null(a);
	for (m = a->child; m != NULL && i > 0; m = m->next)
		i--;
	return m;
}

static uint64_t
u64(const struct json_value *obj, const char *key)
{
	uint64_t	v = 0;

	assert_non_null(obj);
	if (json_get_u64(obj, key, &v) == -1)
		fail_msg("no number %s", key);
	return v;
}

/* The rows of dir in the reply to line. */
static const struct json_value *
rows(const char *line, const char *dir, const char *key,
    struct json_value **v)
{
	const struct json_value	*d;

	assert_int_equal(run(&user_peer, line, v), CTLCMD_READ);
	d = json_get(json_get(*v, CTL_KEY_DIRECTIONS), dir);
	assert_non_null(d);
	return json_get(d, key);
}

static void
test_hosts_sum_flows_by_source_up_and_destination_down(void **state)
{
	static const struct {
		const char	*dir;
		size_t		 row;
		const char	*address;
		uint64_t	 bytes, packets, backlog, drops, marks, flows;
	} want[] = {
		{ "upload", 0, "10.1.0.2", 9009600, 6017, 4542, 12, 4, 3 },
		{ "upload", 1, "2001:db8:1::2", 500000, 400, 1514, 1, 0, 1 },
		{ "upload", 2, "10.1.0.3", 8400, 100, 0, 0, 0, 1 },
		{ "upload", 3, "-", 600, 10, 0, 0, 0, 1 },
		{ "download", 0, "10.1.0.4", 2000400, 1404, 3028, 3, 7, 2 },
		{ "download", 1, "10.1.0.2", 300000, 5000, 0, 0, 0, 1 },
	};
	static struct cake_flow_stats	two[2];
	const struct json_value		*a, *h;
	struct json_value		*v;
	size_t				 i;

	(void)state;
	for (i = 0; i < NITEMS(want); i++) {
		a = rows("hosts", want[i].dir, CTL_KEY_HOSTS, &v);
		h = nth(a, want[i].row);
		assert_non_null(h);
		assert_string_equal(json_get_str(h, CTL_KEY_ADDRESS),
		    want[i].address);
		assert_int_equal(u64(h, "bytes"), want[i].bytes);
		assert_int_equal(u64(h, "packets"), want[i].packets);
		assert_int_equal(u64(h, "backlog_bytes"), want[i].backlog);
		assert_int_equal(u64(h, "drops"), want[i].drops);
		assert_int_equal(u64(h, "marks"), want[i].marks);
		assert_int_equal(u64(h, CTL_KEY_FLOWS), want[i].flows);
		json_free(v);
	}
	/* Per-flow 32-bit counters sum into 64 bits. */
	two[0] = two[1] = up_flows[1];
	two[0].drops = two[1].drops = UINT32_MAX;
	two[1].keys.sport = 40009;
	fake.flows[0] = two;
	fake.nflows[0] = 2;
	a = rows("hosts upload", "upload", CTL_KEY_HOSTS, &v);
	assert_int_equal(json_count(a), 1);
	assert_int_equal(u64(nth(a, 0), "drops"), 2ULL * UINT32_MAX);
	assert_int_equal(u64(nth(a, 0), CTL_KEY_FLOWS), 2);
	json_free(v);
}

static void
test_flows_are_busiest_first_and_cut_at_top(void **state)
{
	const struct json_value	*a, *f, *d;
	struct json_value	*v;
	uint64_t		 prev = UINT64_MAX;

	(void)state;
	a = rows("flows upload", "upload", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), NITEMS(up_flows));
	for (f = a->child; f != NULL; f = f->next) {
		assert_true(u64(f, "bytes") <= prev);
		prev = u64(f, "bytes");
	}
	f = nth(a, 0);
	assert_string_equal(json_get_str(f, "proto"), "tcp");
	assert_string_equal(json_get_str(f, "src"), "10.1.0.2");
	assert_int_equal(u64(f, "sport"), 40000);
	assert_string_equal(json_get_str(f, "dst"), "10.2.0.1");
	assert_int_equal(u64(f, "dport"), 5201);
	assert_string_equal(json_get_str(f, "tin"), "Best Effort");
	assert_string_equal(json_get_str(f, "state"), "bulk");
	assert_int_equal(u64(f, "backlog_packets"), 3);
	/* Equal bytes: more packets first. */
	assert_string_equal(json_get_str(nth(a, 2), "proto"), "icmp");
	assert_string_equal(json_get_str(nth(a, 3), "src"), "10.1.0.2");
	assert_string_equal(json_get_str(nth(a, 4), "tin"), "Voice");
	assert_string_equal(json_get_str(nth(a, 5), "proto"), "-");
	json_free(v);

	a = rows("flows top 1", "download", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), 1);
	assert_int_equal(u64(nth(a, 0), "dport"), 51000);
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "download");
	assert_int_equal(u64(d, CTL_KEY_TOTAL), NITEMS(down_flows));
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_int_equal(json_count(json_get(d, CTL_KEY_FLOWS)), 1);
	json_free(v);

	a = rows("hosts upload top 2", "upload", CTL_KEY_HOSTS, &v);
	assert_int_equal(json_count(a), 2);
	d = json_get(json_get(v, CTL_KEY_DIRECTIONS), "upload");
	assert_int_equal(u64(d, CTL_KEY_TOTAL), 4);
	json_free(v);

	fake.nflows[0] = 0;	/* nothing has flowed yet */
	a = rows("flows upload", "upload", CTL_KEY_FLOWS, &v);
	assert_int_equal(json_count(a), 0);
	json_free(v);
}

static void
test_hosts_and_flows_refuse_bad_arguments(void **state)
{
	static const struct {
		const char	*line;
		const char	*error;
	} cases[] = {
		{ "hosts sideways", "unknown direction 'sideways' (upload or "
		    "download)" },
		{ "flows upload download", "usage: flows [upload | download] "
		    "[top N]" },
		{ "hosts top", "usage: hosts [upload | download] [top N]" },
		{ "hosts upload top 5 6", "usage: hosts [upload | download] "
		    "[top N]" },
		{ "flows 5", "unknown direction '5' (upload or download)" },
		{ "hosts top 0", "top: '0' is not a count from 1 to 64" },
		{ "hosts top 65", "top: '65' is not a count from 1 to 64" },
		{ "flows top -1", "top: '-1' is not a count from 1 to 64" },
		{ "flows top 5x", "top: '5x' is not a count from 1 to 64" },
		{ "flows top 18446744073709551621", "top: "
		    "'18446744073709551621' is not a count from 1 to 64" },
	};
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(run(&user_peer, cases[i].line, &v),
		    CTLCMD_ERROR);
		assert_string_equal(json_get_str(v, CTL_KEY_CODE),
		    CTL_CODE_USAGE);
		assert_string_equal(json_get_str(v, CTL_KEY_ERROR),
		    cases[i].error);
		json_free(v);
	}
}

/*
 * The longest rows: full-length IPv6 addresses, unnamed protocols, the
 * longest state, every counter at its maximum, a full table of distinct
 * hosts in both directions. CTL_TOP_MAX rows of each must fit.
 */
static void
test_worst_case_top_replies_fit_the_reply_cap(void **state)
{
	static const char *const lines[] = {
		"flows top 64", "hosts top 64",
	};
	struct cake_flow_stats	*f;
	struct json_value	*v;
	size_t			 i;

	(void)state;
	for (i = 0; i < FLOWS_MAX; i++) {
		f = &big_flows[i];
		memset(f->keys.src, 0xfe, sizeof(f->keys.src));
		memset(f->keys.dst, 0xfe, sizeof(f->keys.dst));
		f->keys.src[0] = f->keys.dst[0] = (uint8_t)(0x10 + i / 256);
		f->keys.src[15] = f->keys.dst[15] = (uint8_t)(0x10 + i % 240);
		f->keys.src[14] = f->keys.dst[14] = (uint8_t)(0x10 + i / 240);
		f->keys.sport = f->keys.dport = 65535;
		f->keys.proto = 253;
		f->keys.family = 6;
		f->tin = 1;
		f->state = CAKE_FLOW_STATE_DECAYING;
		f->qlen = UINT32_MAX;
		f->backlog_bytes = f->bytes = f->pkts = UINT64_MAX / 2 - i;
		f->drops = f->marks = UINT32_MAX;
	}
	fake.flows[0] = fake.flows[1] = big_flows;
	fake.nflows[0] = fake.nflows[1] = FLOWS_MAX;
	for (i = 0; i < NITEMS(lines); i++) {
		assert_int_equal(run(&user_peer, lines[i], &v), CTLCMD_READ);
		assert_true(json_get_bool(v, CTL_KEY_OK, false));
		print_message("'%s': %zu bytes of %d\n", lines[i],
		    strlen(out), CTL_REPLY_MAX);
		assert_true(strlen(out) < CTL_REPLY_MAX * 3 / 4);
		json_free(v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_stats_replies_match_the_golden_json,
		    setup),
		cmocka_unit_test_setup(
		    test_stats_has_every_tc_per_tin_name_for_every_tin, setup),
		cmocka_unit_test_setup(
		    test_read_only_commands_are_allowed_to_anyone, setup),
		cmocka_unit_test_setup(
		    test_bad_requests_get_a_coded_error_and_change_nothing,
		    setup),
		cmocka_unit_test_setup(
		    test_set_with_bad_keywords_returns_the_keyword_parsers_message,
		    setup),
		cmocka_unit_test_setup(
		    test_set_applies_keywords_on_top_of_the_running_options,
		    setup),
		cmocka_unit_test_setup(test_reload_reports_success_and_failure,
		    setup),
		cmocka_unit_test_setup(
		    test_unshaped_direction_is_left_out_or_refused, setup),
		cmocka_unit_test_setup(
		    test_too_small_a_buffer_gives_an_error_reply_not_an_overflow,
		    setup),
		cmocka_unit_test_setup(
		    test_hosts_and_flows_replies_match_the_golden_json, setup),
		cmocka_unit_test_setup(
		    test_hosts_sum_flows_by_source_up_and_destination_down,
		    setup),
		cmocka_unit_test_setup(
		    test_flows_are_busiest_first_and_cut_at_top, setup),
		cmocka_unit_test_setup(
		    test_hosts_and_flows_refuse_bad_arguments, setup),
		cmocka_unit_test_setup(
		    test_worst_case_top_replies_fit_the_reply_cap, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
