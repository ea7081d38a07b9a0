#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 5: a group removed and reloaded: what it set is undone, the
# administrator's own MemorySwapMax= comes back (not infinity), and values
# set by others stay. Two paths: a unit that names the group in its file
# (policyd-generator wrote its properties; policyd has systemd reload so
# the drop-in goes) and a unit that joins by [Match] (policyd set the
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
policyd_log | grep -q "asking systemd to reload" || fail "policyd did not ask systemd to reload for the named group"
echo "ok: policyd had systemd run the generator again"
