#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_reload_stall: a reload never stalls forwarding. While a 100 Hz ping
# crosses caked, the configuration path is replaced, each followed by
# SIGHUP, by (1) a FIFO nobody writes to, (2) a 1 MB file of many
# sections, (3) a 1 MB file of unknown keys, (4) a file over the size
# bound. Each is refused (logged, old configuration kept); the longest gap
# between ping replies and the largest RTT are printed and bounded. Then
# the valid file reloads. Last, with the FIFO in place again, SIGHUP and
# then SIGTERM: caked must exit promptly (figure printed).
. "$(dirname "$0")/lib.sh"

netns_init ping
netns_require_caked
netns_topo_tap
netns_start_caked 20mbit 20mbit
pid=$FWD_PID
conf=$FWD_CONF
cp "$conf" "$NETNS_TMP/valid.conf"

# verdicts: number of reload verdicts in the log so far
verdicts() { grep -c -E 'reloaded|not reloaded' "$NETNS_TMP/fwd.log"; }

# swap_hup NAME FILE: FILE becomes the configuration path, then SIGHUP;
# waits up to 2 s for a verdict.
swap_hup()
{
	local n0 i

	n0=$(verdicts)
	mv -f "$2" "$conf"
	kill -HUP "$pid" || fail "caked (pid $pid) is gone before case $1"
	for i in $(seq 1 40); do
		[ "$(verdicts)" -gt "$n0" ] && break
		sleep 0.05
	done
	[ "$(verdicts)" -gt "$n0" ] || log "case $1: no verdict within 2 s"
	sleep 0.5
}

# big FILE KIND: a 1 MB configuration of many sections or unknown keys.
big()
{
	{
		cat "$NETNS_TMP/valid.conf"
		awk -v kind="$2" 'BEGIN {
			for (i = 0; n < 1000000; i++) {
				l = kind == "sections" ? "[s" i "]" : "k" i " = 1"
				print l
				n += length(l) + 1
			}
		}'
	} >"$1"
}

netns_ping_bg "$NS_C" "$SERVER_IP" 600 "$NETNS_TMP/ping.txt" 0.01
sleep 0.5
mkfifo "$NETNS_TMP/fifo" || fail "mkfifo"
swap_hup fifo "$NETNS_TMP/fifo"
big "$NETNS_TMP/sections.conf" sections
swap_hup sections "$NETNS_TMP/sections.conf"
big "$NETNS_TMP/keys.conf" keys
swap_hup keys "$NETNS_TMP/keys.conf"
{ cat "$NETNS_TMP/valid.conf"; head -c 2000000 /dev/zero | tr '\0' '#'; } \
    >"$NETNS_TMP/huge.conf"
swap_hup huge "$NETNS_TMP/huge.conf"
wait "$PING_PID"

# The longest gap between two replies (ms), from ping -D's timestamps; a
# run of missing replies counts as its length in 10 ms intervals, up to
# the end of the run (a stall that lasts past the ping loses the rest).
gap=$(sed -n 's/^\[\([0-9.]*\)\].*icmp_seq=\([0-9]*\).*time=.*/\1 \2/p' \
    "$NETNS_TMP/ping.txt" | awk '
	function max(a, b) { return a > b ? a : b }
	NR > 1 { g = max(g, max(($1 - t) * 1000, ($2 - q) * 10)) }
	{ t = $1; q = $2 }
	END { printf "%.1f", max(g, (600 - q) * 10) }')
st=$(netns_ping_stats "$NETNS_TMP/ping.txt")
log "100 Hz ping across the 4 reloads: median/p95/max ms, loss%, replies: $st"
log "longest gap between replies: $gap ms (10 ms expected)"
grep -E 'not reloaded|regular file|too many' "$NETNS_TMP/fwd.log" |
    sed 's/^/    /'
check "replies of 600 pings" "$(echo "$st" | cut -d' ' -f5)" ge 590
check "longest gap between ping replies (ms)" "$gap" le 100
check "largest ping RTT (ms)" "$(echo "$st" | cut -d' ' -f3)" le 50
check "refused reloads" "$(grep -c 'has errors, not reloaded' "$NETNS_TMP/fwd.log")" eq 4
grep -q 'fifo\|caked.conf: expected a regular file' "$NETNS_TMP/fwd.log" ||
    fail "the FIFO was not refused as 'not a regular file'"
kill -0 "$pid" 2>/dev/null || fail "caked (pid $pid) is gone"

# The old configuration still runs; the valid file reloads.
cp "$NETNS_TMP/valid.conf" "$NETNS_TMP/valid2.conf"
swap_hup valid "$NETNS_TMP/valid2.conf"
grep -q "reloaded $conf\$" "$NETNS_TMP/fwd.log" || fail "the valid file did not reload"

# SIGTERM right after a SIGHUP on a FIFO.
mkfifo "$NETNS_TMP/fifo2" || fail "mkfifo"
mv -f "$NETNS_TMP/fifo2" "$conf"
t0=$(date +%s%N)
kill -HUP "$pid"
kill -TERM "$pid"
for i in $(seq 1 300); do
	netns_is_child "$pid" || break
	sleep 0.01
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
netns_is_child "$pid" && fail "caked still runs 3 s after SIGTERM"
wait "$pid"
rc=$?
FWD_PID=""
log "SIGTERM after a SIGHUP on a FIFO: exit status $rc after $ms ms"
check "caked exit status after SIGTERM" "$rc" eq 0
# The issue's bound is 100 ms; the figure also holds the test's own 10 ms
# polling. A sanitizer build's exit runs LeakSanitizer's heap scan first
# (73 ms measured, against 47 ms for the normal build), so it gets 250.
term_ms=100
ldd "$CAKED" 2>/dev/null | grep -q 'libasan' && term_ms=250
check "SIGTERM to exit (ms)" "$ms" le "$term_ms"
netns_finish
