#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The same routing through policyd: groups with SwapTiers=fast and
# SwapTiers=slow on two services; policyd writes memory.swap.tiers.max, and
# the services' pages go to zram only and to the disk only.
set -euo pipefail
# shellcheck source=../scenarios/lib.sh
. "$SCENARIO_DIR/lib.sh"
# shellcheck source=../scenarios/policyd-lib.sh
. "$SCENARIO_DIR/policyd-lib.sh"
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$(dirname "$0")/tiers-lib.sh"
tiers_require
systemctl cat policyd.service >/dev/null 2>&1 || skip "policyd.service is not installed in the guest"
pgt_setup
tiers_define

pgt_policy pgt-fast '[PolicyGroup]\nDescription=test fast swap\n[Swap]\nSwapTiers=fast\n'
pgt_policy pgt-slow '[PolicyGroup]\nDescription=test slow swap\n[Swap]\nSwapTiers=slow\n'
for t in fast slow; do
        cat > "/etc/systemd/system/pgt-tier-$t.service" <<UNIT
[Unit]
X-PolicyGroup=pgt-$t
[Service]
ExecStart=${toucher[0]} ${toucher[1]} '${toucher[2]}'
UNIT
done
systemctl daemon-reload
start_policyd
systemctl start pgt-tier-fast.service pgt-tier-slow.service
fast=$cg$(unit_cgroup pgt-tier-fast.service)
slow=$cg$(unit_cgroup pgt-tier-slow.service)

wait_for "memory.swap.tiers.max of pgt-tier-fast" tiers_are "$fast" "fast max;slow 0;"
wait_for "memory.swap.tiers.max of pgt-tier-slow" tiers_are "$slow" "fast 0;slow max;"
wait_long 60 "64 MiB touched in $fast" anon_at_least "$fast" $((64 << 10))
wait_long 60 "64 MiB touched in $slow" anon_at_least "$slow" $((64 << 10))

assert_routed "SwapTiers=fast" "$fast" "$zram_dev" "$disk_dev"
assert_routed "SwapTiers=slow" "$slow" "$disk_dev" "$zram_dev"
cat /proc/swaps
