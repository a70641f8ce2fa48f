#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_malformed: malformed frames written into caked's devices. Each kind
# (tests/netns/injector -l) is injected 100 times and must land in its own
# counter of the SIGUSR1 statistics (rx_truncated, rx_malformed,
# rx_non_ip), which `cakectl -j stats` shows too (directions.*.io); then
# 60000 of them, paced at tens of thousands a second, beside a 20 Hz
# ping: the daemon stays up, every frame is either counted by caked or
# dropped by the kernel before it (TX dropped of the TAP device), and the
# ping loses at most 2 % with a median under 5 ms.
#
# TAP: frames go out of the client's veth (AF_PACKET) and the bridge hands
# them to caked's LAN device. The router namespace turns br_netfilter off
# (bridge-nf-call-ip*tables=0, its default is 1 in a new namespace):
# otherwise the kernel validates bridged IP headers itself and drops the
# bad ones before caked sees them. TUN: raw IP straight into the device.
#
# What cannot reach caked: a zero-length packet (the kernel refuses to
# send one, EINVAL; caked would count a zero-length read as rx_empty), an
# Ethernet frame under 14 bytes (refused: min_header_len), and a frame
# longer than the bridge ports' MTU (the bridge drops it). Frames above
# caked's MTU do reach it when the device's MTU is raised behind its
# back: they are counted as rx_oversize if they do not fit caked's
# buffer, or shaped and forwarded like any packet if they do.
. "$(dirname "$0")/lib.sh"

netns_init ping jq
netns_require_caked
INJECTOR=${INJECTOR:-$top_builddir/tests/netns/injector}
CAKECTL=${CAKECTL:-$top_builddir/cakectl}
[ -x "$INJECTOR" ] || skip "injector not built at $INJECTOR"
[ -x "$CAKECTL" ] || skip "cakectl not built at $CAKECTL"
N=100

# stats_line: the newest "upload: rx_pkts=..." line after a SIGUSR1.
stats_line()
{
	local n0 i

	n0=$(grep -c 'upload: rx_pkts=' "$NETNS_TMP/fwd.log")
	kill -USR1 "$FWD_PID" || fail "caked is gone"
	for i in $(seq 1 100); do
		[ "$(grep -c 'upload: rx_pkts=' "$NETNS_TMP/fwd.log")" -gt "$n0" ] &&
		    break
		sleep 0.02
	done
	grep 'upload: rx_pkts=' "$NETNS_TMP/fwd.log" | tail -n 1
}

# field LINE NAME: the value of NAME=... in LINE.
field()
{
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# inject_kind DEV KIND COUNTER [injector options]: injects N frames and
# checks that COUNTER rose by exactly N.
inject_kind()
{
	local dev=$1 kind=$2 counter=$3 before after

	shift 3
	before=$(field "$(stats_line)" "$counter")
	ip netns exec "$INJ_NS" "$INJECTOR" -n "$N" -i 200 "$@" "$dev" \
	    "$kind" >/dev/null || fail "injector $kind failed"
	sleep 0.1
	after=$(field "$(stats_line)" "$counter")
	check "$TOPO $kind: $counter +" "$((after - before))" eq "$N"
}

# big_case DEV [injector options]: N frames of 9000 bytes, above caked's
# MTU (1500), into DEV whose MTU is raised behind caked's back. caked
# either drops them as rx_oversize (they do not fit its buffer) or, when
# its buffers take them (vnet-header devices read into buffers sized for
# offloads), shapes and forwards them (rx_pkts): each must be one of the
# two, and caked must stay up.
big_case()
{
	local dev=$1 l0 l1 o p

	shift
	ip -n "$NS_R" link set "$dev" mtu 9100
	l0=$(stats_line)
	ip netns exec "$INJ_NS" "$INJECTOR" -n "$N" -i 200 -s 9000 "$@" \
	    "$dev" big >/dev/null || fail "injector big failed"
	sleep 0.1
	l1=$(stats_line)
	ip -n "$NS_R" link set "$dev" mtu 1500
	o=$(( $(field "$l1" rx_oversize) - $(field "$l0" rx_oversize) ))
	p=$(( $(field "$l1" rx_pkts) - $(field "$l0" rx_pkts) ))
	log "$TOPO: $N frames of 9000 bytes + header: rx_oversize +$o," \
	    "rx_pkts +$p"
	check "$TOPO big: rx_oversize + rx_pkts +" "$((o + p))" ge "$N"
	kill -0 "$FWD_PID" 2>/dev/null || fail "caked died on big frames"
}

no_br_netfilter()
{
	local k

	for k in iptables ip6tables arptables; do
		ip netns exec "$NS_R" sysctl -qw \
		    "net.bridge.bridge-nf-call-$k=0" 2>/dev/null || true
	done
}

# ---- TAP: through the bridge -------------------------------------------------
netns_topo_tap
no_br_netfilter
netns_start_caked 50mbit 50mbit
INJ_NS=$NS_C
while read -r kind counter _; do
	case $kind in
	empty|big) continue ;;
	esac
	inject_kind eth0 "$kind" "$counter" -e
done < <("$INJECTOR" -l)

# Larger than the MTU: raise the device's MTU behind caked's back and send
# straight into it (from the bridge such a frame is dropped by the kernel).
INJ_NS=$NS_R
big_case "$LAN_DEV" -e

# All kinds, paced (-i 20: tens of thousands a second), beside a ping.
# Every frame sent is either counted by caked or dropped by the kernel on
# the TAP device's queue (TX dropped) if caked falls behind.
kdrop()
{
	ip -n "$NS_R" -s link show dev "$LAN_DEV" |
	    awk '/TX:/ { getline; print $4 }'
}
kd0=$(kdrop)
b0=$(stats_line)
netns_ping_bg "$NS_C" "$SERVER_IP" 100 "$NETNS_TMP/ping-tap.txt"
ping_pid=$PING_PID
total=0
t0=$(date +%s%N)
for round in 1 2 3 4 5; do
	while read -r kind _ _; do
		case $kind in
		empty|big) continue ;;
		esac
		ip netns exec "$NS_C" "$INJECTOR" -e -n 1000 -i 20 eth0 "$kind" \
		    >/dev/null || fail "injector $kind (flood)"
		total=$((total + 1000))
	done < <("$INJECTOR" -l)
done
secs=$(awk -v n=$(( $(date +%s%N) - t0 )) 'BEGIN { printf "%.1f", n / 1e9 }')
wait "$ping_pid"
kill -0 "$FWD_PID" 2>/dev/null || fail "caked died"
st=$(netns_ping_stats "$NETNS_TMP/ping-tap.txt")
kd=$(( $(kdrop) - kd0 ))
line=$(stats_line)
bad=$(( $(field "$line" rx_truncated) + $(field "$line" rx_malformed) +
    $(field "$line" rx_non_ip) - $(field "$b0" rx_truncated) -
    $(field "$b0" rx_malformed) - $(field "$b0" rx_non_ip) ))
log "TAP: $total malformed frames in $secs s: caked counted $bad," \
    "the kernel dropped $kd on $LAN_DEV's queue"
log "TAP: ping beside them: median/p95/max ms, loss%, replies: $st"
log "TAP counters: $(echo "$line" | sed 's/.*upload: //')"
check "TAP malformed: counted + kernel drops - sent" "$((bad + kd - total))" eq 0
check "TAP ping loss % beside the malformed frames" "$(echo "$st" | cut -d' ' -f4)" le 2
check "TAP ping median ms beside the malformed frames" "$(echo "$st" | cut -d' ' -f1)" lt 5
# The same counters in the stats JSON (cakectl -j stats: directions.*.io):
# a key that is missing there (null) or in the log line fails.
"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload \
    >"$NETNS_TMP/stats.json" || fail "cakectl stats"
log "cakectl -j stats upload .io: $(jq -c .directions.upload.io \
    "$NETNS_TMP/stats.json")"
for k in rx_truncated rx_malformed rx_non_ip rx_oversize; do
	check "TAP $k in SIGUSR1 log is a number" "$(field "$line" "$k")" ge 0
	check "TAP $k in stats JSON = SIGUSR1 log" \
	    "$(jq ".directions.upload.io.$k" "$NETNS_TMP/stats.json")" \
	    eq "$(field "$line" "$k")"
done
netns_wait_ping || fail "no ping after the flood"
netns_stop_fwd

# ---- TUN: straight into the device ----------------------------------------
netns_topo_tun u
netns_start_caked 50mbit 50mbit
INJ_NS=$NS_R
# An empty packet never reaches caked: the kernel refuses to send one
# (caked would count a zero-length read under rx_empty).
if ip netns exec "$NS_R" "$INJECTOR" "$LAN_DEV" empty >/dev/null 2>&1; then
	inject_kind "$LAN_DEV" empty rx_empty
else
	log "TUN: the kernel refuses a zero-length packet (sendto EINVAL)"
fi
for kind in ipv4-trunc ipv4-ihl ipv4-len-long tcp-doff ipv6-trunc \
    ipv6-ext-loop ipv6-ext-end; do
	counter=$("$INJECTOR" -l | awk -v k="$kind" '$1 == k { print $2 }')
	inject_kind "$LAN_DEV" "$kind" "$counter"
done
big_case "$LAN_DEV"
netns_wait_ping || fail "no ping through caked (TUN) after the injections"
kill -0 "$FWD_PID" 2>/dev/null || fail "caked died (TUN)"
log "TUN counters: $(stats_line | sed 's/.*upload: //')"
netns_finish
