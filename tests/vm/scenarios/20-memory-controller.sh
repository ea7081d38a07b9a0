#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# cgroup v2 with the memory controller, and every swap and zswap knob the
# project writes or reads, on a unit's cgroup (kernel 6.12).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

[[ $(stat -f -c %T /sys/fs/cgroup) == cgroup2fs ]] || fail "/sys/fs/cgroup is not cgroup2"
grep -qw memory /sys/fs/cgroup/cgroup.controllers ||
        fail "no memory controller: $(cat /sys/fs/cgroup/cgroup.controllers)"
echo "ok: memory controller"

cg=/sys/fs/cgroup/system.slice
for f in memory.swap.max memory.swap.high memory.swap.current memory.swap.events \
         memory.swap.peak memory.zswap.max memory.zswap.current memory.zswap.writeback; do
        [[ -f $cg/$f ]] || fail "$cg/$f is missing"
        head -n 1 "$cg/$f" >/dev/null || fail "cannot read $cg/$f"
        echo "ok: $cg/$f"
done
