#!/bin/sh
# cli.sh: caked's command line: help, version, configuration check, and
# clear failures for a missing file, a bad option and a bad configuration.
# Needs no privileges: nothing here opens a device.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
caked=$top_builddir/caked
sample=$top_srcdir/etc/caked.conf
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
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

expect "--help exits 0 with usage" 0 '^usage: caked \[-dhstVv\] \[-c file\]$' \
    "$caked" --help
expect "-h exits 0 with usage" 0 '^usage: caked' "$caked" -h
expect "--version prints the version" 0 '^caked [0-9]' "$caked" --version
expect "-t accepts the shipped sample" 0 '^configuration OK$' \
    "$caked" -t -c "$sample"
expect "-t -v prints the canonical upload options" 0 \
    '^options = "bandwidth 20Mbit ' "$caked" -t -v -c "$sample"
expect "a missing file is an error" 1 'absent.conf: cannot open' \
    "$caked" -t -c "$tmp/absent.conf"
expect "a bad option is a usage error" 2 '^usage: caked' "$caked" -x
expect "a stray argument is a usage error" 2 "unexpected argument 'extra'" \
    "$caked" -t -c "$sample" extra
expect "-c without a file is a usage error" 2 '^usage: caked' "$caked" -c

printf '[general]\nmode = bridge\nlan = x\nwan = x\n[upload]\nbandwidth = fast\n' \
    >"$tmp/bad.conf"
expect "a bad configuration lists its first error" 1 \
    "bad.conf:2: \[general\] mode: expected tap or tun, found 'bridge'" \
    "$caked" -t -c "$tmp/bad.conf"
expect "a bad configuration lists every error" 1 \
    "bad.conf:6: \[upload\] bandwidth: " "$caked" -t -c "$tmp/bad.conf"
expect "a bad configuration is not OK" 1 'configuration has errors' \
    "$caked" -t -c "$tmp/bad.conf"
expect "a bad configuration stops a real start too" 1 'bad.conf:4: ' \
    "$caked" -c "$tmp/bad.conf"

# The printed configuration is itself a valid configuration.
"$caked" -t -v -c "$sample" | sed '/^configuration OK$/d' >"$tmp/canon.conf"
expect "the canonical configuration loads" 0 '^configuration OK$' \
    "$caked" -t -c "$tmp/canon.conf"

[ "$fails" -eq 0 ] || exit 1
exit 0
