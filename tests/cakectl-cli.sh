#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# cakectl-cli.sh: cakectl's own interface: -h, --help, --version,
# "cakectl version" with and without a daemon, options after the command,
# and an option the command would ignore refused. The daemon, where one
# is needed, is a one-reply stand-in on a Unix socket (python3).
cli_name=cakectl-cli
. "${top_srcdir:-.}/tests/expect.sh"
cli_cleanup() { [ -z "$fake" ] || kill "$fake" 2>/dev/null; }
cakectl=$top_builddir/cakectl
fake=
nosock=$tmp/none.sock

expect "-h exits 0 with usage" 0 '^usage: cakectl ' "$cakectl" -h
expect "--help exits 0 with usage" 0 '^usage: cakectl ' "$cakectl" --help
"$cakectl" --help 2>/dev/null | grep -q '^usage: cakectl ' ||
    { echo "FAIL: --help does not print on stdout"; fails=$((fails + 1)); }
expect "--version prints the client's version" 0 '^cakectl [0-9]' \
    "$cakectl" --version
expect "-V prints the client's version" 0 '^cakectl [0-9]' "$cakectl" -V
expect "no command is a usage error" 1 '^usage: cakectl ' "$cakectl"
expect "version without a daemon still prints the client's" 2 \
    '^cakectl [0-9]' "$cakectl" -s "$nosock" version
expect "version without a daemon says so" 2 'no daemon is running' \
    "$cakectl" -s "$nosock" version
# Options after the command: parsed (the failure is the missing daemon).
expect "-j after the command is accepted" 2 'no daemon is running' \
    "$cakectl" -s "$nosock" stats -j
expect "-s after the command is accepted" 2 "no daemon is running on $nosock" \
    "$cakectl" stats upload -s "$nosock"
expect "-n after flows is accepted" 2 'no daemon is running' \
    "$cakectl" -s "$nosock" flows -n 5
expect "--help after the command" 0 '^usage: cakectl ' "$cakectl" stats --help
expect "an unknown option after the command is refused" 1 \
    "unknown option '-x' (cakectl's options are" "$cakectl" stats -x
expect "set passes a negative number on as a keyword value" 2 \
    'no daemon is running' "$cakectl" -s "$nosock" set upload overhead -4
expect "-n with stats (which ignores it) is an error" 1 \
    '-n: only with hosts, flows and watch' "$cakectl" -n 5 stats
expect "-n after ping is an error" 1 '-n: only with hosts, flows and watch' \
    "$cakectl" ping -n 5
expect "-n out of range is an error" 1 '-n: 100 rows is not in 1 to' \
    "$cakectl" hosts -n 100
expect "-n without its count is an error" 1 '-n: missing argument' \
    "$cakectl" hosts -n

# With a daemon that answers: both versions.
if command -v python3 >/dev/null 2>&1; then
	sock=$tmp/fake.sock
	python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept()
c.makefile().readline()
c.sendall(b"{\"version\":1,\"ok\":true,\"daemon_version\":\"9.9-fake\"}\n")
c.close()
' "$sock" &
	fake=$!
	i=0
	while [ ! -S "$sock" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	"$cakectl" -s "$sock" version >"$tmp/ver" 2>&1
	st=$?
	if [ "$st" -eq 0 ] && grep -q '^cakectl [0-9]' "$tmp/ver" &&
	    grep -q '^caked 9.9-fake$' "$tmp/ver"; then
		echo "ok: version prints the client's and the daemon's"
	else
		echo "FAIL: version with a daemon: exit $st"; cat "$tmp/ver"
		fails=$((fails + 1))
	fi
else
	echo "skip: no python3 for a stand-in daemon"
fi

cli_exit
