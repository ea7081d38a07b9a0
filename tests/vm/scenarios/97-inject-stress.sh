#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The injector under load on the guest's kernel (6.12, where
# PR_SET_MEMORY_MERGE exists and there are 2 NUMA nodes): test-inject-stress
# (tests/unit) injects KSM on and off and preferred:0/default a few hundred
# times into a target with 8 threads that counts its signals and checks its
# syscall results, while signals are sent to it. Zero lost signals, zero
# wrong results, mg and the policy as asked; and KSM really checked, not
# skipped as on a kernel without it.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"

tool=/usr/local/bin/test-inject-stress
[[ -x $tool ]] || fail "$tool is missing: tests/vm/run ships it from BUILDDIR/tests/unit"

rc=0
# Under TCG an injection takes far longer than on the host: more time, and
# a longer sleep to be injected into ten times.
out=$(POLICYGROUPS_STRESS_INJECTIONS=300 POLICYGROUPS_STRESS_SECONDS=200 POLICYGROUPS_STRESS_SLEEP_SECONDS=5 \
        "$tool" 2>&1) || rc=$?
echo "$out"
[[ $rc == 77 ]] && fail "test-inject-stress skipped itself on the guest: $(tail -n 1 <<<"$out")"
grep -q '^# KSM' <<<"$out" && fail "KSM was not exercised: $(grep '^# KSM' <<<"$out")"
grep -q '^# NUMA' <<<"$out" && fail "mempolicy was not exercised: $(grep '^# NUMA' <<<"$out")"
grep -q '^ok - no SIGUSR1 lost' <<<"$out" || fail "signals were lost"
grep -q '^ok - no corrupted syscall result' <<<"$out" || fail "syscall results were corrupted"
grep -q '^ok - a 5 s nanosleep' <<<"$out" || fail "the interrupted sleep was not right"
grep -q '^ok - mg follows PR_SET_MEMORY_MERGE' <<<"$out" || fail "mg did not follow"
grep -q '^ok - the task policy is right in every thread' <<<"$out" || fail "the task policy was wrong"
[[ $rc == 0 ]] || fail "test-inject-stress failed (exit status $rc)"
echo "ok: $(grep -m1 'injections applied in' <<<"$out" | sed 's/^# //')"
