#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The intent log under a user's flood (issue 23, attack 5): a user puts
# 60000-byte values on the xattrs that policyd writes on their own app
# cgroups, and flips the apps' focus in a loop. Each write records the
# value it replaced. Judged: /run/policyd stays under 512 KiB all along (a
# previous value over 4 KiB is recorded as a digest, only changes are
# appended, and the log is checkpointed at 256 KiB; the rest is a record of
# a few KiB per app); after a kill -9 of policyd the restart replays the log, the
# log goes, and when the groups go the user's small values come back
# exactly (the big ones are not restored, as policyd(8) says). The apps
# are services of the user's own manager, strictly below user@UID.service:
# on a delegation root the user's attributes select nothing
# (95-trust-delegation-attrs.sh).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT
test_user_setup pgtflood
user=$test_user
as_user() { setpriv --reuid="$user" --regid="$user" --clear-groups "$@"; }

apps='[Match]\nUnit=pgt-app-*.service\nManager=user\n'
pgt_policy pgt-fg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=yes\n[Attributes]\nXAttr=user.pgt.mark=fg\n"
pgt_policy pgt-bg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=no\n[Attributes]\nXAttr=user.pgt.mark=bg\n"
start_policyd

# Apps 1-4 get a 60000-byte value, apps 5-6 a small one of their own.
big=$(head -c 60000 /dev/zero | tr '\0' 'a')
n=6
paths=()
for i in $(seq 1 $n); do
        test_user_run systemd-run --user --quiet --unit=pgt-app-$i sleep infinity
done
for i in $(seq 1 $n); do
        wait_long 60 "pgt-app-$i.service runs" test_user_unit_is pgt-app-$i.service running
        p=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-app-$i.service)
        [[ $(stat -c %U "$p") == "$user" ]] || fail "$p is not owned by $user"
        paths+=("$p")
        if (( i <= 4 )); then
                as_user setfattr -n user.pgt.mark -v "$big" "$p"
        else
                as_user setfattr -n user.pgt.mark -v "mine-$i" "$p"
        fi
        as_user setfattr -n user.xdg.inactive-since -v -1 "$p"
done
wait_for "app 1 joined pgt-fg" xattr_is "${paths[0]}" user.pgt.mark fg

size_of_state() { du -sb --apparent-size /run/policyd | cut -f1; }
max=0
flips=0
# A bounded flood: 8 rounds over all the apps, no waiting for policyd.
for round in $(seq 1 8); do
        for p in "${paths[@]}"; do
                if (( round % 2 )); then v=1; else v=-1; fi
                as_user setfattr -n user.xdg.inactive-since -v "$v" "$p"
                flips=$((flips + 1))
        done
        s=$(size_of_state)
        (( s > max )) && max=$s
done
echo "$flips focus flips; /run/policyd peaked at $max bytes (sampled each round)"
ls -la /run/policyd
bound=$((512 * 1024))
(( max <= bound )) || fail "/run/policyd grew to $max bytes, over $bound"

# Killed while the log holds lines (flips go on meanwhile): the restart
# carries them into the records, and empties the log.
flip_rounds() {
        local round p v
        for round in 1 2 3; do
                for p in "${paths[@]}"; do
                        if (( round % 2 )); then v=-1; else v=1; fi
                        as_user setfattr -n user.xdg.inactive-since -v "$v" "$p"
                done
        done
}
pid=$(systemctl show -P MainPID policyd.service)
echo "SIGKILL $pid" >> /run/pg-vm/deliberate-kills   # as kill_policyd, which is too slow here
flip_rounds &
flipper=$!
# A checkpoint empties the log a second after its last line: kill at once.
start=$SECONDS
until [[ -s /run/policyd/cgroups.intent ]]; do
        (( SECONDS - start < 60 )) || fail "no line reached the intent log"
done
kill -KILL "$pid"
log_size=$(stat -c %s /run/policyd/cgroups.intent 2>/dev/null || echo 0)
echo "killed policyd ($pid) with SIGKILL; the intent log holds $log_size bytes"
wait $flipper
(( log_size > 0 )) || fail "the intent log was emptied before the kill"
start_policyd
# The last round (3) gave every app focus.
for p in "${paths[@]}"; do wait_for "pgt-fg on $p" xattr_is "$p" user.pgt.mark fg; done
wait_long 60 "the intent log emptied after the restart" \
        bash -c '[[ ! -s /run/policyd/cgroups.intent ]]'
policyd_log | grep -E "Carried|intent|too large|malformed" || true
! policyd_log | grep -qi "too large" || fail "policyd could not read its log"
! policyd_log | grep -qi "malformed" || fail "policyd found malformed lines in its own log"
policyd_log | grep -qE "Carried [0-9]+ records? written ahead" || fail "the restart carried nothing over"

# The groups go: the small values come back exactly, the big ones are not
# restored (recorded as a digest), and policyd's value goes from them.
rm -f /etc/policy.d/pgt-fg.policy /etc/policy.d/pgt-bg.policy
policyctl reload
for i in 5 6; do wait_for "app $i has its own value back" xattr_is "${paths[i-1]}" user.pgt.mark "mine-$i"; done
for i in 1 2 3 4; do
        wait_for "policyd's value gone from app $i" bash -c "! getfattr --absolute-names -n user.pgt.mark '${paths[i-1]}' 2>/dev/null | grep -qE '\"(fg|bg)\"'"
done
s=$(size_of_state)
(( s <= bound )) || fail "/run/policyd holds $s bytes at the end"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
