#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [Match] XAttr= and self-requests follow the attributes as they change,
# through one IN_ATTRIB watch per parent directory: a cgroup joins when the
# attribute appears with the value, and leaves (undone) when it changes or
# goes. What policyd writes itself from [Attributes] is no input.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-tagged '[PolicyGroup]\n[Match]\nXAttr=user.pgt.class=tagged\n[Swap]\nSwapHigh=20M\n[Attributes]\nXAttr=user.pgt.out=tagged\n'
pgt_policy pgt-tagger '[PolicyGroup]\n[Match]\nUnit=pgt-out.service\n[Attributes]\nXAttr=user.pgt.class=tagged\n'
pgt_policy pgt-self '[PolicyGroup]\nAllowSelfAssign=yes\n[Swap]\nSwapHigh=30M\n'
pgt_policy pgt-flip '[PolicyGroup]\n[Match]\nXAttr=user.pgt.mode=a\n[Attributes]\nXAttr=user.pgt.mode=b\n'
start_policyd

systemd-run --unit=pgt-in sleep infinity
systemd-run --unit=pgt-out sleep infinity
systemd-run --unit=pgt-deleg -p Delegate=yes sleep infinity
in=$cg$(unit_cgroup pgt-in.service)
out=$cg$(unit_cgroup pgt-out.service)
deleg=$cg$(unit_cgroup pgt-deleg.service)
wait_for "pgt-out joined pgt-tagger by name" xattr_is "$out" user.policy.group pgt-tagger
assert_no_xattr "$in" user.policy.group

status=$(policyctl status)
echo "$status" | grep '^  Attributes:'
grep -qE '^  Attributes: inotify IN_ATTRIB on [0-9]+ directories, for [0-9]+ cgroups;' <<<"$status" \
        || fail "status does not say how attributes are watched: $status"
dirs=$(sed -nE 's/^  Attributes: inotify IN_ATTRIB on ([0-9]+) directories, for ([0-9]+) cgroups;.*/\1/p' <<<"$status")
cgroups=$(sed -nE 's/^  Attributes: inotify IN_ATTRIB on ([0-9]+) directories, for ([0-9]+) cgroups;.*/\2/p' <<<"$status")
(( dirs < cgroups )) || fail "one watch per cgroup ($dirs directories for $cgroups cgroups), not per parent"
echo "ok: $dirs watches serve $cgroups cgroups"

# Joins when the attribute appears, as an administrator or another daemon
# would set it; nothing else reads the unit again.
setfattr -n user.pgt.class -v tagged "$in"
wait_for "pgt-in joined pgt-tagged through its attribute" xattr_is "$in" user.policy.group pgt-tagged
wait_for "pgt-tagged's SwapHigh applied" file_is "$in/memory.swap.high" 20971520
assert_xattr "$in" user.pgt.out tagged

# Another value: it leaves, and what the group wrote is undone.
setfattr -n user.pgt.class -v other "$in"
wait_for "pgt-in left pgt-tagged" bash -c "! getfattr --absolute-names -n user.policy.group '$in'"
wait_for "SwapHigh restored" file_is "$in/memory.swap.high" max
assert_no_xattr "$in" user.pgt.out

# Back, then the attribute removed.
setfattr -n user.pgt.class -v tagged "$in"
wait_for "pgt-in joined again" xattr_is "$in" user.policy.group pgt-tagged
setfattr -x user.pgt.class "$in"
wait_for "pgt-in left when the attribute went" bash -c "! getfattr --absolute-names -n user.policy.group '$in'"
wait_for "SwapHigh restored again" file_is "$in/memory.swap.high" max

# pgt-tagger wrote user.pgt.class=tagged on pgt-out itself: its own output
# must not pull pgt-out into pgt-tagged.
assert_xattr "$out" user.pgt.class tagged
sleep 3
assert_xattr "$out" user.policy.group pgt-tagger
assert_file_eq "$out/memory.swap.high" max

# A group that matches x=a and writes x=b: its own write must neither push
# the cgroup out (then its undo would put a back, and so on forever) nor
# keep policyd busy.
setfattr -n user.pgt.mode -v a "$in"
wait_for "pgt-in joined pgt-flip by user.pgt.mode=a" xattr_is "$in" user.policy.group pgt-flip
wait_for "pgt-flip wrote user.pgt.mode=b" xattr_is "$in" user.pgt.mode b
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
pid=$(systemctl show -P MainPID policyd.service)
t0=$(ticks "$pid")
sleep 5
t1=$(ticks "$pid")
echo "policyd used $((t1 - t0)) ticks in 5 s"
(( t1 - t0 <= 20 )) || fail "policyd is busy after its own attribute write: $((t1 - t0)) ticks in 5 s"
assert_xattr "$in" user.policy.group pgt-flip
assert_xattr "$in" user.pgt.mode b
# Someone else's value then counts: it leaves, and its b is not undone over theirs.
setfattr -n user.pgt.mode -v c "$in"
wait_for "pgt-in left pgt-flip" bash -c "! getfattr --absolute-names -n user.policy.group '$in'"
assert_xattr "$in" user.pgt.mode c
setfattr -x user.pgt.mode "$in"

# A self-request on a delegated unit, made and withdrawn at runtime.
setfattr -n user.policy.request -v pgt-self "$deleg"
wait_for "pgt-deleg joined pgt-self by its request" xattr_is "$deleg" user.policy.group pgt-self
wait_for "pgt-self's SwapHigh applied" file_is "$deleg/memory.swap.high" 31457280
setfattr -x user.policy.request "$deleg"
wait_for "pgt-deleg left when the request went" bash -c "! getfattr --absolute-names -n user.policy.group '$deleg'"
wait_for "SwapHigh restored on pgt-deleg" file_is "$deleg/memory.swap.high" max

# The same request on a unit that is not delegated is refused, with a warning.
setfattr -n user.policy.request -v pgt-self "$in"
wait_for "refusal logged" bash -c "journalctl -b -u policyd.service --since '$since' --no-pager -o cat | grep -q \"Refusing self-request for group 'pgt-self'\""
assert_no_xattr "$in" user.policy.group
assert_file_eq "$in/memory.swap.high" max

systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: attributes followed"
