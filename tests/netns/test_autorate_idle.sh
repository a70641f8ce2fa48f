#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_autorate_idle (issue 22, test 5): the pinger sleeps when idle.
#
#   client -- router [caked, TUN, autorate both ways, one reflector] --
#   modem [50/50 Mbit, 20 ms each way] -- server (reflector, tcpdump)
#
# caked runs with autorate-interval = 100ms, autorate-idle-after = 10s
# and autorate-idle-interval = 1s. tcpdump in the server times every
# probe caked sends (ICMP echo or timestamp request from the router) and
# the client's TCP SYNs. A 5 s upload, IDLE_S s without any traffic, a
# second upload. Checks: while busy the probe rate is >= 8/s (one
# reflector, 10/s); from idle-after + 3 s into the silence it is between
# 0.5/s and 1.5/s (the idle rate: 1/s); after the first SYN of the new
# traffic reaches the server, probes are back at the full rate (two
# probes 0.3 s apart or less) within 1 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modemlib.sh"

caked_ar_init ping iperf3 jq ss tcpdump

IDLE_S=30
IDLE_AFTER=10
ROUTER_WAN=10.202.2.254

topo_modem
iperf_servers 5201
modem_start idle -q 1000 -r 50mbit -R 50mbit
ar=$(caked_ar_lines 2mbit 20mbit 50mbit)
caked_ar_start idle "autorate-reflectors = $SERVER_IP
autorate-interval = 100ms
autorate-idle-after = ${IDLE_AFTER}s
autorate-idle-interval = 1s" "$ar" "$ar"

ip netns exec "$NS_S" tcpdump -i eth0 -n -p -l -tt -U \
    "(icmp and src host $ROUTER_WAN and (icmp[0] == 8 or icmp[0] == 13))
    or (tcp and src host $CLIENT_IP and tcp[tcpflags] & tcp-syn != 0)" \
    >"$NETNS_TMP/tcpdump.txt" 2>"$NETNS_TMP/tcpdump.err" 9>&- &
TD_PID=$!
netns_track "$TD_PID"
for i in $(seq 1 50); do
	grep -q 'listening on' "$NETNS_TMP/tcpdump.err" && break
	sleep 0.1
done

ta=$(now)
bulk_bg busy 5 5201 -b 5M
wait "$BULK_PID"
ti=$(now)
log "idle for $IDLE_S s"
sleep "$IDLE_S"
tw=$(now)
bulk_bg wake 5 5201 -b 5M
wait "$BULK_PID"
sleep 1
netns_stop_pid "$TD_PID"
"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats upload \
    >"$NETNS_TMP/stats.txt" 2>&1
netns_stop_fwd
modem_stop

probes="$NETNS_TMP/probes.txt"
grep -E ' ICMP ' "$NETNS_TMP/tcpdump.txt" | awk '{ print $1 }' >"$probes"

# rate FROM TO: probes per second in [FROM, TO).
rate()
{
	awk -v a="$1" -v b="$2" '$1 >= a && $1 < b { n++ }
	    END { printf "%.2f\n", n / (b - a) }' "$probes"
}

busy=$(rate "$(plus "$ta" 1)" "$(plus "$ta" 5)")
idle=$(rate "$(plus "$ti" $((IDLE_AFTER + 3)))" "$tw")
syn=$(grep -E "^[0-9.]+ IP $CLIENT_IP\.[0-9]+ > " "$NETNS_TMP/tcpdump.txt" |
    awk -v t="$tw" '$1 >= t { print $1; exit }')
wake=$(awk -v s="${syn:-9e18}" '$1 >= s { if (p != "" && $1 - p <= 0.3) {
	printf "%.3f\n", p - s; exit } p = $1 }' "$probes")
after=$(rate "$(plus "${syn:-$tw}" 1)" "$(plus "${syn:-$tw}" 4)")

echo
echo "probe rate at the reflector (tcpdump), one reflector," \
    "autorate-interval 100ms, idle-after ${IDLE_AFTER}s, idle-interval 1s"
printf '  %-34s %s\n' "busy (5 Mbit upload):" "$busy probes/s"
printf '  %-34s %s\n' "idle, from ${IDLE_AFTER}+3 s on:" "$idle probes/s"
printf '  %-34s %s\n' "new traffic, 1-4 s after its SYN:" "$after probes/s"
printf '  %-34s %s\n' "full rate again after the SYN:" "${wake:-never} s"
echo "  probes per second over the run (from the first upload on):"
awk -v t="$ta" '$1 >= t { n[int($1 - t)]++ } END {
	for (i = 0; i <= 45; i++) printf "%d%s", n[i] + 0, (i % 15 == 14) ? "\n" : " "
	print "" }' "$probes" | sed 's/^/    /'
grep -A4 ' autorate:' "$NETNS_TMP/stats.txt"
echo

check "busy probe rate /s" "$busy" ge 8
check "idle probe rate /s (idle rate 1/s)" "$idle" le 1.5
check "idle probe rate /s (still probing)" "$idle" ge 0.5
check "the new traffic's SYN was seen" "${syn:+1}" eq 1
check "full probe rate again within s of the traffic" "${wake:-nan}" le 1
check "probe rate /s 1-4 s after the traffic" "$after" ge 8
netns_finish
