#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# import-sqm.sh: caked-import-sqm on three sqm-scripts configurations
# (tests/import/): each must give a file that caked -t -W accepts, whose
# CAKE options equal, after normalising keyword order (through caked's own
# canonical printer), the arguments sqm-scripts would give to
# `tc qdisc add dev IFACE root cake ...` (upload) and
# `tc qdisc add dev IFB root cake ...` (download), stated below. Every
# option of the input must get its comment. Needs no privileges.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
caked=$top_builddir/caked
import=$top_srcdir/src/import/caked-import-sqm
dir=$top_srcdir/tests/import
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-import.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# canon FILE: the options lines caked prints for FILE (upload, download).
canon() {
	"$caked" -t -v -c "$1" | grep '^options = '
}

# check NAME INPUT UPLOAD-ARGS DOWNLOAD-ARGS
check() {
	name=$1 input=$dir/$2 up=$3 down=$4
	if ! sh "$import" "$input" >"$tmp/$name.conf" 2>"$tmp/err"; then
		fail "$name: caked-import-sqm failed: $(cat "$tmp/err")"
		return
	fi
	if ! "$caked" -t -W -c "$tmp/$name.conf" >"$tmp/out" 2>&1 ||
	    [ "$(cat "$tmp/out")" != "configuration OK" ]; then
		fail "$name: caked -t -W refuses the result:"
		cat "$tmp/out" "$tmp/$name.conf"
		return
	fi
	# The reference: sqm-scripts' arguments as an options line.
	printf '[upload]\noptions = "%s"\n[download]\noptions = "%s"\n' \
	    "$up" "$down" >"$tmp/$name.ref"
	canon "$tmp/$name.ref" >"$tmp/want" || { fail "$name: bad reference"; return; }
	canon "$tmp/$name.conf" >"$tmp/got"
	[ "$(wc -l <"$tmp/want")" -eq 2 ] || { fail "$name: no reference"; return; }
	if ! diff -u "$tmp/want" "$tmp/got"; then
		fail "$name: CAKE options differ from sqm-scripts' (above)"
		return
	fi
	# One comment per option read.
	sed -n -e "s/^[ 	]*option[ 	]\{1,\}\([^ 	]*\).*/\1/p" \
	    -e 's/^\([A-Z_][A-Z0-9_]*\)=.*/\1/p' "$input" |
	while read -r opt; do
		grep -q "^# $opt '" "$tmp/$name.conf" ||
		    echo "FAIL: $name: no comment for $opt"
	done >"$tmp/comments"
	if [ -s "$tmp/comments" ]; then
		cat "$tmp/comments"
		fails=$((fails + 1))
		return
	fi
	echo "ok: $name: $(tr '\n' ' ' <"$tmp/got")"
}

# sqm-scripts (defaults.sh: EGRESS_CAKE_OPTS=INGRESS_CAKE_OPTS="diffserv3
# nat"; squash_dscp and squash_ingress default to 1; functions.sh
# get_cake_lla_string: "[atm] overhead N mpu M" unless linklayer is none).

# piece_of_cake.qos, linklayer none: besteffort appended; wash on ingress.
check openwrt-default openwrt-default.uci \
    "bandwidth 10000kbit diffserv3 nat besteffort" \
    "bandwidth 85000kbit diffserv3 nat besteffort wash"

# layer_cake.qos, ATM, overhead 44, tcMPU unset (0), squash_ingress 0,
# squash_dscp 1, iqdisc_opts/eqdisc_opts appended.
check layer-cake-atm layer-cake-atm.uci \
    "bandwidth 900kbit atm overhead 44 mpu 0 diffserv3 nat nat dual-srchost ack-filter" \
    "bandwidth 14000kbit atm overhead 44 mpu 0 diffserv3 nat wash nat dual-dsthost ingress"

# generic Linux .iface.conf, piece_of_cake.qos, ethernet, overhead 44, mpu 84.
check ethernet-44 ethernet-44.iface.conf \
    "bandwidth 20000kbit overhead 44 mpu 84 diffserv3 nat besteffort" \
    "bandwidth 100000kbit overhead 44 mpu 84 diffserv3 nat besteffort wash"

# OpenWrt's shipped file as it is (fq_codel, simple.qos): sqm-scripts runs
# no CAKE for it; converted as layer_cake.qos, the nearest recipe.
check openwrt-shipped openwrt-shipped.uci \
    "bandwidth 10000kbit diffserv3 nat" \
    "bandwidth 85000kbit diffserv3 nat besteffort wash"

# Refusals: one line, exit 1.
sh "$import" "$tmp/absent" >/dev/null 2>"$tmp/err"
st=$?
[ "$st" -eq 1 ] && grep -q 'absent: cannot read it' "$tmp/err" &&
    echo "ok: a missing file is refused" ||
    fail "missing file: exit $st, $(cat "$tmp/err")"
printf "config queue 'q'\n\toption upload 'fast'\n" >"$tmp/bad.uci"
sh "$import" "$tmp/bad.uci" >/dev/null 2>"$tmp/err"
st=$?
[ "$st" -eq 1 ] && grep -q 'UPLINK: expected kbit/s as a whole number, found "fast"' \
    "$tmp/err" && echo "ok: a bad upload value is refused" ||
    fail "bad upload: exit $st, $(cat "$tmp/err")"
sh "$import" -i nosuch "$dir/openwrt-default.uci" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && echo "ok: -i with an unknown interface is refused" ||
    fail "-i nosuch accepted"

sh "$import" -h | grep -q '^usage: caked-import-sqm' &&
    echo "ok: -h prints the usage" || fail "-h"
sh "$import" -x >/dev/null 2>&1
[ $? -eq 2 ] && echo "ok: a bad option exits 2" || fail "bad option"

[ "$fails" -eq 0 ] || exit 1
exit 0
