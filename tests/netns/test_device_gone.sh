#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_device_gone: a device deleted under the running daemon, and a
# device taken down and up again.
#
# Documented outcome (caked(8), README "When things go wrong"): when the
# LAN or WAN device disappears, caked logs one line "DIR: device gone,
# stopping: ..." and exits with status 3, so that systemd's
# Restart=on-failure rebuilds everything. This test deletes each device in
# turn while a 100 Hz ping crosses caked and checks: exit status 3 within
# 1 s, exactly one such log line, CPU time between the deletion and the
# exit at most 2 clock ticks (no EPOLLERR busy loop; against a sanitizer
# build, whose exit scans the heap for leaks, at most half the elapsed
# time), and that the shipped units restart on that status. A link set
# down for a second, then up, must not stop caked, and the ping must
# resume.
. "$(dirname "$0")/lib.sh"

netns_init ping
netns_require_caked
units="$top_srcdir/systemd/caked.service.in $top_srcdir/systemd/caked@.service.in"
HZ=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime of PID (clock ticks), empty once it is gone.
cpu_ticks()
{
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}

# tick_bound MS: the CPU ticks caked may use between the deletion and its
# exit MS ms later: 2 (no busy loop). A sanitizer build's exit runs
# LeakSanitizer's scan of the heap: there, half the elapsed time (a busy
# loop would use all of it).
tick_bound()
{
	local half=$(( $1 * HZ / 2000 ))

	if ldd "$CAKED" 2>/dev/null | grep -q 'libasan' && [ "$half" -gt 2 ]; then
		echo "$half"
	else
		echo 2
	fi
}

# gone_case DEV: delete DEV under caked, check the outcome.
gone_case()
{
	local dev=$1 pid t0 t1 ms ticks0 ticks last rc lines

	netns_topo_tap "$2"
	netns_start_caked 20mbit 20mbit
	pid=$FWD_PID
	netns_ping_bg "$NS_C" "$SERVER_IP" 300 "$NETNS_TMP/ping-$dev.txt" 0.01
	sleep 1
	ticks0=$(cpu_ticks "$pid")
	last=$ticks0
	t0=$(date +%s%N)
	ip -n "$NS_R" link del "$dev" || fail "ip link del $dev"
	while netns_is_child "$pid"; do
		ticks=$(cpu_ticks "$pid")
		[ -n "$ticks" ] && last=$ticks
		[ $(( $(date +%s%N) - t0 )) -gt 3000000000 ] && break
		sleep 0.01
	done
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	wait "$pid"
	rc=$?
	netns_is_child "$pid" && fail "caked still running 3 s after $dev was deleted"
	NETNS_PIDS=$(echo "$NETNS_PIDS" | tr ' ' '\n' | grep -vx "$pid" | tr '\n' ' ')
	FWD_PID=""
	lines=$(grep -c 'device gone' "$NETNS_TMP/fwd.log")
	log "$dev deleted: exit status $rc after $ms ms; CPU ticks used" \
	    "after the deletion: $((last - ticks0)) (1 tick = $((1000 / HZ)) ms)"
	log "log: $(grep 'device gone' "$NETNS_TMP/fwd.log")"
	check "$dev deleted: exit status" "$rc" eq 3
	check "$dev deleted: ms until exit" "$ms" le 1000
	check "$dev deleted: CPU ticks until exit" "$((last - ticks0))" le \
	    "$(tick_bound "$ms")"
	check "$dev deleted: 'device gone' log lines" "$lines" eq 1
	netns_stop_pid "$PING_PID"
	for ns in $NS_C $NS_R $NS_S; do ip netns del "$ns"; done
	NETNS_LIST=""
}

gone_case "$LAN_DEV" a
gone_case "$WAN_DEV" b

# systemd restarts on that status: Restart=on-failure, and 3 is neither a
# success nor a restart-preventing status in the shipped units.
for u in $units; do
	grep -qx 'Restart=on-failure' "$u" || fail "$u lacks Restart=on-failure"
	grep -Eq '^(SuccessExitStatus|RestartPreventExitStatus)=.*\b3\b' "$u" &&
	    fail "$u does not restart on status 3"
done
log "units restart on status 3: $(basename -a $units | tr '\n' ' ')"

# Link down for a second, then up: caked stays, forwarding resumes.
netns_topo_tap c
netns_start_caked 20mbit 20mbit
ip -n "$NS_R" link set "$WAN_DEV" down
netns_ping "$NS_C" "$SERVER_IP" 20 "$NETNS_TMP/ping-down.txt"
ip -n "$NS_R" link set "$WAN_DEV" up
t0=$(date +%s%N)
netns_wait_ping || fail "no ping after link up"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill -0 "$FWD_PID" 2>/dev/null || fail "caked stopped on link down"
log "link down 1 s then up: caked running, ping back after $ms ms"
check "link up: ms until the ping returns" "$ms" le 1000
netns_finish
