#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the injector helper refuses, through its socket on the guest's
# kernel: PID 1, a service under a seccomp filter (Seccomp: 2), a stopped
# process, one that another tracer holds; each is refused with its reason
# and left as it was (state, tracer, still running). And callers other
# than root: the socket's mode turns them away, and, with the mode opened
# up, the helper itself does (SO_PEERCRED).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
. "$SCENARIO_DIR/inject-lib.sh"
inject_setup

# refused WHAT PID REASON: the reply is refused with REASON, and nothing ran.
refused() {
        local reply
        reply=$(inject "$2" ksm=1 mempolicy=interleave:0-1)
        assert_eq "$1: outcome" refused "$(field "$reply" outcome)"
        assert_eq "$1: reason" "$3" "$(field "$reply" reason)"
        assert_eq "$1: insn (nothing injected)" - "$(field "$reply" insn)"
}

refused "PID 1" 1 "PID 1"

pid=$(start_target pgt-inject-seccomp -p SystemCallFilter=@system-service)
assert_eq "Seccomp of the filtered service" 2 "$(status_of "$pid" Seccomp)"
refused "seccomp" "$pid" "under a seccomp filter"
assert_eq "its policies" "defaultx5" "$(thread_policies "$pid")"
systemctl is-active --quiet pgt-inject-seccomp.service || fail "the filtered service died"
echo "ok: the filtered service still runs"

pid=$(start_target pgt-inject-stopped)
kill -STOP "$pid"
wait_for "the target is stopped" status_is "$pid" State T
refused "stopped" "$pid" "stopped"
assert_eq "State after" T "$(status_of "$pid" State)"
assert_eq "TracerPid after" 0 "$(status_of "$pid" TracerPid)"
kill -CONT "$pid"
assert_eq "its policies" "defaultx5" "$(thread_policies "$pid")"

# Another tracer: a python that PTRACE_SEIZEs the target and holds it.
pid=$(start_target pgt-inject-traced)
systemd-run --quiet --unit=pgt-inject-tracer python3 -c '
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206
if libc.ptrace(PTRACE_SEIZE, int(sys.argv[1]), None, None) != 0:
    sys.exit("PTRACE_SEIZE: errno %d" % ctypes.get_errno())
time.sleep(10**6)' "$pid"
tracer=$(systemctl show -P MainPID pgt-inject-tracer.service)
wait_for "the target is traced by $tracer" status_is "$pid" TracerPid "$tracer"
refused "traced" "$pid" "already traced"
assert_eq "TracerPid after" "$tracer" "$(status_of "$pid" TracerPid)"
systemctl is-active --quiet pgt-inject-traced.service || fail "the traced target died"
echo "ok: the traced target still runs, its tracer unchanged"
systemctl stop pgt-inject-tracer.service
wait_for "the tracer let go" status_is "$pid" TracerPid 0

# Callers other than root. The socket is 0600 root.
pid=$(start_target pgt-inject-plain)
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$inject_tmp/inject-client.py" "$pid" ksm=1 2>&1) &&
        fail "nobody got through the socket: $out"
grep -q "Permission denied" <<<"$out" || fail "nobody was not turned away by the socket's mode: $out"
echo "ok: the socket's mode turns nobody away: $out"
# With the mode opened, the helper turns it away itself.
chmod 0666 /run/policyd-inject.socket
reply=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$inject_tmp/inject-client.py" "$pid" ksm=1 2>&1) ||
        true
chmod 0600 /run/policyd-inject.socket
echo "reply to nobody: $reply"
assert_eq "outcome for nobody" error "$(field "$reply" outcome)"
[[ $(field "$reply" error) == "permission denied: the caller is uid 65534, not root" ]] ||
        fail "the helper did not refuse nobody: $reply"
has_mg "$pid" && fail "nobody's request changed the target"
assert_eq "its policies" "defaultx5" "$(thread_policies "$pid")"
echo "ok: the helper refuses a caller that is not root (SO_PEERCRED)"

inject_never_crashed
