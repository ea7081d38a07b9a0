#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scenario 8: a child asks for more swap than its slice allows; policyctl
# explain shows the request and the slice's cap side by side.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

printf '[Slice]\nMemorySwapMax=32M\n' > /etc/systemd/system/pgt-capped.slice
pgt_policy pgt-big '[PolicyGroup]\n[Match]\nUnit=pgt-child.service\n[Swap]\nSwapMax=64M\n'
systemctl daemon-reload
start_policyd
systemd-run --unit=pgt-child --slice=pgt-capped.slice sleep infinity
wait_for "child gets its request" prop_is pgt-child.service MemorySwapMax 67108864

out=$(policyctl explain pgt-child.service)
echo "$out"
grep -q "64M" <<<"$out" || fail "explain does not show the requested 64M"
grep -q "capped by /pgt.slice/pgt-capped.slice" <<<"$out" || fail "explain does not name the capping slice"
grep -q "memory.swap.max is 32M" <<<"$out" || fail "explain does not show the slice's limit"
json=$(policyctl --json explain pgt-child.service)
python3 - "$json" <<'PY' 2>/dev/null || grep -q '"capped by' <<<"$json" || fail "--json explain lacks the cap note"
import json, sys
d = json.loads(sys.argv[1])
assert any("capped by" in (k.get("note") or "") for k in d["knobs"]), d
PY
echo "ok: explain shows requested and effective with the cap"
