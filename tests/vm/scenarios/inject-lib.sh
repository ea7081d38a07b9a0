# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the injector scenarios (96-98) after lib.sh and policyd-lib.sh:
# requests to policyd-inject.socket, and checks of their targets from
# outside, in /proc.

# pgt_setup, the socket, and the client where any user may run it (the
# scenario dir may not be).
inject_setup() {
        pgt_setup
        inject_tmp=$(mktemp -d)
        chmod 0755 "$inject_tmp"
        install -m 0755 "$SCENARIO_DIR/inject-client.py" "$inject_tmp/inject-client.py"
        trap 'rm -rf "$inject_tmp"; pgt_cleanup' EXIT
        systemctl start policyd-inject.socket
        assert_eq "policyd-inject.socket" active "$(systemctl is-active policyd-inject.socket)"
}

# inject PID KEY=VALUE...: the reply line, logged.
inject() {
        local reply
        reply=$("$inject_tmp/inject-client.py" "$@") || fail "no reply to: $*: $reply"
        echo "request: pid=$1 ${*:2}" >&2
        echo "reply:   $reply" >&2
        echo "$reply"
}

# field REPLY KEY: one value of a reply line, unquoted.
field() {
        python3 -c 'import shlex, sys
print(dict(t.split("=", 1) for t in shlex.split(sys.argv[1])).get(sys.argv[2], "(none)"))' "$1" "$2"
}

# start_target UNIT [systemd-run options...]: a python3 with 4 more threads
# that sleep, as a transient service; prints its PID once all 5 are there.
start_target() {
        local unit=$1 pid
        shift
        systemd-run --quiet --unit="$unit" "$@" python3 -c '
import threading, time
for _ in range(4):
    threading.Thread(target=time.sleep, args=(10**6,), daemon=True).start()
time.sleep(10**6)' >&2
        wait_for "$unit runs 5 threads" target_threads_are "$unit" 5 >&2
        pid=$(systemctl show -P MainPID "$unit")
        echo "$pid"
}

target_threads_are() { # UNIT N
        local pid
        pid=$(systemctl show -P MainPID "$1")
        [[ $pid != 0 && $(ls "/proc/$pid/task" | wc -l) == "$2" ]]
}

# has_mg PID: some mapping has mg in its VmFlags.
has_mg() {
        grep '^VmFlags:' "/proc/$1/smaps" | grep -qw mg
}

no_mg() { ! has_mg "$1"; }

policies_are() { # PID WANT (as thread_policies prints it)
        [[ $(thread_policies "$1") == "$2" ]]
}

# thread_policies PID: each thread's task policy (numa_maps' first line), sorted, with counts.
thread_policies() {
        local t
        for t in /proc/"$1"/task/*; do
                head -n 1 "$t/numa_maps" | awk '{ print $2 }'
        done | sort | uniq -c | awk '{ print $2 "x" $1 }' | paste -sd' '
}

# status_of PID FIELD: a field of /proc/PID/status.
status_of() {
        awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

status_is() { # PID FIELD VALUE
        [[ $(status_of "$1" "$2") == "$3" ]]
}

# No helper instance was killed by a signal, dumped core or failed since
# the scenario began (the runner checks the same of policyd).
inject_never_crashed() {
        local lines
        journalctl --sync
        lines=$(journalctl -b --since "$since" --no-pager -o cat _PID=1 + _TRANSPORT=kernel |
                grep -E "policyd-inject@[^ ]*\.service: (Main process exited, code=(killed|dumped)|Failed with result)|policyd-inject\[[0-9]+\]: segfault|traps: policyd-inject" || true)
        [[ -z $lines ]] || fail "an injector helper crashed or failed: $lines"
        echo "ok: no injector helper crashed or failed"
}
