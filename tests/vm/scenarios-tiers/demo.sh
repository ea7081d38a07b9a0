#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run in the guest by "tests/demo --tiers", on the swap-tiers kernel: two
# groups, SwapTiers=fast (zram) and SwapTiers=slow (disk), on two services
# that hold 64 MiB each; both are pushed to swap with memory.reclaim, and a
# table says per service how much went to each device. Not a scenario (the
# suite runs NN-*.sh only), but it fails loudly when the kernel disagrees.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../scenarios/lib.sh
. /run/pg-vm/in/scenarios/lib.sh
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$here/tiers-lib.sh"

say() { echo; echo "# $*"; }

tiers_require
say "Swap tiers, defined before swapon (zram in fast, the disk in slow)"
tiers_define >/dev/null
cat "$tiers_file"
echo
cat /proc/swaps

mkdir -p /etc/policy.d
for t in fast slow; do
        printf '[PolicyGroup]\nDescription=Demo: swap to the %s tier only\n[Swap]\nSwapTiers=%s\n' "$t" "$t" \
                > "/etc/policy.d/demo-$t.policy"
        cat > "/etc/systemd/system/demo-$t.service" <<UNIT
[Unit]
Description=Demo: 64 MiB of anonymous memory, group demo-$t
X-PolicyGroup=demo-$t
[Service]
ExecStart=${toucher[0]} ${toucher[1]} '${toucher[2]}'
UNIT
done
systemctl daemon-reload
systemctl start policyd.service demo-fast.service demo-slow.service
say "Groups: policy.d files"
head -n 20 /etc/policy.d/demo-{fast,slow}.policy

declare -A path
for t in fast slow; do
        path[$t]=/sys/fs/cgroup$(systemctl show -P ControlGroup "demo-$t.service")
done
tiers_are() { [[ $(sort "$1/memory.swap.tiers.max" | tr '\n' ';') == "$2" ]]; }
wait_long 60 "policyd set demo-fast's tiers" tiers_are "${path[fast]}" "fast max;slow 0;" >/dev/null
wait_long 60 "policyd set demo-slow's tiers" tiers_are "${path[slow]}" "fast 0;slow max;" >/dev/null
for t in fast slow; do
        wait_long 60 "demo-$t touched 64 MiB" anon_at_least "${path[$t]}" $((64 << 10)) >/dev/null
done

# Swap tiers v10 gives no per-cgroup, per-device figure (memory.stat has
# none): each service is pushed out on its own, and what /proc/swaps Used
# grew by on each device meanwhile is its share.
declare -A grew_zram grew_disk in_swap
for t in fast slow; do
        z=$(swap_used "$zram_dev") d=$(swap_used "$disk_dev")
        swap_out "${path[$t]}" >/dev/null
        grew_zram[$t]=$(( $(swap_used "$zram_dev") - z ))
        grew_disk[$t]=$(( $(swap_used "$disk_dev") - d ))
        in_swap[$t]=$(( $(cat "${path[$t]}/memory.swap.current") >> 10 ))
done

say "memory.reclaim on each service in turn: where its memory went (KiB)"
printf '%-18s %-10s %-22s %12s %14s %14s\n' service group memory.swap.tiers.max in-swap "${zram_dev#/dev/}(fast)" "${disk_dev#/dev/}(slow)"
for t in fast slow; do
        printf '%-18s %-10s %-22s %12s %14s %14s\n' "demo-$t.service" "demo-$t" \
                "$(tr '\n' ' ' <"${path[$t]}/memory.swap.tiers.max")" "${in_swap[$t]}" "${grew_zram[$t]}" "${grew_disk[$t]}"
done
echo "(in-swap: the cgroup's memory.swap.current; the device columns: how much its Used in /proc/swaps grew)"

for t in fast slow; do
        say "policyctl explain demo-$t.service"
        policyctl --no-pager explain "demo-$t.service"
done

# The table is the kernel's word; say so when it does not show the routing.
(( grew_zram[fast] >= 48 << 10 && grew_disk[fast] <= 0 )) ||
        fail "demo-fast's memory did not go to $zram_dev only"
(( grew_disk[slow] >= 48 << 10 && grew_zram[slow] <= 0 )) ||
        fail "demo-slow's memory did not go to $disk_dev only"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
[[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || fail "policyd restarted during the demo"
echo
echo "ok: each group's memory went to its tier's device only"
