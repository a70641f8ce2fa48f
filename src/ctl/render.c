/*
 * render.c: turns the daemon's JSON stats reply into text. The text view
 * copies `tc -s qdisc show dev X` for a cake qdisc (tc/q_cake.c: a
 * 10-character row label, then one 12-character right-aligned column per
 * tin, numbers printed with tc's units), so that CAKE users need to learn
 * nothing. The metrics view is the Prometheus text format with the
 * direction and tin as labels.
 *
 * It only formats: it never talks to the daemon and never links the
 * engine (units come from src/common/keywords.c).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caked/ctl.h"
#include "caked/keywords.h"
#include "common/json.h"
#include "ctl/render.h"

enum render_kind {
	RENDER_NUM,		/* plain integer */
	RENDER_RATE,		/* bytes/s, printed as "20Mbit" */
	RENDER_TIME,		/* us, printed as "5ms" */
	RENDER_SIZE,		/* bytes, printed as "1514b" / "4Mb" */
};

/* The per-tin rows of tc, in tc's order (CAKE-SPEC §8). */
static const struct {
	const char		*label;
	const char		*key;
	enum render_kind	 kind;
} render_rows[] = {
	{ "  thresh", "threshold_rate", RENDER_RATE },
	{ "  target", "target_us", RENDER_TIME },
	{ "  interval", "interval_us", RENDER_TIME },
	{ "  pk_delay", "peak_delay_us", RENDER_TIME },
	{ "  av_delay", "avg_delay_us", RENDER_TIME },
	{ "  sp_delay", "base_delay_us", RENDER_TIME },
	{ "  backlog", "backlog_bytes", RENDER_SIZE },
	{ "  pkts", "sent_packets", RENDER_NUM },
	{ "  bytes", "sent_bytes", RENDER_NUM },
	{ "  way_inds", "way_indirect_hits", RENDER_NUM },
	{ "  way_miss", "way_misses", RENDER_NUM },
	{ "  way_cols", "way_collisions", RENDER_NUM },
	{ "  drops", "drops", RENDER_NUM },
	{ "  marks", "ecn_mark", RENDER_NUM },
	{ "  ack_drop", "ack_drops", RENDER_NUM },
	{ "  sp_flows", "sparse_flows", RENDER_NUM },
	{ "  bk_flows", "bulk_flows", RENDER_NUM },
	{ "  un_flows", "unresponsive_flows", RENDER_NUM },
	{ "  max_len", "max_pkt_len", RENDER_NUM },
	{ "  quantum", "flow_quantum", RENDER_NUM },
};

#define RENDER_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define RENDER_CELL		32

/* Formats one value; "?" if it is missing. Returns 0 or -1. */
static int
render_value(const struct json_value *obj, const char *key,
    enum render_kind kind, char *buf, size_t len)
{
	uint64_t	v;
	int		rc = 0;

	if (json_get_u64(obj, key, &v) == -1) {
		(void)snprintf(buf, len, "?");
		return -1;
	}
	switch (kind) {
	case RENDER_RATE:
		rc = keywords_format_rate(v, buf, len);
		break;
	case RENDER_TIME:
		rc = keywords_format_time(v, buf, len);
		break;
	case RENDER_SIZE:
		rc = keywords_format_size(v, buf, len);
		break;
	case RENDER_NUM:
		rc = snprintf(buf, len, "%" PRIu64, v) < (int)len ? 0 : -1;
		break;
	}
	return rc;
}

static uint64_t
render_u64(const struct json_value *obj, const char *key, int *bad)
{
	uint64_t	v;

	if (json_get_u64(obj, key, &v) == -1) {
		*bad = 1;
		return 0;
	}
	return v;
}

static int
render_globals(FILE *fp, const char *dir, const struct json_value *d)
{
	char		used[RENDER_CELL], limit[RENDER_CELL], cap[RENDER_CELL];
	char		backlog[RENDER_CELL];
	const char	*opts = json_get_str(d, CTL_KEY_OPTIONS);
	int		bad = 0;

	bad |= render_value(d, "memory_used", RENDER_SIZE, used, sizeof(used));
	bad |= render_value(d, "memory_limit", RENDER_SIZE, limit,
	    sizeof(limit));
	bad |= render_value(d, "capacity_estimate", RENDER_RATE, cap,
	    sizeof(cap));
	bad |= render_value(d, "backlog_bytes", RENDER_SIZE, backlog,
	    sizeof(backlog));
	fprintf(fp, "qdisc cake %s: %s\n", dir, opts != NULL ? opts : "?");
	fprintf(fp, " Sent %" PRIu64 " bytes %" PRIu64 " pkt (dropped %" PRIu64
	    ", overlimits %" PRIu64 " requeues 0)\n",
	    render_u64(d, "sent_bytes", &bad), render_u64(d, "sent_packets",
	    &bad), render_u64(d, "drops", &bad), render_u64(d, "overlimits",
	    &bad));
	fprintf(fp, " backlog %s %" PRIu64 "p requeues 0\n", backlog,
	    render_u64(d, "backlog_packets", &bad));
	fprintf(fp, " memory used: %s of %s\n", used, limit);
	fprintf(fp, " capacity estimate: %s\n", cap);
	fprintf(fp, " min/max network layer size: %12" PRIu64 " /%8" PRIu64
	    "\n", render_u64(d, "min_network_size", &bad),
	    render_u64(d, "max_network_size", &bad));
	fprintf(fp, " min/max overhead-adjusted size: %8" PRIu64 " /%8" PRIu64
	    "\n", render_u64(d, "min_adj_size", &bad),
	    render_u64(d, "max_adj_size", &bad));
	fprintf(fp, " average network hdr offset: %12" PRIu64 "\n\n",
	    render_u64(d, "avg_hdr_offset", &bad));
	return bad ? -1 : 0;
}

static int
render_tins(FILE *fp, const struct json_value *d)
{
	const struct json_value	*tins = json_get(d, CTL_KEY_TINS), *t;
	const char		*name;
	char			 cell[RENDER_CELL];
	size_t			 r, i;
	int			 bad = 0;

	if (tins == NULL || tins->type != JSON_ARRAY)
		return -1;
	/* tc names the tins of diffserv3 and diffserv4 only. */
	fprintf(fp, "%-10s", "");
	for (t = tins->child, i = 0; t != NULL; t = t->next, i++) {
		name = json_get_str(t, CTL_KEY_NAME);
		if (json_count(tins) == 3 || json_count(tins) == 4)
			fprintf(fp, " %12s", name != NULL ? name : "?");
		else
			fprintf(fp, "        Tin %zu", i);
	}
	fprintf(fp, "\n");
	for (r = 0; r < RENDER_NITEMS(render_rows); r++) {
		fprintf(fp, "%-10s", render_rows[r].label);
		for (t = tins->child; t != NULL; t = t->next) {
			bad |= render_value(t, render_rows[r].key,
			    render_rows[r].kind, cell, sizeof(cell));
			fprintf(fp, " %12s", cell);
		}
		fprintf(fp, "\n");
	}
	return bad ? -1 : 0;
}

int
render_stats(FILE *fp, const struct json_value *reply)
{
	const struct json_value	*dirs, *d;
	int			 bad = 0;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT)
		return -1;
	for (d = dirs->child; d != NULL; d = d->next) {
		if (d != dirs->child)
			fprintf(fp, "\n");
		bad |= render_globals(fp, d->key, d);
		bad |= render_tins(fp, d);
	}
	return bad ? -1 : 0;
}

/* ---- Prometheus ---------------------------------------------------------- */

enum render_scope {
	RENDER_DIR,		/* one sample per direction */
	RENDER_TIN,		/* one per direction and tin */
	RENDER_CONTROL,		/* one, from the "control" object */
};

/* One metric: its JSON key, name, type, help and whether key is in us. */
struct render_metric {
	enum render_scope	 scope;
	const char		*key;
	const char		*name;
	bool			 counter;
	bool			 us;		/* print in seconds */
	const char		*help;
};

static const struct render_metric render_metrics_table[] = {
	{ RENDER_DIR, "bandwidth", "bandwidth_bytes_per_second", false, false,
	    "Configured shaper rate (0 = unlimited)." },
	{ RENDER_DIR, "sent_bytes", "sent_bytes_total", true, false,
	    "Bytes sent, counted at dequeue." },
	{ RENDER_DIR, "sent_packets", "sent_packets_total", true, false,
	    "Packets sent, counted at dequeue." },
	{ RENDER_DIR, "drops", "dropped_packets_total", true, false,
	    "Packets dropped (AQM, overflow and ACK filter)." },
	{ RENDER_DIR, "overlimits", "overlimits_total", true, false,
	    "Times the shaper held a packet back." },
	{ RENDER_DIR, "backlog_bytes", "backlog_bytes", false, false,
	    "Bytes queued now." },
	{ RENDER_DIR, "backlog_packets", "backlog_packets", false, false,
	    "Packets queued now." },
	{ RENDER_DIR, "memory_used", "memory_used_peak_bytes", false, false,
	    "Peak buffer memory used." },
	{ RENDER_DIR, "memory_limit", "memory_limit_bytes", false, false,
	    "Buffer memory limit." },
	{ RENDER_DIR, "memory_now", "memory_used_bytes", false, false,
	    "Buffer memory used now." },
	{ RENDER_DIR, "capacity_estimate", "capacity_estimate_bytes_per_second",
	    false, false, "Capacity estimate (autorate or configured rate)." },
	{ RENDER_DIR, "non_ip_packets", "non_ip_packets_total", true, false,
	    "Packets parsed as non-IP or malformed." },
	{ RENDER_DIR, "gso_splits", "gso_splits_total", true, false,
	    "GSO super-packets split into segments." },
	{ RENDER_TIN, "threshold_rate", "tin_threshold_bytes_per_second",
	    false, false, "Tin threshold rate." },
	{ RENDER_TIN, "target_us", "tin_target_seconds", false, true,
	    "COBALT target delay." },
	{ RENDER_TIN, "interval_us", "tin_interval_seconds", false, true,
	    "COBALT interval." },
	{ RENDER_TIN, "peak_delay_us", "tin_peak_delay_seconds", false, true,
	    "Peak sojourn time (EWMA)." },
	{ RENDER_TIN, "avg_delay_us", "tin_avg_delay_seconds", false, true,
	    "Average sojourn time (EWMA)." },
	{ RENDER_TIN, "base_delay_us", "tin_sparse_delay_seconds", false, true,
	    "Sparse (base) sojourn time (EWMA)." },
	{ RENDER_TIN, "backlog_bytes", "tin_backlog_bytes", false, false,
	    "Bytes queued in the tin now." },
	{ RENDER_TIN, "sent_packets", "tin_packets_total", true, false,
	    "Packets counted at enqueue." },
	{ RENDER_TIN, "sent_bytes", "tin_bytes_total", true, false,
	    "Bytes counted at enqueue." },
	{ RENDER_TIN, "way_indirect_hits", "tin_way_indirect_hits_total", true,
	    false, "Flow lookups found in another way of the set." },
	{ RENDER_TIN, "way_misses", "tin_way_misses_total", true, false,
	    "Flow lookups that took an empty queue." },
	{ RENDER_TIN, "way_collisions", "tin_way_collisions_total", true,
	    false, "Flow lookups that had to share a queue." },
	{ RENDER_TIN, "drops", "tin_dropped_packets_total", true, false,
	    "Packets dropped by AQM or overflow." },
	{ RENDER_TIN, "ecn_mark", "tin_ecn_marked_packets_total", true, false,
	    "Packets ECN CE-marked." },
	{ RENDER_TIN, "ack_drops", "tin_ack_dropped_packets_total", true,
	    false, "Pure ACKs dropped by the ACK filter." },
	{ RENDER_TIN, "sparse_flows", "tin_sparse_flows", false, false,
	    "Sparse and decaying flows." },
	{ RENDER_TIN, "bulk_flows", "tin_bulk_flows", false, false,
	    "Bulk flows." },
	{ RENDER_TIN, "unresponsive_flows", "tin_unresponsive_flows", false,
	    false, "Flows with a BLUE drop probability above 0." },
	{ RENDER_TIN, "max_pkt_len", "tin_max_packet_bytes", false, false,
	    "Largest packet seen." },
	{ RENDER_TIN, "flow_quantum", "tin_flow_quantum_bytes", false, false,
	    "DRR quantum of the tin." },
	{ RENDER_CONTROL, "clients", "control_clients", false, false,
	    "Control clients connected now." },
	{ RENDER_CONTROL, "clients_max", "control_clients_max", false, false,
	    "Control clients served at most at once." },
	{ RENDER_CONTROL, "accepted", "control_accepted_total", true, false,
	    "Control connections accepted." },
	{ RENDER_CONTROL, "refused_busy", "control_refused_total", true, false,
	    "Control connections refused: too many clients." },
	{ RENDER_CONTROL, "requests", "control_requests_total", true, false,
	    "Control requests answered." },
	{ RENDER_CONTROL, "denied", "control_denied_total", true, false,
	    "Control requests denied: not permitted." },
	{ RENDER_CONTROL, "too_long", "control_too_long_total", true, false,
	    "Control requests over the line limit." },
	{ RENDER_CONTROL, "slow_closed", "control_slow_closed_total", true,
	    false, "Control clients closed for not reading a reply." },
	{ RENDER_CONTROL, "idle_closed", "control_idle_closed_total", true,
	    false, "Control clients closed for idling." },
	{ RENDER_CONTROL, "accept_pauses", "control_accept_pauses_total", true,
	    false, "Times accept was paused for lack of descriptors." },
};

/* A label value with \, " and newline escaped. */
static void
render_label(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(fp, "\\%c", *s);
		else if (*s == '\n')
			fprintf(fp, "\\n");
		else
			fputc(*s, fp);
	}
}

static void
render_sample(FILE *fp, const struct render_metric *m,
    const struct json_value *obj, const char *dir, const char *tin)
{
	uint64_t	v;

	if (json_get_u64(obj, m->key, &v) == -1)
		return;
	fprintf(fp, "caked_%s", m->name);
	if (dir != NULL) {
		fprintf(fp, "{direction=\"");
		render_label(fp, dir);
		if (tin != NULL) {
			fprintf(fp, "\",tin=\"");
			render_label(fp, tin);
		}
		fprintf(fp, "\"}");
	}
	if (m->us)
		fprintf(fp, " %" PRIu64 ".%06" PRIu64 "\n", v / 1000000,
		    v % 1000000);
	else
		fprintf(fp, " %" PRIu64 "\n", v);
}

static void
render_metric(FILE *fp, const struct render_metric *m,
    const struct json_value *reply)
{
	const struct json_value	*dirs, *d, *tins, *t;

	fprintf(fp, "# HELP caked_%s %s\n", m->name, m->help);
	fprintf(fp, "# TYPE caked_%s %s\n", m->name,
	    m->counter ? "counter" : "gauge");
	if (m->scope == RENDER_CONTROL) {
		render_sample(fp, m, json_get(reply, CTL_KEY_CONTROL), NULL,
		    NULL);
		return;
	}
	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	for (d = dirs->child; d != NULL; d = d->next) {
		if (m->scope == RENDER_DIR) {
			render_sample(fp, m, d, d->key, NULL);
			continue;
		}
		if ((tins = json_get(d, CTL_KEY_TINS)) == NULL ||
		    tins->type != JSON_ARRAY)
			continue;
		for (t = tins->child; t != NULL; t = t->next)
			render_sample(fp, m, t, d->key,
			    json_get_str(t, CTL_KEY_NAME) != NULL ?
			    json_get_str(t, CTL_KEY_NAME) : "?");
	}
}

int
render_metrics(FILE *fp, const struct json_value *reply)
{
	const struct json_value	*dirs;
	size_t			 i;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT)
		return -1;
	for (i = 0; i < RENDER_NITEMS(render_metrics_table); i++) {
		if (render_metrics_table[i].scope == RENDER_CONTROL &&
		    json_get(reply, CTL_KEY_CONTROL) == NULL)
			continue;
		render_metric(fp, &render_metrics_table[i], reply);
	}
	return 0;
}
