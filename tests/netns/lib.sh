# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# tests/netns/lib.sh: helpers sourced by every network-namespace test.
#
# Builds small testbeds out of namespaces, veth pairs and bridges, starts a
# forwarder (caked, or the bare tests/bench/tapfwd) inside the router
# namespace, and measures: ping RTT statistics and iperf3 goodput.
#
# Rules it enforces (doc/testing.md, "Testbed rules"): every address used lives
# inside namespaces this run created (10.201.x.x, 10.202.x.x); namespaces are
# named with a per-run prefix; every load is bounded; everything started is
# stopped by its saved PID; everything is deleted on EXIT even on failure.
# It must not touch the root namespace's interfaces, routes or sysctls.
#
# Environment: top_builddir / top_srcdir (set by make check), CAKED (path
# of the caked binary, default $top_builddir/caked), TAPFWD (default
# $top_builddir/tests/bench/tapfwd), NETNS_TCP_CC (TCP congestion control
# of the iperf3 loads, default cubic as on a stock Debian host; the host's
# own default may differ, e.g. bbr), NETNS_KEEP_LOGS=1 keeps the temp dir,
# NETNS_FORWARDER=tapfwd runs the bare forwarder where caked would run (to
# check a testbed's mechanics; rate and latency checks then fail),
# NETNS_CONF=FILE runs caked with FILE as it is instead of a generated
# configuration (CI: the installed package's /etc/caked.conf, edited as
# the README says; it must name the devices tlan and twan and match the
# rates the test asks for), CAKED_THREADS=1|2 adds "threads = N" to the
# [general] section of every configuration a caked of the test reads
# (tests/netns/caked-threads.sh runs as $CAKED; CAKED_BIN is the binary).

set -u

: "${top_builddir:=.}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CAKED:=$top_builddir/caked}"
if [ -n "${CAKED_THREADS:-}" ] && [ "${CAKED##*/}" != caked-threads.sh ]; then
	case $CAKED_THREADS in
	1|2) ;;
	*) echo "CAKED_THREADS=$CAKED_THREADS: expected 1 or 2" >&2; exit 99 ;;
	esac
	CAKED_BIN=$CAKED
	CAKED=$top_srcdir/tests/netns/caked-threads.sh
	export CAKED_BIN CAKED_THREADS
fi
: "${CAKED_BIN:=$CAKED}"
: "${TAPFWD:=$top_builddir/tests/bench/tapfwd}"

NETNS_PFX="ck$$"		# per-run prefix of every namespace
: "${NETNS_TCP_CC:=cubic}"
grep -qw "$NETNS_TCP_CC" /proc/sys/net/ipv4/tcp_available_congestion_control \
    2>/dev/null || NETNS_TCP_CC=""
IPERF_CC=${NETNS_TCP_CC:+-C $NETNS_TCP_CC}
NETNS_LIST=""			# namespaces this run created
NETNS_PIDS=""			# background processes this run started
NETNS_TMP=""			# temp dir: configs, logs, ping and iperf3 output
NETNS_FAILED=0
FWD_PID=""			# the forwarder (caked or tapfwd) of the topology
FWD_CONF=""

# Address plan. TAP and plain topologies: one L2 subnet 10.201.1.0/24.
# TUN topology: client 10.202.1.0/24, server 10.202.2.0/24, router between.
CLIENT_IP=""
SERVER_IP=""
NS_C=""
NS_R=""
NS_S=""
LAN_DEV=tlan
WAN_DEV=twan
TOPO=""				# tap, tun or plain, set by netns_topo_*

log()
{
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"
}

# skip WHY: the test cannot run here (77). A check that already failed
# wins: a run with a FAIL line never reports SKIP.
skip()
{
	if [ "$NETNS_FAILED" != 0 ]; then
		echo "FAIL: checks failed before the skip ($*)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

fail()
{
	echo "FAIL: $*"
	NETNS_FAILED=1
	exit 1
}

# ---- requirements ----------------------------------------------------------

netns_require()
{
	# make distcheck sets this: the namespace tests have run in the other
	# passes of tests/run-all.sh already, and take minutes each time.
	[ -z "${CAKED_SKIP_NETNS:-}" ] ||
	    skip "CAKED_SKIP_NETNS is set (namespace tests run in another pass)"
	local t

	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
	[ -c /dev/net/tun ] || skip "/dev/net/tun missing"
	for t in ip awk sort timeout "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "tool '$t' not installed"
	done
	ip netns add "${NETNS_PFX}probe" 2>/dev/null ||
	    skip "cannot create network namespaces"
	ip netns del "${NETNS_PFX}probe"
}

netns_require_tapfwd()
{
	[ -x "$TAPFWD" ] || skip "tapfwd not built at $TAPFWD"
}

# netns_require_caked [WHAT_PASSED]: SKIP unless caked is built.
netns_require_caked()
{
	[ "${NETNS_FORWARDER:-caked}" = tapfwd ] && return 0
	[ -x "$CAKED" ] || skip "${1:+$1; }caked not built at $CAKED"
}

# netns_require_cakectl: SKIP unless cakectl is built; sets CAKECTL.
netns_require_cakectl()
{
	CAKECTL=${CAKECTL:-$top_builddir/cakectl}
	[ -x "$CAKECTL" ] || skip "cakectl not built at $CAKECTL"
}

# Only one netns test at a time: `make -j check` would otherwise run the
# load tests concurrently and spoil each other's figures. The lock is fd 9;
# background children are started with 9>&- so none can keep it.
netns_lock()
{
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>"${TMPDIR:-/tmp}/caked-netns-tests.lock"
	flock -n 9 && return 0
	log "waiting for another netns test to finish (lock)"
	flock -w 600 9 || fail "could not take the netns test lock"
}

# ---- setup and cleanup -----------------------------------------------------

netns_cleanup()
{
	local rc=$? pid ns

	trap - EXIT INT TERM
	# A failed check turns any exit status, 0 and 77 included, into 1.
	[ "$NETNS_FAILED" = 0 ] || rc=1
	for pid in $NETNS_PIDS; do
		netns_is_child "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for pid in $NETNS_PIDS; do
		netns_reap "$pid"
	done
	for ns in $NETNS_LIST; do
		ip netns del "$ns" 2>/dev/null
	done
	if [ -n "$NETNS_TMP" ] && [ -d "$NETNS_TMP" ]; then
		netns_sanitizer_check || rc=1
		if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -f "$NETNS_TMP/fwd.log" ]; then
			echo "---- forwarder log (last 30 lines) ----"
			tail -n 30 "$NETNS_TMP/fwd.log"
		fi
		if [ "${NETNS_KEEP_LOGS:-0}" = 1 ]; then
			echo "logs kept in $NETNS_TMP"
		else
			rm -rf "$NETNS_TMP"
		fi
	fi
	exit "$rc"
}

# A sanitizer build of caked (configure --enable-sanitizers) writes its
# reports to stderr, which the tests keep in $NETNS_TMP: any report there
# fails the test, whatever its checks said.
netns_sanitizer_check()
{
	local f

	f=$(grep -rlE 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:' \
	    "$NETNS_TMP" 2>/dev/null) || return 0
	for f in $f; do
		echo "FAIL: sanitizer report in ${f##*/}:"
		grep -A 30 -E 'ERROR: [A-Za-z]*Sanitizer|runtime error:' "$f" |
		    head -n 60
	done
	return 1
}

netns_init()
{
	netns_require "$@"
	NETNS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/caked-netns.XXXXXX") ||
	    fail "mktemp"
	trap netns_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	netns_lock
}

# netns_is_child PID: true while PID is a running (not zombie) child of this
# shell
# (never signal a PID that has been reused by someone else's process).
netns_is_child()
{
	[ "$(awk '/^State:/ { s = $2 } /^PPid:/ { p = $2 }
	    END { if (s != "Z") print p }' "/proc/$1/status" 2>/dev/null)" = $$ ]
}

# Remember a background PID so cleanup stops it.
netns_track()
{
	NETNS_PIDS="$NETNS_PIDS $1"
}

# netns_reap PID: waits up to 3 s for a signalled child to end, then
# kills it, and collects its status.
netns_reap()
{
	local i

	for i in $(seq 1 30); do
		netns_is_child "$1" || break
		sleep 0.1
	done
	netns_is_child "$1" && kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# Stop one tracked process by PID and wait for it.
netns_stop_pid()
{
	local pid=$1

	netns_is_child "$pid" && kill -TERM "$pid" 2>/dev/null
	netns_reap "$pid"
	NETNS_PIDS=$(echo "$NETNS_PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
}

netns_add()
{
	ip netns add "$1" || fail "ip netns add $1"
	NETNS_LIST="$NETNS_LIST $1"
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
}

# Turn off segmentation and receive offloads so that every queue on the way
# (HTB, the TAP device, caked) sees MTU-sized packets, as on a real link.
netns_no_offload()
{
	command -v ethtool >/dev/null 2>&1 || return 0
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off \
	    >/dev/null 2>&1 || true
}

# netns_veth NS_A DEV_A NS_B DEV_B: a veth pair between two namespaces.
netns_veth()
{
	ip -n "$1" link add "$2" type veth peer name "$4" netns "$3" ||
	    fail "veth $1:$2 - $3:$4"
	netns_no_offload "$1" "$2"
	netns_no_offload "$3" "$4"
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

netns_bridge()
{
	ip -n "$1" link add "$2" type bridge stp_state 0 forward_delay 0 ||
	    fail "bridge $2"
	ip -n "$1" link set "$2" up
}

# The three namespaces every topology has; $1 tags a second testbed of the
# same run (e.g. "h" for the HTB comparison).
netns_hosts()
{
	local tag=${1:-}

	NS_C="${NETNS_PFX}${tag}c"
	NS_R="${NETNS_PFX}${tag}r"
	NS_S="${NETNS_PFX}${tag}s"
	netns_add "$NS_C"
	netns_add "$NS_R"
	netns_add "$NS_S"
	netns_veth "$NS_C" eth0 "$NS_R" vc
	netns_veth "$NS_S" eth0 "$NS_R" vs
}

# (a) TAP bump in the wire. client -- vc [br-lan + tlan] FWD [twan + br-wan]
# vs -- server; one subnet. The forwarder is attached by netns_attach_tap.
netns_topo_tap()
{
	netns_hosts "${1:-}"
	CLIENT_IP=10.201.1.1
	SERVER_IP=10.201.1.2
	TOPO=tap
	ip -n "$NS_C" addr add "$CLIENT_IP/24" dev eth0
	ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0
	netns_bridge "$NS_R" br-lan
	netns_bridge "$NS_R" br-wan
	ip -n "$NS_R" link set vc master br-lan
	ip -n "$NS_R" link set vs master br-wan
}

# Plain bridge, no forwarder: the kernel-only baseline (HTB goes on vs).
netns_topo_plain()
{
	netns_hosts "${1:-}"
	CLIENT_IP=10.201.1.1
	SERVER_IP=10.201.1.2
	TOPO=plain
	ip -n "$NS_C" addr add "$CLIENT_IP/24" dev eth0
	ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0
	netns_bridge "$NS_R" br0
	ip -n "$NS_R" link set vc master br0
	ip -n "$NS_R" link set vs master br0
}

# (b) TUN: routed. Packets arriving on vc go to tlan (table 100), packets
# arriving on vs go to twan (table 200); what the forwarder writes into
# twan / tlan is forwarded by the main table to vs / vc.
netns_topo_tun()
{
	local r

	netns_hosts "${1:-}"
	CLIENT_IP=10.202.1.1
	SERVER_IP=10.202.2.2
	TOPO=tun
	r="ip netns exec $NS_R sysctl -qw"
	$r net.ipv4.ip_forward=1
	$r net.ipv4.conf.all.rp_filter=0
	$r net.ipv4.conf.default.rp_filter=0
	$r net.ipv4.conf.vc.rp_filter=0
	$r net.ipv4.conf.vs.rp_filter=0
	$r net.ipv4.conf.all.send_redirects=0
	ip -n "$NS_C" addr add "$CLIENT_IP/24" dev eth0
	ip -n "$NS_C" route add default via 10.202.1.254
	ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0
	ip -n "$NS_S" route add default via 10.202.2.254
	ip -n "$NS_R" addr add 10.202.1.254/24 dev vc
	ip -n "$NS_R" addr add 10.202.2.254/24 dev vs
	ip -n "$NS_R" rule add iif vc lookup 100 pref 100
	ip -n "$NS_R" rule add iif vs lookup 200 pref 200
}

# netns_topo_tun_via: the TUN testbed with a third namespace NS_M between
# router and server; its devices mr (toward the router) and ms (toward
# the server) carry no address: the caller bridges them.
netns_topo_tun_via()
{
	netns_topo_tun
	NS_M="${NETNS_PFX}m"
	netns_add "$NS_M"
	ip -n "$NS_R" link del vs
	netns_veth "$NS_R" vs "$NS_M" mr
	netns_veth "$NS_M" ms "$NS_S" eth0
	ip -n "$NS_R" addr add 10.202.2.254/24 dev vs
	ip netns exec "$NS_R" sysctl -qw net.ipv4.conf.vs.rp_filter=0
	ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0
	ip -n "$NS_S" route add default via 10.202.2.254
}

# (c) NAT gateway. Two LAN hosts A (NS_C, 10.203.1.1) and B (NS_B,
# 10.203.1.2) on br-hosts behind the router (10.203.1.254), which
# masquerades (nftables) to its WAN address 10.204.0.1 on br-lan; the
# forwarder's TAP devices sit between br-lan and br-wan (server side,
# 10.204.0.2), so it sees post-NAT packets. The TAP devices are made
# persistent here (so a forwarder without CAP_NET_ADMIN can attach) and
# deleted with the namespace.
netns_topo_nat()
{
	local r="ip -n ${NETNS_PFX}r" x="ip netns exec ${NETNS_PFX}r" d

	NS_C="${NETNS_PFX}a"
	NS_B="${NETNS_PFX}b"
	NS_R="${NETNS_PFX}r"
	NS_S="${NETNS_PFX}s"
	for d in "$NS_C" "$NS_B" "$NS_R" "$NS_S"; do
		netns_add "$d"
	done
	CLIENT_IP=10.203.1.1
	CLIENT_B_IP=10.203.1.2
	SERVER_IP=10.204.0.2
	TOPO=tap
	netns_veth "$NS_C" eth0 "$NS_R" va
	netns_veth "$NS_B" eth0 "$NS_R" vb
	netns_veth "$NS_S" eth0 "$NS_R" vs
	ip -n "$NS_C" addr add "$CLIENT_IP/24" dev eth0
	ip -n "$NS_B" addr add "$CLIENT_B_IP/24" dev eth0
	ip -n "$NS_C" route add default via 10.203.1.254
	ip -n "$NS_B" route add default via 10.203.1.254
	ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0
	# bridged frames must not pass through the router's netfilter
	$x sysctl -qw net.bridge.bridge-nf-call-iptables=0 2>/dev/null
	$x sysctl -qw net.bridge.bridge-nf-call-ip6tables=0 2>/dev/null
	$x sysctl -qw net.ipv4.ip_forward=1
	netns_bridge "$NS_R" br-hosts
	netns_bridge "$NS_R" br-lan
	netns_bridge "$NS_R" br-wan
	$r link set va master br-hosts
	$r link set vb master br-hosts
	$r link set vs master br-wan
	$r addr add 10.203.1.254/24 dev br-hosts
	$r addr add 10.204.0.1/24 dev br-lan
	for d in "$LAN_DEV" "$WAN_DEV"; do
		$r tuntap add dev "$d" mode tap || fail "tuntap add $d"
		netns_no_offload "$NS_R" "$d"
		$r link set "$d" mtu 1500 up
	done
	$r link set "$LAN_DEV" master br-lan
	$r link set "$WAN_DEV" master br-wan
	$x nft -f - <<-EOF || fail "nft masquerade"
	table ip caked_nat {
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "br-lan" masquerade
		}
	}
	EOF
}

# ---- forwarders ------------------------------------------------------------

netns_wait_dev()
{
	local i

	for i in $(seq 1 100); do
		ip -n "$NS_R" link show dev "$1" >/dev/null 2>&1 && return 0
		kill -0 "$FWD_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# Called once the forwarder has created its devices: wire them in.
netns_attach()
{
	local r="ip -n $NS_R" d

	netns_wait_dev "$LAN_DEV" && netns_wait_dev "$WAN_DEV" ||
	    fail "forwarder did not create $LAN_DEV/$WAN_DEV (see log)"
	for d in "$LAN_DEV" "$WAN_DEV"; do
		$r link set "$d" mtu 1500 up
		ip netns exec "$NS_R" sysctl -qw "net.ipv4.conf.$d.rp_filter=0" \
		    2>/dev/null
	done
	if [ "$TOPO" = tap ]; then
		$r link set "$LAN_DEV" master br-lan
		$r link set "$WAN_DEV" master br-wan
	else
		$r route replace 10.202.2.0/24 dev "$LAN_DEV" table 100
		$r route replace 10.202.1.0/24 dev "$WAN_DEV" table 200
	fi
	netns_wait_ping || fail "no connectivity through the forwarder"
}

netns_start_tapfwd()
{
	local flag=""

	[ "$TOPO" = tun ] && flag=-u
	ip netns exec "$NS_R" "$TAPFWD" $flag "$LAN_DEV" "$WAN_DEV" \
	    >"$NETNS_TMP/fwd.log" 2>&1 9>&- &
	FWD_PID=$!
	netns_track "$FWD_PID"
	netns_attach
	log "tapfwd running (pid $FWD_PID, $TOPO)"
}

# netns_write_conf UPLOAD_RATE DOWNLOAD_RATE [EXTRA_OPTIONS]: the caked
# config for the current topology. Without EXTRA_OPTIONS each direction is
# "bandwidth = RATE" (CAKE defaults: raw framing, triple-isolate, diffserv3);
# with them it is one tc-cake style line: options = "bandwidth RATE EXTRA".
# NETNS_CONF_DIR (e.g. "workers = 2") is added to both direction sections.
netns_write_conf()
{
	local extra=${3:-}

	FWD_CONF="$NETNS_TMP/caked.conf"
	{
		echo "[general]"
		echo "mode = $TOPO"
		echo "lan = $LAN_DEV"
		echo "wan = $WAN_DEV"
		echo "mtu = 1500"
		# a private control socket (cakectl -s "$NETNS_TMP/caked.sock")
		echo "control = $NETNS_TMP/caked.sock"
		# kept in the files a test rewrites for a reload as well; a
		# test that sets threads itself keeps its own value
		case ${NETNS_CONF_GENERAL:-} in
		threads*|*"
threads"*) ;;
		*) [ -n "${CAKED_THREADS:-}" ] && echo "threads = $CAKED_THREADS" ;;
		esac
		[ -n "${NETNS_CONF_GENERAL:-}" ] &&
		    printf '%s\n' "$NETNS_CONF_GENERAL"
		netns_conf_section upload "$1" "$extra"
		netns_conf_section download "$2" "$extra"
	} >"$FWD_CONF.tmp"
	mv "$FWD_CONF.tmp" "$FWD_CONF"
}

# netns_conf_section NAME RATE EXTRA_OPTIONS: one direction's section of
# netns_write_conf.
netns_conf_section()
{
	echo "[$1]"
	if [ -n "$3" ]; then
		echo "options = \"bandwidth $2 $3\""
	else
		echo "bandwidth = $2"
	fi
	[ -n "${NETNS_CONF_DIR:-}" ] && printf '%s\n' "$NETNS_CONF_DIR"
	return 0
}

# netns_start_caked UPLOAD_RATE DOWNLOAD_RATE [EXTRA_OPTIONS]
netns_start_caked()
{
	if [ -n "${NETNS_CONF:-}" ]; then
		FWD_CONF=$NETNS_CONF
		log "NETNS_CONF: caked reads $FWD_CONF as it is"
	else
		netns_write_conf "$@"
	fi
	if [ "${NETNS_FORWARDER:-caked}" = tapfwd ]; then
		# testbed development only: no shaping, figures meaningless
		log "NETNS_FORWARDER=tapfwd: starting tapfwd instead of caked"
		netns_start_tapfwd
		return
	fi
	netns_run_caked
	log "caked running (pid $FWD_PID, $TOPO, up $1, down $2)"
}

# netns_run_caked [LABEL]: checks $FWD_CONF with caked -t, starts caked on
# it in the router (FWD_PID) and wires its devices in. Its output goes to
# fwd.log, or with LABEL to fwd-LABEL.log (and the check's to
# check-LABEL.log), so that each run of a test keeps its own; fwd.log then
# links to the latest, as cleanup shows fwd.log when a test fails.
netns_run_caked()
{
	local sfx=${1:+-$1}

	"$CAKED" -t -c "$FWD_CONF" >"$NETNS_TMP/check$sfx.log" 2>&1 || {
		cat "$NETNS_TMP/check$sfx.log"
		fail "caked -t rejected $FWD_CONF"
	}
	ip netns exec "$NS_R" "$CAKED" -c "$FWD_CONF" \
	    >"$NETNS_TMP/fwd$sfx.log" 2>&1 9>&- &
	FWD_PID=$!
	netns_track "$FWD_PID"
	if [ -n "$sfx" ]; then
		ln -sf "fwd$sfx.log" "$NETNS_TMP/fwd.log"
	fi
	netns_attach
}

netns_stop_fwd()
{
	[ -n "$FWD_PID" ] && netns_stop_pid "$FWD_PID"
	FWD_PID=""
}

# ---- measurements ----------------------------------------------------------

# Wait until the client reaches the server (at most ~5 s).
netns_wait_ping()
{
	local i

	for i in $(seq 1 10); do
		ip netns exec "$NS_C" ping -n -q -c 1 -W 0.5 "$SERVER_IP" \
		    >/dev/null 2>&1 && return 0
		kill -0 "$FWD_PID" 2>/dev/null || [ -z "$FWD_PID" ] || return 1
	done
	return 1
}

# netns_ping FROM_NS DEST COUNT OUTFILE: 20 Hz ping, in the foreground.
netns_ping()
{
	ip netns exec "$1" ping -n -D -i 0.05 -W 1 -c "$3" "$2" >"$4" 2>&1
}

# netns_bg NS DELAY COMMAND...: COMMAND in namespace NS in the
# background, tracked ($! is its PID), after DELAY s if DELAY is set. The
# namespace is entered at once and the delay spent inside it: entering
# (ip netns exec's mounts, then the loader) takes tens of ms of CPU, and
# on a machine that a load fills by then it took them from the forwarder
# (test_isolation.sh: 24 to 1136 frames lost in the TAP queues at the
# launch, a forwarder's first ping with them), so a command meant to
# start under load is launched before it.
netns_bg()
{
	local ns=$1 delay=$2

	shift 2
	if [ -n "$delay" ]; then
		ip netns exec "$ns" sh -c 'sleep "$0"; exec "$@"' "$delay" \
		    "$@" 9>&- &
	else
		ip netns exec "$ns" "$@" 9>&- &
	fi
	netns_track $!
}

# netns_ping_bg FROM_NS DEST COUNT OUTFILE [INTERVAL [DELAY]]: the same
# in the background, every INTERVAL s (0.05 unless set), from DELAY s on
# (netns_bg); the PID is in PING_PID.
netns_ping_bg()
{
	netns_bg "$1" "${6:-}" ping -n -D -i "${5:-0.05}" -W 1 -c "$3" "$2" \
	    >"$4" 2>&1
	PING_PID=$!
}

# netns_ping_stats FILE: prints "median p95 max loss_pct count" (ms, %).
netns_ping_stats()
{
	local loss

	loss=$(sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p' "$1")
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' "$1" | sort -n |
	    awk -v loss="${loss:-100}" '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { printf "nan nan nan %s 0\n", loss; exit }
			m = v[int((NR + 1) / 2)]
			i = int(NR * 0.95); if (i < NR * 0.95) i++
			if (i < 1) i = 1
			printf "%.3f %.3f %.3f %s %d\n", m, v[i], v[NR], loss, NR
		}'
}

# Start an iperf3 server in the server namespace (one per testbed).
netns_iperf_server()
{
	ip netns exec "$NS_S" iperf3 -s -B "$SERVER_IP" \
	    >"$NETNS_TMP/iperf3-server-$NS_S.log" 2>&1 9>&- &
	netns_track $!
	IPERF_SERVER_PID=$!
	# wait until it listens
	local i
	for i in $(seq 1 50); do
		ip netns exec "$NS_S" ss -ltn 2>/dev/null | grep -q ':5201 ' &&
		    return 0
		sleep 0.05
	done
	fail "iperf3 server did not start"
}

# netns_iperf OUTFILE SECONDS [iperf3 options]: TCP from client to server
# (add -R for server to client). Prints the receiver goodput in bit/s.
netns_iperf()
{
	netns_iperf_bg "$1" "$2" "" "${@:3}"
	wait "$IPERF_PID"
	netns_goodput "$1"
}

# netns_iperf_bg OUTFILE SECONDS DELAY [iperf3 options]: the same in the
# background, from DELAY s on (netns_bg); the PID is in IPERF_PID, the
# goodput for netns_goodput in OUTFILE.
netns_iperf_bg()
{
	local out=$1 secs=$2 delay=$3

	shift 3
	netns_bg "$NS_C" "$delay" timeout $((secs + 20)) iperf3 \
	    -c "$SERVER_IP" -J -t "$secs" -O 1 $IPERF_CC "$@" >"$out" 2>&1
	IPERF_PID=$!
}

# netns_goodput JSONFILE: receiver goodput in bit/s (0 when it failed).
netns_goodput()
{
	local bps

	bps=$(jq -r '.end.sum_received.bits_per_second // 0' "$1" 2>/dev/null)
	printf '%.0f\n' "${bps:-0}"
}

# netns_retransmits JSONFILE: the TCP segments the iperf3 sender
# retransmitted ("?" when the file has no such figure).
netns_retransmits()
{
	jq -r '.end.sum_sent.retransmits // "?"' "$1" 2>/dev/null || echo "?"
}

# mbit BPS: bit/s as Mbit/s with two decimals.
mbit()
{
	awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'
}

# bound_met VALUE OP LIMIT: prints 1 if VALUE OP LIMIT holds, else 0; OP
# is one of lt le gt ge eq (numbers may be fractional). A VALUE that is
# not a number (jq's null for a renamed key, "", nan) meets no OP, and
# neither does a LIMIT that is not one.
bound_met()
{
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		num = "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$"
		if (v !~ num || l !~ num) { print 0; exit }
		if (op == "lt") print (v + 0 < l + 0)
		else if (op == "le") print (v + 0 <= l + 0)
		else if (op == "gt") print (v + 0 > l + 0)
		else if (op == "eq") print (v + 0 == l + 0)
		else print (v + 0 >= l + 0)
	}'
}

# bound_ok VALUE OP LIMIT: bound_met as an exit status, for conditions.
bound_ok()
{
	[ "$(bound_met "$@")" = 1 ]
}

# check NAME VALUE OP LIMIT: one pass/fail line with the measured figure
# (bound_met says which).
check()
{
	if bound_ok "$2" "$3" "$4"; then
		printf 'PASS: %-44s %s (%s %s)\n' "$1" "$2" "$3" "$4"
	else
		printf 'FAIL: %-44s %s (want %s %s)\n' "$1" "$2" "$3" "$4"
		NETNS_FAILED=1
	fi
}

# bounds_hold FUNC: whether every bound FUNC prints holds, one per line as
# "NAME|VALUE|OP|LIMIT" (a run that misses one may be run once more).
bounds_hold()
{
	local name v op lim

	while IFS='|' read -r name v op lim; do
		bound_ok "$v" "$op" "$lim" || return 1
	done < <("$1")
}

# bounds_check FUNC COUNT: check() on each bound FUNC prints (as
# bounds_hold), and that there were COUNT of them.
bounds_check()
{
	local name v op lim n=0

	while IFS='|' read -r name v op lim; do
		check "$name" "$v" "$op" "$lim"
		n=$((n + 1))
	done < <("$1")
	check "$1: bounds checked" "$n" eq "$2"
}

# target NAME VALUE OP LIMIT: a bound printed with its verdict, not
# asserted: a figure the test reports against a goal it cannot hold the
# code to (the reason is the caller's to print).
target()
{
	local ok=MISSED

	bound_ok "$2" "$3" "$4" && ok=met
	log "target $1: $2 ($3 $4) $ok (not asserted)"
}

# End of test: exit status from the checks so far.
netns_finish()
{
	if [ "$NETNS_FAILED" = 0 ]; then
		log "all checks passed"
		exit 0
	fi
	log "some checks FAILED"
	exit 1
}

# ---- shared test bodies ----------------------------------------------------

# netns_basic_checks LABEL [RATE_MBIT]: ping and TCP both ways through the
# forwarder; with RATE_MBIT also that TCP was shaped (so it went through).
netns_basic_checks()
{
	local label=$1 rate=${2:-} st up down

	netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/ping-cs.txt"
	st=$(netns_ping_stats "$NETNS_TMP/ping-cs.txt")
	log "$label ping client->server: median/p95/max ms, loss%: $st"
	check "$label ping client->server loss %" "$(echo "$st" | cut -d' ' -f4)" le 0
	netns_ping "$NS_S" "$CLIENT_IP" 20 "$NETNS_TMP/ping-sc.txt"
	st=$(netns_ping_stats "$NETNS_TMP/ping-sc.txt")
	log "$label ping server->client: median/p95/max ms, loss%: $st"
	check "$label ping server->client loss %" "$(echo "$st" | cut -d' ' -f4)" le 0
	up=$(netns_iperf "$NETNS_TMP/tcp-up.json" 2)
	check "$label TCP client->server Mbit/s" "$(mbit "$up")" gt 1
	down=$(netns_iperf "$NETNS_TMP/tcp-down.json" 2 -R)
	check "$label TCP server->client Mbit/s" "$(mbit "$down")" gt 1
	[ -n "$rate" ] || return 0
	check "$label shaped: client->server wire Mbit/s" \
	    "$(mbit "$(wire_bps "$up")")" le "$(awk "BEGIN { print $rate * 1.02 }")"
	check "$label shaped: server->client wire Mbit/s" \
	    "$(mbit "$(wire_bps "$down")")" le "$(awk "BEGIN { print $rate * 1.02 }")"
}

# netns_basic_test tap|tun: the whole of test_tap_basic and test_tun_basic:
# the basic checks through the bare forwarder tapfwd on that testbed
# (checks the testbed itself), then through caked shaping at 50 Mbit
# (SKIP when caked is not built).
netns_basic_test()
{
	local mode=$1

	netns_init ping iperf3 jq ss
	netns_require_tapfwd
	"netns_topo_$mode"
	netns_iperf_server

	netns_start_tapfwd
	netns_basic_checks "$mode/tapfwd"
	netns_stop_fwd
	[ "$NETNS_FAILED" = 0 ] || netns_finish

	netns_require_caked "testbed OK with tapfwd"
	netns_start_caked 50mbit 50mbit
	netns_basic_checks "$mode/caked" 50
	kill -0 "$FWD_PID" 2>/dev/null || fail "caked died"
	netns_finish
}

# Frame and payload bytes of one full-sized TCP segment (MTU 1500, TCP
# timestamps on): 1448 bytes of payload travel in a 1500-byte IP packet,
# 1514-byte Ethernet frame (no FCS) in TAP mode.
TCP_PAYLOAD_BYTES=1448

netns_frame_bytes()
{
	if [ "$TOPO" = tun ]; then echo 1500; else echo 1514; fi
}

# wire_bps GOODPUT_BPS: the rate the shaper charged for that goodput
# (raw framing: whole frames in TAP mode, whole IP packets in TUN mode).
wire_bps()
{
	awk -v g="$1" -v f="$(netns_frame_bytes)" -v p="$TCP_PAYLOAD_BYTES" \
	    'BEGIN { printf "%.0f", g * f / p }'
}

# ratio A B: A / B with three decimals.
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'
}

# netns_load_ping LABEL SECS PINGS [iperf3 options]: a bounded iperf3 load
# from client to server (options e.g. -P 4) with a concurrent 20 Hz ping
# that starts 2 s into it. Sets LOAD_STATS (median p95 max loss count) and
# LOAD_GOODPUT (bit/s, receiver side).
netns_load_ping()
{
	local label=$1 secs=$2 pings=$3 ipid

	shift 3
	timeout $((secs + 20)) ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" \
	    -J -t "$secs" $IPERF_CC "$@" >"$NETNS_TMP/$label-iperf.json" \
	    2>&1 9>&- &
	ipid=$!
	netns_track "$ipid"
	sleep 2
	netns_ping "$NS_C" "$SERVER_IP" "$pings" "$NETNS_TMP/$label-ping.txt"
	wait "$ipid"
	LOAD_STATS=$(netns_ping_stats "$NETNS_TMP/$label-ping.txt")
	LOAD_GOODPUT=$(netns_goodput "$NETNS_TMP/$label-iperf.json")
}

# netns_htb_fifo DEV RATE LIMIT_PKTS: the kernel baseline, HTB shaping to
# RATE with one pfifo of LIMIT_PKTS packets, on DEV's egress in the router.
netns_htb_fifo()
{
	local tc="ip netns exec $NS_R tc"

	$tc qdisc add dev "$1" root handle 1: htb default 1 &&
	    $tc class add dev "$1" parent 1: classid 1:1 htb rate "$2" quantum 1514 &&
	    $tc qdisc add dev "$1" parent 1:1 handle 10: pfifo limit "$3" ||
	    fail "could not set up HTB on $1"
}
