#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario (issue 9, noticing moves): where the proc connector cannot be
# used, policyd says so once and goes on with inotify. Under
# PrivateNetwork=yes (a drop-in) the subscription is refused: the
# connector answers only the initial network namespace. Status says
# why; a reload does not say it again; a process moved in by a write to
# cgroup.procs still gets KSM.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
dropin=/run/systemd/system/policyd.service.d/pgt-private-network.conf
trap 'rm -f "$dropin"; pgt_cleanup' EXIT

systemctl start policyd-inject.socket || fail "policyd-inject.socket did not start"
mkdir -p "$(dirname "$dropin")"
printf '[Service]\nPrivateNetwork=yes\n' > "$dropin"
systemctl daemon-reload

ksm_is() { grep -q '^VmFlags:.* mg' "/proc/$1/smaps"; }

pgt_policy pgt-execu '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgt-execu.slice\nExecutable=/usr/bin/sleep\n[Memory]\nKSM=yes\n'
start_policyd
wait_for "status says exec events are unavailable, and why" \
        bash -c "policyctl status | grep -q 'exec events: unavailable (the kernel refused the subscription (ECONNREFUSED)'"
policyctl status | grep 'Processes:'
policyctl reload
policyctl reload
assert_eq "warnings about the connector after two reloads" 1 \
        "$(policyd_log | grep -c 'Exec events from the proc connector are unavailable' || true)"

# Moves still count: a sleep moved into the slice's scope gets KSM.
systemd-run --quiet --scope --unit=pgt-execu-a --slice=pgt-execu.slice sleep infinity &
a=$!
wait_for "scope pgt-execu-a is running" systemctl is-active --quiet pgt-execu-a.scope
wait_for "KSM injected into the scope's sleep ($a), without exec events" ksm_is "$a"
kill "$a" 2>/dev/null || true
