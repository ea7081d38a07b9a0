#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A hostile caller of org.policygroups.PolicyGroups1, for scenario 95.

Speaks D-Bus on a raw socket, with its own marshaller, so that it can send
what busctl, dbus-send and sd-bus refuse to: invalid UTF-8, NUL bytes inside
strings, 1 MiB strings, any signature for any method. Calls every method of
the interface with malformed arguments (a fixed list of cases, then a
seeded random loop bounded in count and time) and checks each answer:

  - every call gets an answer within the timeout (or, for a message the bus
    itself must refuse, such as invalid UTF-8, the bus drops us: then we
    connect again and check that policyd still answers);
  - no malformed argument is accepted: the answer is an error;
  - a caller other than root gets AccessDenied for Assign, Unassign and
    Reload whenever the signature is right;
  - policyd answers a Ping after every case.

Prints one line per case; exits 1 if any case failed.
"""
import argparse
import os
import random
import socket
import struct
import sys
import time

BUS = "org.policygroups.PolicyGroups1"
PATH = "/org/policygroups/PolicyGroups1"
IFACE = "org.policygroups.PolicyGroups1.Manager"
MUTATING = {"Assign", "Unassign", "Reload"}
MIB = 1 << 20


class Disconnected(Exception):
    pass


# ---- marshalling (little endian) ----

def _split_sig(sig):
    """Splits a signature into complete types."""
    out, i = [], 0
    while i < len(sig):
        j = _type_end(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def _type_end(sig, i):
    c = sig[i]
    if c == "a":
        return _type_end(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        depth, j = 0, i
        while True:
            if sig[j] in "({":
                depth += 1
            elif sig[j] in ")}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
    return i + 1


ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "h": 4,
         "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1}
FMT = {"y": "<B", "b": "<I", "n": "<h", "q": "<H", "i": "<i", "u": "<I", "x": "<q", "t": "<Q",
       "d": "<d", "h": "<I"}


def _pad(buf, n):
    buf.extend(b"\0" * ((-len(buf)) % n))


def _raw(v):
    return v if isinstance(v, bytes) else v.encode()


def marshal(buf, t, v):
    _pad(buf, ALIGN[t[0]])
    c = t[0]
    if c in FMT:
        buf.extend(struct.pack(FMT[c], v))
    elif c in "so":
        b = _raw(v)
        buf.extend(struct.pack("<I", len(b)) + b + b"\0")
    elif c == "g":
        b = _raw(v)
        buf.extend(struct.pack("<B", len(b)) + b + b"\0")
    elif c == "v":
        vt, vv = v
        marshal(buf, "g", vt)
        marshal(buf, vt, vv)
    elif c == "a":
        et = t[1:]
        at = len(buf)
        buf.extend(b"\0\0\0\0")
        _pad(buf, ALIGN[et[0]])
        start = len(buf)
        for e in v:
            marshal(buf, et, e)
        struct.pack_into("<I", buf, at, len(buf) - start)
    elif c in "({":
        for st, sv in zip(_split_sig(t[1:-1]), v):
            marshal(buf, st, sv)
    else:
        raise ValueError(t)


def unmarshal(data, pos, t):
    """Reads one value of type t; returns (value, new position)."""
    pos += (-pos) % ALIGN[t[0]]
    c = t[0]
    if c in FMT:
        size = struct.calcsize(FMT[c])
        return struct.unpack_from(FMT[c], data, pos)[0], pos + size
    if c in "so":
        n = struct.unpack_from("<I", data, pos)[0]
        return data[pos + 4:pos + 4 + n].decode("utf-8", "replace"), pos + 5 + n
    if c == "g":
        n = data[pos]
        return data[pos + 1:pos + 1 + n].decode(), pos + 2 + n
    if c == "v":
        vt, pos = unmarshal(data, pos, "g")
        return unmarshal(data, pos, vt)
    if c == "a":
        n = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        pos += (-pos) % ALIGN[t[1]]
        end, out = pos + n, []
        while pos < end:
            v, pos = unmarshal(data, pos, t[1:])
            out.append(v)
        return out, pos
    if c in "({":
        out = []
        for st in _split_sig(t[1:-1]):
            v, pos = unmarshal(data, pos, st)
            out.append(v)
        return out, pos
    raise ValueError(t)


# ---- the connection ----

class Bus:
    def __init__(self, address, timeout):
        self.address, self.timeout = address, timeout
        self.serial = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(address)
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        line = self._readline()
        if not line.startswith(b"OK"):
            raise RuntimeError(f"authentication refused: {line!r}")
        self.sock.sendall(b"BEGIN\r\n")
        self.buf = b""
        kind, _, body = self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                  "Hello", "", [])
        if kind != "return":
            raise RuntimeError(f"Hello failed: {body}")
        self.name = body

    def _readline(self):
        out = b""
        while not out.endswith(b"\r\n"):
            c = self.sock.recv(1)
            if not c:
                raise Disconnected("closed during authentication")
            out += c
        return out

    def _recv_exact(self, n):
        while len(self.buf) < n:
            try:
                chunk = self.sock.recv(max(65536, n - len(self.buf)))
            except socket.timeout:
                raise TimeoutError("no answer within %d s" % self.timeout)
            except ConnectionResetError:
                raise Disconnected("connection reset by the bus")
            if not chunk:
                raise Disconnected("the bus closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, dest, path, iface, member, sig, args, body=None):
        self.serial += 1
        if body is None:
            b = bytearray()
            for t, v in zip(_split_sig(sig), args):
                marshal(b, t, v)
            body = bytes(b)
        fields = [(1, ("o", path)), (3, ("s", member)), (6, ("s", dest))]
        if iface:
            fields.append((2, ("s", iface)))
        if sig:
            fields.append((8, ("g", sig)))
        h = bytearray(b"l\x01\x00\x01")
        h.extend(struct.pack("<II", len(body), self.serial))
        marshal(h, "a(yv)", fields)
        _pad(h, 8)
        self.sock.sendall(bytes(h) + body)
        return self.serial

    def receive(self, serial):
        """Waits for the answer to serial: ("return"|"error", error name, first string or value)."""
        deadline = time.monotonic() + self.timeout
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer within %d s" % self.timeout)
            fixed = self._recv_exact(16)
            if fixed[0:1] != b"l":
                raise RuntimeError("big-endian messages are not handled")
            mtype = fixed[1]
            body_len, _, fields_len = struct.unpack_from("<III", fixed, 4)
            rest = self._recv_exact(fields_len + (-(16 + fields_len)) % 8 + body_len)
            data = fixed + rest
            fields, pos = unmarshal(data, 12, "a(yv)")
            pos += (-pos) % 8
            hdr = dict((k, v) for k, v in fields)
            if hdr.get(5) != serial or mtype not in (2, 3):
                continue  # a signal, or someone else's reply
            body, value = data[pos:pos + body_len], None
            sig = hdr.get(8, "")
            if sig:
                try:
                    value, _ = unmarshal(body, 0, _split_sig(sig)[0])
                except Exception:
                    value = "(body not parsed)"
            return ("return" if mtype == 2 else "error", hdr.get(4), value)

    def call(self, dest, path, iface, member, sig, args, body=None):
        return self.receive(self.send(dest, path, iface, member, sig, args, body))


# ---- the cases ----

def bad_targets(foreign_pid, unprivileged):
    t = [
        ("empty", ""),
        ("dotdot", ".."),
        ("slash-dotdot", "/.."),
        ("escape-root", "/../../etc"),
        ("escape-from-slice", "/system.slice/../../etc"),
        ("mountpoint-path", "/sys/fs/cgroup/system.slice"),
        ("relative-dotdot", "../etc/passwd"),
        ("double-slash", "//"),
        ("dot-component", "/./init.scope"),
        ("trailing-slash", "/init.scope/"),
        ("unit-with-slash", "x/../y.service"),
        ("unit-with-space", "a b.service"),
        ("unit-glob", "*.service"),
        ("control-chars", "\t\n\x1b[31m.service"),
        ("unit-1MiB", "a" * MIB + ".service"),
        ("plain-1MiB", "a" * MIB),
        ("path-1MiB", "/" + "a" * MIB),
        ("path-deep", "/a" * 3000),
        ("invalid-utf8-unit", b"\xff\xfe.service"),
        ("invalid-utf8-overlong-dotdot", b"/\xc0\xae\xc0\xae/etc"),
        ("nul-inside", b"x\x00y.service"),
        ("pid-0", "0"),
        ("pid-minus-1", "-1"),
        ("pid-uint32-max", "4294967295"),
        ("pid-huge", "99999999999999999999"),
        ("pid-not-running", "2147483647"),
        ("pid-plus", "+1"),
        ("pid-space", " 1"),
        ("pid-hex", "0x1"),
    ]
    if unprivileged:
        # Valid in shape, but not the caller's: reads are open, changes are not.
        t.append(("pid-of-init", "1"))
        if foreign_pid:
            t.append(("pid-of-root-process", str(foreign_pid)))
    return t


def cases(group, unit, foreign_pid, unprivileged):
    """(name, interface, member, signature, args, must_fail, access_denied, bus_may_drop)"""
    out = []
    add = out.append
    # Wrong types and arities, for every method.
    for member, good in [("ListGroups", ""), ("GetGroup", "s"), ("ListMembers", "s"), ("Explain", "s"),
                         ("Assign", "ss"), ("Unassign", "ss"), ("Reload", ""), ("Dump", ""),
                         ("Subscribe", ""), ("Unsubscribe", "")]:
        for sig, args in [("i", [7]), ("u", [4294967295]), ("t", [2 ** 64 - 1]), ("b", [1]),
                          ("as", [[unit, group]]), ("ay", [[0xff] * 16]), ("v", [("s", unit)]),
                          ("(ss)", [[unit, group]]), ("a{sv}", [[[unit, ("s", group)]]]),
                          ("sss", [unit, group, "x"]), ("s", [unit]), ("", [])]:
            if sig == good:
                continue
            add((f"{member}({sig}) wrong type", IFACE, member, sig, args, True, False, False))
    # Malformed targets, for each method that takes one; and hostile group names.
    for name, target in bad_targets(foreign_pid, unprivileged):
        drop = isinstance(target, bytes)
        malformed = not name.startswith("pid-of-")
        add((f"Explain {name}", IFACE, "Explain", "s", [target], malformed, False, drop))
        add((f"Assign {name}", IFACE, "Assign", "ss", [target, group], True, unprivileged, drop))
        add((f"Unassign {name}", IFACE, "Unassign", "ss", [target, group], True, unprivileged, drop))
    for name, g in [("empty", ""), ("dotdot", ".."), ("path", "../../etc/passwd"), ("1MiB", "g" * MIB),
                    ("invalid-utf8", b"\xff\xfe"), ("nul", b"a\x00b"), ("control", "\x07\x1b[2J")]:
        drop = isinstance(g, bytes)
        for member in ("GetGroup", "ListMembers"):
            add((f"{member} group {name}", IFACE, member, "s", [g], True, False, drop))
        add((f"Assign {unit} to group {name}", IFACE, "Assign", "ss", [unit, g], True, unprivileged, drop))
        add((f"Unassign {unit} from group {name}", IFACE, "Unassign", "ss", [unit, g], True, unprivileged,
             drop))
    # Properties: all read-only; unknown names; a Set of each.
    for prop in ["Version", "DryRun", "NGroups", "NMembers", "LastReloadTimestamp", "NoSuchProperty", "a" * MIB]:
        add((f"Set {prop[:32]}", "org.freedesktop.DBus.Properties", "Set", "ssv",
             [IFACE, prop, ("b", 1) if prop == "DryRun" else ("s", "x")], True, False, False))
    add(("Get NoSuchProperty", "org.freedesktop.DBus.Properties", "Get", "ss", [IFACE, "NoSuchProperty"], True,
         False, False))
    add(("GetAll of an unknown interface 1MiB", "org.freedesktop.DBus.Properties", "GetAll", "s", ["x" * MIB],
         False, False, False))
    add(("unknown method", IFACE, "Frobnicate", "s", ["x"], True, False, False))
    if unprivileged:
        add(("Reload", IFACE, "Reload", "", [], True, True, False))
        add((f"Assign {unit} (a valid call)", IFACE, "Assign", "ss", [unit, group], True, True, False))
        add((f"Unassign {unit} (a valid call)", IFACE, "Unassign", "ss", [unit, group], True, True, False))
    return out


def random_string(rng):
    kind = rng.randrange(6)
    if kind == 0:  # path-like, with the components that matter
        parts = [rng.choice(["..", ".", "", "a", "system.slice", "init.scope", "\x01", "x" * 300])
                 for _ in range(rng.randrange(1, 8))]
        return "/" * rng.randrange(0, 2) + "/".join(parts)
    if kind == 1:  # unit-like
        return "".join(rng.choice("ab.-_@\\/*? \u00e9") for _ in range(rng.randrange(0, 40))) + \
            rng.choice([".service", ".scope", ".slice", ".socket", ".target", ""])
    if kind == 2:  # number-like
        return rng.choice(["", "-", "+", " "]) + str(rng.randrange(0, 2 ** rng.choice([8, 31, 32, 64, 70])))
    if kind == 3:  # valid UTF-8 of any plane, without noncharacters (older buses refuse them)
        cps = [rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0xd800), rng.randrange(0xe000, 0x110000)])
               for _ in range(rng.randrange(0, 64))]
        return "".join("x" if (c & 0xFFFE) == 0xFFFE or 0xFDD0 <= c <= 0xFDEF else chr(c) for c in cps)
    if kind == 4:  # raw bytes: the bus must refuse most of them
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    return "z" * rng.choice([4096, 65536, 262144])


def not_plain_utf8(x):
    """True where a value holds bytes that may not be valid UTF-8, or a NUL:
    the bus may refuse the message and drop the connection."""
    if isinstance(x, bytes):
        return True
    if isinstance(x, str):
        return "\0" in x
    if isinstance(x, (list, tuple)):
        return any(not_plain_utf8(e) for e in x)
    return False


def random_case(rng, group_prefix, unprivileged):
    member = rng.choice(["ListGroups", "GetGroup", "ListMembers", "Explain", "Assign", "Unassign", "Reload",
                         "Dump"])
    sig = rng.choice(["", "s", "ss", "sss", "i", "as", "v"])
    args = []
    for t in _split_sig(sig):
        if t == "s":
            args.append(random_string(rng))
        elif t == "i":
            args.append(rng.randrange(-2 ** 31, 2 ** 31))
        elif t == "as":
            args.append([random_string(rng) for _ in range(rng.randrange(4))])
        elif t == "v":
            args.append(("s", random_string(rng)))
    if member in ("Assign", "Unassign") and sig == "ss":
        # Never a loaded group: for root the call must fail whatever the target.
        args[1] = group_prefix + (args[1].hex() if isinstance(args[1], bytes) else args[1])
    drop = not_plain_utf8(args)
    expected_sig = {"ListGroups": "", "Dump": "", "Reload": "", "GetGroup": "s", "ListMembers": "s",
                    "Explain": "s", "Assign": "ss", "Unassign": "ss"}[member]
    must_fail = sig != expected_sig or member in MUTATING
    # Root may Reload: that changes nothing but the reload time. Not sent.
    if member == "Reload" and sig == "" and not unprivileged:
        member, must_fail = "Dump", False
    denied = unprivileged and member in MUTATING and sig == expected_sig
    short = repr(args)[:60]
    return (f"random {member}({sig}) {short}", IFACE, member, sig, args, must_fail, denied, drop)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bus", default="/run/dbus/system_bus_socket")
    ap.add_argument("--group", required=True, help="a loaded group")
    ap.add_argument("--unit", required=True, help="a unit in that group")
    ap.add_argument("--foreign-pid", type=int, default=0, help="a process of another user")
    ap.add_argument("--count", type=int, default=300, help="random calls at most")
    ap.add_argument("--seconds", type=float, default=60, help="time for the random calls at most")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=30)
    o = ap.parse_args()
    unprivileged = os.getuid() != 0
    seed = o.seed if o.seed is not None else int.from_bytes(os.urandom(4), "little")
    who = "uid %d" % os.getuid()
    print(f"# {who}, seed {seed}")
    rng = random.Random(seed)

    state = {"bus": Bus(o.bus, o.timeout), "failures": 0, "n": 0, "drops": 0}

    def fail(name, why):
        state["failures"] += 1
        print(f"FAIL {name}: {why}")

    def run(case):
        name, iface, member, sig, args, must_fail, denied, may_drop = case
        state["n"] += 1
        try:
            kind, err, value = state["bus"].call(BUS, PATH, iface, member, sig, args)
        except Disconnected as e:
            state["drops"] += 1
            if not may_drop:
                fail(name, f"the bus dropped us: {e}")
            else:
                print(f"ok {name}: the bus refused the message and dropped the connection")
            state["bus"] = Bus(o.bus, o.timeout)
        except TimeoutError as e:
            fail(name, f"{e} (policyd hung?)")
            state["bus"] = Bus(o.bus, o.timeout)
        else:
            text = (value if isinstance(value, str) else repr(value))[:100]
            if kind == "return" and must_fail:
                fail(name, f"accepted: {text}")
            elif denied and err != "org.freedesktop.DBus.Error.AccessDenied":
                fail(name, f"wanted AccessDenied, got {kind} {err}: {text}")
            else:
                print(f"ok {name}: {kind} {err or ''} {text}".rstrip())
        # Still there, and answering?
        try:
            kind, err, _ = state["bus"].call(BUS, PATH, "org.freedesktop.DBus.Peer", "Ping", "", [])
            if kind != "return":
                fail(name, f"policyd did not answer Ping afterwards: {err}")
        except (Disconnected, TimeoutError) as e:
            fail(name, f"policyd did not answer Ping afterwards: {e}")
            state["bus"] = Bus(o.bus, o.timeout)

    for case in cases(o.group, o.unit, o.foreign_pid, unprivileged):
        run(case)
    start = time.monotonic()
    n_random = 0
    while n_random < o.count and time.monotonic() - start < o.seconds:
        run(random_case(rng, "pgfuzz-nosuch-", unprivileged))
        n_random += 1
    print(f"# {state['n']} calls ({n_random} random, {time.monotonic() - start:.0f} s), "
          f"{state['drops']} refused by the bus, {state['failures']} failed")
    return 1 if state["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
