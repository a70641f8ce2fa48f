/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 the caked authors */
/*
 * metrics.c: a stats reply (the daemon's JSON, the one source of every
 * counter) printed in the Prometheus text exposition format 0.0.4. Used
 * by `cakectl metrics` and by caked's /metrics endpoint alike.
 *
 * One table maps each numeric member of the reply to a metric: base units
 * (seconds, bytes), "_total" on counters, HELP naming the tc-cake field
 * where tc has one, labels direction, tin (snake case: "best_effort"),
 * reason, reflector and host. Nothing per flow is exported: their number
 * is unbounded. Per host only the busiest few the daemon lists (the
 * "hosts" member of a direction, at most HOSTACCT_EXPORTED of them) are:
 * a LAN of thousands of hosts adds no more series. A second table lists
 * the members deliberately not exported, each with its reason; a unit
 * test (test_metrics) walks every numeric leaf of a full reply and fails
 * on one that is in neither.
 *
 * Pure formatting: no I/O but the FILE it is given, no clock.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caked/ctl.h"
#include "common/json.h"
#include "common/metrics.h"

enum metrics_scope {
	M_TOP,		/* a member of the reply itself */
	M_DIR,		/* directions.DIR */
	M_TIN,		/* directions.DIR.tins[] */
	M_IO,		/* directions.DIR.io */
	M_DROP,		/* directions.DIR.io.drops, label reason=KEY */
	M_POOL,		/* directions.DIR.pool */
	M_AR,		/* directions.DIR.autorate */
	M_REFL,		/* directions.DIR.autorate.reflectors[] */
	M_HOSTS,	/* directions.DIR.hosts */
	M_HOST,		/* directions.DIR.hosts.busiest[], label host */
	M_PAS,		/* directions.DIR.passive */
	M_CONTROL,	/* control */
	M_NAT,		/* nat */
	M_DAEMON,	/* daemon */
	M_PASG,		/* passive */
	M_NATLOST,	/* nat.inbox_lost_KIND, label kind=KIND */
};

/*
 * Each scope's path prefix, as metrics_path() takes it, and the object its
 * members are in: a member of each direction or, for the global scopes,
 * of the reply (NULL: the direction or the reply itself).
 */
static const struct {
	const char	*prefix;
	const char	*object;
} metrics_scopes[] = {
	[M_TOP] = { "", NULL },
	[M_DIR] = { "directions.*.", NULL },
	[M_TIN] = { "directions.*.tins[].", NULL },
	[M_IO] = { "directions.*.io.", "io" },
	[M_DROP] = { "directions.*.io.drops.", "io" },
	[M_POOL] = { "directions.*.pool.", "pool" },
	[M_AR] = { "directions.*.autorate.", "autorate" },
	[M_REFL] = { "directions.*.autorate.reflectors[].", "autorate" },
	[M_HOSTS] = { "directions.*.hosts.", "hosts" },
	[M_HOST] = { "directions.*.hosts.busiest[].", "hosts" },
	[M_PAS] = { "directions.*.passive.", "passive" },
	[M_CONTROL] = { "control.", CTL_KEY_CONTROL },
	[M_NAT] = { "nat.", "nat" },
	[M_DAEMON] = { "daemon.", "daemon" },
	[M_PASG] = { "passive.", "passive" },
	[M_NATLOST] = { "nat.", "nat" },
};

#define M_COUNTER	0x01	/* else a gauge */
#define M_US		0x02	/* microseconds, printed as seconds */
#define M_NS		0x04	/* nanoseconds, printed as seconds */
#define M_PCT		0x08	/* percent, printed as a ratio */
#define M_ZERO_NONE	0x10	/* 0 means none (unlimited): no sample */
#define M_NEG_NONE	0x20	/* below 0 means none: no sample */
#define M_BOOL		0x40	/* true or false, printed as 1 or 0 */
#define M_LABEL		0x80	/* a string: 1, with label KEY="value" */

struct metrics_def {
	enum metrics_scope	 scope;
	const char		*key;
	const char		*name;		/* after "caked_" */
	unsigned int		 flags;
	const char		*help;
};

#define C	M_COUNTER
/*
 * Entries of one name follow each other (HELP and TYPE are printed once).
 * "tc:" names the field of `tc -s qdisc show` for cake.
 */
static const struct metrics_def metrics_table[] = {
	{ M_TOP, CTL_KEY_UPTIME_NS, "uptime_seconds", M_NS,
	    "Time since caked started." },
	{ M_DIR, "bandwidth", "bandwidth_bytes_per_second", M_ZERO_NONE,
	    "Shaper rate in force; no sample when unlimited (tc: bandwidth)." },
	{ M_DIR, "sent_bytes", "sent_bytes_total", C,
	    "Bytes sent, at dequeue (tc: Sent ... bytes)." },
	{ M_DIR, "sent_packets", "sent_packets_total", C,
	    "Packets sent, at dequeue (tc: Sent ... pkt)." },
	{ M_DIR, "drops", "dropped_packets_total", C,
	    "Packets dropped by AQM, overflow and ACK filter (tc: dropped)." },
	{ M_DIR, "overlimits", "overlimits_total", C,
	    "Times the shaper held a packet back (tc: overlimits)." },
	{ M_DIR, "backlog_bytes", "backlog_bytes", 0,
	    "Bytes queued now (tc: backlog ...b)." },
	{ M_DIR, "backlog_packets", "backlog_packets", 0,
	    "Packets queued now (tc: backlog ...p)." },
	{ M_DIR, "memory_used", "memory_used_peak_bytes", 0,
	    "Peak buffer memory used (tc: memory used)." },
	{ M_DIR, "memory_limit", "memory_limit_bytes", 0,
	    "Buffer memory limit (tc: memory used ... of)." },
	{ M_DIR, "memory_now", "memory_used_bytes", 0,
	    "Buffer memory used now (caked only)." },
	{ M_DIR, "capacity_estimate", "capacity_estimate_bytes_per_second",
	    M_ZERO_NONE, "Capacity estimate (tc: capacity estimate)." },
	{ M_DIR, "min_network_size", "min_network_size_bytes", 0,
	    "Smallest network-layer size (tc: min/max network layer size)." },
	{ M_DIR, "max_network_size", "max_network_size_bytes", 0,
	    "Largest network-layer size (tc: min/max network layer size)." },
	{ M_DIR, "min_adj_size", "min_adjusted_size_bytes", 0,
	    "Smallest overhead-adjusted size "
	    "(tc: min/max overhead-adjusted size)." },
	{ M_DIR, "max_adj_size", "max_adjusted_size_bytes", 0,
	    "Largest overhead-adjusted size "
	    "(tc: min/max overhead-adjusted size)." },
	{ M_DIR, "avg_hdr_offset", "average_header_offset_bytes", 0,
	    "Average network header offset (tc: average network hdr offset)." },
	{ M_DIR, "non_ip_packets", "non_ip_packets_total", C,
	    "Packets parsed as non-IP or malformed (caked only)." },
	{ M_DIR, "gso_splits", "gso_splits_total", C,
	    "GSO super-packets split into segments (caked only)." },
	{ M_DIR, "gso_whole", "gso_whole_total", C,
	    "GSO super-packets kept whole with split-gso, left at once "
	    "(caked only)." },
	{ M_TIN, "threshold_rate", "tin_threshold_bytes_per_second",
	    M_ZERO_NONE, "Tin threshold rate (tc: thresh)." },
	{ M_TIN, "target_us", "tin_target_seconds", M_US,
	    "COBALT target delay (tc: target)." },
	{ M_TIN, "interval_us", "tin_interval_seconds", M_US,
	    "COBALT interval (tc: interval)." },
	{ M_TIN, "peak_delay_us", "tin_peak_delay_seconds", M_US,
	    "Peak sojourn time, EWMA (tc: pk_delay)." },
	{ M_TIN, "avg_delay_us", "tin_avg_delay_seconds", M_US,
	    "Average sojourn time, EWMA (tc: av_delay)." },
	{ M_TIN, "base_delay_us", "tin_sparse_delay_seconds", M_US,
	    "Sparse-flow sojourn time, EWMA (tc: sp_delay)." },
	{ M_TIN, "backlog_bytes", "tin_backlog_bytes", 0,
	    "Bytes queued in the tin now (tc: backlog)." },
	{ M_TIN, "sent_packets", "tin_packets_total", C,
	    "Packets counted at enqueue (tc: pkts)." },
	{ M_TIN, "sent_bytes", "tin_bytes_total", C,
	    "Bytes counted at enqueue (tc: bytes)." },
	{ M_TIN, "way_indirect_hits", "tin_way_indirect_hits_total", C,
	    "Flow lookups found in another way of the set (tc: way_inds)." },
	{ M_TIN, "way_misses", "tin_way_misses_total", C,
	    "Flow lookups that took an empty queue (tc: way_miss)." },
	{ M_TIN, "way_collisions", "tin_way_collisions_total", C,
	    "Flow lookups that had to share a queue (tc: way_cols)." },
	{ M_TIN, "drops", "tin_dropped_packets_total", C,
	    "Packets dropped by AQM or overflow (tc: drops)." },
	{ M_TIN, "ecn_mark", "tin_ecn_marked_packets_total", C,
	    "Packets ECN CE-marked (tc: marks)." },
	{ M_TIN, "ack_drops", "tin_ack_dropped_packets_total", C,
	    "Pure ACKs dropped by the ACK filter (tc: ack_drop)." },
	{ M_TIN, "sparse_flows", "tin_sparse_flows", 0,
	    "Sparse and decaying flows (tc: sp_flows)." },
	{ M_TIN, "bulk_flows", "tin_bulk_flows", 0,
	    "Bulk flows (tc: bk_flows)." },
	{ M_TIN, "unresponsive_flows", "tin_unresponsive_flows", 0,
	    "Flows with a BLUE drop probability above 0 (tc: un_flows)." },
	{ M_TIN, "max_pkt_len", "tin_max_packet_bytes", 0,
	    "Largest packet seen (tc: max_len)." },
	{ M_TIN, "flow_quantum", "tin_flow_quantum_bytes", 0,
	    "DRR quantum of the tin (tc: quantum)." },
	{ M_IO, "rx_packets", "device_rx_packets_total", C,
	    "Frames read from the ingress device (caked only)." },
	{ M_IO, "rx_bytes", "device_rx_bytes_total", C,
	    "Bytes read from the ingress device (caked only)." },
	{ M_IO, "rx_nobuf", "device_rx_nobuf_total", C,
	    "Frames discarded: buffer pool empty (caked only)." },
	{ M_IO, "rx_oversize", "device_rx_oversize_total", C,
	    "Frames discarded: larger than a buffer (caked only)." },
	{ M_IO, "rx_empty", "device_rx_empty_total", C,
	    "Zero-length reads (caked only)." },
	{ M_IO, "rx_truncated", "device_rx_truncated_total", C,
	    "Frames with truncated headers, queued unparsed (caked only)." },
	{ M_IO, "rx_malformed", "device_rx_malformed_total", C,
	    "Malformed frames, queued unparsed (caked only)." },
	{ M_IO, "rx_non_ip", "device_rx_non_ip_total", C,
	    "Well-formed non-IP frames (caked only)." },
	{ M_IO, "rx_errors", "device_rx_errors_total", C,
	    "Failed reads (caked only)." },
	{ M_IO, "tx_packets", "device_tx_packets_total", C,
	    "Frames written to the egress device (caked only)." },
	{ M_IO, "tx_bytes", "device_tx_bytes_total", C,
	    "Bytes written to the egress device (caked only)." },
	{ M_IO, "tx_blocked", "device_tx_blocked_total", C,
	    "Writes refused by a full device, packet kept (caked only)." },
	{ M_IO, "tx_coalesced", "device_tx_coalesced_total", C,
	    "Segments glued into super-packets on write (caked only)." },
	{ M_IO, "tx_errors", "device_tx_errors_total", C,
	    "Failed writes, packet dropped (caked only)." },
	{ M_IO, "too_big", "device_too_big_total", C,
	    "Packets larger than the egress MTU, still written (caked only)." },
	{ M_IO, "rtt_samples_dropped", "rtt_samples_dropped_total", C,
	    "TCP timestamp samples lost: the ring to the passive delay "
	    "table was full (threads = 2; caked only)." },
	{ M_DROP, "aqm", "engine_drops_total", C,
	    "Packets the engine dropped, by reason (tc: drops, ack_drop)." },
	{ M_DROP, "overlimit", "engine_drops_total", C, NULL },
	{ M_DROP, "ack_filter", "engine_drops_total", C, NULL },
	{ M_DROP, "gso_fail", "engine_drops_total", C, NULL },
	{ M_DROP, "tin_gone", "engine_drops_total", C, NULL },
	{ M_DROP, "flush", "engine_drops_total", C, NULL },
	{ M_POOL, "buffers", "pool_buffers", 0,
	    "Packet buffers in the pool (caked only)." },
	{ M_POOL, "buffer_bytes", "pool_buffer_bytes", 0,
	    "Data bytes per buffer (caked only)." },
	{ M_POOL, "free", "pool_free_buffers", 0,
	    "Buffers free now (caked only)." },
	{ M_POOL, "min_free", "pool_min_free_buffers", 0,
	    "Lowest free count seen (caked only)." },
	{ M_POOL, "exhausted", "pool_exhausted_total", C,
	    "Buffer requests that found none free (caked only)." },
	{ M_POOL, "large_buffers", "pool_large_buffers", 0,
	    "Large (GSO) buffers in the pool (caked only)." },
	{ M_POOL, "large_buffer_bytes", "pool_large_buffer_bytes", 0,
	    "Data bytes per large buffer (caked only)." },
	{ M_POOL, "large_free", "pool_large_free_buffers", 0,
	    "Large buffers free now (caked only)." },
	{ M_POOL, "large_min_free", "pool_large_min_free_buffers", 0,
	    "Lowest large free count seen (caked only)." },
	{ M_POOL, "large_exhausted", "pool_large_exhausted_total", C,
	    "Large buffer requests that found none free (caked only)." },
	{ M_AR, "rate", "autorate_rate_bytes_per_second", 0,
	    "Rate autorate has set (caked only)." },
	{ M_AR, "min", "autorate_min_bytes_per_second", 0,
	    "Lowest rate autorate may set (caked only)." },
	{ M_AR, "base", "autorate_base_bytes_per_second", 0,
	    "Rate autorate starts from and drifts to (caked only)." },
	{ M_AR, "max", "autorate_max_bytes_per_second", 0,
	    "Highest rate autorate may set (caked only)." },
	{ M_AR, "achieved", "autorate_achieved_bytes_per_second", 0,
	    "Rate achieved, smoothed (caked only)." },
	{ M_AR, "load_pct", "autorate_load_ratio", M_PCT,
	    "Achieved rate over the rate set (caked only)." },
	{ M_AR, "delivered", "autorate_delivered_bytes_per_second",
	    M_NEG_NONE, "Rate the bottleneck delivered, while known "
	    "(caked only)." },
	{ M_AR, "delay_us", "autorate_delay_seconds", M_US | M_NEG_NONE,
	    "Path delay over the reflectors' baselines (caked only)." },
	{ M_AR, "threshold_us", "autorate_threshold_seconds", M_US,
	    "Extra delay that makes autorate cut (caked only)." },
	{ M_AR, "queue_delay_us", "autorate_queue_delay_seconds", M_US,
	    "Delay of caked's own queue (caked only)." },
	{ M_AR, "rises", "autorate_rises_total", C,
	    "Rate increases (caked only)." },
	{ M_AR, "cuts", "autorate_cuts_total", C,
	    "Rate cuts on delay (caked only)." },
	{ M_AR, "drifts", "autorate_drifts_total", C,
	    "Drifts toward the base rate when idle (caked only)." },
	{ M_AR, "stalls", "autorate_stalls_total", C,
	    "Ticks without any reflector reply (caked only)." },
	{ M_AR, "signal", "autorate_signal_info", M_LABEL,
	    "Delay signal in use: owd, passive, echo or none (always 1)." },
	{ M_AR, "echo_delay_us", "autorate_echo_delay_seconds",
	    M_US | M_NEG_NONE,
	    "Round trips over their baselines; none if stale (caked only)." },
	{ M_AR, "owd_delay_us", "autorate_owd_delay_seconds",
	    M_US | M_NEG_NONE,
	    "This direction's one-way delay over its baseline (caked only)." },
	{ M_AR, "passive_delay_us", "autorate_passive_delay_seconds",
	    M_US | M_NEG_NONE,
	    "Passive TCP RTT over its baseline (caked only)." },
	{ M_AR, "passive_baseline_us", "autorate_passive_baseline_seconds",
	    M_US | M_ZERO_NONE, "Passive TCP RTT baseline (caked only)." },
	{ M_AR, "idle", "autorate_idle", M_BOOL,
	    "Whether probing is at the idle rate (caked only)." },
	{ M_AR, "probe_interval_us", "autorate_probe_interval_seconds", M_US,
	    "Time between two probe rounds now (caked only)." },
	{ M_AR, "reflector_replacements",
	    "autorate_reflector_replacements_total", C,
	    "Reflectors replaced from the pool (caked only)." },
	{ M_AR, "probes_sent", "autorate_probes_sent_total", C,
	    "Delay probes sent (caked only)." },
	{ M_AR, "probe_replies", "autorate_probe_replies_total", C,
	    "Delay probe replies (caked only)." },
	{ M_AR, "probe_kernel_stamps", "autorate_probe_kernel_stamps_total", C,
	    "Probe replies timed by the kernel (caked only)." },
	{ M_AR, "probe_send_errors", "autorate_probe_send_errors_total", C,
	    "Probes that could not be sent (caked only)." },
	{ M_AR, "probe_unmatched", "autorate_probe_unmatched_total", C,
	    "Replies not ours or too late (caked only)." },
	{ M_REFL, "baseline_us", "reflector_baseline_seconds", M_US,
	    "Reflector's baseline round-trip time (caked only)." },
	{ M_REFL, "delta_us", "reflector_delta_seconds", M_US,
	    "Reflector's RTT above its baseline (caked only)." },
	{ M_REFL, "rtt_us", "reflector_rtt_seconds", M_US,
	    "Reflector's last round-trip time (caked only)." },
	{ M_REFL, "replies", "reflector_replies_total", C,
	    "Replies from the reflector (caked only)." },
	{ M_REFL, "active", "reflector_active", M_BOOL,
	    "Whether the reflector is probed now (caked only)." },
	{ M_REFL, "kind", "reflector_kind_info", M_LABEL,
	    "Probe sent to it: echo or timestamp (always 1)." },
	{ M_REFL, "recent_us", "reflector_recent_seconds", M_US,
	    "Reflector's recent round-trip time (caked only)." },
	{ M_REFL, "owd_up_delta_us", "reflector_owd_up_delta_seconds",
	    M_US | M_NEG_NONE,
	    "One-way delay out over its baseline (caked only)." },
	{ M_REFL, "owd_down_delta_us", "reflector_owd_down_delta_seconds",
	    M_US | M_NEG_NONE,
	    "One-way delay back over its baseline (caked only)." },
	{ M_REFL, "sent", "reflector_probes_sent_total", C,
	    "Probes sent to the reflector (caked only)." },
	{ M_REFL, "lost", "reflector_lost_total", C,
	    "Probes unanswered when the next one left (caked only)." },
	{ M_HOSTS, "tracked", "hosts_tracked", 0,
	    "Hosts with per-host counters now (caked only)." },
	{ M_HOSTS, "tracked_max", "hosts_tracked_max", 0,
	    "Hosts the per-host table holds at most (caked only)." },
	{ M_HOSTS, "evictions", "hosts_evicted_total", C,
	    "Per-host entries given to a new host; the old host's counters "
	    "restart if it returns (caked only)." },
	{ M_HOST, "sent_bytes", "host_sent_bytes_total", C,
	    "Bytes sent for the host (source in upload, destination in "
	    "download, pre-NAT), busiest hosts only (caked only)." },
	{ M_HOST, "sent_packets", "host_sent_packets_total", C,
	    "Packets sent for the host, busiest hosts only (caked only)." },
	{ M_HOST, "drops", "host_dropped_packets_total", C,
	    "Packets of the host dropped by the engine, busiest hosts only "
	    "(caked only)." },
	{ M_PAS, "delay_us", "passive_delay_seconds", M_US | M_NEG_NONE,
	    "Extra delay of this direction beyond caked, from TCP "
	    "timestamps; no sample when stale (caked only)." },
	{ M_PAS, "baseline_us", "passive_rtt_baseline_seconds",
	    M_US | M_ZERO_NONE,
	    "Lowest baseline round trip beyond caked of the flows sampled "
	    "(caked only)." },
	{ M_PAS, "recent_us", "passive_rtt_recent_seconds", M_US | M_NEG_NONE,
	    "Baseline plus this direction's extra delay (caked only)." },
	{ M_PAS, "samples", "passive_delay_samples_total", C,
	    "Delay samples taken for this direction (caked only)." },
	{ M_PAS, "flows", "passive_flows_sampled", 0,
	    "TCP flows that gave a round trip in the last second "
	    "(caked only)." },
	{ M_PASG, "segments", "passive_segments_total", C,
	    "TCP segments with a timestamp option seen (caked only)." },
	{ M_PASG, "no_timestamp", "passive_no_timestamp_total", C,
	    "TCP segments without a timestamp option (caked only)." },
	{ M_PASG, "bad_options", "passive_bad_options_total", C,
	    "TCP segments with malformed options, ignored (caked only)." },
	{ M_PASG, "rtt_samples", "passive_rtt_samples_total", C,
	    "Round trips measured, LAN and WAN side (caked only)." },
	{ M_PASG, "retransmissions", "passive_retransmissions_total", C,
	    "Retransmitted segments, which give no sample (caked only)." },
	{ M_PASG, "expired", "passive_expired_total", C,
	    "Timestamps never echoed in time (caked only)." },
	{ M_PASG, "evictions", "passive_evictions_total", C,
	    "Live flows pushed out of the full table (caked only)." },
	{ M_PASG, "clocks_unknown", "passive_clocks_unknown_total", C,
	    "Remote timestamp clocks of no known rate (caked only)." },
	{ M_PASG, "flows_max", "passive_flows_max", 0,
	    "Flows the passive table holds at most (caked only)." },
	{ M_CONTROL, "clients", "control_clients", 0,
	    "Control clients connected now." },
	{ M_CONTROL, "clients_max", "control_clients_max", 0,
	    "Control clients served at most at once." },
	{ M_CONTROL, "accepted", "control_accepted_total", C,
	    "Control connections accepted." },
	{ M_CONTROL, "refused_busy", "control_refused_total", C,
	    "Control connections refused: too many clients." },
	{ M_CONTROL, "requests", "control_requests_total", C,
	    "Control requests answered." },
	{ M_CONTROL, "denied", "control_denied_total", C,
	    "Control requests denied: not permitted." },
	{ M_CONTROL, "too_long", "control_too_long_total", C,
	    "Control requests over the line limit." },
	{ M_CONTROL, "slow_closed", "control_slow_closed_total", C,
	    "Control clients closed for not reading a reply." },
	{ M_CONTROL, "idle_closed", "control_idle_closed_total", C,
	    "Control clients closed for idling." },
	{ M_CONTROL, "accept_pauses", "control_accept_pauses_total", C,
	    "Times accept was paused for lack of descriptors." },
	{ M_NAT, "cache_entries", "nat_cache_entries", 0,
	    "NAT cache entries now." },
	{ M_NAT, "cache_size", "nat_cache_size_entries", 0,
	    "NAT cache capacity." },
	{ M_NAT, "hits", "nat_cache_hits_total", C, "NAT cache hits." },
	{ M_NAT, "misses", "nat_cache_misses_total", C, "NAT cache misses." },
	{ M_NAT, "negative_hits", "nat_cache_negative_hits_total", C,
	    "NAT cache hits on a recent miss: header addresses used." },
	{ M_NAT, "evictions", "nat_cache_evictions_total", C,
	    "NAT cache entries evicted when full." },
	{ M_NAT, "expiries", "nat_cache_expiries_total", C,
	    "NAT cache entries expired." },
	{ M_NAT, "inserts", "nat_cache_inserts_total", C,
	    "NAT cache entries added." },
	{ M_NAT, "updates", "nat_cache_updates_total", C,
	    "NAT cache entries rewritten." },
	{ M_NAT, "removals", "nat_cache_removals_total", C,
	    "NAT cache entries removed: connection destroyed." },
	{ M_NAT, "events", "conntrack_events_total", C,
	    "Conntrack events received." },
	{ M_NAT, "queries", "conntrack_queries_total", C,
	    "Conntrack queries sent on cache misses." },
	{ M_NAT, "answers", "conntrack_answers_total", C,
	    "Conntrack queries answered with a connection." },
	{ M_NAT, "not_found", "conntrack_not_found_total", C,
	    "Conntrack queries that found no connection." },
	{ M_NAT, "query_failures", "conntrack_query_failures_total", C,
	    "Conntrack queries failed." },
	{ M_NAT, "query_skipped", "conntrack_query_skipped_total", C,
	    "Conntrack queries skipped: rate, in-flight cap or back-off." },
	{ M_NAT, "query_timeouts", "conntrack_query_timeouts_total", C,
	    "Conntrack queries unanswered within a second." },
	{ M_NAT, "parse_errors", "conntrack_parse_errors_total", C,
	    "Conntrack messages that could not be parsed." },
	{ M_NAT, "enobufs", "conntrack_enobufs_total", C,
	    "Conntrack event socket overruns." },
	{ M_NAT, "in_flight", "conntrack_queries_in_flight", 0,
	    "Conntrack queries awaiting an answer now." },
	{ M_NATLOST, "inbox_lost_news", "nat_inbox_lost_total", C,
	    "NAT messages lost to a full packet-thread inbox: conntrack "
	    "news to a thread, or a thread's questions to main "
	    "(threads = 2; caked only)." },
	{ M_NATLOST, "inbox_lost_asks", "nat_inbox_lost_total", C, NULL },
	{ M_DAEMON, "reloads", "config_reloads_total", C,
	    "Configuration reloads that succeeded." },
	{ M_DAEMON, "reload_failures", "config_reload_failures_total", C,
	    "Configuration reloads that failed (old one kept)." },
	{ M_DAEMON, "last_reload_ok", "config_last_reload_successful", 0,
	    "Whether the last reload (or the start) succeeded." },
	{ M_DAEMON, "last_reload_ok_time_ns",
	    "config_last_reload_success_timestamp_seconds", M_NS,
	    "Time of the last successful reload or of the start." },
	{ M_DAEMON, "timer_spins", "timer_spins_total", C,
	    "Timer re-arms for an engine that idled early." },
	{ M_DAEMON, "http_requests", "http_requests_total", C,
	    "Requests to the metrics endpoint, every status." },
	{ M_DAEMON, "http_refused", "http_refused_total", C,
	    "Metrics connections refused: too many at once." },
	{ M_DAEMON, "http_renders", "http_renders_total", C,
	    "Expositions rendered (scrapes close together share one)." },
};
#undef C

/*
 * Numeric members not exported, and why. Everything else a reply holds is
 * a metric (test_metrics checks that the two tables cover a full reply).
 */
static const char *const metrics_omitted[] = {
	/* The protocol version: a property of the reply, not of caked. */
	CTL_KEY_VERSION,
	/* The scrape has its own time stamp; uptime is exported. */
	CTL_KEY_TIME_NS,
};

#define METRICS_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

int
metrics_path(const char *path)
{
	const struct metrics_def	*m;
	const char			*pre;
	size_t				 i, n;

	for (i = 0; i < METRICS_NITEMS(metrics_omitted); i++)
		if (strcmp(path, metrics_omitted[i]) == 0)
			return METRICS_OMITTED;
	for (i = 0; i < METRICS_NITEMS(metrics_table); i++) {
		m = &metrics_table[i];
		pre = metrics_scopes[m->scope].prefix;
		n = strlen(pre);
		if (strncmp(path, pre, n) == 0 &&
		    strcmp(path + n, m->key) == 0)
			return METRICS_EXPORTED;
	}
	return METRICS_UNKNOWN;
}

/* A label value: snake case ("Best Effort" -> "best_effort"). */
static void
metrics_snake(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s >= 'A' && *s <= 'Z')
			fputc(*s - 'A' + 'a', fp);
		else if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			fputc(*s, fp);
		else
			fputc('_', fp);
	}
}

/* A label value as it is, with \, " and newline escaped. */
static void
metrics_escape(FILE *fp, const char *s)
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

/* Labels of one sample; NULL members are left out. */
struct metrics_labels {
	const char	*dir;
	const char	*tin;
	const char	*reason;
	const char	*reflector;
	const char	*host;
	const char	*key;		/* M_LABEL, M_NATLOST: key="value" */
	const char	*value;
};

/* One label name="value" after *sep, the value written by put. */
static void
metrics_label(FILE *fp, const char **sep, const char *name,
    const char *value, void (*put)(FILE *, const char *))
{
	if (value == NULL)
		return;
	fprintf(fp, "%s%s=\"", *sep, name);
	put(fp, value);
	fputc('"', fp);
	*sep = ",";
}

static void
metrics_labels(FILE *fp, const struct metrics_labels *lb)
{
	const char	*sep = "{";

	metrics_label(fp, &sep, "direction", lb->dir, metrics_escape);
	metrics_label(fp, &sep, "tin", lb->tin, metrics_snake);
	/* a reason is a key of the table: escaping leaves it as it is */
	metrics_label(fp, &sep, "reason", lb->reason, metrics_escape);
	metrics_label(fp, &sep, "reflector", lb->reflector, metrics_escape);
	metrics_label(fp, &sep, "host", lb->host, metrics_escape);
	if (lb->key != NULL)
		metrics_label(fp, &sep, lb->key, lb->value, metrics_escape);
	if (sep[0] == ',')
		fputc('}', fp);
}

/* Prints v scaled down by div (10^k) with k decimals, sign kept. */
static void
metrics_scaled(FILE *fp, bool neg, uint64_t v, uint64_t div, int k)
{
	fprintf(fp, " %s%" PRIu64 ".%0*" PRIu64 "\n", neg ? "-" : "",
	    v / div, k, v % div);
}

/* A boolean (1 or 0) or a string (1, labelled) sample of m. */
static void
metrics_other(FILE *fp, const struct metrics_def *m,
    const struct json_value *v, const struct metrics_labels *lb)
{
	struct metrics_labels	l = *lb;

	if ((m->flags & M_BOOL) && v->type == JSON_BOOL) {
		fprintf(fp, "caked_%s", m->name);
		metrics_labels(fp, lb);
		fprintf(fp, " %d\n", v->b ? 1 : 0);
	} else if ((m->flags & M_LABEL) && v->type == JSON_STRING &&
	    v->str != NULL) {
		l.key = m->key;
		l.value = v->str;
		fprintf(fp, "caked_%s", m->name);
		metrics_labels(fp, &l);
		fprintf(fp, " 1\n");
	}
}

/* One sample of m from obj, if obj has the member as an integer. */
static void
metrics_sample(FILE *fp, const struct metrics_def *m,
    const struct json_value *obj, const struct metrics_labels *lb)
{
	const struct json_value	*v = json_get(obj, m->key);
	const char		*s;
	char			*end;
	uint64_t		 u;
	bool			 neg;

	if (v != NULL && (m->flags & (M_BOOL | M_LABEL))) {
		metrics_other(fp, m, v, lb);
		return;
	}
	if (v == NULL || v->type != JSON_NUMBER || v->str == NULL)
		return;
	s = v->str;
	if ((neg = *s == '-'))
		s++;
	u = strtoull(s, &end, 10);
	if (*end != '\0' || (neg && (m->flags & M_NEG_NONE)) ||
	    (u == 0 && (m->flags & M_ZERO_NONE)))
		return;
	fprintf(fp, "caked_%s", m->name);
	metrics_labels(fp, lb);
	if (m->flags & M_US)
		metrics_scaled(fp, neg, u, 1000000, 6);
	else if (m->flags & M_NS)
		metrics_scaled(fp, neg, u, 1000000000, 9);
	else if (m->flags & M_PCT)
		metrics_scaled(fp, neg, u, 100, 2);
	else
		fprintf(fp, " %s%" PRIu64 "\n", neg ? "-" : "", u);
}

/* The samples of m for each host of a "busiest" array a (may be NULL). */
static void
metrics_hosts(FILE *fp, const struct metrics_def *m,
    const struct json_value *a, struct metrics_labels *lb)
{
	const struct json_value	*e;

	for (e = a != NULL ? a->child : NULL; e != NULL; e = e->next) {
		if ((lb->host = json_get_str(e, CTL_KEY_ADDRESS)) != NULL)
			metrics_sample(fp, m, e, lb);
	}
}

/* The samples of m in direction d. */
static void
metrics_dir(FILE *fp, const struct metrics_def *m,
    const struct json_value *d)
{
	const struct json_value	*o, *e;
	const char		*obj = metrics_scopes[m->scope].object;
	struct metrics_labels	 lb = { d->key, NULL, NULL, NULL, NULL, NULL,
	    NULL };

	o = obj != NULL ? json_get(d, obj) : d;
	switch (m->scope) {
	case M_TIN:
		if ((o = json_get(d, CTL_KEY_TINS)) == NULL)
			break;
		for (e = o->child; e != NULL; e = e->next) {
			lb.tin = json_get_str(e, CTL_KEY_NAME);
			lb.tin = lb.tin != NULL ? lb.tin : "?";
			metrics_sample(fp, m, e, &lb);
		}
		break;
	case M_DROP:
		lb.reason = m->key;
		metrics_sample(fp, m, json_get(o, "drops"), &lb);
		break;
	case M_REFL:
		o = json_get(o, "reflectors");
		for (e = o != NULL ? o->child : NULL; e != NULL; e = e->next) {
			lb.reflector = json_get_str(e, CTL_KEY_ADDRESS);
			lb.reflector = lb.reflector != NULL ? lb.reflector :
			    "?";
			metrics_sample(fp, m, e, &lb);
		}
		break;
	case M_HOST:
		metrics_hosts(fp, m, json_get(o, "busiest"), &lb);
		break;
	default:
		metrics_sample(fp, m, o, &lb);
		break;
	}
}

static void
metrics_one(FILE *fp, const struct metrics_def *m,
    const struct json_value *reply)
{
	const struct json_value		*d;
	struct metrics_labels		 lb = { 0 };

	if (m->help != NULL) {
		fprintf(fp, "# HELP caked_%s %s\n", m->name, m->help);
		fprintf(fp, "# TYPE caked_%s %s\n", m->name,
		    (m->flags & M_COUNTER) ? "counter" : "gauge");
	}
	if (m->scope == M_NATLOST) {
		lb.key = "kind";
		lb.value = strrchr(m->key, '_') + 1;
	}
	if (m->scope == M_TOP) {
		metrics_sample(fp, m, reply, &lb);
		return;
	}
	if (m->scope >= M_CONTROL) {
		metrics_sample(fp, m, json_get(reply,
		    metrics_scopes[m->scope].object), &lb);
		return;
	}
	d = json_get(reply, CTL_KEY_DIRECTIONS)->child;
	for (; d != NULL; d = d->next)
		metrics_dir(fp, m, d);
}

/* caked_build_info and the conntrack state, both "info" gauges of 1. */
static void
metrics_info(FILE *fp, const struct json_value *reply)
{
	const char	*s;

	s = json_get_str(json_get(reply, "daemon"), "version");
	fprintf(fp, "# HELP caked_build_info Version of caked (always 1).\n"
	    "# TYPE caked_build_info gauge\n"
	    "caked_build_info{version=\"");
	metrics_escape(fp, s != NULL ? s : "unknown");
	fprintf(fp, "\"} 1\n");
	if ((s = json_get_str(json_get(reply, "nat"), "conntrack")) == NULL)
		return;
	fprintf(fp, "# HELP caked_conntrack_info Conntrack state: ok, "
	    "degraded or unavailable (always 1).\n"
	    "# TYPE caked_conntrack_info gauge\n"
	    "caked_conntrack_info{state=\"");
	metrics_snake(fp, s);
	fprintf(fp, "\"} 1\n");
}

/* Whether any sample of m's scope can exist (its object is present). */
static bool
metrics_present(const struct metrics_def *m, const struct json_value *reply)
{
	const struct json_value	*d;
	const char		*obj;

	if (m->scope == M_NATLOST)	/* threads = 2 only */
		return json_get(json_get(reply, "nat"), m->key) != NULL;
	if ((obj = metrics_scopes[m->scope].object) == NULL)
		return true;
	if (m->scope >= M_CONTROL)
		return json_get(reply, obj) != NULL;
	d = json_get(reply, CTL_KEY_DIRECTIONS)->child;
	for (; d != NULL; d = d->next)
		if (json_get(d, obj) != NULL)
			return true;
	return false;
}

int
metrics_render(FILE *fp, const struct json_value *reply)
{
	const struct json_value	*dirs;
	size_t			 i, j;

	dirs = json_get(reply, CTL_KEY_DIRECTIONS);
	if (dirs == NULL || dirs->type != JSON_OBJECT)
		return -1;
	metrics_info(fp, reply);
	for (i = 0; i < METRICS_NITEMS(metrics_table); i = j) {
		/* A family: this entry and the next ones of its name. */
		for (j = i + 1; j < METRICS_NITEMS(metrics_table) &&
		    metrics_table[j].help == NULL; j++)
			;
		if (!metrics_present(&metrics_table[i], reply))
			continue;
		for (; i < j; i++)
			metrics_one(fp, &metrics_table[i], reply);
	}
	return 0;
}
