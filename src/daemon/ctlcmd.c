/*
 * ctlcmd.c: caked's control commands, from a request line to a JSON reply
 * (protocol in include/caked/ctl.h, user view in cakectl(8)).
 *
 * Pure: no I/O, no clock, no engine calls. Snapshots and changes go
 * through the callbacks of struct ctlcmd_ops, so the whole protocol is
 * unit-tested with a fake snapshot. It must not decide who the peer is
 * (the socket adapter does) and must not log (the caller logs what the
 * result says changed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
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
};

/* Per-tin values, CAKE-SPEC §8 order, `tc -j` names. */
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

const char *
ctlcmd_dir_name(int dir)
{
	if (dir < 0 || dir >= CTLCMD_DIRS)
		return NULL;
	return ctlcmd_dirs[dir];
}

static int
ctlcmd_dir_parse(const char *s)
{
	int	i;

	for (i = 0; i < CTLCMD_DIRS; i++)
		if (strcmp(s, ctlcmd_dirs[i]) == 0)
			return i;
	return -1;
}

static void
ctlcmd_head(struct json_writer *w, bool ok)
{
	json_object_begin(w, NULL);
	json_uint(w, CTL_KEY_VERSION, CTL_PROTOCOL_VERSION);
	json_bool(w, CTL_KEY_OK, ok);
}

int
ctlcmd_error(const char *code, const char *msg, char *out, size_t cap)
{
	struct json_writer	w;

	json_init(&w, out, cap);
	ctlcmd_head(&w, false);
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
	ctlcmd_head(&x->w, true);
	json_object_begin(&x->w, CTL_KEY_DIRECTIONS);
	for (i = 0; i < CTLCMD_DIRS; i++) {
		if (dir != -1 && i != dir)
			continue;
		if (ctlcmd_direction(x, i) == -1 && dir != -1)
			return ctlcmd_fail(x, CTL_CODE_USAGE,
			    "%s is not shaped", ctlcmd_dirs[i]);
	}
	json_object_end(&x->w);
	ctlcmd_control(x);
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
		    "'set' needs root or the admin group");
	if (x->ops->snapshot == NULL || x->ops->change == NULL ||
	    x->ops->snapshot(x->ops->arg, dir, &st, &cfg) == -1)
		return ctlcmd_fail(x, CTL_CODE_USAGE, "%s is not shaped",
		    ctlcmd_dirs[dir]);
	if (keywords_parse_argv(&cfg, r->argc - 2, r->argv + 2, x->err,
	    sizeof(x->err)) == -1) {
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
	ctlcmd_head(&x->w, true);
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
		    "'reload' needs root or the admin group");
	if (x->ops->reload == NULL)
		return ctlcmd_fail(x, CTL_CODE_FAILED, "reload not available");
	if (x->ops->reload(x->ops->arg, x->err, sizeof(x->err)) == -1) {
		x->code = CTL_CODE_FAILED;
		return -1;
	}
	ctlcmd_head(&x->w, true);
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
	ctlcmd_head(&x->w, true);
	if (strcmp(r->argv[0], CTL_CMD_VERSION) == 0)
		json_string(&x->w, CTL_KEY_DAEMON_VERSION,
		    x->ops->version != NULL ? x->ops->version : "unknown");
	else
		json_string(&x->w, CTL_KEY_MESSAGE, "pong");
	json_object_end(&x->w);
	return 0;
}

/* Handlers return 0 (read only), 1 (changed state) or -1 (x->err). */
static const struct {
	const char	*name;
	int		(*fn)(struct ctlcmd_ctx *, struct ctlcmd_req *);
} ctlcmd_table[] = {
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
	n = ctlcmd_error(x.code, x.err, out, cap);
	*outlen = n == -1 ? 0 : (size_t)n;
	return strcmp(x.code, CTL_CODE_DENIED) == 0 ? CTLCMD_DENIED :
	    CTLCMD_ERROR;
}
