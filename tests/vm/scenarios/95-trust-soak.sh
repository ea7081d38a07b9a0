#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23's soak: for a bounded time (60 s of guest time) an unprivileged
# user runs the attacks that work against a running policyd, round after
# round: forged systemd signals, Assign of their delegation root, a flood of
# Assign and Unassign, 60000-byte values in the attributes policyd records,
# and a setuid-root process in their self-assigned KSM scope. Meanwhile a
# root service and another user's service, both in a group root assigned,
# must keep exactly their values (the group's attributes, memory.swap.high,
# MemorySwapMax), no setuid process may get KSM, and policyd must keep
# answering. Each round also races an exec of a setuid-root copy of
# pg-exec-race against the injection policyd asks for in the user's own
# KSM scope (95-trust-exec-race's attack, through policyd): the root-owned
# canary file must never appear. Prints what the flood cost PID 1 and
# policyd. (The fake manager and /run full have scenarios of their own:
# each needs the user's socket swapped, or /run filled, before policyd
# starts.)
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
suid=/usr/local/bin/pgt-soak-suid
race=/usr/local/bin/pg-exec-race
race_suid=/usr/local/libexec/pg-exec-race-suid
pwned=/run/pg-exec-race-pwned
soak_cleanup() {
        systemctl stop pgt-soak-other.service 2>/dev/null || true
        pkill -x pgt-soak-suid 2>/dev/null || true
        pkill -KILL -f "$race attack" 2>/dev/null || true
        test_user_cleanup
        pgt_cleanup
        rm -f "$suid" "$race_suid" "$pwned"
        userdel pgsoakv 2>/dev/null || true
}
trap soak_cleanup EXIT
soak_seconds=${POLICYGROUPS_SOAK_SECONDS:-60}

pgt_policy pgt-soak-root '[PolicyGroup]\n[Swap]\nSwapHigh=8M\n[Attributes]\nXAttr=user.pgt.soak=root\n'
pgt_policy pgt-soak-self '[PolicyGroup]\nAllowSelfAssign=yes\nApplyToRunning=yes\n[Memory]\nKSM=yes\n[Attributes]\nXAttr=user.pgt.self=1\n'
install -o root -g root -m 4755 /usr/bin/sleep "$suid"
[[ -x $race ]] || fail "$race is missing: tests/vm/run ships it from BUILDDIR/tests/vm"
mkdir -p /usr/local/libexec
install -o root -g root -m 4755 "$race" "$race_suid"
rm -f "$pwned"
id pgsoakv >/dev/null 2>&1 || useradd --system --no-create-home pgsoakv

# The victims: root's service, and another user's.
systemd-run --quiet --unit=pgt-soak-root.service sleep infinity
systemd-run --quiet --unit=pgt-soak-other.service -p User=pgsoakv sleep infinity
start_policyd
systemctl start policyd-inject.socket
policyctl assign pgt-soak-root.service pgt-soak-root
policyctl assign pgt-soak-other.service pgt-soak-root
victims=()
for u in pgt-soak-root.service pgt-soak-other.service; do
        v=$cg$(unit_cgroup "$u")
        victims+=("$v")
        wait_for "$u has root's group" xattr_is "$v" user.policy.group pgt-soak-root
        wait_for "$u has root's SwapHigh" file_is "$v/memory.swap.high" 8388608
done
state() { # everything the attacks must not change
        local v
        for v in "${victims[@]}"; do
                getfattr --absolute-names -d -m 'user\.(policy|pgt)\.' "$v" 2>/dev/null | grep -v '^#' | sort
                echo "$v memory.swap.high=$(cat "$v/memory.swap.high") memory.swap.max=$(cat "$v/memory.swap.max")"
        done
        systemctl show -p MemorySwapMax pgt-soak-root.service pgt-soak-other.service
        echo "user@$test_uid.service MemorySwapMax=$(systemctl show -P MemorySwapMax "user@$test_uid.service")"
}

test_user_setup pgtsoak
app=app-pgtsoak.scope
test_user_scope "$app" sleep infinity
app_path=${test_user_cgroup#"$cg"}/app.slice/$app
ucg=${test_user_cgroup#"$cg"}
want=$(state)
echo "the victims before:"
echo "$want"

owner=$(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s \
        org.policygroups.PolicyGroups1 | sed 's/^s "\(.*\)"$/\1/')
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
forge() { nobody busctl emit --destination="$owner" "$@" 2>/dev/null || true; }
M=org.freedesktop.systemd1.Manager
root_path=/org/freedesktop/systemd1/unit/pgt_2dsoak_2droot_2eservice
big=$(head -c 60000 /dev/zero | tr '\0' x)

pid1_ticks() { awk '{ print $14 + $15 }' /proc/1/stat; }
policyd_ns() { systemctl show -P CPUUsageNSec policyd.service; }
sets() { policyd_log | grep -c '^Set ' || true; }
pid1_before=$(pid1_ticks)
policyd_before=$(policyd_ns)
sets_before=$(sets)
run_max=0
rounds=0
tried=0
start=$SECONDS
while (( SECONDS - start < soak_seconds )); do
        rounds=$((rounds + 1))
        # 1. Forged systemd signals: root's service "removed", reloads, a job.
        forge /org/freedesktop/systemd1 $M UnitRemoved so pgt-soak-root.service $root_path
        forge /org/freedesktop/systemd1 $M Reloading b true
        forge /org/freedesktop/systemd1 $M Reloading b false
        forge /org/freedesktop/systemd1 $M JobRemoved uoss "$rounds" /org/freedesktop/systemd1/job/1 \
                pgt-soak-root.service done
        # 2. The user's delegation root, by path.
        test_user_run policyctl assign "$ucg" pgt-soak-self >/dev/null 2>&1 || true
        # 3. A big value in an attribute policyd records, then a flood of changes.
        test_user_run setfattr -n user.pgt.self -v "$big" "$cg$app_path" 2>/dev/null || true
        for i in 1 2 3 4 5; do
                test_user_run policyctl assign "$app_path" pgt-soak-self >/dev/null 2>&1 || true
                test_user_run policyctl unassign "$app_path" pgt-soak-self >/dev/null 2>&1 || true
        done
        # 4. A setuid-root process in a scope of the user's, which they assign to KSM.
        test_user_run systemd-run --user --scope --slice=app.slice --unit="app-pgtsoak-$rounds.scope" --quiet \
                "$suid" "100$rounds" </dev/null >/dev/null 2>&1 &
        sleep 1
        test_user_run policyctl --user assign "app-pgtsoak-$rounds.scope" pgt-soak-self >/dev/null 2>&1 || true
        # 5. The exec race, in a scope of the user's that they assign to KSM.
        # The last round's attacker had its round to be injected: it goes.
        pkill -KILL -f "$race attack" 2>/dev/null || true
        test_user_run systemd-run --user --scope --slice=app.slice --unit="app-pgtsoak-race-$rounds.scope" \
                --quiet "$race" attack "$race_suid" 300 100 </dev/null >/dev/null 2>&1 &
        sleep 0.5
        test_user_run policyctl --user assign "app-pgtsoak-race-$rounds.scope" pgt-soak-self >/dev/null 2>&1 || true
        tried=$((tried + 4 + 1 + 1 + 10 + 2 + 1))

        # The victims, every round.
        timeout 60 policyctl status >/dev/null || fail "round $rounds: policyd does not answer"
        now=$(state)
        [[ $now == "$want" ]] || fail "round $rounds: the attacks changed a victim:
$(diff <(echo "$want") <(echo "$now"))"
        for p in $(pgrep -x pgt-soak-suid); do
                if grep '^VmFlags:' "/proc/$p/smaps" 2>/dev/null | grep -qw mg; then
                        fail "round $rounds: the setuid-root PID $p got KSM"
                fi
        done
        [[ ! -e $pwned ]] || fail "round $rounds: the setuid-root image ran at the attacker's RIP: $(stat -c '%U %n' "$pwned")"
        size=$(du -sb /run/policyd | cut -f1)
        (( size > run_max )) && run_max=$size
done
# The last round's injections come late under TCG: look once more.
sleep 10
for p in $(pgrep -x pgt-soak-suid); do
        if grep '^VmFlags:' "/proc/$p/smaps" 2>/dev/null | grep -qw mg; then
                fail "the setuid-root PID $p got KSM"
        fi
done
pkill -KILL -f "$race attack" 2>/dev/null || true
[[ ! -e $pwned ]] || fail "the setuid-root image ran at the attacker's RIP: $(stat -c '%U %n' "$pwned")"
races=$(policyd_log | grep -c "app-pgtsoak-race-.* joined group 'pgt-soak-self'" || true)
echo "soak: the exec race ran in $rounds scopes, $races of them joined the KSM group; $pwned never appeared"
now=$(state)
[[ $now == "$want" ]] || fail "the attacks changed a victim: $(diff <(echo "$want") <(echo "$now"))"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
[[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || fail "policyd restarted"
timeout 60 policyctl status >/dev/null || fail "policyd does not answer after the soak"

hz=$(getconf CLK_TCK)
echo "soak: $rounds rounds in $((SECONDS - start)) s, $tried attacks tried, 0 changed anything"
echo "soak: PID 1 CPU $(( ($(pid1_ticks) - pid1_before) * 1000 / hz )) ms," \
        "policyd CPU $(( ($(policyd_ns) - policyd_before) / 1000000 )) ms," \
        "SetUnitProperties from policyd $(( $(sets) - sets_before ))," \
        "/run/policyd at most $((run_max / 1024)) KiB"
