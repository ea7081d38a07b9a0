#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Match] Focused= and InactiveFor=, from user.xdg.inactive-since as Mutter
# writes it (-1 with focus, else CLOCK_MONOTONIC µs of the moment it lost
# it): membership moves between a foreground and a background group as the
# attribute changes, the previous group's values are undone, InactiveFor=
# joins only once its time has passed, and the attributes a user writes on
# a cgroup they own select only groups with AllowSelfAssign=yes.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
user=pgtfocus
focus_cleanup() {
        pgt_cleanup
        userdel "$user" 2>/dev/null || true
}
trap focus_cleanup EXIT
userdel "$user" 2>/dev/null || true
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"

apps='[Match]\nUnit=pgt-app-*.service\n'
pgt_policy pgt-fg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=yes\n[Swap]\nSwapHigh=10M\n"
pgt_policy pgt-bg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=no\n[Swap]\nSwapHigh=20M\n"
pgt_policy pgt-idle "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}InactiveFor=20s\n[Attributes]\nXAttr=user.pgt.idle=yes\n"
# Without AllowSelfAssign=yes: only root's attributes select it.
pgt_policy pgt-closed "[PolicyGroup]\n${apps}Focused=yes\n[Attributes]\nXAttr=user.pgt.closed=yes\n"
start_policyd

# An app whose cgroup its user owns (as below user@UID.service), and one of root's.
systemd-run --unit=pgt-app-user -p User=$user -p Delegate=yes sleep infinity
systemd-run --unit=pgt-app-root sleep infinity
app=$cg$(unit_cgroup pgt-app-user.service)
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

systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: focus followed"
