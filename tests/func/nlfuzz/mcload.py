#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""memcache helper of the nlfuzz suite (tests/func/nlfuzz/run).

  mcload.py seed N          store nlfuzz:0 .. nlfuzz:N-1 (the keys nlfuzz
                            asks OBJ_GET for)
  mcload.py load SECONDS    SET/GET/DELETE traffic for SECONDS while the
                            fuzzer reconfigures the store under it; errors
                            (refused values, a deleted listener) are counted,
                            never fatal
  mcload.py check           byte-exact SET/GET round trips (1 KiB, 200 KiB);
                            exit 1 on a mismatch

Server: 127.0.0.1:11211 (MC_PORT overrides the port).
"""

import os
import random
import socket
import sys
import time

ADDR = ("127.0.0.1", int(os.environ.get("MC_PORT", "11211")))


class Conn:
    def __init__(self):
        self.s = socket.create_connection(ADDR, timeout=30)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def exact(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def set(self, key, value):
        self.s.sendall(b"set %s 0 0 %d\r\n%s\r\n" % (key, len(value), value))
        return self.line()

    def get(self, key):
        self.s.sendall(b"get %s\r\n" % key)
        line = self.line()
        if line == b"END":
            return None
        parts = line.split()
        if len(parts) != 4 or parts[0] != b"VALUE" or parts[1] != key:
            raise ValueError("bad reply %r" % line)
        value = self.exact(int(parts[3]) + 2)[:-2]
        if self.line() != b"END":
            raise ValueError("no END after the value")
        return value

    def delete(self, key):
        self.s.sendall(b"delete %s\r\n" % key)
        return self.line()


def seed(n):
    c = Conn()
    for i in range(n):
        reply = c.set(b"nlfuzz:%d" % i, b"v%d" % i * (i + 1))
        if reply != b"STORED":
            print("seed: nlfuzz:%d: %r" % (i, reply), file=sys.stderr)
            return 1
    return 0


def load(secs):
    rnd = random.Random(secs)
    end = time.monotonic() + secs
    ops = errors = 0
    c = None
    while time.monotonic() < end:
        try:
            if c is None:
                c = Conn()
            key = b"load:%d" % rnd.randrange(64)
            op = rnd.randrange(4)
            if op == 0:
                c.delete(key)
            elif op == 1:
                c.get(key)
            else:
                size = rnd.choice([0, 1, 100, 4096, 70000, 300000])
                c.set(key, bytes([rnd.randrange(256)]) * size)
            ops += 1
        except (OSError, ValueError):
            errors += 1
            c = None
            time.sleep(0.2)
    print("# load: %d operations, %d errors" % (ops, errors))
    return 0


def check():
    c = Conn()
    rnd = random.Random()
    for size in (1024, 200 * 1024):
        key = b"nlfuzz:check:%d" % size
        value = bytes(rnd.randrange(256) for _ in range(size))
        reply = c.set(key, value)
        if reply != b"STORED":
            print("check: set %d bytes: %r" % (size, reply), file=sys.stderr)
            return 1
        got = c.get(key)
        if got != value:
            print("check: %d bytes: got %s" %
                  (size, "a miss" if got is None else "%d other bytes" %
                   len(got)), file=sys.stderr)
            return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "seed":
        return seed(int(argv[2]))
    if len(argv) == 3 and argv[1] == "load":
        return load(float(argv[2]))
    if len(argv) == 2 and argv[1] == "check":
        return check()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
