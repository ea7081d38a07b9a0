#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 1: X-PolicyGroup= in a unit file. At start the unit's cgroup has
# user.policy.group and the group's swap settings; systemctl show agrees.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-fg '[PolicyGroup]\nDescription=test foreground\n[Swap]\nSwapMax=48M\nSwapHigh=24M\nZSwapMax=8M\n[Attributes]\nXAttr=user.slo.class=latency\n'
cat > /etc/systemd/system/pgt-one.service <<'UNIT'
[Unit]
X-PolicyGroup=pgt-fg
[Service]
ExecStart=/bin/sleep infinity
UNIT
systemctl daemon-reload
start_policyd
systemctl start pgt-one.service
path=$cg$(unit_cgroup pgt-one.service)

wait_for "user.policy.group on pgt-one" xattr_is "$path" user.policy.group pgt-fg
assert_xattr "$path" user.slo.class latency
wait_for "MemorySwapMax through systemd" prop_is pgt-one.service MemorySwapMax 50331648
assert_file_eq "$path/memory.swap.max" 50331648
assert_file_eq "$path/memory.swap.high" 25165824
assert_eq "MemoryZSwapMax" 8388608 "$(systemctl show -P MemoryZSwapMax pgt-one.service)"
assert_file_eq "$path/memory.zswap.max" 8388608
