#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# tsan-handoff.sh: builds tests/unit/test_handoff.c with clang's
# ThreadSanitizer and runs it: a data race between the hand-off queue's
# producer and consumer (a missing acquire or release) fails the test even
# when the records came through intact on this machine. Skipped (77)
# without clang, cmocka or a working TSan runtime.
set -u

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

if ! clang -std=gnu11 -g -O1 -fsanitize=thread -D_GNU_SOURCE \
    -I"$src/src" -I"$src/include" \
    -o "$work/test_handoff" "$src/tests/unit/test_handoff.c" \
    "$src/src/daemon/handoff.c" \
    $(pkg-config --cflags --libs cmocka) -pthread; then
	echo "FAIL: the TSan build of test_handoff failed"
	exit 1
fi
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$work/test_handoff" \
    > "$work/out" 2>&1
rc=$?
cat "$work/out"
if grep -q "ThreadSanitizer" "$work/out" || [ $rc -ne 0 ]; then
	echo "FAIL: test_handoff under ThreadSanitizer (exit $rc)"
	exit 1
fi
echo "PASS: test_handoff under ThreadSanitizer"
