#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Users' systemd instances (issue 10): policyd connects to user@UID.service's
# private socket as root and follows its units as it follows PID 1's. Apps
# a user starts in app.slice are matched by Unit= in a group with
# Manager=user, get the group's tag and, through the user's manager, its
# MemorySwapMax (the user's own systemctl agrees); a group without
# Manager= does not reach them by the same name. The link survives the
# user manager's daemon-reexec and restart, and when the session ends
# policyd forgets the user's units: no member, no record, no error loop.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-uapp '[PolicyGroup]\n[Match]\nUnit=pgt-app-*.scope\nManager=user\n[Swap]\nSwapMax=48M\nSwapHigh=24M\n[Attributes]\nXAttr=user.pgt.uapp=yes\n'
# The same Unit= without Manager=: PID 1's units only.
pgt_policy pgt-sys '[PolicyGroup]\n[Match]\nUnit=pgt-app-*.scope\n[Attributes]\nXAttr=user.pgt.sys=yes\n'
# Focus, as Mutter writes it on a user's app, moves it between two groups.
pgt_policy pgt-ufg '[PolicyGroup]\nAllowSelfAssign=yes\n[Match]\nUnit=pgt-focus-*.scope\nManager=user\nFocused=yes\n[Swap]\nSwapHigh=10M\n'
pgt_policy pgt-ubg '[PolicyGroup]\nAllowSelfAssign=yes\n[Match]\nUnit=pgt-focus-*.scope\nManager=user\nFocused=no\n[Swap]\nSwapHigh=30M\n[Attributes]\nXAttr=user.pgt.ubg=yes\n'
# NUMANodes= needs cpuset, which the user's manager cannot enable.
pgt_policy pgt-numa '[PolicyGroup]\n[Match]\nUnit=pgt-app-numa*.scope\nManager=user\n[Memory]\nNUMANodes=0\n'

test_user_setup pgtdesk
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" \
        bash -c "journalctl -b -u policyd.service --since '$since' -o cat | grep -q 'Following the systemd of uid $test_uid'"

user_cgroup() { # UNIT: the scope's cgroup directory, as the user's manager says
        echo "$cg$(test_user_run systemctl --user show -P ControlGroup "$1")"
}
user_prop_is() { # UNIT PROPERTY VALUE, as the user's own systemctl sees it
        [[ $(test_user_run systemctl --user show -P "$2" "$1") == "$3" ]]
}
member_of() { # GROUP MEMBER
        policyctl show "$1" | grep -qF -- "$2"
}
explain() { # UNIT: policyctl explain of a user's unit, by the name policyd gives it
        policyctl explain "user@$test_uid/$1" 2>&1
}

# 1. An app the user starts is matched, tagged, and limited through the
# user's manager.
test_user_scope pgt-app-one.scope sleep infinity
one=$(user_cgroup pgt-app-one.scope)
[[ $one == */user@$test_uid.service/app.slice/pgt-app-one.scope ]] || fail "unexpected cgroup $one"
wait_for "pgt-app-one.scope is tagged pgt-uapp" xattr_is "$one" user.policy.group pgt-uapp
assert_xattr "$one" user.pgt.uapp yes
assert_no_xattr "$one" user.pgt.sys
wait_for "the user's systemctl shows MemorySwapMax=48M" user_prop_is pgt-app-one.scope MemorySwapMax 50331648
assert_file_eq "$one/memory.swap.max" 50331648
assert_file_eq "$one/memory.swap.high" 25165824
member_of pgt-uapp "user@$test_uid/pgt-app-one.scope" || fail "policyctl show pgt-uapp does not list user@$test_uid/pgt-app-one.scope: $(policyctl show pgt-uapp)"
echo "ok: policyctl show names the member with its manager"
out=$(policyctl status)
grep -qF "user@$test_uid/pgt-app-one.scope" <<<"$out" || echo "note: status lists no members by name"
# explain takes the same name, and says which manager the unit is of.
if out=$(explain pgt-app-one.scope); then
        grep -q "^Manager: user@$test_uid.service" <<<"$out" || fail "explain does not name the manager: $out"
        grep -q "MemorySwapMax\|SwapMax" <<<"$out" || fail "explain shows no SwapMax: $out"
        echo "ok: explain names the user's manager"
else
        fail "policyctl explain user@$test_uid/pgt-app-one.scope failed: $out"
fi

# The system's unit of the same name gets pgt-sys, not pgt-uapp.
systemd-run --quiet --scope --unit=pgt-app-root.scope sleep infinity </dev/null >/dev/null 2>&1 &
wait_for "PID 1's pgt-app-root.scope is running" prop_is pgt-app-root.scope SubState running
root_app=$cg$(unit_cgroup pgt-app-root.scope)
wait_for "PID 1's pgt-app-root.scope is tagged pgt-sys only" xattr_is "$root_app" user.policy.group pgt-sys

# NUMANodes= on a user's app: reported, not dropped.
test_user_scope pgt-app-numa.scope sleep infinity
numa=$(user_cgroup pgt-app-numa.scope)
wait_for "pgt-app-numa.scope is tagged" xattr_is "$numa" user.policy.group pgt-numa,pgt-uapp
if out=$(explain pgt-app-numa.scope); then
        grep -q "NUMANodes.*migrate-pages" <<<"$out" || fail "explain does not say how NUMANodes= reaches a user's app: $out"
        ! grep -q "AllowedMemoryNodes" <<<"$out" ||
                fail "NUMANodes= went to AllowedMemoryNodes, which the user's manager cannot enforce: $out"
        echo "ok: NUMANodes= on a user's app goes by migrate_pages, and explain says so"
else
        fail "explain of pgt-app-numa failed: $out"
fi

# Focus moves a user's app between groups, as the user (Mutter) sets it;
# the background group's values are undone when the focus comes back.
test_user_scope pgt-focus-editor.scope sleep infinity
editor=$(user_cgroup pgt-focus-editor.scope)
test_user_run setfattr -n user.xdg.inactive-since -v -1 "$editor"
wait_for "the focused editor is in pgt-ufg" xattr_is "$editor" user.policy.group pgt-ufg
assert_file_eq "$editor/memory.swap.high" 10485760
test_user_run setfattr -n user.xdg.inactive-since -v "$(( $(cut -d. -f1 /proc/uptime) * 1000000 ))" "$editor"
wait_for "the editor without focus is in pgt-ubg" xattr_is "$editor" user.policy.group pgt-ubg
assert_file_eq "$editor/memory.swap.high" 31457280
assert_xattr "$editor" user.pgt.ubg yes
test_user_run setfattr -n user.xdg.inactive-since -v -1 "$editor"
wait_for "the editor with focus again is in pgt-ufg" xattr_is "$editor" user.policy.group pgt-ufg
assert_file_eq "$editor/memory.swap.high" 10485760
assert_no_xattr "$editor" user.pgt.ubg

# 2. A user's app that stops is forgotten.
test_user_run systemctl --user stop pgt-app-numa.scope
wait_for "pgt-app-numa.scope left policyd's members" bash -c "! policyctl show pgt-numa | grep -qF pgt-app-numa.scope"

# 3. daemon-reexec of the user's manager ends the connection: policyd
# connects again and keeps following (a new app is matched).
test_user_run systemctl --user daemon-reexec
wait_for "policyd lost and found the user's manager again" \
        bash -c "(( \$(journalctl -b -u policyd.service --since '$since' -o cat | grep -c 'Following the systemd of uid $test_uid') >= 2 ))"
test_user_scope pgt-app-two.scope sleep infinity
two=$(user_cgroup pgt-app-two.scope)
wait_for "pgt-app-two.scope, started after the reexec, is tagged" xattr_is "$two" user.policy.group pgt-uapp
wait_for "and has MemorySwapMax=48M" user_prop_is pgt-app-two.scope MemorySwapMax 50331648
xattr_is "$one" user.policy.group pgt-uapp || fail "pgt-app-one.scope lost its tag across the reexec"

# 4. A restart of user@UID.service: its apps die with it; policyd forgets
# them and follows the new manager.
systemctl restart "user@$test_uid.service"
wait_long 60 "user@$test_uid.service is active again" test_user_manager_is active
wait_long 30 "$test_user_socket exists" test -S "$test_user_socket"
wait_for "policyd forgot the apps of the old manager" \
        bash -c "! policyctl show pgt-uapp | grep -qF 'user@$test_uid/'"
test_user_scope pgt-app-three.scope sleep infinity
three=$(user_cgroup pgt-app-three.scope)
wait_for "pgt-app-three.scope, under the new manager, is tagged" xattr_is "$three" user.policy.group pgt-uapp

# 5. The session ends (linger off): the manager goes, and policyd forgets its
# units and their records, without trying to connect again and again.
test_user_end_session || fail "the session did not end"
wait_for "policyd forgot the user's units" bash -c "! policyctl show pgt-uapp | grep -qF 'user@$test_uid/'"
grep -q "The systemd of uid $test_uid stopped" < <(policyd_log) || fail "policyd did not log the end of the user's manager"
sleep 10
records=$(find /run/policyd -name "user%40$test_uid%2F*" | wc -l)
[[ $records == 0 ]] || fail "$records records of the user's units are left: $(find /run/policyd -name "user%40$test_uid%2F*")"
echo "ok: no record of the user's units is left"
fails=$(policyd_log | grep -c "Failed to connect to the systemd of uid $test_uid" || true)
(( fails <= 2 )) || fail "policyd tried to connect $fails times: $(policyd_log | tail -20)"
echo "ok: $fails failed connections after the session ended (no loop)"
systemctl is-active --quiet policyd.service || fail "policyd is not active"
xattr_is "$root_app" user.policy.group pgt-sys || fail "PID 1's pgt-app-root.scope lost its tag"
echo "ok: PID 1's unit kept its group throughout"
