#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9, item 6): policyctl exec --group starts the command in a
# new scope that is in the group. The command sees, from its first
# instruction: KSM on ("mg" in its smaps), the group's task mempolicy in its
# numa_maps, and a scope whose memory.swap.max is the group's and which
# explain lists in the group. Its exit code passes through. Refusals exit
# with policyctl's codes and leave no scope behind; so does a command that
# cannot be run, after the scope was made.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"

exec_units() {
        systemctl list-units --all --plain --no-legend 'policyctl-exec*' | awk '{ print $1 }'
}
exec_cleanup() {
        local units
        mapfile -t units < <(exec_units)
        (( ${#units[@]} == 0 )) || systemctl stop "${units[@]}" 2>/dev/null || true
}
no_exec_units() {
        [[ -z $(exec_units) ]]
}
pgt_setup
trap 'exec_cleanup; pgt_cleanup' EXIT
exec_cleanup

[[ $(cat /sys/devices/system/node/has_memory 2>/dev/null) == 0-1 ]] ||
        skip "needs NUMA nodes 0 and 1 with memory, has: $(cat /sys/devices/system/node/has_memory 2>/dev/null)"
[[ -d /sys/kernel/mm/ksm ]] || skip "the kernel has no KSM"

pgt_policy pgt-exec '[PolicyGroup]\n[Swap]\nSwapMax=48M\n[Memory]\nKSM=yes\nNUMAPolicy=interleave\nNUMANodes=0-1\n'
start_policyd
out=/run/pg-exec
rm -rf "$out"
mkdir -p "$out"

# --- the command, in its scope. It reads its own /proc/$$ first thing:
# sh is CMD itself, policyctl having exec'd it.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='cg=$(sed -n "s/^0:://p" /proc/$$/cgroup)
echo "cgroup=$cg"
echo "swap_max=$(cat "/sys/fs/cgroup$cg/memory.swap.max")"
echo "vmflags=$(grep -m1 "^VmFlags:" /proc/$$/smaps)"
echo "policy=$(head -n 1 /proc/$$/numa_maps | cut -d " " -f 2)"
echo "unit_file_junk=$(grep -cv -e = -e "^\[" -e "^\$" -e "^#" "/run/systemd/transient/${cg##*/}")"
policyctl explain $$ > "$1/explain" 2>&1
exit 7'
set +e
policyctl exec --group=pgt-exec -- sh -c "$inner" sh "$out" > "$out/seen" 2> "$out/stderr"
rc=$?
set -e
cat "$out/seen" "$out/stderr"
assert_eq "exit code of the command" 7 "$rc"
grep -qx 'Running as unit: policyctl-exec-[0-9]*\.scope in group pgt-exec (KSM on, mempolicy interleave:0-1)' \
        "$out/stderr" || fail "no 'Running as unit' line as expected: $(cat "$out/stderr")"
! grep -q Warning "$out/stderr" || fail "exec warned: $(cat "$out/stderr")"
unit=$(sed -n 's/^Running as unit: \([^ ]*\) .*/\1/p' "$out/stderr")
cgroup=$(sed -n 's/^cgroup=//p' "$out/seen")
assert_eq "the command's cgroup is the scope's" "/system.slice/$unit" "$cgroup"
assert_eq "memory.swap.max when the command started" 50331648 "$(sed -n 's/^swap_max=//p' "$out/seen")"
grep -qw mg <<<"$(sed -n 's/^vmflags=//p' "$out/seen")" || fail "no mg in the command's VmFlags: $(cat "$out/seen")"
echo "ok: KSM on in the command from its start"
assert_eq "the command's task mempolicy (numa_maps)" "interleave:0-1" "$(sed -n 's/^policy=//p' "$out/seen")"
grep -qx "Groups: pgt-exec (runtime)" "$out/explain" || fail "explain from inside: $(cat "$out/explain")"
grep -qx "  Unit: $unit" "$out/explain" || fail "explain names another unit: $(cat "$out/explain")"
echo "ok: explain lists the command's scope in pgt-exec"
policyd_log > "$out/log"
grep -qF "$unit joined group 'pgt-exec' at runtime" "$out/log" || fail "policyd did not log the assignment of $unit"
# The command had KSM and its mempolicy from exec, not from policyd's
# process layer (which injects only with ApplyToRunning=yes anyway).
pid=${unit#policyctl-exec-}
pid=${pid%.scope}
! grep -F "into PID $pid " "$out/log" || fail "policyd injected into the command (PID $pid)"
echo "ok: no injection into the command (PID $pid)"
# The default Description= is the command line on one line: the multi-line
# script must not break the transient unit file that systemd writes.
! grep -F "/run/systemd/transient/$unit" "$out/log" || fail "policyd could not read the transient unit file"
assert_eq "lines of the scope's transient unit file that are not assignments" 0 \
        "$(sed -n 's/^unit_file_junk=//p' "$out/seen")"

# The scope goes with its last process, and policyd forgets the assignment
# of the transient unit: a later scope with the same name is another one.
wait_for "the scope of the finished command is gone" no_exec_units
wait_for "policyd dropped the runtime assignment of $unit" \
        bash -c "! grep -qF '$unit' /run/policyd/assignments 2>/dev/null"

# --- --quiet, and the options
set +e
policyctl exec --quiet --group=pgt-exec --unit=pgt-exec-named --description="named by the test" -- \
        sh -c 'systemctl show -P Description pgt-exec-named.scope; systemctl show -P Transient pgt-exec-named.scope' \
        > "$out/seen" 2> "$out/stderr"
rc=$?
set -e
assert_eq "exit code with --quiet" 0 "$rc"
[[ ! -s $out/stderr ]] || fail "--quiet printed: $(cat "$out/stderr")"
assert_eq "--description and the scope's transience" "named by the test yes" "$(tr '\n' ' ' < "$out/seen" | sed 's/ $//')"
echo "ok: --quiet prints nothing; --unit and --description reach systemd"

# --- refusals: policyctl's exit codes, no command run, no scope left
refused() { # DESCRIPTION WANTED-RC STDERR-PATTERN ARGS...
        local what=$1 want=$2 pattern=$3 rc
        shift 3
        rm -f "$out/ran"
        set +e
        "$@" > "$out/seen" 2> "$out/stderr"
        rc=$?
        set -e
        [[ $rc == "$want" ]] || fail "$what: exit $rc, wanted $want: $(cat "$out/stderr")"
        grep -qE -- "$pattern" "$out/stderr" || fail "$what: stderr does not match /$pattern/: $(cat "$out/stderr")"
        [[ ! -e $out/ran ]] || fail "$what: the command ran"
        wait_for "$what: no policyctl-exec scope left" no_exec_units
        echo "ok: $what: exit $rc: $(head -n 1 "$out/stderr")"
}
refused "a group policyd has not loaded" 1 "^No policy group 'pgt-nosuch' is loaded\.$" \
        policyctl exec --group=pgt-nosuch -- touch "$out/ran"
refused "a group name that cannot be" 2 "^--group=pgt/x: group name may only contain" \
        policyctl exec --group=pgt/x -- touch "$out/ran"
refused "no -- before the command" 2 "^exec needs '--' before the command" \
        policyctl exec --group=pgt-exec touch "$out/ran"
refused "no command" 2 "^exec needs a command after '--'" policyctl exec --group=pgt-exec --
refused "an unprivileged caller" 4 "^Permission denied: 'policyctl exec'" \
        setpriv --reuid=65534 --regid=65534 --clear-groups policyctl exec --group=pgt-exec -- touch "$out/ran"
# This one fails after the scope was made and assigned: the empty scope goes.
refused "a command that does not exist" 127 "^Failed to execute /nonexistent/pgt-cmd: No such file" \
        policyctl exec --group=pgt-exec -- /nonexistent/pgt-cmd
made=$(sed -n 's/^Running as unit: \([^ ]*\) .*/\1/p' "$out/stderr")
[[ -n $made ]] || fail "exec did not get as far as making a scope: $(cat "$out/stderr")"
wait_for "policyd dropped the runtime assignment of $made, the scope of a failed exec" \
        bash -c "! grep -qF '$made' /run/policyd/assignments 2>/dev/null"
systemctl stop policyd.service
refused "policyd not running" 3 "^policyd is not running" policyctl exec --group=pgt-exec -- touch "$out/ran"
