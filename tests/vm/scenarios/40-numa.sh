#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two NUMA nodes, both online, both with memory and a CPU.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

assert_file_eq /sys/devices/system/node/online 0-1
assert_file_eq /sys/devices/system/node/has_memory 0-1
for n in 0 1; do
        total=$(awk '/MemTotal/ { print $4 }' "/sys/devices/system/node/node$n/meminfo")
        (( total > 0 )) || fail "node$n has no memory"
        echo "ok: node$n has $total kB"
        assert_file_eq "/sys/devices/system/node/node$n/cpulist" "$n"
done
