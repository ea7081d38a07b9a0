#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The exec-event benchmark, in the VM (bench/run-exec ships it there with
# exec-floor, and the build installed). Issue 9, "Cost": what policyd
# spends per exec on the machine while its proc connector socket is open.
#
# A group with ApplyToRunning=yes, KSM=yes and Executable=/usr/bin/python3*
# matches pgbexec.slice, so policyd listens to exec events. Each case runs
# N execs of /bin/true from a bash in a new scope, started once the scope
# is settled; the bash's exit and the scope's stop come after the count:
#
#   outside   the scope is in pgbother.slice, which no group matches (not
#             pgbexec-out.slice: a dash nests it in pgbexec.slice, and the
#             group's Slice= then matches it too): policyd reads
#             /proc/PID/cgroup and stops there
#   inside    the scope is in pgbexec.slice, a member; /bin/true does not
#             match Executable=: policyd looks at each exec'd process that
#             is still there, which costs a query of the injector when it
#             cannot read /proc/PID/exe itself (root's processes)
#   closed    as outside, with Executable= removed and policyd reloaded:
#             the socket is closed, and policyd should spend nothing
#
# exec-floor runs alongside all the time: a bare listener on the same
# connector that reads /proc/PID/cgroup per exec and nothing else. CPU is
# utime + stime of /proc/PID/stat, in ticks (CLK_TCK), for policyd and the
# floor over the same execs. Reported: the median over --reps of CPU per
# 1000 execs, in ms, and the injector's connections (NAccepted of
# policyd-inject.socket: one per query or injection) per 1000 execs.
#
# Output: "@ " lines carry the figures (key=value), the table comes last.
# Any failure stops the run with "bench: FAILED:" and status 1.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
floor=$here/exec-floor
n=300
reps=3
for a in "$@"; do
        case $a in
        --n=*)    n=${a#*=} ;;
        --reps=*) reps=${a#*=} ;;
        *) echo "exec-guest: unknown option $a" >&2; exit 2 ;;
        esac
done

policy=/etc/policy.d/pgbexec.policy
fifo=/run/pgbexec.fifo
done_fifo=/run/pgbexec-done.fifo
hz=$(getconf CLK_TCK)
begin=$SECONDS

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

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
policyd_pid() { systemctl show -P MainPID policyd.service; }
accepted() { systemctl show -P NAccepted policyd-inject.socket; }
install_policy() { # EXECUTABLE-LINE
        mkdir -p /etc/policy.d
        printf '[PolicyGroup]\nApplyToRunning=yes\n[Match]\nSlice=pgbexec.slice\n%b[Memory]\nKSM=yes\n' "$1" > "$policy"
        chmod 0644 "$policy"
}
wait_until() { # SECONDS WHAT CMD...
        local limit=$1 what=$2 start=$SECONDS
        shift 2
        until "$@" >/dev/null 2>&1; do
                (( SECONDS - start < limit )) || die "timed out waiting for: $what"
                sleep 0.5
        done
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_case NAME SLICE REP: one scope, N execs once it is settled.
run_case() {
        local name=$1 slice=$2 rep=$3 unit=pgbexec-$1-$3 sh pd p0 p1 f0 f1 a0 a1 t0 t1 member
        rm -f "$fifo" "$done_fifo"
        mkfifo "$fifo" "$done_fifo"
        systemd-run --quiet --scope --unit="$unit" --slice="$slice" \
                bash -c "read -r _ < $fifo; for ((i = 0; i < $n; i++)); do /bin/true; done; echo done > $done_fifo; read -r _ < $fifo" &
        sh=$!
        wait_until 60 "scope $unit" systemctl is-active --quiet "$unit.scope"
        if [[ $name == inside ]]; then # policyd has looked at the bash itself
                wait_until 60 "policyd to look at $sh" bash -c "policyctl explain $sh | grep -qE '^ *$sh +skipped'"
        fi
        sleep 2
        # The case is what it says: policyd marks the cgroups of members.
        member=no
        getfattr --only-values -n user.policy.group "/sys/fs/cgroup$(systemctl show -P ControlGroup "$unit.scope")" \
                >/dev/null 2>&1 && member=yes
        [[ $member == "$([[ $name == inside ]] && echo yes || echo no)" ]] || die "$unit: member of a group: $member"
        pd=$(policyd_pid)
        p0=$(ticks "$pd"); f0=$(ticks "$floor_pid"); a0=$(accepted); t0=$(date +%s%N)
        echo go > "$fifo"
        read -r _ < "$done_fifo"
        t1=$(date +%s%N)
        sleep 2 # the last events read
        p1=$(ticks "$pd"); f1=$(ticks "$floor_pid"); a1=$(accepted)
        echo go > "$fifo"
        wait "$sh"
        emit kind=exec case="$name" rep="$rep" n="$n" hz="$hz" policyd_ticks=$((p1 - p0)) \
                floor_ticks=$((f1 - f0)) wall_ms=$(((t1 - t0) / 1000000)) injector_connections=$((a1 - a0))
        echo "$name $((p1 - p0)) $((f1 - f0)) $(((t1 - t0) / 1000000)) $((a1 - a0))" >> "$results"
}

results=$(mktemp)
systemctl start policyd-inject.socket
install_policy 'Executable=/usr/bin/python3*\n'
systemctl restart policyd.service
wait_until 60 "policyd listens to exec events" bash -c "policyctl status | grep -q 'exec events: proc connector'"
say "policyd $(policyd_pid): $(policyctl status | grep -o 'exec events: [^;]*')"

"$floor" > /run/pgbexec-floor.out &
floor_pid=$!
wait_until 10 "exec-floor subscribed" grep -q subscribed /run/pgbexec-floor.out
say "$(head -n 1 /run/pgbexec-floor.out)"

for ((rep = 1; rep <= reps; rep++)); do
        say "repetition $rep of $reps: $n execs outside, then inside a member cgroup"
        run_case outside pgbother.slice "$rep"
        run_case inside pgbexec.slice "$rep"
done

install_policy ''
policyctl reload
wait_until 60 "policyd closes its socket" bash -c "policyctl status | grep -q 'exec events: not needed'"
for ((rep = 1; rep <= reps; rep++)); do
        say "repetition $rep of $reps: $n execs with policyd's socket closed"
        run_case closed pgbother.slice "$rep"
done

kill "$floor_pid"
wait "$floor_pid" || true
say "$(tail -n 1 /run/pgbexec-floor.out)"
overflows=$(journalctl -b -u policyd.service --no-pager -o cat | grep -c 'Missed exec events' || true)
emit kind=overflow policyd_lost_messages="$overflows"

echo
echo "CPU per 1000 execs of /bin/true (ms; median of $reps runs of $n; CLK_TCK=$hz):"
printf '%-9s %10s %10s %8s %12s %12s\n' case policyd floor ratio "execs/s" "queries/1000"
for c in outside inside closed; do
        p=$(awk -v c="$c" -v n="$n" -v hz="$hz" '$1 == c { print $2 * 1000 / hz * 1000 / n }' "$results" | median)
        f=$(awk -v c="$c" -v n="$n" -v hz="$hz" '$1 == c { print $3 * 1000 / hz * 1000 / n }' "$results" | median)
        r=$(awk -v c="$c" -v n="$n" '$1 == c { print n * 1000 / $4 }' "$results" | median)
        q=$(awk -v c="$c" -v n="$n" '$1 == c { print $5 * 1000 / n }' "$results" | median)
        ratio=$(awk -v p="$p" -v f="$f" 'BEGIN { if (f > 0) printf "%.1f", p / f; else print "-" }')
        printf '%-9s %10.1f %10.1f %8s %12.0f %12.0f\n' "$c" "$p" "$f" "$ratio" "$r" "$q"
        emit kind=summary case="$c" policyd_ms_per_1000="$p" floor_ms_per_1000="$f" execs_per_s="$r" \
                injector_connections_per_1000="$q"
done
echo "(closed: policyd's socket is closed; the floor still listens)"
rm -f "$policy" "$fifo" "$done_fifo" "$results"
emit kind=done
