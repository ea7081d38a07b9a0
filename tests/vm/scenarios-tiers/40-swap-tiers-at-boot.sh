#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [SwapTiers] in policyd.conf defines the tiers at boot, before swap goes on
# (the kernel refuses, EBUSY, a tier change that would move an active
# device). First run: write the config, and a swap unit for a swap file;
# the guest boots again. Second run, judged by the kernel and by systemd:
# the tiers file has fast 100 and slow -1; zram, the disk and the file are
# active; policyd-swap-tiers.service finished before the swap unit and
# before machine-setup's swapon started; each device's pages go by tier.
# Then, at run time: policyctl and the kernel both refuse a tier that would
# take the active swap file, and both take it once the file is off.
set -euo pipefail
# shellcheck source=../scenarios/lib.sh
. "$SCENARIO_DIR/lib.sh"
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$(dirname "$0")/tiers-lib.sh"
tiers_require
unit=policyd-swap-tiers.service
systemctl cat "$unit" >/dev/null 2>&1 || skip "$unit is not installed in the guest"

state=/var/lib/pgt-swap-tiers-at-boot
conf=/etc/policyd.conf.d/40-swap-tiers.conf
swapfile=/var/lib/pgt-swapfile
swap_unit=$(systemd-escape --path --suffix=swap "$swapfile")

# monotonic TIMESTAMP-PROPERTY UNIT: in µs since boot
monotonic() { systemctl show -P "$1" "$2"; }

if [[ ! -f $state/boot-id ]]; then
        mkdir -p "$state" /etc/policyd.conf.d
        printf '[SwapTiers]\nTier=fast:100\nTier=slow:-1\n' >"$conf"
        # verify takes it; a list without a tier at -1 is an error at its line.
        policyctl verify || fail "policyctl verify refused $conf"
        printf '[SwapTiers]\nTier=\nTier=fast:100\nTier=slow:10\n' >/etc/policyd.conf.d/41-pgt-bad.conf
        if out=$(policyctl verify 2>&1); then
                fail "policyctl verify took a lowest tier at 10: $out"
        fi
        [[ $out == *"41-pgt-bad.conf:4: error: The lowest swap tier, 'slow', starts at 10"* ]] ||
                fail "policyctl verify did not name the file and line: $out"
        echo "ok: verify refuses a lowest tier at 10: $out"
        rm /etc/policyd.conf.d/41-pgt-bad.conf

        # A swap unit of its own, as fstab would make one: the drop-in in
        # swap.d/ must order it after the tiers. Priority 50: tier slow.
        dd if=/dev/zero of="$swapfile" bs=1M count=64 status=none
        chmod 0600 "$swapfile"
        mkswap --label pgt-swapfile "$swapfile" >/dev/null
        cat >"/etc/systemd/system/$swap_unit" <<UNIT
[Swap]
What=$swapfile
Priority=50
[Install]
WantedBy=swap.target
UNIT
        systemctl enable "$swap_unit"
        cat /proc/sys/kernel/random/boot_id >"$state/boot-id"
        reboot_for_scenario
fi

# ---- after the boot ----
cleanup() {
        systemctl stop pgt-tier-fast.service pgt-tier-slow.service 2>/dev/null || true
        # The next scenarios expect zram and the disk only, and they define
        # these same tiers themselves (tiers_define finds them defined).
        systemctl disable --now "$swap_unit" 2>/dev/null || true
        rm -f "/etc/systemd/system/$swap_unit" "$swapfile" "$conf" /etc/policyd.conf.d/42-pgt-mid.conf
        rm -rf "$state"
        systemctl daemon-reload
}
trap cleanup EXIT

[[ $(cat /proc/sys/kernel/random/boot_id) != "$(cat "$state/boot-id")" ]] || fail "the guest did not boot again"
echo "booted again: $(cut -d' ' -f1 /proc/uptime) s up"
cat "$tiers_file"
cat /proc/swaps

# The kernel: the declared tiers, and every device on.
assert_eq "tier fast" "100 32767" "$(tier_range fast)"
assert_eq "tier slow" "-1 99" "$(tier_range slow)"
assert_eq "tiers defined" "2" "$(awk 'NR > 1' "$tiers_file" | wc -l)"
assert_eq "$zram_dev priority" "100" "$(awk -v d="$zram_dev" '$1 == d { print $5 }' /proc/swaps)"
assert_eq "$disk_dev priority" "10" "$(awk -v d="$disk_dev" '$1 == d { print $5 }' /proc/swaps)"
assert_eq "$swapfile priority" "50" "$(awk -v d="$swapfile" '$1 == d { print $5 }' /proc/swaps)"

# systemd: the unit ran and succeeded, pulled in by the generator's drop-ins.
assert_eq "$unit Result" "success" "$(systemctl show -P Result "$unit")"
assert_eq "$unit ExecMainStatus" "0" "$(systemctl show -P ExecMainStatus "$unit")"
assert_eq "$unit ActiveState" "active" "$(systemctl show -P ActiveState "$unit")"
[[ " $(systemctl show -P After "$swap_unit") " == *" $unit "* ]] ||
        fail "$swap_unit is not ordered after $unit: After=$(systemctl show -P After "$swap_unit")"
[[ $(systemctl show -P DropInPaths "$swap_unit") == */swap.d/50-policyd-swap-tiers.conf* ]] ||
        fail "$swap_unit does not read swap.d/: DropInPaths=$(systemctl show -P DropInPaths "$swap_unit")"
echo "ok: $swap_unit: After= has $unit, from $(systemctl show -P DropInPaths "$swap_unit")"

# ... and the order it kept at this boot: the tiers were written before the
# swap unit began, and before machine-setup (zram, the disk) began.
tiers_done=$(monotonic ExecMainExitTimestampMonotonic "$unit")
swap_began=$(monotonic InactiveExitTimestampMonotonic "$swap_unit")
setup_began=$(monotonic ExecMainStartTimestampMonotonic pg-vm-machine.service)
echo "monotonic µs: $unit exited $tiers_done; $swap_unit began $swap_began; machine-setup began $setup_began"
(( tiers_done > 0 && tiers_done <= swap_began )) || fail "$unit ended at $tiers_done, after $swap_unit began ($swap_began)"
(( tiers_done <= setup_began )) || fail "$unit ended at $tiers_done, after machine-setup began ($setup_began)"
echo "ok: the tiers were defined before any swapon of this boot"

# No ordering cycle that systemd broke by dropping a job of ours.
if journalctl -b -o cat --no-pager _PID=1 | grep -E "ordering cycle|Job .* deleted to break"; then
        fail "systemd found an ordering cycle at boot"
fi

# What it said, and no crash of policyctl at boot (the runner looks only
# from the scenario's start).
journalctl -b -o cat --no-pager -u "$unit"
journalctl -b -o cat --no-pager -u "$unit" | has -F "Wrote '+fast:100 +slow:-1'" ||
        fail "$unit did not say it wrote the tiers"
if journalctl -b -k -o cat --no-pager | grep -E "policyctl\[[0-9]+\]: segfault|traps: policyctl"; then
        fail "policyctl crashed at boot"
fi
# Idempotent: run again, nothing to write.
out=$(policyctl swap-tiers apply)
[[ $out == *"nothing to write"* ]] || fail "a second apply was not a no-op: $out"
echo "ok: applying again writes nothing"

# The model agrees with the kernel at run time. A tier at 50 would take the
# swap file (priority 50) out of slow: policyctl refuses, writing nothing,
# and the kernel itself says EBUSY to that write.
printf '[SwapTiers]\nTier=mid:50\n' >/etc/policyd.conf.d/42-pgt-mid.conf
if out=$(policyctl swap-tiers apply 2>&1); then
        fail "apply took a tier that would move $swapfile: $out"
fi
[[ $out == *"would move the active swap device $swapfile (priority 50, in tier 'slow')"* ]] ||
        fail "apply did not name $swapfile: $out"
if err=$(echo "+mid:50" 2>&1 >"$tiers_file"); then
        echo "-mid" >"$tiers_file"
        fail "the kernel took +mid:50 with $swapfile active: the model is wrong"
fi
[[ $err == *"Device or resource busy"* ]] || fail "+mid:50 with $swapfile active: expected EBUSY, got: $err"
assert_eq "tier mid" "" "$(tier_range mid)"
echo "ok: with $swapfile on, policyctl and the kernel both refuse a tier at 50"
# With it off, the tier goes in beside zram and the disk, in one write.
systemctl stop "$swap_unit"
out=$(policyctl swap-tiers apply) || fail "apply +mid:50 with $swapfile off: $out"
echo "$out"
[[ $out == *"Wrote '+mid:50'"* ]] || fail "apply did not write +mid:50: $out"
assert_eq "tier mid" "50 99" "$(tier_range mid)"
assert_eq "tier slow" "-1 49" "$(tier_range slow)"
rm /etc/policyd.conf.d/42-pgt-mid.conf
echo "-mid" >"$tiers_file"
assert_eq "tier slow, mid removed" "-1 99" "$(tier_range slow)"

# The kernel placed each device in its tier: "slow 0" swaps to zram only,
# "fast 0" to the disk only (the swap file is off: it is slow too).
for t in fast slow; do
        systemd-run --quiet --unit="pgt-tier-$t" -p MemoryAccounting=yes "${toucher[@]}"
done
fast=/sys/fs/cgroup$(systemctl show -P ControlGroup pgt-tier-fast.service)
slow=/sys/fs/cgroup$(systemctl show -P ControlGroup pgt-tier-slow.service)
echo "slow 0" >"$fast/memory.swap.tiers.max"
echo "fast 0" >"$slow/memory.swap.tiers.max"
wait_long 60 "64 MiB touched in $fast" anon_at_least "$fast" $((64 << 10))
wait_long 60 "64 MiB touched in $slow" anon_at_least "$slow" $((64 << 10))
assert_routed "the fast-only cgroup" "$fast" "$zram_dev" "$disk_dev"
assert_routed "the slow-only cgroup" "$slow" "$disk_dev" "$zram_dev"
