# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# tests/netns/modemlib.sh: the userspace modem (tests/netns/modem) and the
# autorate testbed, sourced after lib.sh by test_modem.sh and the
# test_autorate_*.sh tests.
#
#   client 10.202.1.1 -- vc [router: tlan caked twan] vs -- mr [modem] ms
#       -- eth0 server 10.202.2.2 (+ reflector addresses)
#
# The modem namespace has no addresses: tests/netns/modem bridges mr and
# ms through AF_PACKET sockets, with per direction a rate, a FIFO and a
# fixed delay ("up" is router -> server, "down" server -> router). It is
# driven through a control FIFO ($MODEM_CTL) and prints per phase and
# direction a line of key=value figures into $MODEM_OUT.

: "${MODEM:=$top_builddir/tests/netns/modem}"
MODEM_PID=""
MODEM_CTL=""
MODEM_OUT=""
NS_M=""
BASE_DELAY_MS=20		# each way: a base RTT of 40 ms

netns_require_modem()
{
	[ -x "$MODEM" ] || skip "modem not built at $MODEM"
	command -v ethtool >/dev/null 2>&1 || skip "tool 'ethtool' not installed"
}

# modem_no_csum_offload NS DEV: DEV (the peer that sends into the modem)
# computes checksums itself. With offload the kernel hands AF_PACKET a
# TCP/UDP frame whose checksum is still to be filled in; the modem copies
# frames as they are, so the receiver would drop them.
modem_no_csum_offload()
{
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1 ||
	    fail "ethtool -K $2 tx off"
}

# The TUN testbed with the modem namespace between router and server;
# with "v6" the client, router and server also get fd00:202:1::/64 and
# fd00:202:2::/64 addresses and IPv6 forwarding.
topo_modem()
{
	local v6=${1:-}

	netns_topo_tun_via
	modem_no_csum_offload "$NS_R" vs
	modem_no_csum_offload "$NS_S" eth0
	[ "$v6" = v6 ] && topo_modem_v6
	return 0
}

topo_modem_v6()
{
	local ns

	# netns_add turned IPv6 off, also on the devices made since
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		ip netns exec "$ns" sh -c '
		    for d in /proc/sys/net/ipv6/conf/*; do
			echo 0 >"$d/accept_dad"
			echo 0 >"$d/disable_ipv6"
		    done' || fail "IPv6 on in $ns"
	done
	ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.all.forwarding=1
	ip -n "$NS_C" addr add fd00:202:1::1/64 dev eth0 nodad
	ip -n "$NS_C" route add default via fd00:202:1::fe
	ip -n "$NS_S" addr add fd00:202:2::2/64 dev eth0 nodad
	ip -n "$NS_S" route add default via fd00:202:2::fe
	ip -n "$NS_R" addr add fd00:202:1::fe/64 dev vc nodad
	ip -n "$NS_R" addr add fd00:202:2::fe/64 dev vs nodad
	ip -n "$NS_R" -6 rule add iif vc lookup 100 pref 100
	ip -n "$NS_R" -6 rule add iif vs lookup 200 pref 200
	CLIENT_IP6=fd00:202:1::1
	SERVER_IP6=fd00:202:2::2
}

# Once caked's TUN devices exist: the IPv6 routes through them.
topo_modem_v6_attach()
{
	ip -n "$NS_R" -6 route replace fd00:202:2::/64 dev "$LAN_DEV" table 100
	ip -n "$NS_R" -6 route replace fd00:202:1::/64 dev "$WAN_DEV" table 200
}

# modem_start LABEL [modem options]: the modem between mr and ms, with a
# control FIFO; base delay BASE_DELAY_MS each way unless options say.
modem_start()
{
	local label=$1

	shift
	MODEM_CTL="$NETNS_TMP/modem-$label.ctl"
	MODEM_OUT="$NETNS_TMP/modem-$label.out"
	ip netns exec "$NS_M" "$MODEM" -c "$MODEM_CTL" -d "$BASE_DELAY_MS" \
	    -D "$BASE_DELAY_MS" "$@" mr ms >"$MODEM_OUT" \
	    2>"$NETNS_TMP/modem-$label.err" 9>&- &
	MODEM_PID=$!
	netns_track "$MODEM_PID"
	local i
	for i in $(seq 1 50); do
		[ -p "$MODEM_CTL" ] && grep -q '^modem:' "$MODEM_OUT" &&
		    return 0
		sleep 0.05
	done
	fail "modem did not start: $(cat "$NETNS_TMP/modem-$label.err")"
}

# modem_cmd LINE...: commands to the running modem (see modem.c).
modem_cmd()
{
	local l

	for l in "$@"; do
		printf '%s\n' "$l" >"$MODEM_CTL" || fail "modem command $l"
	done
}

modem_stop()
{
	[ -n "$MODEM_PID" ] && netns_stop_pid "$MODEM_PID"
	MODEM_PID=""
}

# modem_get PHASE DIR KEY [FILE]: one figure of a finished phase.
modem_get()
{
	awk -v p="phase=$1" -v d="dir=$2" -v k="$3" '
	    $1 == p && $2 == d {
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == k) { v = kv[2] }
		}
	    }
	    END { print (v == "") ? "nan" : v }' "${4:-$MODEM_OUT}"
}

# modem_report [FILE]: the phase lines as a table.
modem_report()
{
	awk '$1 ~ /^phase=/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "  %-14s %-4s set %7s Mbit out %7s Mbit sojourn ms p50 %6s p95 %6s p99 %6s drop %5s icmp_drop %4s acc %7s Mbit late %s/%s ms\n",
		    v["phase"], v["dir"], v["set_mbit"], v["out_mbit"],
		    v["soj_p50"], v["soj_p95"], v["soj_p99"], v["drop"],
		    v["icmp_drop"], v["achieved_mbit"], v["late_ms_mean"],
		    v["late_ms_max"]
	    }' "${1:-$MODEM_OUT}"
}

# caked_ar_init TOOL...: netns_init for an autorate test over the modem,
# which needs caked, the modem and cakectl besides the tools.
caked_ar_init()
{
	netns_init "$@"
	netns_require_caked
	netns_require_modem
	netns_require_cakectl
}

# caked_ar_lines MIN BASE MAX: the lines of a direction with autorate.
caked_ar_lines()
{
	printf 'autorate = yes\nautorate-min = %s\nautorate-base = %s\nautorate-max = %s\n' \
	    "$1" "$2" "$3"
}

# Caked for the autorate tests. caked_ar_start LABEL GENERAL_LINES UP_LINES
# DOWN_LINES: each argument a newline-separated list of key = value lines.
caked_ar_start()
{
	FWD_CONF="$NETNS_TMP/caked-$1.conf"
	{
		printf '[general]\nmode = tun\nlan = %s\nwan = %s\nmtu = 1500\n' \
		    "$LAN_DEV" "$WAN_DEV"
		printf 'control = %s/caked.sock\nlog-level = debug\n' "$NETNS_TMP"
		printf '%s\n' "$2"
		printf '[upload]\n%s\n' "$3"
		printf '[download]\n%s\n' "$4"
	} >"$FWD_CONF"
	netns_run_caked "$1"
	[ -n "${CLIENT_IP6:-}" ] && topo_modem_v6_attach
	log "caked running ($1, pid $FWD_PID)"
}

# caked_ar_fixed MODEM_DOWN CAKED_DOWN SECS PORT [MODEM_CMD...]: the
# testbed's proof that autorate matters: a bulk download for SECS s
# through caked at a fixed CAKED_DOWN over the modem at MODEM_DOWN (both
# 50 Mbit up), after the modem commands given. The modem's figures of
# phase "fixed" (from SETTLE_S s on) stay in $MODEM_OUT.
caked_ar_fixed()
{
	local mdown=$1 cdown=$2 secs=$3 port=$4

	shift 4
	modem_start fixed -q 1000 -r 50mbit -R "$mdown"
	caked_ar_start fixed "" "bandwidth = 50mbit" "bandwidth = $cdown"
	modem_cmd "$@"
	bulk_bg fdown "$secs" "$port" -P 2 -R
	modem_cmd "phase settle"
	sleep "$SETTLE_S"
	modem_cmd "phase fixed"
	wait "$BULK_PID"
	modem_cmd "phase tail"
	netns_stop_fwd
	modem_stop
}

# Does this caked know a [general] key? (features not merged yet)
caked_knows_key()
{
	local f="$NETNS_TMP/keyprobe.conf"

	printf '[general]\nmode = tun\nlan = a\nwan = b\n%s\n[upload]\nbandwidth = 10mbit\n' \
	    "$1" >"$f"
	"$CAKED" -t -c "$f" >/dev/null 2>&1
}

now() { date +%s.%N; }

# cake_rates FILE SECS: samples caked's upload and download rates every
# 0.5 s for SECS s, "epoch up_bit/s down_bit/s" lines, in the background
# (the PID in RATES_PID).
cake_rates_bg()
{
	(
		end=$(( $(date +%s) + $2 ))
		while [ "$(date +%s)" -lt "$end" ]; do
			"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats \
			    2>/dev/null | jq -r --arg t "$(now)" '
			    def r(d): (d.bandwidth // 0) * 8;
			    "\($t) \(r(.directions.upload)) \(r(.directions.download))"' \
			    >>"$1" 2>/dev/null
			sleep 0.5
		done
	) 9>&- &
	RATES_PID=$!
	netns_track "$RATES_PID"
}

# rate_median FILE COLUMN FROM TO: median of the samples in [FROM, TO)
# in Mbit/s (COLUMN 2: upload, 3: download).
rate_median()
{
	awk -v c="$2" -v a="$3" -v b="$4" '$1 >= a && $1 < b { print $c / 1e6 }' \
	    "$1" | sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		printf "%.2f\n", v[int((NR + 1) / 2)] }'
}

# plus T S: T + S with three decimals.
plus()
{
	awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t + s }'
}

# iperf_servers PORT...: one iperf3 server per port in the server namespace
# (one per concurrent load: an iperf3 server runs one test at a time).
iperf_servers()
{
	local p i

	for p in "$@"; do
		ip netns exec "$NS_S" iperf3 -s -p "$p" \
		    >"$NETNS_TMP/iperf3-server-$p.log" 2>&1 9>&- &
		netns_track $!
	done
	for p in "$@"; do
		for i in $(seq 1 50); do
			ip netns exec "$NS_S" ss -ltn 2>/dev/null |
			    grep -q ":$p " && break
			sleep 0.05
		done
	done
}

# bulk_bg NAME SECS PORT [iperf3 options]: a bounded TCP load from the
# client (add -R for a download), JSON into $NETNS_TMP/NAME.json. With
# BULK_OMIT=N (whole seconds) it runs N s more first, left out of the
# figures (iperf3 -O).
bulk_bg()
{
	local name=$1 secs=$2 port=$3 omit=${BULK_OMIT:-0}

	shift 3
	timeout $((secs + omit + 20)) ip netns exec "$NS_C" iperf3 \
	    -c "${BULK_DEST:-$SERVER_IP}" -p "$port" -J -t "$secs" -O "$omit" \
	    $IPERF_CC "$@" >"$NETNS_TMP/$name.json" 2>&1 9>&- &
	BULK_PID=$!
	netns_track "$BULK_PID"
}

# ping_window FILE FROM TO [BASE_MS]: "p50 p95 p99 n" of the RTTs (minus
# BASE_MS) of the pings sent in [FROM, TO) (ping -D output).
ping_window()
{
	sed -n 's/^\[\([0-9.]*\)\].*time=\([0-9.]*\) ms.*/\1 \2/p' "$1" |
	    awk -v a="$2" -v b="$3" -v base="${4:-0}" '
		$1 - $2 / 1000 >= a && $1 - $2 / 1000 < b { print $2 - base }' |
	    sort -n | awk '
		function q(p,  i) { i = int(NR * p); if (i < NR * p) i++
			if (i < 1) i = 1; return v[i] }
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "nan nan nan 0"; exit }
			printf "%.1f %.1f %.1f %d\n", q(0.5), q(0.95), q(0.99), NR
		}'
}

# nft_counters_bg NS TABLE FILE: every 0.2 s, "epoch name packets" for
# each named counter of table inet TABLE in NS, in the background.
nft_counters_bg()
{
	(
		while :; do
			t=$(now)
			ip netns exec "$1" nft list counters table inet "$2" \
			    2>/dev/null | awk -v t="$t" '
				$1 == "counter" { n = $2 }
				$1 == "packets" { print t, n, $2 }' >>"$3"
			sleep 0.2
		done
	) 9>&- &
	NFT_PID=$!
	netns_track "$NFT_PID"
}

# modem_wire_bps GOODPUT_BPS: the rate the modem charged for that TCP
# goodput: it counts whole Ethernet frames (1514 bytes per 1448 bytes of
# payload), whatever caked's mode.
modem_wire_bps()
{
	awk -v g="$1" -v p="$TCP_PAYLOAD_BYTES" \
	    'BEGIN { printf "%.0f", g * 1514 / p }'
}
