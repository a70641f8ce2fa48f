#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# package.sh: the Debian package as an operator gets it (CI, as root).
# Builds caked_VERSION_ARCH.deb with dpkg-buildpackage in a temporary copy
# of the tree (nothing is written beside the clone), fails on any lintian
# error or warning, installs it with apt-get, checks that user caked
# exists and the unit is not enabled, edits /etc/caked.conf the way the
# README says and runs tests/netns/test_tap_basic.sh against the installed
# /usr/sbin/caked with it, then purges the package and checks that none of
# its files is left.
#
#   tests/package.sh BUILDDIR     BUILDDIR: a build holding tests/bench/tapfwd
#
# The package is built with DEB_BUILD_OPTIONS=nocheck (and the nocheck
# profile): the tests have run in the other passes, and this checks that
# the package builds without cmocka.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:?usage: package.sh BUILDDIR}" && pwd)
step() { printf '\n==> package: %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (apt-get install)"; exit 77; }
if dpkg-query -W -f='${Status}' caked 2>/dev/null | grep -q 'ok installed'; then
	echo "package.sh: caked is installed already; purge it first" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-deb.XXXXXX")
run_dir_made=""
cleanup()
{
	[ -z "$run_dir_made" ] || rmdir /run/caked 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
src=$tmp/caked-$version
mkdir "$src"
step "copy of the tree in $src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	    tar --null -T - -cf -) | tar -xf - -C "$src"
else
	tar -C "$top" --exclude='./build*' -cf - . | tar -xf - -C "$src"
fi

step "dpkg-buildpackage -us -uc -b (nocheck)"
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
    DEB_BUILD_PROFILES=nocheck dpkg-buildpackage -us -uc -b) \
    >"$tmp/build.log" 2>&1; then
	tail -n 60 "$tmp/build.log"
	exit 1
fi
grep -q 'unit tests (cmocka): no' "$tmp/build.log" || {
	echo "package.sh: nocheck build did not turn cmocka off" >&2; exit 1; }
deb=$tmp/caked_${version}_$arch.deb
changes=$tmp/caked_${version}_$arch.changes
dpkg -c "$deb"

step "lintian (fails on E: or W:)"
lintian "$changes" "$deb" 2>&1 | grep -v '^running with root' |
    tee "$tmp/lintian.txt" || true
if grep -qE '^[EW]: ' "$tmp/lintian.txt"; then
	echo "package.sh: lintian reports errors or warnings" >&2
	exit 1
fi
echo "lintian: no errors, no warnings"

step "apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
dpkg -L caked >"$tmp/files"
id caked || { echo "package.sh: no user caked" >&2; exit 1; }
[ ! -e /etc/systemd/system/multi-user.target.wants/caked.service ] || {
	echo "package.sh: installing enabled caked.service" >&2; exit 1; }
dpkg-query -W -f='${Conffiles}\n' caked | grep -q '^ /etc/caked.conf ' || {
	echo "package.sh: /etc/caked.conf is not a conffile" >&2; exit 1; }

# The README's edit: name the devices, set each direction's rate (the
# shipped file has the bandwidth lines commented out: it limits nothing).
grep -q '^bandwidth' /etc/caked.conf && {
	echo "package.sh: the shipped /etc/caked.conf sets a rate" >&2; exit 1; }
step "edit /etc/caked.conf as the README says; test_tap_basic on /usr/sbin/caked"
sed -i -e 's/^lan = .*/lan = tlan/' -e 's/^wan = .*/wan = twan/' \
    -e 's/^#bandwidth = .*/bandwidth = 50mbit/' /etc/caked.conf
/usr/sbin/caked -t -c /etc/caked.conf
[ -d /run/caked ] || run_dir_made=yes
rc=0
CAKED=/usr/sbin/caked NETNS_CONF=/etc/caked.conf top_builddir="$builddir" \
    top_srcdir="$top" bash "$top/tests/netns/test_tap_basic.sh" || rc=$?
if [ "$rc" != 0 ]; then
	echo "package.sh: test_tap_basic against the package: exit $rc" >&2
	exit 1
fi

step "apt-get purge caked"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq caked >/dev/null
left=0
while read -r f; do
	if { [ -e "$f" ] && [ ! -d "$f" ]; } ||
	    { [ -d "$f" ] && [[ $f == *caked* ]]; }; then
		echo "left after purge: $f"
		left=1
	fi
done <"$tmp/files"
for f in /etc/caked.conf \
    /var/lib/systemd/deb-systemd-helper-enabled/caked.service.dsh-also; do
	[ ! -e "$f" ] || { echo "left after purge: $f"; left=1; }
done
[ "$left" = 0 ] || exit 1
echo "purge: none of the package's $(wc -l <"$tmp/files") paths is left;" \
    "user caked stays (Debian keeps system users: files may still be theirs)"
