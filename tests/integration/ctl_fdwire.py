#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Descriptors on the control socket (test_vrf_exec.sh).

  ctl_fdwire.py SOCK WORD...
        Send the words as one request (not through tepctl: nothing is
        added or checked), read the final reply and any descriptors that
        came with it (SCM_RIGHTS). Prints one JSON line:
        {"status", "body", "fds": [{"dev", "ino"}, ...]}.
  ctl_fdwire.py --fake-server PATH NSFILE UID SECONDS
        A server that is not tepd: opens NSFILE (a network namespace),
        becomes UID, listens on PATH, and answers every request with
        "NAME N" (N: the descriptor's number, as tepd before SCM_RIGHTS
        did) and the descriptor itself attached, for SECONDS. Prints
        the number of requests it answered.
"""
import array
import json
import os
import socket
import struct
import sys
import time


def frame(words):
    payload = bytes([1, 0]) + b"".join(w.encode() + b"\0" for w in words)
    return struct.pack("!I", len(payload)) + payload


def client(path, words):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    s.sendall(frame(words))
    buf, fds = b"", []
    space = socket.CMSG_SPACE(8 * array.array("i").itemsize)
    while len(buf) < 4 or len(buf) < 4 + struct.unpack("!I", buf[:4])[0]:
        data, anc, _flags, _addr = s.recvmsg(65536, space)
        if not data:
            break
        buf += data
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                a = array.array("i")
                a.frombytes(cdata[:len(cdata) - len(cdata) % a.itemsize])
                fds.extend(a)
    out = {"status": None, "body": None, "fds": []}
    if len(buf) >= 10:
        out["status"] = struct.unpack("!I", buf[6:10])[0]
        out["body"] = buf[10:4 + struct.unpack("!I", buf[:4])[0]].decode()
    for fd in fds:
        st = os.fstat(fd)
        out["fds"].append({"dev": st.st_dev, "ino": st.st_ino})
        os.close(fd)
    print(json.dumps(out))


def fake_server(path, nsfile, uid, seconds):
    nsfd = os.open(nsfile, os.O_RDONLY)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(4)
    ls.settimeout(0.2)
    end = time.monotonic() + seconds
    answered = 0
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        c.settimeout(2)
        try:
            hdr = c.recv(4, socket.MSG_WAITALL)
            if len(hdr) == 4:
                c.recv(struct.unpack("!I", hdr)[0], socket.MSG_WAITALL)
                body = ("fake-ns %d\n" % nsfd).encode()
                reply = struct.pack("!I", 6 + len(body)) + \
                    bytes([1, 0, 0, 0, 0, 0]) + body
                c.sendmsg([reply], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                     array.array("i", [nsfd]))])
                answered += 1
                time.sleep(0.5)   # the old tepctl opens /proc/PID/fd/N
        except OSError:
            pass
        c.close()
    print(answered)


if __name__ == "__main__":
    if sys.argv[1] == "--fake-server":
        fake_server(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                    float(sys.argv[5]))
    else:
        client(sys.argv[1], sys.argv[2:])
