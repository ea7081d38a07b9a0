#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 7: policyctl assign and unassign at runtime; the assignment
# survives a policyd restart; an unprivileged caller gets AccessDenied.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-rt '[PolicyGroup]\n[Swap]\nSwapHigh=20M\n'
start_policyd
systemd-run --unit=pgt-rt sleep infinity
path=$cg$(unit_cgroup pgt-rt.service)
sleep 2
assert_no_xattr "$path" user.policy.group

policyctl assign pgt-rt.service pgt-rt
wait_for "assigned" xattr_is "$path" user.policy.group pgt-rt
assert_file_eq "$path/memory.swap.high" 20971520

systemctl restart policyd.service
sleep 3
assert_xattr "$path" user.policy.group pgt-rt

set +e
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups policyctl unassign pgt-rt.service pgt-rt 2>&1)
rc=$?
set -e
[[ $rc != 0 ]] || fail "an unprivileged unassign succeeded"
grep -qi "denied" <<<"$out" || fail "unprivileged unassign did not say access denied: $out"
echo "ok: unprivileged caller refused: $out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl call org.policygroups.PolicyGroups1 \
        /org/policygroups/PolicyGroups1 org.policygroups.PolicyGroups1.Manager Assign ss pgt-rt.service pgt-rt 2>&1 || true)
grep -qiE "only root|access denied" <<<"$out" || fail "raw D-Bus Assign from nobody was not refused: $out"
echo "ok: AccessDenied over raw D-Bus"
assert_xattr "$path" user.policy.group pgt-rt

policyctl unassign pgt-rt.service pgt-rt
wait_for "unassigned" bash -c "! getfattr --absolute-names -n user.policy.group '$path'"
wait_for "swap.high restored" file_is "$path/memory.swap.high" max
