#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The journal (issue 27): policyd's lines about a unit are in "journalctl -u
# UNIT" (OBJECT_SYSTEMD_UNIT=, which journalctl takes from root; UNIT= it
# takes from PID 1 only), and those about a user's app in "journalctl
# --user-unit"; the events carry MESSAGE_ID=, which "journalctl MESSAGE_ID="
# finds and "journalctl -x" explains from the installed catalog
# (tests/vm/guest/install compiles it, as Debian's systemd trigger does).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

# MESSAGE_ID_GROUPS_APPLIED and MESSAGE_ID_CONFIG_VALUE_REFUSED (message-ids.h)
applied=8b23e5116f6f4233a612f8fa05157008
value_refused=541274b356a142bea33e398977b43122

pgt_policy pgt-jfg '[PolicyGroup]\nDescription=journal test\n[Swap]\nSwapHigh=24M\n'
pgt_policy pgt-jbad '[PolicyGroup]\n[Swap]\nSwapMax=lots\n'
pgt_policy pgt-juser '[PolicyGroup]\n[Match]\nUnit=pgt-japp-*.scope\nManager=user\n[Attributes]\nXAttr=user.pgt.juser=yes\n'
cat > /etc/systemd/system/pgt-journal.service <<'UNIT'
[Unit]
X-PolicyGroup=pgt-jfg
[Service]
ExecStart=/bin/sleep infinity
UNIT
systemctl daemon-reload
# The user first, as on a desktop: policyd finds their manager at start.
test_user_setup pgtjrnl
start_policyd
wait_for "policyd follows the systemd of uid $test_uid" \
        bash -c "journalctl -b -u policyd.service --since '$since' -o cat | grep -q 'Following the systemd of uid $test_uid'"
systemctl start pgt-journal.service
path=$cg$(unit_cgroup pgt-journal.service)
wait_for "pgt-journal.service joins pgt-jfg" xattr_is "$path" user.policy.group pgt-jfg

# journal ARGS...: this scenario's lines from policyd, flushed first.
journal() {
        journalctl --sync
        journalctl -b -q --since "$since" --no-pager -t policyd "$@"
}
# (Read whole, then grepped: with pipefail, grep -q leaving early would fail
# the writer with SIGPIPE.)
unit_says() { # LINE-REGEX: policyd's line in journalctl -u pgt-journal.service
        local out
        out=$(journal -o cat -u pgt-journal.service)
        grep -qE "$1" <<<"$out"
}

# 1. journalctl -u shows what policyd did to the unit.
wait_for "journalctl -u pgt-journal.service shows 'Policy groups: pgt-jfg'" unit_says '^Policy groups: pgt-jfg$'
wait_for "journalctl -u pgt-journal.service shows the write" unit_says '^Set memory\.swap\.high=25165824 \(was '
out=$(journal -o verbose -u pgt-journal.service MESSAGE_ID=$applied)
grep -qxF "    OBJECT_SYSTEMD_UNIT=pgt-journal.service" <<<"$out" || fail "no OBJECT_SYSTEMD_UNIT=pgt-journal.service in: $out"
grep -qxF "    UNIT=pgt-journal.service" <<<"$out" || fail "UNIT= is gone: $out"
echo "ok: OBJECT_SYSTEMD_UNIT= and UNIT= on the groups line"

# 2. MESSAGE_ID= finds the events, without naming the unit or the daemon.
out=$(journalctl -b -q --since "$since" --no-pager -o cat MESSAGE_ID=$applied OBJECT_SYSTEMD_UNIT=pgt-journal.service)
assert_eq "journalctl MESSAGE_ID=$applied OBJECT_SYSTEMD_UNIT=pgt-journal.service" "Policy groups: pgt-jfg" "$out"
out=$(journalctl -b -q --since "$since" --no-pager -o cat MESSAGE_ID=$value_refused CONFIG_FILE=/etc/policy.d/pgt-jbad.policy)
grep -qE "pgt-jbad\.policy:3: .*SwapMax=" <<<"$out" || fail "MESSAGE_ID=$value_refused finds no SwapMax=lots: '$out'"
echo "ok: journalctl MESSAGE_ID= finds the refused value"

# 3. The catalog is compiled, and journalctl -x shows its text.
catalog=$(journalctl --list-catalog)
grep -q "^$applied policygroups: " <<<"$catalog" ||
        fail "the catalog database has no $applied: $(grep -c policygroups <<<"$catalog") policygroups entries"
out=$(journal -x -u pgt-journal.service MESSAGE_ID=$applied)
grep -qF "Subject: The policy groups of pgt-journal.service changed" <<<"$out" || fail "journalctl -x shows no catalog text: $out"
grep -qF "Defined-By: policygroups" <<<"$out" || fail "journalctl -x shows no Defined-By: $out"
grep -qF 'policyctl explain pgt-journal.service' <<<"$out" || fail "journalctl -x did not fill in @UNIT@: $out"
echo "ok: journalctl -x explains the groups line"
out=$(journal -x MESSAGE_ID=$value_refused CONFIG_FILE=/etc/policy.d/pgt-jbad.policy)
grep -qF "Subject: A setting of a policy group is ignored" <<<"$out" || fail "journalctl -x shows no catalog text: $out"
echo "ok: journalctl -x explains the refused value"

# 4. A user's app: journalctl --user-unit, and OBJECT_UID= to tell whose.
test_user_scope pgt-japp-one.scope sleep infinity
app=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-japp-one.scope)
wait_for "pgt-japp-one.scope joins pgt-juser" xattr_is "$app" user.policy.group pgt-juser
user_unit_says() { # LINE-REGEX
        local out
        out=$(journal -o cat --user-unit pgt-japp-one.scope)
        grep -qE "$1" <<<"$out"
}
wait_for "journalctl --user-unit pgt-japp-one.scope shows 'Policy groups: pgt-juser'" \
        user_unit_says '^Policy groups: pgt-juser$'
out=$(journal -o verbose --user-unit pgt-japp-one.scope MESSAGE_ID=$applied)
grep -qxF "    OBJECT_SYSTEMD_USER_UNIT=pgt-japp-one.scope" <<<"$out" || fail "no OBJECT_SYSTEMD_USER_UNIT=: $out"
grep -qxF "    OBJECT_UID=$test_uid" <<<"$out" || fail "no OBJECT_UID=$test_uid: $out"
grep -qxF "    OBJECT_SYSTEMD_UNIT=user@$test_uid.service" <<<"$out" || fail "no OBJECT_SYSTEMD_UNIT=user@$test_uid.service: $out"
grep -qxF "    UNIT=user@$test_uid/pgt-japp-one.scope" <<<"$out" || fail "UNIT= is not the subject's name: $out"
echo "ok: a user's app: OBJECT_SYSTEMD_USER_UNIT=, OBJECT_UID=, and user@UID.service"
# Not taken for PID 1's unit of the same name.
out=$(journal -o cat -u pgt-japp-one.scope)
[[ -z $out ]] || fail "journalctl -u pgt-japp-one.scope (PID 1's) shows the user's app: $out"
echo "ok: journalctl -u of PID 1's pgt-japp-one.scope shows nothing of the user's"
