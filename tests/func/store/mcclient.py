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
  mcclient.py set KEY LEN    store one LEN-byte value under KEY and print
                             the reply line (EOF if the connection ended
                             first) and the ms it took, "STORED 312"
  mcclient.py append KEY LEN as set, with "append KEY 0 0 LEN"
  mcclient.py flood N CMD    send N pipelined commands, CMD with {i}
                             replaced by the number (CR LF added), then a
                             "mn" and read until its "MN": prints
                             "done BYTES" (bytes of replies read)
  mcclient.py setloop N LEN  N connections, each in its own thread,
                             store LEN-byte values under keys of their
                             own ("sl{conn}.{i % 8}"), one SET after
                             the other, until the server goes away or
                             stdin reaches EOF. Prints "ready" once every
                             connection has had a SET stored, then at the
                             end "done SETS ERRORS SERVER_ERRORS": STORED
                             replies, replies that were neither STORED
                             nor a SERVER_ERROR, and SERVER_ERROR replies
                             (out of memory, ...), counted apart (a
                             connection that just ends is no error: the
                             module is being unloaded)
"""

import select
import socket
import sys
import threading
import time

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
    """Half a SET, then a byte every 10 s until stdin ends: the server
    closes a SET whose data stops for write_timeout (60 s), which a group
    on the debug kernel outlasts; the value never completes."""
    s = socket.create_connection(ADDR)
    s.sendall(b"set %s 0 0 %d\r\n" % (key.encode(), n) + b"p" * (n // 2))
    sent = n // 2
    print("ready", flush=True)
    while True:
        r, _, _ = select.select([sys.stdin], [], [], 10)
        if r:
            if not sys.stdin.read():
                break
            continue
        if sent < n - 1:
            s.sendall(b"p")
            sent += 1
    s.close()


def setone(key, n, cmd="set"):
    s = socket.create_connection(ADDR)
    s.settimeout(120)
    f = s.makefile("rb")
    t0 = time.monotonic()
    try:
        s.sendall(b"%s %s 0 0 %d\r\n" % (cmd.encode(), key.encode(), n) +
                  b"s" * n + b"\r\n")
        line = f.readline().decode(errors="replace").strip()
    except OSError:
        line = ""
    ms = int((time.monotonic() - t0) * 1000)
    print("%s %d" % (line.replace(" ", "_") or "EOF", ms), flush=True)
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


def setloop(n, ln):
    stop = threading.Event()
    first = threading.Semaphore(0)
    stored = [0] * n
    errors = [0] * n
    server_errors = [0] * n

    def conn(c):
        told = False
        try:
            s = socket.create_connection(ADDR)
            s.settimeout(60)
            f = s.makefile("rb")
            i = 0
            while not stop.is_set():
                val = bytes([(c * 7 + i) & 0xff]) * ln
                s.sendall(b"set sl%d.%d 0 0 %d\r\n" % (c, i % 8, ln) + val +
                          b"\r\n")
                line = f.readline()
                if not line:
                    break
                if line == b"STORED\r\n":
                    stored[c] += 1
                    if not told:
                        told = True
                        first.release()
                elif line.startswith(b"SERVER_ERROR"):
                    server_errors[c] += 1
                else:
                    errors[c] += 1
                i += 1
        except OSError:
            pass
        if not told:
            first.release()

    threads = [threading.Thread(target=conn, args=(c,)) for c in range(n)]
    for t in threads:
        t.start()
    for _ in range(n):
        first.acquire()
    print("ready", flush=True)
    sys.stdin.read()
    stop.set()
    for t in threads:
        t.join()
    print("done %d %d %d" % (sum(stored), sum(errors), sum(server_errors)),
          flush=True)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "stuck":
        stuck(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "partial":
        partial(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] in ("set", "append"):
        setone(sys.argv[2], int(sys.argv[3]), sys.argv[1])
    elif len(sys.argv) == 4 and sys.argv[1] == "flood":
        flood(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "setloop":
        setloop(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
