#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_privdrop: least privilege. caked starts as root with "user =" a
# system user made for this run (caked-test-PID, removed at the end), and
# after opening its devices, using rtnetlink and binding the control
# socket it must run as that user with CAP_NET_ADMIN alone, read from
# /proc/PID/status: Uid and Gid (real, effective, saved, fs) the user's,
# Groups only its primary group, CapPrm = CapEff = CapBnd =
# 0000000000001000 (bit 12, CAP_NET_ADMIN), CapInh = CapAmb = 0,
# NoNewPrivs 1. The device fds and the control socket still work: ping
# and TCP cross caked, cakectl stats answers, and a SIGHUP reload (the
# file read as the user) is applied.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq useradd userdel setpriv
netns_require_caked
netns_require_cakectl
# The take-over check below runs TUNSETIFF from python3 as nobody.
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing (TAP take-over check)"

USER_NAME=caked-test-$$
useradd -r -M -d /nonexistent -s /usr/sbin/nologin "$USER_NAME" ||
    fail "useradd $USER_NAME"
# Remove the user after lib.sh's cleanup has stopped caked.
privdrop_cleanup()
{
	local rc=$?

	trap - EXIT
	# lib.sh's cleanup (stops caked, deletes the namespaces, checks for
	# sanitizer reports) reads $? and exits with the final status.
	( exit "$rc" ); ( netns_cleanup )
	rc=$?
	userdel "$USER_NAME" 2>/dev/null
	exit "$rc"
}
trap privdrop_cleanup EXIT
uid=$(id -u "$USER_NAME")
gid=$(id -g "$USER_NAME")

netns_topo_tap
netns_iperf_server
chmod 0755 "$NETNS_TMP"		# the user re-reads the file on SIGHUP
NETNS_CONF_GENERAL="user = $USER_NAME"
netns_start_caked 20mbit 20mbit
pid=$FWD_PID
chmod 0644 "$FWD_CONF"
status() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' \
    "/proc/$pid/status"; }

for k in Uid Gid Groups CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs; do
	log "/proc/$pid/status $k: $(status "$k")"
done
[ "$(status Uid | tr -s '\t ' ' ')" = "$uid $uid $uid $uid" ] ||
    fail "Uid is not $uid in all four fields: $(status Uid)"
[ "$(status Gid | tr -s '\t ' ' ')" = "$gid $gid $gid $gid" ] ||
    fail "Gid is not $gid in all four fields: $(status Gid)"
[ "$(status Groups | tr -d ' \t')" = "$gid" ] ||
    fail "supplementary groups: $(status Groups)"
for k in CapPrm CapEff CapBnd; do
	[ "$(status $k)" = 0000000000001000 ] ||
	    fail "$k is $(status $k), not CAP_NET_ADMIN alone"
done
for k in CapInh CapAmb; do
	[ "$(status $k)" = 0000000000000000 ] || fail "$k is $(status $k)"
done
[ "$(status NoNewPrivs)" = 1 ] || fail "NoNewPrivs is $(status NoNewPrivs)"
grep -q "running as user $USER_NAME" "$NETNS_TMP/fwd.log" ||
    fail "no 'running as user' log line"
log "privileges: uid $uid gid $gid, CAP_NET_ADMIN only, no_new_privs: ok"

# Another uid without CAP_NET_ADMIN cannot take caked's device over: the
# kernel must refuse TUNSETIFF itself, EPERM (device owned by another
# user) or EBUSY (caked holds its only queue). /dev/net/tun is opened here,
# as root, and handed over as fd 3, so that a node closed to others (mode
# 0600 on some hosts) does not stand in for the refusal. Anything else
# (attached, a traceback, an unknown user or group) fails.
err=$(ip netns exec "$NS_R" setpriv --reuid=nobody --regid=nogroup \
    --clear-groups --inh-caps=-all /usr/bin/python3 -c '
import errno, fcntl, struct, sys
try:
    fcntl.ioctl(3, 0x400454ca, struct.pack("16sH", sys.argv[1].encode(),
        0x0002 | 0x1000))		# TUNSETIFF, IFF_TAP | IFF_NO_PI
    print("attached")
except OSError as e:
    print("TUNSETIFF refused: %s" % errno.errorcode.get(e.errno, e.errno))' \
    "$LAN_DEV" 3<>/dev/net/tun 2>&1)
log "TUNSETIFF on $LAN_DEV as nobody: $err"
case $err in
"TUNSETIFF refused: EPERM"|"TUNSETIFF refused: EBUSY") ;;
*)	fail "nobody on $LAN_DEV: '$err', not a refused TUNSETIFF" ;;
esac

# The devices and the socket opened as root still work.
netns_basic_checks privdrop 20
"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload >"$NETNS_TMP/s.json" ||
    fail "cakectl stats"
log "cakectl stats as root: upload sent_packets" \
    "$(jq .directions.upload.sent_packets "$NETNS_TMP/s.json")"

# A reload, with the file read as the unprivileged user.
netns_write_conf 30mbit 30mbit
chmod 0644 "$FWD_CONF"
kill -HUP "$pid"
for i in $(seq 1 50); do
	grep -q -E 'reloaded|not reloaded' "$NETNS_TMP/fwd.log" && break
	sleep 0.05
done
grep -q "reloaded $FWD_CONF" "$NETNS_TMP/fwd.log" ||
    fail "reload as $USER_NAME failed: $(grep reload "$NETNS_TMP/fwd.log")"
"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload |
    jq -r .directions.upload.options | grep -q '^bandwidth 30Mbit ' ||
    fail "the reload was not applied"
log "SIGHUP as $USER_NAME: 30 Mbit applied"
kill -0 "$pid" || fail "caked is gone"
netns_finish
