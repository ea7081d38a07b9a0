#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed's case: a service whose group allows fast, in a slice whose group
# allows only slow, swaps to the fast device; and the reverse. policyd widens
# each slice to what its members' groups need and narrows the slice's other
# children to the slice's own group, including a child started later; it
# leaves a file the administrator restricted as it is, and puts everything
# back when the groups go. Judged by the kernel: the files, and per-device
# Used in /proc/swaps after memory.reclaim.
set -euo pipefail
# shellcheck source=../scenarios/lib.sh
. "$SCENARIO_DIR/lib.sh"
# shellcheck source=../scenarios/policyd-lib.sh
. "$SCENARIO_DIR/policyd-lib.sh"
# shellcheck source-path=SCRIPTDIR source=tiers-lib.sh
. "$(dirname "$0")/tiers-lib.sh"
tiers_require
systemctl cat policyd.service >/dev/null 2>&1 || skip "policyd.service is not installed in the guest"
pgt_setup
tiers_define

pgt_policy pgt-fast '[PolicyGroup]\nDescription=test fast swap\n[Swap]\nSwapTiers=fast\n'
pgt_policy pgt-slow '[PolicyGroup]\nDescription=test slow swap\n[Swap]\nSwapTiers=slow\n'
# slice GROUP: a slice in that group; service NAME SLICE [GROUP]
slice() {
        printf '[Unit]\nX-PolicyGroup=%s\n' "$2" > "/etc/systemd/system/$1.slice"
}
service() {
        {
                echo "[Unit]"
                [[ -n ${3:-} ]] && echo "X-PolicyGroup=$3"
                echo "[Service]"
                echo "Slice=$2.slice"
                echo "ExecStart=${toucher[0]} ${toucher[1]} '${toucher[2]}'"
        } > "/etc/systemd/system/$1.service"
}
slice pgt-batch pgt-slow          # the batch slice: slow only
service pgt-db pgt-batch pgt-fast # ... but its database: fast (faster than its parent)
service pgt-cron pgt-batch        # ... and the rest of the slice: slow
slice pgt-front pgt-fast          # the front slice: fast only
service pgt-backup pgt-front pgt-slow # ... but its backup: slow (slower than its parent)
service pgt-web pgt-front         # ... and the rest: fast
service pgt-adm pgt-batch         # one the administrator restricts by hand, below
systemctl daemon-reload
systemctl start pgt-db.service pgt-cron.service pgt-backup.service pgt-web.service pgt-adm.service
# A unit delegated to a user in the slice: its directory is the user's, its
# knob files root's; it is narrowed like the others (else the user's whole
# tree would have the slice's wider set).
systemd-run --unit=pgt-deleg -p User=nobody -p Delegate=yes -p Slice=pgt-batch.slice sleep infinity
# The administrator's own value, written before policyd runs: fast only.
adm=$cg$(unit_cgroup pgt-adm.service)
echo "slow 0" > "$adm/memory.swap.tiers.max"
start_policyd

batch=$cg$(unit_cgroup pgt-batch.slice)   # /pgt.slice/pgt-batch.slice: "-" nests slices
front=$cg$(unit_cgroup pgt-front.slice)
db=$cg$(unit_cgroup pgt-db.service)
cron=$cg$(unit_cgroup pgt-cron.service)
backup=$cg$(unit_cgroup pgt-backup.service)
web=$cg$(unit_cgroup pgt-web.service)

wait_for "the batch slice widened to fast and slow" tiers_are "$batch" "fast max;slow max;"
wait_for "pgt-db has fast only" tiers_are "$db" "fast max;slow 0;"
wait_for "pgt-cron narrowed to the slice's slow" tiers_are "$cron" "fast 0;slow max;"
deleg=$cg$(unit_cgroup pgt-deleg.service)
[[ $(stat -c %U "$deleg") == nobody ]] || fail "$deleg is not delegated to nobody"
wait_for "pgt-deleg (a user's delegation root) narrowed too" tiers_are "$deleg" "fast 0;slow max;"
wait_for "the front slice widened to fast and slow" tiers_are "$front" "fast max;slow max;"
wait_for "pgt-backup has slow only" tiers_are "$backup" "fast 0;slow max;"
wait_for "pgt-web narrowed to the slice's fast" tiers_are "$web" "fast max;slow 0;"
assert_eq "the administrator's value on pgt-adm, kept" "fast max;slow 0;" \
        "$(sort "$adm/memory.swap.tiers.max" | tr '\n' ';')"
policyctl status | grep -a "Swap:" || true
policyctl status | has -a "1 left as someone else set them" || fail "status does not report the one conflict"
policyctl explain pgt-db.service | grep -a -i "swaptiers\|memory.swap.tiers" || true
policyctl explain pgt-db.service | has -a "fast" || fail "explain shows no effective tiers for pgt-db"

for s in db cron backup web; do
        wait_long 60 "64 MiB touched in pgt-$s" anon_at_least "${!s}" $((64 << 10))
done
assert_routed "pgt-db (fast, in a slow slice)" "$db" "$zram_dev" "$disk_dev"
assert_routed "pgt-cron (the slow slice's)" "$cron" "$disk_dev" "$zram_dev"
assert_routed "pgt-backup (slow, in a fast slice)" "$backup" "$disk_dev" "$zram_dev"
assert_routed "pgt-web (the fast slice's)" "$web" "$zram_dev" "$disk_dev"

# A child made later is narrowed when its cgroup appears: how long it has
# the slice's wider set, from the cgroup's mkdir to the file narrowed, in
# five starts (TCG: 20-50x slower than hardware).
window_ms() { # UNIT: start it and time the window (python's own loop, ~ms)
        python3 - "$batch/$1.service" "$1.service" <<'PY'
import os, subprocess, sys, time
path, unit = sys.argv[1], sys.argv[2]
subprocess.run(["systemctl", "start", "--no-block", unit], check=True)
t0 = None
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if t0 is None and os.path.isdir(path):
        t0 = time.monotonic()
    if t0 is not None:
        try:
            with open(os.path.join(path, "memory.swap.tiers.max")) as f:
                if "fast 0" in f.read():
                    print("%.1f" % ((time.monotonic() - t0) * 1000))
                    sys.exit(0)
        except OSError:
            pass
sys.exit("no narrowing within 60 s")
PY
}
windows=()
for i in 1 2 3 4 5; do
        printf '[Service]\nSlice=pgt-batch.slice\nExecStart=/bin/sleep infinity\n' > "/etc/systemd/system/pgt-late$i.service"
done
systemctl daemon-reload
for i in 1 2 3 4 5; do
        w=$(window_ms "pgt-late$i") || fail "pgt-late$i was not narrowed"
        windows+=("$w")
        wait_for "pgt-late$i narrowed" tiers_are "$batch/pgt-late$i.service" "fast 0;slow max;"
done
echo "new child: the slice's wider set for ${windows[*]} ms after its cgroup appeared (sorted: $(printf '%s\n' "${windows[@]}" | sort -n | tr '\n' ' '))"

# A restart keeps it all, and changes nothing.
systemctl restart policyd.service
sleep 3
wait_for "pgt-cron still narrowed after a restart" tiers_are "$cron" "fast 0;slow max;"
wait_for "the batch slice still widened after a restart" tiers_are "$batch" "fast max;slow max;"

# The groups go: all comes back as it was, the administrator's value too.
rm /etc/policy.d/pgt-fast.policy /etc/policy.d/pgt-slow.policy
policyctl reload
wait_for "the batch slice back to every tier" tiers_are "$batch" "fast max;slow max;"
wait_for "pgt-cron back to every tier" tiers_are "$cron" "fast max;slow max;"
wait_for "pgt-web back to every tier" tiers_are "$web" "fast max;slow max;"
wait_for "pgt-late1 back to every tier" tiers_are "$batch/pgt-late1.service" "fast max;slow max;"
wait_for "pgt-db back to every tier" tiers_are "$db" "fast max;slow max;"
assert_eq "the administrator's value on pgt-adm, still kept" "fast max;slow 0;" \
        "$(sort "$adm/memory.swap.tiers.max" | tr '\n' ';')"
echo "ok: faster and slower than the parent, by the kernel's routing"
