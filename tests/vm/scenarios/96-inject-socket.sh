#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The injector helper through its socket, as policyd will use it: a request
# with a pidfd puts KSM and interleave:0-1 into a running process with 5
# threads, and a second one takes both back out. Checked from outside: mg in
# /proc/PID/smaps, and each thread's task policy in its numa_maps. The
# helper ran with CAP_SYS_PTRACE alone, as a user other than root; and
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
grep -qx '_CAP_EFFECTIVE=80000' <<<"$creds" || fail "the helper's effective capabilities are not CAP_SYS_PTRACE alone"
grep -q '^_UID=0$' <<<"$creds" && fail "the helper ran as root"
grep -q '^_SYSTEMD_UNIT=policyd-inject@' <<<"$creds" || fail "no journal line from a policyd-inject@ instance"
echo "ok: the helper ran as a dynamic user with CAP_SYS_PTRACE alone"

# policyd pulls the socket in, and is as exposed as before.
systemctl stop policyd-inject.socket
start_policyd
assert_eq "policyd-inject.socket with policyd" active "$(systemctl is-active policyd-inject.socket)"
systemd-analyze security --no-pager policyd-inject@probe.service | sed 's/^/helper: /' | grep -v '^helper: ✓' || true
for unit in policyd.service policyd-inject@probe.service; do
        line=$(systemd-analyze security --no-pager "$unit" | tail -n 1)
        echo "$line"
        [[ $line =~ exposure\ level\ for\ [^:]*:\ ([0-9.]+)\ (PERFECT|SAFE|OK) ]] ||
                fail "$unit is rated worse than OK: $line"
done
echo "ok: policyd.service and the helper are rated OK or better"
inject_never_crashed
