#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The swap tiers benchmark, in the VM on the swap-tiers kernel (bench/run-tiers
# ships it there with tiers-probe, bench-scopes, and the scenarios' lib.sh and
# tiers-lib.sh; the build is installed).
#
# The workload: tiers fast (zram) and slow (disk), as the tiers suite defines
# them; N transient scopes in pgtiers.slice; one group that matches the slice
# with SwapTiers=fast or SwapTiers=slow. A round flips every scope's
# memory.swap.tiers.max from one to the other, and is timed from the trigger
# until the kernel shows the new lines on every scope (tiers-probe converge):
#
#   policyd  the group's file rewritten, then "policyctl reload"
#   floor    tiers-probe write: the same lines, one write() each, on the
#            same cgroups, and nothing else
#
# Each repetition makes two flips each way (to slow, back to fast), the two
# ways in an order that alternates. Output: "@ " lines with key=value pairs,
# and a summary per N; any failure ends the run with "bench: FAILED:".
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
probe=$here/tiers-probe
scopes=$here/bench-scopes
# shellcheck source-path=SCRIPTDIR source=../tests/vm/scenarios/lib.sh
. "$here/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../tests/vm/scenarios-tiers/tiers-lib.sh
. "$here/tiers-lib.sh"

sizes=50,200
reps=10
for a in "$@"; do
        case $a in
        --sizes=*) sizes=${a#*=} ;;
        --reps=*)  reps=${a#*=} ;;
        *) echo "tiers-guest: unknown option $a" >&2; exit 2 ;;
        esac
done
IFS=, read -r -a size_list <<<"$sizes"

slice=pgtiers.slice
prefix=pgtiers
policy=/etc/policy.d/pgtiers.policy
fast_lines=(--line="fast max" --line="slow 0")
slow_lines=(--line="fast 0" --line="slow max")
begin=$SECONDS

say() { echo "bench: [$((SECONDS - begin)) s] $*"; }
emit() { echo "@ $*"; }
die() {
        trap - ERR
        echo "bench: FAILED: $*" >&2
        if (( BASH_SUBSHELL == 0 )); then
                journalctl -b -u policyd.service --no-pager -n 30 -o short-monotonic >&2 || true
        fi
        exit 1
}
set -E
trap 'die "line $LINENO: $BASH_COMMAND (status $?)"' ERR
# lib.sh's fail and skip, as the benchmark's failure.
fail() { die "$*"; }
skip() { die "$*"; }

policy_install() { # TIER
        mkdir -p /etc/policy.d
        printf '[PolicyGroup]\nDescription=swap tiers benchmark\n[Match]\nSlice=%s\n[Swap]\nSwapTiers=%s\n' \
                "$slice" "$1" > "$policy"
        chmod 0644 "$policy"
}

policyd_alive() {
        systemctl is-active --quiet policyd.service || die "policyd is not active: $(systemctl show -P Result policyd.service)"
        [[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || die "policyd restarted (NRestarts=$(systemctl show -P NRestarts policyd.service))"
}

# converge WAY N TO LINES... -- CMD...: one timed flip.
converge() {
        local way=$1 n=$2 to=$3 out
        shift 3
        "$scopes" settle --timeout=600 >/dev/null || die "the machine did not quieten down"
        out=$("$probe" converge --timeout=$((60 + n)) "$@") || die "$way, N=$n, to $to: did not converge"
        # The floor's own time, writes only, without its process start.
        write_ms=$(sed -n 's/^write: .*elapsed_ms=\([0-9.]*\).*/\1/p' <<<"$out")
        emit kind=flip way="$way" n="$n" rep="$rep" to="$to" "$(sed -n 's/^converge: //p' <<<"$out")" \
                ${write_ms:+write_ms=$write_ms}
}

way_policyd() {
        policy_install slow
        converge policyd "$n" slow "${slow_lines[@]}" "${dirs[@]}" -- policyctl reload
        policy_install fast
        converge policyd "$n" fast "${fast_lines[@]}" "${dirs[@]}" -- policyctl reload
        policyd_alive
}

way_floor() {
        converge floor "$n" slow "${slow_lines[@]}" "${dirs[@]}" -- "$probe" write "${slow_lines[@]}" "${dirs[@]}"
        converge floor "$n" fast "${fast_lines[@]}" "${dirs[@]}" -- "$probe" write "${fast_lines[@]}" "${dirs[@]}"
}

# summary N: median and p99 (nearest rank) of converged_ms per way, and of
# the floor's own write time (write_ms: its writes, without its process
# start, which converged_ms includes for both ways).
summary() {
        local n=$1 raw=$2 label way field
        for label in floor:floor:converged_ms policyd:policyd:converged_ms floor-writes:floor:write_ms; do
                IFS=: read -r label way field <<<"$label"
                sed -n "s/^@ kind=flip way=$way n=$n .*$field=\([0-9.]*\).*/\1/p" "$raw" | sort -n |
                        awk -v way="$label" -v n="$n" '{ v[NR] = $1 }
                                END { if (NR == 0) exit 0
                                      r = int(0.99 * NR); if (r < 0.99 * NR) r++
                                      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                                      printf "@ kind=summary way=%s n=%d flips=%d median_ms=%.1f p99_ms=%.1f max_ms=%.1f\n", way, n, NR, m, v[r], v[NR] }'
        done
}

say "kernel $(uname -r); $(nproc) CPUs"
tiers_require
tiers_define >/dev/null
say "tiers: $(tr '\n' ';' <"$tiers_file")"

rm -f /etc/policy.d/*.policy
policy_install fast
systemctl start policyd.service
policyd_alive

raw=$(mktemp)
started=0
for n in "${size_list[@]}"; do
        if (( n > started )); then
                "$scopes" start --slice=$slice --prefix=$prefix --from=$((started + 1)) --count=$((n - started)) \
                        --timeout=$((120 + n)) >/dev/null || die "starting scopes"
                started=$n
        fi
        dirs=()
        for ((i = 1; i <= n; i++)); do dirs+=("/sys/fs/cgroup/$slice/$prefix-$i.scope"); done
        # The new scopes get the group's tiers from policyd when they appear:
        # wait for that before any round.
        for ((i = 0; i < 240; i++)); do
                "$probe" check "${fast_lines[@]}" "${dirs[@]}" >/dev/null && break
                sleep 0.5
        done
        "$probe" check "${fast_lines[@]}" "${dirs[@]}" >/dev/null ||
                die "the new scopes did not get SwapTiers=fast from policyd: $("$probe" check "${fast_lines[@]}" "${dirs[@]}")"
        say "N=$n: $n scopes in $slice, all at 'fast max;slow 0' (set by policyd)"
        for ((rep = 1; rep <= reps; rep++)); do
                if (( rep % 2 )); then way_floor; way_policyd; else way_policyd; way_floor; fi
        done | tee -a "$raw"
        summary "$n" "$raw"
done
policyd_alive
emit kind=done
