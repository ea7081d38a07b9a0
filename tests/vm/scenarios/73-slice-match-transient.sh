#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 3: [Match] Slice= reaches transient units, from systemd-run
# --scope and from systemd-run --unit, including a sub-slice.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-batch '[PolicyGroup]\nDescription=batch by slice\n[Match]\nSlice=pgt.slice\n[Swap]\nSwapHigh=16M\n'
start_policyd

systemd-run --unit=pgt-svc --slice=pgt.slice sleep infinity
systemd-run --scope --unit=pgt-scope --slice=pgt-sub.slice sleep infinity &
wait_for "pgt-scope is running" systemctl is-active --quiet pgt-scope.scope

svc=$cg$(unit_cgroup pgt-svc.service)
scope=$cg$(unit_cgroup pgt-scope.scope)
assert_eq "pgt-scope cgroup" /pgt.slice/pgt-sub.slice/pgt-scope.scope "$(unit_cgroup pgt-scope.scope)"
wait_for "group on the service" xattr_is "$svc" user.policy.group pgt-batch
wait_for "group on the scope in a sub-slice" xattr_is "$scope" user.policy.group pgt-batch
assert_file_eq "$svc/memory.swap.high" 16777216
assert_file_eq "$scope/memory.swap.high" 16777216
# A unit outside the slice is not a member.
other=$cg$(systemd-run --unit=pgt-other sleep infinity >/dev/null; unit_cgroup pgt-other.service)
sleep 2
if getfattr --absolute-names -n user.policy.group "$other" >/dev/null 2>&1; then
        fail "pgt-other outside pgt.slice got a group: $(getfattr --only-values -n user.policy.group "$other")"
fi
echo "ok: pgt-other outside the slice has no group"
