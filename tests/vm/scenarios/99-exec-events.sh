#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9, noticing moves): exec events from the proc connector.
# A group with ApplyToRunning=yes and KSM=yes limited to python3 by
# Executable=, matched by Slice=. A bash in a scope of the slice forks and
# execs python3 once told to, after policyd has looked at the scope: no
# write to cgroup.procs, no unit, only the exec. The python3 gets KSM, the
# bash does not. policyd holds a connector socket only while such a group
# is loaded.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

ksm_is() { [[ $(ksm_of "$1") == "$2" ]]; }
# How many of PID's fds are NETLINK_CONNECTOR (protocol 11) sockets: their
# inodes, against the netlink sockets the kernel lists (policyd shares
# the host's network namespace).
connector_sockets() {
        local inodes
        inodes=$(awk 'NR > 1 && $2 == 11 { print $10 }' /proc/net/netlink)
        find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' | sed 's/^socket:\[\(.*\)\]$/\1/' |
                grep -cxF -f <(echo "$inodes") || true
}
processes_line() { policyctl status | grep 'Processes:'; }

pgt_policy pgt-exec '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-exec.slice\nExecutable=/usr/bin/python3*\n[Memory]\nKSM=yes\n'
start_policyd
pd=$(systemctl show -P MainPID policyd.service)
# For the record: the sandbox that lets the connector answer.
echo "sandbox: $(systemd-analyze security policyd.service --no-pager 2>&1 | tail -n 1)"

# 1. Armed: status says so, and policyd has the socket.
wait_for "status shows exec events from the proc connector" \
        bash -c "policyctl status | grep -q 'exec events: proc connector'"
processes_line
assert_eq "connector sockets of policyd ($pd)" 1 "$(connector_sockets "$pd")"

# 2. A bash in a scope of the slice, waiting on a FIFO: policyd sees it
# (systemd writes its PID into cgroup.procs) and skips it.
fifo=/run/pgt-exec.fifo
rm -f "$fifo"
mkfifo "$fifo"
systemd-run --quiet --scope --unit=pgt-exec-a --slice=pgt-exec.slice \
        bash -c "read -r _ < $fifo; python3 -c 'import time; time.sleep(100000)'; exit 0" &
sh=$!
wait_for "scope pgt-exec-a is running" systemctl is-active --quiet pgt-exec-a.scope
wait_for "bash ($sh) is looked at and skipped: Executable= does not match" \
        bash -c "policyctl explain $sh | grep -E '^ *$sh +skipped.*Executable='"
assert_eq "bash has no KSM" no "$(ksm_of "$sh")"

# 3. Now the fork and exec of python3, and nothing else.
echo go > "$fifo"
wait_for "python3 started as bash's child" pgrep -P "$sh" -x python3
py=$(pgrep -P "$sh" -x python3)
[[ $(cat "/proc/$py/cgroup") == "0::$(unit_cgroup pgt-exec-a.scope)" ]] || fail "python3 is not in the scope's cgroup"
start=$SECONDS
wait_for "KSM injected into the exec'd python3 ($py)" ksm_is "$py" yes
echo "python3 had mg after ~$((SECONDS - start)) s"
out=$(policyctl explain "$py")
echo "$out"
grep -qE "^ *$py +injected" <<<"$out" || fail "explain $py does not say injected"
policyd_log | grep -E "Injected into PID $py .*python3" || fail "no journal line for the injection into $py"
assert_eq "bash still has no KSM" no "$(ksm_of "$sh")"

# 4. Without Executable=, exec events are not needed: the socket goes.
pgt_policy pgt-exec '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-exec.slice\n[Memory]\nKSM=yes\n'
policyctl reload
wait_for "status says exec events are not needed" bash -c "policyctl status | grep -q 'exec events: not needed'"
processes_line
assert_eq "connector sockets of policyd ($pd) after the reload" 0 "$(connector_sockets "$pd")"
assert_eq "policyd is the same process" "$pd" "$(systemctl show -P MainPID policyd.service)"
policyd_log | grep -E "Listening to exec events" || fail "no journal line for the subscription"

kill "$py" 2>/dev/null || true
rm -f "$fifo"
