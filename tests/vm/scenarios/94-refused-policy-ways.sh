#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23: the way to a policy file is trusted too, not only the file. An
# administrator leaves /run/policy.d writable by everyone (and not sticky);
# an unprivileged user links a root-owned draft from /var/lib into it. The
# draft, root's own file, must not become a group: whoever may write a
# directory on the way may swap what it names. (/var/lib, not /var/tmp:
# policyd has a private /var/tmp.) Judged by the victim's
# memory.swap.high and the groups policyd loaded.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
run_existed=0
[[ -d /run/policy.d ]] && run_existed=1
run_mode=$(stat -c %a /run/policy.d 2>/dev/null || echo 755)
cleanup_ways() {
        rm -f /run/policy.d/pgt-* /var/lib/pgt-draft.policy
        if [[ $run_existed == 1 ]]; then chmod "$run_mode" /run/policy.d; else rm -rf /run/policy.d; fi
        pgt_cleanup
}
trap cleanup_ways EXIT

id pgfuzz >/dev/null 2>&1 || useradd --system --no-create-home pgfuzz
# Root's own draft, never meant to be in effect: root-owned, 0644.
printf '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapHigh=3M\n' > /var/lib/pgt-draft.policy
chmod 0644 /var/lib/pgt-draft.policy
mkdir -p /run/policy.d
chmod 0777 /run/policy.d
pgt_policy pgt-good '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapMax=40M\n'

# The attack, as the user: a link, and a plain file of root's moved in.
setpriv --reuid=pgfuzz --regid=pgfuzz --clear-groups ln -s /var/lib/pgt-draft.policy /run/policy.d/pgt-planted.policy
ls -l /run/policy.d/

systemd-run --unit=pgt-victim sleep infinity
path=$cg$(unit_cgroup pgt-victim.service)
start_policyd
wait_for "the good group applies" prop_is pgt-victim.service MemorySwapMax 41943040
sleep 2
assert_file_eq "$path/memory.swap.high" max
assert_xattr "$path" user.policy.group pgt-good
groups=$(policyctl --json status | python3 -c 'import json, sys
print(" ".join(g["name"] for g in json.load(sys.stdin)["groups"] if g["name"].startswith("pgt-")))')
assert_eq "groups policyd loaded" "pgt-good" "$groups"
policyd_log | grep -F "/run/policy.d/pgt-planted.policy" | grep -q "Directory /run/policy.d on the way to this file is writable by others" ||
        fail "policyd's journal does not say why /run/policy.d/pgt-planted.policy was refused"
echo "ok: policyd says why the planted link was refused"

# A sticky directory is what /tmp is: others add names, never replace ours.
chmod 1777 /run/policy.d
rm -f /run/policy.d/pgt-planted.policy
printf '[PolicyGroup]\n[Match]\nUnit=pgt-victim.service\n[Swap]\nSwapHigh=5M\n' > /run/policy.d/pgt-sticky.policy
chmod 0644 /run/policy.d/pgt-sticky.policy
policyctl reload
wait_for "a root file in a sticky directory applies" grep -qx 5242880 "$path/memory.swap.high"
