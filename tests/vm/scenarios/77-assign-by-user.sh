#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 10, scenario 4: a user other than root may Assign and Unassign over
# D-Bus only their own cgroups and units, and only to and from groups with
# AllowSelfAssign=yes. Refused: a group without it, a root-owned system
# unit (by name and by path), another user's cgroup (by path and by PID),
# another user's user@UID/ unit; each with its reason, and nothing changes
# (memberships as policyctl and the cgroups' xattrs and files show them,
# and policyd's records); the cgroup of a delegated unit the user owns
# (its delegation root, issue 23). Allowed: a cgroup below it, by path,
# and an app scope under their own user@UID.service, by path; unassign
# undoes both. Then, once policyd follows user managers, policyctl --user
# assign of a real app scope (skipped, visibly, until then).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
user=pgtassign
other=pgtassign2
assign_cleanup() {
        test_user_cleanup
        pgt_cleanup
        userdel "$user" 2>/dev/null || true
        userdel "$other" 2>/dev/null || true
}
trap assign_cleanup EXIT
for u in "$user" "$other"; do
        userdel "$u" 2>/dev/null || true
        useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
done
uid=$(id -u "$user")
other_uid=$(id -u "$other")

pgt_policy pgt-open '[PolicyGroup]\nAllowSelfAssign=yes\n[Swap]\nSwapHigh=30M\n[Attributes]\nXAttr=user.pgt.open=yes\n'
pgt_policy pgt-closed '[PolicyGroup]\n[Swap]\nSwapHigh=40M\n[Attributes]\nXAttr=user.pgt.closed=yes\n'
start_policyd

# Delegated units whose cgroups the users own (as 73-xattr-focus), and one of root's.
systemd-run --unit=pgt-assign-own -p User="$user" -p Delegate=yes sleep infinity
systemd-run --unit=pgt-assign-other -p User="$other" -p Delegate=yes sleep infinity
systemd-run --unit=pgt-assign-root sleep infinity
own=$(unit_cgroup pgt-assign-own.service)
theirs=$(unit_cgroup pgt-assign-other.service)
roots=$(unit_cgroup pgt-assign-root.service)
[[ $(stat -c %u "$cg$own") == "$uid" ]] || fail "$own is not owned by $user: $(stat -c %U "$cg$own")"
other_pid=$(systemctl show -P MainPID pgt-assign-other.service)
as_user() { setpriv --reuid="$user" --regid="$user" --clear-groups "$@"; }

groups_of() { # UNIT: its groups as explain says them, or "(none)"
        policyctl --json explain "$1" | python3 -c 'import json, sys
print(" ".join(g["group"] + ":" + g["source"] for g in json.load(sys.stdin)["groups"]) or "(none)")'
}
# What a call could have changed, as policyctl and the kernel show it.
snapshot() {
        local u
        for u in pgt-assign-own pgt-assign-other pgt-assign-root; do
                echo "$u: $(groups_of "$u.service")"
        done
        for d in "$own" "$theirs" "$roots"; do
                getfattr --absolute-names -d -m 'user\.' "$cg$d" 2>/dev/null | grep -v '^user.invocation_id=' || true
                echo "$d memory.swap.high=$(cat "$cg$d/memory.swap.high")"
        done
        cat /run/policyd/assignments 2>/dev/null || true
}
# refused WHAT PATTERN ARGS...: policyctl ARGS as $user exits 4 with a
# message matching PATTERN, and nothing changes.
refused() {
        local what=$1 pattern=$2 out rc before after
        shift 2
        before=$(snapshot)
        set +e
        out=$(as_user policyctl "$@" 2>&1)
        rc=$?
        set -e
        sleep 1
        after=$(snapshot)
        [[ $rc == 4 ]] || fail "$what: exit $rc, wanted 4: $out"
        grep -qE "$pattern" <<<"$out" || fail "$what: the message does not match /$pattern/: $out"
        [[ $before == "$after" ]] || fail "$what: something changed:
$(diff <(echo "$before") <(echo "$after"))"
        echo "ok: refused, $what: $out"
}

sleep 2
assert_eq "pgt-assign-own's groups before" "(none)" "$(groups_of pgt-assign-own.service)"

refused "a group without AllowSelfAssign=, for the user's own cgroup" \
        "does not allow self-assignment \(AllowSelfAssign=no\)" assign "$own" pgt-closed
refused "a root-owned system unit, by name" "is a unit of the system manager" assign pgt-assign-root.service pgt-open
refused "a root-owned system unit, by cgroup path" "is owned by uid 0, not by you \(uid $uid\)" \
        assign "$roots" pgt-open
refused "the user's own delegated unit, by name (a system unit)" "is a unit of the system manager" \
        assign pgt-assign-own.service pgt-open
refused "another user's cgroup, by path" "is owned by uid $other_uid, not by you \(uid $uid\)" \
        assign "$theirs" pgt-open
refused "another user's process, by PID" "the cgroup of PID $other_pid .* is owned by uid $other_uid" \
        assign "$other_pid" pgt-open
refused "another user's user@UID/ unit" \
        "user@$other_uid/app-x.scope belongs to uid $other_uid, not to you \(uid $uid\)" \
        assign "user@$other_uid/app-x.scope" pgt-open
# (unassign: assign asks the caller's manager first, and $user has none.)
refused "--user names the caller's own manager, and a group without AllowSelfAssign= refuses it" \
        "user@$uid/app-x.scope out of group 'pgt-closed': group 'pgt-closed' does not allow" \
        --user unassign app-x.scope pgt-closed
# Root's assignment, which the user may not take back.
policyctl assign pgt-assign-root.service pgt-closed
wait_for "root assigned pgt-assign-root to pgt-closed" xattr_is "$cg$roots" user.policy.group pgt-closed
refused "unassign of what root assigned, from a group without AllowSelfAssign=" \
        "does not allow self-assignment" unassign "$roots" pgt-closed
policyctl unassign pgt-assign-root.service pgt-closed
wait_for "root unassigned it" bash -c "! getfattr --absolute-names -n user.policy.group '$cg$roots'"
# The same refusals over raw D-Bus: AccessDenied (busctl prints only
# strerror(EACCES) for it, not policyd's message).
before=$(snapshot)
out=$(as_user busctl call org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 \
        org.policygroups.PolicyGroups1.Manager Assign ss "$theirs" pgt-open 2>&1 || true)
grep -qi "access denied" <<<"$out" || fail "raw D-Bus Assign of another user's cgroup was not refused: $out"
[[ $before == "$(snapshot)" ]] || fail "raw D-Bus Assign of another user's cgroup changed something"
echo "ok: raw D-Bus: $out"

# The delegated unit's own cgroup is its delegation root: the
# administrator's, though systemd chowned it to the user (issue 23).
refused "the user's own delegated unit, by cgroup path (its delegation root)" \
        "is the cgroup of pgt-assign-own.service, a unit of the system manager: its delegation root" \
        assign "$own" pgt-open
# Allowed: a cgroup the user made below it, by path; then by PID; unassign
# undoes it. The user moves their process into a leaf, as a delegated
# service does, so that the memory controller reaches below.
job=$own/job
as_user mkdir "$cg$own/main" "$cg$job"
own_pid=$(systemctl show -P MainPID pgt-assign-own.service)
as_user sh -c "echo $own_pid > '$cg$own/main/cgroup.procs' && echo +memory > '$cg$own/cgroup.subtree_control'"
out=$(as_user policyctl assign "$job" pgt-open 2>&1) || fail "the user's assign of $job failed: $out"
assert_eq "confirmation" "Assigned $job to group pgt-open." "$out"
wait_for "$job joined pgt-open" xattr_is "$cg$job" user.policy.group pgt-open
wait_for "pgt-open's SwapHigh on it" file_is "$cg$job/memory.swap.high" 31457280
assert_xattr "$cg$job" user.pgt.open yes
assert_eq "explain" "pgt-open:runtime by uid $uid" "$(groups_of "$job")"
grep -qP "^\+\t$job\tpgt-open\t$uid$" /run/policyd/assignments ||
        fail "the assignment is not recorded with uid $uid: $(cat /run/policyd/assignments)"
echo "ok: recorded with uid $uid"
# It survives a restart of policyd, still as the user's.
systemctl restart policyd.service
sleep 3
assert_eq "explain after a restart" "pgt-open:runtime by uid $uid" "$(groups_of "$job")"
out=$(as_user policyctl unassign "$job" pgt-open 2>&1) || fail "the user's unassign of $job failed: $out"
wait_for "$job left pgt-open" bash -c "! getfattr --absolute-names -n user.policy.group '$cg$job'"
wait_for "SwapHigh restored" file_is "$cg$job/memory.swap.high" max
assert_no_xattr "$cg$job" user.pgt.open
assert_eq "$job's groups after" "(none)" "$(groups_of "$job")"
assert_eq "pgt-assign-own's groups after" "(none)" "$(groups_of pgt-assign-own.service)"

# --- an app under the user's own manager (linger, as on a desktop)
test_user_setup pgtdesk
app="app-pgtassign.scope"
test_user_scope "$app" sleep infinity
app_path=${test_user_cgroup#"$cg"}/app.slice/$app
user_policyctl() { test_user_run policyctl "$@"; }
# By path, as today: a cgroup the user owns, that no system unit has.
out=$(user_policyctl assign "$app_path" pgt-open 2>&1) || fail "$test_user's assign of $app_path failed: $out"
wait_for "the app scope joined pgt-open" xattr_is "$cg$app_path" user.policy.group pgt-open
assert_xattr "$cg$app_path" user.pgt.open yes
set +e
out=$(runuser -u "$user" -- policyctl unassign "$app_path" pgt-open 2>&1)
rc=$?
set -e
if [[ $rc != 4 ]] || ! grep -q "is owned by uid $test_uid, not by you (uid $uid)" <<<"$out"; then
        fail "$user could unassign $test_user's app, or was not told why (exit $rc): $out"
fi
echo "ok: $user may not unassign $test_user's app: $out"
assert_xattr "$cg$app_path" user.policy.group pgt-open
out=$(user_policyctl unassign "$app_path" pgt-open 2>&1) || fail "$test_user's unassign failed: $out"
wait_for "the app scope left pgt-open" bash -c "! getfattr --absolute-names -n user.policy.group '$cg$app_path'"
assert_no_xattr "$cg$app_path" user.pgt.open

# --- policyctl --user assign of a real user-manager unit ----------------------
# policyd follows the user's manager: the app is user@UID/UNIT to it.
wait_for "policyd knows the app as user@$test_uid/$app" policyctl explain "user@$test_uid/$app"
out=$(user_policyctl --user assign "$app" pgt-open 2>&1) || fail "--user assign $app failed: $out"
assert_eq "confirmation" "Assigned user@$test_uid/$app to group pgt-open." "$out"
wait_for "the app joined pgt-open through --user" xattr_is "$cg$app_path" user.policy.group pgt-open
assert_eq "explain --user" "pgt-open:runtime by uid $test_uid" \
        "$(test_user_run policyctl --user --json explain "$app" | python3 -c 'import json, sys
print(" ".join(g["group"] + ":" + g["source"] for g in json.load(sys.stdin)["groups"]))')"
set +e
out=$(as_user policyctl assign "user@$test_uid/$app" pgt-closed 2>&1)
rc=$?
set -e
[[ $rc == 4 ]] || fail "$user could assign $test_user's app: $out"
out=$(user_policyctl --user unassign "$app" pgt-open 2>&1) || fail "--user unassign $app failed: $out"
wait_for "the app left pgt-open" bash -c "! getfattr --absolute-names -n user.policy.group '$cg$app_path'"
echo "ok: policyctl --user assign and unassign of a user-manager unit"
# A name the user's own manager does not have (another user's app, say) is
# an error, as systemctl --user set-property says it, and nothing is kept.
set +e
out=$(user_policyctl --user assign app-of-another-user.scope pgt-open 2>&1)
rc=$?
set -e
[[ $rc == 1 && $out == "Unit app-of-another-user.scope not found." ]] ||
        fail "--user assign of a unit the user's manager does not have: exit $rc: $out"
if grep -q app-of-another-user /run/policyd/assignments 2>/dev/null; then
        fail "an assignment was kept for it: $(cat /run/policyd/assignments)"
fi
echo "ok: --user assign of an unknown name: $out"

systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: users assign only their own, to groups that allow it"
