#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 26, item 1: one request a move. A group with ApplyToRunning=yes,
# KSM=yes and NUMAPolicy=local and no Executable=: what a process should
# carry does not depend on its executable, so policyd sends one request
# (ensure=1) and the helper reads, sets what differs and answers once.
# Judged from outside: the state in smaps and numa_maps, policyd's count of
# injector requests (policyctl status), and the helper's own replies in
# the journal. And what the process had already is not policyd's: a
# process that turned KSM on and chose the local policy itself is not
# stopped when it moves in (the helper answers "queried"), and keeps both
# when it moves out again; one that policyd set is undone. And a restart
# of policyd stops no process that is already right.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"

requests() { policyctl status | grep -oE '[0-9]+ requests on' | grep -oE '^[0-9]+'; }
settled() { ! policyctl explain pgt-one-home.scope | has pending; }

pgt_policy pgt-one '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-one.slice\n[Memory]\nKSM=yes\nNUMAPolicy=local\n'
start_policyd

systemd-run --quiet --scope --unit=pgt-one-home --slice=pgt-one.slice sleep infinity &
home=$!
wait_for "the scope's sleep ($home) has KSM and local" state_is "$home" yes local
wait_for "nothing pending" settled
home_cg=$cg$(unit_cgroup pgt-one-home.scope)

# Two quiet python3 processes of three threads each (no fork, no exec): one
# as it starts, one that sets KSM and the local policy itself first, before
# its threads (which inherit the policy).
quiet='
import ctypes, os, sys, threading, time
if sys.argv[1] == "self":
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(67, 1, 0, 0, 0) != 0:          # PR_SET_MEMORY_MERGE
        sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
    if libc.syscall(238, 4, None, 0) != 0:       # set_mempolicy(MPOL_LOCAL)
        sys.exit("set_mempolicy: %s" % os.strerror(ctypes.get_errno()))
for _ in range(2):
    threading.Thread(target=time.sleep, args=(100000,), daemon=True).start()
time.sleep(100000)'
systemd-run --quiet --unit=pgt-one-plain python3 -c "$quiet" plain
systemd-run --quiet --unit=pgt-one-self python3 -c "$quiet" self
wait_for "both quiet processes run" systemctl is-active --quiet pgt-one-plain.service pgt-one-self.service
plain=$(systemctl show -P MainPID pgt-one-plain.service)
self=$(systemctl show -P MainPID pgt-one-self.service)
wait_for "three threads in each" bash -c "(( \$(ls /proc/$plain/task | wc -l) >= 3 && \$(ls /proc/$self/task | wc -l) >= 3 ))"
assert_eq "plain before the move" "ksm=no mempolicy=default" "$(state_of "$plain")"
assert_eq "self before the move" "ksm=yes mempolicy=local" "$(state_of "$self")"

# 1. In: one request, which sets both.
n0=$(requests)
echo "$plain" > "$home_cg/cgroup.procs"
wait_for "KSM and local in every thread of $plain" state_is "$plain" yes local
wait_for "nothing pending" settled
n1=$(requests)
echo "requests for the move in: $((n1 - n0))"
(( n1 - n0 == 1 )) || fail "the move in took $((n1 - n0)) injector requests, not 1"
policyctl explain "$plain" | has -E "^ *$plain +injected" || fail "explain $plain does not say injected: $(policyctl explain "$plain")"

# 1b. policyd restarts: the process is already right, and is not stopped
# again (no undo decided before its cgroup's groups are known).
restart_since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart policyd.service
wait_for "policyd answers after the restart" policyctl status
wait_for "$plain is decided again" bash -c "policyctl explain $plain | grep -qE '^ *$plain +(injected|as-wanted)'"
wait_for "nothing pending" settled
sleep 2
# The new policyd's requests alone (the helper names its peer): the
# injection before the restart may fall in the same second.
me=$(systemctl show -P MainPID policyd.service)
after=$(journalctl -b -u 'policyd-inject@*' --since "$restart_since" --no-pager -o cat |
        grep -E "^peer pid $me uid 0: pid=$plain outcome=" || true)
echo "the helper's replies for $plain after the restart: ${after:-none}"
grep -v "outcome=queried" <<<"$after" | grep -q . && fail "after the restart, the helper did more than read $plain"
assert_eq "$plain after the restart" "ksm=yes mempolicy=local" "$(state_of "$plain")"
n1=$(requests)

# 2. Out: one request, which takes back what policyd set.
echo "$plain" > "$cg$(unit_cgroup pgt-one-plain.service)/cgroup.procs"
wait_for "KSM off and default again in $plain" state_is "$plain" no default
wait_for "nothing pending for $plain" bash -c "! policyctl explain $plain 2>/dev/null | grep -q pending"
n2=$(requests)
echo "requests for the move out: $((n2 - n1))"
(( n2 - n1 == 1 )) || fail "the move out took $((n2 - n1)) injector requests, not 1"

# 3. A process that has it all already: one request, answered as a query,
# nothing stopped; as-wanted.
echo "$self" > "$home_cg/cgroup.procs"
wait_for "explain says $self is as wanted" bash -c "policyctl explain $self | grep -qE '^ *$self +as-wanted'"
n3=$(requests)
echo "requests for the move in of a process that had it: $((n3 - n2))"
(( n3 - n2 == 1 )) || fail "the move in of $self took $((n3 - n2)) injector requests, not 1"
replies=$(journalctl -b -u 'policyd-inject@*' --since "$since" --no-pager -o cat | grep -E "pid=$self outcome=" || true)
echo "the helper's replies for $self: $replies"
grep -q "pid=$self outcome=queried .*threads=0 " <<<"$replies" ||
        fail "the helper's reply for $self was not queried with no thread stopped"
grep -v "outcome=queried" <<<"$replies" | grep -q . && fail "the helper did more than read $self"

# 4. Out again: what it had itself is not policyd's to take back.
echo "$self" > "$cg$(unit_cgroup pgt-one-self.service)/cgroup.procs"
sleep 5
wait_for "nothing pending for $self" bash -c "! policyctl explain $self 2>/dev/null | grep -q pending"
assert_eq "self after moving out" "ksm=yes mempolicy=local" "$(state_of "$self")"
policyd_log | grep -E "Undid in PID $self" && fail "policyd undid in $self what it did not set"

kill "$home" 2>/dev/null || true
systemctl is-active --quiet policyd.service || fail "policyd is not running"
echo "ok: one request a move; what a process had itself stays its own"
