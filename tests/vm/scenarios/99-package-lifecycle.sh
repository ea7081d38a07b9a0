#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian package built from this tree (tests/package/build-debs, run by
# tests/vm/run), instead of meson install: install, opt in, upgrade to a
# rebuilt .deb with a bumped version while units are applied, remove, purge.
# Judged by the kernel's and systemd's state at each step:
#  - installing changes no cgroup, unit or process (the groups are examples);
#  - the administrator's choice applies;
#  - the upgrade restarts policyd, which keeps its records and the values;
#  - removal stops it and undoes what it set, processes included, and leaves
#    no runtime drop-in;
#  - purge leaves nothing: no file, no /run/policyd, no generated drop-in,
#    no unit, no enablement state.
# The meson-installed build goes first and comes back at the end.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"

debs=/run/pg-vm/in/debs
staging=/run/pg-vm/in/staging
[[ -f $debs/SKIP ]] && skip "$(cat "$debs/SKIP")"
[[ -f $debs/FAILED ]] && fail "building the packages failed: $(cat "$debs/FAILED")"
mapfile -t first < <(find "$debs" -maxdepth 1 -name 'policygroups_*_*.deb' ! -name '*vmtest*' | sort)
mapfile -t second < <(find "$debs" -maxdepth 1 -name 'policygroups_*vmtest*_*.deb' | sort)
(( ${#first[@]} == 1 && ${#second[@]} == 1 )) || fail "expected two .debs in $debs: $(ls "$debs" 2>&1)"
v1=$(dpkg-deb -f "${first[0]}" Version)
v2=$(dpkg-deb -f "${second[0]}" Version)
dpkg --compare-versions "$v2" gt "$v1" || fail "$v2 is not newer than $v1"

units=(pgt-pkg-batch.service pgt-pkg-named.service pgt-pkg-ksm.service)
examples=(foreground background batch)
put_back() {
        set +e
        systemctl stop "${units[@]}" 2>/dev/null
        rm -f /etc/systemd/system/pgt-pkg-* /etc/policy.d/pgt-pkg-* /etc/policy.d/batch.policy
        rm -rf /run/systemd/system.control/pgt-pkg-*
        if dpkg-query -W policygroups >/dev/null 2>&1; then dpkg -P policygroups >/dev/null 2>&1; fi
        # The build as the runner installed it, with the example groups.
        bash /run/pg-vm/in/guest/install >/dev/null
        systemctl reset-failed
}
trap put_back EXIT

# ---- a machine without policygroups ----
systemctl stop policyd.service policyd-inject.socket 2>/dev/null || true
(cd "$staging" && find . ! -type d -printf '%P\n') | while read -r f; do rm -f "/$f"; done
for g in "${examples[@]}"; do rm -f "/etc/policy.d/$g.policy"; done
rm -rf /run/policyd
systemctl daemon-reload
systemctl reload dbus.service
command -v policyctl >/dev/null && fail "policyctl is still installed: $(command -v policyctl)"
[[ -z $(systemctl list-unit-files --no-legend 'policyd*') ]] || fail "policyd units left: $(systemctl list-unit-files --no-legend 'policyd*')"
echo "ok: the meson-installed build is gone"

# Units an administrator has before installing: one in batch.slice, one
# whose unit file names the group batch, one a group of theirs will name.
printf '[Service]\nSlice=batch.slice\nExecStart=/bin/sleep infinity\n' >/etc/systemd/system/pgt-pkg-batch.service
printf '[Unit]\nX-PolicyGroup=batch\n[Service]\nExecStart=/bin/sleep infinity\n' >/etc/systemd/system/pgt-pkg-named.service
printf '[Service]\nExecStart=/bin/sleep infinity\n' >/etc/systemd/system/pgt-pkg-ksm.service
systemctl daemon-reload
systemctl start "${units[@]}"

cg() { echo "/sys/fs/cgroup$(systemctl show -P ControlGroup "$1")"; }
pid_of() { systemctl show -P MainPID "$1"; }
has_mg() { # the first mapping's flags, as 79-generator-ksm reads them
        local flags
        flags=$(grep -m 1 '^VmFlags:' "/proc/$(pid_of "$1")/smaps")
        [[ " $flags " == *" mg "* ]]
}

# What policygroups could change, everywhere: each cgroup's memory files and
# attributes, the test units' properties and processes, systemd's runtime
# and generated drop-ins. Cgroups present in only one snapshot (policyd's
# own, the injector's) are not compared.
snapshot() {
        local d f u
        while read -r d; do
                case $d in */policyd.service|*/policyd-inject*) continue ;; esac
                for f in memory.swap.max memory.swap.high memory.zswap.max memory.zswap.writeback; do
                        [[ -r $d/$f ]] && echo "cgroup $d $f $(cat "$d/$f" 2>/dev/null)"
                done
                getfattr --absolute-names -d -m - "$d" 2>/dev/null | sed -n "s|^\([a-z]*\.[^=]*=.*\)|cgroup $d xattr \1|p"
        done < <(find /sys/fs/cgroup -mindepth 1 -type d)
        for u in "${units[@]}"; do
                echo "unit $u $(systemctl show -p MemorySwapMax,MemorySwapHigh,MemoryZSwapMax,MemoryZSwapWriteback,AllowedMemoryNodes,MemoryKSM "$u" | tr '\n' ' ')"
                echo "process $u mg=$(has_mg "$u" && echo yes || echo no) $(head -n 1 "/proc/$(pid_of "$u")/numa_maps" | cut -d' ' -f2)"
        done
        # One line, so that compare() sees a file come or go.
        echo "drop-ins all $(find /run/systemd/system.control /run/systemd/transient /run/systemd/generator \
                /run/systemd/generator.late -name '*.conf' 2>/dev/null | sort | tr '\n' ' ')"
}
# Lines of $1 whose cgroup (or unit) is in $2 too and differ there.
compare() {
        diff <(grep -F -f <(awk '{ print $1 " " $2 " " }' "$2" | sort -u) "$1" | sort) \
             <(grep -F -f <(awk '{ print $1 " " $2 " " }' "$1" | sort -u) "$2" | sort)
}

snapshot >/tmp/pkg-before
echo "ok: $(wc -l </tmp/pkg-before) lines of state before installing"

# ---- install ----
since=$(date '+%Y-%m-%d %H:%M:%S')
dpkg -i "${first[0]}" || fail "dpkg -i ${first[0]} failed"
assert_eq "installed version" "$v1" "$(dpkg-query -W -f '${Version}' policygroups)"
systemctl is-active --quiet policyd.service || fail "policyd.service is not active after install: $(systemctl status policyd.service 2>&1 | tail -5)"
systemctl is-active --quiet policyd-inject.socket || fail "policyd-inject.socket is not active after install"
assert_eq "policyd.service enabled" enabled "$(systemctl is-enabled policyd.service)"
wait_long 60 "policyctl status answers" policyctl status
assert_eq "groups in force after install" 0 "$(policyctl --json list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
policyctl status | has "Examples to choose from are in /usr/share/policygroups/examples" ||
        fail "policyctl status does not say where the examples are: $(policyctl status)"
for g in "${examples[@]}"; do
        [[ -f /usr/share/policygroups/examples/$g.policy ]] || fail "no example $g.policy"
        policyctl verify "/usr/share/policygroups/examples/$g.policy" || fail "example $g.policy does not verify"
done
sleep 5 # policyd has read every unit by now: it is ready only after its first pass
snapshot >/tmp/pkg-installed
compare /tmp/pkg-before /tmp/pkg-installed >/tmp/pkg-diff || fail "installing changed the system: $(cat /tmp/pkg-diff)"
acts=$(journalctl -q --no-pager -o cat --since "$since" -u policyd.service | grep -E '^(Set |Injected |Undid)' || true)
[[ -z $acts ]] || fail "policyd acted after install: $acts"
echo "ok: installing changed no cgroup, unit property, process or drop-in ($(wc -l </tmp/pkg-installed) lines compared)"

# ---- the administrator opts in ----
ln -s /usr/share/policygroups/examples/batch.policy /etc/policy.d/
printf '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nUnit=pgt-pkg-ksm.service\n[Memory]\nKSM=yes\n' >/etc/policy.d/pgt-pkg-ksm.policy
chmod 0644 /etc/policy.d/pgt-pkg-ksm.policy
policyctl reload --daemon-reload || fail "policyctl reload --daemon-reload failed"
swap_max_of() { cat "$(cg "$1")/memory.swap.max"; }
before_max=$(grep -F "cgroup $(cg pgt-pkg-batch.service) memory.swap.max " /tmp/pkg-before | awk '{ print $4 }')
for u in pgt-pkg-batch.service pgt-pkg-named.service; do
        wait_long 60 "$u is in batch" assert_xattr "$(cg "$u")" user.policy.group batch
        wait_long 60 "$u has batch's SwapMax" bash -c "[[ \$(cat '$(cg "$u")/memory.swap.max') != '$before_max' ]]"
        assert_xattr "$(cg "$u")" user.slo.class batch
done
wait_long 60 "pgt-pkg-ksm.service's process has KSM (mg) from an injection" has_mg pgt-pkg-ksm.service
applied_max=$(swap_max_of pgt-pkg-batch.service)
applied_prop=$(systemctl show -P MemorySwapMax pgt-pkg-batch.service)
[[ -f /run/policyd/properties/pgt-pkg-batch.service ]] || fail "no record of pgt-pkg-batch.service's properties: $(ls -R /run/policyd)"
record=$(cat /run/policyd/properties/pgt-pkg-batch.service)
echo "ok: opted in: memory.swap.max $before_max -> $applied_max, MemorySwapMax=$applied_prop"

# ---- upgrade, while applied ----
old_invocation=$(systemctl show -P InvocationID policyd.service)
dpkg -i "${second[0]}" || fail "dpkg -i ${second[0]} failed"
assert_eq "installed version" "$v2" "$(dpkg-query -W -f '${Version}' policygroups)"
systemctl is-active --quiet policyd.service || fail "policyd.service is not active after the upgrade"
new_invocation=$(systemctl show -P InvocationID policyd.service)
[[ $new_invocation != "$old_invocation" ]] || fail "policyd.service was not restarted by the upgrade"
echo "ok: policyd restarted ($old_invocation -> $new_invocation)"
wait_long 60 "policyctl status answers" policyctl status
sleep 5
assert_eq "memory.swap.max after the upgrade" "$applied_max" "$(swap_max_of pgt-pkg-batch.service)"
assert_eq "MemorySwapMax after the upgrade" "$applied_prop" "$(systemctl show -P MemorySwapMax pgt-pkg-batch.service)"
assert_xattr "$(cg pgt-pkg-batch.service)" user.policy.group batch
has_mg pgt-pkg-ksm.service || fail "the upgrade lost KSM on pgt-pkg-ksm.service's process"
assert_eq "the record of pgt-pkg-batch.service's properties" "$record" "$(cat /run/policyd/properties/pgt-pkg-batch.service)"

# ---- remove ----
dpkg -L policygroups >/tmp/pkg-files
dpkg -r policygroups || fail "dpkg -r failed"
! systemctl is-active --quiet policyd.service || fail "policyd.service still runs after removal"
! systemctl is-active --quiet policyd-inject.socket || fail "policyd-inject.socket still listens after removal"
[[ -f /etc/policy.d/pgt-pkg-ksm.policy ]] || fail "removal took the administrator's file"
snapshot >/tmp/pkg-removed
compare /tmp/pkg-before /tmp/pkg-removed >/tmp/pkg-diff || fail "removal did not undo everything: $(cat /tmp/pkg-diff)"
echo "ok: removal undid every value, attribute, process setting and runtime drop-in"

# ---- purge ----
dpkg -P policygroups || fail "dpkg -P failed"
left=$(while read -r f; do if [[ -e $f && ! -d $f ]]; then echo "$f"; fi; done </tmp/pkg-files)
[[ -z $left ]] || fail "purge left files: $left"
[[ ! -e /run/policyd ]] || fail "purge left /run/policyd: $(ls -la /run/policyd)"
[[ -z $(systemctl list-unit-files --no-legend 'policyd*') ]] || fail "units left: $(systemctl list-unit-files --no-legend 'policyd*')"
left=$(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
        -name 'policyd*' 2>/dev/null || true)
[[ -z $left ]] || fail "enablement left: $left"
left=$(find /run/systemd -name '50-policy-groups.conf' 2>/dev/null || true)
[[ -z $left ]] || fail "generated drop-ins left: $left"
if busctl status org.policygroups.PolicyGroups1 >/dev/null 2>&1; then fail "the bus name is still owned"; fi
snapshot >/tmp/pkg-purged
compare /tmp/pkg-before /tmp/pkg-purged >/tmp/pkg-diff || fail "the system differs after purge: $(cat /tmp/pkg-diff)"
echo "ok: purge left nothing"
