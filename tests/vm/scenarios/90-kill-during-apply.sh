#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill -9 of policyd in the middle of applying a group to 300 units, and
# the restart that systemd makes (Restart=on-failure): everything
# converges; no value is written twice (the SetUnitProperties calls seen on
# the bus, and policyd's "Set" lines); and removing the group puts back
# what was there before: no tag, memory.swap.high max, and each unit's own
# MemorySwapMax= (200M from its unit file, or infinity).
# Issue 8, 1.2: what was written before the kill must still be undone.
#
# The units are slices: they have a cgroup and take MemorySwapMax= like
# services, but start without a process each, which keeps 300 of them
# within the time of a scenario under TCG.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
tmp=$(mktemp -d)
monitor=
cleanup() { [[ -n $monitor ]] && kill "$monitor" 2>/dev/null; rm -rf "$tmp"; pgt_cleanup; }
trap cleanup EXIT
# The checks after convergence go on after a failure, so that one run
# shows all of what is wrong.
problems=()
soft() { # DESCRIPTION CMD...: runs CMD (which may fail()), notes a failure
        local what=$1
        shift
        ("$@") || problems+=("$what")
}

half=150
for i in $(seq 1 $half); do
        printf '[Slice]\nMemorySwapMax=200M\n' > "/etc/systemd/system/pgt-storm-own-$i.slice"
done
systemctl daemon-reload
mapfile -t own < <(seq -f 'pgt-storm-own-%g.slice' 1 $half)
mapfile -t plain < <(seq -f 'pgt-storm-plain-%g.slice' 1 $half)
units=("${own[@]}" "${plain[@]}")
n=${#units[@]}
systemctl start "${units[@]}"
own_dirs=("${own[@]/#/$cg$(dirname "$(unit_cgroup "${own[0]}")")/}")
plain_dirs=("${plain[@]/#/$cg$(dirname "$(unit_cgroup "${plain[0]}")")/}")
dirs=("${own_dirs[@]}" "${plain_dirs[@]}")
echo "started $n units ($SECONDS s into the scenario)"

# What was there before: the kernel and systemd agree.
assert_eq "own MemorySwapMax before" $half "$(count_prop MemorySwapMax 209715200 "${own[@]}")"
assert_eq "plain MemorySwapMax before" $half "$(count_prop MemorySwapMax infinity "${plain[@]}")"
assert_eq "memory.swap.max before (own)" $half "$(count_file memory.swap.max 209715200 "${own_dirs[@]}")"
assert_eq "memory.swap.high before" "$n" "$(count_file memory.swap.high max "${dirs[@]}")"
assert_eq "untagged before" "$n" "$(count_no_xattr user.policy.group "${dirs[@]}")"

pgt_policy pgt-storm '[PolicyGroup]\n[Match]\nUnit=pgt-storm-own-*.slice pgt-storm-plain-*.slice\n[Swap]\nSwapMax=48M\nSwapHigh=24M\n[Attributes]\nXAttr=user.slo.class=storm\n'

# Every SetUnitProperties call on the bus, whether policyd logged it or not.
dbus-monitor --system "type='method_call',interface='org.freedesktop.systemd1.Manager',member='SetUnitProperties'" \
        > "$tmp/calls" 2>&1 &
monitor=$!
wait_for "dbus-monitor is listening" test -s "$tmp/calls"

start_policyd
first=$(systemctl show -P MainPID policyd.service)
killed_at=
for _ in $(seq 1 1200); do
        k=$(count_xattr user.policy.group pgt-storm "${dirs[@]}")
        if (( k >= 20 )); then
                kill_policyd
                killed_at=$k
                break
        fi
        sleep 0.1
done
[[ -n $killed_at ]] || fail "policyd tagged fewer than 20 of $n units in 120 s"
(( killed_at < n )) || fail "policyd had applied all $n units before the kill: nothing was cut short"
echo "ok: killed with $killed_at of $n units tagged"

wait_long 60 "systemd restarted policyd" bash -c \
        "[[ \$(systemctl show -P MainPID policyd.service) != 0 && \$(systemctl show -P MainPID policyd.service) != $first ]] && systemctl is-active --quiet policyd.service"

wait_long 150 "all $n units tagged" all_are "$n" count_xattr user.policy.group pgt-storm "${dirs[@]}"
wait_long 60 "all $n units have MemorySwapMax=48M" all_are "$n" count_prop MemorySwapMax 50331648 "${units[@]}"
assert_eq "memory.swap.max 48M in the kernel" "$n" "$(count_file memory.swap.max 50331648 "${dirs[@]}")"
assert_eq "memory.swap.high 24M" "$n" "$(count_file memory.swap.high 25165824 "${dirs[@]}")"
assert_eq "user.slo.class=storm" "$n" "$(count_xattr user.slo.class storm "${dirs[@]}")"

# Nothing written twice, by the killed policyd and its successor together.
sleep 2
kill "$monitor"
wait "$monitor" 2>/dev/null || true
monitor=
awk '/member=SetUnitProperties/ { call = 1; unit = ""; next }
     /^(method call|method return|signal|error) / { call = 0 }
     call && /^ *string "/ { gsub(/"/, "", $2); if (unit == "") unit = $2; else print unit, $2 }' \
        "$tmp/calls" | sort > "$tmp/calls.sorted"
echo "$(wc -l < "$tmp/calls.sorted") SetUnitProperties (unit, property) pairs on the bus"
no_call_twice() {
        local twice
        twice=$(uniq -d "$tmp/calls.sorted")
        [[ -z $twice ]] || fail "SetUnitProperties sent more than once ($(grep -c . <<<"$twice") units) for: $(head -n 10 <<<"$twice" | tr '\n' ' ')"
        echo "ok: no property was sent to systemd twice"
}
soft "a property sent to systemd twice" no_call_twice

journalctl --sync
journalctl -b _SYSTEMD_UNIT=policyd.service --since "$since" -o json --output-fields=UNIT,MESSAGE --no-pager |
        python3 -c 'import json, sys
for line in sys.stdin:
    e = json.loads(line)
    m = e.get("MESSAGE")
    if isinstance(m, str) and m.startswith("Set "):
        print(e.get("UNIT", "-"), m[4:].split("=", 1)[0])' | sort > "$tmp/sets"
echo "$(wc -l < "$tmp/sets") \"Set\" lines in the journal"
no_set_twice() {
        local twice
        twice=$(uniq -d "$tmp/sets")
        [[ -z $twice ]] || fail "policyd logged \"Set\" more than once ($(grep -c . <<<"$twice") times) for: $(head -n 10 <<<"$twice" | tr '\n' ' ')"
        ! journalctl -b --since "$since" --no-pager -o cat | grep -q "Suppressed .* messages from policyd.service" ||
                fail "journald suppressed messages of policyd: the count of \"Set\" lines is not complete"
        echo "ok: no value was written twice"
}
soft "a value logged as set twice" no_set_twice

# The group goes: what was there before comes back.
rm /etc/policy.d/pgt-storm.policy
policyctl reload
soft "tags left" wait_long 150 "no unit tagged" all_are "$n" count_no_xattr user.policy.group "${dirs[@]}"
soft "own MemorySwapMax not restored" \
        wait_long 60 "own MemorySwapMax=200M back" all_are $half count_prop MemorySwapMax 209715200 "${own[@]}"
soft "plain MemorySwapMax not restored" \
        wait_long 20 "plain MemorySwapMax=infinity back" all_are $half count_prop MemorySwapMax infinity "${plain[@]}"
soft "memory.swap.max (own)" assert_eq "memory.swap.max 200M (own)" $half \
        "$(count_file memory.swap.max 209715200 "${own_dirs[@]}")"
soft "memory.swap.max (plain)" assert_eq "memory.swap.max max (plain)" $half \
        "$(count_file memory.swap.max max "${plain_dirs[@]}")"
soft "memory.swap.high" assert_eq "memory.swap.high back to max" "$n" "$(count_file memory.swap.high max "${dirs[@]}")"
soft "user.slo.class" assert_eq "user.slo.class gone" "$n" "$(count_no_xattr user.slo.class "${dirs[@]}")"

(( ${#problems[@]} == 0 )) || fail "$(printf '%s; ' "${problems[@]}")"
echo "ok: converged after the kill, nothing written twice, and all undone ($SECONDS s)"
