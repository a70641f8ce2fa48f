#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_top: `cakectl top upload` on a real terminal (a detached tmux pane)
# while 4 TCP uploads run through caked at 20 Mbit. The achieved upload
# rate it shows (the mean of its frames in the steady part of the load)
# must be within 5 % of iperf3's goodput, drops/s must be non-zero at
# least once, the busiest host must be the client, and 'q' must quit it.
# caked counts whole frames (1514 bytes per 1448 of TCP payload), so its
# rate is about 4.5 % above the goodput: the rate it shows is held
# within 2 % of the goodput counted in such frames (and at least 95 % of
# the bare goodput).
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss tmux
netns_require_caked
netns_require_cakectl
SECS=${TOP_SECS:-15}
TMUX_SOCK=$NETNS_TMP/tmux.sock
tm() { tmux -S "$TMUX_SOCK" "$@"; }
# our private tmux server goes with the namespaces, even on failure
top_cleanup()
{
	local rc=$?

	tm kill-server >/dev/null 2>&1
	(exit "$rc")	# netns_cleanup takes the exit status from $?
	netns_cleanup
}
trap top_cleanup EXIT

netns_topo_tap
netns_iperf_server
netns_start_caked 20mbit 20mbit

tm new-session -d -s top -x 160 -y 60 \
    "$CAKECTL -s $NETNS_TMP/caked.sock top upload" ||
    fail "tmux could not start cakectl top"
timeout $((SECS + 20)) ip netns exec "$NS_C" iperf3 -c "$SERVER_IP" \
    -J -t "$SECS" -P 4 $IPERF_CC >"$NETNS_TMP/iperf.json" 2>&1 9>&- &
ipid=$!
netns_track "$ipid"
# frames of the steady part: from second 4 to 2 s before the end
sleep 4
for i in $(seq 1 $((SECS - 6))); do
	tm capture-pane -p -t top >"$NETNS_TMP/frame-$i.txt"
	sleep 1
done
wait "$ipid"
goodput=$(netns_goodput "$NETNS_TMP/iperf.json")
sed -n 1,20p "$NETNS_TMP/frame-3.txt"

# "upload: rate 20Mbit  achieved 19.41 Mbit/s (97%)  drops/s 210 ..."
cat "$NETNS_TMP"/frame-*.txt | awk '/^upload: rate/ {
	for (i = 1; i < NF; i++) {
		if ($i == "achieved") a = $(i + 1)
		if ($i == "drops/s") d = $(i + 1)
	}
	print a, d }' >"$NETNS_TMP/figures.txt"
n=$(wc -l <"$NETNS_TMP/figures.txt")
shown=$(awk '{ s += $1 } END { if (NR) printf "%.2f", s / NR }' \
    "$NETNS_TMP/figures.txt")
drops=$(awk '$2 > 0 { n++ } END { print n + 0 }' "$NETNS_TMP/figures.txt")
log "iperf3 goodput $(mbit "$goodput") Mbit/s" \
    "($(netns_retransmits "$NETNS_TMP/iperf.json")" \
    "retransmissions), top showed $shown Mbit/s on average over $n" \
    "frames, drops/s > 0 in $drops"
check "frames captured with an upload line" "$n" ge $((SECS - 8))
check "top upload rate / iperf3 goodput" \
    "$(ratio "$shown" "$(mbit "$goodput")")" ge 0.95
# Above, the bound is the one on the wire: caked's count has 4.56 % of
# framing over the goodput, so a raw 1.05 would leave 0.4 % for all the
# rest (top's frames cover seconds 4-13, iperf3's mean all 15 s, slow
# start included; frames sent twice). CI saw 1.056 raw, 1.010 on the
# wire. On the wire, both ways within 2 %:
check "top upload rate / iperf3 goodput on the wire" \
    "$(ratio "$shown" "$(mbit "$(wire_bps "$goodput")")")" ge 0.98
check "top upload rate / iperf3 goodput on the wire " \
    "$(ratio "$shown" "$(mbit "$(wire_bps "$goodput")")")" le 1.02
check "frames with drops/s > 0" "$drops" ge 1
check "busiest host is the client" \
    "$(grep -c "^   $CLIENT_IP " "$NETNS_TMP/frame-3.txt")" ge 1
check "escape-free capture has the tin table" \
    "$(grep -c 'Best Effort' "$NETNS_TMP/frame-3.txt")" ge 1

tm send-keys -t top q
sleep 1.5
if tm has-session -t top 2>/dev/null; then
	check "q quits cakectl top" 0 eq 1
	tm kill-server
else
	check "q quits cakectl top" 1 eq 1
fi

# Not a terminal: one frame a second, appended, no screen codes.
"$CAKECTL" -s "$NETNS_TMP/caked.sock" -n 2 top >"$NETNS_TMP/piped.txt" ||
    fail "cakectl top to a file"
check "piped frames" "$(grep -c '^caked top' "$NETNS_TMP/piped.txt")" eq 2
check "piped escape bytes" "$(tr -cd '\033' <"$NETNS_TMP/piped.txt" |
    wc -c)" eq 0
netns_finish
