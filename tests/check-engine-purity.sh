#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# check-engine-purity.sh: the engine makes no system calls and reads no clock.
# Fails if src/engine calls read/write/recv/send/clock functions, or if the
# built library needs any symbol outside a small allow list (string and
# memory functions, 128-bit arithmetic helpers from libgcc, sanitizer hooks).
# Under make check a missing library fails; run by hand without
# top_builddir only the sources are checked (and it says so).
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
# Under make check (top_builddir set) the library has been built: a
# missing library or nm fails instead of leaving this half out.
if [ -z "${top_builddir:-}" ]; then
	echo "NOTE: top_builddir not set: libcakeengine.a not checked" >&2
elif [ ! -f "$lib" ]; then
	echo "FAIL: $lib missing" >&2
	status=1
elif ! command -v nm >/dev/null 2>&1; then
	echo "FAIL: nm not installed (binutils): $lib not checked" >&2
	status=1
else
	allowed='^(memcpy|memmove|memset|memcmp|strlen|strcmp|__divti3|__udivti3|__modti3|__umodti3|malloc|calloc|free|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|__tsan_.*|_GLOBAL_OFFSET_TABLE_|__memcpy_chk|__memset_chk|__memmove_chk)$'
	# Symbols one member of the archive takes from another are fine.
	if ! defined=$(nm --defined-only "$lib") ||
	    ! undef=$(nm -u "$lib"); then
		echo "FAIL: nm cannot read $lib" >&2
		status=1
	fi
	defined=$(echo "$defined" | awk 'NF == 3 {print $3}' | sort -u)
	bad=$(echo "$undef" | awk '$1 == "U" {print $2}' | sort -u |
	    grep -vxF "$defined" | grep -vE "$allowed")
	if [ -n "$bad" ]; then
		echo "FAIL: libcakeengine.a needs: $bad" >&2
		status=1
	else
		echo "libcakeengine.a: $(echo "$defined" | grep -c .) symbols" \
		    "defined, nothing needed outside the allow list"
	fi
fi
[ $status -eq 0 ] && echo "engine purity: ok"
exit $status
