#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9): policies follow processes. A group with
# ApplyToRunning=yes, KSM=yes and NUMAPolicy=interleave over both nodes
# reaches processes that enter its member cgroups without a start of their
# own: a `systemd-run --scope` (systemd writes cgroup.procs), and a quiet
# process (it neither forks nor execs) moved there by a write to
# cgroup.procs. Leaving undoes what policyd set, also after a restart of
# policyd; Executable= limits the
# group to the processes it names; explain shows the method and the state.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

[[ -d /sys/devices/system/node/node1 ]] || skip "one NUMA node: interleave over 0-1 cannot be checked"
systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

# From outside, as the issue asks: ksm_of, mempolicy_of and state_is (policyd-lib.sh).

pgt_policy pgt-proc '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-proc.slice\nExecutable=/usr/bin/sleep */python3*\n[Memory]\nKSM=yes\nNUMANodes=0-1\nNUMAPolicy=interleave\n'
start_policyd

# 1. A scope in the slice: its PID is written into cgroup.procs by systemd.
systemd-run --quiet --scope --unit=pgt-proc-a --slice=pgt-proc.slice sleep infinity &
a=$!
wait_for "scope pgt-proc-a is running" systemctl is-active --quiet pgt-proc-a.scope
state_of "$a"
wait_for "KSM and interleave injected into the scope's sleep ($a)" state_is "$a" yes interleave:0-1
out=$(policyctl explain "$a")
echo "$out"
grep -qE "^ *$a +injected" <<<"$out" || fail "explain $a does not say injected"

# 2. Executable= does not name tail: the group's process knobs skip it.
systemd-run --quiet --scope --unit=pgt-proc-b --slice=pgt-proc.slice tail -f /dev/null &
b=$!
wait_for "scope pgt-proc-b is running" systemctl is-active --quiet pgt-proc-b.scope
wait_for "tail ($b) is skipped: Executable= does not match" \
        bash -c "policyctl explain $b | grep -E '^ *$b +skipped.*Executable='"
assert_eq "tail keeps its state" "ksm=no mempolicy=default" "$(state_of "$b")"

# 3. A quiet process moved in by a write to cgroup.procs: no fork, no exec,
# no event of systemd. A python3 with three threads.
systemd-run --quiet --unit=pgt-proc-quiet python3 -c '
import threading, time
for _ in range(2):
    threading.Thread(target=time.sleep, args=(100000,), daemon=True).start()
time.sleep(100000)'
wait_for "pgt-proc-quiet is running" systemctl is-active --quiet pgt-proc-quiet.service
q=$(systemctl show -P MainPID pgt-proc-quiet.service)
wait_for "three threads in $q" bash -c "(( \$(ls /proc/$q/task | wc -l) >= 3 ))"
assert_eq "before the move" "ksm=no mempolicy=default" "$(state_of "$q")"
echo "$q" > "$cg$(unit_cgroup pgt-proc-a.scope)/cgroup.procs"
wait_for "KSM and interleave in every thread of the moved process ($q)" state_is "$q" yes interleave:0-1

# A restart in between: policyd keeps what it set in which process.
systemctl restart policyd.service
grep -q "^$q " /run/policyd/processes || fail "no record of $q in /run/policyd/processes: $(cat /run/policyd/processes)"
assert_eq "after the restart" "ksm=yes mempolicy=interleave:0-1" "$(state_of "$q")"

# 4. Moved back out: policyd takes back what it set, and only that.
echo "$q" > "$cg$(unit_cgroup pgt-proc-quiet.service)/cgroup.procs"
wait_for "KSM off and the default mempolicy again in $q" state_is "$q" no default
policyd_log | grep -E "Undid in PID $q" || fail "no journal line for the undo in $q"

# 5. The group goes: the scope's sleep is undone too.
rm /etc/policy.d/pgt-proc.policy
policyctl reload
wait_for "KSM off and the default mempolicy in $a after the group went" state_is "$a" no default

kill "$a" "$b" 2>/dev/null || true
policyd_log | grep -E "Injected into PID" || fail "no journal line for an injection"
echo "policyd's process layer: $(systemctl show -P MainPID policyd.service) $(busctl get-property \
        org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 org.policygroups.PolicyGroups1.Manager Processes)"
