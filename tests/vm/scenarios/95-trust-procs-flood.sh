#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23: a rate limit on cgroup.procs events. An unprivileged user
# self-assigns their own app scope to a group with KSM=yes and
# ApplyToRunning=yes, then moves its processes out to their other scope and
# back in, in a loop for 20 s (half a second in each place, so that
# policyd sees both). Each move makes policyd ask the injector, and each
# request is a policyd-inject@ unit that PID 1 starts: on main, as many as
# get through four at once. Per owner uid, policyd now opens at most 4
# connections to the injector (units) at once, then 1 every 5 s, for what
# such moves cause, and sends at most 20 requests at once, then 10 a second
# (process-inject.c); the rest are held back, and each
# process is decided again, where it is then, when the rate allows. Judged:
# the helper units PID 1 started (NAccepted of policyd-inject.socket) stay
# under that bound, policyd answers, and afterwards every process, back
# inside, has KSM (mg in smaps).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

BURST=4 PERIOD=5 LOOP_S=20 SLACK=2

pgt_policy pgt-flood '[PolicyGroup]\nAllowSelfAssign=yes\nApplyToRunning=yes\n[Memory]\nKSM=yes\n'
start_policyd
systemctl start policyd-inject.socket

test_user_setup pgtflood
app=app-pgtflood.scope
out=app-pgtflood-out.scope
# Four processes to move, as many as policyd has calls in flight, and one
# that stays: an empty scope ends (exec: no shell stays to be looked at too).
test_user_scope "$app" bash -c 'for i in 1 2 3; do sleep 100002$i & done; sleep 1000020 & exec sleep 1000029'
test_user_scope "$out" sleep 1000030
app_cg=$test_user_cgroup/app.slice/$app
out_cg=$test_user_cgroup/app.slice/$out
wait_for "four sleeps run" bash -c "[[ \$(pgrep -xf 'sleep 100002[0-3]' | wc -l) == 4 ]]"
pids=$(pgrep -xf 'sleep 100002[0-3]' | tr '\n' ' ')
echo "movers: $pids"

has_mg() { grep '^VmFlags:' "/proc/$1/smaps" | grep -qw mg; }
all_mg() {
        local p
        for p in $pids; do
                has_mg "$p" || { echo "PID $p has no mg"; return 1; }
        done
}
wait_for "policyd knows the app as user@$test_uid/$app" policyctl explain "user@$test_uid/$app"
res=$(test_user_run policyctl --user assign "$app" pgt-flood 2>&1) || fail "--user assign $app failed: $res"
echo "ok: $res"
wait_long 240 "every mover has mg" all_mg
# Settled: nothing pending before the count starts.
wait_long 60 "nothing pending" bash -c "! policyctl explain 'user@$test_uid/$app' | grep -q pending"

accepted() { systemctl show -P NAccepted policyd-inject.socket; }
n0=$(accepted)
t0=$SECONDS
# The user's loop for LOOP_S: all out, all back in, half a second each.
moves=$(test_user_run timeout "$LOOP_S" bash -c '
        n=0
        trap "echo \$n; exit 0" TERM
        while :; do
                for p in '"$pids"'; do echo "$p" > '"$out_cg"'/cgroup.procs; n=$((n + 1)); done
                sleep 0.5
                for p in '"$pids"'; do echo "$p" > '"$app_cg"'/cgroup.procs; n=$((n + 1)); done
                sleep 0.5
        done' || true)
t_loop=$((SECONDS - t0))
n_loop=$(($(accepted) - n0))
echo "the user moved processes ${moves:-?} times in $t_loop s; PID 1 started $n_loop helper units meanwhile"
# Every mover back inside, whatever the loop was doing when it ended.
for p in $pids; do test_user_run sh -c "echo $p > $app_cg/cgroup.procs"; done

timeout 30 policyctl status >/dev/null || fail "policyd does not answer after the flood"
echo "ok: policyd answers"
# Latest membership wins: each mover ends inside, with KSM.
wait_long 240 "every mover has mg again" all_mg
wait_long 60 "nothing pending or held" bash -c "! policyctl explain 'user@$test_uid/$app' | grep -Eq 'pending|held back'"
t_all=$((SECONDS - t0))
n_all=$(($(accepted) - n0))
policyctl explain "user@$test_uid/$app" | sed -n '/^Processes/,$p'
bound_loop=$((BURST + t_loop / PERIOD + SLACK))
bound_all=$((BURST + t_all / PERIOD + SLACK))
echo "helper units: $n_loop in the loop's $t_loop s (bound $bound_loop), $n_all in $t_all s until settled (bound $bound_all)"
((n_loop <= bound_loop)) ||
        fail "PID 1 started $n_loop policyd-inject@ units in $t_loop s of a user's moves (bound $bound_loop)"
((n_all <= bound_all)) ||
        fail "PID 1 started $n_all policyd-inject@ units in $t_all s from a user's moves (bound $bound_all)"
echo "ok: the helper units stay under the bound"
said=$(journalctl -b -u policyd.service --since "$since" --no-pager -o cat | grep -c 'requests held back' || true)
echo "policyd said it held requests back $said time(s)"
((said <= 3)) || fail "policyd said it held requests back $said times: once a burst, not per event"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: a user's moves cost PID 1 a bounded number of helper units"
