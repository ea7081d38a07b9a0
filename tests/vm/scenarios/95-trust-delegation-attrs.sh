#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, attack 6, by the attributes: a delegation root is the
# administrator's. systemd chowns user@UID.service's own cgroup (and a
# Delegate=yes service's with User=) to the user, who can then write any
# user.* xattr there. The user's user.policy.request, and an xattr that a
# group's [Match] XAttr= selects, on those cgroups name a group with
# AllowSelfAssign=yes and SwapMax=4G: nothing changes there (PID 1 keeps
# MemorySwapMax=1G on both units, by systemctl show and memory.swap.max; no
# tag, no attribute), and the journal says why. The same attributes on an
# app of the user's own manager, strictly below, still bring the group's
# knobs.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
# The service runs as the user: it goes before the user does.
trap 'systemctl stop pgt-trust-attrs.service 2>/dev/null || true; test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-lift '[PolicyGroup]\nAllowSelfAssign=yes\n[Swap]\nSwapMax=4G\n[Attributes]\nXAttr=user.pgt.lift=yes\n'
pgt_policy pgt-liftx '[PolicyGroup]\nAllowSelfAssign=yes\n[Match]\nXAttr=user.pgt.want=lift\nManager=any\n[Swap]\nSwapMax=4G\n[Attributes]\nXAttr=user.pgt.liftx=yes\n'
test_user_setup pgtattrs
user_unit=user@$test_uid.service
ucg=$cg${test_user_cgroup#"$cg"}
# The administrator's limit, on the user's manager and on a delegated service of theirs.
systemctl set-property --runtime "$user_unit" MemorySwapMax=1G
systemd-run --unit=pgt-trust-attrs -p User="$test_user" -p Delegate=yes -p MemorySwapMax=1G sleep infinity
dcg=$cg$(unit_cgroup pgt-trust-attrs.service)
[[ $(stat -c %u "$ucg") == "$test_uid" ]] || fail "$ucg is not owned by $test_user"
[[ $(stat -c %u "$dcg") == "$test_uid" ]] || fail "$dcg is not owned by $test_user"
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" \
        bash -c "journalctl -b -u policyd.service --since '$since' -o cat | grep -q 'Following the systemd of uid $test_uid'"

limits() { # what the administrator set, as PID 1 and the kernel say it, and what policyd wrote
        echo "$user_unit MemorySwapMax=$(systemctl show -P MemorySwapMax "$user_unit")"
        echo "$user_unit memory.swap.max=$(cat "$ucg/memory.swap.max")"
        echo "pgt-trust-attrs MemorySwapMax=$(systemctl show -P MemorySwapMax pgt-trust-attrs.service)"
        echo "pgt-trust-attrs memory.swap.max=$(cat "$dcg/memory.swap.max")"
        getfattr --absolute-names -n user.policy.group "$ucg" "$dcg" 2>/dev/null || true
        getfattr --absolute-names -n user.pgt.lift "$ucg" "$dcg" 2>/dev/null || true
        getfattr --absolute-names -n user.pgt.liftx "$ucg" "$dcg" 2>/dev/null || true
}
want=$(limits)
grep -q "$user_unit MemorySwapMax=1073741824" <<<"$want" || fail "the administrator's limit is not set: $want"
grep -q "pgt-trust-attrs memory.swap.max=1073741824" <<<"$want" || fail "the administrator's limit is not set: $want"
echo "before: $want"

# unchanged WHAT: after the user's write, the administrator's limits stay.
unchanged() {
        local i
        for i in $(seq 1 10); do # what policyd would do, it does in this time (SetUnitProperties is quick)
                sleep 0.5
                [[ $(limits) == "$want" ]] || fail "$1: the user changed the administrator's limits:
$(diff <(echo "$want") <(limits))
$(journalctl -b -u policyd.service --since "$since" -o cat | grep -E '^Set |Policy groups' | tail -5)"
        done
        echo "ok: $1: nothing changed"
}
as_user() { runuser -u "$test_user" -- "$@"; }
as_user setfattr -n user.policy.request -v pgt-lift "$ucg"
unchanged "user.policy.request=pgt-lift on $user_unit's own cgroup"
as_user setfattr -n user.policy.request -v pgt-lift "$dcg"
unchanged "user.policy.request=pgt-lift on pgt-trust-attrs.service's own cgroup"
as_user setfattr -n user.pgt.want -v lift "$ucg"
as_user setfattr -n user.pgt.want -v lift "$dcg"
unchanged "an xattr pgt-liftx's [Match] selects, on both"
wait_for "the refusal of the self-request is logged" bash -c "journalctl -b -u policyd.service --since '$since' -o cat |
        grep -q \"Refusing self-request for group 'pgt-lift' on the cgroup of a system unit delegated to its user\""
wait_for "the refusal of the attribute is logged" bash -c "journalctl -b -u policyd.service --since '$since' -o cat |
        grep -q \"Refusing the owner's attributes for group 'pgt-liftx' on the cgroup of a system unit delegated\""
out=$(policyctl explain pgt-trust-attrs.service 2>&1) || true
echo "$out"
grep -q "not applied: user.policy.request on a system unit's own cgroup" <<<"$out" ||
        fail "explain does not say why pgt-lift is not applied: $out"

# Strictly below the delegation root, the user's own: an app of their
# manager takes the same attributes, and gets the groups' knobs.
test_user_run systemd-run --user --scope --slice=app.slice --unit=pgt-attrs-app.scope -p Delegate=yes --quiet \
        sleep infinity </dev/null >/dev/null 2>&1 &
wait_long 60 "pgt-attrs-app.scope is running" test_user_unit_is pgt-attrs-app.scope running
app=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-attrs-app.scope)
[[ $app == "$ucg"/app.slice/pgt-attrs-app.scope ]] || fail "unexpected cgroup $app"
as_user setfattr -n user.pgt.want -v lift "$app"
wait_for "the app joined pgt-liftx by its attribute" xattr_is "$app" user.policy.group pgt-liftx
wait_for "pgt-liftx's SwapMax on the app" file_is "$app/memory.swap.max" 4294967296
assert_xattr "$app" user.pgt.liftx yes
as_user setfattr -n user.policy.request -v pgt-lift "$app"
wait_for "the app joined pgt-lift by its request" xattr_is "$app" user.policy.group pgt-lift,pgt-liftx
assert_xattr "$app" user.pgt.lift yes
echo "ok: an app strictly below the delegation root still joins"

[[ $(limits) == "$want" ]] || fail "the administrator's limits moved: $(diff <(echo "$want") <(limits))"
for u in "$user_unit" pgt-trust-attrs.service; do
        if journalctl -b _SYSTEMD_UNIT=policyd.service UNIT="$u" --since "$since" -o cat | grep "^Set "; then
                fail "policyd set properties of $u, a system unit, for the user"
        fi
done
systemctl is-active --quiet policyd.service || fail "policyd is not running"
[[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || fail "policyd restarted"
echo "ok: the user's attributes on delegation roots change nothing; below them they still work"
