#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23, "also seen": an unprivileged user's flood of Assign and
# Unassign (one connection, calls as fast as policyd answers, bounded in
# count and time). Calls past the limit of the caller's uid (16 at once,
# then 2 a second) are refused with LimitsExceeded and a message; the ones
# accepted stay within that bound; the same flood on the user's delegated
# service's own cgroup makes policyd set nothing through PID 1; root is not
# limited; the user may assign again a moment later; policyd answers on,
# with the same MainPID.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
user=pgtflood
flood_cleanup() {
        pgt_cleanup
        userdel "$user" 2>/dev/null || true
        rm -rf "${tmp:-}"
}
trap flood_cleanup EXIT
userdel "$user" 2>/dev/null || true
useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
tmp=$(mktemp -d)
chmod 0755 "$tmp"
cp "$SCENARIO_DIR/assign-flood.py" "$SCENARIO_DIR/dbus-hostile.py" "$tmp/"

pgt_policy pgt-flood '[PolicyGroup]\nAllowSelfAssign=yes\n[Swap]\nSwapMax=4G\nSwapHigh=30M\n[Attributes]\nXAttr=user.pgt.flood=yes\n'
systemd-run --unit=pgt-flood-own -p User="$user" -p Delegate=yes -p MemorySwapMax=1G sleep infinity
own=$(unit_cgroup pgt-flood-own.service)
# The user's own cgroup below it, with the process in a leaf.
setpriv --reuid="$user" --regid="$user" --clear-groups sh -c "mkdir '$cg$own/main' '$cg$own/job' &&
        echo $(systemctl show -P MainPID pgt-flood-own.service) > '$cg$own/main/cgroup.procs' &&
        echo +memory > '$cg$own/cgroup.subtree_control'"
start_policyd
pid=$(systemctl show -P MainPID policyd.service)
sleep 2

flood() { # OUT TARGET COUNT SECONDS [as root]
        local out=$1 target=$2 count=$3 seconds=$4
        if [[ ${5:-} == root ]]; then
                python3 "$tmp/assign-flood.py" --target "$target" --group pgt-flood --count "$count" --seconds "$seconds"
        else
                setpriv --reuid="$user" --regid="$user" --clear-groups python3 "$tmp/assign-flood.py" \
                        --target "$target" --group pgt-flood --count "$count" --seconds "$seconds"
        fi >"$out" 2>&1 || fail "the flood failed: $(cat "$out")"
        sed 's/^/  /' "$out"
}
field() { # OUT KEY: the number after KEY, or 0
        awk -v k="$2" '$1 " " $2 == k { print $3; f = 1 } $1 == k && NF == 2 { print $2; f = 1 } END { if (!f) print 0 }' "$1" | head -n 1
}
# At most burst + rate × elapsed (+1 for a token coming back as the flood ends).
bound() { awk -v e="$1" 'BEGIN { printf "%d", 16 + 2 * e + 1 }'; }

echo "--- the user floods their own cgroup below the delegation root"
flood "$tmp/below" "$own/job" 300 20
accepted=$(field "$tmp/below" accepted)
limited=$(field "$tmp/below" "error org.freedesktop.DBus.Error.LimitsExceeded")
elapsed=$(field "$tmp/below" elapsed)
max=$(bound "$elapsed")
(( limited > 0 )) || fail "no call was refused with LimitsExceeded: $accepted of them accepted in $elapsed s"
grep -q "^message org.freedesktop.DBus.Error.LimitsExceeded: Too many changes from uid $(id -u "$user")" "$tmp/below" ||
        fail "LimitsExceeded does not say why: $(grep '^message' "$tmp/below")"
(( accepted <= max )) || fail "$accepted calls accepted in $elapsed s, more than $max"
grep -q '^ping ok' "$tmp/below" || fail "policyd does not answer after the flood"
echo "ok: $accepted accepted (at most $max), $limited refused with LimitsExceeded"

echo "--- the same flood on the delegated service's own cgroup: nothing through PID 1"
mark=$(date '+%Y-%m-%d %H:%M:%S')
flood "$tmp/root-cgroup" "$own" 100 10
sleep 2
sets=$(journalctl -b _SYSTEMD_UNIT=policyd.service UNIT=pgt-flood-own.service --since "$mark" -o cat |
        grep -c "^Set " || true)
elapsed=$(field "$tmp/root-cgroup" elapsed)
(( sets <= $(bound "$elapsed") )) || fail "$sets SetUnitProperties on pgt-flood-own.service for the flood"
assert_eq "pgt-flood-own's MemorySwapMax" 1073741824 "$(systemctl show -P MemorySwapMax pgt-flood-own.service)"
echo "ok: $sets properties set through PID 1 for the user's flood"

echo "--- root is not limited"
flood "$tmp/as-root" "$own/main" 40 20 root
assert_eq "root's calls accepted" 40 "$(field "$tmp/as-root" accepted)"

echo "--- a moment later, the user may change things again"
sleep 2
out=$(setpriv --reuid="$user" --regid="$user" --clear-groups policyctl assign "$own/job" pgt-flood 2>&1) ||
        fail "the user's assign after the flood failed: $out"
wait_for "$own/job is in pgt-flood" xattr_is "$cg$own/job" user.policy.group pgt-flood

policyctl status >/dev/null || fail "policyctl status fails after the flood"
assert_eq "policyd's MainPID" "$pid" "$(systemctl show -P MainPID policyd.service)"
[[ $(systemctl show -P NRestarts policyd.service) == 0 ]] || fail "policyd restarted"
echo "ok: a user's flood of Assign is bounded, and policyd answers on"
