#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 6: a malformed policy leaves a warning with file:line in the
# journal (and CONFIG_FILE=/CONFIG_LINE= fields); other groups still apply.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-good '[PolicyGroup]\n[Match]\nUnit=pgt-good.service\n[Swap]\nSwapHigh=12M\n'
pgt_policy pgt-bad '[PolicyGroup]\nPriority=lots\n[Swap]\nSwapMax=2Q\nthis line is junk\n'
start_policyd
systemd-run --unit=pgt-good sleep infinity
path=$cg$(unit_cgroup pgt-good.service)
wait_for "the good group applies" file_is "$path/memory.swap.high" 12582912

log=$(policyd_log)
grep -qF "/etc/policy.d/pgt-bad.policy:2:" <<<"$log" || fail "no file:line warning for Priority=lots in: $log"
grep -qF "/etc/policy.d/pgt-bad.policy:4:" <<<"$log" || fail "no file:line warning for SwapMax=2Q"
grep -qF "/etc/policy.d/pgt-bad.policy:5:" <<<"$log" || fail "no file:line warning for the junk line"
echo "ok: warnings name file and line"
fields=$(journalctl -b -u policyd.service --since "$since" -o verbose --no-pager CONFIG_FILE=/etc/policy.d/pgt-bad.policy)
grep -q "CONFIG_LINE=4" <<<"$fields" || fail "no CONFIG_LINE=4 journal field"
echo "ok: CONFIG_FILE= and CONFIG_LINE= fields"
systemctl is-active --quiet policyd.service || fail "policyd died on a malformed file"
