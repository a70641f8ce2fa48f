#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# cli.sh: caked's command line: help, version, configuration check, and
# clear failures for a missing file, a bad option and a bad configuration.
# Needs no privileges: nothing here opens a device.
cli_name=caked-cli
. "${top_srcdir:-.}/tests/expect.sh"
caked=$top_builddir/caked
sample=$top_srcdir/etc/caked.conf

expect "--help exits 0 with usage" 0 '^usage: caked \[-dhstVvW\] \[-c file\]$' \
    "$caked" --help
expect "-h exits 0 with usage" 0 '^usage: caked' "$caked" -h
expect "--version prints the version" 0 '^caked [0-9]' "$caked" --version
expect "-t accepts the shipped sample" 0 '^configuration OK$' \
    "$caked" -t -c "$sample"
# (the sample sets no rate: it limits nothing until edited)
expect "-t -v prints the canonical upload options" 0 \
    '^options = "bandwidth unlimited diffserv3 dual-srchost ' \
    "$caked" -t -v -c "$sample"
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
expect "a bad configuration is not OK" 1 "bad.conf:2: " \
    "$caked" -t -c "$tmp/bad.conf"
expect "a bad configuration stops a real start too" 1 'configuration has errors' \
    "$caked" -c "$tmp/bad.conf"

# Start-up faults (README "When things go wrong"): one clear line and a
# non-zero exit each, before any device is touched.
expect "an unknown long option is a usage error" 2 "unrecognized option '--bogus'" \
    "$caked" --bogus
expect "an empty -c path is an error" 1 ': cannot open' "$caked" -t -c ''
expect "a directory as the file is an error" 1 'expected a regular file' \
    "$caked" -t -c "$tmp"
printf '[general]\nmode = tap\nlan = averyveryverylongname0\nwan = b\n' \
    >"$tmp/long.conf"
expect "a device name of 16+ characters is refused" 1 \
    "long.conf:3: \[general\] lan: expected a device name of at most 15 characters (IFNAMSIZ), found 'averyveryverylongname0'" \
    "$caked" -c "$tmp/long.conf"
printf '[general]\nmode = tap\nlan = a\nwan = b\ncontrol = /%0120d\n' 0 \
    >"$tmp/sock.conf"
expect "a socket path of 108+ bytes is refused" 1 \
    "sock.conf:5: \[general\] control: expected a path of at most 107 bytes" \
    "$caked" -c "$tmp/sock.conf"
printf '[general]\nmode = tap\nlan = a\nwan = b\nuser = caked-no-such-user\n' \
    >"$tmp/user.conf"
expect "an unknown user is refused" 1 \
    "user.conf:5: \[general\] user: expected an existing user, found 'caked-no-such-user'" \
    "$caked" -c "$tmp/user.conf"
# Unreadable: root reads any file, so drop to nobody when run as root.
cp "$sample" "$tmp/unreadable.conf"
chmod 000 "$tmp/unreadable.conf"
chmod 0755 "$tmp"
if [ "$(id -u)" -ne 0 ]; then
	expect "an unreadable file is an error" 1 \
	    'unreadable.conf: cannot open: Permission denied' \
	    "$caked" -t -c "$tmp/unreadable.conf"
elif command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$caked" -V \
    >/dev/null 2>&1; then
	expect "an unreadable file is an error" 1 \
	    'unreadable.conf: cannot open: Permission denied' \
	    setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    "$caked" -t -c "$tmp/unreadable.conf"
fi

# -W: a note stops a real start too, with a line saying why.
printf '[general]\nmode = tap\nlan = a\nwan = b\n[upload]\nbandwidth = 20mbps\n' \
    >"$tmp/note.conf"
expect "-W refuses to start on a note" 1 'notes are errors with -W' \
    "$caked" -W -c "$tmp/note.conf"
expect "without -W a note is only printed by -t" 0 '^configuration OK$' \
    "$caked" -t -c "$tmp/note.conf"

# The printed configuration is itself a valid configuration.
"$caked" -t -v -c "$sample" | sed '/^configuration OK$/d' >"$tmp/canon.conf"
expect "the canonical configuration loads" 0 '^configuration OK$' \
    "$caked" -t -c "$tmp/canon.conf"

# The canonical form of an autorate file (its options carry the starting
# rate, autorate-base) gives no note: caked -t -v | caked -t -W holds.
printf '[general]\nautorate-reflectors = 192.0.2.1\n[upload]\nautorate = yes\nautorate-min = 5mbit\nautorate-base = 15mbit\nautorate-max = 40mbit\n' \
    >"$tmp/ar.conf"
"$caked" -t -v -c "$tmp/ar.conf" | sed '/^configuration OK$/d' >"$tmp/ar2.conf"
expect "the canonical autorate configuration has no note" 0 \
    '^configuration OK$' "$caked" -t -W -c "$tmp/ar2.conf"

cli_exit
