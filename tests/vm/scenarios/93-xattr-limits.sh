#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel's limits on user.* xattrs of a cgroup (128 names, 128 KiB of
# values) are hit: one group asks for 130 attributes, another for three of
# 50000 bytes. For each unit policyd logs ONE clear message, at warning
# level, whose text names the unit and what did not fit; the tag and the
# other knobs (MemorySwapMax, memory.swap.high) are applied all the same.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

{
        printf '[PolicyGroup]\n[Match]\nUnit=pgt-names.service\n[Swap]\nSwapMax=32M\nSwapHigh=16M\n[Attributes]\n'
        for i in $(seq 0 129); do printf 'XAttr=user.x%d=%d\n' "$i" "$i"; done
} > /etc/policy.d/pgt-names.policy
big=$(head -c 50000 /dev/zero | tr '\0' b)
{
        printf '[PolicyGroup]\n[Match]\nUnit=pgt-bytes.service\n[Swap]\nSwapMax=32M\nSwapHigh=16M\n[Attributes]\n'
        for i in 1 2 3; do printf 'XAttr=user.big%d=%s\n' "$i" "$big"; done
} > /etc/policy.d/pgt-bytes.policy
chmod 0644 /etc/policy.d/pgt-names.policy /etc/policy.d/pgt-bytes.policy
policyctl verify /etc/policy.d/pgt-names.policy /etc/policy.d/pgt-bytes.policy || fail "the test policies do not verify"

# Units first, then policyd: one apply each, so one message each.
systemd-run --unit=pgt-names sleep infinity
systemd-run --unit=pgt-bytes sleep infinity
start_policyd

for u in pgt-names pgt-bytes; do
        path=$cg$(unit_cgroup $u.service)
        wait_for "$u: tagged" xattr_is "$path" user.policy.group $u
        wait_for "$u: MemorySwapMax=32M" prop_is $u.service MemorySwapMax 33554432
        assert_file_eq "$path/memory.swap.max" 33554432
        assert_file_eq "$path/memory.swap.high" 16777216
done
sleep 3

# policyd's messages at warning level or above about UNIT: those with
# UNIT=UNIT, and those that name it in their text.
warnings_about() {
        journalctl --sync
        journalctl -b _SYSTEMD_UNIT=policyd.service --since "$since" -p warning -o json \
                --output-fields=UNIT,MESSAGE --no-pager | python3 -c 'import json, sys
for line in sys.stdin:
    e = json.loads(line)
    m = e.get("MESSAGE")
    m = m if isinstance(m, str) else repr(m)
    if e.get("UNIT") == sys.argv[1] or sys.argv[1] in m:
        print(m.replace("\n", " "))' "$1"
}

check_message() { # UNIT REQUESTED-NAME...
        local unit=$1 path present missing messages a named=0
        shift
        path=$cg$(unit_cgroup "$unit")
        present=$(getfattr --absolute-names -m '^user\.' "$path" 2>/dev/null | grep '^user\.' | sort)
        missing=$(comm -23 <(printf '%s\n' "$@" | sort) <(echo "$present"))
        [[ -n $missing ]] || fail "$unit: every attribute fitted: the limit was not hit"
        echo "$unit: $(grep -c . <<<"$present") user.* attributes; did not fit: $(tr '\n' ' ' <<<"$missing")"
        messages=$(warnings_about "$unit")
        echo "policyd's warnings about $unit:"
        head -n 5 <<<"$messages" | cut -c1-300 | sed 's/^/  /'
        assert_eq "$unit: number of warnings" 1 "$(grep -c . <<<"$messages" || true)"
        grep -qF "$unit" <<<"$messages" || fail "$unit: the message does not name the unit in its text: $messages"
        for a in $missing; do grep -qwF "$a" <<<"$messages" && named=1; done
        [[ $named == 1 ]] || fail "$unit: the message names none of the attributes that did not fit"
        echo "ok: $unit: one message, naming the unit and what did not fit"
}
# Both, whatever the first gives.
failed=()
(check_message pgt-names.service $(seq -f 'user.x%g' 0 129)) || failed+=(pgt-names.service)
(check_message pgt-bytes.service user.big1 user.big2 user.big3) || failed+=(pgt-bytes.service)
(( ${#failed[@]} == 0 )) || fail "no single clear message for: ${failed[*]}"
