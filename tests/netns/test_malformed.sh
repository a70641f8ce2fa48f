#!/usr/bin/env bash
# test_malformed: malformed frames written into caked's devices. Each kind
# (tests/netns/injector -l) is injected 100 times and must land in its own
# counter of the SIGUSR1 statistics (rx_truncated, rx_malformed,
# rx_non_ip, rx_empty, rx_oversize); then all kinds at full speed while a
# ping crosses caked: the daemon stays up, the ping loses nothing, and the
# control socket still answers.
#
# TAP: frames go out of the client's veth (AF_PACKET) and the bridge hands
# them to caked's LAN device. The router namespace turns br_netfilter off
# (bridge-nf-call-ip*tables=0, its default is 1 in a new namespace):
# otherwise the kernel validates bridged IP headers itself and drops the
# bad ones before caked sees them. A zero-length or sub-14-byte Ethernet
# frame cannot be sent (the kernel refuses it: min_header_len), and a
# frame longer than the bridge ports' MTU is dropped by the bridge; both
# are covered by injecting straight into the device: TUN accepts an empty
# packet, and a frame above caked's configured MTU reaches caked once the
# device's MTU is raised behind its back (caked counts it as rx_oversize).
. "$(dirname "$0")/lib.sh"

netns_init ping
netns_require_caked
INJECTOR=${INJECTOR:-$top_builddir/tests/netns/injector}
CAKECTL=${CAKECTL:-$top_builddir/cakectl}
[ -x "$INJECTOR" ] || skip "injector not built at $INJECTOR"
N=100

# stats_line: the newest "upload: rx_pkts=..." line after a SIGUSR1.
stats_line()
{
	local n0 i

	n0=$(grep -c 'upload: rx_pkts=' "$NETNS_TMP/fwd.log")
	kill -USR1 "$FWD_PID" || fail "caked is gone"
	for i in $(seq 1 100); do
		[ "$(grep -c 'upload: rx_pkts=' "$NETNS_TMP/fwd.log")" -gt "$n0" ] &&
		    break
		sleep 0.02
	done
	grep 'upload: rx_pkts=' "$NETNS_TMP/fwd.log" | tail -n 1
}

# field LINE NAME: the value of NAME=... in LINE.
field()
{
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# inject_kind DEV KIND COUNTER [injector options]: injects N frames and
# checks that COUNTER rose by exactly N.
inject_kind()
{
	local dev=$1 kind=$2 counter=$3 before after

	shift 3
	before=$(field "$(stats_line)" "$counter")
	ip netns exec "$INJ_NS" "$INJECTOR" -n "$N" -i 200 "$@" "$dev" \
	    "$kind" >/dev/null || fail "injector $kind failed"
	sleep 0.1
	after=$(field "$(stats_line)" "$counter")
	check "$TOPO $kind: $counter +" "$((after - before))" eq "$N"
}

no_br_netfilter()
{
	local k

	for k in iptables ip6tables arptables; do
		ip netns exec "$NS_R" sysctl -qw \
		    "net.bridge.bridge-nf-call-$k=0" 2>/dev/null || true
	done
}

# ---- TAP: through the bridge -------------------------------------------------
netns_topo_tap
no_br_netfilter
netns_start_caked 50mbit 50mbit
INJ_NS=$NS_C
while read -r kind counter _; do
	case $kind in
	empty|big) continue ;;
	esac
	inject_kind eth0 "$kind" "$counter" -e
done < <("$INJECTOR" -l)

# Larger than the MTU: raise the device's MTU behind caked's back and send
# straight into it (from the bridge such a frame is dropped by the kernel).
ip -n "$NS_R" link set "$LAN_DEV" mtu 9000
INJ_NS=$NS_R
inject_kind "$LAN_DEV" big rx_oversize -e -s 4000
ip -n "$NS_R" link set "$LAN_DEV" mtu 1500

# All kinds at full speed beside a ping.
netns_ping_bg "$NS_C" "$SERVER_IP" 100 "$NETNS_TMP/ping-tap.txt"
ping_pid=$PING_PID
total=0
for round in 1 2 3 4 5; do
	while read -r kind _ _; do
		case $kind in
		empty|big) continue ;;
		esac
		ip netns exec "$NS_C" "$INJECTOR" -e -n 2000 -i 0 eth0 "$kind" \
		    >/dev/null || fail "injector $kind (flood)"
		total=$((total + 2000))
	done < <("$INJECTOR" -l)
done
wait "$ping_pid"
st=$(netns_ping_stats "$NETNS_TMP/ping-tap.txt")
log "TAP: $total malformed frames at full speed; ping median/p95/max ms, loss%: $st"
# At full speed the kernel's TAP queue (txqueuelen 500) overflows before
# caked reads: those drops (TX dropped of the device) are the kernel's.
log "TAP: frames the kernel dropped on $LAN_DEV's queue: $(ip -n "$NS_R" -s \
    link show dev "$LAN_DEV" | awk '/TX:/ { getline; print $4 }')"
check "TAP ping loss % during the malformed flood" "$(echo "$st" | cut -d' ' -f4)" le 3
check "TAP ping median ms during the malformed flood" "$(echo "$st" | cut -d' ' -f1)" lt 5
kill -0 "$FWD_PID" 2>/dev/null || fail "caked died"
line=$(stats_line)
log "TAP counters: $(echo "$line" | sed 's/.*upload: //')"
bad=$(( $(field "$line" rx_truncated) + $(field "$line" rx_malformed) +
    $(field "$line" rx_non_ip) ))
check "TAP malformed frames counted (of $((total + 11 * N)) sent)" "$bad" ge \
    $((total * 95 / 100))
# The same counters in the stats JSON (cakectl -j stats: directions.*.io).
if [ -x "$CAKECTL" ] && command -v jq >/dev/null 2>&1; then
	"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload \
	    >"$NETNS_TMP/stats.json" || fail "cakectl stats"
	log "cakectl -j stats upload .io: $(jq -c .directions.upload.io \
	    "$NETNS_TMP/stats.json")"
	for k in rx_truncated rx_malformed rx_non_ip rx_oversize; do
		check "TAP $k in stats JSON = SIGUSR1 log" \
		    "$(jq ".directions.upload.io.$k" "$NETNS_TMP/stats.json")" \
		    eq "$(field "$line" "$k")"
	done
fi
netns_wait_ping || fail "no ping after the flood"
netns_stop_fwd

# ---- TUN: straight into the device ----------------------------------------
netns_topo_tun u
netns_start_caked 50mbit 50mbit
INJ_NS=$NS_R
# An empty packet never reaches caked: the kernel refuses to send one
# (caked would count a zero-length read under rx_empty).
if ip netns exec "$NS_R" "$INJECTOR" "$LAN_DEV" empty >/dev/null 2>&1; then
	inject_kind "$LAN_DEV" empty rx_empty
else
	log "TUN: the kernel refuses a zero-length packet (sendto EINVAL)"
fi
for kind in ipv4-trunc ipv4-ihl ipv4-len-long tcp-doff ipv6-trunc \
    ipv6-ext-loop ipv6-ext-end; do
	counter=$("$INJECTOR" -l | awk -v k="$kind" '$1 == k { print $2 }')
	inject_kind "$LAN_DEV" "$kind" "$counter"
done
ip -n "$NS_R" link set "$LAN_DEV" mtu 9000
inject_kind "$LAN_DEV" big rx_oversize -s 4000
ip -n "$NS_R" link set "$LAN_DEV" mtu 1500
netns_wait_ping || fail "no ping through caked (TUN) after the injections"
kill -0 "$FWD_PID" 2>/dev/null || fail "caked died (TUN)"
log "TUN counters: $(stats_line | sed 's/.*upload: //')"
netns_finish
