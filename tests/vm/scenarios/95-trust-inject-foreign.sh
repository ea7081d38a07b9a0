#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, attack 3: a user's cgroup holds processes that are not the
# user's. An unprivileged user self-assigns their own app scope to a group
# with KSM=yes and ApplyToRunning=yes; in the scope run their own sleep, a
# setuid-root copy of sleep that they started, and a process of another
# user (nobody) that root moved in. Only the user's own process may get KSM
# (`mg` in its smaps): a membership that comes from a user reaches only
# what the user could ptrace themselves. The others are refused, visibly
# (explain: "refused: ..."), and left as they were.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
suid=/usr/local/bin/pgt-suid-sleep
nobody_pid=
foreign_cleanup() {
        [[ -z $nobody_pid ]] || kill "$nobody_pid" 2>/dev/null || true
        test_user_cleanup
        pgt_cleanup
        rm -f "$suid"
}
trap foreign_cleanup EXIT

pgt_policy pgt-foreign '[PolicyGroup]\nAllowSelfAssign=yes\nApplyToRunning=yes\n[Memory]\nKSM=yes\n'
start_policyd
systemctl start policyd-inject.socket

install -o root -g root -m 4755 /usr/bin/sleep "$suid"
test_user_setup pgtforeign
app=app-pgtforeign.scope
# The user's own sleep, and a setuid-root sleep they start: both theirs to start.
# exec: no shell stays to be looked at too (each process costs a helper's start).
test_user_scope "$app" bash -c "sleep 1000001 & exec $suid 1000002"
app_cgroup=$test_user_cgroup/app.slice/$app
# pgrep -x: by the name alone; a -f pattern matches bash -c's command line too.
wait_for "both sleeps run" bash -c "pgrep -xf 'sleep 1000001' && pgrep -x pgt-suid-sleep"
own_pid=$(pgrep -xf 'sleep 1000001')
suid_pid=$(pgrep -x pgt-suid-sleep)
# Another user's process, which root moves into the user's scope.
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 1000003 &
nobody_pid=$!
wait_for "nobody's sleep runs" test -e "/proc/$nobody_pid"
echo "$nobody_pid" > "$app_cgroup/cgroup.procs"

status_ids() { # PID: Uid: and Gid: of /proc/PID/status
        awk '/^(Uid|Gid):/ { printf "%s %s %s %s %s; ", $1, $2, $3, $4, $5 }' "/proc/$1/status"
}
echo "own PID $own_pid: $(status_ids "$own_pid")"
echo "setuid PID $suid_pid: $(status_ids "$suid_pid")"
echo "nobody PID $nobody_pid: $(status_ids "$nobody_pid")"
for p in "$own_pid" "$suid_pid" "$nobody_pid"; do
        grep -qx "0::${app_cgroup#/sys/fs/cgroup}" "/proc/$p/cgroup" ||
                fail "PID $p is not in $app: $(cat "/proc/$p/cgroup")"
done
[[ $(awk '/^Uid:/ { print $3 }' "/proc/$suid_pid/status") == 0 ]] || fail "the setuid sleep does not run as euid 0"

has_mg() { grep '^VmFlags:' "/proc/$1/smaps" | grep -qw mg; }
for p in "$own_pid" "$suid_pid" "$nobody_pid"; do
        if has_mg "$p"; then fail "PID $p has mg before anything was assigned"; fi
done

# The user assigns their own scope, through their own manager, as a desktop would.
wait_for "policyd knows the app as user@$test_uid/$app" policyctl explain "user@$test_uid/$app"
out=$(test_user_run policyctl --user assign "$app" pgt-foreign 2>&1) || fail "--user assign $app failed: $out"
echo "ok: $out"
# Longer than wait_for: a helper that times out on a loaded host is tried again after 5 s.
wait_long 240 "the user's own sleep has mg" has_mg "$own_pid"

# The others: decided (not pending), and without mg.
method_of() { # PID: its method in explain, or "(none)"
        policyctl --json explain "user@$test_uid/$app" | python3 -c 'import json, sys
pid = sys.argv[1]
for p in json.load(sys.stdin).get("processes", []):
    if str(p["pid"]) == pid:
        print(p["method"] + ": " + p["detail"]); break
else:
    print("(none)")' "$1"
}
decided() { local m; m=$(method_of "$1"); [[ $m != "(none)" && $m != pending* && $m != new* ]]; }
for p in "$suid_pid" "$nobody_pid"; do
        wait_long 120 "PID $p is decided" decided "$p"
        echo "PID $p: $(method_of "$p")"
done
policyctl explain "user@$test_uid/$app" | sed -n '/^Processes/,$p'
if has_mg "$suid_pid"; then
        fail "the setuid-root process (PID $suid_pid) got KSM (mg) from the user's self-assignment"
fi
if has_mg "$nobody_pid"; then
        fail "nobody's process (PID $nobody_pid) got KSM (mg) from the user's self-assignment"
fi
echo "ok: neither foreign process has mg"
for p in "$suid_pid" "$nobody_pid"; do
        m=$(method_of "$p")
        [[ $m == "skipped: refused: "* ]] || fail "PID $p: explain does not say it was refused: $m"
        echo "ok: PID $p: $m"
        grep -q '^TracerPid:[[:space:]]*0$' "/proc/$p/status" || fail "PID $p is still traced"
done
assert_eq "the own process's method" "injected" "$(method_of "$own_pid" | cut -d: -f1)"

# What the user may read: their own processes, not the others' exe and cgroup.
seen=$(test_user_run policyctl --json explain "user@$test_uid/$app" | python3 -c 'import json, sys
print(" ".join(str(p["pid"]) for p in json.load(sys.stdin).get("processes", [])))')
echo "the user's explain lists PIDs: $seen"
grep -qw "$own_pid" <<<"$seen" || fail "the user's explain does not list their own PID $own_pid"
for p in "$suid_pid" "$nobody_pid"; do
        if grep -qw "$p" <<<"$seen"; then fail "the user's explain lists PID $p, which is not theirs"; fi
done
echo "ok: the user's explain lists only their own processes"

systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: a user's self-assignment reaches only the user's own processes"
