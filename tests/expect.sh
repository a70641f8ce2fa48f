# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# expect.sh: what the command-line tests (cli.sh, cakectl-cli.sh) share,
# sourced after setting cli_name: a scratch directory $tmp, removed on
# exit (after cli_cleanup, which a test may redefine), the failure count,
# expect() and cli_exit, the test's exit status.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$cli_name.XXXXXX") || exit 99
cli_cleanup() { :; }
trap 'cli_cleanup; rm -rf "$tmp"' EXIT
fails=0

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS, output matches PATTERN.
expect() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: $name: exit $got, expected $want"; cat "$tmp/out"
		fails=$((fails + 1))
	elif ! grep -q -e "$pattern" "$tmp/out"; then
		echo "FAIL: $name: output lacks '$pattern'"; cat "$tmp/out"
		fails=$((fails + 1))
	else
		echo "ok: $name"
	fi
}

# cli_exit: FAIL (1) if any check failed, PASS (0) otherwise.
cli_exit() {
	[ "$fails" -eq 0 ] || exit 1
	exit 0
}
