# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the policyd scenarios (7x-*.sh) after lib.sh: test groups in
# /etc/policy.d, units in /etc/systemd/system, all named pgt-*, and a clean
# policyd for each scenario.

# shellcheck disable=SC2034 # used by the scenarios that source this
cg=/sys/fs/cgroup

# Everything a scenario made goes, and policyd forgets its records, so the
# next scenario starts from nothing.
pgt_cleanup() {
        local units
        # One call for all: the storm scenarios leave hundreds.
        mapfile -t units < <(systemctl list-units --all --plain --no-legend 'pgt-*' | awk '{ print $1 }')
        (( ${#units[@]} == 0 )) || systemctl stop "${units[@]}" 2>/dev/null || true
        systemctl stop policyd.service 2>/dev/null || true
        rm -rf /etc/policy.d/pgt-* /etc/systemd/system/pgt-* /run/systemd/system.control/pgt-* /run/policyd/*
        systemctl daemon-reload
        systemctl reset-failed
}

pgt_setup() {
        trap pgt_cleanup EXIT
        pgt_cleanup
        mkdir -p /etc/policy.d
        since=$(date '+%Y-%m-%d %H:%M:%S')
}

# pgt_policy NAME CONTENT: writes /etc/policy.d/NAME.policy
pgt_policy() {
        printf '%b' "$2" > "/etc/policy.d/$1.policy"
        chmod 0644 "/etc/policy.d/$1.policy"
}

start_policyd() {
        systemctl start policyd.service || fail "policyd did not start: $(journalctl -b -u policyd --no-pager | tail -20)"
        systemctl is-active --quiet policyd.service || fail "policyd is not active"
}

# wait_for DESCRIPTION CMD...: polls for up to 60 s (TCG is slow). CMD runs
# in a subshell: a check that calls fail (exit 1) is "not yet", not the
# scenario's silent end with its output thrown away.
wait_for() {
        local what=$1 i
        shift
        for i in $(seq 1 120); do
                if ("$@") >/dev/null 2>&1; then
                        echo "ok: $what (after ~$((i / 2)) s)"
                        return 0
                fi
                sleep 0.5
        done
        fail "timed out waiting for: $what"
}

xattr_is() { # PATH NAME VALUE
        [[ $(getfattr --only-values --absolute-names -n "$2" "$1" 2>/dev/null) == "$3" ]]
}

# Evaluated on every poll; "wait_for X test $(...)" would freeze the value.
prop_is() { # UNIT PROPERTY VALUE
        [[ $(systemctl show -P "$2" "$1") == "$3" ]]
}

file_is() { # PATH VALUE
        [[ $(head -n 1 "$1" 2>/dev/null) == "$2" ]]
}

unit_cgroup() {
        systemctl show -P ControlGroup "$1"
}

# What policyd logged since the scenario began.
policyd_log() {
        journalctl -b -u policyd.service --since "$since" --no-pager -o cat
}

# kill_policyd: SIGKILL policyd.service's main process, on purpose. The
# runner's crash check fails a scenario in which policyd was killed by a
# signal; this tells it that this one kill was deliberate.
kill_policyd() {
        local pid
        pid=$(systemctl show -P MainPID policyd.service)
        [[ $pid != 0 ]] || fail "policyd is not running: nothing to kill"
        echo "SIGKILL $pid" >> /run/pg-vm/deliberate-kills
        kill -KILL "$pid"
        echo "killed policyd ($pid) with SIGKILL"
}

# Counts over many units at once, one process each, for the storm
# scenarios (9x-*.sh): a process per unit is too slow under TCG.
# count_xattr NAME VALUE DIR...: how many DIRs carry NAME=VALUE.
count_xattr() {
        local name=$1 value=$2
        shift 2
        getfattr --absolute-names -n "$name" "$@" 2>/dev/null | grep -cxF "$name=\"$value\"" || true
}

# count_no_xattr NAME DIR...: how many DIRs do not carry NAME.
count_no_xattr() {
        local name=$1 have
        shift
        have=$(getfattr --absolute-names -n "$name" "$@" 2>/dev/null | grep -c "^$name=" || true)
        echo $(( $# - have ))
}

# count_file FILE VALUE DIR...: how many DIR/FILE hold VALUE.
count_file() {
        local file=$1 value=$2 d
        shift 2
        for d in "$@"; do echo "$d/$file"; done | xargs cat 2>/dev/null | grep -cxF "$value" || true
}

# count_prop PROPERTY VALUE UNIT...: how many UNITs have PROPERTY=VALUE.
count_prop() {
        local prop=$1 value=$2
        shift 2
        systemctl show -p "$prop" "$@" | grep -cxF "$prop=$value" || true
}

# all_are N CMD...: CMD prints N (for wait_long, which shows the last
# count when it gives up).
all_are() {
        local n=$1 got
        shift
        got=$("$@")
        [[ $got == "$n" ]] && return 0
        echo "$got of $n"
        return 1
}

# The process-level state of PID, read from outside as the issue asks:
# mg in smaps, and every thread's task policy (sorted, unique) in numa_maps.
ksm_of() { grep -q '^VmFlags:.* mg' "/proc/$1/smaps" && echo yes || echo no; }
mempolicy_of() {
        local t
        for t in /proc/"$1"/task/*; do awk 'NR == 1 { print $2; exit }' "$t/numa_maps" 2>/dev/null; done |
                sort -u | paste -sd' '
}
state_is() { # PID KSM MEMPOLICY
        [[ $(ksm_of "$1") == "$2" && $(mempolicy_of "$1") == "$3" ]]
}
state_of() { echo "ksm=$(ksm_of "$1") mempolicy=$(mempolicy_of "$1")"; }
