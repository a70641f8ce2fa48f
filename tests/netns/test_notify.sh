#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_notify: caked's systemd integration without systemd. A small Python
# "manager" binds a NOTIFY_SOCKET and records every datagram with its
# CLOCK_MONOTONIC arrival time; caked runs (as user nobody, the way the
# units run it as caked) with NOTIFY_SOCKET, WATCHDOG_USEC and
# JOURNAL_STREAM pointing at its own stderr file. Checked:
#  - READY=1, then STATUS= "upload 20Mbit, download 100Mbit, N hosts",
#    refreshed at most once a second, counting the pinging client;
#  - `cakectl reload` run as caked's own user (as ExecReload= runs it):
#    a good file exits 0, sends RELOADING=1 with a MONOTONIC_USEC= taken
#    at the reload, then READY=1, and STATUS= shows the new rate; a broken
#    file exits 4, RELOADING=1/READY=1 again, and the old rate stays; a
#    different unprivileged user is denied (exit 3);
#  - WATCHDOG=1 at about half of WATCHDOG_USEC, none while caked is
#    stopped (SIGSTOP), again after SIGCONT; SIGTERM: STOPPING=1, exit 0;
#  - every stderr line starts with its syslog priority (<6> info, <4> the
#    refused reload), and without a matching JOURNAL_STREAM lines are plain.
. "$(dirname "$0")/lib.sh"

netns_init ping python3 setpriv
netns_require_caked
netns_require_cakectl
id nobody >/dev/null 2>&1 && id daemon >/dev/null 2>&1 &&
    getent group nogroup >/dev/null ||
    skip "users nobody/daemon or group nogroup missing"

WD_US=400000			# pings expected every 200 ms
SOCK=$NETNS_TMP/notify.sock
NLOG=$NETNS_TMP/notify.log

# The manager: one line per datagram, "MONOTONIC_NS<TAB>FIELDS" (fields
# joined by '|'); it stops by itself after 120 s.
python3 - "$SOCK" "$NLOG" <<'EOF' 9>&- &
import os, socket, sys, time
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
s.settimeout(0.5)
end = time.monotonic() + 120
with open(out, "w", buffering=1) as f:
    while time.monotonic() < end:
        try:
            msg = s.recv(4096)
        except socket.timeout:
            continue
        f.write("%d\t%s\n" % (time.monotonic_ns(),
            msg.decode(errors="replace").strip("\n").replace("\n", "|")))
EOF
MGR_PID=$!
netns_track "$MGR_PID"
for i in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || fail "the manager did not bind $SOCK"

# JOURNAL_STREAM: negative case first (no root or devices needed).
printf '[general]\nmtu = 1500x\n' >"$NETNS_TMP/bad.conf"
: >"$NETNS_TMP/plain.log"
JOURNAL_STREAM=0:0 "$CAKED" -c "$NETNS_TMP/bad.conf" 2>"$NETNS_TMP/plain.log"
: >"$NETNS_TMP/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$NETNS_TMP/journal.log") \
    "$CAKED" -c "$NETNS_TMP/bad.conf" 2>"$NETNS_TMP/journal.log"
log "stderr, JOURNAL_STREAM elsewhere: $(tr '\n' '/' <"$NETNS_TMP/plain.log")"
log "stderr, JOURNAL_STREAM = stderr:  $(tr '\n' '/' <"$NETNS_TMP/journal.log")"
grep -q '^caked: .*configuration has errors' "$NETNS_TMP/plain.log" &&
    ! grep -q '^<' "$NETNS_TMP/plain.log" ||
    fail "lines not plain when JOURNAL_STREAM is another file"
grep -q '^<4>caked: .*mtu: expected' "$NETNS_TMP/journal.log" &&
    grep -q '^<3>caked: .*configuration has errors' "$NETNS_TMP/journal.log" ||
    fail "no <4>/<3> prefixes when JOURNAL_STREAM is stderr"
: >"$NETNS_TMP/journal-t.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$NETNS_TMP/journal-t.log") \
    "$CAKED" -t -c "$NETNS_TMP/bad.conf" 2>"$NETNS_TMP/journal-t.log"
log "caked -t, JOURNAL_STREAM = stderr: $(tr '\n' '/' <"$NETNS_TMP/journal-t.log")"
grep -q '^<4>/.*bad.conf:2: \[general\] mtu: expected' \
    "$NETNS_TMP/journal-t.log" || fail "caked -t: no <4> on the error line"

# caked as user nobody (its own user), reachable by group nogroup.
netns_topo_tap
chmod 0755 "$NETNS_TMP"
NETNS_CONF_GENERAL="user = nobody
control-group = nogroup"
: >"$NETNS_TMP/fwd.log"		# same inode after the > in lib.sh
export NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=$WD_US
JOURNAL_STREAM=$(stat -c '%d:%i' "$NETNS_TMP/fwd.log")
export JOURNAL_STREAM
netns_start_caked 20mbit 100mbit
unset NOTIFY_SOCKET WATCHDOG_USEC JOURNAL_STREAM
chmod 0644 "$FWD_CONF"
pid=$FWD_PID

# fields NAME: the values of NAME= in arrival order, "TIME_NS VALUE".
fields()
{
	awk -F '\t' -v k="$1=" '{
		n = split($2, f, "|")
		for (i = 1; i <= n; i++)
			if (index(f[i], k) == 1)
				print $1, substr(f[i], length(k) + 1)
	}' "$NLOG"
}
# wait_for PATTERN: until a notify line matches (at most 5 s).
wait_for()
{
	local i
	for i in $(seq 1 50); do
		grep -q -- "$1" "$NLOG" && return 0
		sleep 0.1
	done
	return 1
}
as_user() { setpriv --reuid="$1" --regid=nogroup --clear-groups "${@:2}"; }

wait_for $'\tREADY=1' || fail "no READY=1"
netns_ping "$NS_C" "$SERVER_IP" 30 "$NETNS_TMP/ping.txt"
wait_for 'STATUS=.*, 1 host$' || fail "no STATUS= with 1 host"
log "STATUS lines: $(fields STATUS | cut -d' ' -f2- | sort -u | tr '\n' '/')"
fields STATUS | head -n 1 |
    grep -q ' upload 20Mbit, download 100Mbit, [0-9]* host' ||
    fail "first STATUS= is not 'upload 20Mbit, download 100Mbit, N hosts'"
gap=$(fields STATUS | awk 'NR > 1 { d = ($1 - t) / 1e6
    if (m == "" || d < m) m = d } { t = $1 } END { print (m == "" ? "nan" : m) }')
check "shortest gap between STATUS= lines, ms" "$gap" ge 900

# A good reload as caked's own user.
sed -i 's/^bandwidth = 20mbit$/bandwidth = 30mbit/' "$FWD_CONF"
t0=$(python3 -c 'import time; print(time.monotonic_ns() // 1000)')
as_user nobody "$CAKECTL" -s "$NETNS_TMP/caked.sock" reload \
    >"$NETNS_TMP/reload1.txt" 2>&1
rc=$?
t1=$(python3 -c 'import time; print(time.monotonic_ns() // 1000)')
log "cakectl reload (good file, as nobody): exit $rc:" \
    "$(cat "$NETNS_TMP/reload1.txt")"
check "good reload exit status" "$rc" eq 0
mono=$(fields MONOTONIC_USEC | tail -n 1 | cut -d' ' -f2)
log "RELOADING MONOTONIC_USEC=$mono, cakectl ran from $t0 to $t1 us"
[ -n "$mono" ] && [ "$mono" -ge "$t0" ] && [ "$mono" -le "$t1" ] ||
    fail "MONOTONIC_USEC=$mono not within the reload ($t0..$t1)"
grep -q $'\tRELOADING=1|MONOTONIC_USEC=' "$NLOG" ||
    fail "RELOADING=1 and MONOTONIC_USEC= not in one message"
[ "$(awk -F '\t' '/RELOADING=1/ { r = NR }
    /\tREADY=1$/ && r && NR > r { print "ok"; exit }' "$NLOG")" = ok ] ||
    fail "no READY=1 after RELOADING=1"
wait_for 'STATUS=upload 30Mbit' || fail "STATUS= does not show 30Mbit"

# A different unprivileged user of the socket's group may not reload.
as_user daemon "$CAKECTL" -s "$NETNS_TMP/caked.sock" reload \
    >"$NETNS_TMP/reload-daemon.txt" 2>&1
rc=$?
log "cakectl reload as user daemon: exit $rc:" \
    "$(cat "$NETNS_TMP/reload-daemon.txt")"
check "reload by another user: exit status (3 = denied)" "$rc" eq 3

# A broken file: refused, old configuration in force.
n_ready=$(grep -c $'\tREADY=1$' "$NLOG")
sed -i 's/^bandwidth = 30mbit$/bandwidth = 40mbitx/' "$FWD_CONF"
as_user nobody "$CAKECTL" -s "$NETNS_TMP/caked.sock" reload \
    >"$NETNS_TMP/reload2.txt" 2>&1
rc=$?
log "cakectl reload (broken file): exit $rc: $(cat "$NETNS_TMP/reload2.txt")"
check "broken reload exit status (4 = refused)" "$rc" eq 4
check "READY=1 messages after the broken reload" \
    "$(grep -c $'\tREADY=1$' "$NLOG")" eq $((n_ready + 1))
"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats upload >"$NETNS_TMP/stats.txt" ||
    fail "cakectl stats after the broken reload"
grep -q 'bandwidth 30Mbit' "$NETNS_TMP/stats.txt" ||
    fail "old configuration not in force: $(head -n 1 "$NETNS_TMP/stats.txt")"
kill -0 "$pid" 2>/dev/null || fail "caked died"

# Watchdog: pings at about half of WATCHDOG_USEC, none while stopped.
wd_count() { grep -c $'\tWATCHDOG=1$' "$NLOG"; }
med=$(fields WATCHDOG | awk 'NR > 1 { print ($1 - t) / 1e6 } { t = $1 }' |
    sort -n |
    awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "nan") }')
log "WATCHDOG=1: $(wd_count) pings, median interval $med ms" \
    "(WATCHDOG_USEC $WD_US)"
check "median watchdog interval, ms" "$med" ge 150
check "median watchdog interval, ms" "$med" le 260
kill -STOP "$pid"
sleep 0.3			# a ping may be in flight
a=$(wd_count)
sleep 1.5
b=$(wd_count)
kill -CONT "$pid"
sleep 1
c=$(wd_count)
log "watchdog pings: 1.5 s stopped: $((b - a)), 1 s after SIGCONT: $((c - b))"
check "watchdog pings while stopped" "$((b - a))" eq 0
check "watchdog pings after SIGCONT" "$((c - b))" ge 3

# Journal priorities on the running daemon's stderr.
log "caked stderr: $(head -n 3 "$NETNS_TMP/fwd.log" | tr '\n' '/')"
grep -q '^<6>caked: started' "$NETNS_TMP/fwd.log" || fail "no <6> on 'started'"
grep -q '^<4>caked: .*has errors, not reloaded' "$NETNS_TMP/fwd.log" ||
    fail "no <4> on the refused reload"
check "stderr lines without a <N> prefix" \
    "$(grep -cv '^<[0-7]>caked: ' "$NETNS_TMP/fwd.log")" eq 0

# Clean stop.
kill -TERM "$pid"
wait "$pid"
rc=$?
FWD_PID=""
NETNS_PIDS=$(echo "$NETNS_PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
check "exit status after SIGTERM" "$rc" eq 0
wait_for $'\tSTOPPING=1$' || fail "no STOPPING=1"
log "notify transcript (watchdog pings elided):"
t0=$(head -n 1 "$NLOG" | cut -f1)
grep -v $'\tWATCHDOG=1$' "$NLOG" |
    awk -F '\t' -v t0="$t0" '{ printf "  +%8.3f s  %s\n", ($1 - t0) / 1e9, $2 }'
netns_finish
