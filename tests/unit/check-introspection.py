#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compares one interface of two D-Bus introspection documents.

Usage: check-introspection.py INTERFACE EXPECTED.xml ACTUAL.xml

EXPECTED is the file installed for readers (with comments), ACTUAL what the
object answered to org.freedesktop.DBus.Introspectable.Introspect. Compared:
the methods, signals and properties of INTERFACE, with their argument names,
signatures and directions, the properties' types and access, and every
annotation (org.freedesktop.DBus.Property.EmitsChangedSignal among them).
Comments and order do not count. Prints each difference and exits 1, or
exits 0 when there is none.
"""

import sys
import xml.etree.ElementTree as ET


def annotations(element):
    return {a.get("name"): a.get("value") for a in element.findall("annotation")}


def describe(path, interface):
    root = ET.parse(path).getroot()
    found = [i for i in root.findall("interface") if i.get("name") == interface]
    if len(found) != 1:
        raise SystemExit(f"{path}: {len(found)} interfaces named {interface}, not 1")
    iface = found[0]
    out = {"interface": {"annotations": annotations(iface)}}
    for m in iface.findall("method"):
        args = [(a.get("name"), a.get("type"), a.get("direction") or "in") for a in m.findall("arg")]
        out[f"method {m.get('name')}"] = {"args": args, "annotations": annotations(m)}
    for s in iface.findall("signal"):
        args = [(a.get("name"), a.get("type")) for a in s.findall("arg")]
        out[f"signal {s.get('name')}"] = {"args": args, "annotations": annotations(s)}
    for p in iface.findall("property"):
        out[f"property {p.get('name')}"] = {
            "type": p.get("type"),
            "access": p.get("access"),
            "annotations": annotations(p),
        }
    return out


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__.strip().splitlines()[2])
    interface, expected_path, actual_path = sys.argv[1:]
    expected = describe(expected_path, interface)
    actual = describe(actual_path, interface)
    differences = []
    for key in sorted(set(expected) | set(actual)):
        if key not in actual:
            differences.append(f"{key}: in {expected_path}, not in the running object")
        elif key not in expected:
            differences.append(f"{key}: in the running object, not in {expected_path}")
        elif expected[key] != actual[key]:
            for field, e in expected[key].items():
                a = actual[key][field]
                if e != a:
                    differences.append(f"{key}: {field} {e!r} in {expected_path}, {a!r} in the running object")
    for d in differences:
        print(d)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
