#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_autorate_pool (issue 22, test 4): IPv6 reflectors and the pool.
#
#   client -- router [caked, TUN, IPv4 + IPv6, autorate both ways] --
#   modem [50/50 Mbit, 20 ms each way] -- server: reflectors
#   fd00:202:2::11, ::12, ::13, 10.202.2.14 and fd00:202:2::15
#
# The pool holds five reflectors, four of them IPv6, three active at a
# time. An nftables table in the server counts the probes each reflector
# receives (ICMPv6 echo, ICMP echo or timestamp requests), sampled 5
# times a second. A 5 Mbit IPv6 upload keeps the link busy (no idle
# sleep). After WARM_S s the first reflector being probed "dies" (its
# probes are dropped before they are answered). Checks: exactly three
# reflectors were probed before; IPv6 ones among them; a reflector of the
# pool not probed before is probed within 5 s of the death; from 6 s on
# three live reflectors are probed again; the IPv6 upload through caked
# carried traffic.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modemlib.sh"

caked_ar_init ping iperf3 jq ss nft

WARM_S=12
AFTER_S=12
POOL="fd00:202:2::11 fd00:202:2::12 fd00:202:2::13 10.202.2.14 fd00:202:2::15"

topo_modem v6
for a in $POOL; do
	case $a in
	*:*)	ip -n "$NS_S" addr add "$a/64" dev eth0 nodad ;;
	*)	ip -n "$NS_S" addr add "$a/24" dev eth0 ;;
	esac
done

# reflector_rules: one named counter per reflector, r1 .. r5 in POOL order.
reflector_rules()
{
	local i=0 a

	echo "table inet refl {"
	for a in $POOL; do
		i=$((i + 1))
		echo "counter r$i { }"
	done
	echo "chain in { type filter hook input priority 0;"
	i=0
	for a in $POOL; do
		i=$((i + 1))
		case $a in
		*:*)	echo "ip6 daddr $a icmpv6 type echo-request counter name r$i" ;;
		*)	echo "ip daddr $a icmp type { echo-request, timestamp-request } counter name r$i" ;;
		esac
	done
	printf "}\n}\n"
}
reflector_rules | ip netns exec "$NS_S" nft -f - ||
    fail "nft reflector counters"

iperf_servers 5201
modem_start pool -q 1000 -r 50mbit -R 50mbit
ar=$(caked_ar_lines 2mbit 20mbit 50mbit)
caked_ar_start pool "autorate-reflectors = $POOL
autorate-reflectors-active = 3" "$ar" "$ar"

total=$((WARM_S + AFTER_S + 2))
BULK_DEST=$SERVER_IP6 bulk_bg up6 "$total" 5201 -b 5M
nft_counters_bg "$NS_S" refl "$NETNS_TMP/counters.txt"
sleep $((WARM_S - 2))
# (not at once: the first packets of a new path wait for neighbour
# discovery through the modem's delay)
ip netns exec "$NS_C" ping -6 -n -c 5 -i 0.2 -W 1 "$SERVER_IP6" \
    >"$NETNS_TMP/ping6.txt" 2>&1
ping6_ok=$(grep -c 'time=' "$NETNS_TMP/ping6.txt")
sleep 1

# count_at T NAME: the last sample of counter NAME at or before T.
count_at()
{
	awk -v t="$1" -v n="$2" '$2 == n && $1 <= t { c = $3 }
	    END { print c + 0 }' "$NETNS_TMP/counters.txt"
}

# probed FROM TO: the counters that rose in [FROM, TO].
probed()
{
	local i a b

	for i in $(seq 1 5); do
		a=$(count_at "$1" "r$i")
		b=$(count_at "$2" "r$i")
		[ "$b" -gt "$a" ] && printf 'r%s ' "$i"
	done
	echo
}

tk=$(now)
before=$(probed "$(plus "$tk" -4)" "$tk")
set -- $before
dead=${1:-r1}
dead_addr=$(echo $POOL | cut -d' ' -f"${dead#r}")
log "reflectors probed: $before; $dead ($dead_addr) dies"
case $dead_addr in
*:*)	ip netns exec "$NS_S" nft add rule inet refl in ip6 daddr \
	    "$dead_addr" drop ;;
*)	ip netns exec "$NS_S" nft add rule inet refl in ip daddr \
	    "$dead_addr" drop ;;
esac || fail "nft: could not kill $dead_addr"
tk=$(now)
sleep "$AFTER_S"
wait "$BULK_PID"
netns_stop_pid "$NFT_PID"
"$CAKECTL" -s "$NETNS_TMP/caked.sock" stats upload \
    >"$NETNS_TMP/stats.txt" 2>&1
netns_stop_fwd
modem_stop

# The first sample after the death at which a newcomer's counter rose.
newcomer=""
first=""
for i in $(seq 1 5); do
	case " $before " in *" r$i "*) continue ;; esac
	base=$(count_at "$tk" "r$i")
	t=$(awk -v t0="$tk" -v n="r$i" -v c="$base" \
	    '$2 == n && $1 > t0 && $3 > c { print $1 - t0; exit }' \
	    "$NETNS_TMP/counters.txt")
	[ -n "$t" ] || continue
	if [ -z "$first" ] || awk -v a="$t" -v b="$first" \
	    'BEGIN { exit !(a < b) }'; then
		first=$t
		newcomer=r$i
	fi
done
after=$(probed "$(plus "$tk" 6)" "$(plus "$tk" "$AFTER_S")")
live_after=$(echo "$after" | tr ' ' '\n' | grep -c "^r" )
case " $after " in *" $dead "*) live_after=$((live_after - 1)) ;; esac
v6_before=0
for r in $before; do
	case $(echo $POOL | cut -d' ' -f"${r#r}") in *:*) v6_before=$((v6_before + 1)) ;; esac
done

echo
echo "reflector pool over IPv6 and IPv4: $POOL (3 active)"
echo "probes received per reflector (nft counters in the server):"
for i in $(seq 1 5); do
	printf '  r%s %-18s at death %6s  end %6s\n' "$i" \
	    "$(echo $POOL | cut -d' ' -f"$i")" "$(count_at "$tk" "r$i")" \
	    "$(count_at 9e18 "r$i")"
done
echo "probed in the 4 s before the death: $before ($v6_before IPv6)"
echo "dead: $dead ($dead_addr); first newcomer: ${newcomer:-none}" \
    "after ${first:-nan} s"
echo "probed from 6 s after the death on: $after"
echo "IPv6 through caked: ping6 $ping6_ok of 5," \
    "upload $(mbit "$(netns_goodput "$NETNS_TMP/up6.json")") Mbit/s"
grep -A8 ' autorate:' "$NETNS_TMP/stats.txt"
echo

check "reflectors probed before the death" "$(echo $before | wc -w)" eq 3
check "IPv6 reflectors among them" "$v6_before" ge 2
check "a pool reflector replaces the dead one within s" "${first:-nan}" le 5
check "live reflectors probed from 6 s after the death" "$live_after" eq 3
check "ping6 through caked: replies" "$ping6_ok" ge 3
check "IPv6 upload through caked Mbit/s" \
    "$(mbit "$(netns_goodput "$NETNS_TMP/up6.json")")" gt 3
netns_finish
