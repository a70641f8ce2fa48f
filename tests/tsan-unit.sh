#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# tsan-unit.sh NAME SOURCE...: builds tests/unit/NAME.c and the given
# sources (relative to the top source directory) with clang's
# ThreadSanitizer and runs the result. A data race reported by TSan fails
# the test even when the program's own checks passed on this machine.
# Skipped (77) without clang, cmocka or a working TSan runtime. The
# tsan-*.sh wrappers name the test and its sources.
set -u

[ $# -ge 1 ] || { echo "usage: tsan-unit.sh NAME SOURCE..."; exit 2; }
name=$1
shift
src=${top_srcdir:-.}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

command -v clang >/dev/null 2>&1 || { echo "SKIP: no clang"; exit 77; }
pkg-config --exists cmocka 2>/dev/null || { echo "SKIP: no cmocka"; exit 77; }

# A TSan runtime that cannot map its shadow (some kernels' ASLR) skips.
printf 'int main(void){return 0;}\n' > "$work/probe.c"
if ! clang -fsanitize=thread -o "$work/probe" "$work/probe.c" \
    >/dev/null 2>&1 || ! "$work/probe" >/dev/null 2>&1; then
	echo "SKIP: clang -fsanitize=thread does not build or run here"
	exit 77
fi

# The sources, prefixed with the source directory (out-of-tree builds).
for f in "$@"; do
	set -- "$@" "$src/$f"
	shift
done
if ! clang -std=gnu11 -g -O1 -fsanitize=thread -D_GNU_SOURCE \
    -I"$src/src" -I"$src/include" \
    -o "$work/$name" "$src/tests/unit/$name.c" "$@" \
    $(pkg-config --cflags --libs cmocka) -pthread; then
	echo "FAIL: the TSan build of $name failed"
	exit 1
fi
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$work/$name" \
    > "$work/out" 2>&1
rc=$?
cat "$work/out"
if grep -q "ThreadSanitizer" "$work/out" || [ $rc -ne 0 ]; then
	echo "FAIL: $name under ThreadSanitizer (exit $rc)"
	exit 1
fi
echo "PASS: $name under ThreadSanitizer"
