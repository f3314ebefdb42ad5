#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Stand in for the dataplane as an FPM server and record what zebra sends.

    fpm_capture.py [--addr 127.0.0.1] [--port 2620] OUT

zebra (-M dplane_fpm_nl) connects as the client. Every frame it sends is
written to OUT as one line of lowercase hex (FPM header included), flushed
at once so that a script driving zebra can watch the file grow. SIGUSR1
writes a line "# mark" so that the driver can cut the stream into
scenarios; SIGTERM/SIGINT end the capture. A reconnect (zebra replays
everything) is noted as "# connect". The framing is only split here, on
the header's length; judging the frames is the C parser's job, so a frame
with a bad header is written as it is and the connection is dropped.
"""

import argparse
import signal
import socket
import sys

HDR = 4


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--addr', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=2620)
    ap.add_argument('out')
    args = ap.parse_args()

    out = open(args.out, 'a', buffering=1)

    def mark(_sig, _frm):
        out.write('# mark\n')

    def stop(_sig, _frm):
        out.close()
        sys.exit(0)

    signal.signal(signal.SIGUSR1, mark)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    fam = socket.AF_INET6 if ':' in args.addr else socket.AF_INET
    srv = socket.socket(fam, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.addr, args.port))
    srv.listen(1)
    while True:
        conn, _ = srv.accept()
        out.write('# connect\n')
        buf = b''
        alive = True
        while alive:
            try:
                data = conn.recv(65536)
            except InterruptedError:
                continue
            if not data:
                break
            buf += data
            while len(buf) >= HDR:
                flen = int.from_bytes(buf[2:4], 'big')
                if buf[0] != 1 or buf[1] != 1 or flen < HDR:
                    out.write(buf.hex() + '\n')
                    out.write('# bad header, connection dropped\n')
                    alive = False
                    break
                if len(buf) < flen:
                    break
                out.write(buf[:flen].hex() + '\n')
                buf = buf[flen:]
        conn.close()


if __name__ == '__main__':
    main()
