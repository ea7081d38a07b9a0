#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# policyd starts as a Type=notify service under its sandbox, owns its bus
# name, and answers policyctl status. Prints the systemd-analyze security
# exposure score for the record.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

start_policyd
assert_eq "policyd Type" notify "$(systemctl show -P Type policyd.service)"
assert_eq "policyd status text set" yes "$([[ -n $(systemctl show -P StatusText policyd.service) ]] && echo yes || echo no)"
busctl status org.policygroups.PolicyGroups1 >/dev/null || fail "org.policygroups.PolicyGroups1 is not on the bus"
out=$(policyctl status) || fail "policyctl status failed: $out"
echo "$out"
grep -q foreground <<<"$out" || fail "policyctl status does not list the shipped group foreground"
echo "exposure: $(systemd-analyze security policyd.service 2>/dev/null | tail -n 1)"
