#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_grafana: every metric name the queries of contrib/grafana/caked.json
# use exists in caked's exposition. The exposition is the golden rendering
# of a full reply captured from a real caked (NAT, autorate, reflectors),
# which test_render keeps equal to what src/common/metrics.c prints, so a
# renamed or dropped metric breaks this test and not a user's dashboard.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
dash=$top_srcdir/contrib/grafana/caked.json
prom=$top_srcdir/tests/unit/golden/ctl/stats-daemon.prom
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-grafana.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0

jq -e '.panels | length > 0' "$dash" >/dev/null ||
    { echo "FAIL: $dash has no panels"; exit 1; }
jq -r '.. | .expr? // empty' "$dash" >"$tmp/exprs"
grep -o 'caked_[a-z0-9_]*' "$tmp/exprs" | sort -u >"$tmp/used"
sed -n 's/^# TYPE \(caked_[a-z0-9_]*\) .*/\1/p' "$prom" | sort -u >"$tmp/have"
n=$(wc -l <"$tmp/used")
[ "$n" -ge 20 ] && echo "PASS: the dashboard's queries use $n metrics" ||
    { echo "FAIL: only $n metric names in the queries"; rc=1; }
for m in $(comm -23 "$tmp/used" "$tmp/have"); do
	echo "FAIL: $m is queried but caked does not export it"
	rc=1
done
[ $rc = 0 ] && echo "PASS: every one is in caked's exposition" \
    "($(wc -l <"$tmp/have") families)"
# Every query names its datasource and every panel has a title.
bad=$(jq '[.panels[] | select(.title == null or .title == "" or
    (.targets | length) == 0)] | length' "$dash")
[ "$bad" = 0 ] && echo "PASS: every panel has a title and a query" ||
    { echo "FAIL: $bad panels without a title or query"; rc=1; }
exit $rc
