#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# tsan-ring.sh: tests/unit/test_ring.c under clang's ThreadSanitizer: a
# data race between the ring's producer and consumer (a missing acquire or
# release) fails the test even when the items came through intact on this
# machine. Skipped (77) without clang, cmocka or a working TSan runtime.
exec sh "${top_srcdir:-.}/tests/tsan-unit.sh" test_ring \
    src/daemon/ring.c src/daemon/inbox.c src/daemon/reply.c
