#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The installed policies pass "policyctl verify".
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

[[ -x /usr/bin/policyctl ]] || fail "/usr/bin/policyctl is not installed"
[[ -d /usr/lib/policy.d ]] || fail "/usr/lib/policy.d is not installed"
ls -l /usr/lib/policy.d
policyctl verify /usr/lib/policy.d || fail "policyctl verify /usr/lib/policy.d: exit status $?"
echo "ok: policyctl verify"
