#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_startup: start-up faults that need root (a real start opens the
# devices before the control socket). Each must exit non-zero within 1 s
# with one clear line, and leave a running instance untouched:
#   - the control path exists and is not a socket;
#   - another caked answers on the control path;
#   - the LAN device is in use by another caked (exit 3);
# and a stale socket (nobody listening) is removed and caked starts.
# The command-line and configuration cases that need no root are in
# tests/cli.sh.
. "$(dirname "$0")/lib.sh"

netns_init
netns_require_caked
netns_require_cakectl
NS_R="${NETNS_PFX}r"
netns_add "$NS_R"

# conf NAME LAN WAN SOCKET: writes $NETNS_TMP/NAME.conf
conf()
{
	printf '[general]\nmode = tap\nlan = %s\nwan = %s\ncontrol = %s\n' \
	    "$2" "$3" "$4" >"$NETNS_TMP/$1.conf"
	printf '[upload]\nbandwidth = 10mbit\n[download]\nbandwidth = 10mbit\n' \
	    >>"$NETNS_TMP/$1.conf"
}

# start_fails LABEL CONF PATTERN [STATUS]: caked must exit non-zero (or
# STATUS) within 1 s, printing PATTERN.
start_fails()
{
	local t0 ms rc

	t0=$(date +%s%N)
	timeout 5 ip netns exec "$NS_R" "$CAKED" -c "$NETNS_TMP/$2.conf" \
	    >"$NETNS_TMP/$2.out" 2>&1 9>&-
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	log "$1: exit $rc after $ms ms: $(grep -v '^caked: stopped' \
	    "$NETNS_TMP/$2.out" | tail -n 1)"
	if [ -n "${4:-}" ]; then
		check "$1: exit status" "$rc" eq "$4"
	else
		check "$1: exit status" "$rc" gt 0
	fi
	[ "$rc" = 124 ] && fail "$1: still running after 5 s"
	check "$1: ms until exit" "$ms" le 1000
	grep -q -e "$3" "$NETNS_TMP/$2.out" || fail "$1: no line matching '$3'"
}

# A regular file where the socket goes.
: >"$NETNS_TMP/file.sock"
conf file a0 a1 "$NETNS_TMP/file.sock"
start_fails "control path is a file" file 'exists and is not a socket'
ip -n "$NS_R" link show a0 >/dev/null 2>&1 && fail "device a0 left behind"

# A running instance, then a second one on the same socket.
conf first l0 w0 "$NETNS_TMP/first.sock"
ip netns exec "$NS_R" "$CAKED" -c "$NETNS_TMP/first.conf" \
    >"$NETNS_TMP/fwd.log" 2>&1 9>&- &
FWD_PID=$!
netns_track "$FWD_PID"
for i in $(seq 1 50); do
	"$CAKECTL" -s "$NETNS_TMP/first.sock" ping >/dev/null 2>&1 && break
	sleep 0.1
done
conf second l1 w1 "$NETNS_TMP/first.sock"
start_fails "second instance on the same socket" second \
    'another caked is running on'
conf busy l0 w2 "$NETNS_TMP/busy.sock"
start_fails "LAN device in use by the first" busy 'l0: cannot open tap device' 3
"$CAKECTL" -s "$NETNS_TMP/first.sock" ping >/dev/null ||
    fail "the running instance no longer answers"
[ -S "$NETNS_TMP/first.sock" ] || fail "the running instance lost its socket"
log "the first instance still answers on its socket"

# A stale socket: bound, nobody listening.
/usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
    "$NETNS_TMP/stale.sock" 2>/dev/null || skip "python3 missing"
conf stale s0 s1 "$NETNS_TMP/stale.sock"
ip netns exec "$NS_R" "$CAKED" -c "$NETNS_TMP/stale.conf" \
    >"$NETNS_TMP/stale.out" 2>&1 9>&- &
spid=$!
netns_track "$spid"
for i in $(seq 1 50); do
	"$CAKECTL" -s "$NETNS_TMP/stale.sock" ping >/dev/null 2>&1 && break
	sleep 0.1
done
"$CAKECTL" -s "$NETNS_TMP/stale.sock" ping >/dev/null ||
    fail "caked did not take over a stale socket"
log "stale socket: $(grep stale "$NETNS_TMP/stale.out")"
netns_stop_pid "$spid"
netns_finish
