#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_autorate: caked follows a bloated link whose capacity changes.
#
#   client -- router [caked, TUN] -- modem [bridge; HTB + 1000-pkt FIFO
#   on its egress toward the server] -- server (iperf3, the reflector)
#
# caked runs with autorate on the upload (max 50 Mbit) and pings the
# server (behind the modem) itself. During a 60 s bulk upload the modem
# goes from 20 Mbit to 8 Mbit at 20 s and back to 20 Mbit at 40 s. Checks,
# in each phase from 5 s after its change on: caked's rate (sampled twice
# a second) never falls below 75 % of the modem's and its median is at
# most 100 % (a delay-based controller must probe above the capacity now
# and then to find it: the maximum and the share of samples above 100 %
# are printed), and the client's ping RTT p95 is below 30 ms; at least
# one cut is logged. A run with a phase short of these bounds is run once
# more, and the second decides. For comparison the 8 Mbit phase runs again
# with a fixed 20 Mbit caked: its RTT p95 must exceed 200 ms (or the
# testbed proves nothing).
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss tc
netns_require_caked
netns_require_cakectl

PHASE_S=20
SETTLE_S=5

# The TUN testbed with a "modem" namespace between router and server.
topo_modem()
{
	netns_topo_tun_via
	netns_bridge "$NS_M" br0
	ip -n "$NS_M" link set mr master br0
	ip -n "$NS_M" link set ms master br0
	# the bloated device users cannot fix
	ip netns exec "$NS_M" tc qdisc add dev ms root handle 1: htb default 1 &&
	    ip netns exec "$NS_M" tc class add dev ms parent 1: classid 1:1 \
	    htb rate 20mbit quantum 1514 &&
	    ip netns exec "$NS_M" tc qdisc add dev ms parent 1:1 handle 10: \
	    pfifo limit 1000 || fail "modem HTB"
}

modem_rate()
{
	ip netns exec "$NS_M" tc class change dev ms parent 1: classid 1:1 \
	    htb rate "$1" quantum 1514 || fail "modem rate $1"
}

# start_caked LABEL UPLOAD_SECTION_LINES...
start_caked()
{
	local label=$1

	shift
	FWD_CONF="$NETNS_TMP/caked-$label.conf"
	{
		printf '[general]\nmode = tun\nlan = %s\nwan = %s\nmtu = 1500\n' \
		    "$LAN_DEV" "$WAN_DEV"
		printf 'control = %s/caked.sock\nlog-level = debug\n' "$NETNS_TMP"
		printf 'autorate-reflectors = %s\n[upload]\n' "$SERVER_IP"
		printf '%s\n' "$@"
		printf '[download]\nbandwidth = 100mbit\n'
	} >"$FWD_CONF"
	netns_run_caked
	log "caked running ($label, pid $FWD_PID)"
}

now() { date +%s.%N; }

# Samples caked's upload rate every 0.5 s for $1 s into $2: "epoch bit/s".
sample_rate()
{
	local end

	end=$(awk -v n="$(now)" -v d="$1" 'BEGIN { printf "%.0f", n + d }')
	while [ "$(date +%s)" -lt "$end" ]; do
		"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload 2>/dev/null |
		    jq -r --arg t "$(now)" \
		    '"\($t) \(.directions.upload.autorate.rate * 8)"' \
		    >>"$2" 2>/dev/null
		sleep 0.5
	done
}

# rate_stats FILE FROM TO CAP: "min median max pct_above_cap" (Mbit/s, %)
# of the samples in [FROM, TO).
rate_stats()
{
	awk -v a="$2" -v b="$3" '$1 >= a && $1 < b { print $2 / 1e6 }' "$1" |
	    sort -n | awk -v c="$4" '{ v[NR] = $1; if ($1 > c) n++ } END {
		if (NR == 0) { print "nan nan nan nan"; exit }
		printf "%.2f %.2f %.2f %.0f\n", v[1], v[int((NR + 1) / 2)],
		    v[NR], 100 * n / NR }'
}

# ping_p95 FILE FROM TO: RTT p95 (ms) of the replies sent in [FROM, TO).
ping_p95()
{
	sed -n 's/^\[\([0-9.]*\)\].*time=\([0-9.]*\) ms.*/\1 \2/p' "$1" |
	    awk -v a="$2" -v b="$3" '$1 - $2 / 1000 >= a &&
		$1 - $2 / 1000 < b { print $2 }' | sort -n |
	    awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		i = int(NR * 0.95); if (i < NR * 0.95) i++; if (i < 1) i = 1
		printf "%.2f\n", v[i] }'
}

# run_phases: the 60 s autorate run; sets t0 t1 t2 (the phases' starts),
# goodput, kstamps and cuts, and keeps the logs in $NETNS_TMP/ar-*.
run_phases()
{
	local total=$((3 * PHASE_S)) ipid spid

	rm -f "$NETNS_TMP/ar-rate.txt"
	modem_rate 20mbit
	start_caked autorate "autorate = yes" "autorate-min = 2mbit" \
	    "autorate-base = 10mbit" "autorate-max = 50mbit"
	log "autorate: ${total} s upload; modem 20 -> 8 Mbit at ${PHASE_S} s," \
	    "back to 20 Mbit at $((2 * PHASE_S)) s"
	timeout $((total + 20)) ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" \
	    -J -t "$total" $IPERF_CC -P 2 >"$NETNS_TMP/ar-iperf.json" 2>&1 9>&- &
	ipid=$!
	netns_track "$ipid"
	t0=$(now)
	netns_ping_bg "$NS_C" "$SERVER_IP" $((total * 10 - 10)) \
	    "$NETNS_TMP/ar-ping.txt" 0.1
	sample_rate "$total" "$NETNS_TMP/ar-rate.txt" &
	spid=$!
	netns_track "$spid"
	sleep "$PHASE_S"
	t1=$(now)
	modem_rate 8mbit
	sleep "$PHASE_S"
	t2=$(now)
	modem_rate 20mbit
	wait "$ipid"
	wait "$spid"
	wait "$PING_PID"
	goodput=$(netns_goodput "$NETNS_TMP/ar-iperf.json")
	"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats upload \
	    >"$NETNS_TMP/ar-stats.txt"
	kstamps=$("$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload |
	    jq -r '.directions.upload.autorate |
	    "\(.probe_kernel_stamps) \(.probe_replies)"')
	netns_stop_fwd
	cp "$NETNS_TMP/fwd.log" "$NETNS_TMP/ar-fwd.log"
	cuts=$(grep -c 'autorate cut' "$NETNS_TMP/ar-fwd.log")
}

# phase_stats: each phase's rate statistics and ping p95 (rs1-3, p95_1-3,
# cap1-3), printed as a table.
phase_stats()
{
	local i=0 spec from to rs p95 cap

	printf '%-8s %-10s %-34s %12s\n' phase "modem" \
	    "caked Mbit/s min/median/max %>cap" "RTT p95 ms"
	for spec in "$t0 20" "$t1 8" "$t2 20"; do
		set -- $spec
		i=$((i + 1))
		cap=$2
		from=$(awk -v t="$1" -v s="$SETTLE_S" \
		    'BEGIN { printf "%.3f", t + s }')
		to=$(awk -v t="$1" -v p="$PHASE_S" \
		    'BEGIN { printf "%.3f", t + p }')
		rs=$(rate_stats "$NETNS_TMP/ar-rate.txt" "$from" "$to" "$cap")
		p95=$(ping_p95 "$NETNS_TMP/ar-ping.txt" "$from" "$to")
		printf '%-8s %-10s %-34s %12s\n' "$i" "$cap Mbit" "$rs" "$p95"
		eval "rs$i=\"$rs\" p95_$i=$p95 cap$i=$cap"
	done
}

# phase_bounds: each phase's bounds (bounds_hold, bounds_check).
phase_bounds()
{
	local i p95 cap low

	for i in 2 3 1; do
		eval "set -- \$rs$i; p95=\$p95_$i; cap=\$cap$i"
		low=$(awk -v c="$cap" 'BEGIN { print c * 0.75 }')
		printf '%s\n' \
		    "phase $i: caked rate min >= 75% of $cap Mbit|$1|ge|$low" \
		    "phase $i: caked rate median <= 100% of $cap Mbit|$2|le|$cap" \
		    "phase $i: ping RTT p95 ms|$p95|lt|30"
	done
}

topo_modem
netns_iperf_server
# A run short of a bound is run once more, and the second decides: the
# controller's cut from what was sent dips below 75 % of the capacity
# now and then (two CI runs; 1 of 6 plain and 1 of 5 sanitizer runs on
# one day here; doc/testing.md).
run_phases
phase_stats >"$NETNS_TMP/ar-table.txt"
if ! bounds_hold phase_bounds; then
	cat "$NETNS_TMP/ar-table.txt"
	log "a phase short of its bounds: the whole run once more"
	cp "$NETNS_TMP/ar-fwd.log" "$NETNS_TMP/ar-fwd-1.log"
	run_phases
	phase_stats >"$NETNS_TMP/ar-table.txt"
fi

# The same 8 Mbit phase with a fixed 20 Mbit caked (shorter: 15 s).
start_caked fixed "bandwidth = 20mbit"
modem_rate 8mbit
timeout 35 ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" -J -t 15 $IPERF_CC \
    -P 2 >"$NETNS_TMP/fx-iperf.json" 2>&1 9>&- &
ipid=$!
netns_track "$ipid"
f0=$(now)
netns_ping "$NS_C" "$SERVER_IP" 130 "$NETNS_TMP/fx-ping.txt"
wait "$ipid"
fixed_p95=$(ping_p95 "$NETNS_TMP/fx-ping.txt" \
    "$(awk -v t="$f0" 'BEGIN { printf "%.3f", t + 5 }')" 9e18)
netns_stop_fwd

echo
echo "caked autorate (upload) through a bloated modem; TCP CC: ${NETNS_TCP_CC:-default}"
echo "upload goodput over the run: $(mbit "$goodput") Mbit/s"
echo "rate changes logged: $(grep -c 'autorate ' "$NETNS_TMP/ar-fwd.log")" \
    "(cuts: $cuts)"
echo "cakectl stats upload at the end:"
grep -A4 ' autorate:' "$NETNS_TMP/ar-stats.txt"
cat "$NETNS_TMP/ar-table.txt"
printf '%-8s %-10s %-34s %12s\n' fixed "8 Mbit" "20.00 (no autorate)" \
    "$fixed_p95"
echo

bounds_check phase_bounds 9
check "fixed 20 Mbit caked, 8 Mbit modem: RTT p95 ms" "$fixed_p95" gt 200
# The 20 -> 8 Mbit step cannot be followed without a cut.
check "autorate cuts logged" "$cuts" ge 1
set -- $kstamps
echo "probe replies timed by the kernel: $1 of $2"
check "probe replies with a kernel receive timestamp" "${1:-0}" gt 0
netns_finish
