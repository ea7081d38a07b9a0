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

# Each answer, split per case into $work/p/ID/*, in one pass per file:
# the loop below then reads only small files (TCG is slow, and some values
# are 1 MiB).
mkdir -p "$work/p"
for id in "${ids[@]}"; do mkdir -p "$work/p/$id"; done

# join_lines NAME < "ID<TAB>LINE" pairs: $work/p/ID/NAME gets the distinct
# lines, sorted, comma-separated.
join_lines() {
        sort -t$'\t' -k1,1 -k2,2n -u | awk -F'\t' -v dir="$work/p" -v name="$1" '
                $1 != id { if (id != "") print out > (dir "/" id "/" name); id = $1; out = $2; next }
                { out = out "," $2 }
                END { if (id != "") print out > (dir "/" id "/" name) }'
}

# policyctl list: group pgdID → exists, description, documentation.
awk -F'\t' -v dir="$work/p" '
        NR == FNR { if ($1 ~ /^\[[0-9]+\]\.name$/ && $2 ~ /^"pgd[0-9]+"$/) { i = $1; sub(/\..*/, "", i); id[i] = substr($2, 5, length($2) - 5) }; next }
        {
                i = $1; sub(/\].*/, "]", i)
                if (!(i in id)) next
                v = $0; sub(/^[^\t]*\t/, "", v)
                f = dir "/" id[i]
                if ($1 ~ /^\[[0-9]+\]\.name$/) print "yes" > (f "/group")
                if ($1 ~ /^\[[0-9]+\]\.description$/) print v > (f "/description")
                if ($1 ~ /^\[[0-9]+\]\.documentation\[[0-9]+\]$/) doc[id[i]] = doc[id[i]] (doc[id[i]] != "" ? "," : "") v
                if ($1 ~ /^\[[0-9]+\]\.documentation$/) doc[id[i]] = ""
        }
        END { for (g in doc) print "[" doc[g] "]" > (dir "/" g "/documentation") }
' "$work/list.flat" "$work/list.flat"

# policyctl verify: the lines of the diagnostics of pgdID.policy. Without a
# Documentation= key in the project (reported once above), its "Unknown key
# 'Documentation'" warnings are left out here.
awk -F'\t' -v dir="$work/p" -v skip_doc="$([[ $have_doc == no ]] && echo 1)" '
        { i = $1; sub(/\].*/, "]", i); k = $1; sub(/^.*\./, "", k); v = $0; sub(/^[^\t]*\t/, "", v); a[i, k] = v; idx[i] = 1 }
        END {
                for (i in idx) {
                        f = a[i, "file"]
                        if (f !~ /\/pgd[0-9]+\.policy"$/ || a[i, "line"] == "null") continue
                        if (skip_doc && a[i, "message"] ~ /^"Unknown key .Documentation. /) continue
                        id = f; sub(/\.policy"$/, "", id); sub(/.*\/pgd/, "", id)
                        print id "\t" a[i, "line"]
                }
        }' "$work/verify.flat" | join_lines verify-lines

# policyctl parse: refused, the error line, the last Description= in [Unit].
if [[ $have_parse == yes ]]; then
        awk -F'\t' -v dir="$work/p" '
                { v = $0; sub(/^[^\t]*\t/, "", v) }
                $1 ~ /^\[[0-9]+\]\.file$/ && v ~ /pgd-[0-9]+\.target"$/ { i = $1; sub(/\].*/, "]", i); id[i] = v; sub(/\.target"$/, "", id[i]); sub(/.*pgd-/, "", id[i]) }
                $1 ~ /^\[[0-9]+\]\.refused$/ { i = $1; sub(/\].*/, "]", i); refused[i] = v }
                $1 ~ /^\[[0-9]+\]\.error\.line$/ { i = $1; sub(/\].*/, "]", i); eline[i] = v }
                $1 ~ /^\[[0-9]+\]\.assignments\[[0-9]+\]\.(section|key|value)$/ {
                        i = $1; sub(/\].*/, "]", i); n = $1; sub(/^[^.]*\.assignments\[/, "", n); sub(/\].*/, "", n)
                        k = $1; sub(/.*\./, "", k); asg[i, n, k] = v; nmax[i] = (n + 0 > nmax[i] + 0 ? n + 0 : nmax[i] + 0)
                }
                END {
                        for (i in id) {
                                f = dir "/" id[i]
                                print refused[i] > (f "/refused")
                                print eline[i] > (f "/error-line")
                                last = "\"\""
                                for (n = 0; n <= nmax[i]; n++)
                                        if (asg[i, n, "section"] == "\"Unit\"" && asg[i, n, "key"] == "\"Description\"") last = asg[i, n, "value"]
                                print last > (f "/last-description")
                        }
                }' "$work/parse.flat"
fi

# systemd's journal: the lines it names for pgd-ID.target.
awk -v dir="$work/p" -v prefix="$units/pgd-" '
        index($0, prefix) == 1 {
                rest = substr($0, length(prefix) + 1)
                if (match(rest, /^[0-9]+\.target:[0-9]+:/)) {
                        id = rest; sub(/\..*/, "", id)
                        line = substr(rest, length(id) + 9); sub(/:.*/, "", line)
                        print id "\t" line
                }
        }' "$work/journal.txt" | join_lines sd-lines

# systemd's answer per case: LoadState, LoadError, Description, Documentation.
for id in "${ids[@]}"; do echo "$work/sd/$id.flat"; done | xargs awk -F'\t' -v dir="$work/p" '
        function flush() { if (id != "") { print "[" doc "]" > (dir "/" id "/sd-documentation"); close(dir "/" id "/sd-documentation") } }
        FNR == 1 { flush(); id = FILENAME; sub(/.*\//, "", id); sub(/\.flat$/, "", id); doc = "" }
        { v = $0; sub(/^[^\t]*\t/, "", v) }
        $1 == ".data[0].LoadState.data" { print v > (dir "/" id "/sd-load-state") }
        $1 == ".data[0].LoadError.data[1]" { print v > (dir "/" id "/sd-load-error") }
        $1 == ".data[0].Description.data" { print v > (dir "/" id "/sd-description") }
        $1 ~ /^\.data\[0\]\.Documentation\.data\[[0-9]+\]$/ { doc = doc (doc == "" ? "" : ",") v }
        END { flush() }'


# answer VAR ID FILE: a per-case answer (one line) into VAR, "" when there
# is none. No subshell: this runs hundreds of times under TCG.
answer() {
        local -n _var=$1
        _var=
        [[ -f $work/p/$2/$3 ]] && IFS= read -r _var <"$work/p/$2/$3"
        return 0
}

# ---- compare, case by case ----
for id in "${ids[@]}"; do
        case_file=("$work"/cases/"$id"-*.unit)
        name=${case_file##*/}
        name=${name%.unit}
        unit=pgd-$id.target
        before=${#disagreements[@]}

        answer load_state "$id" sd-load-state
        loaded=no; [[ $load_state == '"loaded"' ]] && loaded=yes
        answer sd_desc "$id" sd-description
        # Without a description systemd shows the unit's name.
        [[ $sd_desc == "\"$unit\"" ]] && sd_desc='""'
        answer sd_doc "$id" sd-documentation
        answer sd_lines "$id" sd-lines

        if [[ -n ${intended_reason[$id]:-} ]]; then
                # Undo systemd's expansion: % was %%, the unit name was %n.
                sd_desc=${sd_desc//%/%%}
                sd_desc=${sd_desc//$unit/%n}
                intended+=("$name: ${intended_reason[$id]}")
        fi

        answer load_error "$id" sd-load-error
        [[ $loaded == yes ]] && load_error=
        echo "== $name: systemd $load_state${load_error:+ ($load_error)}, lines ${sd_lines:-none}"

        # 1. policyctl list: the group exists exactly when systemd loaded the unit.
        answer group "$id" group
        compare "$name" "loaded (policyctl list)" "$loaded" "${group:-no}" policyctl
        if [[ $loaded == yes && -n $group ]]; then
                answer desc "$id" description
                [[ $desc == null || -z $desc ]] && desc='""'
                compare "$name" "Description (policyctl list)" "$sd_desc" "$desc" policyctl
                if [[ $have_doc == yes ]]; then
                        answer doc "$id" documentation
                        compare "$name" "Documentation (policyctl list)" "$sd_doc" "${doc:-(none)}" policyctl
                fi
        fi

        # 2. policyctl verify: the lines of the diagnostics for the policy file.
        answer our_lines "$id" verify-lines
        if [[ $loaded == no && -z $sd_lines ]]; then
                echo "note $name: systemd names no line for this file; verify says: ${our_lines:-none}"
        else
                compare "$name" "lines with diagnostics (policyctl verify)" "${sd_lines:-none}" "${our_lines:-none}" policyctl
        fi

        # 3. policyctl parse on the unit file itself.
        if [[ $have_parse == yes ]]; then
                if [[ ! -f $work/p/$id/refused ]]; then
                        disagree "$name" "policyctl parse" "an answer" "no object for $unit" "policyctl parse"
                else
                        answer refused "$id" refused
                        # A masked (empty) unit file is not a refusal.
                        want_refused=$([[ $loaded == yes || $load_state == '"masked"' ]] && echo false || echo true)
                        compare "$name" "refused (policyctl parse)" "$want_refused" "$refused" "policyctl parse"
                        answer err_line "$id" error-line
                        if [[ $refused == true && -n $sd_lines && ,$sd_lines, != *",$err_line,"* ]]; then
                                disagree "$name" "line of the refusal (policyctl parse)" "$sd_lines" "$err_line" "policyctl parse"
                        fi
                        if [[ $loaded == yes ]]; then
                                answer last "$id" last-description
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
