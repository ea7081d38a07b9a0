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
expect_rc "no command exits 2" 2 "$policyctl"
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
bad "--json alone is no command" 2 "No command given" --json
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

echo "1..$n"
[ $failures = 0 ]
