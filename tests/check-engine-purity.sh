#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# check-engine-purity.sh: the engine makes no system calls and reads no clock.
# Fails if src/engine calls read/write/recv/send/clock functions, or if the
# built library needs any symbol outside a small allow list (string and
# memory functions, 128-bit arithmetic helpers from libgcc, sanitizer hooks).
set -u
src=${top_srcdir:-.}/src/engine
lib=${top_builddir:-.}/libcakeengine.a
status=0
if grep -rnE '\b(read|write|recv|send|clock_gettime|gettimeofday|time)\(' "$src"; then
	echo "FAIL: system or clock call in src/engine" >&2
	status=1
fi
if grep -rnE '#include *<(unistd|time|sys/|event2|libmnl|iniparser|stdio)' "$src"; then
	echo "FAIL: forbidden include in src/engine" >&2
	status=1
fi
if [ -f "$lib" ] && command -v nm >/dev/null 2>&1; then
	allowed='^(memcpy|memmove|memset|memcmp|strlen|strcmp|__divti3|__udivti3|__modti3|__umodti3|malloc|calloc|free|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|__tsan_.*|_GLOBAL_OFFSET_TABLE_|__memcpy_chk|__memset_chk|__memmove_chk)$'
	# Symbols one member of the archive takes from another are fine.
	defined=$(nm --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
	bad=$(nm -u "$lib" 2>/dev/null | awk '$1 == "U" {print $2}' | sort -u |
	    grep -vxF "$defined" | grep -vE "$allowed")
	if [ -n "$bad" ]; then
		echo "FAIL: libcakeengine.a needs: $bad" >&2
		status=1
	fi
fi
[ $status -eq 0 ] && echo "engine purity: ok"
exit $status
