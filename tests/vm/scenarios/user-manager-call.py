#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Calls a systemd manager over a direct D-Bus connection, as systemctl does
over /run/systemd/private: EXTERNAL authentication, and, unless --hello, no
Hello (a manager's private socket is no bus, and has no org.freedesktop.DBus).

  user-manager-call.py [--hello] SOCKET GetUnit UNIT    prints the unit's object path
  user-manager-call.py [--hello] SOCKET ListUnits       prints one unit name a line

Exits 1 with the error name and message when the call fails or the
connection is refused.
"""
import argparse
import os
import socket
import struct
import sys

MANAGER = ("org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager")


def pad(buf, n):
    buf.extend(b"\0" * ((-len(buf)) % n))


def put_string(buf, code, s):
    """A string-like value: 's' and 'o' have a u32 length, 'g' a byte."""
    b = s.encode()
    if code == "g":
        buf.extend(struct.pack("<B", len(b)) + b + b"\0")
    else:
        pad(buf, 4)
        buf.extend(struct.pack("<I", len(b)) + b + b"\0")


def message(serial, dest, path, iface, member, args):
    body = bytearray()
    for a in args:
        put_string(body, "s", a)
    fields = [(1, "o", path), (2, "s", iface), (3, "s", member)]
    if dest:
        fields.append((6, "s", dest))
    if args:
        fields.append((8, "g", "s" * len(args)))
    h = bytearray(b"l\x01\x00\x01")
    h.extend(struct.pack("<II", len(body), serial))
    arr = bytearray()
    for code, sig, value in fields:
        pad(arr, 8)
        arr.extend(struct.pack("<B", code))
        put_string(arr, "g", sig)
        put_string(arr, sig, value)
    h.extend(struct.pack("<I", len(arr)))
    pad(h, 8)  # the array's elements are structs, aligned to 8
    h.extend(arr)
    pad(h, 8)
    return bytes(h) + bytes(body)


def get_string(data, pos, code):
    if code == "g":
        n = data[pos]
        return data[pos + 1:pos + 1 + n].decode(), pos + 2 + n
    pos += (-pos) % 4
    n = struct.unpack_from("<I", data, pos)[0]
    return data[pos + 4:pos + 4 + n].decode(), pos + 5 + n


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        # AUTH and BEGIN in one write, then the first message only once OK
        # is read, as sd-bus does: the server then has left the auth phase
        # before that message arrives. A message sent right behind a late
        # BEGIN was seen to go unanswered (systemd 257), as if read with
        # BEGIN and then left in the server's buffer.
        self.sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\nBEGIN\r\n")
        self.buf = b""
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError(f"the manager closed the connection during authentication: {self.buf!r}")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\r\n")
        if not line.startswith(b"OK "):
            raise RuntimeError(f"authentication refused: {line!r}")
        self.serial = 0

    def recv_exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("the manager closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def call(self, dest, path, iface, member, args):
        """Returns (is_error, header fields, body, position of the body)."""
        self.serial += 1
        self.sock.sendall(message(self.serial, dest, path, iface, member, args))
        while True:
            fixed = self.recv_exact(16)
            mtype = fixed[1]
            body_len, _, fields_len = struct.unpack_from("<III", fixed, 4)
            data = fixed + self.recv_exact(fields_len + (-(16 + fields_len)) % 8 + body_len)
            fields, pos = {}, 16
            while pos < 16 + fields_len:
                pos += (-pos) % 8
                code = data[pos]
                sig, pos = get_string(data, pos + 1, "g")
                if sig in ("s", "o", "g"):
                    fields[code], pos = get_string(data, pos, sig)
                else:  # 'u': the reply serial
                    pos += (-pos) % 4
                    fields[code] = struct.unpack_from("<I", data, pos)[0]
                    pos += 4
            pos += (-pos) % 8
            if mtype in (2, 3) and fields.get(5) == self.serial:
                return mtype == 3, fields, data, pos


def list_units(data, pos, end):
    """a(ssssssouso): the first string of each struct."""
    pos += (-pos) % 4
    n = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    pos += (-pos) % 8
    stop, names = pos + n, []
    while pos < stop:
        pos += (-pos) % 8
        fields = []
        for code in "ssssssouso":
            if code == "u":
                pos += (-pos) % 4
                fields.append(struct.unpack_from("<I", data, pos)[0])
                pos += 4
            else:
                value, pos = get_string(data, pos, code)
                fields.append(value)
        names.append(fields[0])
    return names


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hello", action="store_true", help="send Hello first, as a bus client does")
    p.add_argument("socket")
    p.add_argument("method", choices=["GetUnit", "ListUnits"])
    p.add_argument("unit", nargs="?")
    a = p.parse_args()
    try:
        conn = Connection(a.socket)
        if a.hello:
            err, fields, data, pos = conn.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                               "org.freedesktop.DBus", "Hello", [])
            if err:
                msg = get_string(data, pos, "s")[0] if fields.get(8, "").startswith("s") else ""
                print(f"Hello: {fields.get(4)}: {msg}", file=sys.stderr)
                return 1
        args = [a.unit] if a.method == "GetUnit" else []
        err, fields, data, pos = conn.call(None, MANAGER[1], MANAGER[2], a.method, args)
    except (OSError, RuntimeError) as e:
        print(f"{a.socket}: {e}", file=sys.stderr)
        return 1
    if err:
        msg = get_string(data, pos, "s")[0] if fields.get(8, "").startswith("s") else ""
        print(f"{a.method}: {fields.get(4)}: {msg}", file=sys.stderr)
        return 1
    if a.method == "GetUnit":
        print(get_string(data, pos, "o")[0])
    else:
        print("\n".join(list_units(data, pos, len(data))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
