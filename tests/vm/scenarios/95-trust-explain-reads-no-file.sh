#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Explain, which any local user may call, plans as the apply does (issue 25).
# The unit plan asks for the administrator's values from the unit's files
# wherever policyd-generator's drop-in is involved; the first version of that
# Explain read them at every call, so a user calling it in a loop made root
# parse the unit's files without end (a user's own unit may have drop-ins of
# 16 MB each). nobody calls Explain on root's unit 20 times. Judged by the
# kernel: inotify sees no open of the unit's fragment or drop-in while the
# calls run, and each call answered with the unit's group (the runner checks
# that policyd never crashed, as in every scenario).
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
watcher=
trap '[[ -z $watcher ]] || kill "$watcher" 2>/dev/null; pgt_cleanup' EXIT

unit=pgt-exrd.service
pgt_policy pgt-exrd '[PolicyGroup]\n[Swap]\nSwapMax=40M\n[Attributes]\nXAttr=user.pgt.exrd=yes\n'
printf '[Service]\nExecStart=/usr/bin/sleep infinity\nPolicyGroup=pgt-exrd\n' > "/etc/systemd/system/$unit"
mkdir -p "/etc/systemd/system/$unit.d"
printf '[Service]\nMemorySwapMax=1G\n' > "/etc/systemd/system/$unit.d/10-admin.conf"
systemctl daemon-reload
[[ -e /run/systemd/generator/$unit.d/50-policy-groups.conf ]] ||
        fail "policyd-generator wrote no drop-in for $unit"
systemctl start "$unit"
start_policyd
wait_for "$unit has its group's attribute" xattr_is "$cg$(unit_cgroup "$unit")" user.pgt.exrd yes

# Root counts opens of the unit's files, from before the first call to after the last.
files=("/etc/systemd/system/$unit" "/etc/systemd/system/$unit.d/10-admin.conf")
opens=$(mktemp)
python3 - "$opens" "${files[@]}" <<'PY' &
import ctypes, os, signal, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_CLOEXEC)
for path in sys.argv[2:]:
    if libc.inotify_add_watch(fd, path.encode(), 0x20) < 0:  # IN_OPEN
        sys.exit(f"inotify_add_watch {path}: {os.strerror(ctypes.get_errno())}")
count = 0
def done(*_):
    open(sys.argv[1], "w").write(f"{count}\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
open(sys.argv[1], "w").write("ready\n")
while True:
    buf = os.read(fd, 4096)
    off = 0
    while off < len(buf):
        _, _, _, n = struct.unpack_from("iIII", buf, off)
        count += 1
        off += 16 + n
PY
watcher=$!
wait_quiet 10 grep -q ready "$opens" || fail "the inotify watcher did not start"

for i in $(seq 1 20); do
        out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups policyctl explain "$unit" 2>&1) ||
                fail "nobody's explain $i failed: $out"
        grep -q pgt-exrd <<<"$out" || fail "nobody's explain $i does not name the group: $out"
done
echo "ok: nobody called explain 20 times"
sleep 1
kill "$watcher"
wait "$watcher" || true
watcher=
n=$(cat "$opens")
rm -f "$opens"
assert_eq "opens of $unit's fragment and drop-in during the calls" 0 "$n"
