#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_isolation: host isolation under a small-packet flood.
# Host B (a second namespace on the LAN bridge) floods 18-byte UDP
# payloads (60-byte frames) with sendmmsg (udpblast) for ISO_SECS s,
# from 16 source ports and, separately, from one flow, while host A pings
# the server at 5 Hz and runs one TCP upload.
#
# For each flood shape:
#  1. the bare forwarder (tests/bench/tapfwd, one queue) under the full
#     flood: what a userspace reader of a TAP meets at the highest rate
#     the testbed generates; the rate it takes is D;
#  2. the search, in the same run: the bare forwarder under the flood
#     paced at 0.8, 0.65, 0.55, 0.45, 0.37, 0.3 of D (ISO_PROBE_SECS s
#     each, A pinging at 20 Hz), down to the first rate it sustains: B
#     offers it (within 5 %), no ping is lost, the median is within 2 ms
#     of idle and none of B's frames is lost (TAP queue drops included):
#     a forwarder that drops some is at its ceiling, where a reader doing
#     any work per frame falls behind. That rate is S;
#  3. caked at "bandwidth 20mbit dual-srchost" and "unlimited", each
#     under the full flood and paced at S.
#
# Printed for every run, and in a closing table: offered rate, A's ping
# loss (as bounded, below) and median against idle, A's TCP goodput
# (share of the shaped rate; capped at 20 Mbit/s when unshaped, where
# A's own upload would fill the queues its ping waits in), where the
# flood's frames went: delivered to the server (UDP to a closed port),
# dropped by caked (engine drops and io rx_nobuf), on the LAN TAP's
# queues (TX dropped) before the forwarder read them, in the kernel's
# per-CPU backlog (softnet, machine-wide), and at B's own neighbour
# layer (ARP, machine-wide): frames sent while B's entry for its gateway
# was unresolved, which happens when B's ARP probes are lost in the
# flood's TAP queue.
#
# Asserted for caked at S, shaped and unlimited, both flood shapes: B
# offers S (within 5 %), A's ping loss <= 0.1 %, A's ping median <= 2 ms
# above idle, A's TCP share >= 45 % (shaped). Asserted for every caked
# run: B's datagrams reach the server, and the flood's losses are
# accounted for by caked's drops plus the TAP queues', the backlog's and
# the neighbour layer's (within 5 % of what B sent). Under the full
# flood the shaped one-flow case is asserted in full too (two queues
# keep A off the flood's queue; with queues-per-device = 1 in
# NETNS_CONF_GENERAL it fails), from A's first exchange in the flood on:
# the kernel sends a flow to the queue caked last wrote it on, before
# the flood, so A's first ping may wait in the flood's queue, and is
# lost if it finds it full (seen in CI and under a CPU hog). Under the
# full flood A's loss bound holds for the pings after the first; the
# first one's fate is printed. In the shaped 16-flow case caked must
# take at least 90 % of the frames a second the bare forwarder took
# under the full flood, and A's median is asserted when caked read the
# whole flood (under 1 % of it lost in the TAP queues); the rest is
# printed as targets: the full flood is beyond what the bare forwarder
# takes (step 1), and 16 flows reach every queue, so A's frames wait and
# drop in the kernel's TAP queue, where caked cannot reach them,
# whenever caked reads less than all of it. A search in which the bare
# forwarder sustains no rate fails; its own figures are printed only.
#
# The machine CI and development share may be busy with other work: the
# whole testbed runs at nice -10, and a miss of caked at S is run once
# more if the bare forwarder, probed at S just after, does not sustain
# it either: at the next rate of the search that the bare forwarder
# sustains then (S if none), as the machine is slower than it was in
# the search. Any miss under the full flood is run once more too. Both
# lines are printed; the second run is asserted whatever.
# Against an AddressSanitizer build only the accounting is asserted;
# the rest is printed: its speed, and so its figures at S, depend on
# the sanitizers and the compiler, not on caked's datapath.
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq
netns_require_caked
netns_require_tapfwd
CAKECTL=${CAKECTL:-$top_builddir/cakectl}
UDPBLAST=${UDPBLAST:-$top_builddir/tests/bench/udpblast}
[ -x "$CAKECTL" ] || skip "cakectl not built at $CAKECTL"
[ -x "$UDPBLAST" ] || skip "udpblast not built at $UDPBLAST"
# The testbed (forwarders, B's flood, A's ping and upload) at nice -10:
# on a shared machine a compiler at nice 0 would otherwise take a core
# for longer than a TAP queue lasts (1000 frames: 8 ms at 125 k
# packets/s), from the bare forwarder and caked alike.
renice -n -10 -p $$ >/dev/null || log "renice failed: default priority"
SECS=${ISO_SECS:-8}
PROBE_SECS=${ISO_PROBE_SECS:-5}
RATE_BPS=20000000
B_IP=10.201.1.3
asan=0
if ldd "$CAKED" 2>/dev/null | grep -q 'libasan'; then
	asan=1
	log "AddressSanitizer build: only the accounting is asserted"
fi

netns_topo_tap
NS_B="${NETNS_PFX}b"
netns_add "$NS_B"
netns_veth "$NS_B" eth0 "$NS_R" vb
ip -n "$NS_B" addr add "$B_IP/24" dev eth0
ip -n "$NS_R" link set vb master br-lan
netns_iperf_server

# link_stat NS DEV DIR FIELD: from `ip -s link` (DIR RX or TX; FIELD 2 is
# packets, 4 dropped).
link_stat()
{
	ip -n "$1" -s link show dev "$2" |
	    awk -v d="$3:" -v f="$4" '$1 == d { getline; print $f }'
}

# hex_sum FILE COLUMN [HEADER]: the sum of a column of hexadecimal
# counters, one row per CPU, after HEADER lines (none unless given).
hex_sum()
{
	local n=0 h

	for h in $(awk -v c="$2" -v s="${3:-0}" 'NR > s { print $c }' "$1"); do
		n=$((n + 16#$h))
	done
	echo "$n"
}

# softnet_drops: frames the per-CPU backlogs dropped, machine-wide.
softnet_drops() { hex_sum /proc/net/softnet_stat 2; }

# neigh_drops: frames the IPv4 neighbour layer discarded while their next
# hop was unresolved, machine-wide (the ARP table's counters are global).
neigh_drops() { hex_sum /proc/net/stat/arp_cache 12 1; }

# caked_drops: the upload direction's engine drops plus frames read and
# discarded for want of a buffer.
caked_drops()
{
	"$CAKECTL" -s "$NETNS_TMP/caked.sock" -j stats upload \
	    >"$NETNS_TMP/stats.json" || return 1
	jq '.directions.upload.drops + .directions.upload.io.rx_nobuf' \
	    "$NETNS_TMP/stats.json"
}

# udp_noports: datagrams the server got for a port nobody listens on (B's
# flood goes to the discard port, which is closed).
udp_noports()
{
	ip netns exec "$NS_S" awk '$1 == "Udp:" && $3 ~ /^[0-9]+$/ {
		print $3; exit }' /proc/net/snmp
}

# counters: LAN TAP handed to the reader, its queue drops, B's datagrams
# at the server, backlog drops, neighbour drops.
counters()
{
	echo "$(link_stat "$NS_R" "$LAN_DEV" TX 2)" \
	    "$(link_stat "$NS_R" "$LAN_DEV" TX 4)" \
	    "$(udp_noports)" "$(softnet_drops)" "$(neigh_drops)"
}

# start FWD RATE: caked at RATE, or the bare forwarder; sets IDLE_MED, A's
# ping median (ms) through it with no load.
start()
{
	if [ "$1" = tapfwd ]; then
		netns_start_tapfwd
	else
		netns_start_caked "$2" "$2" dual-srchost
	fi
	netns_ping "$NS_C" "$SERVER_IP" 10 "$NETNS_TMP/idle.txt"
	IDLE_MED=$(netns_ping_stats "$NETNS_TMP/idle.txt" | cut -d' ' -f1)
}

# flood_counts LABEL FWD C0 C1 D0: the figures of one flood from the
# counters before (C0) and after (C1) it and caked's drops before (D0).
flood_counts()
{
	local label=$1 fwd=$2 c0 c1

	read -r -a c0 <<<"$3"
	read -r -a c1 <<<"$4"
	SENT=$(awk 'NR == 1 && /^[0-9]+$/ { print; exit }' \
	    "$NETNS_TMP/$label-flood.txt")
	SENT=${SENT:-0}
	DROPS=0
	if [ "$fwd" = caked ]; then
		DROPS=$(caked_drops) || fail "$label: cakectl stats"
		DROPS=$((DROPS - $5))
	fi
	TAKEN=$(( c1[0] - c0[0] ))
	TAPDROP=$(( c1[1] - c0[1] ))
	RX=$(( c1[2] - c0[2] ))
	BACKLOG=$(( c1[3] - c0[3] ))
	NEIGH=$(( c1[4] - c0[4] ))
	LOST=$(( SENT - RX ))
	UNACC=$(awk -v l="$LOST" -v d="$DROPS" -v t="$TAPDROP" \
	    -v k="$BACKLOG" -v n="$NEIGH" -v s="$SENT" 'BEGIN {
		u = l - d - t - k - n
		if (u < 0) u = -u
		printf "%.1f", (s > 0 ? 100 * u / s : 100) }')
	LOSTPCT=$(awk -v l="$LOST" -v s="$SENT" \
	    'BEGIN { printf "%.2f", (s > 0 ? 100 * l / s : 100) }')
}

# ping_first FILE: the first ping's fate ("lost" or its time in ms) and
# the loss (%) of the pings after it ("nan" if none was sent).
ping_first()
{
	awk '/packets transmitted/ { sent = $1 }
	    /icmp_seq=/ { s = $0; sub(/.*icmp_seq=/, "", s); sub(/ .*/, "", s)
		t = $0; sub(/.*time=/, "", t); sub(/ .*/, "", t)
		if (s == 1) first = t; else if (s > 1 && !(s in got)) {
			got[s] = 1; rest++ } }
	    END { if (sent < 2) { print (first == "" ? "lost" : first), "nan"
			exit }
		printf "%s %.1f\n", (first == "" ? "lost" : first),
		    100 * (sent - 1 - rest) / (sent - 1) }' "$1"
}

# flood_ping LABEL PPS: A's ping figures (ST, MED, ABOVE idle, FIRST and
# LOSS_REST from ping_first, and LOSS, the loss the bounds hold: under the
# full flood (PPS 0) LOSS_REST, else that of all pings).
flood_ping()
{
	ST=$(netns_ping_stats "$NETNS_TMP/$1-ping.txt")
	MED=$(echo "$ST" | cut -d' ' -f1)
	read -r FIRST LOSS_REST <<<"$(ping_first "$NETNS_TMP/$1-ping.txt")"
	LOSS=$(echo "$ST" | cut -d' ' -f4)
	[ "$2" = 0 ] && LOSS=$LOSS_REST
	ABOVE=$(awk -v a="$MED" -v b="$IDLE_MED" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) print "nan"
		else printf "%.3f", a - b }')
}

# flood LABEL FWD RATE FLOWS PPS SECS INTERVAL: with FWD running at RATE,
# B floods for SECS s (PPS 0: as fast as it can, else paced at PPS a
# second) while A uploads one TCP flow from 1 s in and pings every
# INTERVAL s from 1.5 s in (after the upload's start) to 2 s before the
# end. Sets SENT, TAKEN, DELIVERED (pkt/s the
# LAN TAP handed to the forwarder), RX, LOST, LOSTPCT, DROPS (caked's),
# TAPDROP, BACKLOG, NEIGH, UNACC (% of SENT), ST, MED, LOSS, ABOVE, BPS,
# SHARE; prints them.
flood()
{
	local label=$1 fwd=$2 rate=$3 flows=$4 pps=$5 secs=$6 iv=$7
	local t=$NETNS_TMP/$1 c0 d0=0 pid pace="" paced="" cap="" n isecs

	[ "$rate" = unlimited ] && cap="-b 20M"
	if [ "$pps" -gt 0 ]; then
		pace=$pps
		paced=", paced at $pps"
	fi
	if [ "$fwd" = caked ]; then
		d0=$(caked_drops) || fail "$label: cakectl stats"
	fi
	n=$(awk -v s="$secs" -v i="$iv" 'BEGIN { printf "%d", (s - 3.5) / i }')
	isecs=$((secs > 5 ? secs - 4 : 1))
	c0=$(counters)
	# Launched before the flood, to start under it (netns_bg says why).
	# Unshaped, A's own upload would fill the queues A's ping waits in.
	netns_iperf_bg "$t-tcp.json" "$isecs" 1 $cap
	netns_ping_bg "$NS_C" "$SERVER_IP" "$n" "$t-ping.txt" "$iv" 1.5
	timeout $((secs + 10)) ip netns exec "$NS_B" "$UDPBLAST" \
	    -s "$SERVER_IP" 9 "$secs" 18 "$flows" $pace >"$t-flood.txt" \
	    2>&1 9>&- &
	pid=$!
	netns_track "$pid"
	wait "$IPERF_PID"
	BPS=$(netns_goodput "$t-tcp.json")
	wait "$PING_PID"
	wait "$pid"
	sleep 0.5	# the last frames leave the queues
	kill -0 "$FWD_PID" 2>/dev/null || fail "$label: $fwd died"
	flood_counts "$label" "$fwd" "$c0" "$(counters)" "$d0"
	flood_ping "$label" "$pps"
	DELIVERED=$(( TAKEN / secs ))
	OFFERED=$(( SENT / secs ))
	SHARE=$(awk -v b="$BPS" -v r="$RATE_BPS" \
	    'BEGIN { printf "%.1f", 100 * b / r }')
	log "$label: $fwd $rate, B offered $((SENT / secs)) pkt/s from" \
	    "$flows flow(s)$paced; LAN TAP handed over $DELIVERED pkt/s"
	log "$label: B's lost $LOST ($LOSTPCT %) = $fwd drops $DROPS +" \
	    "TAP queue drops $TAPDROP + backlog drops $BACKLOG +" \
	    "neighbour drops $NEIGH" \
	    "(unaccounted $UNACC % of sent)"
	log "$label: A ping idle median $IDLE_MED ms; flood" \
	    "median/p95/max/loss%/n $ST; A TCP $(mbit "$BPS") Mbit/s" \
	    "($SHARE % of 20 Mbit)"
	log "$label: A's first ping $FIRST$([ "$FIRST" = lost ] ||
	    echo " ms"), loss of the rest" \
	    "$LOSS_REST %; the bounds hold $([ "$pps" = 0 ] &&
	    echo "the rest's" || echo "all pings'")"
	SUMMARY="$SUMMARY
$(printf '%-18s %8d %8d %7s %8s %6s %9d %9d' "$label" \
    $((SENT / secs)) "$DELIVERED" "$LOSS" "$ABOVE" "$SHARE" "$DROPS" \
    "$TAPDROP")"
}

# The bounds on A, and on what B must offer, as fractions or limits.
LOSS_MAX=0.1		# A's ping loss, %
MEDIAN_MAX=2		# A's ping median above idle, ms
SHARE_MIN=45		# A's TCP share at a shaped rate, %
OFFERED_MIN=0.95	# B's offered pkt/s, as a fraction of the pacing

# median_ok: whether A's ping median in the last flood stayed within
# MEDIAN_MAX of idle.
median_ok() { bound_ok "$ABOVE" le "$MEDIAN_MAX"; }

# pings_ok: whether the last flood kept A whole: loss and median.
pings_ok() { bound_ok "$LOSS" le "$LOSS_MAX" && median_ok; }

# offered_floor PPS: the pkt/s B must offer when paced at PPS.
offered_floor()
{
	awk -v p="$1" -v f="$OFFERED_MIN" 'BEGIN { printf "%d", f * p }'
}

# offered PPS: whether B offered offered_floor PPS in the last flood.
offered() { bound_ok "$OFFERED" ge "$(offered_floor "$1")"; }

# share_ok RATE: whether A kept its TCP share (at a shaped RATE only).
share_ok() { [ "$1" = unlimited ] || bound_ok "$SHARE" ge "$SHARE_MIN"; }

# sustains PPS: whether the last flood through the bare forwarder,
# offered at PPS or more, kept A whole and lost none of B's frames.
sustains()
{
	[ "$SENT" -gt 0 ] && [ "$LOST" -le 0 ] && offered "$1" && pings_ok
}

# The search's rates, as fractions of what the bare forwarder took under
# the full flood.
FRACTIONS="0.8 0.65 0.55 0.45 0.37 0.3"

# fraction_pps FULL F: F of FULL pkt/s, whole.
fraction_pps() { awk -v d="$1" -v f="$2" 'BEGIN { printf "%d", d * f }'; }

# search FLOWS FULL: with the bare forwarder running, the flood paced at
# falling fractions of FULL (pkt/s it took under the full flood); sets
# SUSTAINED to the first rate it sustains, 0 if none.
search()
{
	local flows=$1 full=$2 f pps

	SUSTAINED=0
	for f in $FRACTIONS; do
		pps=$(fraction_pps "$full" "$f")
		[ "$pps" -gt 0 ] || return 0
		flood "search-$flows-$f" tapfwd unlimited "$flows" "$pps" \
		    "$PROBE_SECS" 0.05
		if sustains "$pps"; then
			log "search-$flows: sustained at $pps pkt/s" \
			    "($f of $full)"
			SUSTAINED=$pps
			return 0
		fi
		log "search-$flows: not sustained at $pps pkt/s ($f of $full)"
		sleep 0.5
	done
}

# bounds_met RATE PPS: whether the last flood, offered at PPS or more,
# kept A within every bound (at a shaped RATE, A's TCP share too).
bounds_met()
{
	offered "$2" && pings_ok && share_ok "$1"
}

# whole_flood: whether caked read the whole of the last flood: under 1 %
# of what B sent was lost in the TAP queues before caked could read it.
whole_flood()
{
	[ "$SENT" -gt 0 ] && [ $((TAPDROP * 100)) -lt "$SENT" ]
}

# full_take: the frames a second caked must take under the full flood:
# 90 % of what the bare forwarder took under it (BARE_FULL).
full_take()
{
	echo $((BARE_FULL * 9 / 10))
}

# full_met: whether caked, under the full flood, took full_take and, if
# it read the whole flood, kept A's ping median within 2 ms of idle.
full_met()
{
	[ "$DELIVERED" -ge "$(full_take)" ] || return 1
	! whole_flood || median_ok
}

# bare_sustains LABEL FLOWS PPS: the bare forwarder probed at PPS, as in
# the search; keeps the figures of the flood before it.
bare_sustains()
{
	local fig="$UNACC $RX $LOSS $ABOVE $SHARE $OFFERED" rv=0

	start tapfwd
	flood "$1" tapfwd unlimited "$2" "$3" "$PROBE_SECS" 0.05
	sustains "$3" || rv=1
	netns_stop_fwd
	read -r UNACC RX LOSS ABOVE SHARE OFFERED <<<"$fig"
	return "$rv"
}

# step_down LABEL FLOWS PPS: the bare forwarder probed at the search's
# rates below PPS; sets RETRY_PPS to the first it sustains (PPS if none).
step_down()
{
	local label=$1 flows=$2 f pps

	RETRY_PPS=$3
	for f in $FRACTIONS; do
		pps=$(fraction_pps "$BARE_FULL" "$f")
		[ "$pps" -lt "$3" ] || continue
		if bare_sustains "$label-bare-$f" "$flows" "$pps"; then
			RETRY_PPS=$pps
			return 0
		fi
	done
}

# retry_miss LABEL RATE FLOWS PPS ASSERT: whether caked's last run missed
# an asserted bound in a way that earns it one more run, at RETRY_PPS.
# Under the full flood, any miss: that flood is beyond what the bare
# forwarder sustains, and whether one of A's 25 pings is lost there
# comes down to which frames the kernel drops when. At a paced rate,
# only if the bare forwarder, probed at it just after, does not sustain
# it either: the machine is slower than in the search (the other work of
# a shared machine, a compiler), and the run once more is at the next
# rate of the search that the bare forwarder sustains now.
retry_miss()
{
	local label=$1 rate=$2 flows=$3 pps=$4 assert=$5

	RETRY_PPS=$pps
	case $assert in
	all)	! bounds_met "$rate" "$pps" || return 1 ;;
	full)	! full_met || return 1 ;;
	*)	return 1 ;;
	esac
	[ "$pps" = 0 ] && return 0
	if bare_sustains "$label-bare" "$flows" "$pps"; then
		log "$label: the bare forwarder sustained $pps pkt/s just" \
		    "after: caked's miss stands"
		return 1
	fi
	step_down "$label" "$flows" "$pps"
}

# caked_case LABEL RATE FLOWS PPS ASSERT: caked at RATE under the flood
# (PPS 0: full). ASSERT: all (every bound), full (caked takes at least
# 90 % of the bare forwarder's rate under the full flood, and A's median
# is asserted if caked read the whole flood; printed as a target if not,
# with loss and share) or none (all printed as targets). The
# accounting is asserted for every run; with ASan only it. A run that
# misses an asserted bound as retry_miss says is run once more; the
# second run is asserted whatever.
caked_case()
{
	local label=$1 rate=$2 flows=$3 pps=$4 assert=$5 try

	[ "$asan" = 1 ] && assert=none
	for try in 1 2; do
		[ "$try" = 2 ] && label="$1-again"
		start caked "$rate"
		flood "$label" caked "$rate" "$flows" "$pps" "$SECS" 0.2
		netns_stop_fwd
		check "$label: flood losses unaccounted %" "$UNACC" le 5
		check "$label: B's datagrams at the server" "$RX" gt 0
		[ "$try" = 1 ] &&
		    retry_miss "$label" "$rate" "$flows" "$pps" "$assert" ||
		    break
		pps=$RETRY_PPS
		log "$label: missed; once more$([ "$pps" = 0 ] ||
		    echo ", paced at $pps pkt/s") (the second run is asserted)"
	done
	case $assert in
	all)
		[ "$pps" = 0 ] || check "$label: B offered pkt/s" "$OFFERED" \
		    ge "$(offered_floor "$pps")"
		check "$label: A ping loss %" "$LOSS" le "$LOSS_MAX"
		check "$label: A ping median above idle ms" "$ABOVE" le \
		    "$MEDIAN_MAX"
		[ "$rate" = unlimited ] ||
		    check "$label: A TCP share %" "$SHARE" ge "$SHARE_MIN"
		;;
	full)
		check "$label: pkt/s taken, 90 % of the bare forwarder's" \
		    "$DELIVERED" ge "$(full_take)"
		if whole_flood; then
			check "$label: A ping median above idle ms" \
			    "$ABOVE" le "$MEDIAN_MAX"
		else
			log "$label: $TAPDROP of B's $SENT frames were lost in" \
			    "the TAP queues before caked read them, A's queue" \
			    "among them: its median is the kernel queue's"
			target "$label: A ping median above idle ms" \
			    "$ABOVE" le "$MEDIAN_MAX"
		fi
		target "$label: A ping loss %" "$LOSS" le "$LOSS_MAX"
		target "$label: A TCP share %" "$SHARE" ge "$SHARE_MIN"
		;;
	*)
		target "$label: A ping loss %" "$LOSS" le "$LOSS_MAX"
		target "$label: A ping median above idle ms" "$ABOVE" le \
		    "$MEDIAN_MAX"
		[ "$rate" = unlimited ] ||
		    target "$label: A TCP share %" "$SHARE" ge "$SHARE_MIN"
		;;
	esac
}

SUMMARY=$(printf '%-18s %8s %8s %7s %8s %6s %9s %9s' run offered \
    taken loss% +median share% caked-drop tap-drop)
for flows in 16 1; do
	start tapfwd
	flood "bare-full-$flows" tapfwd unlimited "$flows" 0 "$SECS" 0.2
	BARE_FULL=$DELIVERED
	[ "$BARE_FULL" -gt 0 ] || fail "the bare forwarder took no frames"
	search "$flows" "$BARE_FULL"
	netns_stop_fwd
	# One flow: two queues keep A off the flood's queue, asserted in
	# full. 16 flows reach every queue: A's queue drops whenever caked
	# falls behind the full flood.
	caked_case "shaped-full-$flows" 20mbit "$flows" 0 \
	    "$([ "$flows" = 1 ] && echo all || echo full)"
	caked_case "unlimited-full-$flows" unlimited "$flows" 0 none
	check "bare forwarder sustained pkt/s, $flows flow(s)" \
	    "$SUSTAINED" gt 0
	[ "$SUSTAINED" -gt 0 ] || continue
	caked_case "shaped-$flows" 20mbit "$flows" "$SUSTAINED" all
	caked_case "unlimited-$flows" unlimited "$flows" "$SUSTAINED" all
done
log "summary (pkt/s; loss and share in %, median above idle in ms):"
echo "$SUMMARY"
netns_finish
