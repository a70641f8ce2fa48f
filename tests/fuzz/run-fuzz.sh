#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# run-fuzz.sh: runs each libFuzzer harness for a bounded time (`make fuzz`).
#
#   run-fuzz.sh FUZZ_SRCDIR FUZZ_BUILDDIR fuzz-NAME...
#
# Each harness starts from the committed seeds (FUZZ_SRCDIR/corpus/NAME)
# and keeps what it finds in FUZZ_BUILDDIR/work/NAME (never in the source
# tree), with NAME.dict and NAME.options when present. A crash, leak,
# broken invariant or hang (an input over 10 s) is saved as
# FUZZ_BUILDDIR/artifacts/NAME-{crash,timeout}-* and fails the run: minimise
# it (fuzz-NAME -minimize_crash=1 -timeout=2 FILE), fix the bug, and commit
# the input as corpus/NAME/finding-<what> so that replay-NAME (make check)
# guards it. FUZZ_SECONDS (default 60) is the time per harness.
set -u

src=$1 build=$2
shift 2
secs=${FUZZ_SECONDS:-60}
failed=0
summary=""

mkdir -p "$build/work" "$build/artifacts"
for prog in "$@"; do
	name=${prog##*/fuzz-}
	work="$build/work/$name"
	log="$build/work/$name.log"
	mkdir -p "$work"
	set -- -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
	    -artifact_prefix="$build/artifacts/$name-"
	[ -f "$src/$name.dict" ] && set -- "$@" -dict="$src/$name.dict"
	[ -f "$src/$name.options" ] && set -- "$@" $(cat "$src/$name.options")
	echo "==> fuzz-$name for ${secs}s"
	if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	    "$prog" "$@" "$work" "$src/corpus/$name" >"$log" 2>&1; then
		status=ok
	else
		status=FAILED
		failed=1
		tail -n 40 "$log"
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1)
	line=$(printf '%-9s %-6s runs %-9s exec/s %-7s %s %s' "$name" \
	    "$status" "${runs:-?}" "${eps:-?}" "${cov:-cov: ?}" "${corp:-}")
	echo "$line"
	summary="$summary$line
"
done
echo "==> fuzzing summary (${secs}s each)"
printf '%s' "$summary"
if [ "$failed" != 0 ]; then
	echo "fuzzing found problems: see $build/artifacts" >&2
	exit 1
fi
