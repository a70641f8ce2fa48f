#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_tun_basic: ping and TCP both ways across the routed TUN pair,
# first through the bare forwarder tapfwd (checks the testbed itself), then
# through caked (SKIP when caked is not built).
. "$(dirname "$0")/lib.sh"

netns_init ping iperf3 jq ss
netns_require_tapfwd
netns_topo_tun
netns_iperf_server

netns_start_tapfwd
netns_basic_checks "tun/tapfwd"
netns_stop_fwd
[ "$NETNS_FAILED" = 0 ] || netns_finish

netns_require_caked "testbed OK with tapfwd"
netns_start_caked 50mbit 50mbit
netns_basic_checks "tun/caked" 50
kill -0 "$FWD_PID" 2>/dev/null || fail "caked died"
netns_finish
