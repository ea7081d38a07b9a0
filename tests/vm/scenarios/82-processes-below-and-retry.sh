#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9): the process layer's reach and its cost.
#   - Watching: with a KSM group loaded but no process holding what
#     policyd set, only member cgroups are watched; once a process holds
#     something, every running unit is (status says which).
#   - Below a member: a cgroup made later inside a delegated member unit
#     (IN_CREATE), and a quiet process moved into it by a write to its
#     cgroup.procs, which the unit's own cgroup.procs never sees.
#   - Retry: with the injector's socket stopped, a process moved in fails
#     with "trying again"; once the socket is back, it gets its values
#     without anything else happening.
#   - policyctl assign PID, and unassign, reach the process.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

[[ -r /sys/kernel/mm/ksm/run ]] || skip "no KSM in this kernel"
systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

has_ksm() { grep -q '^VmFlags:.* mg' "/proc/$1/smaps"; }
no_ksm() { ! has_ksm "$1"; }
processes_line() { policyctl status | grep -E '^ *Processes:'; }
quiet_process() { # UNIT: a python3 that neither forks nor execs, outside any member
        systemd-run --quiet --unit="$1" python3 -c 'import time; time.sleep(10**6)'
        wait_for "$1 runs" systemctl is-active --quiet "$1" >&2
        systemctl show -P MainPID "$1"
}

pgt_policy pgt-below '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-below.slice\n[Memory]\nKSM=yes\n'
systemd-run --quiet --unit=pgt-below-deleg -p Slice=pgt-below.slice -p Delegate=yes sleep infinity
deleg=$cg$(unit_cgroup pgt-below-deleg.service)
start_policyd
wait_for "the delegated unit's sleep has KSM" has_ksm "$(systemctl show -P MainPID pgt-below-deleg.service)"

# 1. Something is held now: every running unit is watched.
processes_line
processes_line | grep -q "all running units" || fail "status does not say every unit is watched: $(processes_line)"

# 2. A cgroup made after policyd looked, and a process moved into it.
mkdir "$deleg/inner"
p=$(quiet_process pgt-below-quiet)
no_ksm "$p" || fail "the quiet process has KSM before the move"
echo "$p" > "$deleg/inner/cgroup.procs"
wait_for "KSM in the process moved below the member ($p)" has_ksm "$p"
policyctl explain pgt-below-deleg.service | grep -E "^ *$p +injected" ||
        fail "explain of the unit does not list $p as injected: $(policyctl explain pgt-below-deleg.service)"

# 3. Moved out of the subtree again: undone.
echo "$p" > "$cg$(unit_cgroup pgt-below-quiet.service)/cgroup.procs"
wait_for "KSM off again in $p" no_ksm "$p"

# 4. The injector is away: the call fails, and is tried again by itself.
systemctl stop policyd-inject.socket
q=$(quiet_process pgt-below-retry)
echo "$q" > "$deleg/inner/cgroup.procs"
wait_for "explain says the call failed and will be tried again" \
        bash -c "policyctl explain $q | grep -E '^ *$q +failed.*trying again'"
policyctl explain "$q" | grep -E "^ *$q +"
systemctl start policyd-inject.socket
wait_for "KSM in $q once the injector is back" has_ksm "$q"

# 5. policyctl assign PID: the process's unit joins the group at runtime,
# and the process gets the group's KSM; unassigned, it is taken back.
r=$(quiet_process pgt-below-assigned)
policyctl assign "$r" pgt-below
wait_for "KSM in $r after assign by PID" has_ksm "$r"
policyctl unassign "$r" pgt-below
wait_for "KSM off in $r after unassign" no_ksm "$r"
systemctl stop pgt-below-assigned.service

# 6. Nothing held any more: back to watching members only.
systemctl stop pgt-below-deleg.service
kill "$q" 2>/dev/null || true
wait_for "status says only members are watched" bash -c "policyctl status | grep -E '^ *Processes:.*members whose groups'"
processes_line
processes_line | grep -q "not reachable" && fail "status still says the injector is not reachable"
echo "ok: status no longer says the injector is not reachable"
