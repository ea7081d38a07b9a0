#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 9: policyd-generator turns PolicyGroup= into MemoryKSM=yes, so
# the service starts with KSM already on: "mg" in its smaps VmFlags.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-ksm '[PolicyGroup]\n[Memory]\nKSM=yes\n'
printf '[Unit]\nPolicyGroup=pgt-ksm\n[Service]\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-ksm.service
systemctl daemon-reload
assert_eq "MemoryKSM from the generator" yes "$(systemctl show -P MemoryKSM pgt-ksm.service)"
systemctl cat pgt-ksm.service | grep -q "policyd-generator\|policy" || fail "no generated drop-in in: $(systemctl cat pgt-ksm.service)"
systemctl start pgt-ksm.service
pid=$(systemctl show -P MainPID pgt-ksm.service)
flags=$(grep '^VmFlags:' "/proc/$pid/smaps" | head -n 1)
grep -qw mg <<<"$flags" || fail "no mg in VmFlags of $pid: $flags"
echo "ok: KSM on from the first instruction: $flags"

# A unit without the group has no mg.
systemd-run --unit=pgt-noksm sleep infinity
pid=$(systemctl show -P MainPID pgt-noksm.service)
if grep '^VmFlags:' "/proc/$pid/smaps" | grep -qw mg; then fail "pgt-noksm has mg too: the check proves nothing"; fi
echo "ok: a unit outside the group has no mg"
