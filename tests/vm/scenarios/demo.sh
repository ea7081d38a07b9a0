#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run in the guest by tests/demo: policyd with the shipped example policies and a
# few demo units, then what policyctl says about them.
set -euo pipefail

show() { echo; echo "# $*"; "$@"; }

# The shipped groups are examples: opt in to them, as an administrator does
# (policy.d(5), OPT-IN).
mkdir -p /etc/policy.d
cp /usr/share/policygroups/examples/{foreground,background,batch}.policy /etc/policy.d/
systemctl enable --now policyd.service
# An editor the desktop started, which has the focus (as GNOME's compositor
# marks it): matched by foreground.policy's [Match].
systemd-run --quiet --scope --unit=app-demo-editor.scope --slice=app.slice sleep infinity &
for _ in $(seq 50); do
        editor=/sys/fs/cgroup$(systemctl show -P ControlGroup app-demo-editor.scope 2>/dev/null) || true
        [[ $editor != /sys/fs/cgroup ]] && break
        sleep 0.2
done
setfattr -n user.xdg.inactive-since -v -1 "$editor"
# A build job in batch.slice: matched by batch.policy.
systemd-run --quiet --unit=demo-build --slice=batch.slice sleep infinity
# A service that names its group in its unit file.
printf '[Unit]\nDescription=Demo indexer\nX-PolicyGroup=background\n[Service]\nExecStart=/bin/sleep infinity\n' \
        > /etc/systemd/system/demo-indexer.service
systemctl daemon-reload
systemctl start demo-indexer.service
sleep 5

show policyctl status
show policyctl explain demo-build.service
show getfattr -d "/sys/fs/cgroup$(systemctl show -P ControlGroup demo-indexer.service)"
