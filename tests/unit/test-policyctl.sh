#!/usr/bin/env bash
# shellcheck disable=SC2015 # ok and not_ok always succeed, so "A && ok || not_ok" is safe
# policyctl's offline verbs as a user runs them: exit codes, output formats,
# and systemd's drop-in semantics through --root. TAP output.
set -uo pipefail

policyctl=$1
shipped=$2
n=0
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
check() { # name, command… : passes when the command succeeds
        local name=$1; shift
        local out
        if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
expect_rc() { # name, expected rc, command…
        local name=$1 want=$2; shift 2
        local out rc
        out=$("$@" 2>&1); rc=$?
        if [ "$rc" = "$want" ]; then ok "$name"; else not_ok "$name" "exit $rc, wanted $want" "$out"; fi
}

put() { mkdir -p "$(dirname "$tmp/$1")"; printf '%b' "$2" > "$tmp/$1"; chmod 0644 "$tmp/$1"; }

# --- verify
expect_rc "verify passes on the shipped policies" 0 "$policyctl" verify "$shipped"
out=$("$policyctl" verify "$shipped"/*.policy 2>&1)
[ -z "$out" ] && ok "verify prints nothing when all is well" || not_ok "verify prints nothing when all is well" "$out"

put bad/x.policy '[PolicyGroup]\nPriority=5000\n[Swap]\nSwapMax=1G\nNoSuchKey=1\n'
expect_rc "verify exits 1 on errors" 1 "$policyctl" verify "$tmp/bad/x.policy"
out=$("$policyctl" verify "$tmp/bad/x.policy")
expected="$tmp/bad/x.policy:2: error: Invalid Priority= value '5000': priority out of range (0..1000); keeping the previous value
$tmp/bad/x.policy:5: warning: Unknown key 'NoSuchKey' in section [Swap], ignoring"
[ "$out" = "$expected" ] && ok "verify prints file:line: severity: message in file order" \
        || not_ok "verify prints file:line: severity: message in file order" "got:" "$out"

put warn/w.policy '[PolicyGroup]\nNoSuchKey=1\n'
expect_rc "verify exits 0 on warnings only" 0 "$policyctl" verify "$tmp/warn/w.policy"

check "verify --json is a JSON array of {file,line,severity,message}" python3 -c '
import json, subprocess, sys
out = subprocess.run([sys.argv[1], "verify", "--json", sys.argv[2]], capture_output=True, text=True).stdout
d = json.loads(out)
assert isinstance(d, list) and len(d) == 2, d
for e in d:
    assert set(e) == {"file", "line", "severity", "message"}, e
assert d[0]["line"] == 2 and d[0]["severity"] == "error", d[0]
assert d[1]["severity"] == "warning", d[1]
' "$policyctl" "$tmp/bad/x.policy"

out=$("$policyctl" verify --json "$shipped")
[ "$out" = "[]" ] && ok "verify --json prints [] when all is well" || not_ok "verify --json prints []" "$out"

expect_rc "verify of a missing path exits 1" 1 "$policyctl" verify "$tmp/nope.policy"
put odd/readme.txt 'hello\n'
expect_rc "verify of a non-policy file exits 1" 1 "$policyctl" verify "$tmp/odd/readme.txt"

# --- usage errors exit 2
# As systemctl: no command is "status" (here without a bus to ask on).
nobus="DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus"
out=$(env "$nobus" "$policyctl" 2>&1); rc=$?
want=$(env "$nobus" "$policyctl" status 2>&1)
[ $rc = 3 ] && [ "$out" = "$want" ] && grep -q "Cannot connect to the system bus" <<< "$out" \
        && ok "no command runs status" || not_ok "no command runs status" "exit $rc" "$out"
expect_rc "unknown command exits 2" 2 "$policyctl" frobnicate
expect_rc "unknown option exits 2" 2 "$policyctl" --frob list
expect_rc "--root that is not a directory exits 2" 2 "$policyctl" --root "$tmp/none" list
expect_rc "--help exits 0" 0 "$policyctl" --help

# --- every kind of bad argument: a message on stderr, nothing on stdout,
# and the exit code of EXIT STATUS in policyctl(1)
bad() { # name, expected rc, stderr pattern (grep -E), arguments…
        local name=$1 want=$2 pattern=$3; shift 3
        local out err rc
        out=$("$policyctl" "$@" 2> "$tmp/stderr"); rc=$?
        err=$(cat "$tmp/stderr")
        if [ "$rc" != "$want" ]; then
                not_ok "$name" "exit $rc, wanted $want" "stdout: $out" "stderr: $err"
        elif [ -n "$out" ]; then
                not_ok "$name" "printed on stdout: $out"
        elif ! grep -qE -- "$pattern" <<< "$err"; then
                not_ok "$name" "stderr does not match /$pattern/:" "$err"
        else
                ok "$name"
        fi
}
put plain-file 'not a directory\n'
bad "unknown command, in another case" 2 "Unknown command 'VERIFY'" VERIFY
bad "empty command" 2 "Unknown command ''" ''
bad "unknown short option" 2 "invalid option|unrecognized option" -x list
bad "unknown option after the command" 2 "unrecognized option '--frob'" list --frob
out=$(env "$nobus" "$policyctl" --json 2>&1); rc=$?
[ $rc = 3 ] && grep -q "Cannot connect to the system bus" <<< "$out" && ok "--json alone is status --json" \
        || not_ok "--json alone is status --json" "exit $rc" "$out"
bad "--json= with an unknown form" 2 "^Unknown --json= value 'yaml': use short, pretty or off\.$" --json=yaml list
bad "--json's form goes after '=' only" 2 "^Unknown command 'pretty'" --json pretty list
out=$("$policyctl" --json=help); rc=$?
[ $rc = 0 ] && [ "$out" = "$(printf 'short\npretty\noff')" ] && ok "--json=help lists the forms" \
        || not_ok "--json=help lists the forms" "exit $rc" "$out"
bad "--no-pager takes no value" 2 "doesn't allow an argument" --no-pager=yes list
bad "--root without a value" 2 "'--root' requires an argument" --root
bad "--root= empty" 2 "--root= needs a directory" --root= list
bad "--root naming a file" 2 "--root=$tmp/plain-file: not a directory" --root "$tmp/plain-file" list
bad "--root that does not exist, for verify" 2 "not a directory" --root "$tmp/none" verify
bad "list with an argument" 2 "list takes no arguments" list extra
bad "parse without a file" 2 "parse" parse
bad "exec without --group" 2 "^exec needs --group=GROUP" exec -- true
bad "exec without --" 2 "^exec needs '--' before the command: policyctl exec --group=g -- sleep" exec --group=g sleep 1
bad "exec without a command" 2 "^exec needs a command after '--'" exec --group=g --
bad "exec with a group name that cannot be" 2 "^--group=\.\./x: group name must start" exec --group=../x -- true
bad "exec with a unit that is not a scope" 2 "^--unit=x\.service: must be a \.scope unit" exec --group=g --unit=x.service -- true
bad "exec with --root" 2 "^--root is for the offline commands.*'exec'" --root=/ exec --group=g -- true
bad "exec with --json" 2 "^exec prints no JSON" --json exec --group=g -- true
bad "policyctl's options after exec are exec's" 2 "^exec: unknown option '--json'" exec --json --group=g -- true
out=$("$policyctl" exec --help); rc=$?
[ $rc = 0 ] && grep -q "^policyctl exec --group=GROUP" <<< "$out" && ok "exec --help exits 0" \
        || not_ok "exec --help exits 0" "exit $rc" "$out"
bad "cat-config of a group that is not there" 1 "No policy group 'nosuch' found" cat-config nosuch
bad "cat-config of a path-like group name" 1 "No policy group '\.\./\.\./etc/passwd' found" cat-config ../../etc/passwd
# verify and parse print the problems they find on stdout: they are the result.
out=$("$policyctl" verify "$tmp/nope.policy" 2>&1); rc=$?
[ $rc = 1 ] && grep -qF "$tmp/nope.policy: error: Cannot access" <<< "$out" \
        && ok "verify of a file that does not exist names it, exits 1" \
        || not_ok "verify of a file that does not exist names it, exits 1" "exit $rc" "$out"
out=$("$policyctl" parse "$tmp/nope.service" 2>&1); rc=$?
[ $rc = 1 ] && grep -qF "$tmp/nope.service: error:" <<< "$out" \
        && ok "parse of a file that does not exist names it, exits 1" \
        || not_ok "parse of a file that does not exist names it, exits 1" "exit $rc" "$out"

# --- a root tree with all four directories
r=$tmp/root
put root/usr/lib/policy.d/a.policy '[PolicyGroup]\nDescription=vendor a\nPriority=1\n'
put root/etc/policy.d/a.policy '[PolicyGroup]\nDescription=admin a\nPriority=2\n'
put root/usr/lib/policy.d/a.policy.d/20-vendor.conf '[PolicyGroup]\nPriority=20\n'
put root/etc/policy.d/a.policy.d/10-admin.conf '[PolicyGroup]\nPriority=10\n'
put root/run/policy.d/a.policy.d/30-run.conf '[PolicyGroup]\nPriority=30\n'
put root/usr/local/lib/policy.d/a.policy.d/20-vendor.conf '[PolicyGroup]\nPriority=21\n'
put root/usr/lib/policy.d/b.policy '[PolicyGroup]\nDescription=b\n'
mkdir -p "$r/etc/policy.d"; ln -s /dev/null "$r/etc/policy.d/b.policy"
put root/usr/lib/policy.d/c.policy '[PolicyGroup]\nDescription=c with "quotes"\n'

check "list --json: winner, drop-ins in lexical order, masked group absent" python3 -c '
import json, subprocess, sys
root = sys.argv[2]
d = json.loads(subprocess.run([sys.argv[1], "--root", root, "list", "--json"], capture_output=True, text=True, check=True).stdout)
names = [g["name"] for g in d]
assert names == ["a", "c"], names
a = d[0]
assert a["file"] == root + "/etc/policy.d/a.policy", a["file"]
assert a["description"] == "admin a", a
assert a["dropins"] == [root + "/etc/policy.d/a.policy.d/10-admin.conf",
                        root + "/usr/local/lib/policy.d/a.policy.d/20-vendor.conf",
                        root + "/run/policy.d/a.policy.d/30-run.conf"], a["dropins"]
assert a["priority"] == 30, a
assert d[1]["description"] == "c with \"quotes\"", d[1]
' "$policyctl" "$r"

out=$("$policyctl" --root "$r" cat-config a | grep '^# ')
expected="# $r/etc/policy.d/a.policy
# $r/etc/policy.d/a.policy.d/10-admin.conf
# $r/usr/local/lib/policy.d/a.policy.d/20-vendor.conf
# $r/run/policy.d/a.policy.d/30-run.conf"
[ "$out" = "$expected" ] && ok "cat-config shows the winner, then its drop-ins" \
        || not_ok "cat-config shows the winner, then its drop-ins" "got:" "$out"

out=$("$policyctl" --root "$r" cat-config b)
[ "$out" = "# b is masked by $r/etc/policy.d/b.policy" ] && ok "cat-config says a group is masked" \
        || not_ok "cat-config says a group is masked" "$out"
expect_rc "cat-config of an unknown group exits 1" 1 "$policyctl" --root "$r" cat-config nosuch

out=$("$policyctl" --root "$r" list)
grep -q "^a .* 30 .*admin a" <<< "$out" && ok "list shows name, priority and description" \
        || not_ok "list shows name, priority and description" "$out"

expect_rc "verify with --root reads the tree's search path" 0 "$policyctl" --root "$r" verify
# A kernel tier named as a SwapTiers= keyword (issue 24, gap 2): a warning.
mkdir -p "$tmp/tiers/etc"
put tiers/sys/kernel/mm/swap/tiers 'Name             Idx   PrioStart   PrioEnd    \nfast             1     100         32767      \nzswap            0     -1          99         \n'
out=$("$policyctl" --root "$tmp/tiers" verify 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "$tmp/tiers/sys/kernel/mm/swap/tiers: warning: Swap tier 'zswap' has the name of a SwapTiers= keyword: no group can allow it, and groups with SwapTiers= deny it; rename the tier to use it" ] \
        && ok "verify warns of a kernel tier named zswap" || not_ok "verify warns of a kernel tier named zswap" "exit $rc" "$out"
put root/run/policy.d/broken.policy '[Swap]\nSwapMax=lots\n'
out=$("$policyctl" --root "$r" verify 2>&1); rc=$?
[ $rc = 1 ] && grep -qF "$r/run/policy.d/broken.policy:2: error:" <<< "$out" \
        && ok "verify with --root finds errors in the tree" || not_ok "verify with --root finds errors in the tree" "$out"
expect_rc "verify with --root takes absolute paths below the root" 1 "$policyctl" --root "$r" verify /run/policy.d/broken.policy

chmod 0666 "$r/usr/lib/policy.d/c.policy"
out=$("$policyctl" --root "$r" list 2>&1)
grep -q "c.policy: warning: File is writable by others" <<< "$out" && ! grep -q '^c ' <<< "$out" \
        && ok "a file writable by others is refused with a warning" \
        || not_ok "a file writable by others is refused with a warning" "$out"

# --- parse
put parse/u.service '[Unit]\nDescription=a \\\n# inside\n b\n[Unit ]\nPolicyGroup=ignored\n[Service]\nPolicyGroup=g\n'
out=$("$policyctl" parse "$tmp/parse/u.service"); rc=$?
expected="$tmp/parse/u.service:1: [Unit]
$tmp/parse/u.service:4: Description=a   b
$tmp/parse/u.service:5: [Unit ]
$tmp/parse/u.service:6: PolicyGroup=ignored
$tmp/parse/u.service:7: [Service]
$tmp/parse/u.service:8: PolicyGroup=g"
[ $rc = 0 ] && [ "$out" = "$expected" ] && ok "parse lists sections and assignments by line, verbatim" \
        || not_ok "parse lists sections and assignments by line, verbatim" "exit $rc, got:" "$out"

put parse/bad.service '[Unit]\nDescription=kept\n[Unit\n Description=lost\n'
out=$("$policyctl" parse "$tmp/parse/bad.service"); rc=$?
[ $rc = 1 ] && grep -qxF "$tmp/parse/bad.service:3: error: Invalid section header '[Unit'; the whole file is refused" <<< "$out" \
        && ! grep -q lost <<< "$out" \
        && ok "parse stops where systemd refuses the file, and exits 1" \
        || not_ok "parse stops where systemd refuses the file, and exits 1" "exit $rc, got:" "$out"

check "parse --json gives refused, error, sections and assignments" python3 -c '
import json, subprocess, sys
out = subprocess.run([sys.argv[1], "--json", "parse", sys.argv[2], sys.argv[3], "/nonexistent/x"], capture_output=True, text=True).stdout
good, bad, missing = json.loads(out)
assert good["refused"] is False and good["error"] is None, good
assert [(a["section"], a["key"], a["value"], a["line"]) for a in good["assignments"]] == [
    ("Unit", "Description", "a   b", 4), ("Unit ", "PolicyGroup", "ignored", 6), ("Service", "PolicyGroup", "g", 8)], good
assert bad["refused"] is True and bad["error"]["line"] == 3, bad
assert [a["value"] for a in bad["assignments"]] == ["kept"], bad
assert missing["readable"] is False and missing["error"]["line"] is None, missing
' "$policyctl" "$tmp/parse/u.service" "$tmp/parse/bad.service"
expect_rc "parse without a file is a usage error" 2 "$policyctl" parse
expect_rc "--daemon-reload with another verb than reload is a usage error" 2 "$policyctl" --daemon-reload list

# --- systemctl's output conventions
o=$tmp/out
put conv/usr/lib/policy.d/one.policy '[PolicyGroup]\nDescription=The one group, with a description that is longer than fifty characters and goes on\n'
out=$("$policyctl" --root "$tmp/conv" list)
grep -qx "1 group listed." <<< "$out" && ok "list says '1 group listed.'" || not_ok "list says '1 group listed.'" "$out"
grep -qF "with a description that is longer than fifty characters and goes on " <<< "$out" && ! grep -q '…' <<< "$out" \
        && ok "list into a pipe cuts no description" || not_ok "list into a pipe cuts no description" "$out"
out=$("$policyctl" --root "$r" list 2> /dev/null)
grep -qx "2 groups listed, 1 masked." <<< "$out" && ok "list says 'N groups listed, M masked.'" \
        || not_ok "list says 'N groups listed, M masked.'" "$out"
# Columns are counted in characters, masked names too; a name that is not
# UTF-8 shows U+FFFD for its bad bytes, as --json does.
put accents/usr/lib/policy.d/a.policy '[PolicyGroup]\nDescription=a\n'
mkdir -p "$tmp/accents/etc/policy.d"
ln -s /dev/null "$tmp/accents/etc/policy.d/é-masqué.policy"
ln -s /dev/null "$tmp/accents/etc/policy.d/"$'bad\xe9'.policy
check "list aligns masked names by characters, and shows bad bytes as U+FFFD" python3 -c '
import subprocess, sys
out = subprocess.run([sys.argv[1], "--root", sys.argv[2], "list"], capture_output=True, check=True).stdout.decode()
lines = out.split("\n")
at = lines[0].index("DESCRIPTION")
for l in lines[1:4]:
    assert l[at - 2:at] == "  " and l[at] != " ", (at, lines)
assert lines[1].startswith("a ") and lines[2].startswith("bad\ufffd ") and lines[3].startswith("é-masqué "), lines
' "$policyctl" "$tmp/accents"
out=$("$policyctl" --root "$tmp/conv" --no-legend list)
[ "$(wc -l <<< "$out")" = 1 ] && grep -q "^one " <<< "$out" && ok "list --no-legend prints the rows alone" \
        || not_ok "list --no-legend prints the rows alone" "$out"

for args in "list" "verify $tmp/bad/x.policy" "parse $tmp/parse/u.service $tmp/parse/bad.service"; do
        # shellcheck disable=SC2086 # the arguments split on purpose
        "$policyctl" --root "$r" --json=pretty $args > "$o" 2> /dev/null
        python3 -m json.tool "$o" > /dev/null 2> "$tmp/err" && [ "$(wc -l < "$o")" -gt 1 ] \
                && ok "--json=pretty $args is valid JSON on several lines" \
                || not_ok "--json=pretty $args is valid JSON on several lines" "$(cat "$tmp/err")" "$(cat "$o")"
        # shellcheck disable=SC2086
        a=$("$policyctl" --root "$r" --json=pretty $args 2> /dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin))')
        # shellcheck disable=SC2086
        b=$("$policyctl" --root "$r" --json $args 2> /dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin))')
        # shellcheck disable=SC2086
        c=$("$policyctl" --root "$r" --json=short $args 2> /dev/null)
        [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(wc -l <<< "$c")" = 1 ] \
                && ok "--json=pretty, --json and --json=short $args say the same; short on one line" \
                || not_ok "--json=pretty, --json and --json=short $args say the same; short on one line" "$a" "$b" "$c"
done
out=$("$policyctl" --root "$tmp/conv" --json --json=off list)
grep -qx "1 group listed." <<< "$out" && ok "--json=off is the text again" || not_ok "--json=off is the text again" "$out"

# A file name that is not UTF-8: JSON text stays UTF-8.
nonutf8=$tmp/$'\xff\xfe-latin1-\xe9'/x.policy
mkdir -p "${nonutf8%/*}"
printf '[PolicyGroup]\nNoSuch\xe9Key=1\n' > "$nonutf8"
check "verify --json of a file whose name is not UTF-8 is valid JSON" python3 -c '
import json, subprocess, sys
for form in "--json=pretty", "--json":
    out = subprocess.run([sys.argv[1], form, "verify", sys.argv[2]], capture_output=True).stdout
    d = json.loads(out.decode("utf-8"))
    assert d[0]["file"].endswith("\ufffd\ufffd-latin1-\ufffd/x.policy"), d
    assert d[0]["line"] == 2 and d[0]["severity"] == "error", d  # systemd refuses such a line
' "$policyctl" "$nonutf8"

# A write error is a failure, said on stderr.
for args in "list" "--json list" "verify $tmp/bad/x.policy"; do
        # shellcheck disable=SC2086
        "$policyctl" --root "$r" $args > /dev/full 2> "$tmp/err"; rc=$?
        [ $rc = 1 ] && grep -q "^Failed to write the output: No space left on device$" "$tmp/err" \
                && ok "$args > /dev/full exits 1 and says why" \
                || not_ok "$args > /dev/full exits 1 and says why" "exit $rc" "$(cat "$tmp/err")"
done

# Colours: only on a terminal, never with NO_COLOR or SYSTEMD_COLORS=0.
esc=$'\033['
out=$("$policyctl" verify "$tmp/bad/x.policy")
! grep -qF "$esc" <<< "$out" && ok "verify into a pipe has no colours" || not_ok "verify into a pipe has no colours" "$out"
out=$(SYSTEMD_COLORS=1 "$policyctl" verify "$tmp/bad/x.policy")
grep -qF "${esc}0;1;31m$tmp/bad/x.policy:2: error:" <<< "$out" && ok "SYSTEMD_COLORS=1 colours errors in red" \
        || not_ok "SYSTEMD_COLORS=1 colours errors in red" "$out"
out=$(NO_COLOR=1 SYSTEMD_COLORS=1 "$policyctl" verify "$tmp/bad/x.policy")
! grep -qF "$esc" <<< "$out" && ok "NO_COLOR wins over SYSTEMD_COLORS" || not_ok "NO_COLOR wins over SYSTEMD_COLORS" "$out"
# script(1) needs a pseudo-terminal: a build chroot may have no /dev/pts.
if command -v script > /dev/null && script -qec true /dev/null < /dev/null > /dev/null 2>&1; then
        on_tty() { script -qec "$1" /dev/null < /dev/null 2>&1 | tr -d '\r'; }
        out=$(env -u NO_COLOR -u SYSTEMD_COLORS TERM=xterm bash -c "$(declare -f on_tty); on_tty '$policyctl --no-pager verify $tmp/bad/x.policy'")
        grep -qF "${esc}0;1;31m" <<< "$out" && ok "verify on a terminal colours errors" \
                || not_ok "verify on a terminal colours errors" "$out"
        for var in NO_COLOR=1 NO_COLOR= SYSTEMD_COLORS=0 SYSTEMD_COLORS=no TERM=dumb; do
                out=$(env TERM=xterm "$var" bash -c "$(declare -f on_tty); on_tty '$policyctl --no-pager verify $tmp/bad/x.policy'")
                grep -q "x.policy:2: error:" <<< "$out" && ! grep -qF "$esc" <<< "$out" \
                        && ok "verify on a terminal with $var has no colours" \
                        || not_ok "verify on a terminal with $var has no colours" "$out"
        done

        # The pager: on a terminal only, $SYSTEMD_PAGER, then $PAGER, then less with LESS=FRSXMK.
        # Not in secure mode (below) unless asked for, even if this runs under sudo.
        export SYSTEMD_PAGERSECURE=0
        pager="cat > $tmp/paged; echo \"LESS=\$LESS\" > $tmp/pager-env"
        rm -f "$tmp/paged"
        SYSTEMD_PAGER=$pager on_tty "$policyctl --root $tmp/conv list" > "$o"
        grep -q "^one " "$tmp/paged" 2> /dev/null && ! grep -q "^one " "$o" \
                && ok "on a terminal, list goes through \$SYSTEMD_PAGER" \
                || not_ok "on a terminal, list goes through \$SYSTEMD_PAGER" "terminal: $(cat "$o")"
        rm -f "$tmp/paged"
        env -u SYSTEMD_PAGER PAGER="$pager" bash -c "$(declare -f on_tty); on_tty '$policyctl --root $tmp/conv list'" > "$o"
        grep -q "^one " "$tmp/paged" 2> /dev/null && ok "without \$SYSTEMD_PAGER, \$PAGER is the pager" \
                || not_ok "without \$SYSTEMD_PAGER, \$PAGER is the pager" "$(cat "$o")"
        for how in "--no-pager" "SYSTEMD_PAGER=" "SYSTEMD_PAGER=cat" "piped"; do
                rm -f "$tmp/paged"
                case $how in
                --no-pager) PAGER=$pager on_tty "$policyctl --no-pager --root $tmp/conv list" > "$o" ;;
                piped) PAGER=$pager "$policyctl" --root "$tmp/conv" list > "$o" ;;
                *) env PAGER="$pager" "$how" bash -c "$(declare -f on_tty); on_tty '$policyctl --root $tmp/conv list'" > "$o" ;;
                esac
                [ ! -e "$tmp/paged" ] && grep -q "^one " "$o" && ok "no pager with $how" \
                        || not_ok "no pager with $how" "$(cat "$o")"
        done
        mkdir -p "$tmp/bin"
        # shellcheck disable=SC2016 # expanded by the fake less
        printf '#!/bin/sh\necho "LESS=$LESS${LESSSECURE:+ LESSSECURE=$LESSSECURE}" > %s/pager-env\nexec cat\n' "$tmp" > "$tmp/bin/less"
        chmod +x "$tmp/bin/less"
        rm -f "$tmp/pager-env"
        env -u SYSTEMD_PAGER -u PAGER -u SYSTEMD_LESS PATH="$tmp/bin:$PATH" bash -c "$(declare -f on_tty); on_tty '$policyctl --root $tmp/conv list'" > "$o"
        [ "$(cat "$tmp/pager-env" 2> /dev/null)" = "LESS=FRSXMK" ] && grep -q "^one " "$o" \
                && ok "the default pager is less, with LESS=FRSXMK" \
                || not_ok "the default pager is less, with LESS=FRSXMK" "$(cat "$tmp/pager-env" 2>&1)" "$(cat "$o")"
        # Secure mode, as systemd's: with root's rights under sudo, less alone, with LESSSECURE=1.
        rm -f "$tmp/pager-env" "$tmp/paged"
        env -u SYSTEMD_PAGERSECURE SUDO_UID=1000 SYSTEMD_PAGER="$pager" PATH="$tmp/bin:$PATH" \
                bash -c "$(declare -f on_tty); on_tty '$policyctl --root $tmp/conv list'" > "$o"
        [ "$(cat "$tmp/pager-env" 2> /dev/null)" = "LESS=FRSXMK LESSSECURE=1" ] && [ ! -e "$tmp/paged" ] \
                && grep -q "^one " "$o" && ok "under sudo, the pager is less with LESSSECURE=1, not \$SYSTEMD_PAGER" \
                || not_ok "under sudo, the pager is less with LESSSECURE=1, not \$SYSTEMD_PAGER" \
                        "$(cat "$tmp/pager-env" 2>&1)" "$(cat "$o")"

        # A pager that quits early ends policyctl (SIGPIPE), and no error is made of it.
        { echo '[PolicyGroup]'; for i in $(seq 20000); do echo "NoSuchKey$i=1"; done; } > "$tmp/many.policy"
        start=$(date +%s)
        SYSTEMD_PAGER="head -n 1 > /dev/null" timeout 20 script -qec "$policyctl verify $tmp/many.policy" /dev/null \
                < /dev/null > "$o" 2>&1; rc=$?
        [ $rc != 124 ] && ! grep -q "Failed to write" "$o" && [ $(($(date +%s) - start)) -lt 10 ] \
                && ok "a pager that quits early ends policyctl quietly" \
                || not_ok "a pager that quits early ends policyctl quietly" "exit $rc" "$(head -c 500 "$o")"

        # On a terminal, list fits its width: the description gives way.
        out=$(COLUMNS=100 on_tty "$policyctl --no-pager --root $tmp/conv list")
        wide=$(python3 -c 'import re, sys
for l in sys.stdin.read().split("\n"):
    if len(re.sub("\x1b\\[[0-9;]*m", "", l)) > 100: print(l)' <<< "$out")
        [ -z "$wide" ] && grep -q '…' <<< "$out" && ok "list on a 100-column terminal fits, cutting the description" \
                || not_ok "list on a 100-column terminal fits, cutting the description" "$out"
else
        ok "colours, pager and width on a terminal # SKIP script(1) is not installed, or cannot open a terminal here"
fi

# --- swap-tiers: [SwapTiers] against a fake sysfs tree (--root)
st=$tmp/tiersconf
header='Name             Idx   PrioStart   PrioEnd\n'
put tiersconf/etc/policyd.conf '[SwapTiers]\nTier=fast:100\nTier=slow:-1\n'
put tiersconf/proc/swaps 'Filename Type Size Used Priority\n/dev/zram0 partition 524284 0 100\n'
out=$("$policyctl" --root "$st" swap-tiers apply 2>&1); rc=$?
[ $rc = 0 ] && grep -q "no swap tiers (no $st/sys/kernel/mm/swap/tiers)" <<< "$out" && [ ! -e "$st/sys" ] \
        && ok "swap-tiers apply on a kernel without tiers says so, exits 0 and writes nothing" \
        || not_ok "swap-tiers apply on a kernel without tiers says so, exits 0 and writes nothing" "exit $rc" "$out"
put tiersconf/sys/kernel/mm/swap/tiers "$header"
out=$("$policyctl" --root "$st" swap-tiers 2>&1); rc=$?
[ $rc = 0 ] && grep -q "Would write '+fast:100 +slow:-1'" <<< "$out" && [ "$(cat "$st/sys/kernel/mm/swap/tiers")" = "$(printf "$header")" ] \
        && ok "swap-tiers (plan) says the write and makes none" || not_ok "swap-tiers (plan) says the write and makes none" "exit $rc" "$out"
out=$("$policyctl" --root "$st" swap-tiers apply 2>&1); rc=$?
[ $rc = 0 ] && [ "$(head -c 18 "$st/sys/kernel/mm/swap/tiers")" = "+fast:100 +slow:-1" ] \
        && ok "swap-tiers apply makes one write, highest first" || not_ok "swap-tiers apply makes one write, highest first" "exit $rc" "$out"
put tiersconf/sys/kernel/mm/swap/tiers "${header}fast             3     100         32767\nslow             2     -1          99\nother            1     200         32767\n"
out=$("$policyctl" --root "$st" swap-tiers apply 2>&1); rc=$?
[ $rc = 0 ] && grep -q "nothing to write" <<< "$out" && grep -q "other 200: left alone (not in \[SwapTiers\])" <<< "$out" \
        && ok "swap-tiers apply: as declared, nothing written; a tier not declared is left alone, and said so" \
        || not_ok "swap-tiers apply: as declared, nothing written; a tier not declared is left alone, and said so" "exit $rc" "$out"
put tiersconf/etc/policyd.conf.d/50-move.conf '[SwapTiers]\nTier=\nTier=fast:50\nTier=slow:-1\n'
out=$("$policyctl" --root "$st" swap-tiers apply 2>&1); rc=$?
[ $rc = 1 ] && grep -q "Not applied, nothing written: Removing tier 'fast' would move the active swap device /dev/zram0" <<< "$out" \
        && ok "swap-tiers apply refuses a tier change that would move an active device (EBUSY), exit 1" \
        || not_ok "swap-tiers apply refuses a tier change that would move an active device (EBUSY), exit 1" "exit $rc" "$out"
put tiersconf/etc/policyd.conf.d/50-move.conf '[SwapTiers]\nTier=\nTier=fast:100\nTier=slow:10\n'
out=$("$policyctl" --root "$st" swap-tiers apply 2>&1); rc=$?
[ $rc = 1 ] && grep -qF "$st/etc/policyd.conf.d/50-move.conf:4: error: The lowest swap tier, 'slow', starts at 10" <<< "$out" \
        && ok "swap-tiers apply: a lowest tier not at -1 is an error at its file and line, exit 1" \
        || not_ok "swap-tiers apply: a lowest tier not at -1 is an error at its file and line, exit 1" "exit $rc" "$out"
expect_rc "verify fails on [SwapTiers] without a tier at -1" 1 "$policyctl" --root "$st" verify
expect_rc "swap-tiers takes plan or apply only" 2 "$policyctl" --root "$st" swap-tiers remove

echo "1..$n"
[ $failures = 0 ]
