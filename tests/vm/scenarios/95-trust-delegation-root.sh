#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, attack 6: a delegation root is the administrator's. systemd
# chowns user@UID.service's own cgroup (and a Delegate=yes service's with
# User=) to the user, but its limits are the unit's properties, which the
# administrator set. An unprivileged user's Assign of that cgroup, by path
# or by PID, to a group with AllowSelfAssign=yes that sets SwapMax= is
# refused with a reason, and PID 1 keeps MemorySwapMax=1G on both units
# (systemctl show, and memory.swap.max in the kernel); a cgroup strictly
# below each still joins the group.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
# The service runs as the user: it goes before the user does.
trap 'systemctl stop pgt-trust-deleg.service 2>/dev/null || true; test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-lift '[PolicyGroup]\nAllowSelfAssign=yes\n[Swap]\nSwapMax=4G\n[Attributes]\nXAttr=user.pgt.lift=yes\n'
test_user_setup pgttrust
user_unit=user@$test_uid.service
ucg=${test_user_cgroup#"$cg"}
# The administrator's limit, on the user's manager and on a delegated service of theirs.
systemctl set-property --runtime "$user_unit" MemorySwapMax=1G
systemd-run --unit=pgt-trust-deleg -p User="$test_user" -p Delegate=yes -p MemorySwapMax=1G sleep infinity
dcg=$(unit_cgroup pgt-trust-deleg.service)
[[ $(stat -c %u "$cg$ucg") == "$test_uid" ]] || fail "$ucg is not owned by $test_user"
[[ $(stat -c %u "$cg$dcg") == "$test_uid" ]] || fail "$dcg is not owned by $test_user"
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" \
        bash -c "journalctl -b -u policyd.service --since '$since' -o cat | grep -q 'Following the systemd of uid $test_uid'"

limits() { # what the administrator set, as PID 1 and the kernel say it
        echo "$user_unit MemorySwapMax=$(systemctl show -P MemorySwapMax "$user_unit")"
        echo "$user_unit memory.swap.max=$(cat "$cg$ucg/memory.swap.max")"
        echo "pgt-trust-deleg MemorySwapMax=$(systemctl show -P MemorySwapMax pgt-trust-deleg.service)"
        echo "pgt-trust-deleg memory.swap.max=$(cat "$cg$dcg/memory.swap.max")"
        getfattr --absolute-names -n user.policy.group "$cg$ucg" "$cg$dcg" 2>/dev/null || true
}
want=$(limits)
grep -q "$user_unit MemorySwapMax=1073741824" <<<"$want" || fail "the administrator's limit is not set: $want"
echo "before: $want"

# refused WHAT ARGS...: policyctl ARGS as the user exits 4 with the
# delegation-root reason, and the administrator's limits stay.
refused() {
        local what=$1 out rc
        shift
        set +e
        out=$(test_user_run policyctl "$@" 2>&1)
        rc=$?
        set -e
        sleep 3 # what policyd would do, it does in this time (SetUnitProperties is quick)
        [[ $(limits) == "$want" ]] || fail "$what: the user changed the administrator's limits:
$(diff <(echo "$want") <(limits))
$(journalctl -b -u policyd.service --since "$since" -o cat | grep -E '^Set |joined' | tail -5)"
        [[ $rc == 4 ]] || fail "$what: exit $rc, wanted 4: $out"
        grep -q "its delegation root" <<<"$out" || fail "$what: the reason is not said: $out"
        echo "ok: refused, $what: $out"
}
# PID 1 holds the service's MemorySwapMax=; user@UID.service's cgroup is
# also the root of the user's own manager (its -.slice), where policyd
# would write the group's tag and ask the user's manager for the rest.
refused "a Delegate=yes system service running as the user, by path" assign "$dcg" pgt-lift
refused "a Delegate=yes system service running as the user, by its PID" assign \
        "$(systemctl show -P MainPID pgt-trust-deleg.service)" pgt-lift
refused "user@$test_uid.service's own cgroup, by path" assign "$ucg" pgt-lift
refused "the root slice of the user's own manager (user@$test_uid.service's cgroup)" assign "user@$test_uid/-.slice" pgt-lift

# Below the delegation roots, the user's own: an app of their manager, and
# a cgroup they made below their delegated service.
app="app-pgttrust.scope"
test_user_scope "$app" sleep infinity
app_path=$ucg/app.slice/$app
out=$(test_user_run policyctl assign "$app_path" pgt-lift 2>&1) || fail "assign of $app_path failed: $out"
wait_for "the app below user@$test_uid.service joined pgt-lift" xattr_is "$cg$app_path" user.policy.group pgt-lift
assert_xattr "$cg$app_path" user.pgt.lift yes
# The service's process goes to a leaf, so that memory reaches below.
runuser -u "$test_user" -- sh -c "mkdir '$cg$dcg/main' '$cg$dcg/job' &&
        echo $(systemctl show -P MainPID pgt-trust-deleg.service) > '$cg$dcg/main/cgroup.procs' &&
        echo +memory > '$cg$dcg/cgroup.subtree_control'"
out=$(test_user_run policyctl assign "$dcg/job" pgt-lift 2>&1) || fail "assign of $dcg/job failed: $out"
wait_for "$dcg/job joined pgt-lift" xattr_is "$cg$dcg/job" user.policy.group pgt-lift
wait_for "pgt-lift's SwapMax on $dcg/job" file_is "$cg$dcg/job/memory.swap.max" 4294967296
echo "ok: cgroups strictly below a delegation root still join"

[[ $(limits) == "$want" ]] || fail "the administrator's limits moved: $(diff <(echo "$want") <(limits))"
for u in "$user_unit" pgt-trust-deleg.service; do
        if journalctl -b _SYSTEMD_UNIT=policyd.service UNIT="$u" --since "$since" -o cat | grep "^Set "; then
                fail "policyd set properties of $u, a system unit, for the user"
        fi
done
systemctl is-active --quiet policyd.service || fail "policyd is not running"
[[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || fail "policyd restarted"
echo "ok: the administrator's limits on delegation roots stay; the user's cgroups below them still join"
