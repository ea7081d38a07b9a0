#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 4: after daemon-reload, a unit restart and a restart of policyd,
# every value is still right, and the re-adopting policyd wrote nothing.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-keep '[PolicyGroup]\n[Swap]\nSwapMax=56M\nSwapHigh=28M\n[Attributes]\nXAttr=user.slo.class=keep\n'
printf '[Unit]\nX-PolicyGroup=pgt-keep\n[Service]\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-keep.service
systemctl daemon-reload
start_policyd
systemctl start pgt-keep.service

check_all() {
        local path
        path=$cg$(unit_cgroup pgt-keep.service)
        wait_for "$1: tag" xattr_is "$path" user.policy.group pgt-keep
        wait_for "$1: swap.high" file_is "$path/memory.swap.high" 29360128
        wait_for "$1: MemorySwapMax" prop_is pgt-keep.service MemorySwapMax 58720256
        assert_file_eq "$path/memory.swap.max" 58720256
        assert_xattr "$path" user.slo.class keep
}
check_all "first start"

systemctl daemon-reload
sleep 3
check_all "after daemon-reload"

systemctl restart pgt-keep.service
check_all "after a unit restart"

# daemon-reexec: systemd leaves the bus and comes back; policyd must
# subscribe again, or it would never hear of units started after it.
systemctl daemon-reexec
sleep 3
check_all "after daemon-reexec"
printf '[Unit]\nX-PolicyGroup=pgt-keep\n[Service]\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-late.service
systemctl daemon-reload
systemctl start pgt-late.service
late=$cg$(unit_cgroup pgt-late.service)
wait_for "a unit started after daemon-reexec gets its group" xattr_is "$late" user.policy.group pgt-keep
# All of it, before the restart below: the tag is written first, and a
# restart in between would leave the rest to the next policyd, which the
# check of its writes would count.
wait_for "pgt-late.service has the group's attribute" xattr_is "$late" user.slo.class keep
wait_for "pgt-late.service has the group's swap.high" file_is "$late/memory.swap.high" 29360128
wait_for "pgt-late.service has the group's MemorySwapMax" prop_is pgt-late.service MemorySwapMax 58720256

systemctl restart policyd.service
# The new policyd's lines by its PID: --since has whole seconds, and the
# old one's last writes can share the second of the restart.
new_pid=$(systemctl show -P MainPID policyd.service)
sleep 5
check_all "after a policyd restart"
writes=$(journalctl -b -u policyd.service _PID="$new_pid" --no-pager -o cat | grep -E '^(Set|Undid) ' || true)
assert_eq "writes by the re-adopting policyd" "" "$writes"
