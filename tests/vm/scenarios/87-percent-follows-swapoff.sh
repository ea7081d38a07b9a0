#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 24, item 4: swap that changes is followed without a reload. A group
# with SwapMax=50% on a running service: the share is of the swap active
# now. swapoff of the disk device, and later swapon again, must each lead
# to the new share in the unit's memory.swap.max, with no reload and no
# daemon-reload (policyd polls /proc/swaps, which the kernel wakes at each
# swapon and swapoff). Judged by the kernel's file. With the swap total
# read only at reloads (before), the value stayed at the old share.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

disk=$(awk '$1 ~ "^/dev/vd" { print $1; exit }' /proc/swaps)
[[ -n $disk ]] || skip "no swap on a disk device to turn off: $(cat /proc/swaps)"
trap 'swapon -p 10 "$disk" 2>/dev/null || true; pgt_cleanup' EXIT

# Half of the active swap, rounded down to a whole page.
half() {
        local kib v
        kib=$(awk 'NR > 1 { s += $3 } END { print s + 0 }' /proc/swaps)
        v=$((kib * 1024 / 2))
        echo $((v - v % $(getconf PAGESIZE)))
}
swap_max_is() { # BYTES: the unit's memory.swap.max, within a page
        local v
        v=$(cat "$cg$(unit_cgroup pgt-pct-follow.service)/memory.swap.max")
        [[ $v =~ ^[0-9]+$ ]] && (( v >= $1 - 4096 && v <= $1 + 4096 ))
}
reloads() { journalctl -b -u policyd.service --since "$since" --no-pager -o cat | grep -c 'Loaded .* policy groups' || true; }

pgt_policy pgt-pct '[Match]\nUnit=pgt-pct-follow.service\n[Swap]\nSwapMax=50%\n'
start_policyd
systemd-run --quiet --unit=pgt-pct-follow sleep infinity
want=$(half)
wait_for "memory.swap.max is half of both devices ($want)" swap_max_is "$want"
loads=$(reloads)
policyctl status | grep -E '^ *Swap:' || fail "policyctl status has no Swap: line"

swapoff "$disk"
want=$(half)
echo "after swapoff $disk: $(awk 'NR > 1' /proc/swaps | wc -l) device(s), half is $want"
wait_for "memory.swap.max follows the swapoff ($want)" swap_max_is "$want"
policyd_log | grep -E 'Swap changed' || fail "policyd did not say that swap changed"

swapon -p 10 "$disk"
want=$(half)
wait_for "memory.swap.max follows the swapon ($want)" swap_max_is "$want"
assert_eq "reloads meanwhile" "$loads" "$(reloads)"
policyctl status | grep -E '^ *Swap:.*[1-9][0-9]* changes seen' || fail "status counts no change: $(policyctl status | grep Swap:)"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: a percentage of swap follows swapoff and swapon without a reload"
