#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fake user manager, for scenario 95-trust-user-manager-peer: what a user
can serve on their own /run/user/UID/systemd/private. Speaks the server side
of a direct D-Bus connection (EXTERNAL authentication, no bus daemon), as
systemd --user does to root's systemctl, and reports one running unit whose
ControlGroup is whatever it is told: a root service's cgroup, outside the
user's subtree.

  fake-user-manager.py SOCKET UNIT CGROUP LOG

Answers Subscribe, ListUnits (UNIT, active), GetAll of the Unit interface,
Get of ControlGroup, Slice, Delegate and MemorySwapMax, and takes
SetUnitProperties; anything else gets UnknownProperty or UnknownMethod.
Writes one line per connection and per call to LOG. Serves connections one
after the other until killed.
"""
import os
import socket
import struct
import sys

UNIT_PATH_PREFIX = "/org/freedesktop/systemd1/unit/"


def unit_path(unit):
    out = []
    for c in unit:
        out.append(c if c.isalnum() else "_%02x" % ord(c))
    return UNIT_PATH_PREFIX + "".join(out)


# ---- marshalling: alignment counts from the body's start, which the
# message puts at a multiple of 8 ----

ALIGN = {"y": 1, "b": 4, "u": 4, "i": 4, "t": 8, "x": 8, "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1}


def split_types(sig):
    """'a(su)sv' -> ['a(su)', 's', 'v']"""
    out, i = [], 0
    while i < len(sig):
        j = i
        while sig[j] == "a":
            j += 1
        if sig[j] in "({":
            depth, k = 0, j
            while True:
                if sig[k] in "({":
                    depth += 1
                elif sig[k] in ")}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            j = k
        out.append(sig[i:j + 1])
        i = j + 1
    return out


def pad(buf, n):
    buf.extend(b"\0" * ((-len(buf)) % n))


def put(buf, t, v):
    c = t[0]
    pad(buf, ALIGN[c])
    if c == "y":
        buf.extend(struct.pack("<B", v))
    elif c == "b":
        buf.extend(struct.pack("<I", 1 if v else 0))
    elif c == "u":
        buf.extend(struct.pack("<I", v))
    elif c == "t":
        buf.extend(struct.pack("<Q", v))
    elif c in "so":
        b = v.encode()
        buf.extend(struct.pack("<I", len(b)) + b + b"\0")
    elif c == "g":
        b = v.encode()
        buf.extend(struct.pack("<B", len(b)) + b + b"\0")
    elif c == "v":
        sig, value = v
        put(buf, "g", sig)
        put(buf, sig, value)
    elif c == "a":
        elem = t[1:]
        at = len(buf)
        buf.extend(b"\0\0\0\0")
        pad(buf, ALIGN[elem[0]])
        start = len(buf)
        items = v.items() if elem[0] == "{" else v
        for item in items:
            put(buf, elem, item)
        struct.pack_into("<I", buf, at, len(buf) - start)
    elif c in "({":
        for tt, vv in zip(split_types(t[1:-1]), v):
            put(buf, tt, vv)
    else:
        raise ValueError(t)


def message(mtype, serial, fields, sig, args):
    body = bytearray()
    for t, v in zip(split_types(sig), args):
        put(body, t, v)
    if sig:
        fields = fields + [(8, ("g", sig))]
    h = bytearray(b"l" + bytes([mtype, 0, 1]))
    h.extend(struct.pack("<II", len(body), serial))
    put(h, "a(yv)", fields)
    pad(h, 8)
    return bytes(h) + bytes(body)


def get_string(data, pos, code):
    if code == "g":
        n = data[pos]
        return data[pos + 1:pos + 1 + n].decode(), pos + 2 + n
    pos += (-pos) % 4
    n = struct.unpack_from("<I", data, pos)[0]
    return data[pos + 4:pos + 4 + n].decode(), pos + 5 + n


class Peer:
    def __init__(self, sock, log):
        self.sock, self.log, self.buf, self.serial = sock, log, b"", 0

    def recv(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def auth(self):
        while True:
            while b"\r\n" not in self.buf:
                self.recv()
            line, _, self.buf = self.buf.partition(b"\r\n")
            line = line.lstrip(b"\0")
            if line.startswith(b"AUTH EXTERNAL"):
                self.sock.sendall(b"OK 0123456789abcdef0123456789abcdef\r\n" if line.strip() != b"AUTH EXTERNAL"
                                  else b"DATA\r\n")
            elif line.startswith(b"DATA"):
                self.sock.sendall(b"OK 0123456789abcdef0123456789abcdef\r\n")
            elif line.startswith(b"NEGOTIATE_UNIX_FD"):
                self.sock.sendall(b"AGREE_UNIX_FD\r\n")
            elif line.startswith(b"BEGIN"):
                return
            else:
                self.sock.sendall(b"ERROR\r\n")

    def read_message(self):
        while len(self.buf) < 16:
            self.recv()
        body_len, serial, fields_len = struct.unpack_from("<III", self.buf, 4)
        total = 16 + fields_len + (-(16 + fields_len)) % 8 + body_len
        while len(self.buf) < total:
            self.recv()
        data, self.buf = self.buf[:total], self.buf[total:]
        fields, pos = {}, 16
        while pos < 16 + fields_len:
            pos += (-pos) % 8
            code = data[pos]
            sig, pos = get_string(data, pos + 1, "g")
            if sig in ("s", "o", "g"):
                fields[code], pos = get_string(data, pos, sig)
            elif sig == "u":
                pos += (-pos) % 4
                fields[code] = struct.unpack_from("<I", data, pos)[0]
                pos += 4
            else:
                raise ValueError(f"header field of type {sig}")
        pos += (-pos) % 8
        return data[1], serial, fields, data, pos

    def send(self, mtype, reply_to, sig="", args=(), error=None):
        self.serial += 1
        fields = [(5, ("u", reply_to))]
        if error:
            fields.append((4, ("s", error)))
        self.sock.sendall(message(mtype, self.serial, fields, sig, list(args)))

    def reply(self, serial, sig="", args=()):
        self.send(2, serial, sig, args)

    def error(self, serial, name, text):
        self.send(3, serial, "s", [text], error=name)


def serve(peer, unit, cgroup):
    path = unit_path(unit)
    peer.auth()
    while True:
        mtype, serial, fields, data, pos = peer.read_message()
        if mtype != 1:
            continue
        member, sig = fields.get(3, ""), fields.get(8, "")
        args = []
        for t in sig:
            if t not in "so":
                break
            value, pos = get_string(data, pos, t)
            args.append(value)
        print(f"call {member} {' '.join(args)}", file=peer.log, flush=True)
        if member == "Subscribe":
            peer.reply(serial)
        elif member == "ListUnits":
            peer.reply(serial, "a(ssssssouso)",
                       [[(unit, "", "loaded", "active", "running", "", path, 0, "", "/")]])
        elif member == "GetAll":
            peer.reply(serial, "a{sv}", [{
                "ActiveState": ("s", "active"),
                "FragmentPath": ("s", ""),
                "DropInPaths": ("as", []),
                "Transient": ("b", True),
            }])
        elif member == "Get" and len(args) == 2 and args[1] in ("ControlGroup", "Slice", "Delegate",
                                                                  "MemorySwapMax"):
            value = {
                "ControlGroup": ("s", cgroup),
                "Slice": ("s", "app.slice"),
                "Delegate": ("b", False),
                "MemorySwapMax": ("t", 2**64 - 1),
            }[args[1]]
            peer.reply(serial, "v", [value])
        elif member == "Get":
            peer.error(serial, "org.freedesktop.DBus.Error.UnknownProperty", "Unknown property")
        elif member == "SetUnitProperties":
            peer.reply(serial)
        else:
            peer.error(serial, "org.freedesktop.DBus.Error.UnknownMethod", f"Unknown method {member}")


def main():
    sock_path, unit, cgroup, log_path = sys.argv[1:5]
    log = open(log_path, "a")
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(16)
    print("listening", file=log, flush=True)
    while True:
        conn, _ = srv.accept()
        conn.settimeout(60)
        print("connection", file=log, flush=True)
        try:
            serve(Peer(conn, log), unit, cgroup)
        except (EOFError, OSError, ValueError, struct.error) as e:
            print(f"closed: {e!r}", file=log, flush=True)
        conn.close()


if __name__ == "__main__":
    main()
