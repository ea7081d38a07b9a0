#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 5: a group removed and reloaded: what it set is undone, the
# administrator's own values come back, and values set by others stay.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-gone '[PolicyGroup]\n[Swap]\nSwapMax=72M\nSwapHigh=36M\n[Attributes]\nXAttr=user.slo.class=gone\n'
# The administrator's own MemorySwapMax must come back, not infinity.
printf '[Unit]\nX-PolicyGroup=pgt-gone\n[Service]\nMemorySwapMax=1G\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/pgt-gone.service
systemctl daemon-reload
start_policyd
systemctl start pgt-gone.service
path=$cg$(unit_cgroup pgt-gone.service)
wait_for "policyd set MemorySwapMax" test "$(systemctl show -P MemorySwapMax pgt-gone.service)" = 75497472
wait_for "policyd set swap.high" file_is "$path/memory.swap.high" 37748736

# Someone else's xattr, set after policyd, must survive the undo.
setfattr -n user.other -v mine "$path"

rm /etc/policy.d/pgt-gone.policy
policyctl reload
wait_for "tag removed" bash -c "! getfattr --absolute-names -n user.policy.group '$path'"
assert_no_xattr "$path" user.slo.class
assert_xattr "$path" user.other mine
wait_for "swap.high restored" file_is "$path/memory.swap.high" max
wait_for "the unit file's MemorySwapMax is back" test "$(systemctl show -P MemorySwapMax pgt-gone.service)" = 1073741824
assert_file_eq "$path/memory.swap.max" 1073741824
