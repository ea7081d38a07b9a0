#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Differential: the INI parser against systemd 257's (issue 7). Each case in
# differential/parser (plus the binary ones gen-cases.sh writes) goes, byte
# for byte, to systemd as /etc/systemd/system/pgd-NN.target and to the
# project as /tmp/pgd-root/etc/policy.d/pgdNN.policy, where only the section
# name Unit is spelled PolicyGroup. A target needs no other section, so the
# two files have the same lines, line numbers and ends.
#
# systemd's answer, after one daemon-reload: LoadState, Description,
# Documentation, and the lines PID 1 logs for the file. The project's:
# policyctl list --json (the group exists, description, documentation),
# policyctl verify --json (the lines of its diagnostics), policyctl parse
# --json on the unit file itself (refused, the error line, the last
# Description= in [Unit]). Every disagreement is printed with the input
# bytes; the scenario fails at the end if there was any.
set -uo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/differential/lib.sh"

# Intended differences: CASE → the reason, as policy.d(5) states it. The
# check still runs, against systemd's answer with the difference undone.
declare -A intended_reason=(
        [35]="systemd expands specifiers (%n, %%) in Description=; policy files have none (policy.d(5), Description=)"
)

units=/etc/systemd/system
root=/tmp/pgd-root
work=$(mktemp -d /tmp/pgd-parser.XXXXXX)

cleanup() {
        rm -f "$units"/pgd-[0-9][0-9].target
        rm -rf "$root" "$work"
        systemctl daemon-reload
}
trap cleanup EXIT
trap 'exit 143' TERM # the runner's time limit: clean up all the same
rm -f "$units"/pgd-[0-9][0-9].target
rm -rf "$root"
mkdir -p "$work/cases" "$work/sd" "$root/etc/policy.d"

cp "$diff_dir"/parser/*.unit "$work/cases/"
bash "$diff_dir/parser/gen-cases.sh" "$work/cases" || fail "gen-cases.sh failed"

ids=()
for c in "$work"/cases/*.unit; do
        id=${c##*/}
        id=${id%%-*}
        ids+=("$id")
        cp "$c" "$units/pgd-$id.target"
        # [Unit] → [PolicyGroup], whatever whitespace or garbage is around it.
        sed 's/\[\([[:space:]]*\)Unit/[\1PolicyGroup/g' "$c" >"$root/etc/policy.d/pgd$id.policy"
done
# Policy files must be root's and not writable by others (DESIGN §8).
chown root:root "$units"/pgd-*.target "$root"/etc/policy.d/pgd*.policy
chmod 0644 "$units"/pgd-*.target "$root"/etc/policy.d/pgd*.policy
echo "${#ids[@]} cases"
((${#ids[@]} >= 40)) || fail "only ${#ids[@]} cases"

# ---- systemd's answer ----
echo "-- systemd's answer (at $SECONDS s)"
cursor=$(journalctl -b -n 1 --show-cursor -o cat | sed -n 's/^-- cursor: //p')
systemctl daemon-reload
# By object path, which loads the unit: systemd loads unit files lazily, and
# collects unreferenced ones again. Four at a time: one busctl took 0.6 s
# in a loaded TCG guest.
for id in "${ids[@]}"; do
        printf '%s %s\n' "$id" "$(bus_unit_path "pgd-$id.target")"
done | xargs -P 4 -n 2 sh -c 'busctl --json=short call org.freedesktop.systemd1 "$2" \
        org.freedesktop.DBus.Properties GetAll s org.freedesktop.systemd1.Unit >"$0/$1.json" ||
        echo "busctl GetAll failed for pgd-$1.target"' "$work/sd"
journalctl --sync
journalctl -b _PID=1 --after-cursor="$cursor" -o cat --no-pager >"$work/journal.txt"

# ---- the project's answer ----
echo "-- the project's answer (at $SECONDS s)"
policyctl --root "$root" list --json >"$work/list.json" 2>"$work/list.err"
echo "-- policyctl list done (at $SECONDS s)"
policyctl --root "$root" verify --json >"$work/verify.json" 2>"$work/verify.err"
echo "-- policyctl verify done (at $SECONDS s)"
# One object per file; exit status 1 when a file is refused.
unit_files=()
for id in "${ids[@]}"; do unit_files+=("$units/pgd-$id.target"); done
policyctl parse --json "${unit_files[@]}" >"$work/parse.json" 2>"$work/parse.err"

# ---- compare: one process, a fork costs more than a check under TCG ----
echo "-- compare (at $SECONDS s)"
for id in "${!intended_reason[@]}"; do
        printf '%s\t%s\n' "$id" "${intended_reason[$id]}"
done >"$work/intended.txt"
perl "$diff_dir/compare-parser.pl" "$work" "$units"
