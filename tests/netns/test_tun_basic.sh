#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# test_tun_basic: ping and TCP both ways across the routed TUN pair,
# first through the bare forwarder tapfwd (checks the testbed itself), then
# through caked (SKIP when caked is not built): netns_basic_test in lib.sh.
. "$(dirname "$0")/lib.sh"

netns_basic_test tun
