#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# policyd --dry-run --once logs what it would do and changes nothing;
# policyd --once applies everything and exits (boot-time and embedded use).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-once '[PolicyGroup]\n[Match]\nUnit=pgt-once.service\n[Swap]\nSwapHigh=44M\n[Attributes]\nXAttr=user.slo.class=once\n'
systemd-run --unit=pgt-once sleep infinity
path=$cg$(unit_cgroup pgt-once.service)
systemctl is-active --quiet policyd.service && fail "policyd is running; this scenario needs it stopped"

out=$(timeout 120 /usr/libexec/policyd --dry-run --once 2>&1) || fail "policyd --dry-run --once failed: $out"
grep -q "Would set user.policy.group=pgt-once" <<<"$out" || fail "dry run did not say it would tag: $out"
grep -q "Would set memory.swap.high=46137344" <<<"$out" || fail "dry run did not say it would set swap.high: $out"
echo "ok: dry run lists the changes"
assert_no_xattr "$path" user.policy.group
assert_file_eq "$path/memory.swap.high" max
[[ -z $(ls -A /run/policyd 2>/dev/null) ]] || fail "dry run left records in /run/policyd: $(ls /run/policyd)"

out=$(timeout 120 /usr/libexec/policyd --once 2>&1) || fail "policyd --once failed: $out"
assert_xattr "$path" user.policy.group pgt-once
assert_xattr "$path" user.slo.class once
assert_file_eq "$path/memory.swap.high" 46137344
pgrep -x policyd >/dev/null && fail "policyd --once is still running"
echo "ok: --once applied and exited"
