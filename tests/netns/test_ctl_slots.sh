#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_ctl_slots: one member of the control group cannot lock the control
# socket. As nobody (group nogroup, the socket's group) 16 clients connect
# and each sends one byte a second, never a newline (slow loris). Meanwhile
# root's `cakectl stats` runs every 0.25 s and must always answer. The
# slow clients beyond nobody's share are refused at once, the others are
# closed at the request deadline; stats count both. Then four uids with
# four slow clients each: one is refused, as the last free slot is kept
# for root and admin, and root's cakectl still answers.
. "$(dirname "$0")/lib.sh"

netns_init ping jq setpriv
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
netns_require_caked
netns_require_cakectl
netns_topo_tap
NETNS_CONF_GENERAL="control-group = nogroup"
netns_start_caked 20mbit 20mbit
SOCK=$NETNS_TMP/caked.sock
chmod 0711 "$NETNS_TMP"		# let nobody reach the socket
for i in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
"$CAKECTL" -s "$SOCK" ping >/dev/null || fail "cakectl ping as root"

cat >"$NETNS_TMP/loris.py" <<'PY'
import socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
conns, refused = [], 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.setblocking(False)
    conns.append(s)
time.sleep(0.3)
live = []
for s in conns:
    try:
        d = s.recv(300)
        refused += 1 if b'"busy"' in d else 0
        if refused == 1 and d:
            print("refusal:", d.decode().strip())
    except BlockingIOError:
        live.append(s)
print("connected", n, "refused at once", refused, "held", len(live))
t0 = time.monotonic()
closed = []
while time.monotonic() - t0 < 9 and live:
    for s in list(live):
        try:
            s.send(b"s")
            d = s.recv(300)
            if d == b"" or d:
                closed.append(time.monotonic() - t0)
                live.remove(s)
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            closed.append(time.monotonic() - t0)
            live.remove(s)
    time.sleep(1)
print("closed by caked", len(closed), "after s:",
      " ".join("%.1f" % c for c in closed), "still open", len(live))
PY
chmod 0644 "$NETNS_TMP/loris.py"

# loris UID N LOG: N slow clients of UID (group nogroup), in the background.
loris()
{
	setpriv --reuid="$1" --regid=nogroup --clear-groups /usr/bin/python3 \
	    "$NETNS_TMP/loris.py" "$SOCK" "$2" >"$3" 2>&1 9>&- &
	netns_track $!
	LORIS_PIDS="${LORIS_PIDS:-} $!"
}

# root_stats: 32 `cakectl stats` as root, 0.25 s apart; sets ok bad worst.
root_stats()
{
	local i t0 ms out

	ok=0 bad=0 worst=0
	for i in $(seq 1 32); do
	t0=$(date +%s%N)
		if out=$(timeout 2 "$CAKECTL" -s "$SOCK" stats 2>&1); then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
			[ "$bad" = 1 ] && log "root's cakectl stats failed: $out"
		fi
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ "$ms" -gt "$worst" ] && worst=$ms
		sleep 0.25
	done
}

loris nobody 16 "$NETNS_TMP/loris.log"
sleep 0.5
root_stats
wait $LORIS_PIDS
sed 's/^/    /' "$NETNS_TMP/loris.log"
grep -q '^connected 16' "$NETNS_TMP/loris.log" ||
    fail "the slow-loris clients did not run"
log "root's cakectl stats during the slow loris: $ok answered, $bad failed," \
    "slowest $worst ms"
c=$("$CAKECTL" -s "$SOCK" -j stats | jq -c .control)
log "control counters: $c"
check "root's cakectl stats answered (of 32)" "$ok" eq 32
check "slowest root cakectl stats (ms)" "$worst" le 1000
check "slow clients closed by caked" \
    "$(sed -n 's/^closed by caked \([0-9]*\).*/\1/p' "$NETNS_TMP/loris.log")" \
    ge 1
check "slow clients still open at the end" \
    "$(sed -n 's/.*still open \([0-9]*\)$/\1/p' "$NETNS_TMP/loris.log")" eq 0
check "control slow_closed" "$(echo "$c" | jq .slow_closed)" ge 1
check "control refused_busy" "$(echo "$c" | jq .refused_busy)" ge 1

# Four uids, four slow clients each: together they may not take the slot
# kept for root and admin.
LORIS_PIDS=""
for u in nobody 40001 40002 40003; do
	loris "$u" 4 "$NETNS_TMP/loris-$u.log"
	sleep 0.1
done
sleep 0.5
root_stats
wait $LORIS_PIDS
cat "$NETNS_TMP"/loris-*.log | sed 's/^/    /'
refused=$(sed -n 's/.*refused at once \([0-9]*\).*/\1/p' "$NETNS_TMP"/loris-*.log |
    awk '{ s += $1 } END { print s + 0 }')
log "4 uids x 4 slow clients: $refused refused at once; root's cakectl" \
    "stats: $ok answered, $bad failed, slowest $worst ms"
grep -h 'refusal:' "$NETNS_TMP"/loris-*.log | sed 's/^/    /'
held=$(sed -n 's/.* held \([0-9]*\)$/\1/p' "$NETNS_TMP"/loris-*.log |
    awk '{ s += $1 } END { print s + 0 }')
check "4 uids x 4 slow clients: refused at once" "$refused" ge 1
check "4 uids x 4 slow clients: held (16 slots, 1 kept)" "$held" le 15
check "root's cakectl stats answered (of 32), 4 uids" "$ok" eq 32
kill -0 "$FWD_PID" 2>/dev/null || fail "caked is gone"
netns_finish
