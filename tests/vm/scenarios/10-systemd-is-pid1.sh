#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The guest is a real system: systemd is PID 1 and the boot finished.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$SCENARIO_DIR/lib.sh"

assert_file_eq /proc/1/comm systemd

state=$(systemctl is-system-running --wait || true)
case $state in
running)  echo "ok: system is running" ;;
degraded) echo "system is degraded; failed units (not fatal):"
          systemctl --failed --no-legend --plain ;;
*)        fail "systemctl is-system-running: $state" ;;
esac
