#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Policy files not owned by root, or writable by others (or by the group),
# are refused with a warning that names the file, in policyctl verify and
# in policyd's journal; their groups are not loaded and change nothing. A
# drop-in refused the same way leaves its group loaded without it.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

id pgfuzz >/dev/null 2>&1 || useradd --system --no-create-home pgfuzz
pgt_policy pgt-foreign '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapHigh=4M\n'
chown pgfuzz: /etc/policy.d/pgt-foreign.policy
pgt_policy pgt-worldw '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapHigh=5M\n'
chmod 0666 /etc/policy.d/pgt-worldw.policy
pgt_policy pgt-groupw '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapHigh=6M\n'
chmod 0664 /etc/policy.d/pgt-groupw.policy
pgt_policy pgt-good '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapMax=40M\n'
mkdir -p /etc/policy.d/pgt-good.policy.d
printf '[Swap]\nSwapMax=1M\nSwapHigh=1M\n' > /etc/policy.d/pgt-good.policy.d/50-evil.conf
chmod 0666 /etc/policy.d/pgt-good.policy.d/50-evil.conf
refused=(/etc/policy.d/pgt-foreign.policy /etc/policy.d/pgt-worldw.policy /etc/policy.d/pgt-groupw.policy
         /etc/policy.d/pgt-good.policy.d/50-evil.conf)

set +e
out=$(policyctl verify 2>&1)
rc=$?
set -e
echo "$out" | grep pgt- || true
for f in "${refused[@]}"; do
        grep -E "^$f: warning: .*refusing it" <<<"$out" >/dev/null || fail "policyctl verify has no warning naming $f"
done
echo "ok: policyctl verify warns about each refused file"
# Refused files are warnings: verify fails only if something else is wrong.
if [[ $rc != 0 ]] && ! grep -q ': error: ' <<<"$out"; then
        fail "policyctl verify exited $rc with warnings only"
fi
listed=$(policyctl list 2>/dev/null | awk '{ print $1 }' | grep '^pgt-' | tr '\n' ' ')
assert_eq "groups policyctl list loads" "pgt-good " "$listed"

systemd-run --unit=pgt-victim sleep infinity
path=$cg$(unit_cgroup pgt-victim.service)
start_policyd
wait_for "the good group applies" prop_is pgt-victim.service MemorySwapMax 41943040
sleep 2
assert_xattr "$path" user.policy.group pgt-good
assert_file_eq "$path/memory.swap.high" max
assert_file_eq "$path/memory.swap.max" 41943040

log=$(policyd_log)
for f in "${refused[@]}"; do
        grep -F "$f" <<<"$log" | grep -q "refusing it" || fail "policyd's journal has no warning naming $f"
        prio=$(journalctl -b _SYSTEMD_UNIT=policyd.service --since "$since" -o json --output-fields=MESSAGE,PRIORITY \
                --no-pager | python3 -c 'import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if sys.argv[1] in str(e.get("MESSAGE")):
        print(e["PRIORITY"]); break' "$f")
        assert_eq "priority of the message about $f (4: warning)" 4 "$prio"
done
groups=$(policyctl --json status | python3 -c 'import json, sys
print(" ".join(g["name"] for g in json.load(sys.stdin)["groups"] if g["name"].startswith("pgt-")))')
assert_eq "groups policyd loaded" "pgt-good" "$groups"
