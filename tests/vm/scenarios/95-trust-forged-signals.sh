#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, attack 4: systemd's signals come from systemd. Anyone on the
# system bus may send policyd a unicast signal under systemd's path and
# interface. As uid 65534, forged UnitRemoved, Reloading, JobRemoved and
# NameOwnerChanged must change nothing: root's runtime assignment of a
# running service keeps its xattr and its member entry, and policyd does
# not re-read its units. A real daemon-reload is still followed.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-fs '[PolicyGroup]\n[Attributes]\nXAttr=user.pgt.fs=yes\n'
systemd-run --quiet --unit=pgt-fs-victim.service sleep infinity
wait_for "pgt-fs-victim.service is running" prop_is pgt-fs-victim.service SubState running
victim=$cg$(unit_cgroup pgt-fs-victim.service)
start_policyd
policyctl assign pgt-fs-victim.service pgt-fs
wait_for "root's assignment is applied" xattr_is "$victim" user.policy.group pgt-fs

said_count() { policyd_log | grep -c "$1" || true; }
member() { policyctl show pgt-fs | grep -qF pgt-fs-victim.service; }
member || fail "policyctl show pgt-fs does not list pgt-fs-victim.service: $(policyctl show pgt-fs)"
owner=$(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s \
        org.policygroups.PolicyGroups1 | sed 's/^s "\(.*\)"$/\1/')
[[ $owner == :* ]] || fail "no unique name for policyd: $owner"
rereads=$(said_count "re-reading all units")

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
forge() { nobody busctl emit --destination="$owner" "$@"; }
path=/org/freedesktop/systemd1/unit/pgt_2dfs_2dvictim_2eservice
M=org.freedesktop.systemd1.Manager
forge /org/freedesktop/systemd1 $M UnitRemoved so pgt-fs-victim.service $path ||
        fail "uid 65534 could not send a signal to policyd (the bus refused it): the attack cannot run here"
for i in $(seq 1 10); do
        forge /org/freedesktop/systemd1 $M Reloading b true
        forge /org/freedesktop/systemd1 $M UnitRemoved so pgt-fs-victim.service $path
        forge /org/freedesktop/systemd1 $M Reloading b false
        forge /org/freedesktop/systemd1 $M JobRemoved uoss "$i" /org/freedesktop/systemd1/job/1 \
                pgt-fs-victim.service done
done
forge /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss org.freedesktop.systemd1 ":1.1" ""
forge /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss org.freedesktop.systemd1 "" ":1.1"
echo "sent 43 forged signals as uid 65534"
# policyd answers after them: everything before is handled.
policyctl status > /dev/null || fail "policyd does not answer"
sleep 3
policyctl status > /dev/null || fail "policyd does not answer"

assert_xattr "$victim" user.policy.group pgt-fs
assert_xattr "$victim" user.pgt.fs yes
member || fail "the forged UnitRemoved dropped root's assignment: $(policyctl show pgt-fs)"
echo "ok: root's assignment and its xattrs stay"
n=$(( $(said_count "re-reading all units") - rereads ))
(( n == 0 )) || fail "the forged Reloading made policyd re-read all units $n times"
echo "ok: no re-read of all units after the forged signals"

# The real systemd is still heard: a daemon-reload is followed.
systemctl daemon-reload
wait_for "a real daemon-reload is followed" \
        bash -c "journalctl -b -u policyd.service --since '$since' -o cat | grep -c 're-reading all units' | grep -qx $((rereads + 1))"
member || fail "root's assignment went after a real daemon-reload"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
