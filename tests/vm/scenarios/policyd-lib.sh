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
        local u
        for u in $(systemctl list-units --all --plain --no-legend 'pgt-*' | awk '{ print $1 }'); do
                systemctl stop "$u" 2>/dev/null || true
        done
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

# wait_for DESCRIPTION CMD...: polls for up to 60 s (TCG is slow).
wait_for() {
        local what=$1 i
        shift
        for i in $(seq 1 120); do
                if "$@" >/dev/null 2>&1; then
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
