#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_isolation: host isolation under a small-packet flood.
# Host B (a second namespace on the LAN bridge) floods 18-byte UDP
# payloads (60-byte frames) with sendmmsg (udpblast) for ISO_SECS s,
# once from 16 source ports and once from one flow, while host A pings
# the server at 5 Hz and runs one TCP upload; caked shapes at "bandwidth
# 20mbit dual-srchost", then runs "unlimited".
#
# Printed for every case: the flood's offered rate, A's ping loss and
# median against idle, A's TCP goodput and its share of the shaped rate,
# caked's drop counter and the frames the kernel dropped on the LAN TAP
# queue (TX dropped) before caked read them.
#
# Asserted (what holds today on a busy 2-core machine): caked survives
# every case; in the shaped cases caked itself drops (drops > 0) and A's
# TCP upload keeps at least 10 % of the rate. The issue's targets (A's
# ping loss <= 0.1 %, median <= 2 ms above idle, TCP share >= 45 %) are
# printed as "target" lines with the measured figure and do not fail the
# test: with a single TAP queue the kernel drops A's packets together
# with B's before caked sees them.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq
netns_require_caked
CAKECTL=${CAKECTL:-$top_builddir/cakectl}
UDPBLAST=${UDPBLAST:-$top_builddir/tests/bench/udpblast}
[ -x "$CAKECTL" ] || skip "cakectl not built at $CAKECTL"
[ -x "$UDPBLAST" ] || skip "udpblast not built at $UDPBLAST"
SECS=${ISO_SECS:-15}
RATE_BPS=20000000
B_IP=10.201.1.3

netns_topo_tap
NS_B="${NETNS_PFX}b"
netns_add "$NS_B"
netns_veth "$NS_B" eth0 "$NS_R" vb
ip -n "$NS_B" addr add "$B_IP/24" dev eth0
ip -n "$NS_R" link set vb master br-lan
netns_iperf_server

# tap_tx_dropped: frames the kernel dropped on the LAN TAP's queue.
tap_tx_dropped()
{
	ip -n "$NS_R" -s link show dev "$LAN_DEV" |
	    awk '/TX:/ { getline; print $4 }'
}

# target NAME VALUE OP LIMIT: the issue's figure, printed, not asserted.
target()
{
	local ok

	ok=$(awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN {
		if (v !~ /^[0-9.]+$/) { print "MISSED"; exit }
		r = (op == "le") ? (v + 0 <= l + 0) : (v + 0 >= l + 0)
		print r ? "met" : "MISSED" }')
	log "target $1: $2 ($3 $4) $ok"
}

# one_case LABEL RATE FLOWS
one_case()
{
	local label=$1 rate=$2 flows=$3 t=$NETNS_TMP/$1 st idle_med
	local sent bps drops tapdrop tapdrop0 med loss share

	netns_start_caked "$rate" "$rate" dual-srchost
	netns_ping "$NS_C" "$SERVER_IP" 10 "$t-idle.txt"
	idle_med=$(netns_ping_stats "$t-idle.txt" | cut -d' ' -f1)
	tapdrop0=$(tap_tx_dropped)
	timeout $((SECS + 10)) ip netns exec "$NS_B" "$UDPBLAST" \
	    -s "$SERVER_IP" 9 "$SECS" 18 "$flows" >"$t-flood.txt" 2>&1 9>&- &
	local flood_pid=$!
	netns_track "$flood_pid"
	sleep 1
	netns_ping_bg "$NS_C" "$SERVER_IP" $(( (SECS - 3) * 5 )) "$t-ping.txt" \
	    0.2
	bps=$(netns_iperf "$t-tcp.json" $((SECS - 4)))
	wait "$PING_PID"
	wait "$flood_pid"
	kill -0 "$FWD_PID" 2>/dev/null || fail "$label: caked died"
	sent=$(head -n 1 "$t-flood.txt")
	"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload \
	    >"$t-stats.json" || fail "$label: cakectl stats"
	drops=$(jq .directions.upload.drops "$t-stats.json")
	tapdrop=$(( $(tap_tx_dropped) - tapdrop0 ))
	st=$(netns_ping_stats "$t-ping.txt")
	med=$(echo "$st" | cut -d' ' -f1)
	loss=$(echo "$st" | cut -d' ' -f4)
	share=$(awk -v b="$bps" -v r="$RATE_BPS" \
	    'BEGIN { printf "%.1f", 100 * b / r }')
	log "$label: B offered $((sent / SECS)) pkt/s from $flows flow(s);" \
	    "caked drops $drops, TAP queue drops $tapdrop"
	log "$label: A ping idle median $idle_med ms; flood" \
	    "median/p95/max/loss%/n $st; A TCP $(mbit "$bps") Mbit/s"
	target "$label A ping loss %" "$loss" le 0.1
	target "$label A ping median above idle ms" \
	    "$(awk -v a="$med" -v b="$idle_med" 'BEGIN { print a - b }')" le 2
	if [ "$rate" != unlimited ]; then
		target "$label A TCP share %" "$share" ge 45
		check "$label: caked drops under the flood" "$drops" gt 0
		check "$label: A TCP share % (loose)" "$share" ge 10
	fi
	netns_stop_fwd
}

one_case shaped-16 20mbit 16
one_case shaped-1 20mbit 1
one_case unlimited-16 unlimited 16
one_case unlimited-1 unlimited 1
netns_finish
