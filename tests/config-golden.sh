#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# config-golden.sh: caked -t on every tests/config/NAME.conf, a wrong or
# borderline configuration, must print exactly tests/config/NAME.out, whose
# last line is the exit status ("exit 1"). Files named W-*.conf are checked
# with -W (notes are errors). Needs no privileges.
#
# CAKED_GOLDEN_REGEN=1 rewrites the .out files instead (review the diff).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
caked=$(cd "$top_builddir" && pwd)/caked
dir=$top_srcdir/tests/config
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

[ -x "$caked" ] || { echo "FAIL: no $caked"; exit 1; }
cd "$dir" || exit 99
for conf in *.conf; do
	name=${conf%.conf}
	flags=-t
	case $name in W-*) flags="-t -W" ;; esac
	# The file name as given is the name in the messages: run here.
	"$caked" $flags -c "$conf" >"$tmp/out" 2>&1
	echo "exit $?" >>"$tmp/out"
	n=$((n + 1))
	if [ -n "${CAKED_GOLDEN_REGEN:-}" ]; then
		cp "$tmp/out" "$name.out"
	elif [ ! -f "$name.out" ]; then
		echo "FAIL: $name: no $name.out"
		fails=$((fails + 1))
	elif ! diff -u "$name.out" "$tmp/out"; then
		echo "FAIL: $name: output differs (above: - expected, + got)"
		fails=$((fails + 1))
	else
		echo "ok: $name: $(head -n 1 "$tmp/out")"
	fi
done
# An empty directory must not pass.
[ "$n" -ge 30 ] || { echo "FAIL: only $n golden cases"; exit 1; }
echo "$n golden cases, $fails failed"
[ "$fails" -eq 0 ]
