#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9, system scenarios 1, 3, 7 and 9), through policyd:
#   - two quiet processes with the same anonymous pages, moved by writes to
#     cgroup.procs into a KSM group, get mg, and ksmd merges them
#     (pages_sharing rises);
#   - a process whose threads keep creating threads while it is moved in
#     ends with the policy in every thread, those created during the
#     injection included;
#   - a service under a seccomp filter, and a process another tracer holds,
#     are skipped with the reason in explain, and both keep running;
#   - then, with all that in place and nothing moving, policyd does not
#     wake up for a minute, apart from its watchdog.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

[[ -d /sys/devices/system/node/node1 ]] || skip "one NUMA node: interleave over 0-1 cannot be checked"
[[ -r /sys/kernel/mm/ksm/pages_sharing ]] || skip "no KSM in this kernel"
systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

has_ksm() { [[ $(ksm_of "$1") == yes ]]; }
status_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
threads_of() { ls "/proc/$1/task" | wc -l; }
move_in() { echo "$1" > "$dest/cgroup.procs"; }
explain_row() { policyctl explain "$1" | grep -E "^ *$1 +"; }

pgt_policy pgt-pl '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-pl.slice\n[Memory]\nKSM=yes\nNUMANodes=0-1\nNUMAPolicy=interleave\n'
systemd-run --quiet --unit=pgt-pl-dest -p Slice=pgt-pl.slice sleep infinity
dest=$cg$(unit_cgroup pgt-pl-dest.service)
start_policyd

# 1. Two processes with the same 8 MiB of anonymous memory, page by page
# different, so that only pages of the two can merge. THP off: ksmd does
# not split huge pages it meets (Debian 13 has THP "always").
pages=2048
ksm_twin() { # UNIT
        systemd-run --quiet --unit="$1" python3 -c '
import ctypes, hashlib, mmap, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(41, 1, 0, 0, 0) != 0:  # PR_SET_THP_DISABLE
    sys.exit("PR_SET_THP_DISABLE: errno %d" % ctypes.get_errno())
n = int(sys.argv[1])
m = mmap.mmap(-1, n * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(n):
    m[i * 4096:(i + 1) * 4096] = hashlib.sha256(b"%d" % i).digest() * 128
open("/run/" + sys.argv[2] + ".ready", "w").close()
time.sleep(10**6)' "$pages" "$1"
        wait_for "$1 filled its pages" test -e "/run/$1.ready" >&2
        systemctl show -P MainPID "$1"
}
rm -f /run/pgt-pl-twin*.ready
t1=$(ksm_twin pgt-pl-twin1)
t2=$(ksm_twin pgt-pl-twin2)
assert_eq "twin 1 before the move" no "$(ksm_of "$t1")"
scan_before=$(cat /sys/kernel/mm/ksm/pages_to_scan)
echo 4000 > /sys/kernel/mm/ksm/pages_to_scan # ksmd is slow under TCG
sharing_before=$(cat /sys/kernel/mm/ksm/pages_sharing)
move_in "$t1"
move_in "$t2"
wait_for "mg in twin 1 ($t1)" has_ksm "$t1"
wait_for "mg in twin 2 ($t2)" has_ksm "$t2"
explain_row "$t1" | grep -q injected || fail "explain does not say twin 1 was injected: $(explain_row "$t1")"
sharing_rose() { (( $(cat /sys/kernel/mm/ksm/pages_sharing) - sharing_before >= pages / 2 )); }
wait_long 300 "ksmd merged at least $((pages / 2)) pages of the twins" sharing_rose
echo "pages_sharing: $sharing_before before, $(cat /sys/kernel/mm/ksm/pages_sharing) after"
echo "$scan_before" > /sys/kernel/mm/ksm/pages_to_scan

# 3. Four threads that each start a new (sleeping) thread every 100 ms, up
# to 300: moved in while they are at it.
rm -f /run/pgt-pl-spawner.done
systemd-run --quiet --unit=pgt-pl-spawner python3 -c '
import threading, time
lock = threading.Lock()
count = [0]
def spawn():
    while True:
        with lock:
            if count[0] >= 300:
                break
            count[0] += 1
        threading.Thread(target=time.sleep, args=(10**6,), daemon=True).start()
        time.sleep(0.1)
spawners = [threading.Thread(target=spawn) for _ in range(4)]
for t in spawners:
    t.start()
for t in spawners:
    t.join()
open("/run/pgt-pl-spawner.done", "w").close()
time.sleep(10**6)'
s=$(systemctl show -P MainPID pgt-pl-spawner.service)
wait_for "the spawner is creating threads" bash -c "(( \$(ls /proc/$s/task | wc -l) > 8 ))"
move_in "$s"
echo "moved the spawner ($s) in with $(threads_of "$s") threads"
wait_for "mg in the spawner" has_ksm "$s"
[[ -e /run/pgt-pl-spawner.done ]] && echo "note: the spawner was done before the injection showed"
echo "injected with the spawner at $(threads_of "$s") threads"
wait_long 300 "the spawner is done" test -e /run/pgt-pl-spawner.done
assert_eq "the policy of all $(threads_of "$s") threads" "interleave:0-1" "$(mempolicy_of "$s")"
systemctl is-active --quiet pgt-pl-spawner.service || fail "the spawner died"

# 7a. A service under a seccomp filter, started in the slice.
systemd-run --quiet --unit=pgt-pl-seccomp -p Slice=pgt-pl.slice -p SystemCallFilter=@system-service sleep infinity
p=$(systemctl show -P MainPID pgt-pl-seccomp.service)
# systemd-run returns once the service forked; the filter comes before exec.
wait_for "the filtered service runs under its filter" bash -c "grep -q '^Seccomp:[[:space:]]*2' /proc/$p/status"
wait_for "explain shows the filtered service skipped for its filter" \
        bash -c "policyctl explain $p | grep -E '^ *$p +skipped.*seccomp'"
explain_row "$p"
assert_eq "the filtered service's KSM" no "$(ksm_of "$p")"

# 7b. A process that another tracer holds, moved in.
systemd-run --quiet --unit=pgt-pl-traced sleep infinity
p2=$(systemctl show -P MainPID pgt-pl-traced.service)
systemd-run --quiet --unit=pgt-pl-tracer python3 -c '
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(0x4206, int(sys.argv[1]), None, None) != 0:  # PTRACE_SEIZE
    sys.exit("PTRACE_SEIZE: errno %d" % ctypes.get_errno())
time.sleep(10**6)' "$p2"
tracer=$(systemctl show -P MainPID pgt-pl-tracer.service)
wait_for "the target is traced by $tracer" bash -c "grep -q '^TracerPid:[[:space:]]*$tracer\$' /proc/$p2/status"
move_in "$p2"
wait_for "explain shows the traced process skipped as traced" \
        bash -c "policyctl explain $p2 | grep -E '^ *$p2 +skipped.*traced'"
explain_row "$p2"
assert_eq "the traced process's KSM" no "$(ksm_of "$p2")"
assert_eq "its tracer" "$tracer" "$(status_of "$p2" TracerPid)"
for u in pgt-pl-seccomp pgt-pl-traced pgt-pl-tracer; do
        systemctl is-active --quiet "$u.service" || fail "$u died"
done
echo "ok: both skipped processes, and the tracer, still run"
policyctl status | grep -E '^ *Processes:' || fail "policyctl status has no Processes: line"

# 9. Idle: nothing forks or moves; policyd's threads are switched to only
# when it wakes up. Its watchdog (WatchdogSec=3min) may ping once.
pid=$(systemctl show -P MainPID policyd.service)
no_pending() { ! busctl call org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 \
        org.policygroups.PolicyGroups1.Manager ListProcesses s "" | has '"pending"'; }
wait_for "no process is pending" no_pending
# Then the tail of the last requests: policyd keeps its links to the
# injector 10 s after the last reply (inject-client.c), then closes them,
# and the helpers' units stop, each with a few signals from PID 1 that wake
# policyd. The quiet minute begins after the last has gone (under TCG that
# took more than 12 s once: 27 wakeups in the minute).
no_helpers() {
        [[ -z $(systemctl list-units --state=active,activating,deactivating,reloading --plain --no-legend \
                'policyd-inject@*.service') ]]
}
sleep 10
wait_for "the injector's helper units are gone" no_helpers
sleep 2
quiet_minute "$pid"
echo "policyd woke $quiet_wakeups times in 60 s with $(threads_of "$pid") threads"
(( quiet_wakeups <= 2 )) || fail "policyd woke $quiet_wakeups times in a quiet minute"
