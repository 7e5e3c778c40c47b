#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile memcache clients for tests/func/store/run (goblin.ko must listen
on 127.0.0.1:11211).

  mcclient.py stuck KEY...   ask for every KEY with a 4 KiB receive buffer
                             and never read: the server holds the objects
                             (and socket buffers their pages). Prints
                             "ready" once the request is out, closes when
                             stdin reaches EOF.
  mcclient.py partial KEY LEN
                             start "set KEY 0 0 LEN", send half of the
                             value and stop: the server holds the
                             allocated object. Prints "ready", closes when
                             stdin reaches EOF.
  mcclient.py flood N CMD    send N pipelined commands, CMD with {i}
                             replaced by the number (CR LF added), then a
                             "mn" and read until its "MN": prints
                             "done BYTES" (bytes of replies read)
"""

import select
import socket
import sys

ADDR = ("127.0.0.1", 11211)


def stuck(keys):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(ADDR)
    s.sendall(("get %s\r\n" % " ".join(keys)).encode())
    print("ready", flush=True)
    sys.stdin.read()
    s.close()


def partial(key, n):
    s = socket.create_connection(ADDR)
    s.sendall(b"set %s 0 0 %d\r\n" % (key.encode(), n) + b"p" * (n // 2))
    print("ready", flush=True)
    sys.stdin.read()
    s.close()


def drain(s, got):
    """Read what the server has sent so far without waiting."""
    while select.select([s], [], [], 0)[0]:
        data = s.recv(65536)
        if not data:
            return False
        got += data
    return True


def flood(n, cmd):
    s = socket.create_connection(ADDR)
    s.settimeout(120)
    got = bytearray()
    batch = []
    for i in range(n):
        batch.append(cmd.replace("{i}", str(i)) + "\r\n")
        if len(batch) == 256 or i == n - 1:
            s.sendall("".join(batch).encode())
            batch = []
            drain(s, got)
    s.sendall(b"mn\r\n")
    while not got.endswith(b"MN\r\n"):
        data = s.recv(65536)
        if not data:
            break
        got += data
    s.close()
    print("done %d" % len(got), flush=True)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "stuck":
        stuck(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "partial":
        partial(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "flood":
        flood(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
