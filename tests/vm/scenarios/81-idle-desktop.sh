#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A quiet desktop (issue 10): with a user's manager followed, apps running in
# a foreground and a background group by focus, and nobody changing focus,
# policyd does not wake at all over a minute, apart from the watchdog
# (WatchdogSec=3min: sd-event pings every 90 to 135 s, so at most once in
# the minute). Counted as the context switches of all policyd's threads: a
# process that sleeps in epoll_wait has none.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup
trap 'test_user_cleanup; pgt_cleanup' EXIT

apps='[Match]\nUnit=pgt-app-*.scope\nManager=user\n'
pgt_policy pgt-fg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}Focused=yes\n[Swap]\nSwapHigh=10M\n"
# InactiveFor= with a value long past: the app joins at once, and no timer waits.
pgt_policy pgt-bg "[PolicyGroup]\nAllowSelfAssign=yes\n${apps}InactiveFor=1s\n[Swap]\nSwapHigh=20M\n"

test_user_setup pgtidle
start_policyd
test_user_scope pgt-app-front.scope sleep infinity
test_user_scope pgt-app-back.scope sleep infinity
test_user_scope pgt-app-nowindow.scope sleep infinity
front=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-app-front.scope)
back=$cg$(test_user_run systemctl --user show -P ControlGroup pgt-app-back.scope)
# As Mutter would, as the user: focused, and unfocused since (almost) boot.
test_user_run setfattr -n user.xdg.inactive-since -v -1 "$front"
test_user_run setfattr -n user.xdg.inactive-since -v 1 "$back"
wait_for "the focused app is in pgt-fg" xattr_is "$front" user.policy.group pgt-fg
wait_for "the app without focus is in pgt-bg" xattr_is "$back" user.policy.group pgt-bg
out=$(policyctl status)
grep -E '^ *Attributes: inotify' <<<"$out" || fail "attributes are not watched: $out"
grep -E "^ *Managers: .*user@$test_uid \([0-9]+ units\)" <<<"$out" || fail "status does not show the user's manager: $out"
sleep 5

pid=$(systemctl show -P MainPID policyd.service)
quiet_minute "$pid"
policyd_lines() { journalctl -q --after-cursor "$quiet_cursor" -u policyd.service --no-pager -o cat; }
lines=$(policyd_lines | wc -l)
echo "policyd: $quiet_wakeups context switches and $lines journal lines in 60 s, with $(ls /proc/"$pid"/task | wc -l) threads"
(( quiet_wakeups <= 3 )) || fail "policyd woke $quiet_wakeups times in a quiet minute (the watchdog accounts for at most 1 to 3)"
(( lines == 0 )) || fail "policyd logged in a quiet minute: $(policyd_lines | tail -5)"
xattr_is "$front" user.policy.group pgt-fg || fail "the focused app left pgt-fg"
xattr_is "$back" user.policy.group pgt-bg || fail "the app without focus left pgt-bg"
echo "ok: a quiet desktop costs policyd no wakeups"
