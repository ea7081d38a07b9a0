#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The patched kernel routes a cgroup's swap by tier, without policyd: with
# tiers fast (zram) and slow (disk) defined before swapon, a cgroup with
# memory.swap.tiers.max "slow 0" swaps to zram only, one with "fast 0" to
# the disk only (per-device Used in /proc/swaps).
set -euo pipefail
# shellcheck source=../scenarios/lib.sh
. "$SCENARIO_DIR/lib.sh"
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$(dirname "$0")/tiers-lib.sh"
tiers_require

cleanup() { systemctl stop pgt-tier-fast.service pgt-tier-slow.service 2>/dev/null || true; }
trap cleanup EXIT

tiers_define

# The kernel refuses to remove a tier that holds an active device.
if err=$(echo "-fast" 2>&1 >"$tiers_file"); then
        fail "removing tier fast while $zram_dev is on it succeeded"
fi
[[ $err == *"Device or resource busy"* ]] || fail "removing tier fast: expected EBUSY, got: $err"
echo "ok: removing tier fast with $zram_dev active: EBUSY"

for t in fast slow; do
        systemd-run --quiet --unit="pgt-tier-$t" -p MemoryAccounting=yes "${toucher[@]}"
done
fast=/sys/fs/cgroup$(systemctl show -P ControlGroup pgt-tier-fast.service)
slow=/sys/fs/cgroup$(systemctl show -P ControlGroup pgt-tier-slow.service)
# One "TIER max|0" pair per write() (v10).
echo "slow 0" >"$fast/memory.swap.tiers.max"
echo "fast 0" >"$slow/memory.swap.tiers.max"
echo "$fast/memory.swap.tiers.max: $(tr '\n' ';' <"$fast/memory.swap.tiers.max")"
echo "$slow/memory.swap.tiers.max: $(tr '\n' ';' <"$slow/memory.swap.tiers.max")"

wait_long 60 "64 MiB touched in $fast" anon_at_least "$fast" $((64 << 10))
wait_long 60 "64 MiB touched in $slow" anon_at_least "$slow" $((64 << 10))

assert_routed "the fast-only cgroup" "$fast" "$zram_dev" "$disk_dev"
assert_routed "the slow-only cgroup" "$slow" "$disk_dev" "$zram_dev"
cat /proc/swaps
