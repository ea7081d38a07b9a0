#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A flood of Assign and Unassign calls, for scenario 95-trust-assign-flood.

One connection to the system bus, calls one after another as fast as
policyd answers, alternating Assign and Unassign of one target to one
group, bounded in count and time. Prints what came back:

  accepted N
  error NAME N            (one line per error name)
  elapsed SECONDS
  message NAME: TEXT      (the first message of each error name)
  ping ok|failed          (policyd still answers after the flood)
"""
import argparse
import importlib.util
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("dbus_hostile", os.path.join(here, "dbus-hostile.py"))
hostile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hostile)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bus", default="/run/dbus/system_bus_socket")
    ap.add_argument("--target", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20)
    o = ap.parse_args()

    bus = hostile.Bus(o.bus, 30)
    accepted, errors, messages = 0, {}, {}
    start = time.monotonic()
    for i in range(o.count):
        if time.monotonic() - start > o.seconds:
            break
        member = "Assign" if i % 2 == 0 else "Unassign"
        kind, err, value = bus.call(hostile.BUS, hostile.PATH, hostile.IFACE, member, "ss", [o.target, o.group])
        if kind == "return":
            accepted += 1
        else:
            errors[err] = errors.get(err, 0) + 1
            messages.setdefault(err, value)
    elapsed = time.monotonic() - start
    print(f"accepted {accepted}")
    for name, n in sorted(errors.items()):
        print(f"error {name} {n}")
    print(f"elapsed {elapsed:.2f}")
    for name, text in sorted(messages.items()):
        print(f"message {name}: {text}")
    kind, _, _ = bus.call(hostile.BUS, hostile.PATH, "org.freedesktop.DBus.Peer", "Ping", "", [])
    print("ping " + ("ok" if kind == "return" else "failed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
