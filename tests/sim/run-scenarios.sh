#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 the caked authors
# run-scenarios.sh: runs every caked-sim scenario with its assertions
# (make check). Prints each scenario's measured figures; fails if any
# scenario fails. CAKED_SIM_SEED picks another seed.
set -u
sim=${top_builddir:-.}/tests/sim/caked-sim
seed=${CAKED_SIM_SEED:-1}
rc=0
for sc in $("$sim" --list | awk '{ print $1 }'); do
	"$sim" --check --seed "$seed" --scenario "$sc" || rc=1
done
exit $rc
