#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2317 # ok and not_ok always succeed; cleanup runs from the trap
# policyctl's online verbs against a real policyd on a private system bus:
# output formats, --json, and the exit codes for a daemon that is missing,
# hung or gone, a change refused to an unprivileged user, and an unknown
# group or target. Prints TAP lines; exits 0, 1 on a failure, or 77 when this
# machine cannot run it (the reason is printed).
#
# It needs root: it runs in a private mount namespace with a tmpfs on /run
# (the policies go to /run/policy.d, and the host's policy directories are
# hidden), starts dbus-daemon and policyd there, and makes a cgroup of its
# own below the cgroup2 mount.
set -uo pipefail

policyctl=$(realpath "$1")
policyd=$(realpath "$2")

skip() { echo "1..0 # SKIP $*"; exit 77; }

if [ -z "${POLICYCTL_TEST_NAMESPACE:-}" ]; then
        [ "$(id -u)" = 0 ] || skip "needs root (a mount namespace, a cgroup, and setpriv)"
        for tool in dbus-daemon setpriv unshare python3; do
                command -v "$tool" > /dev/null || skip "$tool is not installed"
        done
        unshare --mount --propagation private true 2> /dev/null || skip "cannot create a mount namespace"
        grep -q ' - cgroup2 ' /proc/self/mountinfo || skip "no cgroup2 hierarchy is mounted"
        POLICYCTL_TEST_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi

n=0
failures=0
tmp=$(mktemp -d)
bus_pid='' daemon_pid='' sleeper_pid='' cg=''

cleanup() {
        for pid in $sleeper_pid $daemon_pid; do
                kill -CONT "$pid" 2> /dev/null
                kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
        done
        [ -n "$bus_pid" ] && kill "$bus_pid" 2> /dev/null
        if [ -n "$cg" ]; then
                rmdir "$cg/child" "$cg" 2> /dev/null
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; shift; printf '%s\n' "$@" | sed 's/^/# /'; }
skip_one() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # name, command… : passes when the command succeeds
        local name=$1; shift
        local out
        if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
# name, expected rc, expected text on stderr (grep -E, "" for any), command…
expect() {
        local name=$1 want=$2 pattern=$3; shift 3
        local out err rc
        out=$("$@" 2> "$tmp/stderr"); rc=$?
        err=$(cat "$tmp/stderr")
        if [ "$rc" != "$want" ]; then
                not_ok "$name" "exit $rc, wanted $want" "stdout: $out" "stderr: $err"
        elif [ -n "$pattern" ] && ! grep -qE "$pattern" <<< "$err"; then
                not_ok "$name" "stderr does not match /$pattern/:" "$err"
        else
                ok "$name"
        fi
}
# Runs python3 on a script with policyctl's stdout as input.
check_json() { # name, python script, policyctl arguments…
        local name=$1 script=$2; shift 2
        local out
        if ! out=$("$policyctl" "$@" 2>&1); then
                not_ok "$name" "policyctl $* failed:" "$out"
        elif ! out=$(python3 -c "import json, sys; d = json.load(sys.stdin)
$script" <<< "$out" 2>&1); then
                not_ok "$name" "$out"
        else
                ok "$name"
        fi
}
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
policyctl_nobody() { as_nobody "$policyctl" "$@"; }

# --- a world of our own: no host policies, our own bus
mount -t tmpfs -o mode=0755 tmpfs /run
for d in /etc/policy.d /usr/local/lib/policy.d /usr/lib/policy.d /etc/policyd.conf.d /usr/local/lib/policyd.conf.d \
        /usr/lib/policyd.conf.d; do
        [ -d "$d" ] && mount -t tmpfs tmpfs "$d"
done
for f in /etc/policyd.conf /usr/local/lib/policyd.conf /usr/lib/policyd.conf; do
        [ -e "$f" ] && mount --bind /dev/null "$f"
done

put() { mkdir -p "$(dirname "$1")"; printf '%b' "$2" > "$1"; chmod 0644 "$1"; }
# KSM= is process-level: explain gives it a note that names policyd-generator.
put /run/policy.d/alpha.policy '[PolicyGroup]\nDescription=Alpha test group\nPriority=100\n[Swap]\nSwapMax=1G\n[Memory]\nKSM=yes\n[Attributes]\nXAttr=user.test.class=alpha\n'
# SwapHigh=50% is a share of the swap: explain shows what it came to.
put /run/policy.d/beta.policy '[PolicyGroup]\nDescription=Beta test group\nPriority=200\n[Attributes]\nXAttr=user.test.class=beta\n[Swap]\nSwapHigh=50%\n'
put /run/policy.d/beta.policy.d/10-local.conf '[PolicyGroup]\nPriority=250\n'
# One error (the value is ignored) and one warning (the key is ignored).
put /run/policy.d/odd.policy '[PolicyGroup]\nPriority=5000\nNoSuchKey=1\n'

mkdir -m 0755 "$tmp/bus" "$tmp/state"
chmod 0755 "$tmp"
cat > "$tmp/bus.conf" << EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir=$tmp/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file="$tmp/bus.conf" --fork --print-address=3 --print-pid=4 3> "$tmp/address" 4> "$tmp/bus.pid" \
        || skip "dbus-daemon does not start"
bus_pid=$(cat "$tmp/bus.pid")
DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 "$tmp/address")
export DBUS_SYSTEM_BUS_ADDRESS
export POLICYD_STATE_DIRECTORY=$tmp/state

cgroot=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
cg=$cgroot/policyctl-test-$$
mkdir "$cg" "$cg/child" 2> /dev/null || { cg=; skip "cannot make a cgroup below $cgroot"; }
child=${cg#"$cgroot"}/child

# --- before policyd runs
expect "status without policyd exits 3 and says how to start it" 3 \
        'policyd is not running \(org\.policygroups\.PolicyGroups1 is not on the system bus\)\. Start it with: systemctl start policyd' \
        "$policyctl" status
expect "explain without policyd exits 3" 3 "policyd is not running" "$policyctl" explain "$child"
expect "assign without policyd exits 3" 3 "policyd is not running" "$policyctl" assign "$child" alpha
expect "exec without policyd exits 3, and runs nothing" 3 "policyd is not running" \
        "$policyctl" exec --group=alpha -- touch "$tmp/exec-ran"
[ ! -e "$tmp/exec-ran" ] && ok "exec without policyd did not run the command" \
        || not_ok "exec without policyd did not run the command"
expect "without a system bus, status exits 3" 3 "Cannot connect to the system bus" \
        env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/none" "$policyctl" status

# --- usage errors, checked before any call
expect "--root with status exits 2 and names the option" 2 "^--root is for the offline commands.*'status'" \
        "$policyctl" --root / status
expect "--root after an online verb exits 2 too" 2 "^--root" "$policyctl" explain "$child" --root=/
expect "show without a group exits 2" 2 "show needs one argument" "$policyctl" show
expect "assign with one argument exits 2" 2 "assign needs two arguments" "$policyctl" assign alpha
expect "status with an argument exits 2" 2 "takes no arguments" "$policyctl" status alpha
out=$("$policyctl" --help)
grep -q "^  3  policyd is not running" <<< "$out" && grep -q "^  4  Permission denied" <<< "$out" \
        && ok "--help documents exit codes 3 and 4" || not_ok "--help documents exit codes 3 and 4" "$out"

# --- start policyd; it warns that systemd is not on this bus, and answers
"$policyd" > "$tmp/policyd.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do
        "$policyctl" status > /dev/null 2>&1 && break
        sleep 0.1
done

# --- status
out=$("$policyctl" status 2>&1); rc=$?
[ $rc = 0 ] && grep -qx "      Groups: 3" <<< "$out" && grep -qx "Config files: 1 error, 1 warning (see: policyctl verify)" <<< "$out" \
        && grep -qE '^ Last reload: .* \((just now|[0-9]+s ago)\)$' <<< "$out" \
        && ok "status shows the groups, the problems in the files and the last reload" \
        || not_ok "status shows the groups, the problems in the files and the last reload" "exit $rc" "$out"
grep -qE '^alpha +100 +0 +Alpha test group$' <<< "$out" && grep -qE '^beta +250 +0 +Beta test group$' <<< "$out" \
        && grep -qE '^GROUP +PRIORITY +MEMBERS +DESCRIPTION$' <<< "$out" \
        && ok "status lists each group with priority, members and description" \
        || not_ok "status lists each group with priority, members and description" "$out"

# As systemctl: no command is status.
a=$("$policyctl" 2>&1 | grep -v '^ Last reload:'); rc=$?
b=$("$policyctl" status 2>&1 | grep -v '^ Last reload:')
[ "$a" = "$b" ] && grep -qx "      Groups: 3" <<< "$a" && ok "no command is status" \
        || not_ok "no command is status" "without a command:" "$a" "status:" "$b"
out=$("$policyctl" --no-legend status)
! grep -q '^GROUP' <<< "$out" && grep -qE '^alpha +100 +0 +Alpha test group$' <<< "$out" \
        && ok "status --no-legend drops the table's header" || not_ok "status --no-legend drops the table's header" "$out"
# --json=pretty is valid JSON, and a write error fails: policyctl ARGS…
pretty_and_full() {
        local args=$*
        # shellcheck disable=SC2086 # the arguments split on purpose
        "$policyctl" --json=pretty $args > "$tmp/pretty" 2>&1
        python3 -m json.tool "$tmp/pretty" > /dev/null 2> "$tmp/err" && [ "$(wc -l < "$tmp/pretty")" -gt 1 ] \
                && ok "--json=pretty $args is valid JSON on several lines" \
                || not_ok "--json=pretty $args is valid JSON on several lines" "$(cat "$tmp/err")" "$(cat "$tmp/pretty")"
        # shellcheck disable=SC2086
        "$policyctl" $args > /dev/full 2> "$tmp/err"; rc=$?
        [ $rc = 1 ] && grep -qx "Failed to write the output: No space left on device" "$tmp/err" \
                && ok "$args > /dev/full exits 1 and says why" \
                || not_ok "$args > /dev/full exits 1 and says why" "exit $rc" "$(cat "$tmp/err")"
}
pretty_and_full status
pretty_and_full show beta

check_json "status --json is one object with the daemon's state and the groups" '
import time
assert set(d) == {"version", "dry_run", "n_groups", "n_members", "config_errors", "config_warnings",
                  "units_need_daemon_reload", "processes", "swap", "attributes", "managers", "records",
                  "last_reload_usec", "last_reload", "write_failures", "groups"}, sorted(d)
# /proc/swaps is followed (the daemon reads the host'"'"'s).
assert d["swap"].startswith("swapon and swapoff followed (/proc/swaps)"), d["swap"]
assert d["units_need_daemon_reload"] == 0, d
# Nothing is applied yet: no write has failed.
assert d["write_failures"] == {"knobs": 0, "units": 0, "cgroups": 0}, d["write_failures"]
# The fake systemd runs no user@UID.service: PID 1 alone.
assert d["managers"].startswith("system (") and "user@" not in d["managers"], d["managers"]
# alpha sets KSM=: the process layer is on, and no unit runs under this fake systemd.
assert d["processes"].startswith("inotify on 0 cgroups (members whose groups set KSM=, NUMAPolicy= or NUMANodes=)"), d["processes"]
# No group matches on XAttr= or allows self-requests: no attribute is read.
assert d["attributes"].startswith("not watched: no group has [Match] XAttr="), d["attributes"]
assert d["dry_run"] is False and d["n_groups"] == 3 and d["n_members"] == 0, d
assert d["config_errors"] == 1 and d["config_warnings"] == 1, d
assert abs(d["last_reload_usec"] / 1e6 - time.time()) < 120, d["last_reload_usec"]
assert d["last_reload"].endswith("Z"), d["last_reload"]
assert [g["name"] for g in d["groups"]] == ["alpha", "beta", "odd"], d["groups"]
assert d["groups"][1] == {"name": "beta", "priority": 250, "description": "Beta test group",
                          "file": "/run/policy.d/beta.policy", "members": 0}, d["groups"][1]
assert d["groups"][2]["description"] is None, d["groups"][2]
' --json status

# --- show
out=$("$policyctl" show beta 2>&1); rc=$?
[ $rc = 0 ] && grep -qx "   Priority: 250" <<< "$out" && grep -qx "       File: /run/policy.d/beta.policy" <<< "$out" \
        && grep -qx "   Drop-ins: /run/policy.d/beta.policy.d/10-local.conf" <<< "$out" \
        && grep -qx "  # /run/policy.d/beta.policy:5" <<< "$out" && grep -qx "  XAttr=user.test.class=beta" <<< "$out" \
        && grep -qx "No members." <<< "$out" \
        && ok "show prints priority, file, drop-ins, settings and members" \
        || not_ok "show prints priority, file, drop-ins, settings and members" "exit $rc" "$out"
check_json "show --json is one object with the group and its members" '
assert set(d) == {"name", "priority", "description", "file", "dropins", "settings", "members"}, sorted(d)
assert d["name"] == "beta" and d["priority"] == 250 and d["members"] == [], d
assert d["dropins"] == ["/run/policy.d/beta.policy.d/10-local.conf"], d["dropins"]
assert "XAttr=user.test.class=beta" in d["settings"], d["settings"]
' --json show beta
expect "show of an unknown group exits 1 with policyd's message" 1 "^No policy group 'nosuch' is loaded\.$" \
        "$policyctl" show nosuch

# --- assign
out=$("$policyctl" assign "$child" alpha 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "Assigned $child to group alpha." ] && ok "assign confirms in one line" \
        || not_ok "assign confirms in one line" "exit $rc" "$out"
xattr() { python3 -c 'import os, sys
try: print(os.getxattr(sys.argv[1], sys.argv[2]).decode())
except OSError: print("(none)")' "$1" "$2"; }
v=$(xattr "$cgroot$child" user.policy.group)
[ "$v" = alpha ] && ok "after assign, the cgroup carries user.policy.group=alpha" \
        || not_ok "after assign, the cgroup carries user.policy.group=alpha" "got $v"
out=$("$policyctl" --json assign "$child" beta 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] && ok "assign --json prints nothing on success" \
        || not_ok "assign --json prints nothing on success" "exit $rc" "$out"
expect "assign to an unknown group exits 1 with policyd's message" 1 "^No policy group 'nosuch' is loaded\.$" \
        "$policyctl" assign "$child" nosuch
expect "assign of a cgroup that does not exist exits 1" 1 "^No cgroup /no/such/cgroup\.$" \
        "$policyctl" assign /no/such/cgroup alpha

out=$("$policyctl" show alpha 2>&1)
grep -qE "^-  +$child +runtime$" <<< "$out" && grep -qx "1 member." <<< "$out" \
        && ok "show lists the assigned cgroup as a member" || not_ok "show lists the assigned cgroup as a member" "$out"
out=$("$policyctl" --no-legend show alpha 2>&1)
grep -qE "^-  +$child +runtime$" <<< "$out" && ! grep -q "member\.$" <<< "$out" && ! grep -q "^UNIT" <<< "$out" \
        && ok "show --no-legend drops the members' header and count" \
        || not_ok "show --no-legend drops the members' header and count" "$out"
check_json "status counts the member" '
assert d["n_members"] == 1, d
assert {g["name"]: g["members"] for g in d["groups"]} == {"alpha": 1, "beta": 1, "odd": 0}, d["groups"]
' --json status

# --- explain
out=$("$policyctl" explain "$child" 2>&1); rc=$?
[ $rc = 0 ] && grep -qx "  Unit: -" <<< "$out" && grep -qx "Cgroup: $child" <<< "$out" \
        && grep -qx "Groups: alpha (runtime), beta (runtime)" <<< "$out" \
        && ok "explain names the unit, the cgroup and the groups with their source" \
        || not_ok "explain names the unit, the cgroup and the groups with their source" "exit $rc" "$out"
out2=$("$policyctl" --no-legend explain "$child" 2>&1)
! grep -q '^  KNOB' <<< "$out2" && grep -qE '^  user\.test\.class +beta +beta' <<< "$out2" \
        && ok "explain --no-legend drops the table's header" || not_ok "explain --no-legend drops the table's header" "$out2"
grep -qE '^  KNOB +REQUESTED +EFFECTIVE +BACKEND +GROUP +SOURCE +NOTE$' <<< "$out" \
        && grep -qE '^  user\.test\.class +beta +beta +xattr +beta +/run/policy\.d/beta\.policy:5 +-$' <<< "$out" \
        && ok "explain shows requested and effective side by side, with backend, group and file:line" \
        || not_ok "explain shows requested and effective side by side, with backend, group and file:line" "$out"
check_json "explain --json has unit, manager, cgroup, groups, knobs and processes" "
assert set(d) == {'unit', 'manager', 'cgroup', 'groups', 'knobs', 'processes'}, sorted(d)
assert d['processes'] == [], d['processes']
assert d['unit'] is None and d['manager'] is None and d['cgroup'] == '$child', d
assert d['groups'] == [{'group': 'alpha', 'source': 'runtime'}, {'group': 'beta', 'source': 'runtime'}], d['groups']
for k in d['knobs']:
    assert {'knob', 'target', 'requested', 'effective', 'backend', 'group', 'file', 'line', 'note'} <= set(k), k
x = [k for k in d['knobs'] if k['knob'] == 'user.test.class']
assert x == [{'knob': 'user.test.class', 'target': 'user.test.class', 'requested': 'beta', 'effective': 'beta',
              'backend': 'xattr', 'group': 'beta', 'file': '/run/policy.d/beta.policy', 'line': 5, 'note': None,
              'last_error': None, 'last_error_errno': None, 'last_error_usec': None, 'last_error_value': None}], x
# No prose in the data: the knob apart from its file, sizes in bytes as numbers.
x = [k for k in d['knobs'] if k['knob'] == 'SwapMax']
assert len(x) == 1 and x[0]['target'] == 'memory.swap.max' and x[0]['requested'] == '1G', x
assert x[0]['requested_bytes'] == 1 << 30 and x[0]['line'] == 5, x
x = [k for k in d['knobs'] if k['knob'] == 'SwapHigh']
assert len(x) == 1 and x[0]['requested'] == '50%', x
swap_kib = sum(int(l.split()[2]) for l in open('/proc/swaps').read().splitlines()[1:] if len(l.split()) > 2)
if swap_kib > 0:
    assert type(x[0]['requested_bytes']) is int, x
else:
    # A share of no swap is not written as 0 (issue 24): not enforceable, and why.
    assert x[0]['backend'] == 'not-enforceable' and x[0]['requested_bytes'] is None, x
    assert 'no swap was active' in x[0]['note'], x
assert x[0]['effective_bytes'] is None or type(x[0]['effective_bytes']) is int, x
" --json explain "$child"

pretty_and_full explain "$child"

sleep 300 &
sleeper_pid=$!
if echo "$sleeper_pid" > "$cgroot$child/cgroup.procs" 2> /dev/null; then
        out=$("$policyctl" explain "$sleeper_pid" 2>&1)
        grep -qx "Cgroup: $child" <<< "$out" && ok "explain PID finds the process's cgroup" \
                || not_ok "explain PID finds the process's cgroup" "$out"
        check_json "explain --json gives each process's PID as a number" "
assert d['processes'], d
assert all(type(p['pid']) is int for p in d['processes']), d['processes']
assert $sleeper_pid in [p['pid'] for p in d['processes']], d['processes']
" --json explain "$sleeper_pid"
else
        skip_one "explain PID finds the process's cgroup" "cannot move a process into $child"
fi
expect "explain of a cgroup policyd does not manage exits 1" 1 "^policyd does not manage '/no/such'" \
        "$policyctl" explain /no/such
expect "explain of something that is no target exits 1" 1 "is not a unit name, a cgroup path or a PID" \
        "$policyctl" explain 'not/a unit'

# Nothing is cut when stdout is not a terminal: every note is whole.
"$policyctl" --json explain "$child" | python3 -c 'import json, sys
for k in json.load(sys.stdin)["knobs"]:
    if k["note"]: print(k["note"])' > "$tmp/notes"
out=$("$policyctl" explain "$child")
missing=$(while read -r note; do grep -qF -- "$note" <<< "$out" || echo "$note"; done < "$tmp/notes")
[ -s "$tmp/notes" ] && [ -z "$missing" ] && ! grep -q '…' <<< "$out" \
        && ok "explain into a pipe cuts nothing" || not_ok "explain into a pipe cuts nothing" "missing: $missing" "$out"

# On a terminal, the table fits and the notes cut in it follow in full.
if command -v script > /dev/null; then
        for cols in 80 120; do
                COLUMNS=$cols script -qec "$policyctl --no-pager explain $child" /dev/null > "$tmp/tty" 2>&1
                python3 - "$tmp/tty" "$tmp/notes" "$cols" << 'EOF' > "$tmp/tty-check" 2>&1 \
                        && ok "explain on a $cols-column terminal fits, and gives cut notes in full" \
                        || not_ok "explain on a $cols-column terminal fits, and gives cut notes in full" \
                                "$(cat "$tmp/tty-check")" "$(cat "$tmp/tty")"
import re, sys
# Colours are on at a terminal: measure the text without them.
text = re.sub("\x1b\\[[0-9;]*m", "", open(sys.argv[1], encoding="utf-8").read().replace("\r", ""))
notes = open(sys.argv[2], encoding="utf-8").read().split("\n")
cols = int(sys.argv[3])
lines = text.split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("  KNOB"))
end = lines.index("", start)
table = lines[start:end]
wide = [l for l in table if len(l) > cols]
assert not wide, f"lines wider than {cols}: {wide}"
for note in filter(None, notes):
    assert note in text, f"note not shown in full: {note}"
EOF
        done
else
        skip_one "explain on a terminal fits, and gives cut notes in full" "script(1) is not installed"
fi

# A parent that caps the child's swap: needs the memory controller with swap
# accounting, which the host's root cgroup must already hand down.
if grep -qw memory "$cgroot/cgroup.subtree_control" 2> /dev/null \
        && echo +memory > "$cg/cgroup.subtree_control" 2> /dev/null && [ -e "$cg/memory.swap.max" ] \
        && echo 1048576 > "$cg/memory.swap.max"; then
        "$policyctl" reload > /dev/null 2>&1 # applies SwapMax now that the file exists
        out=$("$policyctl" explain "$child" 2>&1)
        grep -qE "^! SwapMax \(memory\.swap\.max\) +1G +[^ ]+ .*capped by ${cg#"$cgroot"}" <<< "$out" \
                && grep -q "^! A parent cgroup caps the requested value" <<< "$out" \
                && ok "explain marks a request a parent caps with ! and says which parent" \
                || not_ok "explain marks a request a parent caps with ! and says which parent" "$out"
else
        skip_one "explain marks a request a parent caps with ! and says which parent" \
                "no memory controller with swap accounting below $cgroot"
fi

# --- what an unprivileged user may do
if as_nobody "$policyctl" --version > /dev/null 2>&1; then
        expect "assign as an unprivileged user, to a group without AllowSelfAssign=, exits 4 and says why" 4 \
                "^Permission denied: Cannot assign $child to group 'alpha': group 'alpha' does not allow self-assignment \(AllowSelfAssign=no\); only root may change its members\.$" \
                policyctl_nobody assign "$child" alpha
        expect "unassign as an unprivileged user exits 4" 4 "^Permission denied" policyctl_nobody unassign "$child" alpha
        expect "reload as an unprivileged user exits 4" 4 "^Permission denied" policyctl_nobody reload
        expect "status as an unprivileged user works: reads are open" 0 "" policyctl_nobody status
        expect "explain as an unprivileged user works" 0 "" policyctl_nobody explain "$child"
else
        skip_one "an unprivileged user gets exit 4 for changes, and may read" "uid 65534 cannot run $policyctl"
fi

# --- unassign
out=$("$policyctl" unassign "$child" alpha 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "Removed $child from group alpha." ] && ok "unassign confirms in one line" \
        || not_ok "unassign confirms in one line" "exit $rc" "$out"
expect "unassign of a group the cgroup is not in exits 1" 1 "^$child is not in group 'alpha'\.$" \
        "$policyctl" unassign "$child" alpha
"$policyctl" --json unassign "$child" beta > "$tmp/out" 2>&1; rc=$?
v=$(xattr "$cgroot$child" user.policy.group)
[ $rc = 0 ] && [ ! -s "$tmp/out" ] && [ "$v" = "(none)" ] \
        && ok "after the last unassign, user.policy.group is gone" \
        || not_ok "after the last unassign, user.policy.group is gone" "exit $rc, xattr $v" "$(cat "$tmp/out")"

# --- reload
put /run/policy.d/gamma.policy '[PolicyGroup]\nPriority=1\n'
out=$("$policyctl" reload 2> "$tmp/stderr"); rc=$?
[ $rc = 0 ] && [ "$out" = "Reloaded policy groups: 4 groups loaded." ] \
        && grep -qx "The policy files have 1 error and 1 warning; see: policyctl verify" "$tmp/stderr" \
        && ok "reload confirms with the number of groups, and mentions problems in the files" \
        || not_ok "reload confirms with the number of groups, and mentions problems in the files" "exit $rc" "$out" \
                "$(cat "$tmp/stderr")"
out=$("$policyctl" --json reload 2> /dev/null); rc=$?
[ $rc = 0 ] && [ -z "$out" ] && ok "reload --json prints nothing on success" \
        || not_ok "reload --json prints nothing on success" "exit $rc" "$out"

# --- every kind of bad argument, with policyd running: a message on stderr
# and the exit code of EXIT STATUS in policyctl(1). Usage errors (2) are
# found before any call; what policyd refuses is 1; a change by a user
# other than root that the rules of self-assignment refuse is 4.
expect "show with two groups exits 2" 2 "show needs one argument" "$policyctl" show alpha beta
expect "explain without a target exits 2" 2 "explain needs one argument" "$policyctl" explain
expect "explain with two targets exits 2" 2 "explain needs one argument" "$policyctl" explain "$child" "$child"
expect "assign without arguments exits 2" 2 "assign needs two arguments" "$policyctl" assign
expect "assign with three arguments exits 2" 2 "assign needs two arguments" "$policyctl" assign "$child" alpha beta
expect "unassign with one argument exits 2" 2 "unassign needs two arguments" "$policyctl" unassign "$child"
expect "unassign with three arguments exits 2" 2 "unassign needs two arguments" "$policyctl" unassign "$child" a b
expect "reload with an argument exits 2" 2 "reload takes no arguments" "$policyctl" reload now
expect "exec without --group exits 2" 2 "^exec needs --group=GROUP" "$policyctl" exec -- true
expect "exec without -- exits 2 and names the command" 2 "^exec needs '--' before the command: .* -- true" \
        "$policyctl" exec --group=alpha true
expect "exec of a group that is not loaded exits 1" 1 "^No policy group 'nosuch' is loaded\.$" \
        "$policyctl" exec --group=nosuch -- touch "$tmp/exec-ran"
# No systemd on this bus: the scope cannot be made, and nothing runs.
expect "exec where systemd cannot start the scope exits 1" 1 "^Failed to start transient scope policyctl-exec-" \
        "$policyctl" exec --group=alpha -- touch "$tmp/exec-ran"
[ ! -e "$tmp/exec-ran" ] && ok "exec that failed ran nothing" || not_ok "exec that failed ran nothing"
expect "--root with assign exits 2" 2 "^--root is for the offline commands.*'assign'" \
        "$policyctl" --root / assign "$child" alpha
expect "--root with reload exits 2" 2 "^--root is for the offline commands.*'reload'" "$policyctl" reload --root=/
expect "--root with show exits 2" 2 "^--root is for the offline commands.*'show'" "$policyctl" --root=/ show alpha
expect "an unknown option with an online command exits 2" 2 "unrecognized option '--force'" \
        "$policyctl" assign --force "$child" alpha
for target in .. /.. "${child}/.." "${child}/../.." /./x //x "$child/" "$cgroot$child" "a/../b.service" \
        '*.service' "$(printf 'x\ty.service')" 0 99999999999999999999 0x10; do
        expect "explain '$target' exits 1 with policyd's message" 1 "is not a unit name, a cgroup path or a PID|does not manage|No process" \
                "$policyctl" explain "$target"
        expect "assign '$target' exits 1 and assigns nothing" 1 "is not a unit name, a cgroup path|No cgroup|No process" \
                "$policyctl" assign "$target" alpha
done
expect "explain of a PID that does not exist exits 1" 1 "^No process 2147483647\.$" "$policyctl" explain 2147483647
expect "assign of a PID that does not exist exits 1" 1 "^No process 2147483647\.$" "$policyctl" assign 2147483647 alpha
expect "unassign from a group that is not loaded exits 1" 1 "is not in group 'nosuch'" \
        "$policyctl" unassign "$child" nosuch
long=$(head -c 100000 /dev/zero | tr '\0' a)
expect "explain of a 100 kB unit name exits 1" 1 "is not a unit name|does not manage" "$policyctl" explain "$long.service"
# systemd's unit names have at most 255 characters and no spaces: such a
# name can never run, so an assignment of it is a mistake (or an attack on
# /run/policyd), not a plan for later.
expect "assign of a 100 kB unit name exits 1" 1 "is not a unit name" "$policyctl" assign "$long.service" alpha
expect "assign of a unit name with a space exits 1" 1 "is not a unit name" "$policyctl" assign "a b.service" alpha
grep -qF -e "$long" -e "a b.service" "$POLICYD_STATE_DIRECTORY/assignments" \
        && not_ok "no assignment of an invalid unit name is kept" "$(cut -c1-200 "$POLICYD_STATE_DIRECTORY/assignments")" \
        || ok "no assignment of an invalid unit name is kept"
if as_nobody "$policyctl" --version > /dev/null 2>&1; then
        expect "assign of a malformed target by an unprivileged user exits 4" 4 "^Permission denied" \
                policyctl_nobody assign /.. alpha
        expect "unassign from a group that is not loaded, by an unprivileged user, exits 4" 4 \
                "^Permission denied: Cannot take $child out of group 'nosuch': no policy group 'nosuch' is loaded" \
                policyctl_nobody unassign "$child" nosuch
        expect "--user unassign of a unit by an unprivileged user names user@65534/UNIT, and is refused" 4 \
                "^Permission denied: Cannot take user@65534/foo\.service out of group 'alpha'" \
                policyctl_nobody --user unassign foo.service alpha
        # assign asks the caller's manager first, as systemctl --user
        # set-property does; uid 65534 has none here.
        expect "--user assign without the caller's systemd exits 1 and says so" 1 \
                "^Cannot reach your systemd \(--user\)" \
                as_nobody env -u XDG_RUNTIME_DIR -u DBUS_SESSION_BUS_ADDRESS "$policyctl" --user assign foo.service alpha
        expect "--user with status exits 2" 2 "^--user goes with assign, unassign and explain only\.$" \
                "$policyctl" --user status
        expect "a usage error by an unprivileged user is still 2" 2 "assign needs two arguments" \
                policyctl_nobody assign alpha
        expect "exec by an unprivileged user exits 4 before making a scope" 4 \
                "^Permission denied: 'policyctl exec' puts a new scope in group alpha" \
                policyctl_nobody exec --group=alpha -- true
        expect "exec of a group that is not loaded, by an unprivileged user, exits 1" 1 "^No policy group 'nosuch' is loaded" \
                policyctl_nobody exec --group=nosuch -- true
fi

# --- a hung daemon, then none
kill -STOP "$daemon_pid"
start=$(date +%s)
expect "a hung policyd makes status exit 3 at the call timeout" 3 "^policyd did not answer in time" \
        env SYSTEMD_BUS_TIMEOUT=2 "$policyctl" status
[ $(($(date +%s) - start)) -lt 10 ] && ok "policyctl does not wait past the timeout" \
        || not_ok "policyctl does not wait past the timeout" "took $(($(date +%s) - start)) s"
kill -CONT "$daemon_pid"
kill "$daemon_pid"
wait "$daemon_pid" 2> /dev/null
daemon_pid=
expect "after policyd stopped, status exits 3 again" 3 "^policyd is not running" "$policyctl" status

echo "1..$n"
if [ $failures != 0 ]; then
        echo "# policyd's log:"
        sed 's/^/# /' "$tmp/policyd.log"
        exit 1
fi
exit 0
