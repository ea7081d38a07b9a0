#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Once everything is applied, policyd sits still and leaves systemd alone:
# no refresh loop between the two. (A loop like that once had PID 1 at
# 60% CPU: reading an unloaded unit loads it, and its unloading came back
# as a signal that read it again.) The same between policyd and its own
# attribute writes, which its IN_ATTRIB watch sees. Counts CPU ticks over
# 10 s; the bounds are far above idle and far below any loop.
set -euo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
pgt_setup

pgt_policy pgt-idle '[PolicyGroup]\n[Match]\nUnit=pgt-idle.service\n[Swap]\nSwapHigh=10M\n[Attributes]\nXAttr=user.pgt.idle=yes\n'
# Matches on an attribute (never set), so that attributes are watched.
pgt_policy pgt-idle-attr '[PolicyGroup]\n[Match]\nXAttr=user.pgt.idle=no\n'
start_policyd
policyctl status | grep -E '^ *Attributes: inotify' || fail "attributes are not watched: $(policyctl status)"
systemd-run --unit=pgt-idle sleep infinity
wait_for "applied" file_is "$cg$(unit_cgroup pgt-idle.service)/memory.swap.high" 10485760
systemctl daemon-reload
sleep 5

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
pid=$(systemctl show -P MainPID policyd.service)
p0=$(ticks "$pid"); s0=$(ticks 1)
sleep 10
p1=$(ticks "$pid"); s1=$(ticks 1)
echo "policyd used $((p1 - p0)) ticks, systemd $((s1 - s0)) ticks in 10 s (CLK_TCK=$(getconf CLK_TCK))"
(( p1 - p0 <= 20 )) || fail "policyd is busy while idle: $((p1 - p0)) ticks in 10 s"
(( s1 - s0 <= 100 )) || fail "systemd is busy while policyd idles: $((s1 - s0)) ticks in 10 s"
