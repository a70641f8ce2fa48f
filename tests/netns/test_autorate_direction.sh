#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_autorate_direction (issue 22, test 1): which direction is bloated.
#
#   client -- router [caked, TUN, autorate both ways] -- modem [50/50 Mbit,
#   1000-frame FIFO each way, 20 ms each way] -- server (reflector)
#
# Bulk TCP both ways for the whole run. After PHASE_S s only the modem's
# download drops from 50 to 20 Mbit. Checks, from 5 s after each change
# on: caked's upload rate (median) stays within 10 % of its level before
# the drop; its download rate is cut to at most 105 % of the new
# capacity (and 60 % of its level before); the
# download-direction delay (the modem's FIFO sojourn, measured outside
# caked) has p95 < 30 ms above the base. Then the testbed proves it
# matters: caked at a fixed 50 Mbit download over the 20 Mbit modem
# must see a download sojourn p95 above 200 ms. A run short of one of the
# autorate run's bounds is run once more, and the second decides.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modemlib.sh"

caked_ar_init ping iperf3 jq ss tc

PHASE_S=22
SETTLE_S=5

# run_ar N: the autorate run (label arN); sets t0 t1, up1 up2 dn1 dn2
# (caked's medians per phase) and ar_out (the modem's figures).
run_ar()
{
	local ar total=$((2 * PHASE_S)) up_pid down_pid

	rm -f "$NETNS_TMP/rates.txt"
	modem_start "ar$1" -q 1000 -r 50mbit -R 50mbit
	ar=$(caked_ar_lines 2mbit 30mbit 55mbit)
	caked_ar_start "ar$1" "autorate-reflectors = $SERVER_IP" "$ar" "$ar"
	log "bulk TCP both ways for $total s; modem download 50 -> 20 Mbit" \
	    "at $PHASE_S s"
	bulk_bg up "$total" 5201 -P 2
	up_pid=$BULK_PID
	bulk_bg down "$total" 5202 -P 2 -R
	down_pid=$BULK_PID
	t0=$(now)
	modem_cmd "phase p1-settle"
	cake_rates_bg "$NETNS_TMP/rates.txt" "$total"
	sleep "$SETTLE_S"
	modem_cmd "phase p1"
	sleep $((PHASE_S - SETTLE_S))
	t1=$(now)
	modem_cmd "phase p2-settle" "down rate 20mbit"
	sleep "$SETTLE_S"
	modem_cmd "phase p2"
	wait "$up_pid" "$down_pid"
	modem_cmd "phase tail"
	wait "$RATES_PID"
	"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats >"$NETNS_TMP/stats.txt" 2>&1
	netns_stop_fwd
	up1=$(rate_median "$NETNS_TMP/rates.txt" 2 "$(plus "$t0" $SETTLE_S)" "$t1")
	up2=$(rate_median "$NETNS_TMP/rates.txt" 2 "$(plus "$t1" $SETTLE_S)" 9e18)
	dn1=$(rate_median "$NETNS_TMP/rates.txt" 3 "$(plus "$t0" $SETTLE_S)" "$t1")
	dn2=$(rate_median "$NETNS_TMP/rates.txt" 3 "$(plus "$t1" $SETTLE_S)" 9e18)
	modem_stop
	cp "$MODEM_OUT" "$NETNS_TMP/modem-ar.keep"
	ar_out="$NETNS_TMP/modem-ar.keep"
}

# ar_bounds: the bounds of the autorate run (bounds_hold, bounds_check).
# caked charges IP packets (TUN), the modem Ethernet frames: 1500 against
# 1514 bytes, and a delay controller sits just around the capacity: the
# phase 2 download may reach 105 % of the modem's 20 Mbit.
ar_bounds()
{
	local r=$(ratio "$up2" "$up1") c=$(ratio "$dn2" "$dn1") pu pd

	pu=$(modem_get p2 up soj_p95 "$ar_out")
	pd=$(modem_get p2 down soj_p95 "$ar_out")
	printf '%s\n' \
	    "phase 2: caked upload rate vs phase 1 (ratio)|$r|ge|0.9" \
	    "phase 2: caked upload rate vs phase 1 (ratio)|$r|le|1.1" \
	    "phase 1: caked download rate Mbit/s|$dn1|gt|30" \
	    "phase 2: caked download rate Mbit/s (<= 105% of 20)|$dn2|le|21" \
	    "phase 2: caked download rate vs phase 1 (cut)|$c|le|0.6" \
	    "phase 2: download sojourn p95 ms (above base)|$pd|lt|30" \
	    "phase 2: upload sojourn p95 ms (above base)|$pu|lt|30"
}

topo_modem
iperf_servers 5201 5202
# A run short of a bound is run once more, and the second decides: the
# delay controller sits just around the capacity, and one CI run had the
# download's phase 2 median at 21.29 Mbit (doc/testing.md).
run_ar 1
if ! bounds_hold ar_bounds; then
	log "short of a bound (down $dn1 -> $dn2, up $up1 -> $up2 Mbit/s):" \
	    "the whole run once more"
	run_ar 2
fi

# The testbed's proof: a fixed caked over the 20 Mbit modem bloats.
caked_ar_fixed 20mbit 50mbit 15 5202

echo
echo "autorate: download 50 -> 20 Mbit at the modem, bulk TCP both ways;" \
    "TCP CC: ${NETNS_TCP_CC:-default}"
echo "goodput over the run: up $(mbit "$(netns_goodput "$NETNS_TMP/up.json")")" \
    "down $(mbit "$(netns_goodput "$NETNS_TMP/down.json")") Mbit/s"
printf '%-6s %-16s %-22s %s\n' phase "modem up/down" \
    "caked up/down Mbit/s" "modem sojourn p95 up/down ms"
printf '%-6s %-16s %-22s %s\n' 1 "50/50 Mbit" "$up1/$dn1" \
    "$(modem_get p1 up soj_p95 "$ar_out")/$(modem_get p1 down soj_p95 "$ar_out")"
printf '%-6s %-16s %-22s %s\n' 2 "50/20 Mbit" "$up2/$dn2" \
    "$(modem_get p2 up soj_p95 "$ar_out")/$(modem_get p2 down soj_p95 "$ar_out")"
printf '%-6s %-16s %-22s %s\n' fixed "50/20 Mbit" "50/50 (no autorate)" \
    "-/$(modem_get fixed down soj_p95)"
echo "modem, per phase:"
modem_report "$ar_out"
modem_report
grep -E 'autorate|delay|passive|owd' "$NETNS_TMP/stats.txt" | head -n 20
echo

bounds_check ar_bounds 7
check "fixed 50 Mbit caked, 20 Mbit modem: down sojourn p95 ms" \
    "$(modem_get fixed down soj_p95)" gt 200
netns_finish
