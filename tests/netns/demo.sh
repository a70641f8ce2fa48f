#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# demo.sh: the one-command demonstration of what caked is for.
#
# On a Debian 12 machine, as root: installs the packages it needs (only the
# missing ones), builds caked if no build is found, then measures latency
# under load (4 TCP uploads for 20 s with a concurrent 10 Hz ping) through
#   (1) a 20 Mbit kernel HTB bottleneck with a 1000-packet FIFO, and
#   (2) caked shaping the same link to 20 Mbit,
# prints a table (median / p95 / max RTT, goodput) and writes a PNG plot of
# RTT over time for both, and one of caked's own rate, achieved rate,
# delays and drops (cakectl -j watch recorded during the run, drawn by
# contrib/plot/caked-plot). Everything runs in network namespaces it creates
# and deletes; it touches nothing of the host's own network.
#
# Environment: CAKED=path (use this binary), BUILD_DIR=dir (where to build,
# default /tmp/caked-build), DEMO_OUT=dir (where the plot goes),
# DEMO_SECS=20 (load duration), NETNS_FORWARDER=tapfwd (run the bare
# forwarder instead of caked: testbed check only).

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
secs=${DEMO_SECS:-20}
out=${DEMO_OUT:-/tmp/caked-demo.$$}

say()
{
	printf '[demo %s] %s\n' "$(date +%H:%M:%S)" "$*"
}

[ "$(id -u)" = 0 ] || { echo "demo.sh: run me as root (network namespaces)"; exit 1; }

# ---- 1. packages -----------------------------------------------------------
pkgs="iproute2 iputils-ping iperf3 jq gnuplot-nox ethtool procps util-linux
    build-essential autoconf automake libtool pkg-config libevent-dev
    libmnl-dev libnetfilter-conntrack-dev libcmocka-dev libiniparser-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q update >/dev/null &&
	    apt-get -y -q install $missing >/dev/null ||
	    { echo "demo.sh: apt-get install failed"; exit 1; }
else
	say "all packages present"
fi

# ---- 2. caked --------------------------------------------------------------
find_build()
{
	local d

	for d in "${BUILD_DIR:-/tmp/caked-build}" "${top_builddir:-}" "$srcdir"; do
		[ -n "$d" ] && [ -x "$d/caked" ] && { echo "$d"; return 0; }
	done
	return 1
}

if [ -n "${CAKED:-}" ] && [ -x "$CAKED" ]; then
	build=$(dirname "$CAKED")
elif ! build=$(find_build); then
	build=${BUILD_DIR:-/tmp/caked-build}
	say "building caked in $build (log: $build/build.log)"
	mkdir -p "$build" || exit 1
	(
		cd "$srcdir" && { [ -x configure ] || autoreconf -fi; } &&
		cd "$build" && { [ -f Makefile ] || "$srcdir/configure" -q; } &&
		make -j"$(nproc)" caked cakectl tests/bench/tapfwd
	) >"$build/build.log" 2>&1
	if [ ! -x "$build/caked" ] && [ "${NETNS_FORWARDER:-caked}" != tapfwd ]; then
		tail -n 20 "$build/build.log"
		echo "demo.sh: caked did not build (see $build/build.log)"
		exit 1
	fi
fi
say "using build in $build"
export top_builddir=$build top_srcdir=$srcdir
: "${CAKED:=$build/caked}"
: "${TAPFWD:=$build/tests/bench/tapfwd}"
if [ ! -x "$TAPFWD" ] && [ -f "$build/Makefile" ]; then
	make -C "$build" tests/bench/tapfwd >/dev/null 2>&1
fi
export CAKED TAPFWD

# ---- 3. testbeds and measurements -----------------------------------------
. "$here/lib.sh"
netns_init ping iperf3 jq ss tc gnuplot
netns_require_caked
mkdir -p "$out" || exit 1

# demo_run LABEL: 4 TCP uploads for $secs s and a 10 Hz ping started with
# them; progress every 5 s; RTT samples to $out/LABEL.dat as "t_s rtt_ms".
demo_run()
{
	local label=$1 ipid ppid t0 el last next=5

	timeout $((secs + 20)) ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" \
	    -J -t "$secs" -P 4 $IPERF_CC >"$NETNS_TMP/$label.json" 2>&1 9>&- &
	ipid=$!
	netns_track "$ipid"
	netns_ping_bg "$NS_C" "$SERVER_IP" $((secs * 10)) \
	    "$NETNS_TMP/$label.ping" 0.1
	ppid=$PING_PID
	t0=$(date +%s)
	while kill -0 "$ppid" 2>/dev/null; do
		sleep 1
		el=$(($(date +%s) - t0))
		if [ "$el" -ge "$next" ]; then
			next=$((next + 5))
			last=$(sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' \
			    "$NETNS_TMP/$label.ping" | tail -n 1)
			say "  $label: ${el}/${secs} s, current RTT ${last:-?} ms"
		fi
	done
	wait "$ppid"
	wait "$ipid"
	sed -n 's/^\[\([0-9.]*\)\].*time=\([0-9.]*\) ms.*/\1 \2/p' \
	    "$NETNS_TMP/$label.ping" |
	    awk 'NR == 1 { t0 = $1 } { printf "%.2f %s\n", $1 - t0, $2 }' \
	    >"$out/$label.dat"
	# statistics over the loaded part: from 2 s on
	awk '$1 >= 2 { print $2 }' "$out/$label.dat" | sort -n |
	    awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan nan nan"; exit }
		i = int(NR * 0.95); if (i < NR * 0.95) i++
		printf "%.1f %.1f %.1f\n", v[int((NR + 1) / 2)], v[i], v[NR] }' \
	    >"$out/$label.stats"
	netns_goodput "$NETNS_TMP/$label.json" >"$out/$label.goodput"
}

say "TCP congestion control of the load: ${NETNS_TCP_CC:-host default}"
say "(1/2) kernel HTB 20 Mbit + 1000-packet FIFO: building the testbed"
netns_topo_plain h
netns_iperf_server
netns_htb_fifo vs 20mbit 1000 2>/dev/null
netns_wait_ping || fail "HTB testbed has no connectivity"
say "(1/2) 4 TCP uploads for $secs s with a 10 Hz ping"
demo_run htb

say "(2/2) caked 20 Mbit: building the TAP testbed"
netns_topo_tap
netns_iperf_server
netns_start_caked 20mbit 20mbit
label2=caked
[ "${NETNS_FORWARDER:-caked}" = tapfwd ] && label2="tapfwd (unshaped)"
say "(2/2) 4 TCP uploads for $secs s with a 10 Hz ping"
# caked's own view of the run, one stats reply a second, for caked-plot.
wpid=""
if [ -x "$build/cakectl" ] && [ "${NETNS_FORWARDER:-caked}" = caked ]; then
	"$build/cakectl" -s "$NETNS_TMP/caked.sock" -j -n $((secs + 2)) \
	    watch >"$out/caked-watch.jsonl" 2>/dev/null 9>&- &
	wpid=$!
	netns_track "$wpid"
fi
demo_run caked
[ -n "$wpid" ] && wait "$wpid"
netns_stop_fwd

# ---- 4. results ------------------------------------------------------------
echo
printf '%-28s %10s %10s %10s %14s\n' "20 Mbit, 4 TCP uploads" \
    "median ms" "p95 ms" "max ms" "goodput Mbit/s"
for l in htb caked; do
	name="HTB + 1000-packet FIFO"
	[ "$l" = caked ] && name=$label2
	read -r med p95 max <"$out/$l.stats"
	printf '%-28s %10s %10s %10s %14s\n' "$name" "$med" "$p95" "$max" \
	    "$(mbit "$(cat "$out/$l.goodput")")"
done
echo

read -r hmed hp95 _ <"$out/htb.stats"
read -r cmed cp95 _ <"$out/caked.stats"
gnuplot <<EOF 2>"$out/gnuplot.log"
set terminal pngcairo size 1000,600 font "sans,11"
set output "$out/latency.png"
set title "Ping RTT under 4 TCP uploads at 20 Mbit"
set xlabel "time since the load started (s)"
set ylabel "RTT (ms, log scale)"
set logscale y
set grid
set key below
set xrange [0:$secs]
plot "$out/htb.dat" using 1:2 with linespoints pt 7 ps 0.4 lw 1.5 lc rgb "#d62728" title "kernel HTB + 1000-packet FIFO (median $hmed ms, p95 $hp95 ms)", \
     "$out/caked.dat" using 1:2 with linespoints pt 7 ps 0.4 lw 1.5 lc rgb "#1f77b4" title "$label2 (median $cmed ms, p95 $cp95 ms)"
EOF
if [ -s "$out/latency.png" ]; then
	say "plot written to $out/latency.png"
else
	say "gnuplot failed: $(cat "$out/gnuplot.log")"
fi
if [ -s "$out/caked-watch.jsonl" ] && bash "$srcdir/contrib/plot/caked-plot" \
    -o "$out/caked.png" -t "caked at 20 Mbit, 4 TCP uploads" \
    "$out/caked-watch.jsonl" >/dev/null 2>"$out/caked-plot.log"; then
	say "caked's rates, delays and drops (caked-plot): $out/caked.png"
else
	say "caked-plot: no plot of caked's statistics" \
	    "($(cat "$out/caked-plot.log" 2>/dev/null))"
fi
say "done; testbeds removed"
