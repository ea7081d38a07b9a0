#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The focus-change benchmark, in the VM (bench/run-focus ships it there with
# focus-probe, focus-floor and the scenarios' lib.sh, and the build
# installed). Issue 10, "Cost": a focus change is applied within 2x one bare
# apply (p50 and p99), with no polling and a bounded number of inotify
# watches.
#
# The apps are what a desktop runs: scopes app-pgbf-0..N-1.scope of a
# user's own systemd (user@UID.service, started by linger), in its
# app.slice, started by the user with systemd-run --user --scope as GNOME
# starts app-gnome-*.scope (lib.sh's test_user_scope). Their cgroups are
# the user's, strictly below the delegation root user@UID.service. Two
# groups with Manager=user and AllowSelfAssign=yes match them (policy.d(5):
# a user's own attributes select only such groups): Focused=yes sets
# SwapHigh=10M, Focused=no SwapHigh=20M; SwapHigh is a direct write of
# memory.swap.high, with no call to either systemd.
#
# focus-probe makes the changes as the user, as the compositor does: each
# flips one app's user.xdg.inactive-since (-1 <-> CLOCK_MONOTONIC µs, as
# Mutter writes it), round robin over the apps, and times it until
# memory.swap.high and user.policy.group show the new group (woken by
# inotify, no polling). The two ways alternate in blocks over the same
# apps:
#
#   policyd  policyd running, nothing else applying
#   floor    policyd stopped (stopping it undoes nothing); focus-floor, a
#            bare IN_ATTRIB listener on the user's app.slice, reads the
#            focus attribute and writes memory.swap.high and the tag
#
# CPU per change is the sum over the applier's threads of
# /proc/PID/task/*/schedstat (ns on CPU) over the block, read 1 s after its
# last change, and journald's, dbus-daemon's and the user's manager's
# likewise (a focus move is logged at debug level, MembershipChanged goes
# to subscribers only, of which there is none here, and a SwapHigh change
# calls no systemd: all three should stay at 0). The gap between changes
# (--gap-ms, default 200) keeps policyd's attribute wakeups (two per
# change: the focus write, then its own tag's) under its rate limit of 20 a
# second, which a person switching focus never reaches. Then the watches:
# policyctl status's Attributes: line and the inotify wd lines in
# policyd's /proc/PID/fdinfo, with N apps and with 5N.
#
# Output: "@ " lines carry the figures (key=value), the tables come last.
# Any failure stops the run with "bench: FAILED:" and status 1.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
probe=$here/focus-probe
floor=$here/focus-floor
apps=10
blocks=5
per_block=50
gap_ms=200
for a in "$@"; do
        case $a in
        --apps=*)      apps=${a#*=} ;;
        --blocks=*)    blocks=${a#*=} ;;
        --per-block=*) per_block=${a#*=} ;;
        --gap-ms=*)    gap_ms=${a#*=} ;;
        *) echo "focus-guest: unknown option $a" >&2; exit 2 ;;
        esac
done

user=pgbfocus
cg=/sys/fs/cgroup
begin=$SECONDS
results=$(mktemp)
floor_pid=
# The probe runs as the user: a copy they may execute, on the root file
# system (one under /run failed to execute for them: EACCES).
bin=$(mktemp -d /var/tmp/pgbf.XXXXXX)

say() { echo "bench: [$((SECONDS - begin)) s] $*"; }
emit() { echo "@ $*"; }
die() {
        trap - ERR
        echo "bench: FAILED: $*" >&2
        journalctl -b -u policyd.service --no-pager -n 30 -o short-monotonic >&2 || true
        exit 1
}
set -E
trap 'die "line $LINENO: $BASH_COMMAND (status $?)"' ERR
# The scenarios' user with their own systemd: test_user_setup,
# test_user_run, test_user_scope, test_user_cleanup.
# shellcheck source=tests/vm/scenarios/lib.sh
. "$here/lib.sh"
fail() { die "$*"; }

wait_until() { # SECONDS WHAT CMD...
        local limit=$1 what=$2 start=$SECONDS
        shift 2
        until "$@" >/dev/null 2>&1; do
                (( SECONDS - start < limit )) || die "timed out waiting for: $what"
                sleep 0.2
        done
}
policyd_pid() { systemctl show -P MainPID policyd.service; }
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { print s + 0 }'; }
attributes_line() { policyctl status | sed -n 's/^ *Attributes: //p'; }
# policyd's connection to the user's manager is up ("connecting; " before
# the count otherwise): without it no app is anybody's unit.
follows_user() { policyctl status | grep -qE "^ *Managers: .*user@$test_uid \([0-9]+ units\)"; }
inotify_wds() { # PID: the inotify watches it holds, from the kernel
        cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:' || true
}
app_cgroups() { # FROM TO
        local i
        for ((i = $1; i < $2; i++)); do
                echo "$cg$(test_user_run systemctl --user show -P ControlGroup "app-pgbf-$i.scope")"
        done
}
start_apps() { # FROM TO
        local i
        for ((i = $1; i < $2; i++)); do
                test_user_scope "app-pgbf-$i.scope" sleep infinity >/dev/null
        done
}
# policyd has done what a start brings (units read, applied, the sweep):
# it spent under 2 ms of CPU in the last half second. A block that starts
# before measures the start, not focus changes: the tags from the last
# block are there already, so "converged" holds at once.
settled() {
        local pid c0 c1
        pid=$(policyd_pid)
        c0=$(cpu_ns "$pid")
        sleep 0.5
        c1=$(cpu_ns "$pid")
        (( c1 - c0 < 2000000 ))
}
# Every app shows the group its focus attribute selects (or has none yet).
converged() {
        local d f want
        for d in "${app_dirs[@]}"; do
                f=$(getfattr --only-values -n user.xdg.inactive-since "$d" 2>/dev/null) || continue
                want=pgbf-bg
                [[ $f == -1 ]] && want=pgbf-fg
                [[ $(getfattr --only-values -n user.policy.group "$d" 2>/dev/null) == "$want" ]] || return 1
        done
}
stop_floor() {
        [[ -n $floor_pid ]] || return 0
        kill "$floor_pid"
        wait "$floor_pid" || true
        floor_pid=
}
cleanup() {
        stop_floor || true
        # Ends the user's manager, and with it the apps.
        test_user_cleanup >/dev/null || true
        rm -f /etc/policy.d/pgbf-fg.policy /etc/policy.d/pgbf-bg.policy "$results"
        rm -rf "$bin"
}
trap cleanup EXIT

# run_block WAY BLOCK PID: one probe run while PID applies; CPU of PID over it.
run_block() {
        local way=$1 block=$2 pid=$3 c0 c1 j0 j1 d0 d1 m0 m1 t0 t1 out jd dd md
        out=$(mktemp)
        jd=$(systemctl show -P MainPID systemd-journald.service)
        dd=$(systemctl show -P MainPID dbus.service)
        md=$(systemctl show -P MainPID "user@$test_uid.service")
        c0=$(cpu_ns "$pid"); j0=$(cpu_ns "$jd"); d0=$(cpu_ns "$dd"); m0=$(cpu_ns "$md"); t0=$(date +%s%N)
        # As the user, as their compositor writes the attribute.
        setpriv --reuid="$user" --regid="$user" --clear-groups \
                "$bin/focus-probe" "$way" "$per_block" "$gap_ms" "${app_dirs[@]}" > "$out" ||
                { cat "$out"; die "focus-probe ($way, block $block)"; }
        sleep 1 # the applier's last wakeups (its own tag's event)
        c1=$(cpu_ns "$pid"); j1=$(cpu_ns "$jd"); d1=$(cpu_ns "$dd"); m1=$(cpu_ns "$md"); t1=$(date +%s%N)
        sed "s/\$/ block=$block/" "$out"
        awk -v w="$way" '$2 == "kind=change" { sub("latency_us=", "", $7); print w, $7 }' "$out" >> "$results"
        emit kind=cpu way="$way" block="$block" changes="$per_block" cpu_ns=$((c1 - c0)) \
                journald_cpu_ns=$((j1 - j0)) dbus_cpu_ns=$((d1 - d0)) user_manager_cpu_ns=$((m1 - m0)) \
                wall_ms=$(((t1 - t0) / 1000000))
        echo "cpu $way $((c1 - c0))" >> "$results"
        echo "journald $way $((j1 - j0))" >> "$results"
        echo "dbus $way $((d1 - d0))" >> "$results"
        echo "user-manager $way $((m1 - m0))" >> "$results"
        rm -f "$out"
}

test_user_setup "$user"
cp "$probe" "$bin/"
chmod 0755 "$bin" "$bin/focus-probe"
mkdir -p /etc/policy.d
match='[Match]\nUnit=app-pgbf-*.scope\nManager=user\n'
printf "[PolicyGroup]\nAllowSelfAssign=yes\n${match}Focused=yes\n[Swap]\nSwapHigh=10M\n" > /etc/policy.d/pgbf-fg.policy
printf "[PolicyGroup]\nAllowSelfAssign=yes\n${match}Focused=no\n[Swap]\nSwapHigh=20M\n" > /etc/policy.d/pgbf-bg.policy
chmod 0644 /etc/policy.d/pgbf-fg.policy /etc/policy.d/pgbf-bg.policy

start_apps 0 "$apps"
mapfile -t app_dirs < <(app_cgroups 0 "$apps")
[[ ${app_dirs[0]} == "$test_user_cgroup/app.slice/app-pgbf-0.scope" ]] ||
        die "${app_dirs[0]} is not in user@$test_uid.service's app.slice"
[[ $(stat -c %U "${app_dirs[0]}") == "$user" ]] || die "${app_dirs[0]} is not owned by $user"
[[ -f ${app_dirs[0]}/memory.swap.high ]] || die "no memory controller in ${app_dirs[0]}"
systemctl restart policyd.service
wait_until 120 "policyd follows user@$test_uid.service" follows_user
wait_until 120 "policyd watches the apps" bash -c "policyctl status | grep -q 'Attributes: inotify IN_ATTRIB'"
say "policyd $(policyd_pid); $apps apps; $blocks blocks of $per_block changes a way, ${gap_ms} ms apart"
emit kind=setup apps="$apps" blocks="$blocks" per_block="$per_block" gap_ms="$gap_ms" \
        kernel="$(uname -r)" nproc="$(nproc)"

for ((b = 1; b <= blocks; b++)); do
        systemctl start policyd.service
        wait_until 120 "policyd follows user@$test_uid.service" follows_user
        wait_until 120 "policyd converged" converged
        wait_until 120 "policyd settled after its start" settled
        say "block $b of $blocks: policyd"
        run_block policyd "$b" "$(policyd_pid)"

        systemctl stop policyd.service
        "$floor" "$(dirname "${app_dirs[0]}")" app-pgbf- > /run/pgbf-floor.out &
        floor_pid=$!
        wait_until 10 "focus-floor watching" grep -q watching /run/pgbf-floor.out
        say "block $b of $blocks: floor"
        run_block floor "$b" "$floor_pid"
        stop_floor
        say "$(tail -n 1 /run/pgbf-floor.out)"
done

# The watches policyd holds, with N apps and with 5N.
systemctl start policyd.service
wait_until 120 "policyd follows user@$test_uid.service" follows_user
wait_until 120 "policyd converged" converged
pd=$(policyd_pid)
watched_cgroups() { attributes_line | sed -n 's/.* for \([0-9]*\) cgroups.*/\1/p'; }
emit kind=watches apps="$apps" inotify_wds="$(inotify_wds "$pd")" attributes="'$(attributes_line)'"
before=$(watched_cgroups)
start_apps "$apps" $((apps * 5))
new_apps_watched() { [[ $(watched_cgroups) -ge $((before + apps * 4)) ]]; }
wait_until 120 "policyd watches the new apps" new_apps_watched
emit kind=watches apps=$((apps * 5)) inotify_wds="$(inotify_wds "$pd")" attributes="'$(attributes_line)'"
watches_n=$(inotify_wds "$pd")

# Summary.
pct() { # WAY P: the P-th percentile (nearest rank) of WAY's latencies, ms
        awk -v w="$1" '$1 == w && $2 ~ /^[0-9]+$/ { print $2 }' "$results" | sort -n |
                awk -v p="$2" '{ v[NR] = $1 } END { r = int(NR * p / 100 + 0.999999); if (r < 1) r = 1; printf "%.2f", v[r] / 1000 }'
}
count() { awk -v w="$1" '$1 == w && $2 ~ /^[0-9]+$/' "$results" | wc -l; }
cpu_per_change() { # WAY [WHOSE]: median over blocks of CPU per change, ms
        awk -v w="$1" -v who="${2:-cpu}" -v n="$per_block" '$1 == who && $2 == w { print $3 / n / 1000000 }' "$results" | sort -n |
                awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo
echo "Focus change until applied (memory.swap.high and user.policy.group), ms; $apps apps:"
printf '%-8s %8s %8s %8s %8s %8s %12s\n' way changes p50 p90 p99 max "CPU/change"
for w in policyd floor; do
        printf '%-8s %8s %8s %8s %8s %8s %12s\n' "$w" "$(count "$w")" "$(pct "$w" 50)" "$(pct "$w" 90)" \
                "$(pct "$w" 99)" "$(pct "$w" 100)" "$(cpu_per_change "$w")"
        emit kind=summary way="$w" changes="$(count "$w")" p50_ms="$(pct "$w" 50)" p90_ms="$(pct "$w" 90)" \
                p99_ms="$(pct "$w" 99)" max_ms="$(pct "$w" 100)" cpu_ms_per_change="$(cpu_per_change "$w")"
done
r50=$(ratio "$(pct policyd 50)" "$(pct floor 50)")
r99=$(ratio "$(pct policyd 99)" "$(pct floor 99)")
rcpu=$(ratio "$(cpu_per_change policyd)" "$(cpu_per_change floor)")
echo "policyd / floor: p50 ${r50}x, p99 ${r99}x, CPU per change ${rcpu}x"
for who in journald dbus user-manager; do
        echo "$who CPU per change (ms, median of blocks): $(cpu_per_change policyd $who) with policyd, $(cpu_per_change floor $who) with the floor"
        emit kind=others who=$who policyd_ms_per_change="$(cpu_per_change policyd $who)" \
                floor_ms_per_change="$(cpu_per_change floor $who)"
done
echo "inotify watches of policyd: $watches_n with $((apps * 5)) apps; $(attributes_line)"
emit kind=ratio p50="$r50" p99="$r99" cpu="$rcpu"
emit kind=done
