#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# bench-datapath: what caked's datapath costs, measured through a namespace
# bump in the wire (tests/netns/lib.sh topologies), all in one run:
#
#  2. Datapath: iperf3 TCP throughput and 64-byte UDP packets per second
#     (tests/bench/udpblast) through (a) the kernel bridge alone, (b) the
#     bare TAP forwarder tests/bench/tapfwd, plain and with offloads (-o),
#     and (c) caked with `unlimited` (split-gso, the default, and with
#     no-split-gso);
#     ratios c/b and c/a. Twice: veths without offloads (MTU-sized packets
#     everywhere, as the netns tests run) and with the kernel's default
#     offloads (TSO/GSO/GRO: super-packets reach the TAP devices).
#  3. Shaping accuracy at 10, 100, 500 and 900 Mbit: goodput / rate, the
#     wire rate the shaper charged / rate, ping RTT idle and under load.
#  4. CPU: caked's CPU time per forwarded packet at 100 Mbit
#     (/proc/PID/stat utime+stime over the run / frames caked wrote).
#  5. CPU per forwarded frame, shaped at 100 Mbit and 1 Gbit (veths
#     without offloads: one frame is one packet), beside the bare
#     forwarder (tapfwd -o) carrying the same packet rate (iperf3 paced
#     to the goodput caked reached); caked once per departure horizon of
#     BENCH_HORIZONS, and once carrying tapfwd's paced stream; frames per
#     wakeup (context switch) of each.
#  6. Queues: 64-byte packets per second (udpblast -s, from 16 flows
#     and 1 flow) through the bare forwarder and caked with
#     queues-per-device = 1, 2 and 4, unlimited and shaped at 1 Gbit.
#  7. Full duplex: caked shaped at 900 Mbit both ways, one TCP stream each
#     way at once (iperf3 --bidir), goodput / rate in both directions and
#     the ping added, once per value of [general] threads that caked
#     accepts (caked -t on a config carrying it), side by side.
#  8. Multi-gigabit: caked shaped at 2.5 and 5 Gbit (offloads on),
#     goodput / rate and the ping added, beside the ceilings of this
#     machine in the same run: the kernel bridge, the bare forwarder
#     (tapfwd -o) and caked unlimited; caked once per value of
#     [general] threads that it accepts (BENCH_THREADS), side by side.
#
# Markdown on stdout; progress on stderr. It reports and never fails on
# time; without root or tools it says so and exits 0 (make bench goes on).
# Everything is bounded (about 11 minutes on 2 cores).

: "${top_builddir:=.}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${UDPBLAST:=$top_builddir/tests/bench/udpblast}"
BENCH_TCP_SECS=${BENCH_TCP_SECS:-4}
BENCH_PPS_SECS=${BENCH_PPS_SECS:-3}
BENCH_SHAPE_SECS=${BENCH_SHAPE_SECS:-7}
# Datapath runs per forwarder; the best counts.
BENCH_REPEAT=${BENCH_REPEAT:-3}
# Shaped rates (Mbit/s) of part 3.
BENCH_RATES=${BENCH_RATES:-10 100 500 900}
# Parts to run: "datapath" (2), "shaping" (3 and 4), "cpu" (5),
# "queues" (6), "duplex" (7), "multigig" (8).
BENCH_PARTS=${BENCH_PARTS:-datapath shaping cpu queues duplex multigig}
# Part 5: shaped rates (Mbit/s), seconds per run, caked's horizons.
BENCH_CPU_RATES=${BENCH_CPU_RATES:-100 1000}
BENCH_CPU_SECS=${BENCH_CPU_SECS:-8}
# 0 sends one departure per wakeup (before the horizon), default 500us.
BENCH_HORIZONS=${BENCH_HORIZONS:-0 default 1000us}
# queues-per-device values of part 6.
BENCH_QUEUES=${BENCH_QUEUES:-1 2 4}
# Part 7: the shaped rate (Mbit/s) and the threads values to try.
BENCH_DUPLEX_RATE=${BENCH_DUPLEX_RATE:-900}
BENCH_THREADS=${BENCH_THREADS:-1 2}
# Part 8: shaped rates (Mbit/s).
BENCH_GIG_RATES=${BENCH_GIG_RATES:-2500 5000}

# lib.sh's skip() exits 77; a benchmark that cannot run is no failure.
if [ "$(id -u)" != 0 ] || ! command -v iperf3 >/dev/null 2>&1 ||
    ! command -v jq >/dev/null 2>&1; then
	echo "## Datapath benchmark"
	echo
	echo "skipped: needs root, iperf3 and jq"
	exit 0
fi

. "$top_srcdir/tests/netns/lib.sh"

log()
{
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

netns_init ping iperf3 jq ss >&2
netns_require_tapfwd
netns_require_caked
[ -x "$UDPBLAST" ] || skip "udpblast not built at $UDPBLAST"

VETH_OFFLOAD=0
netns_no_offload()
{
	[ "$VETH_OFFLOAD" = 1 ] && return 0
	command -v ethtool >/dev/null 2>&1 || return 0
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off \
	    >/dev/null 2>&1 || true
}

machine()
{
	local model

	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "## Datapath benchmark"
	echo
	echo "Machine: $(nproc) cores, ${model:-unknown CPU}, Linux $(uname -r)."
	echo
}

# tapfwd with flags (e.g. -o), attached like netns_start_tapfwd does.
start_tapfwd()
{
	ip netns exec "$NS_R" "$TAPFWD" "$@" "$LAN_DEV" "$WAN_DEV" \
	    >"$NETNS_TMP/fwd.log" 2>&1 9>&- &
	FWD_PID=$!
	netns_track "$FWD_PID"
	netns_attach
}

# start_fwd KIND: bridge (nothing to start), tapfwd, tapfwd-o, caked,
# caked-nosplit, caked-nooffload.
start_fwd()
{
	NETNS_CONF_GENERAL=""
	case $1 in
	bridge) ;;
	tapfwd) start_tapfwd ;;
	tapfwd-o) start_tapfwd -o ;;
	caked) netns_start_caked unlimited unlimited >&2 ;;
	caked-nosplit)
		netns_start_caked unlimited unlimited no-split-gso >&2 ;;
	caked-nooffload)
		NETNS_CONF_GENERAL="offload = no"
		netns_start_caked unlimited unlimited >&2 ;;
	esac
}

# pps: 64-byte frames received per second at the server.
measure_pps()
{
	local rpid out=$NETNS_TMP/pps.txt

	ip netns exec "$NS_S" "$UDPBLAST" -r "$SERVER_IP" 5301 \
	    "$BENCH_PPS_SECS" >"$out" 2>&1 9>&- &
	rpid=$!
	netns_track "$rpid"
	sleep 0.3
	ip netns exec "$NS_C" "$UDPBLAST" -s "$SERVER_IP" 5301 \
	    $((BENCH_PPS_SECS + 1)) >/dev/null 2>&1 9>&-
	wait "$rpid"
	awk '{ print ($3 == "" ? 0 : $3) }' "$out"
}

# datapath_row CONFIG KIND: one table row; sets TCP_<kind> and PPS_<kind>.
datapath_row()
{
	local cfg=$1 kind=$2 tcp pps var

	local i t p

	start_fwd "$kind"
	tcp=0 pps=0
	for i in $(seq "$BENCH_REPEAT"); do
		t=$(netns_iperf "$NETNS_TMP/dp-$cfg-$kind.json" \
		    "$BENCH_TCP_SECS")
		p=$(measure_pps)
		tcp=$(awk -v a="$tcp" -v b="${t:-0}" \
		    'BEGIN { print (b > a ? b : a) }')
		pps=$(awk -v a="$pps" -v b="${p:-0}" \
		    'BEGIN { print (b > a ? b : a) }')
	done
	netns_stop_fwd
	var=${kind//-/_}
	eval "TCP_$var=$tcp PPS_$var=$pps"
	log "$cfg $kind: TCP $(mbit "$tcp") Mbit/s, $pps pps"
	printf '| %s | %s | %s | %s |' "$cfg" "$kind" "$(mbit "$tcp")" "$pps"
}

datapath_config()
{
	local cfg=$1 kind var tcp pps

	VETH_OFFLOAD=$2
	netns_topo_plain "${cfg:0:1}p" >&2
	netns_iperf_server >&2
	datapath_row "$cfg" bridge
	echo " | |"
	netns_topo_tap "${cfg:0:1}t" >&2
	netns_iperf_server >&2
	for kind in tapfwd tapfwd-o; do
		datapath_row "$cfg" "$kind"
		echo " | |"
	done
	for kind in caked caked-nosplit caked-nooffload; do
		datapath_row "$cfg" "$kind"
		var=${kind//-/_}
		eval "tcp=\$TCP_$var pps=\$PPS_$var"
		printf ' TCP %s / %s / %s | pps %s / %s / %s |\n' \
		    "$(ratio "$tcp" "$TCP_tapfwd")" \
		    "$(ratio "$tcp" "$TCP_tapfwd_o")" \
		    "$(ratio "$tcp" "$TCP_bridge")" \
		    "$(ratio "$pps" "$PPS_tapfwd")" \
		    "$(ratio "$pps" "$PPS_tapfwd_o")" \
		    "$(ratio "$pps" "$PPS_bridge")"
	done
}

# 3. shaping accuracy and latency under load; 4. CPU per packet at 100.
shaping()
{
	local rate idle load g stat0 stat1 pk0 pk1 tck cpu_s pkts

	tck=$(getconf CLK_TCK)
	for rate in $BENCH_RATES; do
		netns_start_caked "${rate}mbit" "${rate}mbit" >&2
		netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/idle-$rate.txt"
		idle=$(netns_ping_stats "$NETNS_TMP/idle-$rate.txt")
		stat0=$(awk '{ print $14 + $15 }' "/proc/$FWD_PID/stat")
		pk0=$(frames_written)
		netns_load_ping "shape$rate" "$BENCH_SHAPE_SECS" \
		    $(((BENCH_SHAPE_SECS - 3) * 20))
		stat1=$(awk '{ print $14 + $15 }' "/proc/$FWD_PID/stat")
		pk1=$(frames_written)
		netns_stop_fwd
		g=$LOAD_GOODPUT
		load=$LOAD_STATS
		log "shaped $rate Mbit: goodput $(mbit "$g"), idle $idle, load $load"
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$rate" \
		    "$(mbit "$g")" "$(ratio "$g" $((rate * 1000000)))" \
		    "$(ratio "$(wire_bps "$g")" $((rate * 1000000)))" \
		    "${idle%% *}" "${load%% *}" \
		    "$(awk -v a="${load%% *}" -v b="${idle%% *}" \
		    'BEGIN { printf "%.3f", a - b }')"
		if [ "$rate" = 100 ]; then
			cpu_s=$(awk -v t="$((stat1 - stat0))" -v h="$tck" \
			    'BEGIN { printf "%.2f", t / h }')
			pkts=$((pk1 - pk0))
			CPU_LINE=$(printf '| 100 | %s | %s | %s |' "$cpu_s" \
			    "$pkts" "$(awk -v c="$cpu_s" -v p="$pkts" \
			    'BEGIN { printf "%.2f", (p > 0) ? c * 1e6 / p : 0 }')")
		fi
	done
}

# Frames caked wrote into its two devices (the kernel counts them as rx).
frames_written()
{
	ip netns exec "$NS_R" cat "/sys/class/net/$LAN_DEV/statistics/rx_packets" \
	    "/sys/class/net/$WAN_DEV/statistics/rx_packets" |
	    awk '{ s += $1 } END { print s + 0 }'
}

datapath_part()
{
	echo "### 2. Datapath: TCP throughput and 64-byte packets per second"
	echo
	echo "One iperf3 TCP stream client -> server (${BENCH_TCP_SECS} s, cubic);"
	echo "udpblast 18-byte UDP payloads (60-byte frames) for ${BENCH_PPS_SECS} s,"
	echo "counted at the server; each the best of $BENCH_REPEAT runs (a shared"
	echo "2-core VM: one run can lose 20 % to a neighbour)."
	echo "veths \"plain\": TSO/GSO/GRO off; \"offload\":"
	echo "kernel defaults. Ratios: caked / tapfwd, caked / tapfwd -o,"
	echo "caked / bridge. caked runs \`unlimited\` (offload = yes; split-gso,"
	echo "the default), \`unlimited no-split-gso\`, and \`offload = no\`."
	echo
	echo "| veths | forwarder | TCP Mbit/s | 64 B pps | ratio TCP c/b, c/b-o, c/a | ratio pps c/b, c/b-o, c/a |"
	echo "|---|---|---:|---:|---|---|"
	datapath_config plain 0
	datapath_config offload 1
	echo
}

# Ends the datapath part's testbeds (their servers, their namespaces), so
# that the shaping part starts from a machine as quiet as when run alone.
drop_testbeds()
{
	local pid ns

	for pid in $NETNS_PIDS; do
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	NETNS_PIDS=""
	for ns in $NETNS_LIST; do
		ip netns del "$ns" 2>/dev/null
	done
	NETNS_LIST=""
}

shaping_part()
{
	echo "### 3. Shaping accuracy and latency under load (veths with offloads)"
	echo
	echo "caked \`bandwidth R\` both ways (raw framing), one TCP stream for"
	echo "${BENCH_SHAPE_SECS} s, 20 Hz ping from 2 s in. wire = goodput x 1514/1448."
	echo
	echo "| rate Mbit | goodput Mbit/s | goodput / rate | wire / rate | ping idle median ms | ping load median ms | added ms |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	drop_testbeds
	NETNS_CONF_GENERAL=""	# the datapath part's last caked had offload = no
	VETH_OFFLOAD=1
	netns_topo_tap sh >&2
	netns_iperf_server >&2
	CPU_LINE=""
	shaping
	echo
	echo "### 4. CPU per forwarded packet at 100 Mbit"
	echo
	echo "caked's utime+stime over the loaded run above / frames it wrote (both"
	echo "directions, ACKs included)."
	echo
	echo "| rate Mbit | CPU s | frames | CPU us / frame |"
	echo "|---:|---:|---:|---:|"
	echo "$CPU_LINE"
	echo
}

# Packets the two hosts received (veths without offloads: each frame one
# packet, however the forwarder wrote it: caked may glue segments).
packets_delivered()
{
	{ ip netns exec "$NS_C" cat /sys/class/net/eth0/statistics/rx_packets
	  ip netns exec "$NS_S" cat /sys/class/net/eth0/statistics/rx_packets
	} | awk '{ s += $1 } END { print s + 0 }'
}

# cpu_ticks: utime+stime of the forwarder (all its threads), in ticks.
cpu_ticks()
{
	awk '{ print $14 + $15 }' "/proc/$FWD_PID/stat"
}

# ctx_switches: the forwarder's context switches (all threads): each
# one ends a wakeup, so frames / switches is frames per wakeup.
ctx_switches()
{
	cat /proc/"$FWD_PID"/task/*/status 2>/dev/null |
	    awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }'
}

# cpu_run LABEL [iperf3 options]: one bounded TCP load client -> server
# through the running forwarder. Sets RUN_US (CPU us per packet forwarded),
# RUN_PPS (packets forwarded per second), RUN_FPW (packets per wakeup),
# RUN_FRAMES and RUN_GOODPUT.
cpu_run()
{
	local label=$1 c0 c1 f0 f1 t0 t1 w0 w1

	shift
	c0=$(cpu_ticks) f0=$(packets_delivered) t0=$(date +%s%N)
	w0=$(ctx_switches)
	RUN_GOODPUT=$(netns_iperf "$NETNS_TMP/cpu-$label.json" \
	    "$BENCH_CPU_SECS" "$@")
	c1=$(cpu_ticks) f1=$(packets_delivered) t1=$(date +%s%N)
	w1=$(ctx_switches)
	RUN_FRAMES=$((f1 - f0))
	RUN_FPW=$(ratio "$RUN_FRAMES" $((w1 - w0)))
	RUN_PPS=$(awk -v f="$RUN_FRAMES" -v t="$((t1 - t0))" \
	    'BEGIN { printf "%.0f", (t > 0) ? f * 1e9 / t : 0 }')
	RUN_US=$(awk -v c="$((c1 - c0))" -v h="$(getconf CLK_TCK)" \
	    -v f="$RUN_FRAMES" \
	    'BEGIN { printf "%.2f", (f > 0) ? c / h * 1e6 / f : 0 }')
	log "cpu $label: $(mbit "$RUN_GOODPUT") Mbit/s, $RUN_FRAMES frames," \
	    "$RUN_PPS/s, $RUN_US us/frame"
}

# cpu_rate RATE: caked shaped at RATE Mbit (once per horizon), then tapfwd
# -o paced to the goodput caked reached; one table row per caked run.
cpu_rate()
{
	local rate=$1 h rows="" pace tpps tus tfpw

	for h in $BENCH_HORIZONS; do
		NETNS_CONF_GENERAL=""
		[ "$h" = default ] ||
		    NETNS_CONF_GENERAL="departure-horizon = $h"
		netns_start_caked "${rate}mbit" "${rate}mbit" >&2
		cpu_run "caked-$rate-$h"
		netns_stop_fwd
		rows="$rows$h $RUN_GOODPUT $RUN_PPS $RUN_US $RUN_FPW
"
		pace=$RUN_GOODPUT
	done
	NETNS_CONF_GENERAL=""
	start_tapfwd -o
	cpu_run "tapfwd-$rate" -b "$pace"
	netns_stop_fwd
	# the same application-paced load as tapfwd's, through caked
	netns_start_caked "${rate}mbit" "${rate}mbit" >&2
	tpps=$RUN_PPS tus=$RUN_US tfpw=$RUN_FPW
	cpu_run "caked-paced-$rate" -b "$pace"
	netns_stop_fwd
	rows="${rows}default,paced $RUN_GOODPUT $RUN_PPS $RUN_US $RUN_FPW
"
	echo "$rows" | while read -r h g pps us fpw; do
		[ -n "$h" ] || continue
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		    "$rate" "${h/,/, }" "$(mbit "$g")" "$pps" "$us" "$fpw" \
		    "$tpps" "$tus" "$tfpw" "$(ratio "$us" "$tus")"
	done
}

cpu_part()
{
	local rate

	echo "### 5. CPU per forwarded frame, shaped, beside the bare forwarder"
	echo
	echo "Veths without offloads (every frame one packet). caked \`bandwidth R\`"
	echo "both ways, one TCP stream for ${BENCH_CPU_SECS} s; then tapfwd -o with the"
	echo "stream paced (iperf3 -b) to caked's goodput, so both forward about the"
	echo "same packet rate. us / frame: the forwarder's utime+stime over the run"
	echo "/ packets the two hosts received (both directions, ACKs included)."
	echo "horizon: caked's"
	echo "departure-horizon (\`default\` is 500us; 0 is one departure per wakeup)."
	echo "The kernel delivers a frame written into a TAP device in the writer's"
	echo "context: the bridge, the receiving host's TCP and, for an ACK, the"
	echo "segments it releases from the sender count in the forwarder's CPU"
	echo "time (about half of caked's at 100 Mbit, perf). caked shapes a"
	echo "cwnd-limited stream, tapfwd an application-paced one; \`default, paced\`"
	echo "is caked carrying tapfwd's paced stream (same iperf3 -b)."
	echo
	echo "frames / wakeup: frames over the forwarder's context switches."
	echo
	echo "| rate Mbit | horizon | caked Mbit/s | caked frames/s | caked us / frame | caked frames / wakeup | tapfwd frames/s | tapfwd us / frame | tapfwd frames / wakeup | ratio |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	drop_testbeds
	VETH_OFFLOAD=0
	netns_topo_tap cp >&2
	netns_iperf_server >&2
	for rate in $BENCH_CPU_RATES; do
		cpu_rate "$rate"
	done
	echo
}

# udp_noports: datagrams the server got for a closed port (part 5's).
udp_noports()
{
	ip netns exec "$NS_S" awk '$1 == "Udp:" && $3 ~ /^[0-9]+$/ {
		print $3; exit }' /proc/net/snmp
}

# flood_pps FLOWS: 64-byte frames per second that reached the server.
flood_pps()
{
	local n0 n1

	n0=$(udp_noports)
	ip netns exec "$NS_C" "$UDPBLAST" -s "$SERVER_IP" 9 "$BENCH_PPS_SECS" \
	    18 "$1" >/dev/null 2>&1 9>&-
	sleep 0.3
	n1=$(udp_noports)
	echo $(( (n1 - n0) / BENCH_PPS_SECS ))
}

# queues_row LABEL QUEUES RATE: caked (or tapfwd for QUEUES "-") at RATE.
queues_row()
{
	local label=$1 q=$2 rate=$3 p16 p1

	if [ "$q" = - ]; then
		start_tapfwd
	else
		NETNS_CONF_GENERAL="queues-per-device = $q"
		netns_start_caked "$rate" "$rate" >&2
	fi
	p16=$(flood_pps 16)
	p1=$(flood_pps 1)
	netns_stop_fwd
	log "queues $label: 16 flows $p16 pps, 1 flow $p1 pps"
	[ "$q" = - ] && { PPS16_BARE=$p16; PPS1_BARE=$p1; }
	printf '| %s | %s | %s | %s | %s |\n' "$label" "$p16" \
	    "$(ratio "$p16" "$PPS16_BARE")" "$p1" "$(ratio "$p1" "$PPS1_BARE")"
}

queues_part()
{
	local q rate

	echo "### 6. 64-byte packets per second by queues-per-device"
	echo
	echo "udpblast -s 18-byte UDP payloads (60-byte frames) for" \
	    "${BENCH_PPS_SECS} s from 16 flows, then 1 flow, as fast as"
	echo "the sender goes; frames counted at the server. veths without"
	echo "offloads. Ratio: / the bare forwarder (tapfwd, one queue)."
	echo
	echo "| forwarder | 16 flows pps | ratio | 1 flow pps | ratio |"
	echo "|---|---:|---:|---:|---:|"
	drop_testbeds
	VETH_OFFLOAD=0
	netns_topo_tap q >&2
	queues_row tapfwd - unlimited
	for rate in unlimited 1gbit; do
		for q in $BENCH_QUEUES; do
			queues_row "caked $rate, $q queue(s)" "$q" "$rate"
		done
	done
	NETNS_CONF_GENERAL=""
	echo
}

# threads_accepted N: whether caked -t takes [general] threads = N (the
# key appeared with the per-direction threads; older builds reject it).
threads_accepted()
{
	local conf=$NETNS_TMP/threads-$1.conf

	{
		echo "[general]"
		echo "mode = tap"
		echo "lan = $LAN_DEV"
		echo "wan = $WAN_DEV"
		echo "threads = $1"
		echo "[upload]"
		echo "bandwidth = 100mbit"
		echo "[download]"
		echo "bandwidth = 100mbit"
	} >"$conf"
	"$CAKED" -t -c "$conf" >"$NETNS_TMP/threads-$1.log" 2>&1
}

# bidir_reverse JSONFILE: the reverse stream's receiver goodput (bit/s).
bidir_reverse()
{
	local bps

	bps=$(jq -r '.end.sum_received_bidir_reverse.bits_per_second // 0' \
	    "$1" 2>/dev/null)
	printf '%.0f\n' "${bps:-0}"
}

# cpu_pct T0_TICKS T1_TICKS T0_NS T1_NS: forwarder CPU in % of one core.
cpu_pct()
{
	awk -v c="$(($2 - $1))" -v h="$(getconf CLK_TCK)" \
	    -v t="$(($4 - $3))" \
	    'BEGIN { printf "%.0f", (t > 0) ? c / h * 1e11 / t : 0 }'
}

# duplex_row THREADS: caked at the duplex rate, one stream each way.
duplex_row()
{
	local t=$1 rate=$BENCH_DUPLEX_RATE idle up down c0 c1 t0 t1 label

	label="threads = $t"
	NETNS_CONF_GENERAL="threads = $t"
	if ! threads_accepted "$t"; then
		log "duplex: $label not accepted: $(head -n 1 \
		    "$NETNS_TMP/threads-$t.log")"
		if [ "$t" != 1 ]; then
			printf '| %s | not available (caked -t: %s) | | | | | | | |\n' \
			    "$label" "$(head -n 1 "$NETNS_TMP/threads-$t.log" |
			    sed 's/.*: //')"
			return
		fi
		# before the key: one thread carries both directions
		NETNS_CONF_GENERAL=""
		label="one thread (no threads key)"
	fi
	netns_start_caked "${rate}mbit" "${rate}mbit" >&2
	netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/idle-duplex-$t.txt"
	idle=$(netns_ping_stats "$NETNS_TMP/idle-duplex-$t.txt")
	c0=$(cpu_ticks) t0=$(date +%s%N)
	netns_load_ping "duplex-$t" "$BENCH_SHAPE_SECS" \
	    $(((BENCH_SHAPE_SECS - 3) * 20)) --bidir
	c1=$(cpu_ticks) t1=$(date +%s%N)
	netns_stop_fwd
	NETNS_CONF_GENERAL=""
	up=$LOAD_GOODPUT
	down=$(bidir_reverse "$NETNS_TMP/duplex-$t-iperf.json")
	log "duplex $label: up $(mbit "$up"), down $(mbit "$down"), idle" \
	    "$idle, load $LOAD_STATS"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" \
	    "$(mbit "$up")" "$(ratio "$up" $((rate * 1000000)))" \
	    "$(mbit "$down")" "$(ratio "$down" $((rate * 1000000)))" \
	    "${idle%% *}" "${LOAD_STATS%% *}" \
	    "$(awk -v a="${LOAD_STATS%% *}" -v b="${idle%% *}" \
	    'BEGIN { printf "%.3f", a - b }')" "$(cpu_pct "$c0" "$c1" \
	    "$t0" "$t1")"
}

duplex_part()
{
	local t

	echo "### 7. Full duplex, shaped at $BENCH_DUPLEX_RATE Mbit each way"
	echo
	echo "caked \`bandwidth ${BENCH_DUPLEX_RATE}mbit\` both ways (raw framing),"
	echo "veths with offloads, one TCP stream each way at once (iperf3"
	echo "--bidir) for ${BENCH_SHAPE_SECS} s, 20 Hz ping client -> server from"
	echo "2 s in; once per value of \`[general] threads\` caked accepts."
	echo "CPU: caked's utime+stime over the loaded run, % of one core"
	echo "(iperf3 and the kernel's share of the forwarding use the same"
	echo "$(nproc) cores)."
	echo
	echo "| threads | up Mbit/s | up / rate | down Mbit/s | down / rate | ping idle ms | ping load ms | added ms | caked CPU % |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	drop_testbeds
	VETH_OFFLOAD=1
	netns_topo_tap dx >&2
	netns_iperf_server >&2
	for t in $BENCH_THREADS; do
		duplex_row "$t"
	done
	echo
}

# gig_run KIND LABEL RATE_MBIT [THREADS]: one TCP stream with ping through
# the running forwarder (or bridge); one table row. RATE_MBIT "-":
# unshaped; THREADS: caked's [general] threads ("-" for the others).
gig_run()
{
	local kind=$1 label=$2 rate=$3 th=${4:--} idle g c0 c1 t0 t1 cpu="-"
	local r="-"

	netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/idle-gig-$label.txt"
	idle=$(netns_ping_stats "$NETNS_TMP/idle-gig-$label.txt")
	[ -n "$FWD_PID" ] && c0=$(cpu_ticks)
	t0=$(date +%s%N)
	netns_load_ping "gig-$label" "$BENCH_SHAPE_SECS" \
	    $(((BENCH_SHAPE_SECS - 3) * 20))
	t1=$(date +%s%N)
	[ -n "$FWD_PID" ] && {
		c1=$(cpu_ticks)
		cpu=$(cpu_pct "$c0" "$c1" "$t0" "$t1")
	}
	g=$LOAD_GOODPUT
	[ "$rate" = - ] || r=$(ratio "$g" $((rate * 1000000)))
	eval "GIG_$kind=$g"
	log "gig $label (threads $th): $(mbit "$g") Mbit/s, idle $idle," \
	    "load $LOAD_STATS"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
	    "$label" "$th" \
	    "$(mbit "$g")" "$r" "$(ratio "$g" "${GIG_bridge:-0}")" \
	    "$([ "$kind" = bridge ] && echo - || ratio "$g" "$GIG_tapfwd")" \
	    "${idle%% *}" \
	    "${LOAD_STATS%% *}" "$(awk -v a="${LOAD_STATS%% *}" \
	    -v b="${idle%% *}" 'BEGIN { printf "%.3f", a - b }')" "$cpu"
}

# gig_caked RATE_MBIT|unlimited THREADS: caked's row with [general]
# threads = THREADS (none when caked -t refuses the key: an older build).
gig_caked()
{
	local rate=$1 t=$2

	if ! threads_accepted "$t"; then
		log "gig: threads = $t not accepted: $(head -n 1 \
		    "$NETNS_TMP/threads-$t.log")"
		return
	fi
	NETNS_CONF_GENERAL="threads = $t"
	if [ "$rate" = unlimited ]; then
		netns_start_caked unlimited unlimited >&2
		gig_run caked "caked unlimited" - "$t"
	else
		netns_start_caked "${rate}mbit" "${rate}mbit" >&2
		gig_run shaped "caked ${rate} Mbit" "$rate" "$t"
	fi
	netns_stop_fwd
}

multigig_part()
{
	local rate t

	echo "### 8. Multi-gigabit shaping and this machine's ceilings"
	echo
	echo "Veths with offloads (TSO/GSO/GRO: super-packets reach the TAP"
	echo "devices), one TCP stream client -> server for ${BENCH_SHAPE_SECS} s,"
	echo "20 Hz ping from 2 s in. Ceilings first, in the same run: the kernel"
	echo "bridge alone, the bare forwarder (tapfwd -o) and caked \`unlimited\`;"
	echo "then caked \`bandwidth R\` both ways; caked once per value of"
	echo "\`[general] threads\` it accepts. iperf3 (sender and receiver),"
	echo "the kernel's forwarding and the forwarder share the same"
	echo "$(nproc) cores. CPU: the forwarder's, % of one core."
	echo
	echo "| forwarder | threads | goodput Mbit/s | / rate | / bridge | / tapfwd -o | ping idle ms | ping load ms | added ms | CPU % |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	drop_testbeds
	VETH_OFFLOAD=1
	GIG_bridge=0 GIG_tapfwd=0
	netns_topo_plain gp >&2
	netns_iperf_server >&2
	FWD_PID=""
	gig_run bridge "kernel bridge" -
	drop_testbeds
	netns_topo_tap gt >&2
	netns_iperf_server >&2
	start_tapfwd -o
	gig_run tapfwd "tapfwd -o" -
	netns_stop_fwd
	for rate in unlimited $BENCH_GIG_RATES; do
		for t in $BENCH_THREADS; do
			gig_caked "$rate" "$t"
		done
	done
	NETNS_CONF_GENERAL=""
	echo
}

machine
case $BENCH_PARTS in *datapath*) datapath_part ;; esac
case $BENCH_PARTS in *shaping*) shaping_part ;; esac
case $BENCH_PARTS in *cpu*) cpu_part ;; esac
case $BENCH_PARTS in *queues*) queues_part ;; esac
case $BENCH_PARTS in *duplex*) duplex_part ;; esac
case $BENCH_PARTS in *multigig*) multigig_part ;; esac
exit 0
