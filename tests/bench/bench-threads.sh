#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# bench-threads: full-duplex TCP through caked shaped at BENCH_DUPLEX_RATE
# (default 900mbit) each way, once per [general] threads value caked
# accepts (BENCH_THREADS, default "1 2"; a value caked -t refuses is
# printed as such): iperf3 --bidir for BENCH_DUPLEX_SECS with a 20 Hz
# ping from 2 s in, then per run the goodput each way / the rate, the
# ping under load against idle, caked's CPU time in cores (all threads)
# and its busiest thread's share of a core (utime+stime of
# /proc/PID/task/*). veths with the kernel's default offloads, as a
# gateway's NICs have, so caked's vnet path carries super-packets.
#
# Markdown on stdout, progress on stderr; it reports and never fails on
# time. Run as root (about half a minute per value):
#   top_builddir=build bash tests/bench/bench-threads.sh
: "${top_builddir:=.}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
BENCH_DUPLEX_RATE=${BENCH_DUPLEX_RATE:-900mbit}
BENCH_DUPLEX_SECS=${BENCH_DUPLEX_SECS:-10}
BENCH_THREADS=${BENCH_THREADS:-1 2}

if [ "$(id -u)" != 0 ] || ! command -v iperf3 >/dev/null 2>&1 ||
    ! command -v jq >/dev/null 2>&1; then
	echo "## Threads benchmark"
	echo
	echo "skipped: needs root, iperf3 and jq"
	exit 0
fi

. "$top_srcdir/tests/netns/lib.sh"

log()
{
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

# The kernel's default offloads on the veths (lib.sh turns them off).
netns_no_offload()
{
	return 0
}

netns_init ping iperf3 jq ss >&2
netns_require_caked

# ticks TASKDIR...: utime+stime of each, one per line.
ticks()
{
	local t

	for t in "$@"; do
		awk '{ print $14 + $15 }' "$t/stat" 2>/dev/null || echo 0
	done
}

# duplex_run N: one row for threads = N.
duplex_run()
{
	local n=$1 idle tasks before after t0 t1 ipid up down st hz

	NETNS_CONF_GENERAL="threads = $n"
	netns_write_conf "$BENCH_DUPLEX_RATE" "$BENCH_DUPLEX_RATE"
	if ! "$CAKED" -t -c "$FWD_CONF" >"$NETNS_TMP/check-$n.log" 2>&1; then
		printf '| %s | refused by this caked: %s | | | | | |\n' "$n" \
		    "$(head -n 1 "$NETNS_TMP/check-$n.log" | sed 's/.*: //')"
		return
	fi
	netns_start_caked "$BENCH_DUPLEX_RATE" "$BENCH_DUPLEX_RATE" >&2
	netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/idle-$n.txt"
	idle=$(netns_ping_stats "$NETNS_TMP/idle-$n.txt" | cut -d' ' -f1)
	tasks=$(ls -d /proc/"$FWD_PID"/task/* | tr '\n' ' ')
	hz=$(getconf CLK_TCK)
	before=$(ticks $tasks | tr '\n' ' ') t0=$(date +%s%N)
	timeout $((BENCH_DUPLEX_SECS + 20)) ip netns exec "$NS_C" iperf3 \
	    -c "$SERVER_IP" -J -t "$BENCH_DUPLEX_SECS" --bidir $IPERF_CC \
	    >"$NETNS_TMP/duplex-$n.json" 2>&1 9>&- &
	ipid=$!
	netns_track "$ipid"
	sleep 2
	netns_ping "$NS_C" "$SERVER_IP" $(((BENCH_DUPLEX_SECS - 3) * 20)) \
	    "$NETNS_TMP/load-$n.txt"
	wait "$ipid"
	after=$(ticks $tasks | tr '\n' ' ') t1=$(date +%s%N)
	netns_stop_fwd >&2
	up=$(jq -r '.end.sum_received.bits_per_second // 0' \
	    "$NETNS_TMP/duplex-$n.json")
	down=$(jq -r '.end.sum_received_bidir_reverse.bits_per_second // 0' \
	    "$NETNS_TMP/duplex-$n.json")
	st=$(netns_ping_stats "$NETNS_TMP/load-$n.txt")
	awk -v n="$n" -v up="$up" -v down="$down" -v rate="$RATE_BPS" \
	    -v idle="$idle" -v st="$st" -v b="$before" -v a="$after" \
	    -v hz="$hz" -v ns="$((t1 - t0))" 'BEGIN {
		split(st, s, " "); nb = split(b, x, " "); split(a, y, " ")
		tot = 0; top = 0
		for (i = 1; i <= nb; i++) {
			d = y[i] - x[i]; tot += d; if (d > top) top = d
		}
		secs = ns / 1e9; c = hz * secs
		printf "| %s | %.1f (%.3f) | %.1f (%.3f) | %s / %s | %s | " \
		    "%.2f | %.2f |\n", n, up / 1e6, up / rate, down / 1e6,
		    down / rate, idle, s[1], s[4], tot / c, top / c
	}'
}

rate_bps()
{
	case $1 in
	*gbit) echo $(( ${1%gbit} * 1000000000 )) ;;
	*mbit) echo $(( ${1%mbit} * 1000000 )) ;;
	*) echo 0 ;;
	esac
}

RATE_BPS=$(rate_bps "$BENCH_DUPLEX_RATE")
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "## Threads benchmark: full duplex at $BENCH_DUPLEX_RATE each way"
echo
echo "Machine: $(nproc) cores, ${model:-unknown CPU}, Linux $(uname -r)."
echo "iperf3 --bidir, one TCP stream each way for ${BENCH_DUPLEX_SECS} s;"
echo "20 Hz ping from 2 s in. CPU: caked's utime+stime over the run, in"
echo "cores; busiest thread: the largest one thread's share of a core."
echo
echo "| threads | upload Mbit/s (/ rate) | download Mbit/s (/ rate) |" \
    "ping ms idle / loaded median | ping loss % | CPU cores |" \
    "busiest thread |"
echo "|---|---:|---:|---|---:|---:|---:|"
netns_topo_tap >&2
netns_iperf_server >&2
for n in $BENCH_THREADS; do
	duplex_run "$n"
done
echo
exit 0
