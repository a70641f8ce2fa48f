#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_modem: the autorate testbed's userspace modem (tests/netns/modem)
# does what the autorate tests rely on, without caked:
#
#   client 10.201.1.1 -- mr [modem] ms -- server 10.201.1.2
#
# 1. idle, 20 ms each way: ping RTT median 40 +- 2 ms;
# 2. 20 Mbit up, one TCP upload: wire goodput 19-20.2 Mbit, the modem's
#    own rate while backlogged within 2 % of 20 Mbit, its FIFO fills
#    (sojourn p95 > 200 ms: the bloat the tests must fight);
# 3. the same down (20 Mbit, -R) after a run-time change to 8 Mbit
#    down: wire goodput 7.6-8.1 Mbit;
# 4. 60 Mbit up, two TCP uploads: wire goodput >= 57 Mbit, the modem's
#    rate while backlogged >= 58.8 Mbit (it keeps up with the fastest
#    link the tests use);
# 5. "icmp drop": no ping answered, TCP still passes.
# Frames leave the delay line late by the figures printed (late mean/max).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modemlib.sh"

netns_init ping iperf3 jq ss
netns_require_modem

NS_C="${NETNS_PFX}c"
NS_S="${NETNS_PFX}s"
NS_M="${NETNS_PFX}m"
CLIENT_IP=10.201.1.1
SERVER_IP=10.201.1.2
TOPO=tap
netns_add "$NS_C"
netns_add "$NS_M"
netns_add "$NS_S"
netns_veth "$NS_C" eth0 "$NS_M" mr
netns_veth "$NS_M" ms "$NS_S" eth0
modem_no_csum_offload "$NS_C" eth0
modem_no_csum_offload "$NS_S" eth0
ip -n "$NS_C" addr add "$CLIENT_IP/24" dev eth0
ip -n "$NS_S" addr add "$SERVER_IP/24" dev eth0

modem_start m -r 20mbit -R 20mbit
netns_wait_ping || fail "no connectivity through the modem"
netns_iperf_server

modem_cmd "phase idle"
ip netns exec "$NS_C" ping -n -i 0.2 -c 25 "$SERVER_IP" \
    >"$NETNS_TMP/idle-ping.txt" 2>&1
idle=$(netns_ping_stats "$NETNS_TMP/idle-ping.txt")
modem_cmd "phase up20"
up=$(netns_iperf "$NETNS_TMP/up.json" 8)
modem_cmd "phase gap" "down rate 8mbit" "phase down8"
down=$(netns_iperf "$NETNS_TMP/down.json" 8 -R)
modem_cmd "phase gap2" "up rate 60mbit" "phase up60"
up60=$(netns_iperf "$NETNS_TMP/up60.json" 5 -P 2)
modem_cmd "phase gap3" "icmp drop" "phase icmp"
ip netns exec "$NS_C" ping -n -i 0.2 -c 10 -W 1 "$SERVER_IP" \
    >"$NETNS_TMP/icmp-ping.txt" 2>&1
icmp=$(netns_ping_stats "$NETNS_TMP/icmp-ping.txt")
tcp_icmp=$(netns_iperf "$NETNS_TMP/icmp.json" 2)
modem_stop

echo
echo "modem phases (figures of the modem itself):"
modem_report
echo "idle ping median/p95/max ms, loss %: $idle"
echo "upload 20 Mbit: goodput $(mbit "$up") Mbit/s," \
    "wire $(mbit "$(wire_bps "$up")") Mbit/s"
echo "download 8 Mbit: goodput $(mbit "$down") Mbit/s," \
    "wire $(mbit "$(wire_bps "$down")") Mbit/s"
echo "upload 60 Mbit, 2 flows: goodput $(mbit "$up60") Mbit/s," \
    "wire $(mbit "$(wire_bps "$up60")") Mbit/s"
echo "icmp drop: ping $icmp; TCP $(mbit "$tcp_icmp") Mbit/s"
echo

set -- $idle
check "idle ping RTT median ms" "$1" ge 38
check "idle ping RTT median ms" "$1" le 42
check "idle ping loss %" "$4" le 0
check "up 20 Mbit: wire goodput Mbit/s" "$(mbit "$(wire_bps "$up")")" ge 19
check "up 20 Mbit: wire goodput Mbit/s" "$(mbit "$(wire_bps "$up")")" le 20.2
check "up 20 Mbit: modem rate while backlogged" \
    "$(modem_get up20 up achieved_mbit)" ge 19.6
check "up 20 Mbit: modem rate while backlogged" \
    "$(modem_get up20 up achieved_mbit)" le 20.4
check "up 20 Mbit: FIFO sojourn p95 ms (bloat)" \
    "$(modem_get up20 up soj_p95)" gt 200
check "up 20 Mbit: delay line late, mean ms" \
    "$(modem_get up20 up late_ms_mean)" lt 1
check "down 8 Mbit (changed live): wire goodput Mbit/s" \
    "$(mbit "$(wire_bps "$down")")" ge 7.6
check "down 8 Mbit (changed live): wire goodput Mbit/s" \
    "$(mbit "$(wire_bps "$down")")" le 8.1
check "down 8 Mbit: modem rate while backlogged" \
    "$(modem_get down8 down achieved_mbit)" ge 7.84
check "up 60 Mbit: wire goodput Mbit/s" "$(mbit "$(wire_bps "$up60")")" ge 57
check "up 60 Mbit: modem rate while backlogged" \
    "$(modem_get up60 up achieved_mbit)" ge 58.8
check "up 60 Mbit: delay line late, mean ms" \
    "$(modem_get up60 up late_ms_mean)" lt 1
check "icmp drop: ping replies" "$(echo "$icmp" | cut -d' ' -f5)" eq 0
check "icmp drop: ICMP frames dropped" "$(modem_get icmp up icmp_drop)" ge 10
check "icmp drop: TCP Mbit/s" "$(mbit "$tcp_icmp")" gt 1
netns_finish
