#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test bed for user managers (issue 10), on real systemd and no policyd:
# linger starts user@UID.service; an app scope started as the user sits
# under their app.slice, owned by them, with the controllers the design
# counts on; the user can set Mutter's focus xattr on it and nobody else
# can; root reaches the manager on its private socket, directly and without
# Hello, as systemctl does; and linger off ends it all.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

trap test_user_cleanup EXIT
test_user_setup pgdesk

# --- linger brings the manager up, with no login session ---------------------
assert_eq "user@$test_uid.service" active "$(systemctl is-active user@"$test_uid".service)"
assert_eq "loginctl show-user -P State $test_user" lingering "$(loginctl show-user -P State "$test_user")"
assert_eq "ControlGroup of user@$test_uid.service" \
        "/sys/fs/cgroup/user.slice/user-$test_uid.slice/user@$test_uid.service" "$test_user_cgroup"
assert_eq "owner of $test_user_socket" "$test_user" "$(stat -c %U "$test_user_socket")"
echo "$test_user_socket: mode $(stat -c %a "$test_user_socket")"

# --- an app, as a desktop starts it ------------------------------------------
app="app-pgdesk-sleep.scope"
test_user_scope "$app" sleep infinity
app_cgroup=$test_user_cgroup/app.slice/$app
assert_eq "ControlGroup of $app, from the user's systemctl" "${app_cgroup#/sys/fs/cgroup}" \
        "$(test_user_run systemctl --user show -P ControlGroup "$app")"
[[ -d $app_cgroup ]] || fail "$app_cgroup does not exist"
pid=$(head -n 1 "$app_cgroup/cgroup.procs")
[[ -n $pid ]] || fail "no process in $app_cgroup"
assert_eq "user of the app's process $pid" "$test_uid" "$(ps -o uid= -p "$pid" | tr -d ' ')"
assert_eq "owner of $app_cgroup" "$test_user:$test_user" "$(stat -c %U:%G "$app_cgroup")"
# The knob files too: limits below user@UID.service are advisory.
assert_eq "owner of $app_cgroup/memory.swap.max" "$test_user" "$(stat -c %U "$app_cgroup/memory.swap.max")"

# The controllers each level gets (Debian 13, systemd 257): user@.service
# delegates cpu, memory and pids; the user manager enables only memory and
# pids for app.slice's children. A knob of any other controller is not
# enforceable on an app.
echo "user@$test_uid.service cgroup.controllers: $(cat "$test_user_cgroup/cgroup.controllers")"
echo "app.slice cgroup.controllers: $(cat "$test_user_cgroup/app.slice/cgroup.controllers")," \
        "subtree_control: $(cat "$test_user_cgroup/app.slice/cgroup.subtree_control")"
echo "$app cgroup.controllers: $(cat "$app_cgroup/cgroup.controllers")"
assert_file_eq "$test_user_cgroup/cgroup.controllers" "cpu memory pids"
assert_file_eq "$test_user_cgroup/app.slice/cgroup.subtree_control" "memory pids"
assert_file_eq "$app_cgroup/cgroup.controllers" "memory pids"

# --- the focus xattr, as Mutter writes it ------------------------------------
test_user_run setfattr -n user.xdg.inactive-since -v -1 "$app_cgroup" ||
        fail "$test_user cannot set user.xdg.inactive-since on their own $app"
assert_xattr "$app_cgroup" user.xdg.inactive-since -1
# Mutter's value when focus goes: g_get_monotonic_time(), CLOCK_MONOTONIC in µs.
since=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000)')
test_user_run setfattr -n user.xdg.inactive-since -v "$since" "$app_cgroup" ||
        fail "$test_user cannot change user.xdg.inactive-since on their own $app"
assert_xattr "$app_cgroup" user.xdg.inactive-since "$since"
if out=$(runuser -u nobody -- setfattr -n user.xdg.inactive-since -v -1 "$app_cgroup" 2>&1); then
        fail "nobody could set user.xdg.inactive-since on $test_user's $app"
fi
[[ $out == *"Permission denied"* ]] || fail "setfattr as nobody failed, but not for want of permission: $out"
echo "ok: nobody is refused: $out"
assert_xattr "$app_cgroup" user.xdg.inactive-since "$since"

# --- root on the manager's private socket ------------------------------------
manager_call() { python3 "$SCENARIO_DIR/user-manager-call.py" "$@"; }
# The user's own bus (dbus-daemon, from dbus-user-session) is the oracle.
path=$(test_user_run busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
        org.freedesktop.systemd1.Manager GetUnit s "$app" | sed -n 's/^o "\(.*\)"$/\1/p')
[[ -n $path ]] || fail "busctl --user GetUnit $app, as $test_user, gave no object path"
assert_eq "GetUnit $app over $test_user_socket, as root, without Hello" "$path" \
        "$(manager_call "$test_user_socket" GetUnit "$app")"
units=$(manager_call "$test_user_socket" ListUnits) || fail "ListUnits over $test_user_socket failed"
grep -qxF "$app" <<<"$units" || fail "ListUnits over $test_user_socket does not list $app"
echo "ok: ListUnits over $test_user_socket lists $app"
if out=$(manager_call "$test_user_socket" GetUnit pgdesk-nonexistent.service 2>&1); then
        fail "GetUnit of a unit that does not exist succeeded: $out"
fi
[[ $out == *org.freedesktop.systemd1.NoSuchUnit* ]] || fail "GetUnit of a unit that does not exist: $out"
echo "ok: the manager answers for a missing unit: $out"

# What does not work, and why policyd connects as above: the private socket
# is no bus, so a client that sends Hello is refused; root's own
# "systemctl --user" is refused too.
if out=$(manager_call --hello "$test_user_socket" GetUnit "$app" 2>&1); then
        fail "Hello on $test_user_socket succeeded: the private socket behaves as a bus now"
fi
echo "ok: Hello on $test_user_socket is refused: $out"
if out=$(busctl --address="unix:path=$test_user_socket" call org.freedesktop.systemd1 \
                /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s "$app" 2>&1); then
        fail "busctl --address=unix:path=$test_user_socket succeeded: $out"
fi
echo "ok: busctl on $test_user_socket is refused: $out"
if out=$(XDG_RUNTIME_DIR=$test_user_runtime systemctl --user is-system-running 2>&1); then
        fail "root's systemctl --user reached user@$test_uid.service: $out"
fi
echo "ok: root's systemctl --user is refused: $out"
# From root, systemctl reaches it with --machine=USER@.host.
units=$(systemctl --user --machine="$test_user@.host" list-units --plain --no-legend "$app" 2>&1) ||
        fail "systemctl --user --machine=$test_user@.host list-units failed: $units"
grep -qF "$app" <<<"$units" || fail "systemctl --user --machine=$test_user@.host does not list $app: $units"
echo "ok: systemctl --user --machine=$test_user@.host lists $app"

# --- the session ends --------------------------------------------------------
test_user_end_session || fail "user@$test_uid.service did not stop after linger went off"
assert_eq "user@$test_uid.service after linger off" inactive "$(systemctl show -P ActiveState user@"$test_uid".service)"
assert_eq "Result of user@$test_uid.service" success "$(systemctl show -P Result user@"$test_uid".service)"
[[ ! -e $app_cgroup ]] || fail "$app_cgroup is still there"
[[ ! -S $test_user_socket ]] || fail "$test_user_socket is still there"
if out=$(pgrep -u "$test_user" -a); then
        fail "$test_user still has processes: $out"
fi
echo "ok: $app, the socket and every process of $test_user are gone"
