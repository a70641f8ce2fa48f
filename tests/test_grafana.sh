#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_grafana: every metric name the queries of contrib/grafana/caked.json
# use exists in caked's exposition. The exposition is the golden rendering
# of a full reply captured from a real caked (NAT, autorate, reflectors),
# which test_render keeps equal to what src/common/metrics.c prints, so a
# renamed or dropped metric breaks this test and not a user's dashboard.
# With promtool (Debian package prometheus) every query must also parse as
# PromQL, and the host-share queries are evaluated on made-up series: the
# 10 busiest hosts' shares and "other hosts" must add up to the direction.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
dash=$top_srcdir/contrib/grafana/caked.json
prom=$top_srcdir/tests/unit/golden/ctl/stats-daemon.prom
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/caked-grafana.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0

jq -e '.panels | length > 0' "$dash" >/dev/null ||
    { echo "FAIL: $dash has no panels"; exit 1; }
jq -r '.. | .expr? // empty' "$dash" >"$tmp/exprs"
grep -o 'caked_[a-z0-9_]*' "$tmp/exprs" | sort -u >"$tmp/used"
sed -n 's/^# TYPE \(caked_[a-z0-9_]*\) .*/\1/p' "$prom" | sort -u >"$tmp/have"
n=$(wc -l <"$tmp/used")
[ "$n" -ge 20 ] && echo "PASS: the dashboard's queries use $n metrics" ||
    { echo "FAIL: only $n metric names in the queries"; rc=1; }
for m in $(comm -23 "$tmp/used" "$tmp/have"); do
	echo "FAIL: $m is queried but caked does not export it"
	rc=1
done
[ $rc = 0 ] && echo "PASS: every one is in caked's exposition" \
    "($(wc -l <"$tmp/have") families)"
# Every query names its datasource and every panel has a title.
bad=$(jq '[.panels[] | select(.title == null or .title == "" or
    (.targets | length) == 0)] | length' "$dash")
[ "$bad" = 0 ] && echo "PASS: every panel has a title and a query" ||
    { echo "FAIL: $bad panels without a title or query"; rc=1; }
command -v promtool >/dev/null 2>&1 || {
	echo "skip: promtool is not installed: queries not parsed"
	exit $rc
}
# Every query as a recording rule: promtool parses each one.
sed 's/\$__rate_interval/1m/g; s/\$instance/.*/g' "$tmp/exprs" >"$tmp/q"
{
	printf 'groups:\n- name: dashboard\n  rules:\n'
	i=0
	while IFS= read -r e; do
		i=$((i + 1))
		printf '  - record: dashboard:q%d\n    expr: %s\n' "$i" \
		    "$(printf '%s' "$e" | jq -Rs .)"
	done <"$tmp/q"
} >"$tmp/rules.yml"
if out=$(promtool check rules "$tmp/rules.yml" 2>&1); then
	echo "PASS: promtool parses all $(wc -l <"$tmp/q") queries"
else
	echo "FAIL: a query is not PromQL:"
	echo "$out"
	rc=1
fi
# The upload share panel on 12 hosts sending 256, 128, 128, 7 x 64 and
# 2 x 16 units a second of 1024 in all: the 10 busiest get 1/4, 1/8, 1/8
# and 7 x 1/16, "other hosts" (2 x 16 and 32 outside caked's list) 1/16.
q=$(jq -c '[.panels[] | select(.title == "Host shares: upload") |
    .targets[].expr]' "$dash" | sed 's/\$__rate_interval/1m/g;
    s/\$instance/.*/g')
[ "$(echo "$q" | jq length)" = 2 ] ||
    { echo "FAIL: no host share panel with two queries"; exit 1; }
{
	printf 'rule_files: []\nevaluation_interval: 1m\ntests:\n'
	printf -- '- interval: 1m\n  input_series:\n'
	printf -- "  - series: 'caked_sent_bytes_total{instance=\"a\",%s}'\n" \
	    'direction="upload"'
	printf "    values: '0+%dx10'\n" $((1024 * 60))
	n=0
	for r in 256 128 128 64 64 64 64 64 64 64 16 16; do
		n=$((n + 1))
		printf -- "  - series: 'caked_host_sent_bytes_total{%s,%s}'\n" \
		    'instance="a",direction="upload"' "host=\"10.0.0.$n\""
		printf "    values: '0+%dx10'\n" $((r * 60))
	done
	printf '  promql_expr_test:\n'
	printf '  - expr: %s\n    eval_time: 5m\n    exp_samples:\n' \
	    "$(echo "$q" | jq '.[0]')"
	n=0
	for v in 0.25 0.125 0.125 0.0625 0.0625 0.0625 0.0625 0.0625 \
	    0.0625 0.0625; do
		n=$((n + 1))
		printf -- "    - labels: '{%s,host=\"10.0.0.%d\"}'\n" \
		    'instance="a",direction="upload"' "$n"
		printf '      value: %s\n' "$v"
	done
	printf '  - expr: %s\n    eval_time: 5m\n    exp_samples:\n' \
	    "$(echo "$q" | jq '.[1]')"
	printf -- "    - labels: '{instance=\"a\",direction=\"upload\"}'\n"
	printf '      value: 0.0625\n'
} >"$tmp/shares.yml"
if out=$(cd "$tmp" && promtool test rules shares.yml 2>&1); then
	echo "PASS: host shares of 12 hosts: the 10 busiest and the rest"
else
	echo "FAIL: host share queries on made-up series:"
	echo "$out"
	rc=1
fi
exit $rc
