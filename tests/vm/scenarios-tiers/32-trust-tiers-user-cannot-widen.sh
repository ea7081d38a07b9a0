#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attack: a user's own group must not widen the administrator's cgroups.
# The administrator's slice may swap to slow only. A user owns a delegated
# unit in it, assigns (over D-Bus, as themselves) a cgroup below it to a
# group with AllowSelfAssign=yes and SwapTiers=fast slow, and swaps. Were
# the user's request to widen the slice (as an administrator's group below
# does, 30-*), their pages would go to the fast device. Judged by the
# kernel: the slice's file keeps "fast 0", and the user's pages go to the
# disk only.
set -euo pipefail
# shellcheck source=../scenarios/lib.sh
. "$SCENARIO_DIR/lib.sh"
# shellcheck source=../scenarios/policyd-lib.sh
. "$SCENARIO_DIR/policyd-lib.sh"
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$(dirname "$0")/tiers-lib.sh"
tiers_require
systemctl cat policyd.service >/dev/null 2>&1 || skip "policyd.service is not installed in the guest"
pgt_setup
user=pgttiers
attack_cleanup() {
        pgt_cleanup
        rm -f /run/pgt-go /run/pgt-attack.sh
        userdel "$user" 2>/dev/null || true
}
trap attack_cleanup EXIT
userdel "$user" 2>/dev/null || true
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
as_user() { setpriv --reuid="$user" --regid="$user" --clear-groups "$@"; }
tiers_define

pgt_policy pgt-slow '[PolicyGroup]\nDescription=the administrator: slow only\n[Swap]\nSwapTiers=slow\n'
pgt_policy pgt-open '[PolicyGroup]\nDescription=users may ask for fast\nAllowSelfAssign=yes\n[Swap]\nSwapTiers=fast slow\n'
printf '[Unit]\nX-PolicyGroup=pgt-slow\n' > /etc/systemd/system/pgt-box.slice
systemctl daemon-reload
start_policyd
# The unit's process, as the user in the tree they own: itself to a leaf
# (main), memory for the children, a cgroup "box"; then it waits for the
# word, moves itself to the box and holds memory there.
rm -f /run/pgt-go
cat > /run/pgt-attack.sh <<SCRIPT
#!/bin/sh
here=/sys/fs/cgroup\$(cut -d: -f3 /proc/self/cgroup)
mkdir "\$here/main" "\$here/box" || exit 1
echo \$\$ > "\$here/main/cgroup.procs" || exit 1
echo +memory > "\$here/cgroup.subtree_control" || exit 1
while [ ! -e /run/pgt-go ]; do sleep 0.2; done
echo \$\$ > "\$here/box/cgroup.procs" || exit 1
exec ${toucher[0]} ${toucher[1]} '${toucher[2]}'
SCRIPT
chmod 0755 /run/pgt-attack.sh
systemd-run --unit=pgt-attack -p User="$user" -p Delegate=yes -p Slice=pgt-box.slice /run/pgt-attack.sh
slice=$cg$(unit_cgroup pgt-box.slice)
root=$cg$(unit_cgroup pgt-attack.service)
[[ $(stat -c %U "$root") == "$user" ]] || fail "$root is not delegated to $user"

wait_for "the slice may use slow only" tiers_are "$slice" "fast 0;slow max;"

wait_for "the user's box, with memory" test -f "$root/box/memory.swap.tiers.max"
box=${root#"$cg"}/box
as_user policyctl assign "$box" pgt-open || fail "the user could not assign their own cgroup to pgt-open"
wait_for "policyd took the user's assignment (the group tag on their box)" xattr_is "$root/box" user.policy.group pgt-open
assert_eq "the user's box: what they asked for" "fast max;slow max;" "$(sort "$root/box/memory.swap.tiers.max" | tr '\n' ';')"
touch /run/pgt-go
wait_long 60 "64 MiB touched in the user's box" anon_at_least "$root/box" $((64 << 10))
sleep 2 # a tier pass, had there been one to make, is long done
policyctl status | grep -a "Swap:" || true
policyctl explain "$box" 2>/dev/null | grep -a -i "tiers" || true

assert_eq "the administrator's slice, not widened" "fast 0;slow max;" \
        "$(sort "$slice/memory.swap.tiers.max" | tr '\n' ';')"
assert_routed "the user's box (asked for fast and slow, in a slow slice)" "$root/box" "$disk_dev" "$zram_dev"
echo "ok: a user's request widens nothing of the administrator's"
