#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 5: a group removed and reloaded: what it set is undone, the
# administrator's own MemorySwapMax= comes back (not infinity), and values
# set by others stay. Two paths: a unit that names the group in its file
# (policyd-generator wrote its properties; policyd restores the unit
# file's value at runtime, never runs a daemon-reload itself, and says the
# unit needs one) and a unit that joins by [Match] (policyd set the
# property at runtime and restores the recorded value).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-gone '[PolicyGroup]\n[Match]\nUnit=pgt-matched.service\n[Swap]\nSwapMax=72M\nSwapHigh=36M\n[Attributes]\nXAttr=user.slo.class=gone\n'
printf '[Unit]\nX-PolicyGroup=pgt-gone\n[Service]\nMemorySwapMax=1G\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/pgt-named.service
printf '[Service]\nMemorySwapMax=1G\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-matched.service
systemctl daemon-reload
start_policyd
systemctl start pgt-named.service pgt-matched.service

for u in pgt-named pgt-matched; do
        path=$cg$(unit_cgroup $u.service)
        wait_for "$u: MemorySwapMax from the group" prop_is $u.service MemorySwapMax 75497472
        wait_for "$u: swap.high" file_is "$path/memory.swap.high" 37748736
        wait_for "$u: tag" xattr_is "$path" user.policy.group pgt-gone
        # Someone else's xattr, set after policyd, must survive the undo.
        setfattr -n user.other -v mine "$path"
done

rm /etc/policy.d/pgt-gone.policy
reloaded_at=$(date '+%Y-%m-%d %H:%M:%S')
policyctl reload

for u in pgt-named pgt-matched; do
        path=$cg$(unit_cgroup $u.service)
        wait_for "$u: tag removed" bash -c "! getfattr --absolute-names -n user.policy.group '$path'"
        assert_no_xattr "$path" user.slo.class
        assert_xattr "$path" user.other mine
        wait_for "$u: swap.high restored" file_is "$path/memory.swap.high" max
        wait_for "$u: the unit file's MemorySwapMax is back" prop_is $u.service MemorySwapMax 1073741824
        assert_file_eq "$path/memory.swap.max" 1073741824
done
# No daemon-reload behind the administrator's back.
if journalctl -b _PID=1 --since "$reloaded_at" --no-pager -o cat | has '^Reloading'; then
        fail "systemd reloaded after 'policyctl reload': $(journalctl -b _PID=1 --since "$reloaded_at" -o cat | grep Reloading)"
fi
echo "ok: no daemon-reload"
need_reload() { policyctl --json status | grep -o '"units_need_daemon_reload":[0-9]*' | cut -d: -f2; }
n=$(need_reload)
assert_eq "units needing a daemon-reload (pgt-named's generator drop-in is stale)" 1 "$n"
policyctl explain pgt-named.service | has "systemctl daemon-reload" || fail "explain does not mark pgt-named: $(policyctl explain pgt-named.service)"
echo "ok: explain marks pgt-named"

policyctl reload --daemon-reload
no_reload_needed() { [[ $(need_reload) == 0 ]]; }
wait_for "no unit needs a daemon-reload any more" no_reload_needed
if grep -qs pgt-gone /run/systemd/generator/pgt-named.service.d/50-policy-groups.conf; then
        fail "the generator's drop-in still names pgt-gone after --daemon-reload"
fi
echo "ok: the generator's drop-in follows after --daemon-reload"
assert_eq "pgt-named MemorySwapMax after the daemon-reload" 1073741824 "$(systemctl show -P MemorySwapMax pgt-named.service)"
assert_file_eq "$cg$(unit_cgroup pgt-named.service)/memory.swap.max" 1073741824
