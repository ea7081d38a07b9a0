#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 87: SwapMax=10% in a group that unit files name (issue 7, class 8).
# policyd-generator and policyd turn the percentage into the same bytes (a
# page multiple), so policyd leaves the generator's drop-in alone: no
# SetUnitProperties, nothing in /run/systemd/system.control. When the group
# goes, the administrator's MemorySwapMax= (or systemd's infinity) is back at
# once, without a daemon-reload (policyd never runs one itself): whatever is
# pinned in system.control is the administrator's value, never the group's.
# Then swap changes between daemon-reload and the
# start, so policyd must override the drop-in: it records the
# administrator's value, not the generator's, and undo restores that.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

control=/run/systemd/system.control
units=(pgt-pct-own pgt-pct-none)
declare -A admin=([pgt-pct-own]=1073741824 [pgt-pct-none]=infinity)
declare -A kernel=([pgt-pct-own]=1073741824 [pgt-pct-none]=max)

# 10% of the active swap, rounded down to a whole page.
share() {
        local kib v
        kib=$(awk 'NR > 1 { s += $3 } END { print s + 0 }' /proc/swaps)
        v=$((kib * 1024 / 10))
        echo $((v - v % $(getconf PAGESIZE)))
}
[[ $(share) -gt 0 ]] || skip "no active swap"

no_control_dropin() { # UNIT
        local files
        files=$(find "$control/$1.service.d" -type f 2>/dev/null || true)
        [[ -z $files ]] || fail "$1: pinned in $control: $(cat "$control/$1.service.d/"*)"
        echo "ok: nothing of $1 in $control"
}

# What policyd said about UNIT since the scenario began (UNIT= field).
policyd_said() { # UNIT
        journalctl -b --since "$since" _SYSTEMD_UNIT=policyd.service "UNIT=$1" --no-pager -o cat
}

# A runtime property can only be put back as one (policyd(8), Undo): what
# may stay pinned is the administrator's value, never the group's.
pinned_is_admin_or_nothing() { # UNIT
        local pinned
        pinned=$(cat "$control/$1.service.d/"*.conf 2>/dev/null | grep '^MemorySwapMax=' | tail -n 1 || true)
        case $pinned in
        "" | "MemorySwapMax=${admin[$1]}") echo "ok: $1: pinned in $control: '${pinned:-nothing}'" ;;
        *) fail "$1: $control pins '$pinned', not the administrator's ${admin[$1]}" ;;
        esac
}

policyd_pid=
policyd_never_crashed() {
        systemctl is-active --quiet policyd.service || fail "policyd is not active"
        assert_eq "policyd's MainPID (no crash, no restart)" "$policyd_pid" "$(systemctl show -P MainPID policyd.service)"
        if journalctl -b --since "$since" -u policyd.service --no-pager -o cat | grep -E 'dumped core|Main process exited'; then
                fail "policyd crashed"
        fi
}

pgt_policy pgt-pct '[PolicyGroup]\n[Swap]\nSwapMax=10%\n'
printf '[Unit]\nX-PolicyGroup=pgt-pct\n[Service]\nMemorySwapMax=1G\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/pgt-pct-own.service
printf '[Unit]\nX-PolicyGroup=pgt-pct\n[Service]\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/pgt-pct-none.service
systemctl daemon-reload
want=$(share)
echo "10% of $(awk 'NR > 1 { s += $3 } END { print s }' /proc/swaps)K of swap, in whole pages: $want"

for u in "${units[@]}"; do
        dropin=/run/systemd/generator/$u.service.d/50-policy-groups.conf
        grep -q '^MemorySwapMax=' "$dropin" || fail "no MemorySwapMax= in $dropin"
        assert_eq "$u: MemorySwapMax from the generator's drop-in" "$want" "$(systemctl show -P MemorySwapMax "$u.service")"
done

start_policyd
policyd_pid=$(systemctl show -P MainPID policyd.service)
systemctl start pgt-pct-own.service pgt-pct-none.service
for u in "${units[@]}"; do
        wait_for "$u: tag" xattr_is "$cg$(unit_cgroup "$u.service")" user.policy.group pgt-pct
done
# The SetUnitProperties call, had there been one, goes out with the tag.
sleep 3
for u in "${units[@]}"; do
        path=$cg$(unit_cgroup "$u.service")
        assert_eq "$u: MemorySwapMax" "$want" "$(systemctl show -P MemorySwapMax "$u.service")"
        assert_file_eq "$path/memory.swap.max" "$want"
        no_control_dropin "$u"
        if policyd_said "$u.service" | grep -E '^(Set|Would set|Undid) MemorySwapMax'; then
                fail "$u: policyd set MemorySwapMax over the generator's equal value"
        fi
        echo "ok: $u: policyd made no SetUnitProperties call"
done

rm /etc/policy.d/pgt-pct.policy
reloaded_at=$(date '+%Y-%m-%d %H:%M:%S')
policyctl reload
for u in "${units[@]}"; do
        path=$cg$(unit_cgroup "$u.service")
        wait_for "$u: tag removed" bash -c "! getfattr --absolute-names -n user.policy.group '$path'"
        wait_for "$u: the administrator's MemorySwapMax is back" prop_is "$u.service" MemorySwapMax "${admin[$u]}"
        wait_for "$u: memory.swap.max follows" file_is "$path/memory.swap.max" "${kernel[$u]}"
        pinned_is_admin_or_nothing "$u"
done
if journalctl -b _PID=1 --since "$reloaded_at" --no-pager -o cat | has '^Reloading'; then
        fail "systemd reloaded after 'policyctl reload'"
fi
echo "ok: no daemon-reload behind the administrator's back"
policyd_never_crashed

# --- swap changes between daemon-reload and the start: policyd must set.
systemctl stop pgt-pct-own.service pgt-pct-none.service
dev="" prio=""
read -r dev prio < <(awk 'NR > 1 && $1 ~ "^/dev/vd" { print $1, $5 }' /proc/swaps | tail -n 1) || true
[[ -n $dev ]] || skip "no disk swap to take away"
trap 'swapon -p "$prio" "$dev" 2>/dev/null || true; pgt_cleanup' EXIT

pgt_policy pgt-pct '[PolicyGroup]\n[Swap]\nSwapMax=10%\n'
policyctl reload
systemctl daemon-reload
generated=$(share)
swapoff "$dev"
policyctl reload # policyd reads /proc/swaps again; the drop-ins keep the old share
now=$(share)
echo "swap taken away: $dev; the generator's share $generated, policyd's $now"
systemctl start pgt-pct-own.service pgt-pct-none.service
for u in "${units[@]}"; do
        wait_for "$u: policyd's share over the generator's" prop_is "$u.service" MemorySwapMax "$now"
        wait_for "$u: policyd logged the change" bash -c \
                "journalctl -b --since '$since' _SYSTEMD_UNIT=policyd.service UNIT=$u.service -o cat | grep -q '^Set MemorySwapMax=$now'"
        said=$(policyd_said "$u.service" | grep "^Set MemorySwapMax=$now" | tail -n 1)
        assert_eq "$u: recorded as the value before" "Set MemorySwapMax=$now (was ${admin[$u]})" "$said"
done

swapon -p "$prio" "$dev"
rm /etc/policy.d/pgt-pct.policy
policyctl reload
for u in "${units[@]}"; do
        path=$cg$(unit_cgroup "$u.service")
        wait_for "$u: tag removed" bash -c "! getfattr --absolute-names -n user.policy.group '$path'"
        wait_for "$u: the administrator's MemorySwapMax is back" prop_is "$u.service" MemorySwapMax "${admin[$u]}"
        wait_for "$u: memory.swap.max follows" file_is "$path/memory.swap.max" "${kernel[$u]}"
        pinned_is_admin_or_nothing "$u"
done
policyd_never_crashed
