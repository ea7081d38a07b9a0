#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two swap tiers are active: zram (fast, priority 100) and the second virtio
# disk (slow, priority 10).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

cat /proc/swaps
# Filename Type Size Used Priority
zram=$(awk '$1 ~ "^/dev/zram" { print $5 }' /proc/swaps)
disk=$(awk '$1 ~ "^/dev/vd" { print $5 }' /proc/swaps)
assert_eq "priority of the zram swap" 100 "$zram"
assert_eq "priority of the disk swap" 10 "$disk"
