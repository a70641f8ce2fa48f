#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_valgrind: a short daemon run under valgrind memcheck is clean. caked
# (the normal build) runs under `valgrind --leak-check=full` in the router
# namespace of the TAP testbed while ping and iperf3 (both directions)
# pass through it, gets one SIGHUP (reload) and then SIGTERM. It must exit
# 0 with "ERROR SUMMARY: 0 errors" and no definitely or indirectly lost
# bytes; the valgrind summary is printed. Skipped for a sanitizer build of
# caked (valgrind cannot run ASan binaries) and without valgrind.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss valgrind
netns_require_caked
grep -q __asan_init "$CAKED_BIN" 2>/dev/null &&
    skip "caked at $CAKED_BIN is a sanitizer build (valgrind needs the normal one)"
netns_topo_tap
netns_iperf_server
netns_write_conf 20mbit 20mbit
"$CAKED" -t -c "$FWD_CONF" >"$NETNS_TMP/check.log" 2>&1 ||
    fail "caked -t rejected the generated config"
vglog="$NETNS_TMP/valgrind.log"
ip netns exec "$NS_R" valgrind --leak-check=full \
    --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --error-exitcode=99 \
    --log-file="$vglog" "$CAKED_BIN" -c "$FWD_CONF" \
    >"$NETNS_TMP/fwd.log" 2>&1 9>&- &
FWD_PID=$!
pid=$FWD_PID
netns_track "$pid"
netns_attach
log "caked running under valgrind (pid $pid)"

netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/ping1.txt"
st=$(netns_ping_stats "$NETNS_TMP/ping1.txt")
log "ping through caked under valgrind: median/p95/max ms, loss%, replies: $st"
check "ping replies before SIGHUP" "$(echo "$st" | cut -d' ' -f5)" ge 10
up=$(netns_iperf "$NETNS_TMP/up.json" 3)
down=$(netns_iperf "$NETNS_TMP/down.json" 3 -R)
log "iperf3 goodput under valgrind: upload $(mbit "$up"), download" \
    "$(mbit "$down") Mbit/s"
check "upload goodput under valgrind (Mbit/s)" "$(mbit "$up")" gt 0.1
check "download goodput under valgrind (Mbit/s)" "$(mbit "$down")" gt 0.1

netns_write_conf 10mbit 15mbit
kill -HUP "$pid" || fail "could not signal caked"
sleep 1
netns_ping "$NS_C" "$SERVER_IP" 10 "$NETNS_TMP/ping2.txt"
st=$(netns_ping_stats "$NETNS_TMP/ping2.txt")
check "ping replies after SIGHUP" "$(echo "$st" | cut -d' ' -f5)" ge 5

# SIGTERM; valgrind's leak check at exit takes a few seconds.
kill -TERM "$pid" || fail "could not signal caked"
for i in $(seq 1 300); do
	netns_is_child "$pid" || break
	sleep 0.1
done
netns_is_child "$pid" && fail "caked under valgrind did not exit within 30 s"
wait "$pid"
rc=$?
NETNS_PIDS=$(echo "$NETNS_PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
FWD_PID=""

echo "---- valgrind summary ----"
sed -n '/HEAP SUMMARY/,$p' "$vglog" | sed 's/^==[0-9]*== //' | head -n 60
echo "--------------------------"
check "caked exit status under valgrind (99 = errors)" "$rc" eq 0
errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$vglog" |
    tail -n 1)
check "valgrind errors (ERROR SUMMARY)" "${errs:-nan}" eq 0
if grep -q 'no leaks are possible' "$vglog"; then
	def=0 ind=0
else
	def=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$vglog" |
	    tr -d , | tail -n 1)
	ind=$(sed -n 's/.*indirectly lost: \([0-9,]*\) bytes.*/\1/p' "$vglog" |
	    tr -d , | tail -n 1)
fi
check "definitely lost bytes" "${def:-nan}" eq 0
check "indirectly lost bytes" "${ind:-nan}" eq 0
netns_finish
