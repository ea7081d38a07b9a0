#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Match] Focused= and InactiveFor=, from user.xdg.inactive-since as Mutter
# writes it (-1 with focus, else CLOCK_MONOTONIC µs of the moment it lost
# it): membership moves between a foreground and a background group as the
# attribute changes, the previous group's values are undone, InactiveFor=
# joins only once its time has passed, and the attributes a user writes on
# a cgroup they own select only groups with AllowSelfAssign=yes. A focus
# move is logged at debug level only, and MembershipChanged goes out only
# while a client is subscribed. The user's app is a service of their own
# manager, as a desktop starts apps: strictly below user@UID.service, whose
# own cgroup (like a Delegate=yes system service's) is the administrator's
# delegation root, where the user's attributes select nothing
# (95-trust-delegation-attrs.sh).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
focus_cleanup() {
        test_user_cleanup
        pgt_cleanup
}
monitor='' subscriber=''
mon_log=$(mktemp) sub_log=$(mktemp)
# At debug level, to see that the moves are logged there and only there.
dropin=/run/systemd/system/policyd.service.d/pgt-debug.conf
trap 'kill $monitor $subscriber 2>/dev/null; rm -f "$mon_log" "$sub_log" "$dropin"; systemctl daemon-reload; focus_cleanup' EXIT
policyd_path=$(systemctl show -p ExecStart policyd.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')
mkdir -p "$(dirname "$dropin")"
printf '[Service]\nExecStart=\nExecStart=%s --log-level=debug\n' "$policyd_path" > "$dropin"
systemctl daemon-reload
test_user_setup pgtfocus
user=$test_user

apps='[Match]\nUnit=pgt-app-*.service\nManager=any\n'
pgt_policy pgt-fg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=yes\n[Swap]\nSwapHigh=10M\n"
pgt_policy pgt-bg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=no\n[Swap]\nSwapHigh=20M\n"
pgt_policy pgt-idle "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}InactiveFor=20s\n[Attributes]\nXAttr=user.pgt.idle=yes\n"
# Without AllowSelfAssign=yes: only root's attributes select it.
pgt_policy pgt-closed "[PolicyGroup]\n${apps}Focused=yes\n[Attributes]\nXAttr=user.pgt.closed=yes\n"
start_epoch=$(date +%s)
start_policyd

# An app of the user's manager, whose cgroup its user owns, and one of root's.
test_user_run systemd-run --user --unit=pgt-app-user --quiet sleep infinity
wait_long 60 "pgt-app-user.service runs in user@$test_uid.service" test_user_unit_is pgt-app-user.service running
systemd-run --unit=pgt-app-root sleep infinity
app=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-app-user.service)
[[ $app == */user@$test_uid.service/app.slice/pgt-app-user.service ]] || fail "unexpected cgroup $app"
root_app=$cg$(unit_cgroup pgt-app-root.service)
[[ $(stat -c %U "$app") == "$user" ]] || fail "the delegated cgroup is not owned by $user: $(stat -c %U "$app")"
as_user() { setpriv --reuid="$user" --regid="$user" --clear-groups "$@"; }
monotonic_usec() { python3 -c 'import time; print(int(time.monotonic() * 1000000))'; }
tag_is() { xattr_is "$1" user.policy.group "$2"; }

sleep 2
assert_no_xattr "$app" user.policy.group   # no attribute: not a windowed app

as_user setfattr -n user.xdg.inactive-since -v -1 "$app"
wait_for "focused app joined pgt-fg" tag_is "$app" pgt-fg
wait_for "pgt-fg's SwapHigh" file_is "$app/memory.swap.high" 10485760
assert_no_xattr "$app" user.pgt.closed

# Focus lost now: background at once, idle only after 20 s.
lost=$(monotonic_usec)
as_user setfattr -n user.xdg.inactive-since -v "$lost" "$app"
t0=$SECONDS
wait_for "unfocused app moved to pgt-bg" tag_is "$app" pgt-bg
wait_for "pgt-bg's SwapHigh" file_is "$app/memory.swap.high" 20971520
status=$(policyctl status | grep Attributes)
assert_no_xattr "$app" user.pgt.idle
# (Unless a very slow machine took 20 s to get here.)
grep -qE '; 1 waiting for InactiveFor=' <<<"$status" || (( $(monotonic_usec) - lost >= 20000000 )) \
        || fail "status does not show the app waiting: $status"
wait_long 60 "pgt-idle joined after InactiveFor=" tag_is "$app" pgt-bg,pgt-idle
elapsed=$(( ($(monotonic_usec) - lost) / 1000000 ))
echo "joined pgt-idle $elapsed s after focus was lost ($((SECONDS - t0)) s after the write)"
(( elapsed >= 20 )) || fail "joined pgt-idle after $elapsed s, before InactiveFor=20s"
assert_xattr "$app" user.pgt.idle yes
policyctl status | grep -E '^  Attributes: .*; 0 waiting for InactiveFor=' \
        || fail "something still waits: $(policyctl status | grep Attributes)"

# Focus back: pgt-bg and pgt-idle are left, and undone.
as_user setfattr -n user.xdg.inactive-since -v -1 "$app"
wait_for "focused again: pgt-fg" tag_is "$app" pgt-fg
wait_for "SwapHigh back to pgt-fg's" file_is "$app/memory.swap.high" 10485760
assert_no_xattr "$app" user.pgt.idle

# A value Mutter never writes: neither focused nor not.
as_user setfattr -n user.xdg.inactive-since -v soon "$app"
wait_for "garbage focus: no group" bash -c "! getfattr --absolute-names -n user.policy.group '$app'"
wait_for "SwapHigh restored" file_is "$app/memory.swap.high" max

# The user's own attributes cannot select a group that does not allow it,
# and root's can.
as_user setfattr -n user.xdg.inactive-since -v -1 "$app"
setfattr -n user.xdg.inactive-since -v -1 "$root_app"
wait_for "root's app joined pgt-closed and pgt-fg" tag_is "$root_app" pgt-closed,pgt-fg
wait_for "the user's app joined pgt-fg" tag_is "$app" pgt-fg
assert_no_xattr "$app" user.pgt.closed
# Nor can the user forge policyd's own tag into a group.
as_user setfattr -n user.policy.group -v pgt-closed "$app" 2>/dev/null || true
sleep 2
assert_no_xattr "$app" user.pgt.closed

# A focus move says nothing at info level and up: a desktop makes thousands.
moves=$(journalctl -b -u policyd.service --since "@$start_epoch" -p info -o cat --no-pager |
        grep -cE "Policy groups: .*\(was |Set memory.swap.high=" || true)
(( moves == 0 )) || fail "focus moves were logged at info or notice level ($moves lines)"
journalctl -b -u policyd.service --since "@$start_epoch" -o cat --no-pager | has "Policy groups: pgt-bg (was pgt-fg)" ||
        fail "the move is not in the journal at debug level"

# MembershipChanged: none without a subscriber; one with (busctl monitor
# sees the bus); none again once the subscriber has left the bus.
busctl monitor --match "type='signal',member='MembershipChanged'" > "$mon_log" 2>&1 &
monitor=$!
sleep 2
signals() { grep -c 'Member=MembershipChanged' "$mon_log" || true; }
flip() { # VALUE TAG
        as_user setfattr -n user.xdg.inactive-since -v "$1" "$app"
        wait_for "app in $2" tag_is "$app" "$2"
        sleep 1
}
flip "$(monotonic_usec)" pgt-bg
(( $(signals) == 0 )) || fail "MembershipChanged sent with no subscriber"
python3 - "$SCENARIO_DIR/dbus-hostile.py" > "$sub_log" 2>&1 <<'PY' &
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("hostile", sys.argv[1])
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)
bus = h.Bus("/run/dbus/system_bus_socket", 30)
m = ("org.policygroups.PolicyGroups1", "/org/policygroups/PolicyGroups1", "org.policygroups.PolicyGroups1.Manager")
print("first", *bus.call(*m, "Subscribe", "", [])[:2], flush=True)
print("again", *bus.call(*m, "Subscribe", "", [])[:2], flush=True)
time.sleep(3600)
PY
subscriber=$!
wait_for "subscribed" grep -q '^again' "$sub_log"
grep -q '^first return' "$sub_log" || fail "Subscribe failed: $(cat "$sub_log")"
grep -q '^again error org.policygroups.PolicyGroups1.AlreadySubscribed' "$sub_log" ||
        fail "a second Subscribe was not refused: $(cat "$sub_log")"
flip -1 pgt-fg
(( $(signals) == 1 )) || fail "$(signals) MembershipChanged signals for one move with a subscriber"
kill "$subscriber"; wait "$subscriber" 2>/dev/null || true; subscriber=
sleep 2
flip "$(monotonic_usec)" pgt-bg
(( $(signals) == 1 )) || fail "MembershipChanged still sent after the subscriber left"
out=$(busctl call org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 \
        org.policygroups.PolicyGroups1.Manager Unsubscribe 2>&1) && fail "Unsubscribe without Subscribe passed"
grep -q "not subscribed" <<<"$out" || fail "Unsubscribe without Subscribe: $out"

# policyd holds the app's cgroup and memory.swap.high open since its focus
# changed. A restart makes a new cgroup under the same path (systemd's
# rmdir and mkdir): focus there reaches the new one, in the tag and in the
# knob file, and again on the next change.
test_user_run systemctl --user restart pgt-app-user.service
[[ $cg$(test_user_run systemctl --user show -P ControlGroup pgt-app-user.service) == "$app" ]] ||
        fail "the restarted app has another cgroup"
assert_no_xattr "$app" user.policy.group
flip -1 pgt-fg
wait_for "the restarted app's SwapHigh is pgt-fg's" file_is "$app/memory.swap.high" 10485760
flip "$(monotonic_usec)" pgt-bg
wait_for "and pgt-bg's after the next change" file_is "$app/memory.swap.high" 20971520
echo "ok: a restarted app's new cgroup follows focus"

systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: focus followed"
