#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_reload: SIGHUP with a broken file keeps the old configuration; with
# a valid one applies it. caked starts at 10 Mbit. Then, each followed by
# SIGHUP: (1) a file with "bandwidth = 30mbitz" and an unknown key: the
# log names the file, line, [section] and key, the options stay at
# 10 Mbit and TCP is still shaped to 10 Mbit; (2) a file that changes
# the LAN device: not applied, "needs a restart" logged; the same for a
# file that changes [upload] queues, which `cakectl set` refuses too;
# (3) `cakectl reload` on a broken file exits non-zero and prints why;
# (4) the valid 30 Mbit file: applied, TCP follows. Same PID throughout.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq
netns_require_caked
netns_require_cakectl
netns_topo_tap
netns_iperf_server
netns_start_caked 10mbit 10mbit
pid=$FWD_PID
SOCK=$NETNS_TMP/caked.sock
ctl() { "$CAKECTL" -s "$SOCK" "$@"; }
options() { ctl -j stats upload | jq -r .directions.upload.options; }

# hup: SIGHUP, then wait for the reload's verdict in the log.
hup()
{
	local n0 i

	n0=$(grep -c -E 'reloaded|not reloaded' "$NETNS_TMP/fwd.log")
	kill -HUP "$pid" || fail "caked (pid $pid) is gone"
	for i in $(seq 1 50); do
		[ "$(grep -c -E 'reloaded|not reloaded' "$NETNS_TMP/fwd.log")" \
		    -gt "$n0" ] && return 0
		sleep 0.05
	done
	fail "no reload verdict in the log"
}

# shaped_check LABEL MBIT: 4 s of TCP upload, wire rate within 85-102 %.
shaped_check()
{
	local bps acc

	bps=$(netns_iperf "$NETNS_TMP/$1.json" 4)
	acc=$(ratio "$(wire_bps "$bps")" $(($2 * 1000000)))
	log "$1: upload goodput $(mbit "$bps") Mbit/s, wire/configured $acc"
	check "$1: wire/configured rate ($2 Mbit)" "$acc" ge 0.85
	check "$1: wire/configured rate ($2 Mbit)" "$acc" le 1.02
}

opts0=$(options)
log "running: $opts0"

# (1) a broken file
netns_write_conf 30mbit 30mbit
sed -i 's/^bandwidth = 30mbit$/bandwidth = 30mbitz/; /^\[general\]$/a shaper = fast' \
    "$FWD_CONF"
hup
grep 'not reloaded\|caked.conf:' "$NETNS_TMP/fwd.log" | sed 's/^/    /'
grep -q "caked.conf:[0-9]*: \[upload\] bandwidth: .*30mbitz" "$NETNS_TMP/fwd.log" ||
    fail "the log does not name the file, [upload] bandwidth and the value"
grep -q "caked.conf:[0-9]*: \[general\] shaper" "$NETNS_TMP/fwd.log" ||
    fail "the log does not name the unknown key [general] shaper"
grep -q 'has errors, not reloaded' "$NETNS_TMP/fwd.log" ||
    fail "no 'not reloaded' line"
[ "$(options)" = "$opts0" ] || fail "options changed by a broken file: $(options)"
log "broken file: options unchanged ($(options | cut -d' ' -f1-2))"
shaped_check broken-file 10

# (2) a change that needs a restart
# refused_restart SED SECTION KEY: a config edited by SED is refused.
refused_restart()
{
	netns_write_conf 30mbit 30mbit
	sed -i "$1" "$FWD_CONF"
	hup
	grep -q "not reloaded: \\[$2\\] $3 changed, which needs a restart" \
	    "$NETNS_TMP/fwd.log" || fail "no 'needs a restart' line for $3"
	[ "$(options)" = "$opts0" ] || fail "options changed by a $3 change"
	log "$3 change: refused, $(grep 'needs a restart' \
	    "$NETNS_TMP/fwd.log" | tail -n 1 | sed 's/^caked: //')"
}
refused_restart "s/^lan = .*/lan = other0/" general lan
refused_restart '/^\[upload\]$/a queues = 2048' upload queues
out=$(ctl set upload queues 2048 2>&1)
rc=$?
log "cakectl set upload queues 2048: exit $rc: $out"
check "cakectl set queues exit status" "$rc" gt 0
echo "$out" | grep -q 'queues cannot change while caked runs' ||
    fail "cakectl set queues does not say why: $out"
[ "$(options)" = "$opts0" ] || fail "options changed by cakectl set queues"

# (3) cakectl reload on a broken file
netns_write_conf 30mbit 30mbitz
out=$(ctl reload 2>&1)
rc=$?
log "cakectl reload (broken): exit $rc: $out"
check "cakectl reload exit status on a broken file" "$rc" gt 0
[ "$(options)" = "$opts0" ] || fail "options changed by cakectl reload"

# (4) the valid file
netns_write_conf 30mbit 30mbit
hup
grep -q "reloaded $FWD_CONF" "$NETNS_TMP/fwd.log" || fail "no 'reloaded' line"
options | grep -q '^bandwidth 30Mbit ' || fail "not applied: $(options)"
log "valid file: applied ($(options | cut -d' ' -f1-2))"
shaped_check valid-file 30
kill -0 "$pid" 2>/dev/null || fail "caked (pid $pid) is gone"
[ "$FWD_PID" = "$pid" ] || fail "caked restarted"
netns_finish
