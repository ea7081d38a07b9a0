#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The edges of swap tiers on the patched kernel, judged by the kernel's
# files: tier names at the kernel's limit, the root cgroup, SwapTiers=zswap
# and none, and a tier removed and made again (every cgroup gets "max" for
# it): the groups' restrictions, and policyd's narrowing below a widened
# slice, come back without a reload.
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
long=a_15_char_tier5   # 15 characters: the kernel's longest
cleanup_long() { echo "-$long" > "$tiers_file" 2>/dev/null || true; pgt_cleanup; }
trap cleanup_long EXIT

# The kernel's limit, and policyd's: 15 characters, [A-Za-z0-9_].
echo "+$long:1000" > "$tiers_file" || fail "the kernel refused a 15-character tier"
if echo "+${long}x:2000" > "$tiers_file" 2>/dev/null; then
        fail "the kernel took a 16-character tier name"
fi
pgt_policy pgt-long "[PolicyGroup]\nDescription=longest name\n[Swap]\nSwapTiers=$long\n"
policyctl verify /etc/policy.d/pgt-long.policy || fail "policyctl verify refused a 15-character tier"
printf '[PolicyGroup]\n[Swap]\nSwapTiers=%sx\n' "$long" > /tmp/pgt-toolong.policy
if out=$(policyctl verify /tmp/pgt-toolong.policy 2>&1); then
        fail "policyctl verify took a 16-character tier: $out"
fi
echo "ok: 16 characters refused by the kernel and by verify: $out"

pgt_policy pgt-fast '[PolicyGroup]\nDescription=test fast swap\n[Swap]\nSwapTiers=fast\n'
pgt_policy pgt-slow '[PolicyGroup]\nDescription=test slow swap\n[Swap]\nSwapTiers=slow\n'
pgt_policy pgt-zswap '[PolicyGroup]\nDescription=zswap only\n[Swap]\nSwapTiers=zswap\n'
pgt_policy pgt-none '[PolicyGroup]\nDescription=no swap\n[Swap]\nSwapTiers=none\n'
for t in long fast zswap none; do
        printf '[Unit]\nX-PolicyGroup=pgt-%s\n[Service]\nExecStart=/bin/sleep infinity\n' "$t" \
                > "/etc/systemd/system/pgt-$t.service"
done
printf '[Unit]\nX-PolicyGroup=pgt-slow\n' > /etc/systemd/system/pgt-s.slice
printf '[Unit]\nX-PolicyGroup=pgt-fast\n[Service]\nSlice=pgt-s.slice\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/pgt-in.service
printf '[Service]\nSlice=pgt-s.slice\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-other.service
systemctl daemon-reload
systemctl start pgt-long.service pgt-fast.service pgt-zswap.service pgt-none.service pgt-in.service \
        pgt-other.service
start_policyd
# The root cgroup: a group there writes no tiers, and says why.
policyctl assign / pgt-slow || fail "policyctl assign / failed"

declare -A at
for t in long fast zswap none other; do
        at[$t]=$cg$(unit_cgroup "pgt-$t.service")
done
wait_for "pgt-long may use $long only" tiers_are "${at[long]}" "$long max;fast 0;slow 0;"
wait_for "pgt-fast may use fast only" tiers_are "${at[fast]}" "$long 0;fast max;slow 0;"
wait_for "SwapTiers=zswap: every tier" tiers_are "${at[zswap]}" "$long max;fast max;slow max;"
wait_for "SwapTiers=zswap: no writeback" file_is "${at[zswap]}/memory.zswap.writeback" 0
wait_for "SwapTiers=none: no tier" tiers_are "${at[none]}" "$long 0;fast 0;slow 0;"
wait_for "SwapTiers=none: no zswap" file_is "${at[none]}/memory.zswap.max" 0
wait_for "pgt-other narrowed to its slice's slow" tiers_are "${at[other]}" "$long 0;fast 0;slow max;"
[[ ! -e $cg/memory.swap.tiers.max ]] || fail "the root cgroup has memory.swap.tiers.max on this kernel"
policyctl explain / | grep -a "memory.swap.tiers.max" | grep -aq "root cgroup takes no swap tiers" ||
        fail "explain / does not say the root takes no tiers: $(policyctl explain / 2>&1 | tail -5)"
if policyd_log | grep -a "tiers" | grep -aqi "No such file"; then
        fail "policyd tried to write the root cgroup's tiers: $(policyd_log | grep -a 'No such file' | head -3)"
fi
echo "ok: the root cgroup: nothing written, explained"

# fast removed and made again: the kernel gives it max in every cgroup.
swapoff "$zram_dev"
echo "-fast" > "$tiers_file"
echo "+fast:100" > "$tiers_file"
swapon --priority 100 "$zram_dev"
echo "fast made again at $(date +%T): pgt-long has $(sort "${at[long]}/memory.swap.tiers.max" | tr '\n' ';')," \
        "pgt-other $(sort "${at[other]}/memory.swap.tiers.max" | tr '\n' ';')"
wait_for "pgt-long denied fast again" tiers_are "${at[long]}" "$long max;fast 0;slow 0;"
wait_for "pgt-none denied fast again" tiers_are "${at[none]}" "$long 0;fast 0;slow 0;"
wait_for "pgt-other narrowed again" tiers_are "${at[other]}" "$long 0;fast 0;slow max;"
echo "restrictions back at $(date +%T)"
policyd_log | grep -a "no longer holds\|Swap changed" | tail -5 || true
echo "ok: the edges of swap tiers, by the kernel's files"
