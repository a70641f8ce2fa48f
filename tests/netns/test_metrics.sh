#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_metrics: caked's own Prometheus endpoint (metrics-listen), behind a
# NAT gateway with autorate on, so that every family has samples.
#
#  1. GET /metrics answers 200 with an exposition that passes
#     `promtool check metrics` and has the build, reload, autorate,
#     reflector, NAT cache and device I/O families and snake-case tin
#     labels; other paths get 404, other methods 405, oversized headers
#     are refused, malformed requests get 400, and caked keeps serving.
#     The busiest-host family counts the upload under the client's
#     pre-NAT address, at most 16 hosts a direction.
#     `cakectl -j stats --tc` prints each direction with the keys and
#     value types of real tc output for cake (golden/tc/cake.json).
#     `cakectl -j watch` writes one compact line a second with time_ns
#     and no screen-control codes, even on a terminal.
#  2. Every numeric leaf of the live `stats` reply is in the captured full
#     reply tests/unit/golden/ctl/stats-daemon.json, whose leaves
#     test_metrics (unit) checks against the metric and omission tables.
#     CAKED_GOLDEN_CAPTURE=FILE writes the live reply there (to refresh it).
#  3. Scraping never delays the packet path: one TCP upload at 20 Mbit with
#     a 20 Hz ping, alone and then while 50 keep-alive clients each scrape
#     20 times a second (1000 scrapes/s): goodput within 2 % and ping
#     median within 1 ms of the run without scraping (a pair of runs that
#     misses is run once more, and the second asserted). The scraper is one
#     C process with a poll() loop (tests/netns/scrape), light enough not
#     to be starved of CPU (or to starve caked) on a loaded machine.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss nft
netns_require_caked
command -v promtool >/dev/null 2>&1 ||
    skip "promtool (Debian package prometheus) is not installed"
netns_require_cakectl
SCRAPE=${SCRAPE:-$top_builddir/tests/netns/scrape}
[ -x "$SCRAPE" ] || skip "scrape not built at $SCRAPE"
GOLDEN=$top_srcdir/tests/unit/golden/ctl/stats-daemon.json
SOCK=$NETNS_TMP/caked.sock
PORT=9464
SECS=${METRICS_SECS:-15}
ctl() { "$CAKECTL" -s "$SOCK" "$@"; }
http() { ip netns exec "$NS_R" "$SCRAPE" one 127.0.0.1 "$PORT" "$@"; }
# raw TEXT: sends TEXT (printf format) as the whole request; prints the status.
raw() { printf "$1" | ip netns exec "$NS_R" "$SCRAPE" raw 127.0.0.1 "$PORT"; }

netns_topo_nat

# metrics_start UPLOAD_LINES: caked with /metrics on the router's loopback.
metrics_start()
{
	FWD_CONF=$NETNS_TMP/caked.conf
	{
		printf '[general]\nmode = tap\nlan = %s\nwan = %s\n' \
		    "$LAN_DEV" "$WAN_DEV"
		printf 'control = %s\nmetrics-listen = 127.0.0.1:%s\n' \
		    "$SOCK" "$PORT"
		printf 'autorate-reflectors = %s\nautorate-interval = 100ms\n' \
		    "$SERVER_IP"
		printf '[upload]\n%s\n' "$1"
		printf '[download]\noptions = "bandwidth 20mbit nat ingress"\n'
	} >"$FWD_CONF"
	"$CAKED" -t -c "$FWD_CONF" >"$NETNS_TMP/check.log" 2>&1 || {
		cat "$NETNS_TMP/check.log"
		fail "caked -t rejected the config"
	}
	rm -f "$SOCK"
	ip netns exec "$NS_R" "$CAKED" -c "$FWD_CONF" \
	    >>"$NETNS_TMP/fwd.log" 2>&1 9>&- &
	FWD_PID=$!
	netns_track "$FWD_PID"
	for i in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
	[ -S "$SOCK" ] || fail "caked did not start"
	netns_wait_ping || fail "no connectivity through caked"
}

# leaves FILE: the paths of a stats reply's numeric leaves, one a line,
# directions as "*" and array elements as "[]" (as metrics_path() takes).
leaves()
{
	jq -r '[paths(type == "number") |
	    (if .[0] == "directions" then .[1] = "*" else . end) |
	    reduce .[] as $k (""; if ($k | type) == "number" then . + "[]"
	    elif . == "" then $k else . + "." + $k end)] | unique | .[]' "$1"
}

# ---- 1 and 2: the endpoint, with autorate and NAT on -----------------------
netns_iperf_server
metrics_start 'options = "bandwidth 20mbit nat dual-srchost"
autorate = yes
autorate-min = 5mbit
autorate-base = 20mbit
autorate-max = 30mbit'
netns_iperf "$NETNS_TMP/warm.json" 3 >/dev/null
sleep 1

http GET /metrics >"$NETNS_TMP/scrape.txt"
status=$(head -n 1 "$NETNS_TMP/scrape.txt")
sed 1d "$NETNS_TMP/scrape.txt" >"$NETNS_TMP/metrics.prom"
check "GET /metrics status" "$status" eq 200
if promtool check metrics <"$NETNS_TMP/metrics.prom" \
    >"$NETNS_TMP/promtool.txt" 2>&1; then
	check "promtool check metrics findings" 0 eq 0
else
	cat "$NETNS_TMP/promtool.txt"
	check "promtool check metrics findings" \
	    "$(wc -l <"$NETNS_TMP/promtool.txt")" eq 0
fi
for fam in 'caked_build_info{version=' 'caked_config_last_reload_successful 1' \
    caked_config_last_reload_success_timestamp_seconds \
    'caked_autorate_rate_bytes_per_second{direction="upload"}' \
    'caked_autorate_cuts_total{direction="upload"}' \
    'caked_reflector_rtt_seconds{direction="upload",reflector="10.204.0.2"}' \
    'caked_reflector_replies_total{direction="upload"' \
    caked_nat_cache_entries caked_conntrack_queries_total \
    'caked_device_rx_packets_total{direction="upload"}' \
    'caked_pool_exhausted_total{direction="download"}' \
    'caked_device_tx_coalesced_total{direction="upload"}' \
    'tin="best_effort"' caked_uptime_seconds; do
	n=$(grep -cF "$fam" "$NETNS_TMP/metrics.prom")
	check "samples of $fam" "$n" ge 1
done
check "per-flow labels" \
    "$(grep -cE '(src|dst|flow|address)=' "$NETNS_TMP/metrics.prom")" eq 0
# Host shares: the client's upload under its pre-NAT address (conntrack),
# nearly all of the direction's bytes, and the series bounded.
prom_value() { grep -F "$1" "$NETNS_TMP/metrics.prom" | awk '{ print $2 }'; }
hb=$(prom_value \
    "caked_host_sent_bytes_total{direction=\"upload\",host=\"$CLIENT_IP\"}")
sb=$(prom_value 'caked_sent_bytes_total{direction="upload"}')
log "upload: $CLIENT_IP sent ${hb:-none} of ${sb:-?} bytes"
check "upload bytes of $CLIENT_IP (pre-NAT) / all upload bytes" \
    "$(ratio "${hb:-0}" "${sb:-1}")" ge 0.9
check "download samples of host $CLIENT_IP" "$(grep -cF \
    "caked_host_sent_bytes_total{direction=\"download\",host=\"$CLIENT_IP\"}" \
    "$NETNS_TMP/metrics.prom")" eq 1
for d in upload download; do
	check "$d host series per family (at most 16)" "$(grep -E \
	    "^caked_host_[a-z_]+\\{direction=\"$d\",host=" \
	    "$NETNS_TMP/metrics.prom" | sed 's/{.*//' | sort | uniq -c |
	    awk '{ if ($1 > m) m = $1 } END { print m + 0 }')" le 16
done
up=$(grep '^caked_device_rx_packets_total{direction="upload"}' \
    "$NETNS_TMP/metrics.prom" | awk '{ print $2 }')
check "upload packets read, as scraped" "${up:-0}" gt 1000

check "GET /other status" "$(http GET /other | head -n 1)" eq 404
check "POST /metrics status" "$(http POST /metrics | head -n 1)" eq 405
check "DELETE /metrics status" "$(http DELETE /metrics | head -n 1)" eq 405
check "HEAD /metrics status" "$(http HEAD /metrics | head -n 1)" eq 200
big=$(http GET /metrics 20000 | head -n 1)
log "GET /metrics with 20 kB of headers: $big"
check "20 kB of headers refused (status or close)" \
    "$([ "$big" != 200 ] && echo 1 || echo 0)" eq 1
# Malformed requests: a clear 400 (or a close), never a crash.
for req in 'BROKEN\r\n\r\n' 'GET /metrics HTTP/9.9\r\n\r\n' \
    'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n' \
    'GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n' \
    'GET \001\377 HTTP/1.1\r\nConnection: close\r\n\r\n'; do
	st=$(raw "$req")
	log "$(printf '%s' "$req" | head -c 40): $st"
	check "malformed request answered with 4xx or closed" \
	    "$(case $st in 2*) echo 0 ;; *) echo 1 ;; esac)" eq 1
done
# Escaped bytes in a query: ignored (200) or refused, as evhttp decides.
st=$(raw 'GET /metrics?host=%%00%%0a%%22 HTTP/1.1\r\nHost: x\r\n'\
'Connection: close\r\n\r\n')
log "GET /metrics?host=%00%0a%22: $st"
check "a query with escaped NUL, newline, quote: 200 or 400" \
    "$(case $st in 200|400) echo 1 ;; *) echo 0 ;; esac)" eq 1
check "caked still serves after bad requests" \
    "$(http GET /metrics | head -n 1)" eq 200
check "caked still running after bad requests" \
    "$(kill -0 "$FWD_PID" 2>/dev/null && echo 1 || echo 0)" eq 1
check "host family after bad requests" "$(http GET /metrics |
    grep -c "^caked_host_sent_bytes_total{direction=\"upload\",host=")" ge 1

ctl -j stats >"$NETNS_TMP/stats.json" || fail "cakectl stats"
if [ -n "${CAKED_GOLDEN_CAPTURE:-}" ]; then
	cp "$NETNS_TMP/stats.json" "$CAKED_GOLDEN_CAPTURE"
	log "captured the live reply into $CAKED_GOLDEN_CAPTURE"
fi
# cakectl -j stats --tc: tc's layout, checked against real tc output.
TCGOLD=$top_srcdir/tests/unit/golden/tc/cake.json
ctl -j stats --tc >"$NETNS_TMP/tc.json" || fail "cakectl -j stats --tc"
check "stats --tc lines (one per direction)" \
    "$(wc -l <"$NETNS_TMP/tc.json")" eq 2
shape='.[0] | [keys_unsorted, (.tins[0] | keys_unsorted),
    ([.[] | type]), ([.tins[0][] | type])]'
want=$(jq -c "$shape" "$TCGOLD")
n=0
while read -r line; do
	[ "$(echo "$line" | jq -c "$shape")" = "$want" ] && n=$((n + 1))
done <"$NETNS_TMP/tc.json"
check "stats --tc directions with tc's keys and types" "$n" eq 2
check "stats --tc upload bytes" \
    "$(head -n 1 "$NETNS_TMP/tc.json" | jq '.[0].bytes')" gt 100000

# cakectl -j watch: one compact reply a line, a second apart, and no
# screen codes even on a terminal (script(1) gives it one).
ctl -j -n 3 watch >"$NETNS_TMP/watch.jsonl" || fail "cakectl -j watch"
check "watch -j lines" "$(jq -c . "$NETNS_TMP/watch.jsonl" | wc -l)" eq 3
check "watch -j lines, as read" "$(wc -l <"$NETNS_TMP/watch.jsonl")" eq 3
gaps=$(jq -r .time_ns "$NETNS_TMP/watch.jsonl" | awk 'NR > 1 {
	d = ($1 - p) / 1e9; if (d < 0.9 || d > 1.5) bad++ } { p = $1 }
	END { print bad + 0 }')
check "watch -j intervals outside 0.9-1.5 s" "$gaps" eq 0
if command -v script >/dev/null 2>&1; then
	script -qfec "$CAKECTL -s $SOCK -j -n 2 watch" /dev/null \
	    >"$NETNS_TMP/watch-tty.txt" 2>&1
	check "watch -j on a terminal: lines" \
	    "$(grep -c '"time_ns"' "$NETNS_TMP/watch-tty.txt")" eq 2
	check "watch -j on a terminal: escape bytes" \
	    "$(tr -cd '\033' <"$NETNS_TMP/watch-tty.txt" | wc -c)" eq 0
fi

for k in time_ns uptime_ns; do
	check "stats reply has $k" "$(jq ".$k // 0" "$NETNS_TMP/stats.json")" gt 0
done
leaves "$NETNS_TMP/stats.json" >"$NETNS_TMP/live.txt"
leaves "$GOLDEN" >"$NETNS_TMP/golden.txt"
comm -23 "$NETNS_TMP/live.txt" "$NETNS_TMP/golden.txt" >"$NETNS_TMP/new.txt"
sed 's/^/  leaf missing from stats-daemon.json: /' "$NETNS_TMP/new.txt"
check "live numeric leaves" "$(wc -l <"$NETNS_TMP/live.txt")" gt 100
check "live leaves not in the golden capture" \
    "$(wc -l <"$NETNS_TMP/new.txt")" eq 0
netns_stop_fwd

# ---- 3: scraping while forwarding ----------------------------------------
# cpu_ticks PID: user + system clock ticks the process has used.
cpu_ticks()
{
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# load_run LABEL [SCRAPE]: one TCP upload + 20 Hz ping, scraped or not;
# prints "goodput_bps ping_median_ms scrapes_ok scrape_errors caked_cpu_%
# scraper_cpu_% retransmits".
load_run()
{
	local label=$1 spid="" res="0 0 0 0" t0 t1 c0 c1

	if [ -n "${2:-}" ]; then
		ip netns exec "$NS_R" "$SCRAPE" load 127.0.0.1 "$PORT" 50 20 \
		    "$SECS" >"$NETNS_TMP/$label-scrape.txt" 2>&1 9>&- &
		spid=$!
		netns_track "$spid"
	fi
	c0=$(cpu_ticks "$FWD_PID")
	t0=$(date +%s.%N)
	netns_load_ping "$label" "$SECS" $(((SECS - 3) * 20))
	c1=$(cpu_ticks "$FWD_PID")
	t1=$(date +%s.%N)
	[ -n "$spid" ] && wait "$spid" && res=$(cat "$NETNS_TMP/$label-scrape.txt")
	set -- $LOAD_STATS
	echo "$LOAD_GOODPUT $1 $(echo "$res" | awk '{ print $2, $3 }')" \
	    "$(awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v a="$t0" \
	    -v b="$t1" 'BEGIN { printf "%.1f", 100 * c / hz / (b - a) }')" \
	    "$(echo "$res" | awk '{ print ($4 == "") ? "-" : $4 }')" \
	    "$(netns_retransmits "$NETNS_TMP/$label-iperf.json")"
}

# The bounds of part 3, and whether a pair of runs met them.
GOODPUT_RATIO_MIN=0.98
MEDIAN_RISE_MAX=1
goodput_ratio() { ratio "$s_bps" "$b_bps"; }
median_rise()
{
	awk -v a="$s_med" -v b="$b_med" 'BEGIN { printf "%.3f", a - b }'
}
pair_met()
{
	bound_ok "$(goodput_ratio)" ge "$GOODPUT_RATIO_MIN" &&
	    bound_ok "$(median_rise)" lt "$MEDIAN_RISE_MAX"
}

# scrape_pair TRY: a run without scraping, then one with; prints both.
scrape_pair()
{
	local base scraped

	base=$(load_run "quiet$1")
	scraped=$(load_run "scraped$1" yes)
	set -- $base
	b_bps=$1 b_med=$2 b_cpu=$5 b_rtx=$7
	set -- $scraped
	s_bps=$1 s_med=$2 s_ok=$3 s_err=$4 s_cpu=$5 scraper_cpu=$6 s_rtx=$7
	echo
	printf '%-28s %12s %14s %10s %6s  %s\n' "one TCP upload, 20 Mbit" \
	    "goodput Mb/s" "ping median ms" "caked CPU" "retx" \
	    "scrapes in ${SECS} s"
	printf '%-28s %12s %14s %9s%% %6s  %s\n' "no scraping" \
	    "$(mbit "$b_bps")" "$b_med" "$b_cpu" "$b_rtx" 0
	printf '%-28s %12s %14s %9s%% %6s  %s\n' "50 clients x 20 scrapes/s" \
	    "$(mbit "$s_bps")" "$s_med" "$s_cpu" "$s_rtx" \
	    "$s_ok ok, $s_err failed"
	log "exposition: $(wc -c <"$NETNS_TMP/metrics.prom") bytes," \
	    "$(grep -c '^caked_' "$NETNS_TMP/metrics.prom") samples;" \
	    "the scraper used ${scraper_cpu}% of a CPU; load average" \
	    "$(cut -d' ' -f1-3 /proc/loadavg)"
	echo
}

# One TCP flow's goodput over 15 s moves by a few per cent from run to
# run (CI once saw 0.968 with ASan, then 0.998-1.000 in four runs on the
# same build). A pair that misses a bound is run once more, and the
# second pair is asserted: a slowdown that scraping causes misses both.
# The plain build once missed both in about one run in three (0.95-0.975
# scraped against 19.1 Mbit/s steady unscraped, with no more
# retransmissions); six later runs, one in CI and two beside a CPU hog,
# measured 0.997-1.000, and a profile of caked while scraped showed no
# hot spot (the reply's copy 1.6 % of samples). The cause is left open.
metrics_start 'options = "bandwidth 20mbit nat dual-srchost"'
for try in 1 2; do
	scrape_pair "$try"
	pair_met && break
	[ "$try" = 1 ] && log "goodput ratio $(goodput_ratio), median rise" \
	    "$(median_rise) ms: a bound missed; the pair once more" \
	    "(the second is asserted)"
done
check "goodput without scraping Mbit/s" "$(mbit "$b_bps")" ge 15
check "scrapes answered (of ~$((50 * 20 * SECS)))" "$s_ok" ge \
    $((50 * 20 * SECS / 2))
check "scrapes failed" "$s_err" eq 0
check "goodput scraped / not scraped" "$(goodput_ratio)" ge \
    "$GOODPUT_RATIO_MIN"
check "ping median scraped - not scraped ms" "$(median_rise)" lt \
    "$MEDIAN_RISE_MAX"
netns_finish
