#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, attack 1: a link to a user's manager is that user's systemd, or
# nothing. policyd connects as root to /run/user/UID/systemd/private, which
# the user controls. The user replaces it, before policyd starts, with
#   1. a symlink to /run/systemd/private (PID 1 then answers as "their"
#      manager, with every system unit and its cgroup), and
#   2. a D-Bus server of their own (fake-user-manager.py) that reports a
#      unit matching a Manager=user group, with a root service's cgroup.
# Judged by the root service: no user.policy.group or group xattr on its
# cgroup, its memory.swap.max and MemorySwapMax unchanged, and the fake
# asked nothing. First the real manager's link works (MainPID matches):
# a user's own app is tagged.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
fake_pid=
trap '[[ -z $fake_pid ]] || kill "$fake_pid" 2>/dev/null; test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-umgr '[PolicyGroup]\n[Match]\nUnit=pgt-victim*\nManager=user\n[Swap]\nSwapMax=40M\n[Attributes]\nXAttr=user.pgt.umgr=yes\n'

# The victim: a root service, in no group of its own.
systemd-run --quiet --unit=pgt-victim.service sleep infinity
wait_for "root's pgt-victim.service is running" prop_is pgt-victim.service SubState running
victim_rel=$(unit_cgroup pgt-victim.service)
victim=$cg$victim_rel
swap_prop=$(systemctl show -P MemorySwapMax pgt-victim.service)
swap_knob=$(cat "$victim/memory.swap.max")

test_user_setup pgtfake
sock=$test_user_socket
said() { policyd_log | grep -qE "$1"; }

# The victim is untouched for a while (TCG: policyd's reads are slow), by
# the clock: a check takes seconds there. SetUnitProperties moves the knob
# as well; MemorySwapMax, costly to ask, is asked at the end.
victim_untouched_for() { # SECONDS
        local end=$((SECONDS + $1)) v
        while ((SECONDS < end)); do
                if v=$(getfattr --only-values --absolute-names -n user.policy.group "$victim" 2>/dev/null); then
                        fail "root's pgt-victim.service got user.policy.group=$v"
                fi
                if v=$(getfattr --only-values --absolute-names -n user.pgt.umgr "$victim" 2>/dev/null); then
                        fail "root's pgt-victim.service got user.pgt.umgr=$v"
                fi
                v=$(cat "$victim/memory.swap.max")
                [[ $v == "$swap_knob" ]] || fail "root's pgt-victim.service memory.swap.max went from $swap_knob to $v"
                sleep 0.5
        done
        v=$(systemctl show -P MemorySwapMax pgt-victim.service)
        [[ $v == "$swap_prop" ]] || fail "root's pgt-victim.service MemorySwapMax went from $swap_prop to $v"
        echo "ok: root's pgt-victim.service kept no xattr, memory.swap.max $swap_knob, MemorySwapMax $swap_prop for $1 s"
}

# 0. The real manager: followed, and the user's own app tagged.
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" said "Following the systemd of uid $test_uid\\."
test_user_scope pgt-victim-own.scope sleep infinity
own=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-victim-own.scope)
wait_for "the user's own pgt-victim-own.scope is tagged" xattr_is "$own" user.policy.group pgt-umgr
systemctl stop policyd.service

# 1. A symlink to PID 1's private socket.
test_user_run bash -c "rm -f '$sock' && ln -s /run/systemd/private '$sock'"
[[ -L $sock ]] || fail "the user could not put a symlink at $sock"
since=$(date '+%Y-%m-%d %H:%M:%S')
start_policyd
wait_for "policyd looked at the socket of uid $test_uid" \
        said "(Following|Failed to connect to|Not following the socket of) the systemd of uid $test_uid"
victim_untouched_for 20
said "Failed to connect to the systemd of uid $test_uid .*(symbolic links|Not a directory|not permitted)" ||
        fail "policyd did not say it refused the symlink: $(policyd_log | tail -5)"
echo "ok: policyd refused the symlink"
systemctl stop policyd.service

# 2. A D-Bus server of the user's own, reporting the root service's cgroup.
test_user_run rm -f "$sock"
log=$test_user_runtime/fake-manager.log
install -o "$test_user" -m 0644 /dev/null "$log"
runuser -u "$test_user" -- python3 "$SCENARIO_DIR/fake-user-manager.py" "$sock" pgt-victim-fake.service \
        "$victim_rel" "$log" </dev/null >/dev/null 2>&1 &
fake_pid=$!
wait_for "the fake manager listens" grep -q listening "$log"
since=$(date '+%Y-%m-%d %H:%M:%S')
start_policyd
wait_for "policyd connected to the fake manager" grep -q connection "$log"
wait_for "policyd decided about the socket of uid $test_uid" \
        said "(Following|Not following the socket of) the systemd of uid $test_uid"
victim_untouched_for 20
if grep -q "^call" "$log"; then
        fail "policyd asked the fake manager: $(grep '^call' "$log" | sort | uniq -c | tr '\n' ';')"
fi
echo "ok: policyd asked the fake manager nothing"
said "Not following the socket of the systemd of uid $test_uid: its peer \\(pid [0-9]+, uid $test_uid\\)" ||
        fail "policyd did not say why it refused the fake: $(policyd_log | tail -5)"
echo "ok: policyd refused the fake manager, and said why"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
