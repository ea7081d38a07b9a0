#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Write-ahead with no room for the record (issue 23, attack 7): the
# filesystem that holds /run/policyd is full when a unit joins a group that
# sets a property through systemd. policyd must not call SetUnitProperties
# without its record (a restart could not undo it), must say so in explain
# and status, and must make the change by itself once there is room again.
# /run is shared with systemd, so a small tmpfs of its own is mounted on
# /run/policyd for policyd to fill, not /run itself.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
fill=/run/policyd/pgt-fill
enospc_cleanup() {
        rm -f "$fill"
        pgt_cleanup
        umount /run/policyd 2>/dev/null || true
}
trap enospc_cleanup EXIT

mkdir -p /run/policyd
mount -t tmpfs -o size=512k,mode=0700 pgt-full /run/policyd
pgt_policy pgt-swap '[PolicyGroup]\n[Swap]\nSwapMax=64M\n'
start_policyd
systemd-run --unit=pgt-victim sleep infinity
sleep 2
before=$(systemctl show -P MemorySwapMax pgt-victim.service)
echo "MemorySwapMax before: $before"
[[ $before != 67108864 ]] || fail "MemorySwapMax is already the group's value"

# Full: every block of the tmpfs taken (dd stops at ENOSPC).
dd if=/dev/zero of="$fill" bs=4k 2>/dev/null || true
df -k /run/policyd | tail -1
policyctl assign pgt-victim.service pgt-swap || true
sleep 5
now=$(systemctl show -P MemorySwapMax pgt-victim.service)
[[ $now == "$before" ]] || fail "MemorySwapMax changed to $now while its record could not be written"
echo "ok: MemorySwapMax is still $now with no room for the record"
out=$(policyctl explain pgt-victim.service 2>&1 || true)
echo "$out"
grep -E "^ *SwapMax" <<<"$out" | grep -q "not made: .*record could not be written" \
        || fail "explain does not say SwapMax's record could not be written: $out"
status=$(policyctl status 2>&1 || true)
grep -qiE "^ *Records:.*(could not|not written|failed)" <<<"$status" || fail "status does not say so: $status"
echo "ok: explain and status say the record failed"

# Room again: the retry makes the change, without another request.
rm -f "$fill"
wait_long 90 "MemorySwapMax set by a retry" prop_is pgt-victim.service MemorySwapMax 67108864
out=$(policyctl explain pgt-victim.service 2>&1 || true)
! grep -qi "could not be written" <<<"$out" || fail "explain still says the record failed: $out"
systemctl is-active --quiet policyd.service || fail "policyd is not running"
policyctl unassign pgt-victim.service pgt-swap
wait_for "MemorySwapMax restored" prop_is pgt-victim.service MemorySwapMax "$before"
