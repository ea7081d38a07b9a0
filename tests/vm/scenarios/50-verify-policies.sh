#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The installed example policies pass "policyctl verify", and so does what
# the administrator chose of them (the suite's guest opts in to all three).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

examples=/usr/share/policygroups/examples
[[ -x /usr/bin/policyctl ]] || fail "/usr/bin/policyctl is not installed"
[[ -d $examples ]] || fail "$examples is not installed"
[[ ! -e /usr/lib/policy.d ]] || fail "/usr/lib/policy.d is installed: the shipped groups would be in force ($(ls /usr/lib/policy.d))"
ls -l "$examples"
for f in "$examples"/*.policy; do
        policyctl verify "$f" || fail "policyctl verify $f: exit status $?"
done
echo "ok: policyctl verify of each example"
policyctl verify || fail "policyctl verify (the groups in force): exit status $?"
echo "ok: policyctl verify of the groups in force: $(cd /etc/policy.d && echo *.policy)"
