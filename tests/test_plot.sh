#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_plot: contrib/plot/caked-plot turns a recorded `cakectl -j watch`
# log into a PNG. tests/plot/watch.jsonl was recorded from caked at
# 20 Mbit with 4 TCP uploads and then 4 downloads (24 replies, one a
# second), cut down with jq to the members caked-plot reads. A log without
# two stats replies per direction is refused with a message.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
plot=$top_srcdir/contrib/plot/caked-plot
for t in jq gnuplot; do
	command -v $t >/dev/null 2>&1 || {
		echo "SKIP: $t is not installed"
		exit 77
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-plot-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; rc=1; }

if bash "$plot" -o "$tmp/out.png" "$top_srcdir/tests/plot/watch.jsonl" \
    >"$tmp/log" 2>&1; then
	pass "caked-plot ran on the recorded log"
else
	fail "caked-plot failed: $(cat "$tmp/log")"
fi
size=$(wc -c <"$tmp/out.png" 2>/dev/null || echo 0)
[ "$size" -gt 10000 ] && pass "PNG of $size bytes" ||
    fail "PNG of $size bytes (want over 10000)"
magic=$(od -An -c -N 4 "$tmp/out.png" 2>/dev/null | tr -d ' ')
[ "$magic" = "211PNG" ] && pass "PNG signature" ||
    fail "not a PNG: '$magic'"

head -n 1 "$top_srcdir/tests/plot/watch.jsonl" >"$tmp/one.jsonl"
echo '{"version":1,"ok":false,"code":"busy","error":"x"}' >>"$tmp/one.jsonl"
if bash "$plot" -o "$tmp/bad.png" "$tmp/one.jsonl" >"$tmp/log" 2>&1; then
	fail "a log of one reply was accepted"
else
	grep -q "fewer than two" "$tmp/log" && pass "one reply refused" ||
	    fail "unexpected message: $(cat "$tmp/log")"
fi
echo "not json" >"$tmp/junk"
if bash "$plot" -o "$tmp/bad.png" "$tmp/junk" >"$tmp/log" 2>&1; then
	fail "junk was accepted"
else
	pass "junk refused: $(head -n 1 "$tmp/log")"
fi
exit $rc
