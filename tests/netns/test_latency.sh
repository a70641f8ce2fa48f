#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_latency: latency under load. Four TCP uploads (iperf3 -P 4, 15 s)
# with a concurrent 20 Hz ping, through caked at 20 Mbit: the ping RTT
# median must stay under 5 ms and its 95th percentile under 10 ms. For
# comparison the same load goes through the kernel's HTB at 20 Mbit with a
# 1000-packet FIFO on a plain bridge (no caked); that figure is printed,
# not checked.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss tc
netns_require_caked

netns_topo_tap
netns_iperf_server
netns_start_caked 20mbit 20mbit
log "caked 20 Mbit: 4 TCP uploads for 15 s, ping from second 2 to 14"
netns_load_ping caked 15 240 -P 4
caked_stats=$LOAD_STATS
caked_goodput=$LOAD_GOODPUT
netns_stop_fwd

netns_topo_plain h
netns_iperf_server
netns_htb_fifo vs 20mbit 1000
netns_wait_ping || fail "plain testbed has no connectivity"
log "HTB 20 Mbit + pfifo 1000: same load"
netns_load_ping htb 15 240 -P 4
htb_stats=$LOAD_STATS
htb_goodput=$LOAD_GOODPUT

echo
echo "TCP congestion control: ${NETNS_TCP_CC:-host default}"
printf '%-22s %10s %10s %10s %8s %12s\n' "20 Mbit, 4 uploads" \
    "median ms" "p95 ms" "max ms" "loss %" "goodput Mb/s"
set -- $caked_stats
printf '%-22s %10s %10s %10s %8s %12s\n' caked "$1" "$2" "$3" "$4" \
    "$(mbit "$caked_goodput")"
c_med=$1 c_p95=$2
set -- $htb_stats
printf '%-22s %10s %10s %10s %8s %12s\n\n' "HTB + 1000-pkt FIFO" "$1" "$2" \
    "$3" "$4" "$(mbit "$htb_goodput")"

# The load must have been real, or low latency proves nothing.
check "caked goodput under load Mbit/s" "$(mbit "$caked_goodput")" ge 15
check "caked ping RTT median ms under load" "$c_med" lt 5
check "caked ping RTT p95 ms under load" "$c_p95" lt 10
netns_finish
