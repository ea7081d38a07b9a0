#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile callers of policyd's D-Bus API, first as an unprivileged user,
# then as root: every method with wrong types and arities, ".." in paths,
# paths outside the cgroup root, 1 MiB strings, invalid UTF-8 and NUL
# bytes, PIDs that do not exist or belong to others, then a seeded random
# loop bounded in count and time (dbus-hostile.py). Every malformed call
# is rejected with an error, every change by a user other than root with
# AccessDenied; and policyd is unaffected: same process, still answering,
# and the same state before and after (policyctl --json status, its records
# in /run/policyd, the xattrs and files of a member cgroup).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
tmp=$(mktemp -d)
chmod 0755 "$tmp"
cleanup() { rm -rf "$tmp"; pgt_cleanup; }
trap cleanup EXIT

id pgfuzz >/dev/null 2>&1 || useradd -m pgfuzz
pgt_policy pgt-fuzz '[PolicyGroup]\n[Match]\nUnit=pgt-fuzz.service\n[Swap]\nSwapHigh=8M\n[Attributes]\nXAttr=user.slo.class=fuzz\n'
systemd-run --unit=pgt-fuzz sleep infinity
path=$cg$(unit_cgroup pgt-fuzz.service)
start_policyd
wait_for "pgt-fuzz applied" xattr_is "$path" user.slo.class fuzz
policyctl assign pgt-fuzz.service pgt-fuzz # a runtime assignment, to be kept as it is
sleep 2
# The records' checkpoint (a second after the last apply) rewrites files in
# /run/policyd: the snapshot is taken after it, not in its way.
wait_for "the records' log emptied into their files" bash -c '[[ ! -s /run/policyd/cgroups.intent ]]'
pid=$(systemctl show -P MainPID policyd.service)
sleep infinity &
foreign=$!

snapshot() {
        policyctl --json status
        echo
        getfattr --absolute-names -d -m - "$path"
        cat "$path/memory.swap.high"
        (cd /run/policyd && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
snapshot > "$tmp/before"
cp "$SCENARIO_DIR/dbus-hostile.py" "$tmp/"
failed=()

echo "--- as pgfuzz (uid $(id -u pgfuzz))"
setpriv --reuid=pgfuzz --regid=pgfuzz --init-groups python3 "$tmp/dbus-hostile.py" --group pgt-fuzz \
        --unit pgt-fuzz.service --foreign-pid "$foreign" --count 1000 --seconds 60 > "$tmp/user.out" 2>&1 ||
        failed+=("as an unprivileged user: $(grep -c '^FAIL' "$tmp/user.out") calls")
grep -E '^(FAIL|#)' "$tmp/user.out" | cut -c1-240 || true

echo "--- as root"
python3 "$tmp/dbus-hostile.py" --group pgt-fuzz --unit pgt-fuzz.service --count 600 --seconds 40 \
        > "$tmp/root.out" 2>&1 || failed+=("as root: $(grep -c '^FAIL' "$tmp/root.out") calls")
grep -E '^(FAIL|#)' "$tmp/root.out" | cut -c1-240 || true

assert_eq "policyd's MainPID" "$pid" "$(systemctl show -P MainPID policyd.service)"
policyctl status >/dev/null || fail "policyctl status fails after the hostile calls"
snapshot > "$tmp/after"
if ! diff -u "$tmp/before" "$tmp/after" > "$tmp/diff"; then
        cut -c1-240 "$tmp/diff" | head -n 40
        failed+=("policyd's state changed (diff above)")
fi
(( ${#failed[@]} == 0 )) || fail "$(printf '%s; ' "${failed[@]}")"
echo "ok: every hostile call was rejected, and policyd is unaffected"
