#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Counts the files written in some directories, with inotify, until SIGTERM.

  count-writes.py READY-FILE DIR...

Touches READY-FILE once the watches are in place. On SIGTERM prints one
line "DIR/NAME COUNT" for each file written, where a write is a file closed
after writing or renamed into place (an atomic write, as systemd writes its
drop-ins, renames a temporary file: that counts once, under the final
name). Scenario 90 watches /run/systemd/system.control/UNIT.d with it: each
SetUnitProperties(runtime=true) that systemd applies rewrites the drop-in
50-PROPERTY.conf there, so the count is how often systemd applied a
property, whoever asked.
"""
import ctypes
import os
import signal
import struct
import sys

IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
IN_NONBLOCK = 0o4000

libc = ctypes.CDLL(None, use_errno=True)


def main():
    ready, dirs = sys.argv[1], sys.argv[2:]
    fd = libc.inotify_init1(0)
    if fd < 0:
        sys.exit("inotify_init1: " + os.strerror(ctypes.get_errno()))
    wds = {}
    for d in dirs:
        wd = libc.inotify_add_watch(fd, d.encode(), IN_CLOSE_WRITE | IN_MOVED_TO)
        if wd < 0:
            sys.exit(f"inotify_add_watch {d}: " + os.strerror(ctypes.get_errno()))
        wds[wd] = d
    counts = {}

    class Stop(Exception):
        pass

    def on_term(*_):
        raise Stop()

    signal.signal(signal.SIGTERM, on_term)
    open(ready, "w").close()

    def drain(data):
        pos = 0
        while pos + 16 <= len(data):
            wd, mask, _, length = struct.unpack_from("iIII", data, pos)
            name = data[pos + 16:pos + 16 + length].rstrip(b"\0").decode(errors="replace")
            pos += 16 + length
            if name.startswith(".#") or name.endswith("~"):
                continue  # a temporary file, renamed into place later
            key = wds.get(wd, "?") + "/" + name
            counts[key] = counts.get(key, 0) + 1

    try:
        while True:
            drain(os.read(fd, 65536))
    except Stop:
        pass
    # What arrived after the last read.
    os.set_blocking(fd, False)
    while True:
        try:
            drain(os.read(fd, 65536))
        except BlockingIOError:
            break
    for key in sorted(counts):
        print(key, counts[key])


if __name__ == "__main__":
    main()
