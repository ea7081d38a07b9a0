#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The foundation's appliers on the real /sys/fs/cgroup: pg-apply-tool sets
# the group xattrs and the swap knobs on a cgroup in a delegated subtree
# (direct writes, DESIGN §6), tags a unit's own cgroup, and undoes exactly
# that. The kernel (cgroupfs files), getfattr and systemctl show must agree.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

tool=/usr/local/bin/pg-apply-tool
[[ -x $tool ]] || fail "$tool is not installed (built from tests/vm/pg-apply-tool.c)"

unit=pg-apply-test.service
tmp=$(mktemp -d)
cleanup() { systemctl stop "$unit" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

# The unit's main process sits in the subgroup "main", so that the unit
# cgroup may enable controllers for its children.
systemd-run --unit="$unit" -p Delegate=yes -p DelegateSubgroup=main sleep infinity
unit_cg=/system.slice/$unit
assert_eq "ControlGroup of $unit" "$unit_cg" "$(systemctl show -P ControlGroup "$unit")"
pid=$(systemctl show -P MainPID "$unit")
assert_eq "cgroup of the main process" "0::$unit_cg/main" "$(cat "/proc/$pid/cgroup")"

root=/sys/fs/cgroup
grep -qw memory "$root$unit_cg/cgroup.controllers" ||
        fail "memory is not delegated to $unit: $(cat "$root$unit_cg/cgroup.controllers")"
echo +memory > "$root$unit_cg/cgroup.subtree_control"
work_cg=$unit_cg/work
mkdir "$root$work_cg"
# A process in the child too, so the knobs apply to something real.
sleep infinity &
echo $! > "$root$work_cg/cgroup.procs"

cat > "$tmp/pgtest.policy" <<'POLICY'
[PolicyGroup]
Description=t
[Swap]
SwapMax=64M
SwapHigh=32M
ZSwapMax=16M
ZSwapWriteback=no
[Attributes]
XAttr=user.slo.class=latency
POLICY
cat > "$tmp/pgtag.policy" <<'POLICY'
[PolicyGroup]
Description=tag only
[Attributes]
XAttr=user.slo.tier=gold
POLICY

knobs=(memory.swap.max memory.swap.high memory.zswap.max memory.zswap.writeback)
declare -A before
for k in "${knobs[@]}"; do before[$k]=$(cat "$root$work_cg/$k"); done
unit_swap_max=$(cat "$root$unit_cg/memory.swap.max")

# The delegated child: xattrs and knobs.
"$tool" apply --cgroup-root "$root" --policy-dir "$tmp" --record "$tmp/work.record" \
        "$work_cg" pgtest
assert_xattr "$root$work_cg" user.policy.group pgtest
assert_xattr "$root$work_cg" user.slo.class latency
assert_file_eq "$root$work_cg/memory.swap.max" 67108864
assert_file_eq "$root$work_cg/memory.swap.high" 33554432
assert_file_eq "$root$work_cg/memory.zswap.max" 16777216
assert_file_eq "$root$work_cg/memory.zswap.writeback" 0

# The unit's own cgroup: only the xattrs; systemd's own stay.
"$tool" apply --cgroup-root "$root" --policy-dir "$tmp" --record "$tmp/unit.record" \
        "$unit_cg" pgtag
assert_xattr "$root$unit_cg" user.policy.group pgtag
assert_xattr "$root$unit_cg" user.slo.tier gold
assert_xattr "$root$unit_cg" user.delegate 1
assert_file_eq "$root$unit_cg/memory.swap.max" "$unit_swap_max"
assert_eq "MemorySwapMax of $unit" infinity "$(systemctl show -P MemorySwapMax "$unit")"

# Undo: exactly what was set goes away, the rest stays.
"$tool" undo --cgroup-root "$root" --record "$tmp/work.record" "$work_cg"
"$tool" undo --cgroup-root "$root" --record "$tmp/unit.record" "$unit_cg"
for k in "${knobs[@]}"; do assert_file_eq "$root$work_cg/$k" "${before[$k]}"; done
assert_no_xattr "$root$work_cg" user.policy.group
assert_no_xattr "$root$work_cg" user.slo.class
assert_no_xattr "$root$unit_cg" user.policy.group
assert_no_xattr "$root$unit_cg" user.slo.tier
assert_xattr "$root$unit_cg" user.delegate 1
assert_eq "ControlGroup of $unit after undo" "$unit_cg" "$(systemctl show -P ControlGroup "$unit")"
