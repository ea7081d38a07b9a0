#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cgroups removed while policyd applies to them: 120 units, of which 60
# are stopped in the middle of the apply storm. No crash, not one message
# at warning level or above from policyd (a vanished cgroup is debug
# noise), the 60 that stay converge, and policyd keeps no record of what
# it wrote on the cgroups that went.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

printf '[Service]\nSlice=pgt-vanish.slice\nExecStart=/bin/sleep infinity\n' > /etc/systemd/system/pgt-vn@.service
systemctl daemon-reload
mapfile -t stay < <(seq -f 'pgt-vn@%g.service' 1 60)
mapfile -t go < <(seq -f 'pgt-vn@%g.service' 61 120)
systemctl start "${stay[@]}" "${go[@]}"
slice=$cg$(dirname "$(unit_cgroup "${stay[0]}")")
dirs=("${stay[@]/#/$slice/}")
pgt_policy pgt-vanish '[PolicyGroup]\n[Match]\nSlice=pgt-vanish.slice\n[Swap]\nSwapMax=40M\nSwapHigh=20M\n[Attributes]\nXAttr=user.slo.class=vanish\n'

echo "started the units ($SECONDS s into the scenario)"
start_policyd
stopped=
for _ in $(seq 1 1200); do
        k=$(count_xattr user.policy.group pgt-vanish "${dirs[@]}" "${go[@]/#/$slice/}")
        if (( k >= 10 )); then
                systemctl stop "${go[@]}"
                stopped=$k
                break
        fi
        sleep 0.1
done
[[ -n $stopped ]] || fail "policyd tagged fewer than 10 of 120 units in 120 s"
(( stopped < 120 )) || fail "policyd had applied all 120 units before they were stopped"
echo "ok: stopped 60 units with $stopped of 120 tagged"

wait_long 200 "the 60 that stay are tagged" all_are 60 count_xattr user.policy.group pgt-vanish "${dirs[@]}"
wait_long 60 "the 60 that stay have MemorySwapMax=40M" all_are 60 count_prop MemorySwapMax 41943040 "${stay[@]}"
assert_eq "memory.swap.high 20M" 60 "$(count_file memory.swap.high 20971520 "${dirs[@]}")"
assert_eq "user.slo.class" 60 "$(count_xattr user.slo.class vanish "${dirs[@]}")"

# The stopped units' reads may still be queued when the others converge:
# policyd's count of members follows within a bounded time.
members() { policyctl --json show pgt-vanish | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["members"]))'; }
wait_long 60 "policyd counts the 60 that stay as members" all_are 60 members
# What was written on a cgroup that went is forgotten with it.
left=$(busctl call org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 \
        org.policygroups.PolicyGroups1.Manager Dump --json=short | python3 -c '
import json, sys
d = json.loads(json.loads(sys.stdin.read())["data"][0])
gone = {"pgt-vn@%d.service" % i for i in range(61, 121)}
print(" ".join(t["unit"] for t in d["targets"] if t["unit"] in gone and t["written"]))')
assert_eq "records of cgroups that went" "" "$left"

sleep 2
journalctl --sync
noise=$(journalctl -b _SYSTEMD_UNIT=policyd.service --since "$since" -p warning --no-pager -o cat)
[[ -z $noise ]] || fail "policyd logged at warning level or above: $(head -n 20 <<<"$noise")"
echo "ok: nothing at warning level or above from policyd"
echo "done ($SECONDS s into the scenario)"
