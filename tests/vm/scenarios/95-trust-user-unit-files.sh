#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 23: the unit files a user's manager names are the user's. Before it
# first sets a property on a unit, policyd reads the unit's FragmentPath and
# DropInPaths, as root, for the value to restore on undo; a user manager's
# units too. The user loads two units whose drop-ins (in
# /run/user/UID/systemd/user) are regular files, as systemd wants, keeps
# them running, and swaps one drop-in for a FIFO: root's open() of it would
# wait for a writer for ever. (A drop-in, because the manager itself opens
# the fragment again for UnitFileState, and would wait first.) A group of
# the user's manager's units sets SwapMax=. policyd sets MemorySwapMax= on
# both units through the user's manager, and answers throughout; the FIFO
# is refused, not waited on.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

pgt_policy pgt-ufile '[PolicyGroup]\n[Match]\nUnit=pgt-u*.service\nManager=user\n[Swap]\nSwapMax=40M\n'

test_user_setup pgtfiles
udir=$test_user_runtime/systemd/user
for u in pgt-ufifo pgt-uown; do
        test_user_run mkdir -p "$udir/$u.service.d"
        test_user_run sh -c "printf '[Service]\nExecStart=/bin/sleep infinity\n' > $udir/$u.service"
        test_user_run sh -c "printf '[Service]\nEnvironment=PGT=1\n' > $udir/$u.service.d/env.conf"
done
test_user_run systemctl --user daemon-reload
for u in pgt-ufifo pgt-uown; do
        test_user_run systemctl --user start "$u.service"
done
drop=$(test_user_run systemctl --user show -P DropInPaths pgt-ufifo.service)
[[ $drop == "$udir/pgt-ufifo.service.d/env.conf" ]] || fail "the manager names another drop-in: '$drop'"
# Loaded and running: the manager keeps DropInPaths as it read them.
test_user_run sh -c "rm $udir/pgt-ufifo.service.d/env.conf && mkfifo $udir/pgt-ufifo.service.d/env.conf"
[[ -p $udir/pgt-ufifo.service.d/env.conf ]] || fail "the swap did not happen"
drop=$(test_user_run systemctl --user show -P DropInPaths pgt-ufifo.service)
[[ $drop == "$udir/pgt-ufifo.service.d/env.conf" ]] || fail "the manager no longer names the FIFO: '$drop'"
echo "ok: the user's manager names the FIFO $drop as a drop-in of pgt-ufifo.service"

start_policyd
user_prop_is() { # UNIT PROPERTY VALUE, as the user's manager says
        [[ $(test_user_run systemctl --user show -P "$2" "$1") == "$3" ]]
}
wait_for "pgt-uown.service has MemorySwapMax=40M from its manager" user_prop_is pgt-uown.service MemorySwapMax 41943040
wait_for "pgt-ufifo.service has MemorySwapMax=40M from its manager" user_prop_is pgt-ufifo.service MemorySwapMax 41943040
timeout 30 policyctl status >/dev/null || fail "policyd does not answer policyctl status"
echo "ok: policyd set both units' property and answers, with a FIFO among the user's unit files"
# Nothing waits on the FIFO: no process of policyd's has it open.
pid=$(systemctl show -P MainPID policyd.service)
if ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "$udir/pgt-ufifo.service.d/env.conf"; then
        fail "policyd holds the FIFO open"
fi
[[ $(cat "/proc/$pid/wchan" 2>/dev/null) != fifo_open ]] || fail "policyd waits in fifo_open"
echo "ok: policyd holds no descriptor of the FIFO and waits on nothing"
