#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# polkit for administrators who are not root (issue 27): policyd asks
# polkit only where its own rule refuses a caller. A polkit rule of the
# administrator's lets the members of group pgtadm assign a root service to
# a group without AllowSelfAssign=, take it out again and reload; a user who
# is not a member is refused as before, and nothing changes. Without the
# rule, polkit's default (auth_admin) needs a password that nobody can type
# here (no terminal, no agent): refused too. A user's self-assignment never
# asks polkit. Judged by the service's cgroup xattr and policyd's records.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
rules=/etc/polkit-1/rules.d/50-pgt-admins.rules
pk_cleanup() {
        rm -f "$rules"
        userdel pgtpkadm 2>/dev/null || true
        userdel pgtpkusr 2>/dev/null || true
        groupdel pgtadm 2>/dev/null || true
        pgt_cleanup
}
trap pk_cleanup EXIT

[[ -e /usr/share/dbus-1/system-services/org.freedesktop.PolicyKit1.service ]] ||
        skip "polkit is not installed in this guest"
action=/usr/share/polkit-1/actions/org.policygroups.PolicyGroups1.policy
[[ -f $action ]] || fail "$action is not installed"

groupadd -f pgtadm
id pgtpkadm >/dev/null 2>&1 || useradd --no-create-home --groups pgtadm pgtpkadm
id pgtpkusr >/dev/null 2>&1 || useradd --no-create-home pgtpkusr
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }

pgt_policy pgt-pk '[PolicyGroup]\n[Attributes]\nXAttr=user.pgt.pk=yes\n'
systemd-run --quiet --unit=pgt-pk.service sleep infinity
start_policyd
path=$cg$(unit_cgroup pgt-pk.service)

# The administrator's rule: members of pgtadm, for policygroups' actions.
mkdir -p "$(dirname "$rules")"
cat > "$rules" <<'RULES'
polkit.addRule(function(action, subject) {
        if (action.id.indexOf("org.policygroups.PolicyGroups1.") == 0 && subject.isInGroup("pgtadm"))
                return polkit.Result.YES;
});
RULES
# polkitd reads rules.d again when it changes; it may not run yet at all.
sleep 2

expect_refused() { # WHAT CMD...: exit 4, and nothing changed
        local what=$1 out rc=0
        shift
        out=$("$@" 2>&1) || rc=$?
        [[ $rc == 4 ]] || fail "$what: exit $rc, not 4 (Permission denied): $out"
        echo "ok: refused, $what: $out"
}

expect_refused "a user not in pgtadm assigns root's service" as pgtpkusr policyctl assign pgt-pk.service pgt-pk
sleep 2
if xattr_is "$path" user.policy.group pgt-pk; then
        fail "pgt-pk.service joined pgt-pk on a refused call"
fi
out=$(as pgtpkadm policyctl assign pgt-pk.service pgt-pk 2>&1) ||
        fail "a member of pgtadm could not assign root's service: $out"
wait_for "pgt-pk.service joined pgt-pk by the administrator's call" xattr_is "$path" user.policy.group pgt-pk
assert_xattr "$path" user.pgt.pk yes
policyd_log | grep -q "joined group 'pgt-pk' at runtime, by uid $(id -u pgtpkadm) as an administrator (polkit)" ||
        fail "policyd does not say who assigned it, and how: $(policyd_log | tail -5)"
echo "ok: a member of pgtadm assigned root's service, and policyd says by whom"
grep -qP "^\+\tpgt-pk.service\tpgt-pk$" /run/policyd/assignments ||
        fail "the assignment is not recorded as an administrator's: $(cat /run/policyd/assignments)"
echo "ok: recorded as an administrator's (no uid: root's), so it holds whoever owns the cgroup"

expect_refused "a user not in pgtadm unassigns it" as pgtpkusr policyctl unassign pgt-pk.service pgt-pk
xattr_is "$path" user.policy.group pgt-pk || fail "the refused unassign took pgt-pk.service out"
expect_refused "a user not in pgtadm reloads" as pgtpkusr policyctl reload
as pgtpkadm policyctl reload >/dev/null 2>&1 || fail "a member of pgtadm could not reload"
echo "ok: a member of pgtadm reloads"

# Without the rule: polkit's default, auth_admin, and nobody to type a password.
rm -f "$rules"
sleep 2
expect_refused "a member of pgtadm without the rule, and no agent" as pgtpkadm policyctl unassign pgt-pk.service pgt-pk
xattr_is "$path" user.policy.group pgt-pk || fail "pgt-pk.service left pgt-pk without authorization"
policyctl unassign pgt-pk.service pgt-pk >/dev/null
wait_for "root took pgt-pk.service out" bash -c "! getfattr -n user.policy.group '$path' >/dev/null 2>&1"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
