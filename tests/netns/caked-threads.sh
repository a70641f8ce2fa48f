#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# caked-threads.sh ARGS...: what lib.sh runs as $CAKED when CAKED_THREADS
# is set. It adds "threads = $CAKED_THREADS" as the last line of the
# [general] section of the file given with -c (a file without [general]
# gets one in front; a file that sets threads itself is left alone), then
# runs the real caked ($CAKED_BIN) with ARGS. Lines after [general] move
# down by one; a test that edits the file later with sed keeps the line.
set -u

: "${CAKED_BIN:?CAKED_BIN: the real caked}"
: "${CAKED_THREADS:?CAKED_THREADS: the threads value}"
conf=""
prev=""
for a in "$@"; do
	[ "$prev" = -c ] && conf=$a
	prev=$a
done
if [ -n "$conf" ] && [ -f "$conf" ] && [ -w "$conf" ] &&
    ! grep -Eq '^[[:space:]]*threads[[:space:]]*=' "$conf"; then
	tmp="$conf.threads.$$"
	awk -v n="$CAKED_THREADS" '
		function flush() { if (ingen) print "threads = " n; ingen = 0 }
		/^[[:space:]]*\[/ {
			flush()
			if ($0 ~ /^[[:space:]]*\[general\]/) { ingen = 1; seen = 1 }
		}
		{ print }
		END { flush(); if (!seen) exit 3 }
	' "$conf" >"$tmp"
	rc=$?
	if [ $rc -eq 3 ]; then
		{ printf '[general]\nthreads = %s\n' "$CAKED_THREADS"
		  cat "$conf"; } >"$tmp"
	fi
	# cat over the file keeps its owner and mode (privdrop tests).
	cat "$tmp" >"$conf" && rm -f "$tmp"
fi
exec "$CAKED_BIN" "$@"
