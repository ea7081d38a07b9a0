#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The injector helper through its socket, as policyd uses it: a request
# with a pidfd puts KSM and interleave:0-1 into a running process with 5
# threads, a query reads that back, and a third request takes both out.
# Then policyd's own client (process-watch.c) does the same for a group with
# ApplyToRunning=yes. Checked from outside: mg in
# /proc/PID/smaps, and each thread's task policy in its numa_maps. The
# helper ran with CAP_SYS_PTRACE alone: CAP_SYS_NICE, its other one, is
# for a root migration only, and every other request drops it first; it
# ran as a user other than root; and
# policyd.service, which pulls the socket in, keeps its exposure rating.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
. "$SCENARIO_DIR/inject-lib.sh"
inject_setup

pid=$(start_target pgt-inject-target)
has_mg "$pid" && fail "the target has mg before any request: the check proves nothing"
assert_eq "policies before" "defaultx5" "$(thread_policies "$pid")"

reply=$(inject "$pid" ksm=1 mempolicy=interleave:0-1 timeout_ms=5000)
assert_eq "outcome" applied "$(field "$reply" outcome)"
assert_eq "threads stopped" 5 "$(field "$reply" threads)"
assert_eq "verified_ksm" yes "$(field "$reply" verified_ksm)"
assert_eq "verified_mempolicy" interleave:0-1 "$(field "$reply" verified_mempolicy)"
assert_eq "stuck" 0 "$(field "$reply" stuck)"
has_mg "$pid" || fail "no mg in /proc/$pid/smaps after ksm=1: $(grep -m1 '^VmFlags:' "/proc/$pid/smaps")"
echo "ok: mg in /proc/$pid/smaps"
assert_eq "every thread's numa_maps" "interleave:0-1x5" "$(thread_policies "$pid")"
assert_eq "TracerPid after" 0 "$(status_of "$pid" TracerPid)"
[[ $(status_of "$pid" State) == [RS] ]] || fail "the target is left in state $(status_of "$pid" State)"

# A query (what policyd asks first) reads the same back, and injects nothing.
reply=$(inject "$pid" query=1)
assert_eq "outcome of a query" queried "$(field "$reply" outcome)"
assert_eq "exe" "$(readlink "/proc/$pid/exe")" "$(field "$reply" exe)"
assert_eq "ksm read back" yes "$(field "$reply" verified_ksm)"
assert_eq "mempolicy read back" interleave:0-1 "$(field "$reply" verified_mempolicy)"

reply=$(inject "$pid" ksm=0 mempolicy=default)
assert_eq "outcome of the undo" applied "$(field "$reply" outcome)"
assert_eq "verified_ksm" no "$(field "$reply" verified_ksm)"
assert_eq "verified_mempolicy" default "$(field "$reply" verified_mempolicy)"
has_mg "$pid" && fail "mg still in /proc/$pid/smaps after ksm=0"
echo "ok: no mg in /proc/$pid/smaps"
assert_eq "every thread's numa_maps" "defaultx5" "$(thread_policies "$pid")"
systemctl is-active --quiet pgt-inject-target.service || fail "the target died"

# Who the helper was: its journal lines carry its credentials.
journalctl --sync
creds=$(journalctl -b --since "$since" -o export --no-pager SYSLOG_IDENTIFIER=policyd-inject |
        grep -aE '^_(UID|CAP_EFFECTIVE|SYSTEMD_UNIT)=' | sort -u)
echo "$creds"
# CAP_SYS_PTRACE is bit 19, CAP_SYS_NICE bit 23 (kept for a root
# migration alone, 83-numa-nodes-move).
grep -qx '_CAP_EFFECTIVE=80000' <<<"$creds" ||
        fail "the helper's effective capabilities are not CAP_SYS_PTRACE alone"
grep -q '^_CAP_EFFECTIVE=880000$' <<<"$creds" &&
        fail "the helper kept CAP_SYS_NICE for a request that is not a root migration"
grep -q '^_UID=0$' <<<"$creds" && fail "the helper ran as root"
grep -q '^_SYSTEMD_UNIT=policyd-inject@' <<<"$creds" || fail "no journal line from a policyd-inject@ instance"
echo "ok: the helper ran as a dynamic user with CAP_SYS_PTRACE alone (CAP_SYS_NICE dropped)"

# policyd pulls the socket in, and is as exposed as before.
systemctl stop policyd-inject.socket
start_policyd
assert_eq "policyd-inject.socket with policyd" active "$(systemctl is-active policyd-inject.socket)"
systemd-analyze security --no-pager policyd-inject@probe.service | sed 's/^/helper: /' | grep -v '^helper: ✓' || true
for unit in policyd.service policyd-inject@probe.service policyd-swap-tiers.service; do
        line=$(systemd-analyze security --no-pager "$unit" | tail -n 1)
        echo "$line"
        [[ $line =~ exposure\ level\ for\ [^:]*:\ ([0-9.]+)\ (PERFECT|SAFE|OK) ]] ||
                fail "$unit is rated worse than OK: $line"
done
echo "ok: policyd.service, the helper and policyd-swap-tiers.service are rated OK or better"

# And policyd's own client of the helper: a group with ApplyToRunning=yes
# reaches the process of a member unit that starts, and a quiet process (no
# fork, no exec) moved into its cgroup by a write to cgroup.procs; the
# group's removal takes both settings back out.
pgt_policy pgt-inject '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nUnit=pgt-inject-member.service\n[Memory]\nKSM=yes\nNUMAPolicy=interleave\nNUMANodes=0-1\n'
systemctl restart policyd.service
systemd-run --quiet --unit=pgt-inject-member sleep infinity
wait_for "pgt-inject-member tagged" xattr_is "$cg$(unit_cgroup pgt-inject-member.service)" user.policy.group pgt-inject
sleeper=$(systemctl show -P MainPID pgt-inject-member.service)
wait_for "policyd had KSM injected into the member's own sleep ($sleeper)" has_mg "$sleeper"
quiet=$(start_target pgt-inject-quiet)
echo "$quiet" > "$cg$(unit_cgroup pgt-inject-member.service)/cgroup.procs"
wait_for "policyd had KSM injected into $quiet" has_mg "$quiet"
wait_for "policyd had interleave:0-1 set in every thread" policies_are "$quiet" "interleave:0-1x5"
policyctl explain "$quiet" 2>&1 | sed 's/^/explain: /' || true
rm /etc/policy.d/pgt-inject.policy
policyctl reload
wait_for "policyd had KSM taken back out" no_mg "$quiet"
wait_for "policyd had the default policy set back" policies_are "$quiet" "defaultx5"
inject_never_crashed
