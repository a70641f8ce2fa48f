#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_promtool: every golden Prometheus exposition passes `promtool check
# metrics` (Debian package prometheus). test_render keeps these files equal
# to what src/common/metrics.c prints for the golden replies, among them
# stats-daemon.json, a full reply captured from a real caked (NAT cache,
# autorate, reflectors, device I/O, pool): so the lint covers every family
# caked's /metrics endpoint and `cakectl metrics` can print.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
command -v promtool >/dev/null 2>&1 || {
	echo "SKIP: promtool (Debian package prometheus) is not installed"
	exit 77
}
rc=0
n=0
for f in "$top_srcdir"/tests/unit/golden/ctl/*.prom; do
	[ -s "$f" ] || { echo "FAIL: $f is empty"; rc=1; continue; }
	if out=$(promtool check metrics <"$f" 2>&1) && [ -z "$out" ]; then
		echo "PASS: promtool check metrics $(basename "$f")" \
		    "($(grep -c '^caked_' "$f") samples)"
	else
		echo "FAIL: promtool check metrics $(basename "$f"):"
		echo "$out"
		rc=1
	fi
	n=$((n + 1))
done
[ "$n" -ge 4 ] || { echo "FAIL: only $n golden expositions found"; rc=1; }
exit $rc
