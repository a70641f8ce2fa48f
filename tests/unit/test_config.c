/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * test_config.c: loading caked.conf (src/daemon/config.c). Each file is
 * written to a private temporary directory and loaded; every error class
 * must give its exact, located message, and valid files must give the
 * values they spell.
 */
#include <sys/stat.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "caked/cake.h"
#include "caked/keywords.h"
#include "daemon/config.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define MSGS_MAX	72
/* A socket path of 108 bytes: one more than sun_path holds with its NUL. */
#define PATH108	"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

struct collected {
	int	n;
	char	msg[MSGS_MAX][640];
};

static char	tmpdir[] = "/tmp/test_config.XXXXXX";
static char	conf_path[64];

static void
collect(void *arg, const char *msg)
{
	struct collected	*c = arg;

	if (c->n < MSGS_MAX)
		(void)snprintf(c->msg[c->n], sizeof(c->msg[0]), "%s", msg);
	c->n++;
}

static void
write_conf(const char *text)
{
	FILE	*fp = fopen(conf_path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/* Loads text; returns config_load()'s result, messages in *c. */
static int
load(const char *text, struct caked_config *cfg, struct collected *c)
{
	memset(c, 0, sizeof(*c));
	write_conf(text);
	return config_load(conf_path, cfg, collect, c);
}

/* Asserts that text fails with exactly one message, "PATH:" + want. */
static void
assert_one_error(const char *text, const char *want)
{
	struct caked_config	cfg;
	struct collected	c;
	char			full[700];

	assert_int_equal(load(text, &cfg, &c), -1);
	(void)snprintf(full, sizeof(full), "%s:%s", conf_path, want);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], full);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	(void)snprintf(conf_path, sizeof(conf_path), "%s/caked.conf", tmpdir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	(void)unlink(conf_path);
	return rmdir(tmpdir);
}

static const char valid_conf[] =
    "# a comment\n"
    "[general]\n"
    "mode = tun\n"
    "lan = \"q-lan\"\n"
    "wan = q-wan   ; trailing comment\n"
    "mtu = 9000\n"
    "control = /run/caked/test.sock\n"
    "user = root\n"
    "log-level = debug\n"
    "log = syslog\n"
    "offload = no\n"
    "queues-per-device = 4\n"
    "\n"
    "[Upload]\n"
    "options = \"bandwidth 10mbit diffserv4 nat\"\n"
    "bandwidth = 20mbit\n"
    "flow-mode = dual-srchost\n"
    "rtt = 50ms\n"
    "overhead = docsis\n"
    "mpu = 80\n"
    "ack-filter = aggressive\n"
    "memlimit = 4mb\n"
    "fwmark = 0xff\n"
    "queues = 16384\n"
    "workers = 3\n"
    "split-gso = no\n";

static void
valid_file_gives_its_values(void **state)
{
	struct caked_config	 cfg;
	struct collected	 c;
	const struct cake_config *up = &cfg.cake[CONFIG_UPLOAD];
	struct cake_config	 def;

	(void)state;
	assert_int_equal(load(valid_conf, &cfg, &c), 0);
	/* bandwidth overrides options' bandwidth: a note, not an error */
	assert_int_equal(c.n, 1);
	assert_int_equal(cfg.notes, 1);
	assert_non_null(strstr(c.msg[0], ":16: note: [upload] bandwidth: "
	    "overrides what options (line 15) sets"));
	assert_int_equal(cfg.mode, CONFIG_MODE_TUN);
	assert_string_equal(cfg.lan, "q-lan");
	assert_string_equal(cfg.wan, "q-wan");
	assert_int_equal(cfg.mtu, 9000);
	assert_string_equal(cfg.control, "/run/caked/test.sock");
	assert_string_equal(cfg.user, "root");
	assert_int_equal(cfg.log_level, LOG_DEBUG);
	assert_true(cfg.log_syslog);
	assert_false(cfg.offload);
	assert_int_equal(cfg.queues, 4);
	assert_true(cfg.shaped[CONFIG_UPLOAD]);
	/* The keys override options; options' other keywords stay. */
	assert_int_equal(up->rate_Bps, 20000000 / 8);
	assert_int_equal(up->diffserv, CAKE_DIFFSERV4);
	assert_true(up->nat);
	assert_int_equal(up->flow_mode, CAKE_FLOW_DUAL_SRC);
	assert_int_equal(up->rtt_us, 50000);
	assert_int_equal(up->overhead, 18);
	assert_int_equal(up->mpu, 80);		/* mpu after the preset */
	assert_false(up->raw);
	assert_int_equal(up->ack_filter, CAKE_ACK_AGGRESSIVE);
	assert_int_equal(up->memlimit_bytes, 4 * 1024 * 1024);
	assert_int_equal(up->fwmark_mask, 0xff);
	assert_int_equal(up->queues, 16384);
	assert_int_equal(cfg.workers[CONFIG_UPLOAD], 3);
	assert_int_equal(cfg.workers[CONFIG_DOWNLOAD], 1);
	assert_false(up->split_gso);
	/* A missing section means an unshaped direction with defaults. */
	cake_config_default(&def);
	assert_false(cfg.shaped[CONFIG_DOWNLOAD]);
	assert_memory_equal(&cfg.cake[CONFIG_DOWNLOAD], &def, sizeof(def));
}

static void
empty_file_gives_defaults(void **state)
{
	struct caked_config	cfg;
	struct collected	c;

	(void)state;
	assert_int_equal(load("", &cfg, &c), 0);
	assert_int_equal(cfg.mode, CONFIG_MODE_TAP);
	assert_string_equal(cfg.lan, CONFIG_DEFAULT_LAN);
	assert_string_equal(cfg.wan, CONFIG_DEFAULT_WAN);
	assert_int_equal(cfg.mtu, CONFIG_DEFAULT_MTU);
	assert_true(cfg.offload);	/* the fast path by default */
	assert_int_equal(cfg.queues, CONFIG_DEFAULT_QUEUES);
	assert_string_equal(cfg.control, CONFIG_DEFAULT_CONTROL);
	assert_string_equal(cfg.user, "");
	assert_int_equal(cfg.log_level, LOG_INFO);
	assert_false(cfg.shaped[CONFIG_UPLOAD]);
}

/* split-gso is on at every bandwidth (sch_cake); an explicit choice wins. */
static void
split_gso_default_at_every_bandwidth(void **state)
{
	static const struct { const char *text; bool split; } cases[] = {
		{ "[upload]\nbandwidth = 20mbit\n", true },
		{ "[upload]\nbandwidth = unlimited\n", true },
		{ "[upload]\nbandwidth = 2gbit\n", true },
		{ "[upload]\noptions = no-split-gso\nbandwidth = 2gbit\n",
		    false },
		{ "[upload]\nbandwidth = 20mbit\nsplit-gso = no\n", false },
		{ "[upload]\nbandwidth = 2gbit\nsplit-gso = yes\n", true },
		{ "[upload]\noptions = no-split-gso\nbandwidth = 20mbit\n",
		    false },
		{ "[upload]\noptions = split-gso\nbandwidth = unlimited\n",
		    true },
		{ "[upload]\noptions = bandwidth 50mbit diffserv4\n", true },
	};
	struct caked_config	cfg;
	struct collected	c;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		assert_int_equal(load(cases[i].text, &cfg, &c), 0);
		if (cfg.cake[CONFIG_UPLOAD].split_gso != cases[i].split)
			fail_msg("case %zu: split_gso %d", i,
			    cfg.cake[CONFIG_UPLOAD].split_gso);
	}
}

static void
shipped_sample_loads(void **state)
{
	struct caked_config	cfg;
	struct collected	c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(config_load(TEST_SAMPLE_CONF, &cfg, collect, &c), 0);
	/* No error; one note: as shipped it shapes nothing (see below). */
	assert_int_equal(c.n, 1);
	assert_int_equal(cfg.notes, 1);
	assert_non_null(strstr(c.msg[0], ": note: shapes nothing: "));
	assert_true(cfg.shaped[CONFIG_UPLOAD]);
	assert_true(cfg.shaped[CONFIG_DOWNLOAD]);
	/* As installed it limits nothing until the operator sets the rates. */
	assert_int_equal(cfg.cake[CONFIG_UPLOAD].rate_Bps, 0);
	assert_int_equal(cfg.cake[CONFIG_DOWNLOAD].rate_Bps, 0);
}

/* One error class per row: the file and its one exact message. */
static const struct {
	const char	*text;
	const char	*want;
} error_cases[] = {
	{ "[general]\n[bogus]\nx = 1\n",
	    "2: unknown section [bogus] (expected [general], [upload] or "
	    "[download])" },
	{ "[general]\ncolour = blue\n", "2: [general] colour: unknown key" },
	{ "[upload]\nmode = tap\n", "2: [upload] mode: unknown key" },
	{ "[general]\nmtu = 1500x\n",
	    "2: [general] mtu: expected a number from 68 to 65535, found "
	    "'1500x'" },
	{ "[general]\nmtu = 67\n",
	    "2: [general] mtu: expected a number from 68 to 65535, found "
	    "'67'" },
	{ "[general]\nmtu = 99999999999999999999999\n",
	    "2: [general] mtu: expected a number from 68 to 65535, found "
	    "'99999999999999999999999'" },
	{ "[upload]\nbandwidth = 1mbit\n\nbandwidth = 2mbit\n",
	    "4: [upload] bandwidth: duplicate key (first set at line 2)" },
	{ "[download]\nflow-mode = hosts\nisolation = flows\n",
	    "3: [download] isolation: duplicate key (flow-mode and isolation "
	    "are the same key; first set at line 2)" },
	{ "[upload]\n[general]\n[upload]\n",
	    "3: duplicate section [upload] (first at line 1)" },
	{ "[general]\nlan = eth9\nwan = eth9\n",
	    "3: [general] wan: expected a device other than lan, found "
	    "'eth9'" },
	{ "[general]\nlan = caked-wan\n",
	    "2: [general] lan: expected a device other than wan, found "
	    "'caked-wan'" },
	{ "[general]\nmode = tapp\n",
	    "2: [general] mode: expected tap or tun, found 'tapp'" },
	{ "[general]\nlan = abcdefghijklmnop\n",
	    "2: [general] lan: expected a device name of at most 15 "
	    "characters (IFNAMSIZ), found 'abcdefghijklmnop'" },
	{ "[general]\nwan = a/b\n",
	    "2: [general] wan: expected a device name without '/', ':', "
	    "white space or control characters, found 'a/b'" },
	{ "[general]\nlan = \"lan0\r\"\n",
	    "2: [general] lan: expected a device name without '/', ':', "
	    "white space or control characters, found 'lan0\r'" },
	{ "[general]\ncontrol = " PATH108 "\n",
	    "2: [general] control: expected a path of at most 107 bytes "
	    "(sun_path), found '" PATH108 "'" },
	{ "[general]\ncontrol = caked.sock\n",
	    "2: [general] control: expected an absolute path, found "
	    "'caked.sock'" },
	{ "[general]\nuser = nosuchuser-caked\n",
	    "2: [general] user: expected an existing user, found "
	    "'nosuchuser-caked'" },
	{ "[general]\nlog-level = loud\n",
	    "2: [general] log-level: expected debug, info, warning or error, "
	    "found 'loud'" },
	{ "[general]\nlog = file\n",
	    "2: [general] log: expected stderr or syslog, found 'file'" },
	{ "[general]\noffload = maybe\n",
	    "2: [general] offload: expected yes or no, found 'maybe'" },
	{ "[general]\nqueues-per-device = 0\n",
	    "2: [general] queues-per-device: expected a number from 1 to 16, "
	    "found '0'" },
	{ "[general]\nqueues-per-device = 17\n",
	    "2: [general] queues-per-device: expected a number from 1 to 16, "
	    "found '17'" },
	{ "[upload]\nbandwidth = 20mbit\nworkers = 0\n",
	    "3: [upload] workers: expected a number from 1 to 8, found '0'" },
	{ "[download]\nbandwidth = 20mbit\nworkers = 9\n",
	    "3: [download] workers: expected a number from 1 to 8, "
	    "found '9'" },
	{ "[upload]\nautorate-ingress = yes\nworkers = 2\n",
	    "3: [upload] workers: expected 1 with autorate or "
	    "autorate-ingress (they move one instance's rate), found '2'" },
	{ "[general]\nnat-cache-size = 15\n",
	    "2: [general] nat-cache-size: expected a number of entries from "
	    "16 to 4194304, found '15'" },
	{ "[general]\nnat-cache-size = 4194305\n",
	    "2: [general] nat-cache-size: expected a number of entries from "
	    "16 to 4194304, found '4194305'" },
	{ "[general]\nnat-cache-expiry = 0s\n",
	    "2: [general] nat-cache-expiry: expected seconds from 1 to 86400 "
	    "(e.g. 120s), found '0s'" },
	{ "[general]\nnat-cache-expiry = 2m\n",
	    "2: [general] nat-cache-expiry: expected seconds from 1 to 86400 "
	    "(e.g. 120s), found '2m'" },
	{ "[general]\nmetrics-listen = 9464\n",
	    "2: [general] metrics-listen: expected ADDRESS:PORT (for example "
	    "127.0.0.1:9464), found '9464'" },
	{ "[general]\nmetrics-listen = 127.0.0.1:0\n",
	    "2: [general] metrics-listen: expected ADDRESS:PORT (for example "
	    "127.0.0.1:9464), found '127.0.0.1:0'" },
	{ "[general]\nmetrics-listen = localhost:9464\n",
	    "2: [general] metrics-listen: expected an IPv4 address and a "
	    "port, found 'localhost:9464'" },
	{ "[general]\nmetrics-listen = [::1:9464\n",
	    "2: [general] metrics-listen: expected an IPv4 address and a "
	    "port, found '[::1:9464'" },
	{ "[upload]\ndiffserv = nat\n",
	    "2: [upload] diffserv: expected a DiffServ keyword (e.g. "
	    "diffserv4), found 'nat'" },
	{ "[upload]\nflow-mode = diffserv4\n",
	    "2: [upload] flow-mode: expected an isolation keyword (e.g. "
	    "triple-isolate), found 'diffserv4'" },
	{ "[download]\natm = ethernet\n",
	    "2: [download] atm: expected atm, ptm or noatm, found "
	    "'ethernet'" },
	{ "[upload]\nrtt = 10 ms\n",
	    "2: [upload] rtt: expected a time (e.g. 100ms) or an RTT preset "
	    "(e.g. internet), found '10 ms'" },
	{ "[upload]\nnat = maybe\n",
	    "2: [upload] nat: expected yes or no, found 'maybe'" },
	{ "[upload]\nack-filter = 2\n",
	    "2: [upload] ack-filter: expected yes, no or aggressive, found "
	    "'2'" },
	{ "[download]\nqueues = 1024 2048\n",
	    "2: [download] queues: expected a power of two from 1024 to "
	    "65536, found '1024 2048'" },
	{ "[upload]\nbandwidth =\n",
	    "2: [upload] bandwidth: expected a rate (e.g. 20mbit) or "
	    "unlimited, found ''" },
	{ "stray = 1\n[general]\n",
	    "1: 'stray = 1' is outside any section (expected [general], "
	    "[upload] or [download] before it)" },
	{ "[general]\nmode = tap \\\nlan = x\n",
	    "2: [general] mode: expected a value on one line, found a '\\' "
	    "continuation (iniparser would join the next line to it)" },
	{ "[general]\ncontrol = \"/run/a = \"/b\n",
	    "2: [general] control: expected nothing after the closing "
	    "quote, found '/b' (iniparser would drop it)" },
	{ "[general]\nuser = 'nobody\n",
	    "2: [general] user: expected a closing ', found ''nobody' "
	    "(iniparser would read it differently)" },
	{ "[upload]\noverhead = 44 mpu 96\n",
	    "2: [upload] overhead: expected a byte count or framing keywords "
	    "(e.g. docsis), found 'mpu 96'" },
	{ "[upload]\natm = yes\n",
	    "2: [upload] atm: expected atm, ptm or noatm, found 'yes'" },
	{ "[upload]\noptions = bandwidth 20mbit nat diffsrv4\n",
	    "2: [upload] options: expected tc-cake keywords, found 'diffsrv4' "
	    "(did you mean 'diffserv4'?)" },
	{ "[upload]\noptions = lan rtt 10ms\n",
	    "2: [upload] options: expected at most one rtt or RTT preset, "
	    "found 'rtt 10ms'" },
	{ "[upload]\noptions = bandwidth 20mbit memlimit\n",
	    "2: [upload] options: expected a size (e.g. 4mb) after "
	    "'memlimit', found nothing" },
	{ "stray = 1\nother = 2\n",
	    "1: 'stray = 1' is outside any section (expected [general], "
	    "[upload] or [download] before it)" },
	{ "config queue 'eth1'\n\toption interface 'eth1'\n",
	    "1: this looks like an OpenWrt UCI file, not caked.conf: convert "
	    "it with caked-import-sqm(1)" },
	{ "[general]\nautorate-reflectors = 1.2.3\n[upload]\nautorate = yes\n"
	    "autorate-min = 1mbit\nautorate-base = 2mbit\n"
	    "autorate-max = 3mbit\n",
	    "2: [general] autorate-reflectors: expected IPv4 or IPv6 addresses, found "
	    "'1.2.3'" },
};

static void
each_error_class_gives_its_located_message(void **state)
{
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(error_cases); i++) {
		print_message("case %zu\n", i);
		assert_one_error(error_cases[i].text, error_cases[i].want);
	}
}

/* A bad keyword value names what the keyword expects, and the value. */
static void
bad_keyword_values_name_what_is_expected(void **state)
{
	static const struct {
		const char	*line;		/* in [upload] */
		const char	*want;
	} cases[] = {
		{ "bandwidth = 20mbt\n", "bandwidth: expected a rate (e.g. "
		    "20mbit) or unlimited, found '20mbt'" },
		{ "memlimit = 4zb\n", "memlimit: expected a size (e.g. 4mb), "
		    "found '4zb'" },
		{ "overhead = 300\n", "overhead: expected a byte count from "
		    "-64 to 256, found '300'" },
		{ "fwmark = 0xZZ\n", "fwmark: expected a mask (e.g. 0xff), "
		    "found '0xZZ'" },
		{ "mpu = -1\n", "mpu: expected a byte count from 0 to 256, "
		    "found '-1'" },
		{ "queues = 1000\n", "queues: expected a power of two from "
		    "1024 to 65536, found '1000'" },
		{ "queues = lots\n", "queues: expected a power of two from "
		    "1024 to 65536, found 'lots'" },
		{ "options = diffserv4 bandwidth 1zbit\n", "options: expected "
		    "a rate (e.g. 20mbit) or unlimited, found '1zbit'" },
	};
	char	text[128], want[400];
	size_t	i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		(void)snprintf(text, sizeof(text), "[upload]\n%s",
		    cases[i].line);
		(void)snprintf(want, sizeof(want), "2: [upload] %s",
		    cases[i].want);
		assert_one_error(text, want);
	}
}

static void
all_errors_are_reported_in_line_order(void **state)
{
	struct caked_config	cfg;
	struct collected	c;
	char			want[3][200];
	int			i;

	(void)state;
	assert_int_equal(load("[general]\nmtu = 1\nmode = x\n[bogus]\n"
	    "[upload]\nnat = perhaps\n", &cfg, &c), -1);
	(void)snprintf(want[0], sizeof(want[0]), "%s:2: [general] mtu: "
	    "expected a number from 68 to 65535, found '1'", conf_path);
	(void)snprintf(want[1], sizeof(want[1]), "%s:3: [general] mode: "
	    "expected tap or tun, found 'x'", conf_path);
	(void)snprintf(want[2], sizeof(want[2]), "%s:4: unknown section "
	    "[bogus] (expected [general], [upload] or [download])",
	    conf_path);
	assert_int_equal(c.n, 4);
	for (i = 0; i < 3; i++)
		assert_string_equal(c.msg[i], want[i]);
	assert_non_null(strstr(c.msg[3], ":6: [upload] nat: expected yes "
	    "or no, found 'perhaps'"));
}

static void
syntax_errors_stop_before_values(void **state)
{
	struct caked_config	cfg;
	struct collected	c;
	char			want[200];

	(void)state;
	/* One mistake, one line: no "values not checked" after it. */
	assert_int_equal(load("[general]\nmode = x\ngarbage\n", &cfg, &c),
	    -1);
	(void)snprintf(want, sizeof(want), "%s:3: expected 'key = "
	    "value' or '[section]', found 'garbage'", conf_path);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], want);
}

static void
missing_file_is_reported(void **state)
{
	struct caked_config	cfg;
	struct collected	c;
	char			path[96], want[160];

	(void)state;
	memset(&c, 0, sizeof(c));
	(void)snprintf(path, sizeof(path), "%s/absent.conf", tmpdir);
	(void)snprintf(want, sizeof(want), "%s: cannot open: No such file "
	    "or directory", path);
	assert_int_equal(config_load(path, &cfg, collect, &c), -1);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], want);
}

/* A FIFO is refused without waiting for a writer; so is a big file. */
static void
fifo_and_big_files_are_refused(void **state)
{
	struct caked_config	 cfg;
	struct collected	 c;
	char			 want[200], *big;

	(void)state;
	(void)unlink(conf_path);
	assert_int_equal(mkfifo(conf_path, 0600), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(config_load(conf_path, &cfg, collect, &c), -1);
	(void)snprintf(want, sizeof(want), "%s: expected a regular file of "
	    "at most 1048576 bytes, found another kind of file", conf_path);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], want);
	assert_int_equal(unlink(conf_path), 0);
	assert_non_null(big = malloc(1048578));
	memset(big, '#', 1048577);
	big[1048577] = '\0';
	assert_int_equal(load(big, &cfg, &c), -1);
	free(big);
	(void)snprintf(want, sizeof(want), "%s: expected a regular file of "
	    "at most 1048576 bytes, found a bigger one", conf_path);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], want);
}

/* text: "[upload]\n" then n lines "PRE<index>POST". */
static char *
repeated(const char *pre, const char *post, int n)
{
	char	*text, *p;
	int	 i;

	assert_non_null(text = malloc((size_t)n * 32 + 16));
	p = text + sprintf(text, "[upload]\n");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%d%s\n", pre, i, post);
	return text;
}

/* The scan stops at the first line over a bound, and says so. */
static void
bounds_stop_the_scan(void **state)
{
	struct caked_config	 cfg;
	struct collected	 c;
	char			 want[200], *text;

	(void)state;
	text = repeated("[s", "]", 5000);
	assert_int_equal(load(text, &cfg, &c), -1);
	free(text);
	/* 31 unknown sections and the stop (no "values not checked") */
	assert_int_equal(c.n, 32);
	(void)snprintf(want, sizeof(want), "%s:33: too many '[section]' "
	    "lines (at most 32): the rest of the file is not read", conf_path);
	assert_string_equal(c.msg[31], want);
	text = repeated("k", " = 1", 5000);
	assert_int_equal(load(text, &cfg, &c), -1);
	free(text);
	/* 63 unknown keys and the stop */
	assert_int_equal(c.n, 64);
	(void)snprintf(want, sizeof(want), "%s:65: too many errors (at most "
	    "64): the rest of the file is not read", conf_path);
	assert_string_equal(c.msg[63], want);
	text = repeated("# k", " = 1", 5000);
	assert_int_equal(load(text, &cfg, &c), 0);	/* comments only */
	free(text);
	text = repeated("[upload]\n# ", "", 600);
	assert_int_equal(load(text, &cfg, &c), -1);
	free(text);
	assert_int_equal(c.n, 32);
	assert_non_null(strstr(c.msg[31], "too many '[section]' lines"));
}

/* Floors: under them nothing passes, so the file is refused. */
static void
floors_of_memlimit_and_rate(void **state)
{
	struct caked_config	cfg;
	struct collected	c;
	char			want[300];

	(void)state;
	assert_one_error("[upload]\nmemlimit = 1\n", "2: [upload] memlimit "
	    "1b: below 8192b, the least that holds 4 frames of mtu 1500");
	assert_one_error("[download]\nrtt = 5ms\noptions = \"bandwidth "
	    "800bit\"\n", "3: [download] bandwidth 800bit: below 12112bit, "
	    "one frame of mtu 1500 a second");
	assert_int_equal(load("[upload]\nmemlimit = 8kb\nbandwidth = "
	    "12112bit\n", &cfg, &c), 0);
	/* mtu 9000 raises both */
	assert_int_equal(load("[general]\nmtu = 9000\n[upload]\nmemlimit = "
	    "16kb\nbandwidth = 64kbit\n", &cfg, &c), -1);
	assert_int_equal(c.n, 1);	/* the first floor missed */
	(void)snprintf(want, sizeof(want), "%s:4: [upload] memlimit 16384b: "
	    "below 36088b, the least that holds 4 frames of mtu 9000",
	    conf_path);
	assert_string_equal(c.msg[0], want);
	assert_int_equal(load("[general]\nmtu = 9000\n[upload]\nbandwidth = "
	    "64kbit\n", &cfg, &c), -1);
	(void)snprintf(want, sizeof(want), "%s:4: [upload] bandwidth 64000bit: "
	    "below 72112bit, one frame of mtu 9000 a second", conf_path);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.msg[0], want);
	assert_int_equal(load("[general]\nmtu = 9000\n[upload]\nmemlimit = "
	    "36088\nbandwidth = 72112bit\n", &cfg, &c), 0);
}

static void
limits_themselves_are_accepted(void **state)
{
	struct caked_config	cfg;
	struct collected	c;
	char			text[256], path[108];

	(void)state;
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[CONFIG_CONTROL_MAX - 1] = '\0';	/* 107 bytes */
	(void)snprintf(text, sizeof(text), "[general]\nlan = "
	    "abcdefghijklmno\nmtu = 68\ncontrol = %s\n[upload]\n"
	    "autorate-ingress = no\n", path);
	assert_int_equal(load(text, &cfg, &c), 0);
	assert_string_equal(cfg.lan, "abcdefghijklmno");
	assert_string_equal(cfg.control, path);
	assert_int_equal(cfg.mtu, 68);
	assert_false(cfg.cake[CONFIG_UPLOAD].autorate_ingress);
}

static void
printed_config_loads_back_the_same(void **state)
{
	struct caked_config	a, b;
	struct collected	c;
	char			la[512], lb[512];
	FILE			*fp;
	int			i;

	(void)state;
	assert_int_equal(load(valid_conf, &a, &c), 0);
	assert_non_null(fp = fopen(conf_path, "w"));
	assert_int_equal(config_print(&a, fp), 0);
	assert_int_equal(fclose(fp), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(config_load(conf_path, &b, collect, &c), 0);
	assert_null(config_restart_needed(&a, &b));
	assert_int_equal(a.log_level, b.log_level);
	for (i = 0; i < CONFIG_DIRS; i++) {
		assert_int_equal(keywords_format(&a.cake[i], la,
		    sizeof(la)), 0);
		assert_int_equal(keywords_format(&b.cake[i], lb,
		    sizeof(lb)), 0);
		assert_string_equal(la, lb);
	}
}

/*
 * queues sizes the engine's tables once: the one [upload] or [download]
 * setting that needs a restart.
 */
static void
restart_needed_for_general_keys_and_queues(void **state)
{
	struct caked_config	a, b;
	struct collected	c;

	(void)state;
	assert_int_equal(load(valid_conf, &a, &c), 0);
	b = a;
	b.cake[CONFIG_UPLOAD].rate_Bps = 1;
	b.log_level = LOG_ERR;
	assert_null(config_restart_needed(&a, &b));
	(void)snprintf(b.wan, sizeof(b.wan), "other");
	assert_string_equal(config_restart_needed(&a, &b), "[general] wan");
	b = a;
	b.mode = CONFIG_MODE_TAP;
	assert_string_equal(config_restart_needed(&a, &b), "[general] mode");
	b = a;
	b.offload = !a.offload;
	assert_string_equal(config_restart_needed(&a, &b),
	    "[general] offload");
	b = a;
	b.queues = a.queues + 1;
	assert_string_equal(config_restart_needed(&a, &b),
	    "[general] queues-per-device");
	b = a;
	b.cake[CONFIG_UPLOAD].queues = 1024;
	assert_string_equal(config_restart_needed(&a, &b), "[upload] queues");
	b = a;
	b.cake[CONFIG_DOWNLOAD].queues = 65536;
	assert_string_equal(config_restart_needed(&a, &b),
	    "[download] queues");
	b = a;
	b.workers[CONFIG_UPLOAD] = 1;
	assert_string_equal(config_restart_needed(&a, &b),
	    "[upload] workers");
	b = a;
	b.workers[CONFIG_DOWNLOAD] = 8;
	assert_string_equal(config_restart_needed(&a, &b),
	    "[download] workers");
}

static void
nat_cache_keys_default_and_parse_with_or_without_unit(void **state)
{
	struct caked_config	cfg;
	struct collected	c;

	(void)state;
	assert_int_equal(load("[general]\n", &cfg, &c), 0);
	assert_int_equal(cfg.nat_cache_size, 16384);
	assert_int_equal(cfg.nat_cache_expiry_s, 120);
	assert_int_equal(load("[general]\nnat-cache-size = 16\n"
	    "nat-cache-expiry = 86400s\n", &cfg, &c), 0);
	assert_int_equal(cfg.nat_cache_size, 16);
	assert_int_equal(cfg.nat_cache_expiry_s, 86400);
	assert_int_equal(load("[general]\nnat-cache-expiry = 30\n", &cfg,
	    &c), 0);
	assert_int_equal(cfg.nat_cache_expiry_s, 30);
}

/* UCI's boolean spellings are accepted, in any case. */
static void
booleans_take_uci_spellings(void **state)
{
	struct caked_config	 cfg;
	struct collected	 c;
	const struct cake_config *up = &cfg.cake[CONFIG_UPLOAD];

	(void)state;
	assert_int_equal(load("[general]\noffload = off\n[upload]\n"
	    "bandwidth = 20mbit\nnat = on\nwash = TRUE\ningress = 1\n"
	    "split-gso = false\nack-filter = 1\n", &cfg, &c), 0);
	assert_int_equal(c.n, 0);
	assert_false(cfg.offload);
	assert_true(up->nat);
	assert_true(up->wash);
	assert_true(up->ingress);
	assert_false(up->split_gso);
	assert_int_equal(up->ack_filter, CAKE_ACK_FILTER);
	assert_int_equal(load("[upload]\nbandwidth = 20mbit\nnat = 0\n"
	    "wash = no\n", &cfg, &c), 0);
	assert_false(up->nat);
	assert_false(up->wash);
}

/* Notes: reported, counted, and the file still loads. */
static void
notes_are_counted_and_do_not_fail(void **state)
{
	static const struct {
		const char	*text;
		const char	*want;
	} cases[] = {
		{ "[upload]\nbandwidth = 20mbps\n", ":2: note: [upload] "
		    "bandwidth: '20mbps' is bytes per second (160Mbit); write "
		    "'20mbit' for bits per second" },
		{ "[upload]\nbandwidth = 20000\n", ":2: note: [upload] "
		    "bandwidth: '20000' has no unit, so it means 20Kbit; write "
		    "e.g. '20000kbit' for kbit/s" },
		{ "[upload]\nbandwidth = 1mbit\nrtt = 100\n", ":3: note: "
		    "[upload] rtt: '100' has no unit, so it means 100us; write "
		    "e.g. '100ms' for milliseconds" },
		{ "[upload]\nbandwidth = 1mbit\nmemlimit = 100000\n", ":3: "
		    "note: [upload] memlimit: '100000' has no unit, so it means "
		    "100000b; write e.g. '100000kb' for kilobytes" },
		{ "[upload]\ndiffserv = diffserv4\n", ":1: note: shapes "
		    "nothing: no [upload] or [download] section sets a "
		    "bandwidth or autorate, so caked only forwards" },
	};
	struct caked_config	cfg;
	struct collected	c;
	size_t			i;

	(void)state;
	for (i = 0; i < NITEMS(cases); i++) {
		print_message("case %zu\n", i);
		assert_int_equal(load(cases[i].text, &cfg, &c), 0);
		assert_int_equal(c.n, 1);
		assert_int_equal(cfg.notes, 1);
		assert_non_null(strstr(c.msg[0], cases[i].want));
	}
}

/* Off by default; both families parse, print and load back. */
static void
metrics_listen_parses_and_prints_back(void **state)
{
	static const char *const in[] = {
		"127.0.0.1:9464", "[::1]:9100", "[fd00::5]:65535",
	};
	static const char *const addr[] = { "127.0.0.1", "::1", "fd00::5" };
	static const unsigned int port[] = { 9464, 9100, 65535 };
	struct caked_config	cfg, back;
	struct collected	c;
	char			text[128], *buf = NULL;
	size_t			i, len = 0;
	FILE			*fp;

	(void)state;
	assert_int_equal(load("[general]\n", &cfg, &c), 0);
	assert_int_equal(cfg.metrics_port, 0);
	for (i = 0; i < NITEMS(in); i++) {
		(void)snprintf(text, sizeof(text),
		    "[general]\nmetrics-listen = %s\n", in[i]);
		assert_int_equal(load(text, &cfg, &c), 0);
		assert_string_equal(cfg.metrics_addr, addr[i]);
		assert_int_equal(cfg.metrics_port, port[i]);
		assert_non_null(fp = open_memstream(&buf, &len));
		assert_int_equal(config_print(&cfg, fp), 0);
		assert_int_equal(fclose(fp), 0);
		(void)snprintf(text, sizeof(text), "metrics-listen = %s\n",
		    in[i]);
		assert_non_null(strstr(buf, text));
		write_conf(buf);
		free(buf);
		assert_int_equal(config_load(conf_path, &back, collect, &c), 0);
		assert_null(config_restart_needed(&cfg, &back));
		back.metrics_port = 1;
		assert_string_equal(config_restart_needed(&cfg, &back),
		    "[general] metrics-listen");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_file_gives_its_values),
		cmocka_unit_test(metrics_listen_parses_and_prints_back),
		cmocka_unit_test(
		    nat_cache_keys_default_and_parse_with_or_without_unit),
		cmocka_unit_test(empty_file_gives_defaults),
		cmocka_unit_test(shipped_sample_loads),
		cmocka_unit_test(split_gso_default_at_every_bandwidth),
		cmocka_unit_test(each_error_class_gives_its_located_message),
		cmocka_unit_test(
		    bad_keyword_values_name_what_is_expected),
		cmocka_unit_test(all_errors_are_reported_in_line_order),
		cmocka_unit_test(syntax_errors_stop_before_values),
		cmocka_unit_test(missing_file_is_reported),
		cmocka_unit_test(fifo_and_big_files_are_refused),
		cmocka_unit_test(bounds_stop_the_scan),
		cmocka_unit_test(floors_of_memlimit_and_rate),
		cmocka_unit_test(limits_themselves_are_accepted),
		cmocka_unit_test(printed_config_loads_back_the_same),
		cmocka_unit_test(restart_needed_for_general_keys_and_queues),
		cmocka_unit_test(booleans_take_uci_spellings),
		cmocka_unit_test(notes_are_counted_and_do_not_fail),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
