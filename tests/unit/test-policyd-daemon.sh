#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2317 # ok and not_ok always succeed; cleanup runs from the trap
# policyd from outside, against fake-systemd on a private system bus:
#   - it exits cleanly when stopped with calls to systemd in flight, and
#     survives systemd or the bus going away under those calls (issue 8, 1.1);
#   - a group whose file stops loading keeps its last good version;
#   - user.* xattrs on cgroups root does not own select only AllowSelfAssign=yes
#     groups, self-requests only those groups and only on Delegate=yes units,
#     and changes of either are followed without a signal from systemd;
#   - a user other than root may Assign and Unassign only their own cgroups
#     and user@UID/ units, only to AllowSelfAssign=yes groups, and what they
#     assigned holds only while the cgroup is theirs (issue 10, 3);
#   - SetUnitProperties: none for a unit already right, one per unit that
#     needs changes (issue 8, 3).
#   - it follows JobRemoved, PropertiesChanged and Reloading, and runs no
#     daemon-reload of its own when a unit-file group changes (issue 8, 1.3).
#   - once started, it sweeps the records of units and cgroups that went
#     while it was not running (issue 8, 1.5).
#   - its own interface is the one the installed introspection XML describes,
#     and the properties it declares as announced are (issue 27, 8).
#   - explain shows each knob whose last write failed, and why, and status
#     counts them, until a later write succeeds or nothing wants the knob;
#     --self-test fails without the memory controller (issue 27, 9).
#   - policyd --revert undoes what policyd.service set (unit properties,
#     xattrs, a stopped unit's properties), removes the runtime drop-ins that
#     only restate the unit's files, keeps the assignments file as it is and
#     the records of what it could not undo (exit 5); it refuses to run while
#     the bus name is taken, and with --once (issue 27, 1); a process record
#     stays while the injector's socket is not there.
# Prints TAP lines; exits 0, 1 on a failure, or 77 when this machine cannot
# run it (the reason is printed).
#
# Like test-policyctl-online, it needs root: a private mount namespace with a
# tmpfs on /run (the policies go to /run/policy.d), a private dbus-daemon,
# and a cgroup of its own below the cgroup2 mount.
#
# Usage: test-policyd-daemon.sh POLICYCTL POLICYD FAKE-SYSTEMD FAKE-POLKIT INTROSPECTION-XML CHECK-INTROSPECTION
# POLICYD_DAEMON_WRAPPER, when set, runs policyd under it (valgrind).
set -uo pipefail

policyctl=$(realpath "$1")
policyd=$(realpath "$2")
fake_systemd=$(realpath "$3")
fake_polkit=$(realpath "$4")
xml=$(realpath "$5")                     # the installed introspection XML
check_introspection=$(realpath "$6")     # check-introspection.py

skip() { echo "1..0 # SKIP $*"; exit 77; }

if [ -z "${POLICYD_TEST_NAMESPACE:-}" ]; then
        [ "$(id -u)" = 0 ] || skip "needs root (a mount namespace, a cgroup, and chown)"
        for tool in dbus-daemon busctl getfattr setfattr unshare python3; do
                command -v "$tool" > /dev/null || skip "$tool is not installed"
        done
        unshare --mount --propagation private true 2> /dev/null || skip "cannot create a mount namespace"
        grep -q ' - cgroup2 ' /proc/self/mountinfo || skip "no cgroup2 hierarchy is mounted"
        POLICYD_TEST_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi

# Any sanitizer report ends policyd with a non-zero status (meson sets these
# too; they matter when the script is run by hand against an ASan build).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
read -ra wrapper <<< "${POLICYD_DAEMON_WRAPPER:-}"
# valgrind makes everything slower.
slow=1
[ ${#wrapper[@]} -gt 0 ] && slow=10

n=0
failures=0
tmp=$(mktemp -d)
bus_pid='' daemon_pid='' fake_pid='' polkit_pid='' monitor_pid='' cg=''

cleanup() {
        for pid in $monitor_pid $daemon_pid $fake_pid $polkit_pid $bus_pid; do
                kill -9 "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
        done
        if [ -n "$cg" ]; then
                find "$cg" -mindepth 1 -depth -type d -exec rmdir {} + 2> /dev/null
                rmdir "$cg" 2> /dev/null
        fi
        umount "$tmp/state" 2> /dev/null
        rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; shift; printf '%s\n' "$@" | sed 's/^/# /'; }
# Waits up to $1 seconds (times $slow) for a command to succeed.
wait_for() {
        local deadline=$(($(date +%s) + $1 * slow)); shift
        until "$@" > /dev/null 2>&1; do
                [ "$(date +%s)" -ge "$deadline" ] && return 1
                sleep 0.05
        done
}
at_least() { [ "$("${@:2}")" -ge "$1" ]; } # N, command printing a number
# policyd knows a unit's cgroup once the reply that carried it was handled, and
# applied: the apply runs in the same handler.
knows_cgroup() { "$policyctl" --json explain "$1" | grep -q '"cgroup": *"/'; }
knows_no_cgroup() { ! knows_cgroup "$1"; }
not() { ! "$@"; }
policyctl_knows_group() { "$policyctl" --json status | grep -q "\"name\": *\"$1\""; }
gone() { ! kill -0 "$1" 2> /dev/null; }
xattr() { getfattr --absolute-names --only-values -n "$2" "$1" 2> /dev/null || echo "(none)"; }
xattr_is() { [ "$(xattr "$1" "$2")" = "$3" ]; }
put() { mkdir -p "$(dirname "$1")"; printf '%b' "$2" > "$1"; chmod 0644 "$1"; }
calls() { grep -c "^$1 $2\( \|$\)" "$tmp/fake.log"; } # method, unit: how many calls the fake got
policyd_log() { sed 's/^/  policyd: /' "$tmp/policyd.log"; }

# --- a world of our own: no host policies, our own bus, our own cgroup
mount -t tmpfs -o mode=0755 tmpfs /run
for d in /etc/policy.d /usr/local/lib/policy.d /usr/lib/policy.d /etc/policyd.conf.d /usr/local/lib/policyd.conf.d \
        /usr/lib/policyd.conf.d; do
        [ -d "$d" ] && mount -t tmpfs tmpfs "$d"
done
for f in /etc/policyd.conf /usr/local/lib/policyd.conf /usr/lib/policyd.conf; do
        [ -e "$f" ] && mount --bind /dev/null "$f"
done
mkdir -p /run/policy.d
chmod 0755 "$tmp"

cat > "$tmp/bus.conf" << EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
start_bus() {
        dbus-daemon --config-file="$tmp/bus.conf" --fork --print-address=3 --print-pid=4 \
                3> "$tmp/address" 4> "$tmp/bus.pid" || return 1
        bus_pid=$(cat "$tmp/bus.pid")
        DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 "$tmp/address")
        export DBUS_SYSTEM_BUS_ADDRESS
}
start_bus || skip "dbus-daemon does not start"

cgroot=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
cg=$cgroot/policyd-daemon-test-$$
mkdir "$cg" 2> /dev/null || { cg=; skip "cannot make a cgroup below $cgroot"; }
setfattr -n user.test.probe -v 1 "$cg" 2> /dev/null || skip "cgroupfs at $cgroot takes no user.* xattrs"
setfattr -x user.test.probe "$cg"
rel=${cg#"$cgroot"}

# --- the pieces: fake systemd with a unit list, then policyd

# Starts fake-systemd on the unit lines in $tmp/units, with its arguments.
start_fake() {
        : > "$tmp/fake.log"
        "$fake_systemd" --units="$tmp/units" --log="$tmp/fake.log" "$@" 2>> "$tmp/fake.err" &
        fake_pid=$!
        wait_for 5 grep -qx ready "$tmp/fake.log"
}
stop_fake() {
        [ -n "$fake_pid" ] && kill "$fake_pid" 2> /dev/null && wait "$fake_pid" 2> /dev/null
        fake_pid=
}
control() { # METHOD [SIGNATURE ARGS…]: a control call to fake-systemd
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
                org.policygroups.test.FakeSystemd "$@"
}

# Starts policyd with a fresh state directory (or, with "keep", the one
# there is), and waits for its bus name.
start_policyd() {
        if [ "${1:-}" != keep ]; then
                rm -rf "$tmp/state"
                mkdir -m 0755 "$tmp/state"
        fi
        : > "$tmp/policyd.log"
        POLICYD_STATE_DIRECTORY=$tmp/state "${wrapper[@]}" "$policyd" --log-level=debug >> "$tmp/policyd.log" 2>&1 &
        daemon_pid=$!
        wait_for 10 "$policyctl" status
}

# Sends SIGTERM and waits up to $1 s (killing it after that); sets
# exit_problem to what was wrong with the exit, if anything.
stop_policyd() {
        local limit=$1 rc
        exit_problem=''
        kill -TERM "$daemon_pid"
        if ! wait_for "$limit" gone "$daemon_pid"; then
                kill -9 "$daemon_pid"
                exit_problem="did not exit within $((limit * slow)) s of SIGTERM"
        fi
        wait "$daemon_pid"; rc=$?
        daemon_pid=
        if [ -z "$exit_problem" ] && [ "$rc" -gt 128 ]; then
                exit_problem="killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2> /dev/null))"
        elif [ -z "$exit_problem" ] && [ "$rc" != 0 ]; then
                exit_problem="exit status $rc"
        fi
        if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|Invalid (read|write)|Process terminating' \
                "$tmp/policyd.log"; then
                exit_problem="${exit_problem:+$exit_problem; }a sanitizer or valgrind reported an error"
        fi
        [ -z "$exit_problem" ]
}
# Checks the stop, with the evidence when it went wrong.
check_stop() { # name, seconds
        if stop_policyd "$2"; then
                ok "$1"
        else
                local evidence
                evidence=$(grep -E -A25 'ERROR: |runtime error:|Invalid (read|write)' "$tmp/policyd.log" | head -n 60)
                not_ok "$1" "$exit_problem" "${evidence:-$(tail -n 15 "$tmp/policyd.log")}"
        fi
}

# 100 running scopes, as a boot or a reload would list them.
many_units() {
        : > "$tmp/units"
        for i in $(seq -w 1 100); do
                echo "t$i.scope ControlGroup=$rel/t$i.scope Slice=test.slice" >> "$tmp/units"
        done
}

# === 1. Stopping with calls in flight (issue 8, 1.1)

many_units
rm -f /run/policy.d/*
put /run/policy.d/many.policy '[Match]\nSlice=test.slice\n[Attributes]\nXAttr=user.test.many=1\n'
start_fake --hold=GetAll --hold=Get
start_policyd || not_ok "policyd starts" "$(policyd_log)"
if wait_for 10 at_least 32 grep -c ^Get "$tmp/fake.log"; then
        sleep 0.2
        ok "policyd has $(grep -c ^Get "$tmp/fake.log") Get and GetAll calls in flight, unanswered"
else
        not_ok "policyd has Get and GetAll calls in flight, unanswered" "the fake saw $(grep -c ^Get "$tmp/fake.log")"
fi
check_stop "SIGTERM with calls in flight: policyd exits 0 within 5 s, not by a signal" 5

# The unanswered calls fail when systemd goes away: the same teardown of
# pending calls, from the bus side.
: > "$tmp/fake.log"
start_policyd || not_ok "policyd starts" "$(policyd_log)"
wait_for 10 at_least 32 grep -c ^Get "$tmp/fake.log"
kill -9 "$fake_pid"; wait "$fake_pid" 2> /dev/null; fake_pid=
sleep "$slow"
if kill -0 "$daemon_pid" 2> /dev/null; then
        ok "systemd vanishing under calls in flight leaves policyd running"
else
        not_ok "systemd vanishing under calls in flight leaves policyd running" "$(tail -n 40 "$tmp/policyd.log")"
fi
check_stop "after systemd vanished, SIGTERM makes policyd exit 0" 5

# === 2. A group whose file stops loading keeps its last good version

mkdir "$cg/keep.service"
echo "keep.service ControlGroup=$rel/keep.service Slice=system.slice" > "$tmp/units"
rm -f /run/policy.d/*
put /run/policy.d/keep.policy '[Match]\nUnit=keep.service\n[Attributes]\nXAttr=user.test.keep=1\n'
start_fake
start_policyd || not_ok "policyd starts" "$(policyd_log)"
if wait_for 10 xattr_is "$cg/keep.service" user.policy.group keep; then
        ok "policyd tags the unit's cgroup: user.policy.group=keep"
else
        not_ok "policyd tags the unit's cgroup: user.policy.group=keep" "$(policyd_log)"
fi

# Refused for its mode: still there, no longer loadable.
chmod 0666 /run/policy.d/keep.policy
out=$("$policyctl" reload 2>&1) || not_ok "policyctl reload succeeds" "$out"
# The reload resolves the unit again from what policyd knows, before it replies.
v=$(xattr "$cg/keep.service" user.policy.group)
[ "$v" = keep ] && ok "after a reload with the file refused (mode 0666), the cgroup keeps user.policy.group=keep" \
        || not_ok "after a reload with the file refused (mode 0666), the cgroup keeps user.policy.group=keep" \
                "got $v" "$(policyd_log)"
grep -q "keeping the last good version of group 'keep'" "$tmp/policyd.log" \
        && ok "policyd logs that it keeps the last good version of group keep" \
        || not_ok "policyd logs that it keeps the last good version of group keep" "$(policyd_log)"
v=$("$policyctl" --json status | python3 -c 'import json, sys
print(" ".join(g["name"] for g in json.load(sys.stdin)["groups"]))' 2>&1)
[ "$v" = keep ] && ok "status still lists group keep" || not_ok "status still lists group keep" "groups: $v"

# Refused for its owner, with its mode right again: still the last good version.
chmod 0644 /run/policy.d/keep.policy
chown 65534 /run/policy.d/keep.policy
"$policyctl" reload > /dev/null 2>&1
v=$(xattr "$cg/keep.service" user.policy.group)
[ "$v" = keep ] && ok "after a reload with the file refused (owned by uid 65534), the tag stays" \
        || not_ok "after a reload with the file refused (owned by uid 65534), the tag stays" "got $v" "$(policyd_log)"

# Removed: the group goes, and with it the tag.
rm /run/policy.d/keep.policy
"$policyctl" reload > /dev/null 2>&1
if wait_for 10 xattr_is "$cg/keep.service" user.policy.group "(none)"; then
        ok "after the file is removed and reloaded, user.policy.group is gone"
else
        not_ok "after the file is removed and reloaded, user.policy.group is gone" \
                "got $(xattr "$cg/keep.service" user.policy.group)" "$(policyd_log)"
fi
check_stop "policyd exits 0 after the reloads" 5
stop_fake

# === 3. Which xattrs are policy input, and their changes

# [Match] XAttr= on a cgroup root owns, and on one handed to uid 65534.
mkdir "$cg/rootowned.scope" "$cg/delegated.scope"
setfattr -n user.test.mark -v 1 "$cg/rootowned.scope"
setfattr -n user.test.mark -v 1 "$cg/delegated.scope"
chown 65534:65534 "$cg/delegated.scope"
# Self-requests: allowed group on a Delegate=yes unit joins; a Delegate=no
# unit, or a group that does not allow it, does not. On a unit's own cgroup
# that is handed to a user (its delegation root, the administrator's), the
# user's request makes nothing a member: self-ok.service's cgroup is root's,
# self-user.service's uid 65534's.
mkdir "$cg/self-ok.service" "$cg/self-user.service" "$cg/self-nodelegate.service" "$cg/self-notallowed.service" \
        "$cg/flip.scope"
# Two units of one cgroup, as user@UID.service and its manager's -.slice,
# alone in their parent.
mkdir -p "$cg/sh.slice/shared.scope"
# A group that matches x=a and writes x=b, on a cgroup that has x=a.
setfattr -n user.test.x -v a "$cg/flip.scope"
setfattr -n user.policy.request -v selfok "$cg/self-ok.service"
setfattr -n user.policy.request -v selfok "$cg/self-user.service"
setfattr -n user.policy.request -v selfok "$cg/self-nodelegate.service"
setfattr -n user.policy.request -v noself "$cg/self-notallowed.service"
chown 65534:65534 "$cg/self-user.service" "$cg/self-nodelegate.service" "$cg/self-notallowed.service"
cat > "$tmp/units" << EOF
rootowned.scope ControlGroup=$rel/rootowned.scope Slice=test.slice
delegated.scope ControlGroup=$rel/delegated.scope Slice=test.slice Delegate=yes
self-ok.service ControlGroup=$rel/self-ok.service Slice=test.slice Delegate=yes
self-user.service ControlGroup=$rel/self-user.service Slice=test.slice Delegate=yes User=nobody
self-nodelegate.service ControlGroup=$rel/self-nodelegate.service Slice=test.slice Delegate=no User=nobody
self-notallowed.service ControlGroup=$rel/self-notallowed.service Slice=test.slice Delegate=yes User=nobody
flip.scope ControlGroup=$rel/flip.scope Slice=test.slice
shared-a.scope ControlGroup=$rel/sh.slice/shared.scope Slice=sh.slice
shared-b.scope ControlGroup=$rel/sh.slice/shared.scope Slice=sh.slice
EOF
rm -f /run/policy.d/*
put /run/policy.d/mark.policy '[Match]\nXAttr=user.test.mark=1\n[Attributes]\nXAttr=user.test.marked=yes\n'
put /run/policy.d/selfok.policy '[PolicyGroup]\nAllowSelfAssign=yes\n[Attributes]\nXAttr=user.test.self=yes\n'
put /run/policy.d/noself.policy '[PolicyGroup]\nAllowSelfAssign=no\n[Attributes]\nXAttr=user.test.self=yes\n'
put /run/policy.d/open.policy '[PolicyGroup]\nAllowSelfAssign=yes\n[Match]\nXAttr=user.test.open=1\n'
put /run/policy.d/flip.policy '[Match]\nXAttr=user.test.x=a\n[Attributes]\nXAttr=user.test.x=b\n'
start_fake
start_policyd || not_ok "policyd starts" "$(policyd_log)"
# Every unit is applied once explain knows its cgroup (set with the reply, then applied).
for u in rootowned.scope delegated.scope self-ok.service self-user.service self-nodelegate.service self-notallowed.service flip.scope \
        shared-a.scope shared-b.scope; do
        wait_for 10 knows_cgroup "$u" \
                || not_ok "policyd reads $u" "$("$policyctl" explain $u 2>&1)"
done
groups_of() { "$policyctl" --json explain "$1" | python3 -c 'import json, sys
print(" ".join(g["group"] for g in json.load(sys.stdin)["groups"]) or "(none)")' 2>&1; }
check_membership() { # name, unit, expected user.policy.group ("(none)" for none)
        local name=$1 unit=$2 want=$3 v g
        v=$(xattr "$cg/$unit" user.policy.group)
        g=$(groups_of "$unit")
        [ "$v" = "$want" ] && [ "$g" = "$want" ] && ok "$name" \
                || not_ok "$name" "user.policy.group: $v (wanted $want); explain's groups: $g"
}
check_membership "[Match] XAttr= selects a cgroup root owns" rootowned.scope mark
check_membership "[Match] XAttr= ignores the same xattr on a cgroup owned by uid 65534" delegated.scope "(none)"
check_membership "a self-request joins an AllowSelfAssign=yes group on a Delegate=yes unit" self-ok.service selfok
check_membership "a user's self-request on their delegated unit's own cgroup (its delegation root) is refused" \
        self-user.service "(none)"
v=$(xattr "$cg/self-user.service" user.test.self)
out=$("$policyctl" explain self-user.service 2>&1)
[ "$v" = "(none)" ] && grep -q "group selfok.*not applied: user.policy.request on a system unit's own cgroup" <<< "$out" \
        && ok "nothing of the group is written there, and explain says why" \
        || not_ok "nothing of the group is written there, and explain says why" "user.test.self=$v" "$out"
check_membership "a self-request on a Delegate=no unit is refused" self-nodelegate.service "(none)"
check_membership "a self-request for an AllowSelfAssign=no group is refused" self-notallowed.service "(none)"
v=$(xattr "$cg/delegated.scope" user.test.marked)
[ "$v" = "(none)" ] && ok "nothing of the group is written on the untrusted cgroup" \
        || not_ok "nothing of the group is written on the untrusted cgroup" "user.test.marked=$v"

# Changes of attributes are followed without a word from systemd (the fake
# sends no signal here): the owner's attribute selects a group that allows
# it, and a cgroup leaves when its attribute goes.
membership_is() { [ "$(xattr "$cg/$1" user.policy.group)" = "$2" ]; }
attribute_moves() { # name, unit, the group it is then in, setfattr's arguments…
        local name=$1 unit=$2 want=$3; shift 3
        setfattr "$@" "$cg/$unit"
        wait_for 10 membership_is "$unit" "$want"
        check_membership "$name" "$unit" "$want"
}
attribute_moves "the owner's attribute selects nothing on their delegated unit's own cgroup (its delegation root)" \
        delegated.scope "(none)" -n user.test.open -v 1
# Below it, the owner's own: a cgroup root assigned to noself.
mkdir "$cg/delegated.scope/app"
chown 65534:65534 "$cg/delegated.scope/app"
"$policyctl" assign "$rel/delegated.scope/app" noself > /dev/null
wait_for 10 membership_is delegated.scope/app noself
setfattr -n user.test.open -v 1 "$cg/delegated.scope/app"
wait_for 10 membership_is delegated.scope/app noself,open
g=$(groups_of "$rel/delegated.scope/app")
membership_is delegated.scope/app noself,open && [ "$g" = "noself open" ] \
        && ok "the owner's attribute selects an AllowSelfAssign=yes group below the delegation root, once set" \
        || not_ok "the owner's attribute selects an AllowSelfAssign=yes group below the delegation root, once set" \
                "user.policy.group: $(xattr "$cg/delegated.scope/app" user.policy.group); explain's groups: $g"
"$policyctl" unassign "$rel/delegated.scope/app" noself > /dev/null
setfattr -x user.test.open "$cg/delegated.scope/app"
wait_for 10 sh -c "! \"$policyctl\" explain $rel/delegated.scope/app > /dev/null 2>&1"
rmdir "$cg/delegated.scope/app"
attribute_moves "a cgroup leaves when its [Match] attribute goes" rootowned.scope "(none)" -x user.test.mark
v=$(xattr "$cg/rootowned.scope" user.test.marked)
[ "$v" = "(none)" ] && ok "and what the group wrote is undone" || not_ok "and what the group wrote is undone" "user.test.marked=$v"

# A cgroup removed and made again under its name (a unit restarted), its
# attribute then set: read and written there, not through the directory
# policyd kept open since the last change.
rmdir "$cg/rootowned.scope" && mkdir "$cg/rootowned.scope"
attribute_moves "a cgroup made again under its name is read anew when its attributes change" rootowned.scope mark \
        -n user.test.mark -v 1
attribute_moves "and leaves again when the attribute goes" rootowned.scope "(none)" -x user.test.mark

# Both units of one cgroup follow its attributes, and the one left still
# does after the other is gone: its parent stays watched.
watched_dirs() { "$policyctl" status | sed -n 's/.*inotify IN_ATTRIB on \([0-9]*\) directories.*/\1/p'; }
resolved_again() { grep -c "$1.*resolving again" "$tmp/policyd.log"; }
resolved_more() { [ "$(resolved_again "$1")" -gt "$2" ]; }
for gone in shared-a.scope shared-b.scope; do
        left=shared-b.scope; [ "$gone" = shared-b.scope ] && left=shared-a.scope
        sh_dirs=$(watched_dirs)
        control RemoveUnit s "$gone" > /dev/null
        wait_for 10 sh -c "! \"$policyctl\" explain $gone > /dev/null 2>&1"
        before=$(resolved_again "$left")
        setfattr -n user.test.mark -v "$gone" "$cg/sh.slice/shared.scope"
        if wait_for 10 resolved_more "$left" "$before" && [ "$(watched_dirs)" = "$sh_dirs" ]; then
                ok "after $gone is gone, $left of the same cgroup still follows its attributes"
        else
                not_ok "after $gone is gone, $left of the same cgroup still follows its attributes" \
                        "'resolving again' for $left: $before, then $(resolved_again "$left")" \
                        "watched directories: $sh_dirs, then $(watched_dirs)"
        fi
        control AddUnit s "$gone ControlGroup=$rel/sh.slice/shared.scope Slice=sh.slice" > /dev/null
        wait_for 10 knows_cgroup "$gone" || not_ok "policyd reads $gone again" "$("$policyctl" explain "$gone" 2>&1)"
done

# policyd's own write of x=b is no input: flip.scope stays in flip, and
# policyd does not resolve it again and again.
check_membership "a group's own attribute write does not push its member out" flip.scope flip
n0=$(grep -c 'resolving again' "$tmp/policyd.log")
sleep "$slow"
n1=$(grep -c 'resolving again' "$tmp/policyd.log")
v=$(xattr "$cg/flip.scope" user.test.x)
[ "$v" = b ] && [ $((n1 - n0)) -le 1 ] && membership_is flip.scope flip \
        && ok "no feedback loop through policyd's own attribute ($((n1 - n0)) resolutions in ${slow} s)" \
        || not_ok "no feedback loop through policyd's own attribute" "x=$v, $((n1 - n0)) resolutions in ${slow} s"

# --- Assign and Unassign by a user other than root (uid 65534, which owns
# delegated.scope): their own cgroups, to AllowSelfAssign=yes groups only;
# never root's cgroups, a system unit by name, or another user's unit. What
# a user assigned holds only while the cgroup is theirs.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
state_lines() { cat "$tmp/state/assignments" 2> /dev/null; }
user_refused() { # name, pattern of the reason, policyctl arguments…: exit 4, the reason, and nothing changed
        local name=$1 pattern=$2 out rc before after; shift 2
        before="$(state_lines)|$(xattr "$cg/delegated.scope" user.policy.group)|$(xattr "$cg/rootowned.scope" user.policy.group)|$(groups_of delegated.scope)|$(groups_of rootowned.scope)"
        out=$(as_nobody "$policyctl" "$@" 2>&1); rc=$?
        sleep 0.1
        after="$(state_lines)|$(xattr "$cg/delegated.scope" user.policy.group)|$(xattr "$cg/rootowned.scope" user.policy.group)|$(groups_of delegated.scope)|$(groups_of rootowned.scope)"
        if [ "$rc" = 4 ] && grep -qE "$pattern" <<< "$out" && [ "$before" = "$after" ]; then
                ok "$name"
        else
                not_ok "$name" "exit $rc (wanted 4): $out" "wanted /$pattern/" "before: $before" "after:  $after"
        fi
}
if command -v setpriv > /dev/null && as_nobody "$policyctl" --version > /dev/null 2>&1; then
        # Its own attributes would select groups once root owns it: gone.
        setfattr -x user.test.open "$cg/delegated.scope"
        setfattr -x user.test.mark "$cg/delegated.scope"
        wait_for 10 membership_is delegated.scope "(none)"
        user_refused "a user cannot put their own cgroup in a group with AllowSelfAssign=no" \
                "^Permission denied: Cannot assign $rel/delegated.scope to group 'noself': group 'noself' does not allow self-assignment \(AllowSelfAssign=no\)" \
                assign "$rel/delegated.scope" noself
        user_refused "a user cannot assign a cgroup root owns" \
                "^Permission denied: .*: cgroup $rel/rootowned.scope is owned by uid 0, not by you \(uid 65534\)\.$" \
                assign "$rel/rootowned.scope" selfok
        user_refused "a user cannot assign a system unit by name, even one delegated to them" \
                "^Permission denied: .*: delegated.scope is a unit of the system manager" assign delegated.scope selfok
        user_refused "a user cannot assign another user's unit" \
                "^Permission denied: .*: user@1000/app.scope belongs to uid 1000, not to you \(uid 65534\)\.$" \
                assign user@1000/app.scope selfok
        user_refused "a user cannot assign the cgroup of a root process by its PID" \
                "^Permission denied: .*: the cgroup of PID $daemon_pid \(.*\) is owned by uid 0" assign "$daemon_pid" selfok
        "$policyctl" assign "$rel/rootowned.scope" noself > /dev/null
        "$policyctl" assign "$rel/rootowned.scope" selfok > /dev/null
        wait_for 10 membership_is rootowned.scope "noself,selfok"
        user_refused "a user cannot unassign what root assigned to a group without AllowSelfAssign=" \
                "does not allow self-assignment" unassign "$rel/rootowned.scope" noself
        user_refused "a user cannot unassign root's cgroup from a group with AllowSelfAssign=yes either" \
                "is owned by uid 0, not by you" unassign "$rel/rootowned.scope" selfok
        "$policyctl" unassign "$rel/rootowned.scope" noself > /dev/null
        "$policyctl" unassign "$rel/rootowned.scope" selfok > /dev/null
        wait_for 10 membership_is rootowned.scope "(none)"

        # The delegated unit's own cgroup is its delegation root, the
        # administrator's, though uid 65534 owns it (issue 23, attack 6):
        # a user's Assign never becomes SetUnitProperties on a system unit.
        user_refused "a user cannot assign the cgroup of their delegated system unit (its delegation root)" \
                "^Permission denied: .*: cgroup $rel/delegated.scope is the cgroup of delegated.scope, a unit of the system manager: its delegation root" \
                assign "$rel/delegated.scope" selfok
        job=delegated.scope/job
        check_job() { # name, expected user.policy.group ("(none)" for none), of $job, by path
                local v g
                v=$(xattr "$cg/$job" user.policy.group)
                g=$(groups_of "$rel/$job")
                [ "$v" = "$2" ] && [ "$g" = "$2" ] && ok "$1" \
                        || not_ok "$1" "user.policy.group: $v (wanted $2); explain's groups: $g"
        }
        mkdir "$cg/$job"
        chown 65534:65534 "$cg/$job"
        out=$(as_nobody "$policyctl" assign "$rel/$job" selfok 2>&1); rc=$?
        wait_for 10 membership_is "$job" selfok
        [ "$rc" = 0 ] && [ "$out" = "Assigned $rel/$job to group selfok." ] \
                && ok "a user assigns their own cgroup below a delegation root to an AllowSelfAssign=yes group" \
                || not_ok "a user assigns their own cgroup below a delegation root to an AllowSelfAssign=yes group" \
                        "exit $rc: $out"
        check_job "and it joins: user.policy.group and explain agree" selfok
        v=$(xattr "$cg/$job" user.test.self)
        [ "$v" = yes ] && ok "the group's attributes are written" || not_ok "the group's attributes are written" "user.test.self=$v"
        src=$("$policyctl" --json explain "$rel/$job" | python3 -c 'import json, sys
print(json.load(sys.stdin)["groups"][0]["source"])' 2>&1)
        [ "$src" = "runtime by uid 65534" ] && ok "explain says which uid assigned it" \
                || not_ok "explain says which uid assigned it" "source: $src"
        grep -qxP "\\+\\t$rel/$job\\tselfok\\t65534" "$tmp/state/assignments" \
                && ok "the state file keeps the uid of the assignment" \
                || not_ok "the state file keeps the uid of the assignment" "$(state_lines)"

        # Ownership moves: the assignment stops holding, and holds again.
        chown 0:0 "$cg/$job"
        wait_for 10 membership_is "$job" "(none)"
        check_job "a user's assignment does not hold once the cgroup is no longer theirs" "(none)"
        chown 65534:65534 "$cg/$job"
        wait_for 10 membership_is "$job" selfok
        check_job "and holds again when it is theirs again" selfok

        out=$(as_nobody "$policyctl" unassign "$rel/$job" selfok 2>&1); rc=$?
        wait_for 10 membership_is "$job" "(none)"
        [ "$rc" = 0 ] && ok "the user unassigns it again" || not_ok "the user unassigns it again" "exit $rc: $out"
        v=$(xattr "$cg/$job" user.policy.group)
        [ "$v" = "(none)" ] && ok "and it leaves" || not_ok "and it leaves" "user.policy.group=$v"
        v=$(xattr "$cg/$job" user.test.self)
        [ "$v" = "(none)" ] && ok "and the group's attributes are undone" \
                || not_ok "and the group's attributes are undone" "user.test.self=$v"
        ! grep -q "$job" "$tmp/state/assignments" && ok "and the state file forgets it" \
                || not_ok "and the state file forgets it" "$(state_lines)"
        rmdir "$cg/$job"

        # A cgroup the user assigned and then removed: they may still take
        # their assignment back; another user's, or root's, they may not.
        mkdir "$cg/delegated.scope/sub"
        chown 65534:65534 "$cg/delegated.scope/sub"
        as_nobody "$policyctl" assign "$rel/delegated.scope/sub" selfok > /dev/null 2>&1
        "$policyctl" assign "$rel/delegated.scope/sub" noself > /dev/null 2>&1
        rmdir "$cg/delegated.scope/sub"
        out=$(as_nobody "$policyctl" unassign "$rel/delegated.scope/sub" noself 2>&1); rc=$?
        [ "$rc" = 4 ] && grep -q "$rel/delegated.scope/sub" "$tmp/state/assignments" \
                && ok "after its cgroup went, a user cannot unassign root's assignment of it" \
                || not_ok "after its cgroup went, a user cannot unassign root's assignment of it" "exit $rc: $out"
        out=$(as_nobody "$policyctl" unassign "$rel/delegated.scope/sub" selfok 2>&1); rc=$?
        [ "$rc" = 0 ] && ! grep -qP "sub\tselfok" "$tmp/state/assignments" \
                && ok "after its cgroup went, a user may still take their own assignment back" \
                || not_ok "after its cgroup went, a user may still take their own assignment back" "exit $rc: $out" \
                        "$(state_lines)"
        "$policyctl" unassign "$rel/delegated.scope/sub" noself > /dev/null 2>&1

        # --user: a unit of the caller's own manager. policyctl asks that
        # manager first, as systemctl --user set-property does; uid 65534
        # has none here, so the name is refused and nothing is recorded.
        out=$(as_nobody env -u XDG_RUNTIME_DIR -u DBUS_SESSION_BUS_ADDRESS "$policyctl" --user assign app-test.scope \
                selfok 2>&1); rc=$?
        [ "$rc" = 1 ] && grep -q "your systemd" <<< "$out" && ! grep -q 'app-test' "$tmp/state/assignments" \
                && ok "--user assign of a name the caller's manager does not have (none here) is an error" \
                || not_ok "--user assign of a name the caller's manager does not have (none here) is an error" \
                        "exit $rc: $out" "$(state_lines)"
        # A user@UID/ name of the caller's own, with no manager of theirs
        # running: names cost nothing to make up, so none is kept (the
        # positive case, with a running manager, is VM scenario 77-assign-by-user).
        out=$(as_nobody "$policyctl" assign user@65534/app-test.scope selfok 2>&1); rc=$?
        [ "$rc" = 4 ] && grep -q "no systemd of uid 65534 runs" <<< "$out" && ! grep -q 'app-test' "$tmp/state/assignments" \
                && ok "a user's own user@UID/UNIT while no manager of theirs runs is refused, and nothing kept" \
                || not_ok "a user's own user@UID/UNIT while no manager of theirs runs is refused, and nothing kept" \
                        "exit $rc: $out" "$(state_lines)"
        out=$(as_nobody "$policyctl" --user unassign app-test.scope selfok 2>&1); rc=$?
        [ "$rc" != 0 ] && grep -q "user@65534/app-test.scope" <<< "$out" \
                && ok "--user unassign names the caller's own unit, user@65534/UNIT" \
                || not_ok "--user unassign names the caller's own unit, user@65534/UNIT" "exit $rc: $out"

        # polkit (fake-polkit, which authorizes uid 1, daemon, only): where the
        # rule refuses a caller other than root, policyd asks polkit, and an
        # authorized one does as root; the others are refused as before; a
        # self-assignment never asks; without polkit, the rule alone.
        as_admin() { setpriv --reuid=1 --regid=1 --clear-groups "$@"; } # a uid the bus knows
        polkit_checks() { grep -c "^check org.policygroups.PolicyGroups1.$1 $2 " "$tmp/polkit.log"; }
        "$fake_polkit" --log="$tmp/polkit.log" 1 &
        polkit_pid=$!
        if wait_for 10 grep -q '^ready' "$tmp/polkit.log"; then
                out=$(as_admin "$policyctl" assign "$rel/rootowned.scope" noself 2>&1); rc=$?
                [ "$rc" = 0 ] && grep -qxP "\+\trootowned.scope\tnoself" "$tmp/state/assignments" \
                        && [ "$(polkit_checks assign 1)" = 1 ] && wait_for 10 membership_is rootowned.scope noself \
                        && ok "polkit authorizes uid 1: its Assign of root's cgroup is done, and kept as root's" \
                        || not_ok "polkit authorizes uid 1: its Assign of root's cgroup is done, and kept as root's" \
                                "exit $rc: $out" "$(state_lines)" "$(cat "$tmp/polkit.log")"
                grep -q "joined group 'noself' at runtime, by uid 1 as an administrator (polkit)" "$tmp/policyd.log" \
                        && ok "policyd says who assigned it, and through polkit" \
                        || not_ok "policyd says who assigned it, and through polkit" "$(tail -n 5 "$tmp/policyd.log")"
                user_refused "polkit refuses uid 65534: root's cgroup stays as it was" \
                        "^Permission denied: .*group 'noself' does not allow self-assignment" \
                        unassign "$rel/rootowned.scope" noself
                [ "$(polkit_checks assign 65534)" -ge 1 ] && ok "policyd asked polkit about uid 65534's call" \
                        || not_ok "policyd asked polkit about uid 65534's call" "$(cat "$tmp/polkit.log")" \
                                "$(grep -i polkit "$tmp/policyd.log")"
                out=$(as_admin "$policyctl" unassign "$rel/rootowned.scope" noself 2>&1); rc=$?
                [ "$rc" = 0 ] && ! grep -q "rootowned.scope" "$tmp/state/assignments" \
                        && ok "uid 1 takes it back through polkit" \
                        || not_ok "uid 1 takes it back through polkit" "exit $rc: $out" "$(state_lines)"
                mkdir "$cg/delegated.scope/pk" && chown 65534:65534 "$cg/delegated.scope/pk"
                asked=$(polkit_checks assign 65534)
                out=$(as_nobody "$policyctl" assign "$rel/delegated.scope/pk" selfok 2>&1); rc=$?
                [ "$rc" = 0 ] && [ "$(polkit_checks assign 65534)" = "$asked" ] \
                        && ok "a self-assignment does not ask polkit" \
                        || not_ok "a self-assignment does not ask polkit" "exit $rc: $out" "$(cat "$tmp/polkit.log")"
                as_nobody "$policyctl" unassign "$rel/delegated.scope/pk" selfok > /dev/null 2>&1
                rmdir "$cg/delegated.scope/pk" 2> /dev/null
                out=$(as_admin "$policyctl" reload 2>&1); rc=$?
                [ "$rc" = 0 ] && [ "$(polkit_checks reload 1)" = 1 ] \
                        && ok "polkit authorizes uid 1's Reload" \
                        || not_ok "polkit authorizes uid 1's Reload" "exit $rc: $out" "$(cat "$tmp/polkit.log")"
                out=$(as_nobody "$policyctl" reload 2>&1); rc=$?
                [ "$rc" = 4 ] && [ "$(polkit_checks reload 65534)" = 1 ] \
                        && ok "polkit refuses uid 65534's Reload: Permission denied" \
                        || not_ok "polkit refuses uid 65534's Reload: Permission denied" "exit $rc: $out"
                kill "$polkit_pid" && wait "$polkit_pid" 2> /dev/null
                polkit_pid=
                out=$(as_admin "$policyctl" assign "$rel/rootowned.scope" noself 2>&1); rc=$?
                [ "$rc" = 4 ] && ! grep -q "rootowned.scope" "$tmp/state/assignments" \
                        && ok "without polkit, uid 1 is refused as the rule says" \
                        || not_ok "without polkit, uid 1 is refused as the rule says" "exit $rc: $out" "$(state_lines)"
        else
                not_ok "fake-polkit starts" "$(cat "$tmp/polkit.log" 2> /dev/null)"
        fi
        kill -0 "$daemon_pid" && ok "policyd runs on after the users' calls" \
                || not_ok "policyd runs on after the users' calls" "$(tail -n 40 "$tmp/policyd.log")"
else
        ok "an unprivileged user's Assign and Unassign # SKIP setpriv is missing, or uid 65534 cannot run $policyctl"
fi
check_stop "policyd exits 0" 5
stop_fake

# === 4. SetUnitProperties: none for a unit already right, one per unit that needs changes

# SwapMax=1G and ZSwapMax=512M are both systemd properties, whatever this kernel has.
cat > "$tmp/units" << EOF
sp-right.service ControlGroup=$rel/sp-right.service Slice=sp.slice MemorySwapMax=1073741824 MemoryZSwapMax=536870912
sp-two.service ControlGroup=$rel/sp-two.service Slice=sp.slice MemorySwapMax=infinity MemoryZSwapMax=infinity
EOF
mkdir "$cg/sp-right.service" "$cg/sp-two.service"
rm -f /run/policy.d/*
put /run/policy.d/sp.policy '[Match]\nSlice=sp.slice\n[Swap]\nSwapMax=1G\nZSwapMax=512M\n'
start_fake
start_policyd || not_ok "policyd starts" "$(policyd_log)"
# Converged once the fake holds both values (it applies what it gets).
for u in sp-right.service sp-two.service; do
        wait_for 10 knows_cgroup "$u"
done
values_set() { grep -o "MemorySwapMax=1073741824\|MemoryZSwapMax=536870912" "$tmp/fake.log" | sort -u | wc -l; }
wait_for 10 at_least 2 values_set
sleep 0.3
k=$(calls SetUnitProperties sp-right.service)
[ "$k" = 0 ] && ok "a unit already at the wanted values gets no SetUnitProperties call" \
        || not_ok "a unit already at the wanted values gets no SetUnitProperties call" "$k calls:" \
                "$(grep "^SetUnitProperties sp-right" "$tmp/fake.log")"
k=$(calls SetUnitProperties sp-two.service)
line=$(grep "^SetUnitProperties sp-two.service" "$tmp/fake.log")
if [ "$k" = 1 ] && grep -q "runtime=yes" <<< "$line" && grep -q "MemorySwapMax=1073741824" <<< "$line" \
        && grep -q "MemoryZSwapMax=536870912" <<< "$line"; then
        ok "a unit needing two properties gets one runtime SetUnitProperties carrying both"
else
        not_ok "a unit needing two properties gets one runtime SetUnitProperties carrying both" "$k calls:" "$line"
fi
grep -q "MemorySwapMax=1073741824" <<< "$line" && grep -q "MemoryZSwapMax=536870912" <<< "$line" \
        && ok "the unit needing changes gets both values, at runtime" \
        || not_ok "the unit needing changes gets both values, at runtime" "$line"

# A transient unit's runtime properties go with it (systemd keeps them in
# its transient directory): so do policyd's records of them.
state_file() { ls "$tmp/state/properties/" 2> /dev/null | grep -x "$1"; }
out=$(control AddUnit s "sp-tr.scope ControlGroup=$rel/sp-tr.scope Slice=sp.slice Transient=yes MemorySwapMax=infinity MemoryZSwapMax=infinity" 2>&1) \
        || not_ok "the fake adds a transient unit" "$out"
mkdir "$cg/sp-tr.scope"
if wait_for 10 state_file sp-tr.scope; then
        ok "policyd records what it set on a transient unit"
else
        not_ok "policyd records what it set on a transient unit" "$(ls "$tmp/state/properties/")" "$(policyd_log)"
fi
control SetProperty sss sp-tr.scope ActiveState inactive > /dev/null
wait_for 10 knows_no_cgroup sp-tr.scope
control RemoveUnit s sp-tr.scope > /dev/null
if wait_for 10 not state_file sp-tr.scope; then
        ok "when a transient unit is gone, its property records go too"
else
        not_ok "when a transient unit is gone, its property records go too" "$(ls "$tmp/state/properties/")" \
                "$(policyd_log)"
fi
[ -n "$(state_file sp-two.service)" ] && ok "a unit that is not transient keeps its records" \
        || not_ok "a unit that is not transient keeps its records" "$(ls "$tmp/state/properties/")"
rmdir "$cg/sp-tr.scope"

# Converged: a reload of policyd resolves both units again from what it
# knows of them, and asks systemd nothing.
before=$(grep -c ^SetUnitProperties "$tmp/fake.log")
g=$(grep -c ^Get "$tmp/fake.log")
"$policyctl" reload > /dev/null 2>&1
sleep 0.3
k=$(($(grep -c ^SetUnitProperties "$tmp/fake.log") - before))
[ "$k" = 0 ] && ok "after a reload, converged units get no SetUnitProperties call" \
        || not_ok "after a reload, converged units get no SetUnitProperties call" "$k calls" \
                "$(grep ^SetUnitProperties "$tmp/fake.log")"
k=$(($(grep -c ^Get "$tmp/fake.log") - g))
[ "$k" = 0 ] && ok "after a reload, converged units are not read again from systemd" \
        || not_ok "after a reload, converged units are not read again from systemd" "$k Get and GetAll calls"

# A group change that needs a call: the unit is read again first, then set.
put /run/policy.d/sp.policy '[Match]\nSlice=sp.slice\n[Swap]\nSwapMax=2G\nZSwapMax=512M\n'
# Only the values the plan involves are read, a Get each: a GetAll of the
# unit type's interface has systemd read the cgroup's counters.
g=$(calls GetAll sp-right.service)
gets() { grep -c "^Get sp-right.service org.freedesktop.systemd1.Service $1$" "$tmp/fake.log"; }
g1=$(gets MemorySwapMax) g2=$(gets MemoryZSwapMax)
"$policyctl" reload > /dev/null 2>&1
name="a reload that changes a unit's value reads those values (a Get each), then sets it"
if wait_for 10 grep -q "^SetUnitProperties sp-right.service .*MemorySwapMax=2147483648" "$tmp/fake.log"; then
        k=$(($(calls GetAll sp-right.service) - g))
        k1=$(($(gets MemorySwapMax) - g1)) k2=$(($(gets MemoryZSwapMax) - g2))
        [ "$k $k1 $k2" = "0 1 1" ] && ok "$name" \
                || not_ok "$name" "$k GetAll, $k1 Get of MemorySwapMax, $k2 of MemoryZSwapMax" \
                        "$(grep sp-right "$tmp/fake.log")"
else
        not_ok "$name" "$(grep sp-right "$tmp/fake.log")" "$(policyd_log)"
fi
check_stop "policyd exits 0" 5
stop_fake

# === 5. policyd follows systemd's signals (and the fake sends them)

: > "$tmp/units"
mkdir "$cg/new.scope" "$cg/moved.scope"
rm -f /run/policy.d/*
put /run/policy.d/many.policy '[Match]\nSlice=test.slice\n[Attributes]\nXAttr=user.test.many=1\n'
start_fake
start_policyd || not_ok "policyd starts" "$(policyd_log)"
out=$(control AddUnit s "new.scope ControlGroup=$rel/new.scope Slice=test.slice" 2>&1) \
        || not_ok "the fake adds a unit" "$out"
wait_for 10 xattr_is "$cg/new.scope" user.policy.group many \
        && ok "a unit started later (JobRemoved) is applied" \
        || not_ok "a unit started later (JobRemoved) is applied" "$(cat "$tmp/fake.log")" "$(policyd_log)"
# systemd announces a unit's state on the Unit interface; ActiveState is what
# makes policyd read the unit again (here it finds a new cgroup).
out=$(control SetProperty sss new.scope ControlGroup "$rel/moved.scope" 2>&1) \
        || not_ok "the fake changes a property" "$out"
out=$(control SetProperty sss new.scope ActiveState active 2>&1) || not_ok "the fake changes a property" "$out"
wait_for 10 xattr_is "$cg/moved.scope" user.policy.group many \
        && ok "after an ActiveState change (PropertiesChanged), policyd reads the unit again and applies its new cgroup" \
        || not_ok "after an ActiveState change (PropertiesChanged), policyd reads the unit again and applies its new cgroup" \
                "$(cat "$tmp/fake.log")" "$(policyd_log)"
# A unit stopped and unloaded before policyd's read of it came back: its
# UnitRemoved arrives while policyd still thinks it runs. Outside a
# daemon-reload, policyd lets it go: systemd never unloads a running unit.
mkdir "$cg/quick.scope"
out=$(control AddUnit s "quick.scope ControlGroup=$rel/quick.scope Slice=test.slice" 2>&1) \
        || not_ok "the fake adds a unit" "$out"
wait_for 10 knows_cgroup quick.scope || not_ok "policyd knows quick.scope" "$(policyd_log)"
control RemoveUnit s quick.scope > /dev/null
wait_for 10 knows_no_cgroup quick.scope \
        && ok "a unit removed while policyd last saw it running is let go" \
        || not_ok "a unit removed while policyd last saw it running is let go" \
                "$("$policyctl" explain quick.scope 2>&1)" "$(policyd_log)"
rmdir "$cg/quick.scope"
g=$(calls GetAll new.scope)
out=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
        org.freedesktop.systemd1.Manager Reload 2>&1) || not_ok "the fake takes Reload" "$out"
wait_for 10 at_least $((g + 1)) calls GetAll new.scope \
        && ok "after systemd's Reloading signal, policyd reads its units again" \
        || not_ok "after systemd's Reloading signal, policyd reads its units again" "$(cat "$tmp/fake.log")"
# Anyone on the bus may send policyd a unicast signal under systemd's path
# and interface (issue 23, attack 4): only the owner of systemd's name counts.
owner=$(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus GetNameOwner s org.policygroups.PolicyGroups1 | sed 's/^s "\(.*\)"$/\1/')
forge() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" emit --destination="$owner" "$@"; }
wait_for 10 knows_cgroup new.scope || not_ok "policyd knows new.scope" "$(policyd_log)"
g=$(calls GetAll new.scope)
l=$(grep -c "^ListUnits" "$tmp/fake.log")
forge /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager UnitRemoved so new.scope \
        /org/freedesktop/systemd1/unit/new_2escope
for i in 1 2 3 4 5; do
        forge /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager Reloading b false
        forge /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager JobRemoved uoss 1 /j new.scope done
done
forge /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss org.freedesktop.systemd1 "" ""
forge /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss org.freedesktop.systemd1 "" "$owner"
sleep 1
"$policyctl" status > /dev/null 2>&1
knows_cgroup new.scope && ok "a forged UnitRemoved leaves the unit known" \
        || not_ok "a forged UnitRemoved leaves the unit known" "$(policyd_log)"
[ "$(calls GetAll new.scope)" = "$g" ] && [ "$(grep -c "^ListUnits" "$tmp/fake.log")" = "$l" ] \
        && ok "forged Reloading, JobRemoved and NameOwnerChanged make no call to systemd" \
        || not_ok "forged Reloading, JobRemoved and NameOwnerChanged make no call to systemd" "$(cat "$tmp/fake.log")"
# Real reloads in a burst: one re-read now, the rest coalesced into one more.
for i in 1 2 3 4 5 6; do
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
                org.freedesktop.systemd1.Manager Reload > /dev/null 2>&1
done
wait_for 10 at_least $((g + 2)) calls GetAll new.scope
sleep 2.5
k=$(( $(calls GetAll new.scope) - g ))
[ "$k" -le 3 ] && [ "$k" -ge 1 ] && ok "six reloads in a burst re-read a unit at most three times ($k)" \
        || not_ok "six reloads in a burst re-read a unit at most three times" "$k GetAll calls" "$(policyd_log)"
check_stop "policyd exits 0" 5
stop_fake

# A unit file names a group, and the group changes: policyd must not run a
# daemon-reload behind the administrator's back (issue 8, 1.3).
mkdir "$cg/ufg.service"
put "$tmp/ufg.service" '[Unit]\nPolicyGroup=ufg\n[Service]\nExecStart=/bin/true\n'
echo "ufg.service ControlGroup=$rel/ufg.service Slice=system.slice FragmentPath=$tmp/ufg.service" > "$tmp/units"
rm -f /run/policy.d/*
put /run/policy.d/ufg.policy '[Attributes]\nXAttr=user.test.ufg=1\n'
start_fake
start_policyd || not_ok "policyd starts" "$(policyd_log)"
wait_for 10 xattr_is "$cg/ufg.service" user.policy.group ufg \
        && ok "a group named by PolicyGroup= in the unit's FragmentPath is applied" \
        || not_ok "a group named by PolicyGroup= in the unit's FragmentPath is applied" "$(policyd_log)"
# The unit's files are read when they change, as systemd reads them at a
# reload: an edit without one changes nothing at the unit's next refresh.
put /run/policy.d/ufg2.policy '[Attributes]\nXAttr=user.test.ufg2=1\n'
"$policyctl" reload > /dev/null 2>&1
wait_for 10 policyctl_knows_group ufg2
put "$tmp/ufg.service" '[Unit]\nPolicyGroup=ufg2\n[Service]\nExecStart=/bin/true\n'
g=$(calls GetAll ufg.service)
control SetProperty sss ufg.service ActiveState active > /dev/null
wait_for 10 at_least $((g + 1)) calls GetAll ufg.service && sleep 0.3 && "$policyctl" status > /dev/null
sleep 0.3
v=$(xattr "$cg/ufg.service" user.policy.group)
[ "$v" = ufg ] && ok "an edit of the unit file without a reload is not read at the unit's next refresh" \
        || not_ok "an edit of the unit file without a reload is not read at the unit's next refresh" "got $v"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
        org.freedesktop.systemd1.Manager Reload > /dev/null 2>&1
wait_for 10 xattr_is "$cg/ufg.service" user.policy.group ufg2 \
        && ok "after systemd's reload, policyd reads the unit file again" \
        || not_ok "after systemd's reload, policyd reads the unit file again" \
                "got $(xattr "$cg/ufg.service" user.policy.group)" "$(policyd_log)"
put "$tmp/ufg.service" '[Unit]\nPolicyGroup=ufg\n[Service]\nExecStart=/bin/true\n'
"$policyctl" reload > /dev/null 2>&1
wait_for 10 xattr_is "$cg/ufg.service" user.policy.group ufg \
        && ok "after policyctl reload, policyd reads the unit file again" \
        || not_ok "after policyctl reload, policyd reads the unit file again" \
                "got $(xattr "$cg/ufg.service" user.policy.group)" "$(policyd_log)"
k=$(grep -c "^Reload " "$tmp/fake.log")
put /run/policy.d/ufg.policy '[Attributes]\nXAttr=user.test.ufg=2\n'
"$policyctl" reload > /dev/null 2>&1
k=$(($(grep -c "^Reload " "$tmp/fake.log") - k))
if [ "$k" = 0 ]; then
        ok "policyctl reload after a change to a unit-file group makes policyd call no daemon-reload"
else
        not_ok "policyctl reload after a change to a unit-file group makes policyd call no daemon-reload" \
                "$k Reload calls"
fi
check_stop "policyd exits 0" 5
stop_fake

# === 6. The startup sweep of records left by units and cgroups gone meanwhile (issue 8, 1.5)

# Records as an earlier policyd left them: one of a cgroup that is gone, one
# of a cgroup still there that nothing applies to, one a runtime assignment
# names, one that cannot be parsed; property records of a transient unit that
# is gone and of a stopped unit systemd still has.
rm -rf "$tmp/state"
mkdir -m 0755 "$tmp/state" "$tmp/state/cgroups" "$tmp/state/properties"
record() { printf '%b' "$2" > "$tmp/state/$1"; } # file below the state directory, text
record cgroups/sw-gone.scope "cgroup\t$rel/sw-gone.scope\nxattr\tuser.test.swept\t0\t\tyes\n"
mkdir "$cg/sw-left.scope"
setfattr -n user.test.swept -v policyd "$cg/sw-left.scope"
setfattr -n user.test.added -v 1 "$cg/sw-left.scope"
record cgroups/sw-left.scope "cgroup\t$rel/sw-left.scope\nxattr\tuser.test.swept\t1\tbefore\tpolicyd\nxattr\tuser.test.added\t0\t\t1\n"
mkdir "$cg/sw-assigned.service"
setfattr -n user.test.swept -v policyd "$cg/sw-assigned.service"
record cgroups/sw-assigned.service "cgroup\t$rel/sw-assigned.service\nxattr\tuser.test.swept\t1\tbefore\tpolicyd\n"
record assignments "+\tsw-assigned.service\tswg\n"
record cgroups/sw-corrupt.scope "not a record\n"
record properties/sw-gone-tr.scope "MemorySwapMax\t\t1073741824\n"
record properties/sw-stopped.service "MemorySwapMax\t2147483648\t1073741824\n"
echo "sw-stopped.service ControlGroup= Slice=system.slice ActiveState=inactive MemorySwapMax=1073741824" > "$tmp/units"
rm -f /run/policy.d/*
put /run/policy.d/swg.policy '[Attributes]\nXAttr=user.test.swg=1\n'
start_fake
start_policyd keep || not_ok "policyd starts" "$(policyd_log)"
has_record() { [ -e "$tmp/state/$1" ]; }
swept() { grep -q "Swept .* records of units and cgroups gone" "$tmp/policyd.log"; }
wait_for 10 swept || not_ok "policyd logs a summary of its sweep" "$(policyd_log)"
has_record cgroups/sw-gone.scope \
        && not_ok "the record of a cgroup that is gone is removed" "$(ls "$tmp/state/cgroups")" "$(policyd_log)" \
        || ok "the record of a cgroup that is gone is removed"
v=$(xattr "$cg/sw-left.scope" user.test.swept) w=$(xattr "$cg/sw-left.scope" user.test.added)
if [ "$v $w" = "before (none)" ] && ! has_record cgroups/sw-left.scope; then
        ok "the record of a cgroup nothing has now is undone (value restored, added xattr removed), and removed"
else
        not_ok "the record of a cgroup nothing has now is undone (value restored, added xattr removed), and removed" \
                "user.test.swept=$v user.test.added=$w" "$(ls "$tmp/state/cgroups")" "$(policyd_log)"
fi
v=$(xattr "$cg/sw-assigned.service" user.test.swept)
if [ "$v" = policyd ] && has_record cgroups/sw-assigned.service; then
        ok "the record of a cgroup a runtime assignment names is kept, and not undone"
else
        not_ok "the record of a cgroup a runtime assignment names is kept, and not undone" "user.test.swept=$v" \
                "$(ls "$tmp/state/cgroups")"
fi
if has_record cgroups/sw-corrupt.scope && grep -q "sw-corrupt.scope, leaving it in place" "$tmp/policyd.log"; then
        ok "a record that cannot be parsed is left in place, with a warning naming it"
else
        not_ok "a record that cannot be parsed is left in place, with a warning naming it" "$(policyd_log)"
fi
has_record properties/sw-gone-tr.scope \
        && not_ok "the property record of a transient unit systemd no longer has is removed" \
                "$(ls "$tmp/state/properties")" "$(grep sw-gone-tr "$tmp/fake.log")" "$(policyd_log)" \
        || ok "the property record of a transient unit systemd no longer has is removed"
# The stopped unit is read as any unit, and its record waits for its start.
if has_record properties/sw-stopped.service && wait_for 10 grep -q "^GetAll sw-stopped.service" "$tmp/fake.log"; then
        ok "the property record of a stopped unit is kept, and the unit read"
else
        not_ok "the property record of a stopped unit is kept, and the unit read" "$(ls "$tmp/state/properties")" \
                "$(cat "$tmp/fake.log")"
fi
grep -q "Swept 3 records .*: 1 of vanished cgroups, 1 undone on cgroups nothing has now, 1 of units systemd no longer has; 1 units read again for their records, 2 records left in place" \
        "$tmp/policyd.log" && ok "the sweep is summed up in one line, with its counts" \
        || not_ok "the sweep is summed up in one line, with its counts" "$(grep Swept "$tmp/policyd.log")"
# The fake, as systemd, unloads the gone unit it loaded for the check: the
# UnitRemoved that follows must not start another check.
sleep 0.5
k=$(grep -c "^LoadUnit sw-gone-tr.scope$" "$tmp/fake.log")
[ "$k" = 1 ] && ok "one check of the gone unit, whose unload (UnitRemoved) starts no other" \
        || not_ok "one check of the gone unit, whose unload (UnitRemoved) starts no other" "$k LoadUnit calls"
# Started later, the unit is applied: no group wants its MemorySwapMax, and
# the value policyd set goes back to the one recorded before it.
mkdir "$cg/sw-stopped.service"
control AddUnit s "sw-stopped.service ControlGroup=$rel/sw-stopped.service Slice=system.slice MemorySwapMax=1073741824" > /dev/null
if wait_for 10 grep -q "^SetUnitProperties sw-stopped.service runtime=yes MemorySwapMax=2147483648$" "$tmp/fake.log" \
        && wait_for 10 not has_record properties/sw-stopped.service; then
        ok "when the stopped unit starts, what its record holds is undone, and the record goes"
else
        not_ok "when the stopped unit starts, what its record holds is undone, and the record goes" \
                "$(grep sw-stopped "$tmp/fake.log")" "$(ls "$tmp/state/properties")"
fi
check_stop "policyd exits 0" 5
stop_fake
rmdir "$cg/sw-stopped.service"

# === 7. policyd's own interface (issue 27, 8): the installed introspection
# XML is what the running object answers, and the properties it declares as
# announced (EmitsChangedSignal true or invalidates) are announced.

iface=org.policygroups.PolicyGroups1.Manager
pg_get() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.policygroups.PolicyGroups1 \
        /org/policygroups/PolicyGroups1 "$iface" "$1"; }
mkdir "$cg/pc.scope" "$cg/pc-full.scope" "$cg/pc-ufg.service"
put "$tmp/pc-ufg.service" '[Unit]\nPolicyGroup=pcu\n[Service]\nExecStart=/bin/true\n'
echo "pc-ufg.service ControlGroup=$rel/pc-ufg.service Slice=system.slice FragmentPath=$tmp/pc-ufg.service" \
        > "$tmp/units"
rm -f /run/policy.d/*
put /run/policy.d/pc.policy '[Match]\nSlice=test.slice\n[Attributes]\nXAttr=user.test.pc=1\n'
put /run/policy.d/pcu.policy '[Attributes]\nXAttr=user.test.pcu=1\n'
# Unit properties: their record is a file of its own, which needs a block.
put /run/policy.d/pcfull.policy '[Match]\nSlice=pcfull.slice\n[Swap]\nSwapMax=1G\n'
# A small /run/policyd of its own, to fill (Records).
rm -rf "$tmp/state"
mkdir -m 0755 "$tmp/state"
mount -t tmpfs -o size=256k,mode=0755 tmpfs "$tmp/state"
start_fake
start_policyd keep || not_ok "policyd starts" "$(policyd_log)"
wait_for 10 xattr_is "$cg/pc-ufg.service" user.policy.group pcu || not_ok "policyd applies pc-ufg.service" "$(policyd_log)"

busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" introspect --xml-interface org.policygroups.PolicyGroups1 \
        /org/policygroups/PolicyGroups1 > "$tmp/introspected.xml" 2>&1
name="the installed $(basename "$xml") describes the running object's interface (methods, signals, properties, annotations)"
out=$("$check_introspection" "$iface" "$xml" "$tmp/introspected.xml" 2>&1) && ok "$name" \
        || not_ok "$name" "$out" "$(cat "$tmp/introspected.xml")"
# The check sees a drift: the file without one annotation, and with one
# signature changed.
sed -e '/<property name="Managers"/,/<\/property>/{/EmitsChangedSignal/d}' \
        -e 's/name="members" type="a(sss)"/name="members" type="a(ss)"/' "$xml" > "$tmp/drifted.xml"
out=$("$check_introspection" "$iface" "$tmp/drifted.xml" "$tmp/introspected.xml" 2>&1)
rc=$?
name="the introspection check fails on a drifted file, naming what differs"
[ "$rc" = 1 ] && grep -q "property Managers: annotations" <<< "$out" && grep -q "method ListMembers: args" <<< "$out" \
        && ok "$name" || not_ok "$name" "$out"

# PropertiesChanged as a client sees it: one JSON line a signal.
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" monitor --json=short \
        --match="type='signal',path='/org/policygroups/PolicyGroups1',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'" \
        > "$tmp/signals" 2> "$tmp/monitor.err" &
monitor_pid=$!
# Listening once it sees a signal of our own.
probe() {
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" emit /org/policygroups/PolicyGroups1 \
                org.freedesktop.DBus.Properties PropertiesChanged 'sa{sv}as' probe 0 0
        grep -q '"probe"' "$tmp/signals"
}
wait_for 5 probe || not_ok "busctl monitor sees signals" "$(cat "$tmp/monitor.err")"
# How many signals named the property (changed with its value, or invalidated).
announced() { grep -c "\"$1\"" "$tmp/signals"; }
# The value a signal carried for it last.
announced_value() { grep -o "\"$1\":{\"type\":\"u\",\"data\":[0-9]*}" "$tmp/signals" | tail -n 1 | grep -o '[0-9]*}$' | tr -d '}'; }
# Read at every poll: "wait_for N test $(...)" would freeze the value.
announced_value_is() { [ "$(announced_value "$1")" = "$2" ]; }
sleep 0.3

k=$(announced Managers) j=$(announced NMembers)
control AddUnit s "pc.scope ControlGroup=$rel/pc.scope Slice=test.slice" > /dev/null
name="a unit started: Managers is invalidated, NMembers changes to its new value"
if wait_for 10 at_least $((k + 1)) announced Managers && wait_for 10 at_least $((j + 1)) announced NMembers \
        && [ "$(announced_value NMembers)" = "$(pg_get NMembers | cut -d' ' -f2)" ]; then
        ok "$name"
else
        not_ok "$name" "Managers: $(pg_get Managers)" "NMembers: $(pg_get NMembers)" "$(cat "$tmp/signals")"
fi
k=$(announced Managers)
control RemoveUnit s pc.scope > /dev/null
wait_for 10 at_least $((k + 1)) announced Managers && ok "a unit gone: Managers is invalidated" \
        || not_ok "a unit gone: Managers is invalidated" "$(cat "$tmp/signals")" "$(policyd_log)"

# The group the unit file names changes: the unit needs a daemon-reload,
# and no longer once systemd has had one.
put /run/policy.d/pcu.policy '[Attributes]\nXAttr=user.test.pcu=2\n'
"$policyctl" reload > /dev/null 2>&1
name="a group a unit file names changes: NUnitsNeedDaemonReload changes to 1"
wait_for 10 announced_value_is NUnitsNeedDaemonReload 1 && [ "$(pg_get NUnitsNeedDaemonReload)" = "u 1" ] \
        && ok "$name" || not_ok "$name" "$(pg_get NUnitsNeedDaemonReload)" "$(cat "$tmp/signals")"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
        org.freedesktop.systemd1.Manager Reload > /dev/null 2>&1
name="after systemd's daemon-reload, NUnitsNeedDaemonReload changes to 0"
wait_for 10 announced_value_is NUnitsNeedDaemonReload 0 && [ "$(pg_get NUnitsNeedDaemonReload)" = "u 0" ] \
        && ok "$name" || not_ok "$name" "$(pg_get NUnitsNeedDaemonReload)" "$(cat "$tmp/signals")"

# A full /run: a new member's record cannot be written ahead; then there
# is room again, and the retry (1 s later) records it.
dd if=/dev/zero of="$tmp/state/fill" bs=4k > /dev/null 2>&1
k=$(announced Records)
control AddUnit s "pc-full.scope ControlGroup=$rel/pc-full.scope Slice=pcfull.slice MemorySwapMax=infinity" > /dev/null
name="a record that cannot be written: Records is invalidated, and says so"
wait_for 10 at_least $((k + 1)) announced Records && pg_get Records | grep -q "could not be written" \
        && ok "$name" || not_ok "$name" "$(pg_get Records)" "$(cat "$tmp/signals")" "$(policyd_log)"
k=$(announced Records)
rm -f "$tmp/state/fill"
name="the record written at a retry: Records is invalidated again, and says all is written"
wait_for 10 at_least $((k + 1)) announced Records && pg_get Records | grep -q '"written ahead in' \
        && ok "$name" || not_ok "$name" "$(pg_get Records)" "$(cat "$tmp/signals")" "$(policyd_log)"
kill "$monitor_pid" 2> /dev/null && wait "$monitor_pid" 2> /dev/null
monitor_pid=
check_stop "policyd exits 0" 5
stop_fake
umount "$tmp/state"
rmdir "$cg/pc.scope" "$cg/pc-full.scope" "$cg/pc-ufg.service"

# === 7b. An honest view: failed writes in explain and status (issue 27, 9)

# Three writes fail: systemd refuses SwapMax= (the fake's Refuse), the
# group's attribute does not fit (127 xattrs of the test's own, and the tag,
# fill cgroupfs's 128), and memory.swap.high is not there (the test's cgroup
# enables no controller for its children).
mkdir "$cg/hf.service"
for i in $(seq 1 127); do setfattr -n "user.test.fill$i" -v 1 "$cg/hf.service"; done
echo "hf.service ControlGroup=$rel/hf.service Slice=hf.slice MemorySwapMax=infinity" > "$tmp/units"
rm -f /run/policy.d/*
put /run/policy.d/hf.policy '[Match]\nSlice=hf.slice\n[Swap]\nSwapMax=1G\nSwapHigh=50M\n[Attributes]\nXAttr=user.test.hf=1\n'
start_fake
control Refuse s MemorySwapMax > /dev/null
start_policyd || not_ok "policyd starts" "$(policyd_log)"
wait_for 10 knows_cgroup hf.service || not_ok "policyd reads hf.service" "$(policyd_log)"
wait_for 10 grep -q "^SetUnitProperties hf.service .* refused$" "$tmp/fake.log"
sleep 0.3
out=$("$policyctl" explain hf.service 2>&1)
row() { grep -E "^! +$1 " <<< "$out"; } # a knob's row, marked as failed
name="explain marks each knob whose last write failed with !, and says when, why and what it wanted"
if row 'SwapMax \(MemorySwapMax\)' | grep -qE "write failed (just now|[0-9]+s ago): Cannot set property MemorySwapMax: refused by the test, wanted 1G" \
        && row 'user\.test\.hf' | grep -qE "write failed (just now|[0-9]+s ago): No space left on device, wanted 1" \
        && row 'SwapHigh \(memory\.swap\.high\)' | grep -qE "write failed (just now|[0-9]+s ago): No such file or directory .*, wanted 50M" \
        && grep -q "^! The last write failed" <<< "$out" && grep -qE '^  user\.policy\.group ' <<< "$out"; then
        ok "$name"
else
        not_ok "$name" "$out"
fi
check_failures_json() { # name, python on d (explain's JSON) and s (status's)
        local v
        v=$(python3 -c "import json, sys, time
d = json.loads(sys.argv[1]); s = json.loads(sys.argv[2])
k = {x['knob']: x for x in d['knobs']}
$2" "$("$policyctl" --json explain hf.service)" "$("$policyctl" --json status)" 2>&1) && ok "$1" || not_ok "$1" "$v"
}
check_failures_json "explain --json gives each failure as data: errno and time as numbers, the value tried" '
f = k["SwapMax"]
assert f["last_error_errno"] == 22 and f["last_error"] == "Cannot set property MemorySwapMax: refused by the test", f
assert type(f["last_error_usec"]) is int and abs(f["last_error_usec"] / 1e6 - time.time()) < 60, f
assert f["last_error_value"] == "1073741824", f
f = k["user.test.hf"]
assert (f["last_error_errno"], f["last_error"], f["last_error_value"]) == (28, "No space left on device", "1"), f
f = k["SwapHigh"]
assert (f["last_error_errno"], f["last_error_value"]) == (2, "52428800"), f
assert k["user.policy.group"]["last_error"] is None and k["user.policy.group"]["last_error_errno"] is None, k
assert s["write_failures"] == {"knobs": 3, "units": 1, "cgroups": 0}, s["write_failures"]'
out=$("$policyctl" status 2>&1)
grep -qx "    Failures: 3 knobs on 1 unit failed their last write (see: policyctl explain)" <<< "$out" \
        && ok "status counts the failed knobs and their units" || not_ok "status counts the failed knobs and their units" "$out"

# The causes go: the next writes succeed, and the failures with them.
for i in $(seq 1 10); do setfattr -x "user.test.fill$i" "$cg/hf.service"; done
control Refuse s "" > /dev/null
"$policyctl" reload > /dev/null 2>&1
wait_for 10 xattr_is "$cg/hf.service" user.test.hf 1
wait_for 10 grep -q "^SetUnitProperties hf.service .*MemorySwapMax=1073741824$" "$tmp/fake.log"
sleep 0.3
check_failures_json "a later successful write clears the failure: of the attribute, and of the systemd property" '
assert k["SwapMax"]["last_error"] is None and k["user.test.hf"]["last_error"] is None, k
assert k["SwapHigh"]["last_error_errno"] == 2, k["SwapHigh"]
assert s["write_failures"] == {"knobs": 1, "units": 1, "cgroups": 0}, s["write_failures"]'
put /run/policy.d/hf.policy '[Match]\nSlice=hf.slice\n[Swap]\nSwapMax=1G\n[Attributes]\nXAttr=user.test.hf=1\n'
"$policyctl" reload > /dev/null 2>&1
out=$("$policyctl" status 2>&1)
grep -qx "    Failures: none" <<< "$out" && ! "$policyctl" explain hf.service | grep -q '^!' \
        && ok "a failed knob the group no longer sets is forgotten" \
        || not_ok "a failed knob the group no longer sets is forgotten" "$out" "$("$policyctl" explain hf.service)"
check_stop "policyd exits 0" 5
stop_fake
find "$cg/hf.service" -maxdepth 0 -exec rmdir {} \;

# --self-test: exit 0 with the memory controller on cgroup v2, else 4 and
# what cannot be applied.
out=$("$policyd" --self-test 2>&1); rc=$?
if grep -qw memory "$cgroot/cgroup.controllers"; then
        [ "$rc" = 0 ] && grep -q "Preflight checks passed" <<< "$out" \
                && ok "--self-test with the memory controller passes" \
                || not_ok "--self-test with the memory controller passes" "exit $rc" "$out"
else
        [ "$rc" = 4 ] && grep -q "memory controller is not available" <<< "$out" \
                && grep -q "SwapMax=, SwapHigh=, ZSwapMax=, ZSwapWriteback= and SwapTiers=" <<< "$out" \
                && ! grep -q "passed" <<< "$out" \
                && ok "--self-test without the memory controller exits 4 and says what cannot be applied" \
                || not_ok "--self-test without the memory controller exits 4 and says what cannot be applied" \
                        "exit $rc" "$out"
fi

# === 7c. policyd --revert: undo everything, as the package's prerm does on remove (issue 27, 1)

# Two running units the group sets MemorySwapMax=1G on; rv-a's files say
# nothing of it (systemd's default, infinity, is what they give), rv-b's
# fragment says 2G although systemd had infinity before policyd. A stopped
# unit holds a value an earlier run set. A cgroup no unit owns is assigned
# at runtime.
control_dir=/run/systemd/system.control
mkdir -p "$cg/rv-a.service" "$cg/rv-b.service" "$cg/rv-path"
put "$tmp/rv-a.service" '[Service]\nExecStart=/bin/true\n'
put "$tmp/rv-b.service" '[Service]\nExecStart=/bin/true\nMemorySwapMax=2G\n'
cat > "$tmp/units" << EOF
rv-a.service ControlGroup=$rel/rv-a.service Slice=rv.slice MemorySwapMax=infinity FragmentPath=$tmp/rv-a.service DropInPaths=$control_dir/rv-a.service.d/50-MemorySwapMax.conf
rv-b.service ControlGroup=$rel/rv-b.service Slice=rv.slice MemorySwapMax=infinity FragmentPath=$tmp/rv-b.service DropInPaths=$control_dir/rv-b.service.d/50-MemorySwapMax.conf
rv-stopped.service ControlGroup= Slice=system.slice ActiveState=inactive MemorySwapMax=1073741824
EOF
rm -f /run/policy.d/*
put /run/policy.d/rv.policy '[Match]\nSlice=rv.slice\n[Attributes]\nXAttr=user.test.rv=1\n[Swap]\nSwapMax=1G\n'
start_fake
rm -rf "$tmp/state"
mkdir -m 0755 "$tmp/state" "$tmp/state/properties"
record properties/rv-stopped.service "MemorySwapMax\t2147483648\t1073741824\n"
start_policyd keep || not_ok "policyd starts" "$(policyd_log)"
"$policyctl" assign "$rel/rv-path" rv > /dev/null 2>&1
set_on() { grep -q "^SetUnitProperties $1 runtime=yes MemorySwapMax=1073741824" "$tmp/fake.log"; }
name="before --revert: policyd set MemorySwapMax on both units, and the xattrs on their cgroups and the assigned one"
if wait_for 10 set_on rv-a.service && wait_for 10 set_on rv-b.service \
        && wait_for 10 xattr_is "$cg/rv-a.service" user.test.rv 1 && wait_for 10 xattr_is "$cg/rv-path" user.test.rv 1; then
        ok "$name"
else
        not_ok "$name" "$(cat "$tmp/fake.log")" "$(policyd_log)"
fi
# systemd keeps what SetUnitProperties(runtime=yes) set in a drop-in each.
for u in rv-a.service rv-b.service; do
        put "$control_dir/$u.d/50-MemorySwapMax.conf" \
                '# This is a drop-in unit file extension, created via "systemctl set-property"\n[Service]\nMemorySwapMax=1073741824\n'
done
cp "$tmp/state/assignments" "$tmp/rv-assignments"

revert() { # ARGS…: policyd --revert on the state directory; sets rc and out
        out=$(POLICYD_STATE_DIRECTORY=$tmp/state timeout $((60 * slow)) "${wrapper[@]}" "$policyd" --revert \
                --log-level=debug "$@" 2>&1)
        rc=$?
        printf '%s\n' "$out" >> "$tmp/revert.log"
}

# policyd.service runs: --revert must not touch anything.
calls_before=$(grep -c ^SetUnitProperties "$tmp/fake.log")
revert
if [ "$rc" = 1 ] && grep -q "policyd.service" <<< "$out" && xattr_is "$cg/rv-a.service" user.test.rv 1 \
        && [ "$(grep -c ^SetUnitProperties "$tmp/fake.log")" = "$calls_before" ]; then
        ok "--revert while the bus name is taken exits 1, names policyd.service, and changes nothing"
else
        not_ok "--revert while the bus name is taken exits 1, names policyd.service, and changes nothing" "exit $rc" "$out"
fi
check_stop "policyd exits 0 before the revert" 5

out=$("$policyd" --revert --once 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q -- "--revert cannot be combined with --once" <<< "$out" \
        && ok "--revert --once is a usage error (exit 2)" || not_ok "--revert --once is a usage error (exit 2)" "exit $rc" "$out"

# A dry run says what it would undo, and undoes nothing.
: > "$tmp/fake.log"
revert --dry-run
if [ "$rc" = 0 ] && grep -q "Would restore MemorySwapMax=infinity" <<< "$out" \
        && ! grep -q ^SetUnitProperties "$tmp/fake.log" && xattr_is "$cg/rv-a.service" user.test.rv 1 \
        && [ -e "$tmp/state/properties/rv-a.service" ]; then
        ok "--revert --dry-run exits 0, says what it would restore, and changes nothing"
else
        not_ok "--revert --dry-run exits 0, says what it would restore, and changes nothing" "exit $rc" "$out" \
                "$(cat "$tmp/fake.log")"
fi

# A systemd that does not answer (a user's own server behind their manager's
# socket can be one, policyd(8) THREAT MODEL): a SIGTERM, from timeout(1) or
# Ctrl-C at dpkg, ends --revert with status 5 and the records kept, not with
# 0, which the package's prerm would take for "everything undone". (Before:
# exit 0. The whole run is bounded too, at 120 s: too long for this suite.)
control Hold s '*' > /dev/null
out=$(POLICYD_STATE_DIRECTORY=$tmp/state timeout --preserve-status -s TERM $((4 * slow)) "${wrapper[@]}" "$policyd" \
        --revert 2>&1)
rc=$?
control Release > /dev/null
if [ "$rc" = 5 ] && grep -q "Stopped by Terminated before --revert finished" <<< "$out" \
        && [ -e "$tmp/state/properties/rv-a.service" ]; then
        ok "SIGTERM while systemd does not answer: --revert exits 5, and the records stay"
else
        not_ok "SIGTERM while systemd does not answer: --revert exits 5, and the records stay" "exit $rc" "$out"
fi

# systemd refuses to restore MemorySwapMax: that stays, with its records, and
# the exit status says so; the xattrs go.
control Refuse s MemorySwapMax > /dev/null
: > "$tmp/fake.log"
revert
if [ "$rc" = 5 ] && [ -e "$tmp/state/properties/rv-a.service" ] && grep -q "could not be undone" <<< "$out" \
        && xattr_is "$cg/rv-a.service" user.test.rv "(none)"; then
        ok "what systemd refuses to restore is kept, with its record, and --revert exits 5"
else
        not_ok "what systemd refuses to restore is kept, with its record, and --revert exits 5" "exit $rc" \
                "$(ls -R "$tmp/state")" "$out"
fi
control Refuse s "" > /dev/null

: > "$tmp/fake.log"
revert
[ "$rc" = 0 ] && ok "--revert exits 0 when everything is undone" \
        || not_ok "--revert exits 0 when everything is undone" "exit $rc" "$out"
restored() { grep -q "^SetUnitProperties $1 runtime=yes MemorySwapMax=$2$" "$tmp/fake.log"; }
if restored rv-a.service infinity && restored rv-b.service infinity && restored rv-stopped.service 2147483648; then
        ok "systemd got the restores: both running units, and the stopped one"
else
        not_ok "systemd got the restores: both running units, and the stopped one" "$(cat "$tmp/fake.log")"
fi
v=$(xattr "$cg/rv-a.service" user.test.rv) w=$(xattr "$cg/rv-path" user.test.rv) g=$(xattr "$cg/rv-path" user.policy.group)
[ "$v $w $g" = "(none) (none) (none)" ] && ok "the xattrs are gone from the units' cgroups and the assigned cgroup" \
        || not_ok "the xattrs are gone from the units' cgroups and the assigned cgroup" "rv-a: $v; rv-path: $w, $g"
left=$(find "$tmp/state/cgroups" "$tmp/state/properties" -type f 2> /dev/null)
[ -z "$left" ] && ok "no record is left" || not_ok "no record is left" "$left"
cmp -s "$tmp/state/assignments" "$tmp/rv-assignments" \
        && ok "the assignments file is as the administrator left it" \
        || not_ok "the assignments file is as the administrator left it" "$(cat "$tmp/state/assignments")"
if [ ! -e "$control_dir/rv-a.service.d" ] && [ -f "$control_dir/rv-b.service.d/50-MemorySwapMax.conf" ]; then
        ok "the runtime drop-in that restates the unit's files is removed, the one that does not is kept"
else
        not_ok "the runtime drop-in that restates the unit's files is removed, the one that does not is kept" \
                "$(ls -R "$control_dir")" "$(grep -i "drop-in" "$tmp/revert.log")"
fi
rm -rf "${control_dir:?}"/rv-*
stop_fake
rmdir "$cg/rv-a.service" "$cg/rv-b.service" "$cg/rv-path"

# A process that holds what an earlier run set (KSM=yes), and no injector
# (no socket in this /run): the record stays for a later try, as --revert
# needs it to undo or to report; a missing socket is no vanished process.
echo "rvp.service ControlGroup=$rel/rvp.service Slice=system.slice" > "$tmp/units"
mkdir "$cg/rvp.service"
start_fake
sleep 1000 &
sleeper=$!
echo "$sleeper" > "$cg/rvp.service/cgroup.procs"
rm -rf "$tmp/state"
mkdir -m 0755 "$tmp/state"
record processes "$sleeper $(awk '{ print $22 }' "/proc/$sleeper/stat") 1 -\n"
start_policyd keep || not_ok "policyd starts" "$(policyd_log)"
name="a process record is kept when the injector's socket is not there"
# valgrind 3.19 has no pidfd_open (syscall 434): under it policyd gets no
# pidfd and never reaches for the injector, so then only the record counts.
missing="is not there: KSM= and NUMAPolicy= reach no running process"
[ ${#wrapper[@]} -gt 0 ] && missing="$missing|unhandled amd64-linux syscall: 434"
settle=1
[ ${#wrapper[@]} -gt 0 ] && settle=3
if wait_for 10 grep -qE "$missing" "$tmp/policyd.log" && sleep "$settle" && grep -q "^$sleeper " "$tmp/state/processes"; then
        ok "$name"
else
        not_ok "$name" "$(cat "$tmp/state/processes" 2> /dev/null)" "$(policyd_log)"
fi
check_stop "policyd exits 0" 5
kill "$sleeper"
wait "$sleeper" 2> /dev/null
stop_fake
rmdir "$cg/rvp.service"

# === 8. The bus itself going away under calls in flight (last: it ends this bus)

many_units
rm -f /run/policy.d/*
put /run/policy.d/many.policy '[Match]\nSlice=test.slice\n[Attributes]\nXAttr=user.test.many=1\n'
start_fake --hold=GetAll --hold=Get
start_policyd || not_ok "policyd starts" "$(policyd_log)"
wait_for 10 at_least 32 grep -c ^Get "$tmp/fake.log"
kill -9 "$bus_pid"; bus_pid=
sleep "$slow"
if kill -0 "$daemon_pid" 2> /dev/null; then
        ok "the bus vanishing under calls in flight leaves policyd running"
else
        not_ok "the bus vanishing under calls in flight leaves policyd running" "$(tail -n 40 "$tmp/policyd.log")"
fi
check_stop "without a bus, SIGTERM makes policyd exit 0" 5
stop_fake

echo "1..$n"
if [ $failures != 0 ]; then
        echo "# policyd's last log:"
        sed 's/^/# /' "$tmp/policyd.log" | tail -n 80
        exit 1
fi
exit 0
