#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_ctl: cakectl against a running caked. stats shows counters rising
# while ping flows; `set` changes the options line live and is refused
# with the keyword parser's message for bad input; hosts and flows show
# the client of a ping and a short iperf3 run with its ports; a user
# outside the
# admin group (nobody) may read stats but not set; and abusive clients
# (garbage, a 5 MB line, 2000 rapid requests, a client that never reads a
# pending reply, one that disconnects mid-reply, more clients than the
# cap) neither stop the daemon nor delay the ping that crosses it.
. "$(dirname "$0")/lib.sh"

netns_init ping jq python3 setpriv iperf3
netns_require_caked
netns_require_cakectl
netns_topo_tap
NETNS_CONF_GENERAL="control-group = nogroup"
netns_start_caked 20mbit 20mbit
pid=$FWD_PID
SOCK=$NETNS_TMP/caked.sock
chmod 0711 "$NETNS_TMP"		# let nobody reach the socket
ctl() { "$CAKECTL" -s "$SOCK" "$@"; }
netns_wait_ping || fail "no ping through caked"

for i in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
check "socket mode is 0660" "$(stat -c %a "$SOCK")" eq 660
[ "$(stat -c %G "$SOCK")" = nogroup ] || fail "socket group is not nogroup"

# ---- stats while traffic flows ---------------------------------------------
ctl ping >/dev/null || fail "cakectl ping"
ctl stats >"$NETNS_TMP/stats1.txt" || fail "cakectl stats"
sent1=$(ctl -j stats upload | jq '.directions.upload.sent_packets')
netns_ping "$NS_C" "$SERVER_IP" 40 "$NETNS_TMP/ping-stats.txt"
sent2=$(ctl -j stats upload | jq '.directions.upload.sent_packets')
log "upload sent_packets: $sent1 -> $sent2 after 40 pings"
check "upload packets counted during 40 pings" "$((sent2 - sent1))" ge 40
grep -q '^qdisc cake upload: bandwidth 20Mbit' "$NETNS_TMP/stats1.txt" ||
    fail "stats text lacks the options line"
grep -q '^                   Bulk  Best Effort        Voice$' \
    "$NETNS_TMP/stats1.txt" || fail "stats text lacks the tin header"
ctl metrics | grep -q '^caked_sent_packets_total{direction="upload"} ' ||
    fail "metrics lack caked_sent_packets_total"

# ---- hosts and flows: the busiest, with the client's address and ports ------
CPORT=40123
netns_iperf_server
netns_ping_bg "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/ping-flows.txt"
bps=$(netns_iperf "$NETNS_TMP/iperf-flows.json" 2 --cport "$CPORT")
wait "$PING_PID"
log "iperf3 upload goodput: $(mbit "$bps") Mbit/s"
ctl hosts upload >"$NETNS_TMP/hosts.txt" || fail "cakectl hosts upload"
ctl flows >"$NETNS_TMP/flows.txt" || fail "cakectl flows"
cat "$NETNS_TMP/hosts.txt" "$NETNS_TMP/flows.txt"
grep -q "^$CLIENT_IP " "$NETNS_TMP/hosts.txt" ||
    fail "hosts upload does not list the client $CLIENT_IP"
grep -q "^tcp  *$CLIENT_IP:$CPORT  *-> $SERVER_IP:5201 " \
    "$NETNS_TMP/flows.txt" || fail "flows lacks the iperf3 tcp flow"
grep -q "^icmp  *$CLIENT_IP  *-> $SERVER_IP " "$NETNS_TMP/flows.txt" ||
    fail "flows lacks the ping"
top=$(ctl -j -n 1 flows upload | jq -c '.directions.upload.flows')
log "busiest upload flow: $top"
check "upload flows shown with -n 1" "$(echo "$top" | jq length)" eq 1
echo "$top" | jq -e --arg c "$CLIENT_IP" --arg s "$SERVER_IP" \
    --argjson p "$CPORT" '.[0] | .proto == "tcp" and .src == $c and
    .sport == $p and .dst == $s and .dport == 5201' >/dev/null ||
    fail "the busiest upload flow is not the iperf3 data flow"
check "bytes of the busiest upload flow" "$(echo "$top" | jq '.[0].bytes')" \
    ge 100000
h=$(ctl -j hosts download | jq -c --arg c "$CLIENT_IP" \
    '.directions.download.hosts[] | select(.address == $c)')
log "download host: $h"
check "download flows to the client (by destination)" \
    "$(echo "$h" | jq '.flows // 0')" ge 2
err=$(ctl -n 65 hosts 2>&1); rc=$?
check "exit status of -n 65" "$rc" eq 1
log "-n 65: $err"

# ---- set: live change, precise refusal ---------------------------------------
out=$(ctl set upload bandwidth 30mbit) || fail "set upload bandwidth 30mbit"
log "set: $out"
ctl -j stats upload | jq -r .directions.upload.options |
    grep -q '^bandwidth 30Mbit ' || fail "options line did not change"
err=$(ctl set upload bandwith 30mbit 2>&1); rc=$?
log "bad keyword: exit $rc: $err"
check "exit status for a bad keyword" "$rc" eq 4
[ "$err" = "cakectl: unknown keyword 'bandwith' (did you mean 'bandwidth'?)" ] ||
    fail "unexpected message for a bad keyword: $err"

# ---- permissions -------------------------------------------------------------
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
asnobody "$CAKECTL" -s "$SOCK" stats >/dev/null || fail "nobody cannot stats"
err=$(asnobody "$CAKECTL" -s "$SOCK" set upload bandwidth 10mbit 2>&1); rc=$?
log "set as nobody: exit $rc: $err"
check "exit status of set as nobody (denied)" "$rc" eq 3
ctl -j stats upload | jq -r .directions.upload.options |
    grep -q '^bandwidth 30Mbit ' || fail "a denied set changed the options"
err=$("$CAKECTL" -s "$NETNS_TMP/none.sock" ping 2>&1); rc=$?
check "exit status with no daemon" "$rc" eq 2
err=$(ctl frobnicate 2>&1); rc=$?
check "exit status of an unknown command" "$rc" eq 1

# ---- abuse while a ping crosses the daemon -----------------------------------
netns_ping "$NS_C" "$SERVER_IP" 100 "$NETNS_TMP/ping-before.txt"
before=$(netns_ping_stats "$NETNS_TMP/ping-before.txt")
netns_ping_bg "$NS_C" "$SERVER_IP" 200 "$NETNS_TMP/ping-during.txt"
python3 - "$SOCK" >"$NETNS_TMP/abuse.log" 2>&1 <<'PY' || fail "abuse script failed: $(tail -3 "$NETNS_TMP/abuse.log")"
import json, os, socket, sys, time
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s
def reply(s):
    buf = b""
    while not buf.endswith(b"\n"):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    return buf
# garbage: binary, NULs, control characters
s = conn()
for g in [b"\x00\xff\xfe garbage\n", b"\x1b[2J\n", b"{}\n", b"stats \x01\n"]:
    s.sendall(g)
    r = json.loads(reply(s))
    assert r["ok"] is False, r
print("garbage refused")
# a 5 MB line: refused (toolong) and closed
s = conn()
try:
    s.sendall(b"x" * (5 * 1024 * 1024))
except (BrokenPipeError, ConnectionResetError):
    pass
print("5 MB line: daemon closed the connection")
# 2000 rapid requests on one connection, pipelined in chunks
s = conn()
n = 0
for _ in range(20):
    s.sendall(b"stats\n" * 100)
    for _ in range(100):
        line = b""
        while not line.endswith(b"\n"):
            line += s.recv(1)
        n += 1
print("2000 pipelined stats answered:", n)
# many connections, one request each
for i in range(200):
    c = conn(); c.sendall(b"ping\n"); assert b"pong" in reply(c); c.close()
print("200 connections served")
# a client that never reads: 1000 stats requests, no recv
lazy = conn()
lazy.setblocking(False)
try:
    for _ in range(1000):
        lazy.send(b"stats\n")
except BlockingIOError:
    pass
# a client that disconnects mid-reply
for _ in range(50):
    c = conn(); c.sendall(b"stats\n"); c.recv(100); c.close()
print("50 disconnects mid-reply")
# more clients than the cap: the extra ones get 'busy'
held = [conn() for _ in range(20)]
busy = 0
for c in held:
    c.settimeout(0.5)
    try:
        d = c.recv(200)
        if b'"busy"' in d:
            busy += 1
    except socket.timeout:
        pass
print("busy refusals:", busy)
assert busy >= 4, busy
for c in held: c.close()
# the daemon still answers while the lazy client sits there
c = conn(); c.sendall(b"ping\n"); assert b"pong" in reply(c)
lazy.close()
print("still answering")
PY
wait "$PING_PID"
during=$(netns_ping_stats "$NETNS_TMP/ping-during.txt")
cat "$NETNS_TMP/abuse.log"
log "ping before abuse: median/p95/max ms, loss%, replies: $before"
log "ping during abuse: median/p95/max ms, loss%, replies: $during"
kill -0 "$pid" 2>/dev/null || fail "caked died under control-socket abuse"
ctl ping >/dev/null || fail "cakectl ping after the abuse"
check "ping loss during abuse (%)" "$(echo "$during" | cut -d' ' -f4)" le 1
check "ping median during abuse (ms)" "$(echo "$during" | cut -d' ' -f1)" le \
    "$(awk -v m="$(echo "$before" | cut -d' ' -f1)" 'BEGIN { print m + 2 }')"
ctl -j stats | jq -e '.control.refused_busy >= 4 and .control.too_long >= 1' \
    >/dev/null || fail "control counters did not count the refusals"
log "control counters: $(ctl -j stats | jq -c .control)"
netns_finish
