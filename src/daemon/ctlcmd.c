/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * ctlcmd.c: caked's control commands, from a request line to a JSON reply
 * (protocol in include/caked/ctl.h, user view in cakectl(8)).
 *
 * Pure: no I/O, no clock, no engine calls. Snapshots and changes go
 * through the callbacks of struct ctlcmd_ops, so the whole protocol is
 * unit-tested with a fake snapshot. It must not decide who the peer is
 * (the socket adapter does) and must not log (the caller logs what the
 * result says changed). hosts and flows sort and sum in the daemon's
 * scratch arrays (ops->scratch): a request never allocates.
 */
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/cake.h"
#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "daemon/ctlcmd.h"

static const char *const ctlcmd_dirs[CTLCMD_DIRS] = {
	CTL_DIR_UPLOAD, CTL_DIR_DOWNLOAD,
};

/* A counter of a stats struct, by offset and width (4 or 8 bytes). */
struct ctlcmd_field {
	const char	*key;
	size_t		 off;
	size_t		 size;
};

#define CTLCMD_G(key, m)	{ key, offsetof(struct cake_stats, m), \
	sizeof(((struct cake_stats *)0)->m) }
#define CTLCMD_T(key, m)	{ key, offsetof(struct cake_tin_stats, m), \
	sizeof(((struct cake_tin_stats *)0)->m) }

/* Global values; names as `tc -j -s qdisc` where tc has them. */
static const struct ctlcmd_field ctlcmd_globals[] = {
	CTLCMD_G("sent_bytes", sent_bytes),
	CTLCMD_G("sent_packets", sent_pkts),
	CTLCMD_G("drops", dropped_pkts),
	CTLCMD_G("overlimits", overlimits),
	CTLCMD_G("backlog_bytes", backlog_bytes),
	CTLCMD_G("backlog_packets", backlog_pkts),
	CTLCMD_G("memory_used", memory_used),
	CTLCMD_G("memory_limit", memory_limit),
	CTLCMD_G("memory_now", memory_now),
	CTLCMD_G("capacity_estimate", capacity_estimate_Bps),
	CTLCMD_G("min_network_size", min_netlen),
	CTLCMD_G("max_network_size", max_netlen),
	CTLCMD_G("min_adj_size", min_adjlen),
	CTLCMD_G("max_adj_size", max_adjlen),
	CTLCMD_G("avg_hdr_offset", avg_netoff),
	CTLCMD_G("non_ip_packets", non_ip_pkts),
	CTLCMD_G("gso_splits", gso_splits),
	CTLCMD_G("gso_whole", gso_whole),
};

/* Per-tin values, doc/cake.md §8 order, `tc -j` names. */
static const struct ctlcmd_field ctlcmd_tin_fields[] = {
	CTLCMD_T("threshold_rate", threshold_Bps),
	CTLCMD_T("target_us", target_us),
	CTLCMD_T("interval_us", interval_us),
	CTLCMD_T("peak_delay_us", peak_delay_us),
	CTLCMD_T("avg_delay_us", avg_delay_us),
	CTLCMD_T("base_delay_us", base_delay_us),
	CTLCMD_T("backlog_bytes", backlog_bytes),
	CTLCMD_T("sent_packets", pkts),
	CTLCMD_T("sent_bytes", bytes),
	CTLCMD_T("way_indirect_hits", way_inds),
	CTLCMD_T("way_misses", way_miss),
	CTLCMD_T("way_collisions", way_cols),
	CTLCMD_T("drops", drops),
	CTLCMD_T("ecn_mark", ecn_marks),
	CTLCMD_T("ack_drops", ack_drops),
	CTLCMD_T("sparse_flows", sparse_flows),
	CTLCMD_T("bulk_flows", bulk_flows),
	CTLCMD_T("unresponsive_flows", unresponsive_flows),
	CTLCMD_T("max_pkt_len", max_pkt_len),
	CTLCMD_T("flow_quantum", flow_quantum),
};

#define CTLCMD_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* One request, split into words. */
struct ctlcmd_req {
	char		 buf[CTL_LINE_MAX];
	char		*argv[CTLCMD_ARGS_MAX];
	int		 argc;
};

struct ctlcmd_ctx {
	const struct ctlcmd_ops		*ops;
	const struct ctlcmd_peer	*peer;
	struct json_writer		 w;
	char				 err[CTLCMD_ERR_MAX];
	const char			*code;	/* set on error */
};

static int
ctlcmd_dir_parse(const char *s)
{
	int	i;

	for (i = 0; i < CTLCMD_DIRS; i++)
		if (strcmp(s, ctlcmd_dirs[i]) == 0)
			return i;
	return -1;
}

/* Every reply starts so: a log of replies can be plotted over time. */
static void
ctlcmd_head(const struct ctlcmd_ops *ops, struct json_writer *w, bool ok)
{
	uint64_t	real_ns = 0, uptime_ns = 0;

	json_object_begin(w, NULL);
	json_uint(w, CTL_KEY_VERSION, CTL_PROTOCOL_VERSION);
	json_bool(w, CTL_KEY_OK, ok);
	if (ops == NULL || ops->clock == NULL)
		return;
	ops->clock(ops->arg, &real_ns, &uptime_ns);
	json_uint(w, CTL_KEY_TIME_NS, real_ns);
	json_uint(w, CTL_KEY_UPTIME_NS, uptime_ns);
}

int
ctlcmd_error(const struct ctlcmd_ops *ops, const char *code,
    const char *msg, char *out, size_t cap)
{
	struct json_writer	w;

	json_init(&w, out, cap);
	ctlcmd_head(ops, &w, false);
	json_string(&w, CTL_KEY_CODE, code);
	json_string(&w, CTL_KEY_ERROR, msg);
	json_object_end(&w);
	return json_finish(&w);
}

/* Records an error; the handler then returns -1. */
static int __attribute__((format(printf, 3, 4)))
ctlcmd_fail(struct ctlcmd_ctx *x, const char *code, const char *fmt, ...)
{
	va_list	ap;

	x->code = code;
	va_start(ap, fmt);
	(void)vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Splits on blanks. Every word of the protocol is ASCII, so anything else
 * (control characters, bytes over 0x7e) is refused: that keeps each reply
 * valid UTF-8 even when it quotes the request.
 */
static int
ctlcmd_split(struct ctlcmd_ctx *x, const char *line, struct ctlcmd_req *r)
{
	char	*p;
	size_t	 n = strlen(line);

	if (n >= sizeof(r->buf))
		return ctlcmd_fail(x, CTL_CODE_TOOLONG,
		    "request longer than %d bytes", CTL_LINE_MAX - 1);
	memcpy(r->buf, line, n + 1);
	if (n > 0 && r->buf[n - 1] == '\r')
		r->buf[--n] = '\0';
	for (p = r->buf; *p != '\0'; p++) {
		if (*p == '\t')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return ctlcmd_fail(x, CTL_CODE_USAGE,
			    "request contains bytes other than printable ASCII");
	}
	r->argc = 0;
	for (p = strtok(r->buf, " "); p != NULL; p = strtok(NULL, " ")) {
		if (r->argc == CTLCMD_ARGS_MAX)
			return ctlcmd_fail(x, CTL_CODE_USAGE,
			    "more than %d words", CTLCMD_ARGS_MAX);
		r->argv[r->argc++] = p;
	}
	if (r->argc == 0)
		return ctlcmd_fail(x, CTL_CODE_USAGE, "empty request");
	return 0;
}

static void
ctlcmd_fields(struct json_writer *w, const void *base,
    const struct ctlcmd_field *f, size_t n)
{
	uint64_t	v64;
	uint32_t	v32;
	size_t		i;

	for (i = 0; i < n; i++) {
		if (f[i].size == sizeof(v64)) {
			memcpy(&v64, (const char *)base + f[i].off, sizeof(v64));
			json_uint(w, f[i].key, v64);
		} else {
			memcpy(&v32, (const char *)base + f[i].off, sizeof(v32));
			json_uint(w, f[i].key, v32);
		}
	}
}

/* Why direction dir gave nothing: its thread was busy, or not shaped. */
static int
ctlcmd_no_dir(struct ctlcmd_ctx *x, int dir)
{
	if (x->ops->busy != NULL && x->ops->busy(x->ops->arg, dir))
		return ctlcmd_fail(x, CTL_CODE_BUSY, "busy: the %s thread did "
		    "not answer in time, try again", ctlcmd_dirs[dir]);
	return ctlcmd_fail(x, CTL_CODE_USAGE, "%s is not shaped",
	    ctlcmd_dirs[dir]);
}

static int
ctlcmd_direction(struct ctlcmd_ctx *x, int dir)
{
	struct cake_stats	st;
	struct cake_config	cfg;
	char			opts[KEYWORDS_LINE_MAX];
	unsigned int		t;

	memset(&st, 0, sizeof(st));
	if (x->ops->snapshot == NULL ||
	    x->ops->snapshot(x->ops->arg, dir, &st, &cfg) == -1)
		return -1;
	if (keywords_format(&cfg, opts, sizeof(opts)) == -1)
		opts[0] = '\0';
	json_object_begin(&x->w, ctlcmd_dirs[dir]);
	json_string(&x->w, CTL_KEY_OPTIONS, opts);
	json_uint(&x->w, "bandwidth", cfg.rate_Bps);
	ctlcmd_fields(&x->w, &st, ctlcmd_globals, CTLCMD_NITEMS(ctlcmd_globals));
	json_array_begin(&x->w, CTL_KEY_TINS);
	for (t = 0; t < st.tin_count && t < CAKE_MAX_TINS; t++) {
		json_object_begin(&x->w, NULL);
		st.tins[t].name[sizeof(st.tins[t].name) - 1] = '\0';
		json_string(&x->w, CTL_KEY_NAME, st.tins[t].name);
		ctlcmd_fields(&x->w, &st.tins[t], ctlcmd_tin_fields,
		    CTLCMD_NITEMS(ctlcmd_tin_fields));
		json_object_end(&x->w);
	}
	json_array_end(&x->w);
	if (x->ops->autorate != NULL)
		x->ops->autorate(x->ops->arg, dir, &x->w);
	if (x->ops->passive != NULL)
		x->ops->passive(x->ops->arg, dir, &x->w);
	if (x->ops->io != NULL)
		x->ops->io(x->ops->arg, dir, &x->w);
	json_object_end(&x->w);
	return 0;
}

static void
ctlcmd_control(struct ctlcmd_ctx *x)
{
	struct ctlcmd_counters	c;

	if (x->ops->counters == NULL)
		return;
	memset(&c, 0, sizeof(c));
	x->ops->counters(x->ops->arg, &c);
	json_object_begin(&x->w, CTL_KEY_CONTROL);
	json_uint(&x->w, "clients", c.clients);
	json_uint(&x->w, "clients_max", c.clients_max);
	json_uint(&x->w, "accepted", c.accepted);
	json_uint(&x->w, "refused_busy", c.refused_busy);
	json_uint(&x->w, "requests", c.requests);
	json_uint(&x->w, "denied", c.denied);
	json_uint(&x->w, "too_long", c.too_long);
	json_uint(&x->w, "slow_closed", c.slow_closed);
	json_uint(&x->w, "idle_closed", c.idle_closed);
	json_uint(&x->w, "accept_pauses", c.accept_pauses);
	json_object_end(&x->w);
}

static void
ctlcmd_nat(struct ctlcmd_ctx *x)
{
	struct ctlcmd_nat	n;

	memset(&n, 0, sizeof(n));
	if (x->ops->nat == NULL || x->ops->nat(x->ops->arg, &n) == -1)
		return;
	json_object_begin(&x->w, "nat");
	json_string(&x->w, "conntrack", n.state != NULL ? n.state : "?");
	json_uint(&x->w, "cache_entries", n.entries);
	json_uint(&x->w, "cache_size", n.size);
	json_uint(&x->w, "hits", n.hits);
	json_uint(&x->w, "misses", n.misses);
	json_uint(&x->w, "negative_hits", n.neg_hits);
	json_uint(&x->w, "evictions", n.evictions);
	json_uint(&x->w, "expiries", n.expiries);
	json_uint(&x->w, "events", n.events);
	json_uint(&x->w, "queries", n.queries);
	json_uint(&x->w, "answers", n.answers);
	json_uint(&x->w, "not_found", n.not_found);
	json_uint(&x->w, "query_failures", n.query_failures);
	json_uint(&x->w, "query_skipped", n.query_skipped);
	json_uint(&x->w, "query_timeouts", n.query_timeouts);
	json_uint(&x->w, "parse_errors", n.parse_errors);
	json_uint(&x->w, "enobufs", n.enobufs);
	json_uint(&x->w, "in_flight", n.in_flight);
	json_uint(&x->w, "inserts", n.inserts);
	json_uint(&x->w, "updates", n.updates);
	json_uint(&x->w, "removals", n.removals);
	if (n.inboxes) {	/* threads = 2: left out with one thread */
		json_uint(&x->w, "inbox_lost_news", n.inbox_lost_news);
		json_uint(&x->w, "inbox_lost_asks", n.inbox_lost_asks);
	}
	json_object_end(&x->w);
}

static int
ctlcmd_stats(struct ctlcmd_ctx *x, struct ctlcmd_req *r)
{
	int	dir = -1, i;

	if (r->argc > 2)
		return ctlcmd_fail(x, CTL_CODE_USAGE,
		    "usage: stats [upload | download]");
	if (r->argc == 2 && (dir = ctlcmd_dir_parse(r->argv[1])) == -1)
		return ctlcmd_fail(x, CTL_CODE_USAGE,
		    "unknown direction '%s' (upload or download)", r->argv[1]);
	ctlcmd_head(x->ops, &x->w, true);
	json_object_begin(&x->w, CTL_KEY_DIRECTIONS);
	for (i = 0; i < CTLCMD_DIRS; i++) {
		if (dir != -1 && i != dir)
			continue;
		if (ctlcmd_direction(x, i) == -1 && dir != -1)
			return ctlcmd_no_dir(x, i);
	}
	json_object_end(&x->w);
	ctlcmd_control(x);
	ctlcmd_nat(x);
	if (x->ops->passive != NULL)
		x->ops->passive(x->ops->arg, -1, &x->w);
	if (x->ops->daemon != NULL)
		x->ops->daemon(x->ops->arg, &x->w);
	json_object_end(&x->w);
	return 0;
}

static int
ctlcmd_set(struct ctlcmd_ctx *x, struct ctlcmd_req *r)
{
	struct cake_stats	st;
	struct cake_config	cfg;
	char			opts[KEYWORDS_LINE_MAX];
	int			dir;

	if (r->argc < 3)
		return ctlcmd_fail(x, CTL_CODE_USAGE,
		    "usage: set upload | download KEYWORD ...");
	if ((dir = ctlcmd_dir_parse(r->argv[1])) == -1)
		return ctlcmd_fail(x, CTL_CODE_USAGE,
		    "unknown direction '%s' (upload or download)", r->argv[1]);
	if (!x->peer->admin)
		return ctlcmd_fail(x, CTL_CODE_DENIED, "permission denied: "
		    "'set' needs root, caked's user or the admin group");
	if (x->ops->snapshot == NULL || x->ops->change == NULL ||
	    x->ops->snapshot(x->ops->arg, dir, &st, &cfg) == -1)
		return ctlcmd_no_dir(x, dir);
	/* The daemon checks the floors again with its real mtu. */
	if (keywords_parse_argv(&cfg, r->argc - 2, r->argv + 2, x->err,
	    sizeof(x->err)) == -1 ||
	    keywords_check_floors(&cfg, 0, x->err, sizeof(x->err)) == -1) {
		x->code = CTL_CODE_INVALID;
		return -1;
	}
	if (x->ops->change(x->ops->arg, dir, &cfg, x->err,
	    sizeof(x->err)) == -1) {
		x->code = CTL_CODE_INVALID;
		return -1;
	}
	if (x->ops->snapshot(x->ops->arg, dir, &st, &cfg) == -1 ||
	    keywords_format(&cfg, opts, sizeof(opts)) == -1)
		opts[0] = '\0';
	ctlcmd_head(x->ops, &x->w, true);
	json_string(&x->w, "direction", ctlcmd_dirs[dir]);
	json_string(&x->w, CTL_KEY_OPTIONS, opts);
	json_object_end(&x->w);
	return 1;
}

static int
ctlcmd_reload(struct ctlcmd_ctx *x, struct ctlcmd_req *r)
{
	if (r->argc != 1)
		return ctlcmd_fail(x, CTL_CODE_USAGE, "usage: reload");
	if (!x->peer->admin)
		return ctlcmd_fail(x, CTL_CODE_DENIED, "permission denied: "
		    "'reload' needs root, caked's user or the admin group");
	if (x->ops->reload == NULL)
		return ctlcmd_fail(x, CTL_CODE_FAILED, "reload not available");
	if (x->ops->reload(x->ops->arg, x->err, sizeof(x->err)) == -1) {
		x->code = CTL_CODE_FAILED;
		return -1;
	}
	ctlcmd_head(x->ops, &x->w, true);
	json_string(&x->w, CTL_KEY_MESSAGE, "configuration reloaded");
	json_object_end(&x->w);
	return 1;
}

static int
ctlcmd_simple(struct ctlcmd_ctx *x, struct ctlcmd_req *r)
{
	if (r->argc != 1)
		return ctlcmd_fail(x, CTL_CODE_USAGE, "usage: %s",
		    r->argv[0]);
	ctlcmd_head(x->ops, &x->w, true);
	if (strcmp(r->argv[0], CTL_CMD_VERSION) == 0)
		json_string(&x->w, CTL_KEY_DAEMON_VERSION,
		    x->ops->version != NULL ? x->ops->version : "unknown");
	else
		json_string(&x->w, CTL_KEY_MESSAGE, "pong");
	json_object_end(&x->w);
	return 0;
}

/* ---- hosts and flows ---------------------------------------------------- */

/* CAKE_FLOW_STATE_* */
static const char *const ctlcmd_states[] = {
	"idle", "sparse", "bulk", "decaying",
};

/* IANA protocol numbers shown by name; others as their number. */
static const struct {
	uint8_t		 proto;
	const char	*name;
} ctlcmd_protos[] = {
	{ 1, "icmp" }, { 2, "igmp" }, { 6, "tcp" }, { 17, "udp" },
	{ 41, "ipv6" }, { 47, "gre" }, { 50, "esp" }, { 51, "ah" },
	{ 58, "icmpv6" }, { 132, "sctp" }, { 136, "udplite" },
};

#define CTLCMD_ADDR_MAX	INET6_ADDRSTRLEN

/* What a hosts or flows request asks for. */
struct ctlcmd_top {
	int		 dir;		/* -1: both */
	unsigned int	 top;		/* rows per direction */
	bool		 hosts;		/* else flows */
};

/* "10.1.0.2", "2001:db8::1" or "-" (no IP keys: non-IP, flowblind). */
static void
ctlcmd_addr(const uint8_t *a, uint8_t family, char *buf, size_t len)
{
	if (family == 4)
		(void)snprintf(buf, len, "%u.%u.%u.%u", a[12], a[13], a[14],
		    a[15]);
	else if (family != 6 || inet_ntop(AF_INET6, a, buf, len) == NULL)
		(void)snprintf(buf, len, "-");
}

static const char *
ctlcmd_proto(const struct cake_tuple *k, char *buf, size_t len)
{
	size_t	i;

	if (k->family == 0)
		return "-";
	for (i = 0; i < CTLCMD_NITEMS(ctlcmd_protos); i++)
		if (ctlcmd_protos[i].proto == k->proto)
			return ctlcmd_protos[i].name;
	(void)snprintf(buf, len, "%u", k->proto);
	return buf;
}

/* Busiest first; ties in a fixed order, so that replies are stable. */
static int
ctlcmd_flow_cmp(const void *a, const void *b)
{
	const struct cake_flow_stats	*fa = a, *fb = b;

	if (fa->bytes != fb->bytes)
		return fa->bytes > fb->bytes ? -1 : 1;
	if (fa->pkts != fb->pkts)
		return fa->pkts > fb->pkts ? -1 : 1;
	if (fa->tin != fb->tin)
		return fa->tin < fb->tin ? -1 : 1;
	return memcmp(&fa->keys, &fb->keys, sizeof(fa->keys));
}

static int
ctlcmd_host_addr_cmp(const void *a, const void *b)
{
	const struct ctlcmd_host	*ha = a, *hb = b;

	if (ha->family != hb->family)
		return ha->family < hb->family ? -1 : 1;
	return memcmp(ha->addr, hb->addr, sizeof(ha->addr));
}

static int
ctlcmd_host_cmp(const void *a, const void *b)
{
	const struct ctlcmd_host	*ha = a, *hb = b;

	if (ha->bytes != hb->bytes)
		return ha->bytes > hb->bytes ? -1 : 1;
	if (ha->pkts != hb->pkts)
		return ha->pkts > hb->pkts ? -1 : 1;
	return ctlcmd_host_addr_cmp(a, b);
}

/*
 * Sums the n flows into hosts: in upload the host is a flow's source (the
 * LAN side), in download its destination. Returns the number of hosts.
 */
static unsigned int
ctlcmd_hosts_sum(const struct cake_flow_stats *f, unsigned int n, int dir,
    struct ctlcmd_host *h)
{
	const uint8_t	*a;
	unsigned int	 i, k = 0;

	for (i = 0; i < n; i++) {
		a = dir == 0 ? f[i].keys.src : f[i].keys.dst;
		memset(&h[i], 0, sizeof(h[i]));
		h[i].family = f[i].keys.family;
		if (h[i].family != 0)
			memcpy(h[i].addr, a, sizeof(h[i].addr));
		h[i].flows = 1;
		h[i].bytes = f[i].bytes;
		h[i].pkts = f[i].pkts;
		h[i].backlog_bytes = f[i].backlog_bytes;
		h[i].drops = f[i].drops;
		h[i].marks = f[i].marks;
	}
	if (n == 0)
		return 0;
	qsort(h, n, sizeof(*h), ctlcmd_host_addr_cmp);
	for (i = 1; i < n; i++) {
		if (ctlcmd_host_addr_cmp(&h[k], &h[i]) != 0) {
			h[++k] = h[i];
			continue;
		}
		h[k].flows += h[i].flows;
		h[k].bytes += h[i].bytes;
		h[k].pkts += h[i].pkts;
		h[k].backlog_bytes += h[i].backlog_bytes;
		h[k].drops += h[i].drops;
		h[k].marks += h[i].marks;
	}
	qsort(h, k + 1, sizeof(*h), ctlcmd_host_cmp);
	return k + 1;
}

unsigned int
ctlcmd_hosts_count(const struct cake_flow_stats *f, unsigned int n, int dir,
    struct ctlcmd_host *scratch)
{
	static const uint8_t	zero[16];
	const struct ctlcmd_host *h;
	unsigned int		i, k, ip = 0;

	/* Not ARP and other non-IP, nor 0.0.0.0 or :: (DHCP, IGMP probes). */
	k = ctlcmd_hosts_sum(f, n, dir, scratch);
	for (i = 0; i < k; i++) {
		h = &scratch[i];
		ip += (h->family == 4 && memcmp(h->addr + 12, zero, 4) != 0) ||
		    (h->family == 6 && memcmp(h->addr, zero, 16) != 0);
	}
	return ip;
}

/* A passive RTT in microseconds; -1 where it is not measured. */
static int64_t
ctlcmd_rtt_us(uint64_t ns)
{
	return ns == 0 ? -1 : (int64_t)(ns / 1000);
}

static void
ctlcmd_host_json(struct json_writer *w, const struct ctlcmd_host *h,
    bool rtt)
{
	char	addr[CTLCMD_ADDR_MAX];

	ctlcmd_addr(h->addr, h->family, addr, sizeof(addr));
	json_object_begin(w, NULL);
	json_string(w, CTL_KEY_ADDRESS, addr);
	json_uint(w, "bytes", h->bytes);
	json_uint(w, "packets", h->pkts);
	json_uint(w, "backlog_bytes", h->backlog_bytes);
	json_uint(w, "drops", h->drops);
	json_uint(w, "marks", h->marks);
	json_uint(w, CTL_KEY_FLOWS, h->flows);
	if (rtt) {
		json_int(w, "rtt_lan_us", ctlcmd_rtt_us(h->rtt_lan_ns));
		json_int(w, "rtt_wan_us", ctlcmd_rtt_us(h->rtt_wan_ns));
	}
	json_object_end(w);
}

static void
ctlcmd_flow_json(struct json_writer *w, const struct cake_flow_stats *f,
    const struct cake_stats *st)
{
	char		 src[CTLCMD_ADDR_MAX], dst[CTLCMD_ADDR_MAX], num[8];
	const char	*tin = "?";

	ctlcmd_addr(f->keys.src, f->keys.family, src, sizeof(src));
	ctlcmd_addr(f->keys.dst, f->keys.family, dst, sizeof(dst));
	if (f->tin < st->tin_count && f->tin < CAKE_MAX_TINS)
		tin = st->tins[f->tin].name;
	json_object_begin(w, NULL);
	json_string(w, "proto", ctlcmd_proto(&f->keys, num, sizeof(num)));
	json_string(w, "src", src);
	json_uint(w, "sport", f->keys.sport);
	json_string(w, "dst", dst);
	json_uint(w, "dport", f->keys.dport);
	json_string(w, "tin", tin);
	json_string(w, "state", f->state < CTLCMD_NITEMS(ctlcmd_states) ?
	    ctlcmd_states[f->state] : "?");
	json_uint(w, "bytes", f->bytes);
	json_uint(w, "packets", f->pkts);
	json_uint(w, "backlog_bytes", f->backlog_bytes);
	json_uint(w, "backlog_packets", f->qlen);
	json_uint(w, "drops", f->drops);
	json_uint(w, "marks", f->marks);
	json_object_end(w);
}

/* One direction of a hosts or flows reply; -1 if it is not shaped. */
static int
ctlcmd_top_direction(struct ctlcmd_ctx *x, const struct ctlcmd_top *q,
    int dir)
{
	const struct ctlcmd_scratch	*s = &x->ops->scratch;
	struct cake_stats		 st;
	struct cake_config		 cfg;
	unsigned int			 n, i;
	int				 got;

	memset(&st, 0, sizeof(st));
	if (x->ops->snapshot == NULL || x->ops->flows == NULL ||
	    s->flows == NULL || s->hosts == NULL ||
	    x->ops->snapshot(x->ops->arg, dir, &st, &cfg) == -1 ||
	    (got = x->ops->flows(x->ops->arg, dir, s->flows, s->max)) < 0)
		return -1;
	for (i = 0; i < st.tin_count && i < CAKE_MAX_TINS; i++)
		st.tins[i].name[sizeof(st.tins[i].name) - 1] = '\0';
	n = (unsigned int)got < s->max ? (unsigned int)got : s->max;
	if (q->hosts)
		n = ctlcmd_hosts_sum(s->flows, n, dir, s->hosts);
	else if (n > 0)
		qsort(s->flows, n, sizeof(*s->flows), ctlcmd_flow_cmp);
	json_object_begin(&x->w, ctlcmd_dirs[dir]);
	json_uint(&x->w, CTL_KEY_TOTAL, n);
	json_array_begin(&x->w, q->hosts ? CTL_KEY_HOSTS : CTL_KEY_FLOWS);
	for (i = 0; i < n && i < q->top; i++) {
		if (q->hosts && x->ops->host_rtt != NULL)
			x->ops->host_rtt(x->ops->arg, s->hosts[i].addr,
			    s->hosts[i].family, &s->hosts[i].rtt_lan_ns,
			    &s->hosts[i].rtt_wan_ns);
		if (q->hosts)
			ctlcmd_host_json(&x->w, &s->hosts[i],
			    x->ops->host_rtt != NULL);
		else
			ctlcmd_flow_json(&x->w, &s->flows[i], &st);
	}
	json_array_end(&x->w);
	json_object_end(&x->w);
	return 0;
}

/* [upload | download] [top N] after the command word. */
static int
ctlcmd_top_args(struct ctlcmd_ctx *x, struct ctlcmd_req *r,
    struct ctlcmd_top *q)
{
	const char	*p;
	unsigned long	 v = 0;
	int		 i = 1;

	q->dir = -1;
	q->top = CTL_TOP_DEFAULT;
	if (i < r->argc && strcmp(r->argv[i], CTL_ARG_TOP) != 0) {
		if ((q->dir = ctlcmd_dir_parse(r->argv[i])) == -1)
			return ctlcmd_fail(x, CTL_CODE_USAGE, "unknown "
			    "direction '%.32s' (upload or download)",
			    r->argv[i]);
		i++;
	}
	if (i + 2 == r->argc && strcmp(r->argv[i], CTL_ARG_TOP) == 0) {
		for (p = r->argv[i + 1]; *p >= '0' && *p <= '9' &&
		    v <= CTL_TOP_MAX; p++)
			v = v * 10 + (unsigned long)(*p - '0');
		if (*p != '\0' || v < 1 || v > CTL_TOP_MAX)
			return ctlcmd_fail(x, CTL_CODE_USAGE, "top: '%.32s' "
			    "is not a count from 1 to %d", r->argv[i + 1],
			    CTL_TOP_MAX);
		q->top = (unsigned int)v;
		i += 2;
	}
	if (i != r->argc)
		return ctlcmd_fail(x, CTL_CODE_USAGE, "usage: %s [upload | "
		    "download] [top N]", r->argv[0]);
	return 0;
}

static int
ctlcmd_top(struct ctlcmd_ctx *x, struct ctlcmd_req *r)
{
	struct ctlcmd_top	q;
	int			i;

	if (ctlcmd_top_args(x, r, &q) == -1)
		return -1;
	q.hosts = strcmp(r->argv[0], CTL_CMD_HOSTS) == 0;
	ctlcmd_head(x->ops, &x->w, true);
	json_object_begin(&x->w, CTL_KEY_DIRECTIONS);
	for (i = 0; i < CTLCMD_DIRS; i++) {
		if (q.dir != -1 && i != q.dir)
			continue;
		if (ctlcmd_top_direction(x, &q, i) == -1 && q.dir != -1)
			return ctlcmd_no_dir(x, i);
	}
	json_object_end(&x->w);
	json_object_end(&x->w);
	return 0;
}

/* Handlers return 0 (read only), 1 (changed state) or -1 (x->err). */
static const struct {
	const char	*name;
	int		(*fn)(struct ctlcmd_ctx *, struct ctlcmd_req *);
} ctlcmd_table[] = {
	{ CTL_CMD_FLOWS, ctlcmd_top },
	{ CTL_CMD_HOSTS, ctlcmd_top },
	{ CTL_CMD_PING, ctlcmd_simple },
	{ CTL_CMD_RELOAD, ctlcmd_reload },
	{ CTL_CMD_SET, ctlcmd_set },
	{ CTL_CMD_STATS, ctlcmd_stats },
	{ CTL_CMD_VERSION, ctlcmd_simple },
};

static int
ctlcmd_dispatch(struct ctlcmd_ctx *x, const char *line)
{
	struct ctlcmd_req	req;
	size_t			i;
	char			name[32];

	if (ctlcmd_split(x, line, &req) == -1)
		return -1;
	for (i = 0; i < CTLCMD_NITEMS(ctlcmd_table); i++)
		if (strcmp(req.argv[0], ctlcmd_table[i].name) == 0)
			return ctlcmd_table[i].fn(x, &req);
	/* Quote only a printable prefix of the unknown word. */
	(void)snprintf(name, sizeof(name), "%s", req.argv[0]);
	return ctlcmd_fail(x, CTL_CODE_UNKNOWN, "unknown command '%s'", name);
}

int
ctlcmd_handle(const struct ctlcmd_ops *ops, const struct ctlcmd_peer *peer,
    const char *line, char *out, size_t cap, size_t *outlen)
{
	struct ctlcmd_ctx	x;
	int			rc, n;

	memset(&x, 0, sizeof(x));
	x.ops = ops;
	x.peer = peer;
	json_init(&x.w, out, cap);
	rc = ctlcmd_dispatch(&x, line);
	if (rc != -1 && (n = json_finish(&x.w)) != -1) {
		*outlen = (size_t)n;
		return rc == 1 ? CTLCMD_CHANGED : CTLCMD_READ;
	}
	if (rc != -1)
		(void)ctlcmd_fail(&x, CTL_CODE_FAILED, "reply too large");
	n = ctlcmd_error(ops, x.code, x.err, out, cap);
	/* A message quoting a long request may not fit: a short one does. */
	if (n == -1)
		n = ctlcmd_error(ops, x.code, "reply too large", out, cap);
	*outlen = n == -1 ? 0 : (size_t)n;
	return strcmp(x.code, CTL_CODE_DENIED) == 0 ? CTLCMD_DENIED :
	    CTLCMD_ERROR;
}
