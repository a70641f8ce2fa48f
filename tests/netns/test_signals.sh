#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_signals: stray signals do not end caked. caked is started with a
# SIGHUP already pending (blocked, raised, then exec'd, as a reload request
# racing the start would be): it must come up and then reload once. A
# second SIGHUP follows as soon as caked's main() has begun (its signal
# dispositions have changed, read in /proc); it must not kill caked, which
# needs luck to show against a caked without the fix. Once running,
# SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGIO and a real-time signal leave
# it alive and forwarding, with the same PID.
. "$(dirname "$0")/lib.sh"

netns_init ping
netns_require_caked
netns_topo_tap
netns_write_conf 20mbit 20mbit
"$CAKED" -t -c "$FWD_CONF" >"$NETNS_TMP/check.log" 2>&1 ||
    fail "caked -t rejected the generated config"

# sigmask FIELD PID: a /proc/PID/status signal mask, as a number.
sigmask()
{
	local m

	m=$(awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null)
	echo $((16#${m:-0}))
}

command -v perl >/dev/null 2>&1 || skip "perl missing"
# The binary itself (CAKED_BIN): a shell between perl and caked (lib.sh's
# CAKED_THREADS wrapper) would take the pending SIGHUP. caked -t above
# already gave the file its threads line.
perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGHUP)) or die;
    kill("HUP", $$); exec(@ARGV) or die' \
    ip netns exec "$NS_R" "$CAKED_BIN" -c "$FWD_CONF" >"$NETNS_TMP/fwd.log" 2>&1 9>&- &
FWD_PID=$!
netns_track "$FWD_PID"
# Wait for main() to run: the process is caked and ignores a signal that
# it did not inherit as ignored (a background job inherits SIGINT and
# SIGQUIT ignored); any version of caked gets there early in its start-up.
inherited=$(( $(sigmask SigIgn $$) | 6 ))
for i in $(seq 1 400); do
	[ "$(cat "/proc/$FWD_PID/comm" 2>/dev/null)" = caked ] &&
	    [ $(( $(sigmask SigIgn "$FWD_PID") & ~inherited )) != 0 ] && break
	sleep 0.005
done
log "main() began after ~$((i * 5)) ms: SigIgn $(sigmask SigIgn "$FWD_PID")," \
    "SigBlk $(sigmask SigBlk "$FWD_PID")"
kill -HUP "$FWD_PID" 2>/dev/null || fail "caked (pid $FWD_PID) gone before SIGHUP"
sleep 0.5
if ! kill -0 "$FWD_PID" 2>/dev/null; then
	wait "$FWD_PID"
	fail "caked died from a SIGHUP during start-up (exit status $?)"
fi
netns_attach
for i in $(seq 1 40); do
	grep -q "reloaded $FWD_CONF" "$NETNS_TMP/fwd.log" && break
	sleep 0.05
done
grep -q "reloaded $FWD_CONF" "$NETNS_TMP/fwd.log" ||
    fail "the pending SIGHUP was not applied after start-up (no 'reloaded' line)"
log "early SIGHUPs: survived and applied: $(grep -m1 'reloaded' "$NETNS_TMP/fwd.log")"

for sig in USR2 ALRM PIPE VTALRM IO RTMIN+3 RTMAX; do
	kill -s "$sig" "$FWD_PID" 2>/dev/null || fail "caked gone before SIG$sig"
	sleep 0.2
	if ! kill -0 "$FWD_PID" 2>/dev/null; then
		wait "$FWD_PID"
		fail "caked died from SIG$sig (exit status $?)"
	fi
	log "SIG$sig: caked (pid $FWD_PID) still running"
done
netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/ping.txt"
st=$(netns_ping_stats "$NETNS_TMP/ping.txt")
log "ping after the signals: median/p95/max ms, loss%: $st"
check "ping loss after stray signals (%)" "$(echo "$st" | cut -d' ' -f4)" le 0
netns_finish
