#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 2: PolicyGroup= in a drop-in, naming two groups whose settings
# merge by Priority; the tag names both.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-low '[PolicyGroup]\nPriority=10\n[Swap]\nSwapMax=40M\nSwapHigh=20M\n[Attributes]\nXAttr=user.slo.class=low\n'
pgt_policy pgt-high '[PolicyGroup]\nPriority=90\n[Swap]\nSwapMax=80M\n[Attributes]\nXAttr=user.slo.class=high\n'
cat > /etc/systemd/system/pgt-two.service <<'UNIT'
[Service]
ExecStart=/bin/sleep infinity
UNIT
mkdir -p /etc/systemd/system/pgt-two.service.d
cat > /etc/systemd/system/pgt-two.service.d/50-groups.conf <<'UNIT'
[Service]
PolicyGroup=pgt-low pgt-high
UNIT
systemctl daemon-reload
start_policyd
systemctl start pgt-two.service
path=$cg$(unit_cgroup pgt-two.service)

wait_for "both groups in the tag" xattr_is "$path" user.policy.group pgt-high,pgt-low
# SwapMax from the higher priority, SwapHigh from the only group setting it.
wait_for "MemorySwapMax from pgt-high" prop_is pgt-two.service MemorySwapMax 83886080
assert_file_eq "$path/memory.swap.high" 20971520
assert_xattr "$path" user.slo.class high
