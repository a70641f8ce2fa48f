#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_autorate_noreflector (issue 22, test 2): no reflectors.
#
#   client -- router [caked, TUN, autorate download] -- modem [ICMP and
#   ICMPv6 echo dropped; 50 Mbit up, download 20 -> 8 -> 20 Mbit, 1000-
#   frame FIFO, 20 ms each way] -- server
#
# The modem drops every ICMP packet, so caked's reflector never answers:
# only the passive RTT of the TCP traffic (TCP timestamps) can steer the
# rate. A bulk download for 3 x PHASE_S s; from 5 s after each change
# on: caked's download rate (median of 2 Hz samples) between 70 % and
# 115 % of the modem's, and the download sojourn p95 (measured by the
# modem) below 30 ms above base. The testbed's proof: a ping gets no
# reply, and a fixed 20 Mbit caked over the 8 Mbit modem bloats
# (sojourn p95 > 200 ms).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modemlib.sh"

caked_ar_init ping iperf3 jq ss

PHASE_S=18
SETTLE_S=5

topo_modem
iperf_servers 5201
modem_start ar -q 1000 -r 50mbit -R 20mbit
caked_ar_start ar "autorate-reflectors = $SERVER_IP
autorate-passive = yes" "bandwidth = 50mbit" \
    "$(caked_ar_lines 2mbit 15mbit 40mbit)"
# (caked's start checks the path with a ping: drop ICMP only then)
ip netns exec "$NS_C" ping -n -c 3 -i 0.2 -W 1 "$SERVER_IP" \
    >"$NETNS_TMP/ping-before.txt" 2>&1
before=$(grep -c 'time=' "$NETNS_TMP/ping-before.txt")
modem_cmd "icmp drop"
ip netns exec "$NS_C" ping -n -c 5 -i 0.2 -W 1 "$SERVER_IP" \
    >"$NETNS_TMP/ping-drop.txt" 2>&1
dropped=$(grep -c 'time=' "$NETNS_TMP/ping-drop.txt")

total=$((3 * PHASE_S))
log "bulk download for $total s; modem 20 -> 8 -> 20 Mbit every $PHASE_S s"
bulk_bg down "$total" 5201 -P 2 -R
t0=$(now)
cake_rates_bg "$NETNS_TMP/rates.txt" "$total"
i=0
for cap in 20 8 20; do
	i=$((i + 1))
	eval "t$i=\$(now)"
	modem_cmd "phase p$i-settle" "down rate ${cap}mbit"
	sleep "$SETTLE_S"
	modem_cmd "phase p$i"
	sleep $((PHASE_S - SETTLE_S))
done
t4=$(now)
modem_cmd "phase tail"
wait "$BULK_PID"
wait "$RATES_PID"
"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats download \
    >"$NETNS_TMP/stats.txt" 2>&1
netns_stop_fwd
modem_stop
ar_out="$NETNS_TMP/modem-ar.keep"
cp "$MODEM_OUT" "$ar_out"

# The testbed's proof: without autorate the 8 Mbit modem bloats.
caked_ar_fixed 8mbit 20mbit 12 5201 "icmp drop"

echo
echo "autorate with every ICMP dropped (passive RTT only), download;" \
    "TCP CC: ${NETNS_TCP_CC:-default}"
echo "pings answered: before the drop $before of 3, after $dropped of 5"
echo "download goodput: $(mbit "$(netns_goodput "$NETNS_TMP/down.json")") Mbit/s"
printf '%-6s %-12s %-22s %s\n' phase modem "caked down Mbit/s" \
    "down sojourn p50/p95/p99 ms"
i=0
for cap in 20 8 20; do
	i=$((i + 1))
	eval "a=\$t$i; b=\$t$((i + 1))"
	med=$(rate_median "$NETNS_TMP/rates.txt" 3 "$(plus "$a" $SETTLE_S)" "$b")
	soj="$(modem_get p$i down soj_p50 "$ar_out")/$(modem_get p$i down soj_p95 "$ar_out")/$(modem_get p$i down soj_p99 "$ar_out")"
	printf '%-6s %-12s %-22s %s\n' "$i" "$cap Mbit" "$med" "$soj"
	eval "med$i=$med"
done
printf '%-6s %-12s %-22s %s\n' fixed "8 Mbit" "20 (no autorate)" \
    "$(modem_get fixed down soj_p95)"
echo "modem, per phase:"
modem_report "$ar_out"
modem_report
grep -A4 ' autorate:' "$NETNS_TMP/stats.txt"
echo

check "testbed: pings answered before the ICMP drop" "$before" ge 1
check "testbed: pings answered with the ICMP drop" "$dropped" eq 0
i=0
for cap in 20 8 20; do
	i=$((i + 1))
	eval "med=\$med$i"
	check "phase $i: caked down rate median >= 70% of $cap Mbit" "$med" \
	    ge "$(awk -v c="$cap" 'BEGIN { print c * 0.7 }')"
	# caked's rate may stand above the capacity while TCP does not
	# fill it (the modem's delay stays low, the sojourn check sees any
	# excess), and caked charges IP packets, the modem frames
	check "phase $i: caked down rate median <= 115% of $cap Mbit" "$med" \
	    le "$(awk -v c="$cap" 'BEGIN { print c * 1.15 }')"
	check "phase $i: down sojourn p95 ms (above base)" \
	    "$(modem_get p$i down soj_p95 "$ar_out")" lt 30
done
check "fixed 20 Mbit caked, 8 Mbit modem: down sojourn p95 ms" \
    "$(modem_get fixed down soj_p95)" gt 200
netns_finish
