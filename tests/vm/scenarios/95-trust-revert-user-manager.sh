#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A user holds up the package's removal. The Debian package's prerm runs
# policyd --revert as root; it followed every user's own systemd, whether or
# not a record named one of their units. The user freezes theirs (SIGSTOP on
# their own systemd --user: each call to it then waits until sd-bus gives
# up), so every removal waited on them; a server of theirs behind the socket
# could hold it for ever (then bounded at 120 s, see policyd(8) --revert).
# Judged by root's unit: --revert undoes its attribute, exits 0, and never
# asks the frozen manager anything.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
mgr=
trap '[[ -z $mgr ]] || kill -CONT "$mgr" 2>/dev/null; test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-rvu '[PolicyGroup]\n[Match]\nUnit=pgt-rvu.service\n[Attributes]\nXAttr=user.pgt.rvu=yes\n'
systemd-run --quiet --unit=pgt-rvu.service sleep infinity
wait_for "root's pgt-rvu.service is running" prop_is pgt-rvu.service SubState running
victim=$cg$(unit_cgroup pgt-rvu.service)

test_user_setup pgtrvu
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" bash -c \
        "journalctl -b -q -o cat -u policyd.service --since '$since' | grep -q 'Following the systemd of uid $test_uid'"
wait_for "pgt-rvu.service has its group's attribute" xattr_is "$victim" user.pgt.rvu yes
systemctl stop policyd.service

# The user freezes their own manager: their process, their signal.
mgr=$(systemctl show -P MainPID user@"$test_uid".service)
runuser -u "$test_user" -- kill -STOP "$mgr" || fail "$test_user could not stop their own manager $mgr"
echo "ok: $test_user stopped their systemd --user (PID $mgr)"

rc=0
out=$(timeout 300 /usr/libexec/policyd --revert 2>&1) || rc=$?
kill -CONT "$mgr"
mgr=
printf '%s\n' "$out" | tail -n 8
if grep -q "Following the systemd of uid $test_uid" <<<"$out"; then
        fail "--revert asked the user's frozen manager, though no record names a unit of theirs"
fi
echo "ok: --revert did not follow the systemd of uid $test_uid"
assert_eq "policyd --revert exit status" 0 "$rc"
assert_no_xattr "$victim" user.pgt.rvu
