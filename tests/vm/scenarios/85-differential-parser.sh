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
        [35]="systemd expands specifiers (%n, %%) in Description=; policy files have no specifiers"
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
rm -f "$units"/pgd-[0-9][0-9].target
rm -rf "$root"
mkdir -p "$work/cases" "$work/sd" "$root/etc/policy.d"

cp "$diff_dir"/parser/*.unit "$work/cases/"
bash "$diff_dir/parser/gen-cases.sh" "$work/cases" || fail "gen-cases.sh failed"

ids=()
for c in "$work"/cases/*.unit; do
        b=$(basename "$c" .unit)
        id=${b%%-*}
        ids+=("$id")
        install -m 0644 -o root -g root "$c" "$units/pgd-$id.target"
        # [Unit] → [PolicyGroup], whatever whitespace or garbage is around it.
        LC_ALL=C sed 's/\[\([[:space:]]*\)Unit/[\1PolicyGroup/g' "$c" >"$work/pgd$id.policy"
        install -m 0644 -o root -g root "$work/pgd$id.policy" "$root/etc/policy.d/pgd$id.policy"
done
echo "${#ids[@]} cases"
((${#ids[@]} >= 40)) || fail "only ${#ids[@]} cases"

# ---- systemd's answer ----
cursor=$(journalctl -b -n 1 --show-cursor -o cat | sed -n 's/^-- cursor: //p')
systemctl daemon-reload
for id in "${ids[@]}"; do
        unit_props "pgd-$id.target" >"$work/sd/$id.flat" || echo "busctl failed for pgd-$id.target"
done
journalctl --sync
journalctl -b _PID=1 --after-cursor="$cursor" -o cat --no-pager >"$work/journal.txt"

# ---- the project's answer ----
policyctl --root "$root" list --json >"$work/list.json" 2>"$work/list.err"
jflat <"$work/list.json" >"$work/list.flat" || fail "policyctl list --json is not JSON: $(head -c 300 "$work/list.json")"
policyctl --root "$root" verify --json >"$work/verify.json" 2>"$work/verify.err"
jflat <"$work/verify.json" >"$work/verify.flat" || fail "policyctl verify --json is not JSON"

parse_files=()
for id in "${ids[@]}"; do parse_files+=("$units/pgd-$id.target"); done
have_parse=yes
if ! policyctl parse --json "${parse_files[@]}" >"$work/parse.json" 2>"$work/parse.err" && [[ ! -s $work/parse.json ]]; then
        have_parse=no
        disagree all "policyctl parse" "answers" "'policyctl parse --json' failed: $(head -n 1 "$work/parse.err"); the parse checks of ${#ids[@]} cases did not run"
else
        jflat <"$work/parse.json" >"$work/parse.flat" || fail "policyctl parse --json is not JSON"
fi

# Does the project have Documentation= for groups at all? Say so once, not
# once per case.
have_doc=yes
if ! grep -q $'^\[[0-9]*\]\.documentation' "$work/list.flat"; then
        have_doc=no
        disagree all "Documentation" "a list per unit" "policyctl list --json has no \"documentation\"; the Documentation checks of ${#ids[@]} cases did not run"
fi

# Index of each group in list --json, each file in parse --json.
declare -A group_index parse_index
while IFS=$'\t' read -r path value; do
        [[ $path =~ ^\[([0-9]+)\]\.name$ ]] && group_index[${value//\"/}]=${BASH_REMATCH[1]}
done <"$work/list.flat"
if [[ $have_parse == yes ]]; then
        while IFS=$'\t' read -r path value; do
                [[ $path =~ ^\[([0-9]+)\]\.file$ ]] || continue
                i=${BASH_REMATCH[1]}
                [[ $value =~ pgd-([0-9]+)\.target\"$ ]] && parse_index[${BASH_REMATCH[1]}]=$i
        done <"$work/parse.flat"
fi

# The distinct line numbers a list of messages names for FILE, joined by ",".
lines_of() { grep -a -o "^$1:[0-9]*:" | sed 's/.*:\([0-9]*\):$/\1/' | sort -nu | paste -sd, -; }

# ---- compare, case by case ----
for id in "${ids[@]}"; do
        case_file=$(ls "$work"/cases/"$id"-*.unit)
        name=$(basename "$case_file" .unit)
        unit=pgd-$id.target
        sd=$work/sd/$id.flat
        before=${#disagreements[@]}

        load_state=$(jget "$sd" '.data[0].LoadState.data')
        loaded=no; [[ $load_state == '"loaded"' ]] && loaded=yes
        sd_desc=$(jget "$sd" '.data[0].Description.data')
        # Without a description systemd shows the unit's name.
        [[ $sd_desc == "\"$unit\"" ]] && sd_desc='""'
        sd_doc=$(jlist "$sd" '.data[0].Documentation.data')
        sd_lines=$(grep -a -F "$units/$unit:" "$work/journal.txt" | lines_of "$units/$unit")

        if [[ -n ${intended_reason[$id]:-} ]]; then
                # Undo systemd's expansion: % was %%, the unit name was %n.
                sd_desc=${sd_desc//%/%%}
                sd_desc=${sd_desc//$unit/%n}
                intended+=("$name: ${intended_reason[$id]}")
        fi

        echo "== $name: systemd $load_state$( [[ $loaded == no ]] && echo " ($(jget "$sd" '.data[0].LoadError.data'))"), lines ${sd_lines:-none}"

        # 1. policyctl list: the group exists exactly when systemd loaded the unit.
        gi=${group_index[pgd$id]:-}
        compare "$name" "loaded (policyctl list)" "$loaded" "$([[ -n $gi ]] && echo yes || echo no)" policyctl
        if [[ $loaded == yes && -n $gi ]]; then
                desc=$(jget "$work/list.flat" "[$gi].description")
                [[ $desc == null || -z $desc ]] && desc='""'
                compare "$name" "Description (policyctl list)" "$sd_desc" "$desc" policyctl
                if [[ $have_doc == yes ]]; then
                        compare "$name" "Documentation (policyctl list)" "$sd_doc" \
                                "$(jlist "$work/list.flat" "[$gi].documentation")" policyctl
                fi
        fi

        # 2. policyctl verify: the lines of the diagnostics for the policy file.
        our_lines=$(awk -F'\t' -v f="\"$root/etc/policy.d/pgd$id.policy\"" '
                        $1 ~ /\.file$/ && $2 == f { want[substr($1, 1, length($1) - 5)] = 1 }
                        $1 ~ /\.line$/ { line[substr($1, 1, length($1) - 5)] = $2 }
                        END { for (k in want) if (line[k] != "null" && line[k] != "") print line[k] }' \
                        "$work/verify.flat" | sort -nu | paste -sd, -)
        if [[ $loaded == no && -z $sd_lines ]]; then
                echo "note $name: systemd names no line for this file; verify says: ${our_lines:-none}"
        else
                compare "$name" "lines with diagnostics (policyctl verify)" "${sd_lines:-none}" "${our_lines:-none}" policyctl
        fi

        # 3. policyctl parse on the unit file itself.
        if [[ $have_parse == yes ]]; then
                pi=${parse_index[$id]:-}
                if [[ -z $pi ]]; then
                        disagree "$name" "policyctl parse" "an answer" "no object for $unit" policyctl
                else
                        refused=$(jget "$work/parse.flat" "[$pi].refused")
                        # A masked (empty) unit file is not a refusal.
                        want_refused=$([[ $loaded == yes || $load_state == '"masked"' ]] && echo false || echo true)
                        compare "$name" "refused (policyctl parse)" "$want_refused" "$refused" "policyctl parse"
                        if [[ $refused == true ]]; then
                                err_line=$(jget "$work/parse.flat" "[$pi].error.line")
                                if [[ -n $sd_lines && ,$sd_lines, != *",$err_line,"* ]]; then
                                        disagree "$name" "line of the refusal (policyctl parse)" "$sd_lines" "$err_line" "policyctl parse"
                                fi
                        fi
                        if [[ $loaded == yes ]]; then
                                last=$(awk -F'\t' '
                                        $1 ~ /^\['"$pi"'\]\.assignments\[[0-9]+\]\.(section|key|value)$/ {
                                                k = $1; sub(/.*\./, "", k); i = $1; sub(/\]\.[a-z]+$/, "", i)
                                                v = $0; sub(/^[^\t]*\t/, "", v); a[i, k] = v; idx[i] = 1
                                        }
                                        END {
                                                best = -1
                                                for (i in idx) { n = i; sub(/.*\[/, "", n); n += 0
                                                        if (a[i, "section"] == "\"Unit\"" && a[i, "key"] == "\"Description\"" && n > best) { best = n; v = a[i, "value"] } }
                                                print (best < 0 ? "\"\"" : v)
                                        }' "$work/parse.flat")
                                compare "$name" "last Description= in [Unit] (policyctl parse)" "$sd_desc" "$last" "policyctl parse"
                        fi
                fi
        fi

        if ((${#disagreements[@]} > before)); then
                echo "  systemd's journal for $unit:"
                grep -a -F "$units/$unit" "$work/journal.txt" | sort -u | cut -c1-200 | sed 's/^/    /'
                echo "  policyctl verify for pgd$id.policy:"
                grep -a -F "pgd$id.policy" "$work/list.err" | sort -u | cut -c1-200 | sed 's/^/    /'
                show_bytes "$case_file"
        fi
done

finish_differential
