#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A user's budget of injector requests, without a move. policyd charges
# the requests for a user's processes to the owner of their cgroup (20 at
# once, then 10 a second; process-inject.c). On main the charge came only
# with a write to cgroup.procs: any other reason to read a cgroup was
# free. An unprivileged user self-assigns their app scope to a group with
# KSM=yes and ApplyToRunning=yes, forks many processes in it (a fork is no
# inotify event), then makes a cgroup below it: policyd reads the scope
# again (IN_CREATE) and asks the injector for each new process, for free.
# Judged: that burst is held back as the budget says (explain shows
# "held back" for some of the processes, the journal says so once), and
# every process still ends with KSM (mg in smaps); policyd keeps running.
# Seen before the fix: 80 processes, 80 requests at once, none held back.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

N=80
pgt_policy pgt-mkdir '[PolicyGroup]\nAllowSelfAssign=yes\nApplyToRunning=yes\n[Memory]\nKSM=yes\n'
start_policyd
systemctl start policyd-inject.socket

test_user_setup pgtmkdir
app=app-pgtmkdir.scope
go=/tmp/pgt-mkdir.go
rm -f "$go"
# The scope's shell waits for the word, then forks N sleeps and makes a
# cgroup below its own: no write to cgroup.procs anywhere.
test_user_scope "$app" bash -c "
        while [[ ! -e $go ]]; do sleep 0.2; done
        for i in \$(seq 1 $N); do sleep \$((2000000 + i)) & done
        mkdir \"/sys/fs/cgroup\$(cut -d: -f3 /proc/self/cgroup)/below\"
        wait"
app_cg=$test_user_cgroup/app.slice/$app
wait_for "policyd knows the app as user@$test_uid/$app" policyctl explain "user@$test_uid/$app"
res=$(test_user_run policyctl --user assign "$app" pgt-mkdir 2>&1) || fail "--user assign $app failed: $res"
echo "ok: $res"
shell=$(head -n 1 "$app_cg/cgroup.procs")
wait_long 120 "the scope's shell ($shell) has mg" bash -c "grep '^VmFlags:' /proc/$shell/smaps | grep -qw mg"
wait_long 60 "nothing pending" bash -c "! policyctl explain 'user@$test_uid/$app' | grep -q pending"

since_burst=$(date '+%Y-%m-%d %H:%M:%S')
runuser -u "$test_user" -- touch "$go"
wait_for "the cgroup below the scope exists" test -d "$app_cg/below"
held=0
for _ in $(seq 1 40); do
        if policyctl explain "user@$test_uid/$app" | has 'held back'; then
                held=1
                break
        fi
        sleep 0.25
done
policyctl explain "user@$test_uid/$app" | awk '/^Processes/ { p = 1 } p && n++ < 20'
all_mg() {
        local p n=0
        for p in $(pgrep -f '^sleep 20000[0-9][0-9]$'); do
                grep '^VmFlags:' "/proc/$p/smaps" | grep -qw mg || return 1
                n=$((n + 1))
        done
        ((n == N))
}
wait_long 240 "all $N forked processes have mg" all_mg
said=$(journalctl -b -u policyd.service --since "$since_burst" --no-pager -o cat | grep -c 'requests held back' || true)
echo "policyd said it held requests back $said time(s)"
((held == 1)) || fail "$N processes forked in the user's scope and a mkdir there: no request was held back"
((said >= 1)) || fail "policyd did not say that it held the user's requests back"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: a mkdir in a user's cgroup does not get around the user's budget of injector requests"
