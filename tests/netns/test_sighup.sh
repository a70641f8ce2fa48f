#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_sighup: live reload. caked starts at 10 Mbit; after the config is
# rewritten to 30 Mbit and SIGHUP is sent, TCP throughput follows the new
# rate, caked keeps its PID and its devices (same ifindex, still bridged),
# and a 20 Hz ping running across the reload loses no packet.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss
netns_require_caked
netns_topo_tap
netns_iperf_server
netns_start_caked 10mbit 10mbit
pid=$FWD_PID
lan_idx=$(ip netns exec "$NS_R" cat /sys/class/net/$LAN_DEV/ifindex)
wan_idx=$(ip netns exec "$NS_R" cat /sys/class/net/$WAN_DEV/ifindex)

up10=$(netns_iperf "$NETNS_TMP/up10.json" 5)
down10=$(netns_iperf "$NETNS_TMP/down10.json" 5 -R)
log "at 10 Mbit: upload $(mbit "$up10"), download $(mbit "$down10") Mbit/s goodput"

netns_write_conf 30mbit 30mbit
netns_ping_bg "$NS_C" "$SERVER_IP" 80 "$NETNS_TMP/reload-ping.txt"
sleep 1
log "SIGHUP to caked (pid $pid): 10 -> 30 Mbit"
kill -HUP "$pid" || fail "could not signal caked"
wait "$PING_PID"
st=$(netns_ping_stats "$NETNS_TMP/reload-ping.txt")
log "ping across the reload: median/p95/max ms, loss%, replies: $st"
check "ping packets lost across the reload (%)" "$(echo "$st" | cut -d' ' -f4)" le 0
kill -0 "$pid" 2>/dev/null || fail "caked (pid $pid) is gone after SIGHUP"
[ "$FWD_PID" = "$pid" ] || fail "forwarder PID changed"
check "lan ifindex unchanged by the reload" \
    "$(ip netns exec "$NS_R" cat /sys/class/net/$LAN_DEV/ifindex)" eq "$lan_idx"
check "wan ifindex unchanged by the reload" \
    "$(ip netns exec "$NS_R" cat /sys/class/net/$WAN_DEV/ifindex)" eq "$wan_idx"

up30=$(netns_iperf "$NETNS_TMP/up30.json" 5)
down30=$(netns_iperf "$NETNS_TMP/down30.json" 5 -R)
log "at 30 Mbit: upload $(mbit "$up30"), download $(mbit "$down30") Mbit/s goodput"
kill -0 "$pid" 2>/dev/null || fail "caked (pid $pid) died after the reload"

for v in up10:10 down10:10 up30:30 down30:30; do
	name=${v%%:*}
	acc=$(ratio "$(wire_bps "${!name}")" $((${v##*:} * 1000000)))
	check "$name wire/configured rate" "$acc" ge 0.85
	check "$name wire/configured rate" "$acc" le 1.02
done
check "upload speed-up after reload (30/10)" "$(ratio "$up30" "$up10")" ge 2.5
check "download speed-up after reload (30/10)" "$(ratio "$down30" "$down10")" ge 2.5
netns_finish
