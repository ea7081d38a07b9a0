#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9, scenario 2): a process whose pages sit on node 0 moves
# into a member cgroup of a group with NUMANodes=1, and its pages end on
# node 1, read from outside in /proc/PID/numa_maps.
#   a. a unit's cgroup: AllowedMemoryNodes=1 makes it a cpuset, which keeps
#      new allocations on node 1; the pages already placed are moved with
#      migrate_pages, since 6.12 does not move them on attach from a unit
#      that systemd started (shown with a cpuset that is no member);
#   b. a cgroup without the cpuset controller (a child of a Delegate=yes
#      unit, whose subtree_control the delegate leaves empty), assigned at
#      runtime: cpuset.mems cannot be written there, so the injector helper
#      moves the pages with migrate_pages; explain says so, and that new
#      allocations are not confined.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

[[ -d /sys/devices/system/node/node1 ]] || skip "one NUMA node: nothing to move pages to"
command -v numactl >/dev/null || skip "no numactl"
systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

# Sums NODE= (N0, N1) over the anonymous mappings of PID.
anon_pages_on() { # PID NODE
        awk -v n="$2=" '/ anon=/ { for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) }
                END { print s + 0 }' "/proc/$1/numa_maps"
}
pages_of() { echo "N0=$(anon_pages_on "$1" N0) N1=$(anon_pages_on "$1" N1)"; }
# 48 MiB is 12288 pages: most of them, and hardly any left behind.
on_node1() { # PID
        (( $(anon_pages_on "$1" N1) >= 12000 && $(anon_pages_on "$1" N0) < 600 ))
}
on_node0() {
        (( $(anon_pages_on "$1" N0) >= 12000 && $(anon_pages_on "$1" N1) < 600 ))
}

# A quiet python3 (no fork, no exec after its start) with 48 MiB touched on
# node 0, then back to the default policy, so that nothing but the move
# places its pages. SYS_set_mempolicy is 238 on x86_64.
start_on_node0() { # UNIT
        systemd-run --quiet --unit="$1" numactl --membind=0 python3 -c '
import ctypes, time
buf = bytearray(48 << 20)
for i in range(0, len(buf), 4096):
    buf[i] = 1
if ctypes.CDLL(None, use_errno=True).syscall(238, 0, None, 0) != 0:
    raise SystemExit("set_mempolicy(MPOL_DEFAULT) failed")
time.sleep(100000)'
        wait_for "$1 is running" systemctl is-active --quiet "$1"
        local pid
        pid=$(systemctl show -P MainPID "$1")
        wait_for "48 MiB of $1 ($pid) on node 0" on_node0 "$pid"
        echo "$pid"
}

pgt_policy pgt-near '[PolicyGroup]\n[Match]\nSlice=pgt-near.slice\n[Memory]\nNUMANodes=1\n'
start_policyd

# b. A child cgroup of a delegated unit: no cpuset controller there.
systemd-run --quiet --unit=pgt-numa-deleg -p Delegate=yes sleep infinity
wait_for "pgt-numa-deleg is running" systemctl is-active --quiet pgt-numa-deleg.service
deleg=$(unit_cgroup pgt-numa-deleg.service)
mkdir "$cg$deleg/main" "$cg$deleg/worker"
# No process in a cgroup that has children with controllers: the delegate's
# own process moves down first.
echo "$(systemctl show -P MainPID pgt-numa-deleg.service)" > "$cg$deleg/main/cgroup.procs"
controllers=$(cat "$cg$deleg/worker/cgroup.controllers")
[[ " $controllers " != *" cpuset "* ]] || fail "the worker cgroup has cpuset after all: $controllers"
[[ ! -e $cg$deleg/worker/cpuset.mems ]] || fail "the worker cgroup has cpuset.mems"
policyctl assign "$deleg/worker" pgt-near
wait_for "$deleg/worker assigned" xattr_is "$cg$deleg/worker" user.policy.group pgt-near

b=$(start_on_node0 pgt-numa-b.service | tail -1)
echo "before: $(pages_of "$b")"
echo "$b" > "$cg$deleg/worker/cgroup.procs"
wait_for "the pages of $b on node 1 (migrate_pages)" on_node1 "$b"
echo "after: $(pages_of "$b")"
policyd_log | grep -E "Moved the pages of PID $b to NUMA node\(s\) 1 with migrate_pages" ||
        fail "no journal line for the migration of $b"
# Nothing was stopped or injected: no group sets KSM= or NUMAPolicy=.
journalctl -b --since "$since" --no-pager -u 'policyd-inject@*' | grep -E "pid=$b outcome=applied .*not_moved=" ||
        fail "the helper's reply for $b is not in the journal"
# A root migration keeps CAP_SYS_NICE (bit 23); every other request drops it
# first (96-inject-socket): the reply line carries what the helper held.
journalctl --sync
caps=$(journalctl -b --since "$since" -o export --no-pager SYSLOG_IDENTIFIER=policyd-inject |
        grep -aE '^_CAP_EFFECTIVE=' | sort -u)
echo "the helper's effective capabilities: $caps"
grep -qx '_CAP_EFFECTIVE=880000' <<<"$caps" ||
        fail "the helper did not keep CAP_SYS_NICE for a root migration: $caps"

out=$(policyctl explain "$deleg/worker")
echo "$out"
policyctl explain --json "$deleg/worker" | python3 -c '
import json, sys
pid = sys.argv[1]
j = json.load(sys.stdin)
rows = [k for k in j["knobs"] if k["knob"].startswith("NUMANodes")]
assert rows, "no NUMANodes row"
row = rows[0]
assert row["backend"] == "migrate-pages", row
assert "migrate_pages" in row["note"] and "not confined" in row["note"], row
procs = [p for p in j["processes"] if str(p["pid"]) == pid]
assert procs and procs[0]["method"] == "migrated", j["processes"]
assert "pages moved to node 1" in procs[0]["detail"], procs[0]
' "$b" || fail "explain does not tell the migration (see above)"
# cpuset.mems was never written, nor tried: no failure in the journal.
if policyd_log | grep -E "Failed to write cpuset.mems"; then
        fail "policyd still tries to write cpuset.mems where there is none"
fi


# a. A unit of the group: its cgroup is a cpuset with mems 1, which keeps
# new allocations on node 1. The pages the process already has are moved by
# policyd too: 6.12 moves them on attach only from the source cpuset's
# old_mems_allowed, which is empty for a unit systemd started (its tasks came
# with CLONE_INTO_CGROUP, never through cgroup.procs). Shown, not asserted,
# with a cpuset that is no member: the kernel alone.
systemd-run --quiet --unit=pgt-near-holder --slice=pgt-near.slice sleep infinity
wait_for "pgt-near-holder is running" systemctl is-active --quiet pgt-near-holder.service
holder=$cg$(unit_cgroup pgt-near-holder.service)
wait_for "AllowedMemoryNodes=1 on pgt-near-holder" file_is "$holder/cpuset.mems.effective" 1

control=$(start_on_node0 pgt-numa-control.service | tail -1)
mkdir "$cg/pgt-numa-control"
echo 1 > "$cg/pgt-numa-control/cpuset.mems"
echo "$control" > "$cg/pgt-numa-control/cgroup.procs"
sleep 10
echo "the kernel alone, 10 s after a move from a system.slice unit into a cpuset of mems 1: $(pages_of "$control")"
kill "$control"
while [[ -s $cg/pgt-numa-control/cgroup.procs ]]; do sleep 0.2; done
rmdir "$cg/pgt-numa-control"

a=$(start_on_node0 pgt-numa-a.service | tail -1)
echo "before: $(pages_of "$a")"
echo "$a" > "$holder/cgroup.procs"
wait_for "the pages of $a on node 1 (cpuset)" on_node1 "$a"
echo "after: $(pages_of "$a")"
policyd_log | grep -E "Moved the pages of PID $a to NUMA node\(s\) 1 with migrate_pages \([0-9]+ not moved\)$" ||
        fail "no journal line for the migration of $a"
out=$(policyctl explain pgt-near-holder.service)
echo "$out"
grep -E "^ *$a +migrated" <<<"$out" || fail "explain does not say that $a was migrated"
grep -E "NUMANodes \(AllowedMemoryNodes\)" <<<"$out" || fail "explain has no AllowedMemoryNodes row for the unit"

kill "$a" "$b" 2>/dev/null || true
