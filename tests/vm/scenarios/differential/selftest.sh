#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# selftest.sh: every check of compare-parser.pl and compare-dropins.pl can
# fail. On the host, no VM: a fixture where systemd and the project agree
# must pass, and each mutation of one answer must fail with its check named.
# TAP on stdout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# check NAME EXPECT_STATUS EXPECT_LINE LOG: one TAP line.
check() {
        local name=$1 want=$2 line=$3 log=$4 status=$5
        n=$((n + 1))
        if [[ $status == "$want" ]] && { [[ -z $line ]] || grep -qF -- "$line" "$log"; }; then
                echo "ok $n - $name"
        else
                failed=$((failed + 1))
                echo "not ok $n - $name (exit $status, wanted $want${line:+ and '$line'})"
                sed 's/^/# /' "$log" | tail -n 20
        fi
}

# ---- compare-parser.pl ----
parser_fixture() {
        local w=$1
        mkdir -p "$w/cases" "$w/sd"
        printf '[Unit]\nDescription=d\nNoEquals\nDocumentation=man:a(1)\n' >"$w/cases/01-loaded.unit"
        printf '[Unit]\n[Broken\n' >"$w/cases/02-refused.unit"
        printf '[Unit]\nDescription=%%n and %%%%\n' >"$w/cases/03-intended.unit"
        cat >"$w/sd/01.json" <<'EOF'
{"type":"(a{sv})","data":[{"LoadState":{"type":"s","data":"loaded"},"Description":{"type":"s","data":"d"},"Documentation":{"type":"as","data":["man:a(1)"]}}]}
EOF
        cat >"$w/sd/02.json" <<'EOF'
{"type":"(a{sv})","data":[{"LoadState":{"type":"s","data":"error"},"LoadError":{"type":"(ss)","data":["x","Bad message"]},"Description":{"type":"s","data":"pgd-02.target"},"Documentation":{"type":"as","data":[]}}]}
EOF
        cat >"$w/sd/03.json" <<'EOF'
{"type":"(a{sv})","data":[{"LoadState":{"type":"s","data":"loaded"},"Description":{"type":"s","data":"pgd-03.target and %"},"Documentation":{"type":"as","data":[]}}]}
EOF
        printf '%s\n' "/etc/systemd/system/pgd-01.target:3: Missing '=', ignoring line." \
                "/etc/systemd/system/pgd-02.target:2: Invalid section header '[Broken'" >"$w/journal.txt"
        cat >"$w/list.json" <<'EOF'
[{"name":"pgd01","description":"d","documentation":["man:a(1)"]},{"name":"pgd03","description":"%n and %%","documentation":[]}]
EOF
        cat >"$w/verify.json" <<'EOF'
[{"file":"/r/etc/policy.d/pgd01.policy","line":3,"severity":"error","message":"Missing '='"},{"file":"/r/etc/policy.d/pgd02.policy","line":2,"severity":"error","message":"Invalid section header"}]
EOF
        cat >"$w/parse.json" <<'EOF'
[{"file":"/etc/systemd/system/pgd-01.target","refused":false,"error":null,"assignments":[{"section":"Unit","key":"Description","value":"d","line":2}]},
 {"file":"/etc/systemd/system/pgd-02.target","refused":true,"error":{"line":2,"message":"Invalid section header"},"assignments":[]},
 {"file":"/etc/systemd/system/pgd-03.target","refused":false,"error":null,"assignments":[{"section":"Unit","key":"Description","value":"%n and %%","line":2}]}]
EOF
        printf '03\tspecifiers\n' >"$w/intended.txt"
        : >"$w/list.err"
}

# parser_case NAME FILE SED_EXPR EXPECTED_LINE
parser_case() {
        local w=$tmp/p$n
        parser_fixture "$w"
        [[ -n $2 ]] && sed -i "$3" "$w/$2"
        perl "$here/compare-parser.pl" "$w" /etc/systemd/system >"$w.log" 2>&1
        local status=$?
        check "parser: $1" "$([[ -n $4 ]] && echo 1 || echo 0)" "$4" "$w.log" "$status"
}

parser_case "systemd and the project agree" "" "" ""
parser_case "Description" list.json 's/"description":"d"/"description":"e"/' "DISAGREE 01-loaded: Description (policyctl list)"
parser_case "Documentation" list.json 's/\["man:a(1)"\]/["man:b(1)"]/' "DISAGREE 01-loaded: Documentation (policyctl list)"
parser_case "no Documentation at all" list.json 's/,"documentation":\[[^]]*\]//g' "DISAGREE all: Documentation"
parser_case "a group systemd does not load" list.json 's/^\[/[{"name":"pgd02"},/' "DISAGREE 02-refused: loaded (policyctl list)"
parser_case "a group missing" list.json 's/"name":"pgd01"/"name":"other"/' "DISAGREE 01-loaded: loaded (policyctl list)"
parser_case "diagnostic lines" verify.json 's/"line":3/"line":4/' "DISAGREE 01-loaded: lines with diagnostics"
parser_case "no parse verb" parse.json 's/.*//' "DISAGREE all: policyctl parse"
parser_case "refused" parse.json '1s/"refused":false/"refused":true/' "DISAGREE 01-loaded: refused (policyctl parse)"
parser_case "line of the refusal" parse.json 's/"error":{"line":2/"error":{"line":1/' "DISAGREE 02-refused: line of the refusal"
parser_case "last Description" parse.json '1s/"value":"d"/"value":"e"/' "DISAGREE 01-loaded: last Description="
parser_case "the intended difference is still checked" list.json 's/"description":"%n and %%"/"description":"x"/' "DISAGREE 03-intended: Description (policyctl list)"

# ---- compare-dropins.pl ----
dropins_fixture() {
        local w=$1
        mkdir -p "$w/sd" "$w/explain" "$w/gen/u.service.d" "$w/hand/normal/u.service.d"
        printf 'u.service\ta layout\t\n' >"$w/units.txt"
        cat >"$w/sd/u.service.json" <<'EOF'
{"type":"(a{sv})","data":[{"Id":{"type":"s","data":"u.service"},"LoadState":{"type":"s","data":"loaded"},"Documentation":{"type":"as","data":["man:pgdd-g2(1)","man:pgdd-g1(1)","https://x/"]},"DropInPaths":{"type":"as","data":["/etc/systemd/system/u.service.d/a.conf","/run/systemd/generator/u.service.d/50-policy-groups.conf"]}}]}
EOF
        printf '# Policy groups: pgdd-g1 pgdd-g2\n' >"$w/gen/u.service.d/50-policy-groups.conf"
        printf '# Policy groups: pgdd-g1 pgdd-g2\n' >"$w/hand/normal/u.service.d/50-policy-groups.conf"
        echo '{"unit":"u.service","groups":[{"group":"pgdd-g1","source":"unit-file"},{"group":"pgdd-g2","source":"unit-file"}],"knobs":[]}' \
                >"$w/explain/u.service.json"
        printf 'policyd crashed\tno\tno\n' >"$w/extra.txt"
}

# dropins_case NAME FILE SED_EXPR EXPECTED_LINE
dropins_case() {
        local w=$tmp/d$n
        dropins_fixture "$w"
        [[ -n $2 ]] && sed -i "$3" "$w/$2"
        PGDD_GENERATOR_DIR=$w/gen perl "$here/compare-dropins.pl" "$w" "$w/hand" >"$w.log" 2>&1
        local status=$?
        check "drop-ins: $1" "$([[ -n $4 ]] && echo 1 || echo 0)" "$4" "$w.log" "$status"
}

dropins_case "systemd and the project agree" "" "" ""
dropins_case "generator run by systemd" gen/u.service.d/50-policy-groups.conf 's/ pgdd-g2$//' "DISAGREE u.service: groups (policyd-generator, run by systemd)"
dropins_case "generator run by hand" hand/normal/u.service.d/50-policy-groups.conf 's/$/ pgdd-g3/' "DISAGREE u.service: groups (policyd-generator, run by hand)"
dropins_case "policyd" explain/u.service.json 's/pgdd-g2/pgdd-g9/' "DISAGREE u.service: groups (policyd)"
dropins_case "policyd does not manage the unit" explain/u.service.json 's/.*//' "DISAGREE u.service: groups (policyd)"
dropins_case "a reset in systemd" sd/u.service.json 's/"man:pgdd-g2(1)",//' "DISAGREE u.service: groups (policyd)"
dropins_case "a unit systemd does not load" sd/u.service.json 's/"data":"loaded"/"data":"error"/' "DISAGREE u.service: groups (policyd-generator, run by systemd)"
dropins_case "policyd crashed" extra.txt 's/\tno$/\tdumped core/' "DISAGREE policyd: policyd crashed"

echo "1..$n"
exit $((failed > 0))
