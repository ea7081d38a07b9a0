#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A client of the injector helper, as policyd speaks to it: connects to
policyd-inject.socket, sends one request line with a pidfd of the target
attached (SCM_RIGHTS), and prints the reply line.

    inject-client.py [--socket PATH] [--no-pidfd] PID [KEY=VALUE...]

The request is "pid=PID KEY=VALUE...". Exit status: 0 with a reply, 1 with
none, 3 when the socket refused the connection (its mode)."""
import argparse
import os
import socket
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--socket", default="/run/policyd-inject.socket")
parser.add_argument("--no-pidfd", action="store_true", help="attach no pidfd")
parser.add_argument("pid", type=int)
parser.add_argument("fields", nargs="*")
args = parser.parse_args()

line = " ".join([f"pid={args.pid}"] + args.fields) + "\n"
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    sock.connect(args.socket)
except PermissionError as e:
    print(f"connect {args.socket}: {e}")
    sys.exit(3)
fds = [] if args.no_pidfd else [os.pidfd_open(args.pid)]
try:
    socket.send_fds(sock, [line.encode()], fds)
    sock.shutdown(socket.SHUT_WR)
except (BrokenPipeError, ConnectionResetError):
    pass  # the helper may have answered already: read what it said
reply = b""
while not reply.endswith(b"\n"):
    chunk = sock.recv(8192)
    if not chunk:
        break
    reply += chunk
sys.stdout.write(reply.decode(errors="replace"))
sys.exit(0 if reply.endswith(b"\n") else 1)
