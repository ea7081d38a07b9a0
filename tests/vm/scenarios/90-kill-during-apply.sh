#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill -9 of policyd in the middle of applying a group to 300 units, and
# the restart that systemd makes (Restart=on-failure): everything
# converges; no value is written twice; and removing the group puts back
# what was there before: no tag, memory.swap.high max, and each unit's own
# MemorySwapMax= (200M from its unit file, or infinity).
# Issue 8, 1.2: what was written before the kill must still be undone,
# including a property systemd set whose reply policyd never read.
#
# "Written twice" has three witnesses: how often systemd rewrote each
# unit's runtime drop-in (inotify on /run/systemd/system.control, so what
# systemd applied, whoever asked); the SetUnitProperties calls on the bus,
# per policyd process (a call of the killed one that never took effect may
# be sent again by the next one, but no process may send one twice); and
# policyd's "Set" lines in the journal.
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
watcher=
cleanup() {
        [[ -n $monitor ]] && kill "$monitor" 2>/dev/null
        [[ -n $watcher ]] && kill "$watcher" 2>/dev/null
        rm -rf "$tmp"
        # policyd first: else it reads each of the 300 units again as they
        # stop, which doubled the time of the cleanup.
        systemctl stop policyd.service
        pgt_cleanup
}
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

# What systemd applies: it rewrites /run/systemd/system.control/UNIT.d/
# 50-MemorySwapMax.conf each time. The directories are made now, so that
# the watches are in place before the first write.
# How many events one write makes depends on how systemd writes the file:
# one set-property on another slice, watched too, says.
systemctl start pgt-storm-calib.slice
calib=/run/systemd/system.control/pgt-storm-calib.slice.d
dropin_dirs=("${units[@]/#//run/systemd/system.control/}")
dropin_dirs=("${dropin_dirs[@]/%/.d}")
mkdir -p "${dropin_dirs[@]}" "$calib"
python3 "$SCENARIO_DIR/count-writes.py" "$tmp/watching" "${dropin_dirs[@]}" "$calib" > "$tmp/writes" &
watcher=$!
wait_for "the drop-in directories are watched" test -e "$tmp/watching"
systemctl set-property --runtime pgt-storm-calib.slice MemorySwapMax=1M

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
                # Stopped first, so that systemd applies what policyd has
                # asked for while the replies wait unread: the window in
                # which a change is made but not yet recorded, held open.
                kill -STOP "$first"
                sleep 3
                kill_policyd
                killed_at=$k
                break
        fi
        sleep 0.1
done
[[ -n $killed_at ]] || fail "policyd tagged fewer than 20 of $n units in 120 s"
(( killed_at < n )) || fail "policyd had applied all $n units before the kill: nothing was cut short"
echo "ok: killed with $killed_at of $n units tagged ($SECONDS s into the scenario)"

wait_long 60 "systemd restarted policyd" bash -c \
        "[[ \$(systemctl show -P MainPID policyd.service) != 0 && \$(systemctl show -P MainPID policyd.service) != $first ]] && systemctl is-active --quiet policyd.service"

wait_long 150 "all $n units tagged" all_are "$n" count_xattr user.policy.group pgt-storm "${dirs[@]}"
wait_long 60 "all $n units have MemorySwapMax=48M" all_are "$n" count_prop MemorySwapMax 50331648 "${units[@]}"
assert_eq "memory.swap.max 48M in the kernel" "$n" "$(count_file memory.swap.max 50331648 "${dirs[@]}")"
assert_eq "memory.swap.high 24M" "$n" "$(count_file memory.swap.high 25165824 "${dirs[@]}")"
assert_eq "user.slo.class=storm" "$n" "$(count_xattr user.slo.class storm "${dirs[@]}")"

# Nothing written twice, by the killed policyd and its successor together.
sleep 2
kill "$monitor" "$watcher"
wait "$monitor" "$watcher" 2>/dev/null || true
monitor='' watcher=''
applied_once() {
        local seen twice per_write
        per_write=$(awk -v d="$calib/" 'index($1, d) == 1 { print $2 }' "$tmp/writes")
        [[ -n $per_write ]] || fail "inotify saw nothing of systemctl set-property: the witness is blind"
        echo "one write of a drop-in makes $per_write inotify event(s)"
        grep -vF "$calib/" "$tmp/writes" > "$tmp/writes.units" || true
        seen=$(grep -c . "$tmp/writes.units" || true)
        # The witness must have seen every unit's drop-in written, or it proves nothing.
        [[ $seen == "$n" ]] || fail "inotify saw the drop-ins of $seen of $n units written: $(head -n 3 "$tmp/writes.units")"
        twice=$(awk -v k="$per_write" '$2 > k' "$tmp/writes.units")
        [[ -z $twice ]] || fail "systemd applied a property more than once ($(grep -c . <<<"$twice") units): $(head -n 5 <<<"$twice" | tr '\n' ' ')"
        echo "ok: systemd applied MemorySwapMax once on each of the $n units"
}
soft "systemd applied a property twice" applied_once

awk '/member=SetUnitProperties/ { call = 1; unit = ""; split($0, a, "sender="); split(a[2], b, " "); sender = b[1]; next }
     /^(method call|method return|signal|error) / { call = 0 }
     call && /^ *string "/ { gsub(/"/, "", $2); if (unit == "") unit = $2; else print sender, unit, $2 }' \
        "$tmp/calls" | sort > "$tmp/calls.sorted"
echo "$(wc -l < "$tmp/calls.sorted") SetUnitProperties (unit, property) pairs on the bus, from" \
        "$(cut -d' ' -f1 "$tmp/calls.sorted" | sort -u | wc -l) policyd processes;" \
        "$(cut -d' ' -f2- "$tmp/calls.sorted" | sort | uniq -d | wc -l) sent again after the kill"
no_call_twice() {
        local twice
        twice=$(uniq -d "$tmp/calls.sorted")
        [[ -z $twice ]] || fail "one policyd sent SetUnitProperties more than once ($(grep -c . <<<"$twice") units) for: $(head -n 10 <<<"$twice" | tr '\n' ' ')"
        echo "ok: no policyd process sent a property to systemd twice"
}
soft "a property sent twice by one policyd" no_call_twice

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
        ! journalctl -b --since "$since" --no-pager -o cat | has "Suppressed .* messages from policyd.service" ||
                fail "journald suppressed messages of policyd: the count of \"Set\" lines is not complete"
        echo "ok: no value was written twice"
}
soft "a value logged as set twice" no_set_twice

# The group goes: what was there before comes back.
rm /etc/policy.d/pgt-storm.policy
echo "removing the group ($SECONDS s into the scenario)"
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

echo "checks done ($SECONDS s into the scenario)"
(( ${#problems[@]} == 0 )) || fail "$(printf '%s; ' "${problems[@]}")"
echo "ok: converged after the kill, nothing written twice, and all undone ($SECONDS s)"
