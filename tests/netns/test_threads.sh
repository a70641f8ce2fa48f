#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_threads: caked with [general] threads = 2 (a packet thread per
# direction) on the TAP testbed. Checks: the two packet threads run;
# ping both ways; TCP both ways at once (iperf3 --bidir) is shaped in
# each direction; during that load cakectl stats, io and flows answer
# (the packet threads give snapshots) and the counters grow between two
# calls; cakectl set upload, under load, takes effect (the next load's
# upload is shaped to the new rate); SIGUSR1 and SIGHUP are handled;
# SIGTERM stops caked with exit status 0.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss
netns_require_caked
netns_require_cakectl
netns_topo_tap
netns_iperf_server

SOCK=$NETNS_TMP/caked.sock
ctl() { "$CAKECTL" -s "$SOCK" "$@"; }
RATE=40		# Mbit, each way
SLOW=20		# Mbit, upload after cakectl set

NETNS_CONF_GENERAL="threads = 2"
netns_start_caked "${RATE}mbit" "${RATE}mbit"
sleep 0.5
kill -0 "$FWD_PID" 2>/dev/null || fail "caked (threads = 2) did not start"
names=$(cat /proc/"$FWD_PID"/task/*/comm 2>/dev/null | sort | tr '\n' ' ')
log "caked threads: $names"
n=$(printf '%s\n' $names | grep -cx 'caked-upload\|caked-download')
check "packet threads running" "$n" eq 2
netns_basic_checks "threads=2"

# netns_bidir OUT SECONDS: TCP both ways at once; sets UP and DOWN (bit/s).
netns_bidir()
{
	timeout $(($2 + 20)) ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" \
	    -J -t "$2" -O 1 --bidir $IPERF_CC >"$1" 2>&1 9>&-
}

bidir_rates()
{
	UP=$(jq -r '[.end.streams[] | select(.sender.sender == true) |
	    .receiver.bits_per_second] | add // 0' "$1" 2>/dev/null)
	DOWN=$(jq -r '[.end.streams[] | select(.sender.sender == false) |
	    .receiver.bits_per_second] | add // 0' "$1" 2>/dev/null)
	UP=$(printf '%.0f' "${UP:-0}")
	DOWN=$(printf '%.0f' "${DOWN:-0}")
}

# Load both ways; the control socket is used while it runs.
netns_bidir "$NETNS_TMP/bidir1.json" 8 &
BPID=$!
netns_track "$BPID"
sleep 3
s1=$(ctl -j stats | jq '.directions.upload.sent_packets +
    .directions.download.sent_packets') || s1=""
ctl -j stats >"$NETNS_TMP/stats-load.json" || fail "cakectl stats under load"
ctl -j flows upload >"$NETNS_TMP/flows-load.json" ||
    fail "cakectl flows under load"
kill -USR1 "$FWD_PID"
sleep 1
s2=$(ctl -j stats | jq '.directions.upload.sent_packets +
    .directions.download.sent_packets') || s2=""
rx=$(jq '.directions.download.io.rx_packets' "$NETNS_TMP/stats-load.json")
check "stats under load: packets sent in 1 s" "$((${s2:-0} - ${s1:-0}))" gt 100
check "stats under load: download io rx_packets" "${rx:-null}" gt 0
nf=$(jq '.directions.upload.flows | length' "$NETNS_TMP/flows-load.json")
check "flows under load: upload flows listed" "${nf:-null}" gt 0
wait "$BPID"
bidir_rates "$NETNS_TMP/bidir1.json"
log "bidir at $RATE Mbit: up $(mbit "$UP"), down $(mbit "$DOWN") Mbit/s"
check "bidir upload Mbit/s" "$(mbit "$UP")" gt $((RATE / 2))
check "bidir download Mbit/s" "$(mbit "$DOWN")" gt $((RATE / 2))
check "bidir upload shaped: wire Mbit/s" "$(mbit "$(wire_bps "$UP")")" \
    le "$(awk "BEGIN { print $RATE * 1.02 }")"
check "bidir download shaped: wire Mbit/s" \
    "$(mbit "$(wire_bps "$DOWN")")" le "$(awk "BEGIN { print $RATE * 1.02 }")"
grep -q 'upload: sent_pkts=' "$NETNS_TMP/fwd.log" ||
    fail "SIGUSR1 logged no statistics"

# cakectl set under load: the packet thread applies it.
netns_bidir "$NETNS_TMP/bidir2.json" 6 &
BPID=$!
netns_track "$BPID"
sleep 2
ctl set upload bandwidth "${SLOW}mbit" >"$NETNS_TMP/set.txt" 2>&1 ||
    fail "cakectl set under load: $(cat "$NETNS_TMP/set.txt")"
wait "$BPID"
opts=$(ctl -j stats upload | jq -r .directions.upload.options)
log "upload options after set: $opts"
case $opts in
*"bandwidth ${SLOW}Mbit"*) check "set: upload at the new rate" 1 eq 1 ;;
*) check "set: upload at the new rate" 0 eq 1 ;;
esac
netns_bidir "$NETNS_TMP/bidir3.json" 5
bidir_rates "$NETNS_TMP/bidir3.json"
log "bidir after set: up $(mbit "$UP"), down $(mbit "$DOWN") Mbit/s"
check "after set: upload wire Mbit/s" "$(mbit "$(wire_bps "$UP")")" \
    le "$(awk "BEGIN { print $SLOW * 1.02 }")"
check "after set: upload Mbit/s" "$(mbit "$UP")" gt $((SLOW / 2))
check "after set: download Mbit/s" "$(mbit "$DOWN")" gt $((RATE / 2))

# A reload goes through the packet threads too.
kill -HUP "$FWD_PID"
sleep 1
grep -q "reloaded" "$NETNS_TMP/fwd.log" || fail "SIGHUP: not reloaded"
opts=$(ctl -j stats upload | jq -r .directions.upload.options)
case $opts in
*"bandwidth ${RATE}Mbit"*) check "reload: upload back at its rate" 1 eq 1 ;;
*) check "reload: upload back at its rate" 0 eq 1 ;;
esac

kill -0 "$FWD_PID" 2>/dev/null || fail "caked died"
kill -TERM "$FWD_PID"
wait "$FWD_PID"
rc=$?
FWD_PID=""
check "SIGTERM: caked exit status" "$rc" eq 0
netns_finish
