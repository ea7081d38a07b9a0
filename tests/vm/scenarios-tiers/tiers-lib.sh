# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the tiers scenarios after lib.sh: the swap tiers of the test
# machine, per-device swap use, and a process that holds anonymous memory.
# The guest's machine-setup turns on zram (priority 100) and the swap disk
# (priority 10) at boot; these tiers put the first in "fast", the second in
# "slow".

tiers_file=/sys/kernel/mm/swap/tiers
tiers_spec="+fast:100 +slow:-1"

# tiers_require: skip where the kernel has no swap tiers.
tiers_require() {
        [[ -f $tiers_file ]] || skip "no $tiers_file: kernel $(uname -r) has no swap tiers"
        zram_dev=$(awk '$1 ~ "^/dev/zram" { print $1 }' /proc/swaps)
        disk_dev=$(awk '$1 ~ "^/dev/vd" { print $1 }' /proc/swaps)
        [[ -n $zram_dev && -n $disk_dev ]] || fail "expected a zram and a disk swap device: $(cat /proc/swaps)"
}

# tier_range NAME: "START END" of a tier, empty when it is not defined.
# The file: a "Name Idx PrioStart PrioEnd" header, then one line per tier.
tier_range() {
        awk -v n="$1" 'NR > 1 && $1 == n { print $3, $4 }' "$tiers_file"
}

# tiers_define: fast and slow as above. A tier that would take an active
# device fails with EBUSY, so both devices go off first and on again after,
# with the priorities machine-setup gave them. Nothing else uses the
# devices in the guest; swapoff brings back what was swapped out.
tiers_define() {
        local name
        if [[ $(tier_range fast) == "100 32767" && $(tier_range slow) == "-1 99" ]]; then
                echo "tiers already defined: $(tr '\n' ';' <"$tiers_file")"
                return 0
        fi
        swapoff "$zram_dev" "$disk_dev"
        awk 'NR > 1 { print $1 }' "$tiers_file" | while read -r name; do
                echo "-$name" >"$tiers_file" || fail "removing tier $name"
        done
        echo "$tiers_spec" >"$tiers_file" || fail "writing '$tiers_spec' to $tiers_file"
        swapon --priority 100 "$zram_dev"
        swapon --priority 10 "$disk_dev"
        assert_eq "tier fast" "100 32767" "$(tier_range fast)"
        assert_eq "tier slow" "-1 99" "$(tier_range slow)"
        cat "$tiers_file"
        cat /proc/swaps
}

# tiers_are PATH EXPECTED: the cgroup's memory.swap.tiers.max, its lines
# sorted and joined by ";" (EXPECTED ends with one).
tiers_are() {
        [[ $(sort "$1/memory.swap.tiers.max" | tr '\n' ';') == "$2" ]]
}

# swap_used DEVICE: its Used column in /proc/swaps, KiB.
swap_used() {
        awk -v d="$1" '$1 == d { print $4 }' /proc/swaps
}

# shellcheck disable=SC2034 # used by the scenarios
# A program that touches 64 MiB of anonymous memory (not zero pages, which
# zram and the page allocator treat apart) and then sleeps.
toucher=(/usr/bin/python3 -c 'import signal; b = bytes(range(256)) * (64 << 12); signal.pause()')

# anon_kib CGROUP_PATH
anon_kib() {
        echo $(( $(awk '$1 == "anon" { print $2 }' "$1/memory.stat") / 1024 ))
}

anon_at_least() { # CGROUP_PATH KIB
        (( $(anon_kib "$1") >= $2 ))
}

# swap_out CGROUP_PATH: reclaim until at least 48 MiB of the cgroup is in
# swap, or fail. memory.reclaim gives EAGAIN when it reclaimed less than
# asked, which is fine here: the check is memory.swap.current.
swap_out() {
        local path=$1 i
        for i in 1 2 3 4 5 6 7 8; do
                echo 64M >"$path/memory.reclaim" 2>/dev/null || true
                (( $(cat "$path/memory.swap.current") >= 48 << 20 )) && {
                        echo "ok: $path has $(( $(cat "$path/memory.swap.current") >> 10 )) KiB in swap after $i reclaims"
                        return 0
                }
        done
        fail "$path: only $(( $(cat "$path/memory.swap.current") >> 10 )) KiB in swap after 8 reclaims of 64M"
}

# assert_routed WHAT CGROUP_PATH TO_DEV OTHER_DEV: swap the cgroup out and
# check that /proc/swaps grew on TO_DEV by about what the cgroup has in
# swap, and not at all on OTHER_DEV.
assert_routed() {
        local what=$1 path=$2 to=$3 other=$4 to_before other_before to_delta other_delta cg_kib
        to_before=$(swap_used "$to")
        other_before=$(swap_used "$other")
        swap_out "$path"
        to_delta=$(( $(swap_used "$to") - to_before ))
        other_delta=$(( $(swap_used "$other") - other_before ))
        cg_kib=$(( $(cat "$path/memory.swap.current") >> 10 ))
        echo "$what: cgroup swap $cg_kib KiB; Used grew by $to_delta KiB on $to, $other_delta KiB on $other"
        (( to_delta >= 48 << 10 )) || fail "$what: Used on $to grew by $to_delta KiB only, expected >= 49152"
        (( other_delta <= 0 )) || fail "$what: Used on $other grew by $other_delta KiB, expected nothing"
        echo "ok: $what went to $to only"
}

# reboot_for_scenario: the guest boots again (the same disk, a fresh
# kernel) and this scenario runs once more from the start; it tells the two
# runs apart by what it left on the disk. tests/vm/guest/runner and
# tests/vm/run do the rest (exit status 75).
reboot_for_scenario() {
        sync
        echo "asking for a boot; this scenario runs again after it"
        exit 75
}
