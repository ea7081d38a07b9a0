#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# systemctl daemon-reexec while policyd applies a group to 100 units:
# systemd leaves the bus with policyd's calls in flight and comes back.
# policyd neither crashes nor restarts (same MainPID), and every unit
# converges: tag, memory.swap.high, and MemorySwapMax in systemd and in the
# kernel.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

printf '[Service]\nSlice=pgt-reexec.slice\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-rx@.service
systemctl daemon-reload
mapfile -t units < <(seq -f 'pgt-rx@%g.service' 1 100)
n=${#units[@]}
systemctl start "${units[@]}"
slice=$cg$(dirname "$(unit_cgroup "${units[0]}")")
dirs=("${units[@]/#/$slice/}")
pgt_policy pgt-reexec '[PolicyGroup]\n[Match]\nSlice=pgt-reexec.slice\n[Swap]\nSwapMax=40M\nSwapHigh=20M\n'

echo "started the units ($SECONDS s into the scenario)"
start_policyd
pid=$(systemctl show -P MainPID policyd.service)
reexeced=
for _ in $(seq 1 1200); do
        k=$(count_xattr user.policy.group pgt-reexec "${dirs[@]}")
        if (( k >= 10 )); then
                systemctl daemon-reexec
                reexeced=$k
                break
        fi
        sleep 0.1
done
[[ -n $reexeced ]] || fail "policyd tagged fewer than 10 of $n units in 120 s"
(( reexeced < n )) || fail "policyd had applied all $n units before daemon-reexec: nothing was in flight"
echo "ok: daemon-reexec with $reexeced of $n units tagged"

wait_long 200 "all $n units tagged" all_are "$n" count_xattr user.policy.group pgt-reexec "${dirs[@]}"
wait_long 60 "all $n units have MemorySwapMax=40M" all_are "$n" count_prop MemorySwapMax 41943040 "${units[@]}"
assert_eq "memory.swap.max 40M in the kernel" "$n" "$(count_file memory.swap.max 41943040 "${dirs[@]}")"
assert_eq "memory.swap.high 20M" "$n" "$(count_file memory.swap.high 20971520 "${dirs[@]}")"
assert_eq "policyd's MainPID (no crash, no restart)" "$pid" "$(systemctl show -P MainPID policyd.service)"
policyctl status >/dev/null || fail "policyctl status failed after daemon-reexec"
echo "ok: policyd answers"
echo "done ($SECONDS s into the scenario)"
