#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_mtu: jumbo frames, with offload = no, then yes. (1) caked with
# "mtu = 9000" and every link of the TAP testbed at 9000: 8000-byte pings
# with DF set (ping -s 8000 -M do) pass both ways. (2) The WAN device's
# MTU is lowered to 1500 while caked runs: caked follows it and counts the
# 8000-byte packets too large for it (io too_big), saying so in the log.
# (3) offload = no only (with offloads, 64 KB buffers hold any MTU): the
# LAN device's MTU is raised to 16000, past the 9000 caked's buffers hold,
# and caked logs it.
. "$(dirname "$0")/lib.sh"

netns_init ping jq
netns_require_caked
netns_require_cakectl
netns_topo_tap
SOCK=$NETNS_TMP/caked.sock
io() { "$CAKECTL" -s "$SOCK" -j stats "$1" | jq -r ".directions.$1.io.$2 // \"nan\""; }

# jumbo FROM_NS DEST NAME: 10 pings of 8000 bytes, DF set; prints stats.
jumbo()
{
	ip netns exec "$1" ping -n -c 10 -i 0.05 -W 1 -s 8000 -M do "$2" \
	    >"$NETNS_TMP/$3.txt" 2>&1
	netns_ping_stats "$NETNS_TMP/$3.txt"
}

# start OFFLOAD: caked with mtu = 9000, every link of the testbed at 9000.
start()
{
	local ns_dev

	NETNS_CONF_GENERAL="offload = $1"
	netns_write_conf 100mbit 100mbit
	sed -i 's/^mtu = 1500$/mtu = 9000/' "$FWD_CONF"
	grep -q '^mtu = 9000$' "$FWD_CONF" || fail "could not set mtu = 9000"
	netns_run_caked "$1"
	for ns_dev in "$NS_C eth0" "$NS_S eth0" "$NS_R vc" "$NS_R vs" \
	    "$NS_R br-lan" "$NS_R br-wan" "$NS_R $LAN_DEV" "$NS_R $WAN_DEV"; do
		set -- $ns_dev
		ip -n "$1" link set "$2" mtu 9000 || fail "mtu 9000 on $1:$2"
	done
	sleep 1.5		# caked reads the devices' MTU every second
}

for off in no yes; do
	log "---- offload = $off"
	start "$off"
	# (1) 8000-byte pings, DF set, both ways
	up=$(jumbo "$NS_C" "$SERVER_IP" "jumbo-up-$off")
	down=$(jumbo "$NS_S" "$CLIENT_IP" "jumbo-down-$off")
	log "ping -s 8000 -M do client->server: median/p95/max ms, loss%," \
	    "replies: $up"
	log "ping -s 8000 -M do server->client: median/p95/max ms, loss%," \
	    "replies: $down"
	check "8000-byte ping client->server replies (of 10)" \
	    "$(echo "$up" | cut -d' ' -f5)" eq 10
	check "8000-byte ping server->client replies (of 10)" \
	    "$(echo "$down" | cut -d' ' -f5)" eq 10
	check "upload packets too big for $WAN_DEV at mtu 9000" \
	    "$(io upload too_big)" eq 0

	# (2) the WAN device drops to 1500: caked follows, counts and logs
	ip -n "$NS_R" link set "$WAN_DEV" mtu 1500
	sleep 1.5
	jumbo "$NS_C" "$SERVER_IP" "jumbo-small-$off" >/dev/null
	big=$(io upload too_big)
	log "after $WAN_DEV mtu 1500: upload too_big $big"
	grep -E "device mtu|too large for" "$NETNS_TMP/fwd.log" | sed 's/^/    /'
	check "upload packets too big for $WAN_DEV at mtu 1500" "$big" ge 10
	grep -q "too large for $WAN_DEV (mtu 1500)" "$NETNS_TMP/fwd.log" ||
	    fail "no log line saying the packets are too large for $WAN_DEV"
	netns_ping "$NS_C" "$SERVER_IP" 10 "$NETNS_TMP/small-$off.txt"
	st=$(netns_ping_stats "$NETNS_TMP/small-$off.txt")
	check "1500-byte-path pings still pass (loss %)" \
	    "$(echo "$st" | cut -d' ' -f4)" le 0

	# (3) the LAN device goes past what caked's buffers hold
	if [ "$off" = no ]; then
		ip -n "$NS_R" link set "$LAN_DEV" mtu 16000
		sleep 1.5
		grep "$LAN_DEV: device mtu 16000" "$NETNS_TMP/fwd.log" |
		    sed 's/^/    /'
		grep -q "$LAN_DEV: device mtu 16000 exceeds the largest packet" \
		    "$NETNS_TMP/fwd.log" ||
		    fail "no log line about $LAN_DEV's mtu 16000"
	fi
	kill -0 "$FWD_PID" 2>/dev/null || fail "caked is gone"
	netns_stop_fwd
done
netns_finish
