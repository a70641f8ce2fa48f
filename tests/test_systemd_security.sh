#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_systemd_security: the shipped units' sandboxing, scored offline by
# `systemd-analyze security` (systemd >= 250; needs no root and no running
# systemd). Each unit must score an overall exposure of 2.1 or lower; the
# figure is printed. Also checks the directives the score does not see:
# /dev/net/tun stays reachable (DeviceAllow, no PrivateDevices=yes),
# CAP_NET_ADMIN is the only capability, a failure exit restarts, the
# watchdog is on, reload is the synchronous `cakectl reload`, the unit
# does not start without its configuration file, and Documentation= names
# the three man pages.
# SKIP (77) without systemd-analyze or without --offline support.
set -u
top_srcdir=${top_srcdir:-.}
MAX_EXPOSURE=2.1
command -v systemd-analyze >/dev/null 2>&1 || {
	echo "SKIP: systemd-analyze not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-sd.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for unit in caked.service caked@.service; do
	sed -e 's|@sbindir[@]|/usr/sbin|g' -e 's|@sysconfdir[@]|/etc|g' \
	    "$top_srcdir/systemd/$unit.in" >"$tmp/$unit" || exit 99
	systemd-analyze security --offline=true "$tmp/$unit" \
	    >"$tmp/out" 2>&1
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' \
	    "$tmp/out")
	if [ -z "$score" ]; then
		if grep -q -e 'offline' "$tmp/out"; then
			echo "SKIP: systemd-analyze lacks --offline"; exit 77
		fi
		cat "$tmp/out"
		fail "$unit: no exposure figure"
		continue
	fi
	if awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
		echo "PASS: $unit exposure $score (<= $MAX_EXPOSURE)"
	else
		grep '✗' "$tmp/out"
		fail "$unit exposure $score (want <= $MAX_EXPOSURE)"
	fi
	u=$tmp/$unit
	grep -qx 'DeviceAllow=/dev/net/tun rw' "$u" || fail "$unit: no DeviceAllow for /dev/net/tun"
	grep -qx 'PrivateDevices=yes' "$u" && fail "$unit: PrivateDevices=yes hides /dev/net/tun"
	grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN' "$u" || fail "$unit: bounding set is not CAP_NET_ADMIN alone"
	grep -qx 'AmbientCapabilities=CAP_NET_ADMIN' "$u" || fail "$unit: no ambient CAP_NET_ADMIN"
	grep -qx 'NoNewPrivileges=yes' "$u" || fail "$unit: no NoNewPrivileges"
	grep -qx 'Restart=on-failure' "$u" || fail "$unit: no Restart=on-failure"
	grep -q '^User=' "$u" || fail "$unit: runs as root"
	grep -qx 'WatchdogSec=[1-9][0-9]*s' "$u" || fail "$unit: no WatchdogSec"
	grep -q '^ExecReload=/usr/sbin/cakectl .*reload$' "$u" ||
	    fail "$unit: ExecReload is not the synchronous cakectl reload"
	grep -q '^ConditionPathExists=/etc/caked' "$u" ||
	    fail "$unit: no condition on the configuration file"
	for m in 'caked(8)' 'caked.conf(5)' 'cakectl(8)'; do
		grep -q "^Documentation=.*man:$m" "$u" ||
		    fail "$unit: Documentation= lacks $m"
	done
done
[ "$fails" -eq 0 ] || exit 1
exit 0
