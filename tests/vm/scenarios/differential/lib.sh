# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the differential scenarios (85, 86) after ../lib.sh. systemd is
# the oracle: the same bytes go to systemd and to the project, and every
# answer that differs is a disagreement. All disagreements of a run are
# reported, then the scenario fails.

# Bytes, not characters: values are compared byte for byte, and bash is
# slow on 1 MiB strings in a UTF-8 locale.
export LC_ALL=C

diff_dir=$SCENARIO_DIR/differential
disagreements=()   # one line each, for the summary
intended=()        # intended differences seen, for the summary

# jflat < JSON: "PATH<TAB>VALUE" lines, strings in one canonical form.
jflat() { perl "$diff_dir/jsonflat.pl"; }

# jget FLAT PATH: the value at PATH ("" when absent).
jget() { awk -F'\t' -v p="$2" '$1 == p { sub(/^[^\t]*\t/, ""); print; exit }' "$1"; }

# jlist FLAT PATH: the elements of the array at PATH, joined by ",", as a
# JSON array ("[]" when empty or absent).
jlist() {
        awk -F'\t' -v p="$2" '
                index($1, p "[") == 1 && substr($1, length(p) + 2) ~ /^[0-9]+\]$/ {
                        sub(/^[^\t]*\t/, ""); out = out (n++ ? "," : "") $0
                }
                END { print "[" out "]" }' "$1"
}

# The object path of a unit: sd-bus escapes every byte but [A-Za-z0-9] as _XX.
bus_unit_path() {
        local name=$1 out="" c i
        for ((i = 0; i < ${#name}; i++)); do
                c=${name:i:1}
                if [[ $c == [A-Za-z0-9] ]]; then out+=$c; else printf -v c '_%02x' "'$c"; out+=$c; fi
        done
        echo "/org/freedesktop/systemd1/unit/$out"
}

# unit_props NAME: every org.freedesktop.systemd1.Unit property, flattened.
# Asking by object path loads the unit if it is not (systemd loads unit
# files lazily, and collects unreferenced ones again).
unit_props() {
        busctl --json=short call org.freedesktop.systemd1 "$(bus_unit_path "$1")" \
                org.freedesktop.DBus.Properties GetAll s org.freedesktop.systemd1.Unit | jflat
}

# Long values are cut for the report; the comparison used them whole.
shorten() {
        local v=$1
        if ((${#v} > 160)); then
                echo "${v:0:100}…(${#v} characters)…${v: -40}"
        else
                echo "$v"
        fi
}

# disagree CASE WHAT SYSTEMD PROJECT [WHO]: records and prints one disagreement.
disagree() {
        local who=${5:-project}
        disagreements+=("$1: $2: systemd $(shorten "$3"), $who $(shorten "$4")")
        echo "DISAGREE $1: $2"
        echo "  systemd: $(shorten "$3")"
        echo "  $who: $(shorten "$4")"
}

# compare CASE WHAT SYSTEMD PROJECT [WHO]
compare() {
        if [[ $3 == "$4" ]]; then
                echo "ok $1: $2 = $(shorten "$3")"
                return 0
        fi
        disagree "$@"
        return 1
}

# show_bytes FILE: the input, as od shows it.
show_bytes() {
        local size
        size=$(stat -c %s "$1")
        echo "  input $1 ($size bytes):"
        head -c 256 "$1" | od -c | sed 's/^/    /'
        if ((size > 256)); then
                echo "  … its last 64 bytes:"
                tail -c 64 "$1" | od -c | sed 's/^/    /'
        fi
}

# finish_differential: the summary; exit 1 when anything disagreed.
finish_differential() {
        local d
        echo
        if ((${#intended[@]} > 0)); then
                echo "Intended differences (documented, still checked):"
                for d in "${intended[@]}"; do echo "  $d"; done
        fi
        if ((${#disagreements[@]} == 0)); then
                echo "No disagreements with systemd."
                return 0
        fi
        echo "${#disagreements[@]} disagreements with systemd:"
        for d in "${disagreements[@]}"; do echo "  $d"; done
        exit 1
}
