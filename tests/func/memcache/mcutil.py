# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the Goblin Store memcache functional tests.

Everything here talks to servers on the loopback interface only.
"""

import os
import re
import socket
import subprocess
import sys
import time

DEFAULT_TIMEOUT = float(os.environ.get("GOBLIN_MC_TIMEOUT", "30"))

SENTINEL = b"version\r\n"
_SENTINEL_RE = re.compile(rb"VERSION [^\r\n]*\r\n\Z")


def parse_addr(s):
    """'host:port' -> (host, port)."""
    host, _, port = s.rpartition(":")
    return (host or "127.0.0.1", int(port))


def wait_port(addr, timeout=30.0):
    """Wait until a TCP connect to @addr succeeds. Returns True/False."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            s = socket.create_connection(addr, timeout=2)
            s.close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def port_closed(addr):
    try:
        s = socket.create_connection(addr, timeout=2)
        s.close()
        return False
    except OSError:
        return True


class Conn:
    """A raw memcache text-protocol connection."""

    def __init__(self, addr, timeout=DEFAULT_TIMEOUT):
        self.addr = addr
        self.timeout = timeout
        self.sock = socket.create_connection(addr, timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.eof = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def read_until_sentinel(self):
        """Read until the reply to SENTINEL ('VERSION ...') ends the buffer.

        Returns (reply_without_sentinel, status) where status is 'ok',
        'eof' or 'timeout'.
        """
        buf = bytearray()
        while True:
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                return bytes(buf), "timeout"
            except OSError:
                self.eof = True
                return bytes(buf), "eof"
            if not chunk:
                self.eof = True
                return bytes(buf), "eof"
            buf += chunk
            tail = bytes(buf[-256:])
            m = _SENTINEL_RE.search(tail)
            if m:
                cut = len(buf) - (len(tail) - m.start())
                return bytes(buf[:cut]), "ok"

    def request(self, data):
        """Send @data plus the sentinel; return (reply, status)."""
        try:
            self.send(data + SENTINEL)
        except OSError:
            self.eof = True
            return b"", "eof"
        return self.read_until_sentinel()

    def read_line(self):
        buf = bytearray()
        while not buf.endswith(b"\r\n"):
            c = self.sock.recv(1)
            if not c:
                raise EOFError("connection closed")
            buf += c
        return bytes(buf)

    def read_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            c = self.sock.recv(min(n - len(buf), 1 << 20))
            if not c:
                raise EOFError("connection closed")
            buf += c
        return bytes(buf)

    def cmd(self, line):
        """Send one command line and return the first reply line."""
        self.send(line + b"\r\n")
        return self.read_line()

    def set(self, key, value, flags=0, exptime=0, cmd=b"set"):
        self.send(b"%s %s %d %d %d\r\n" % (cmd, key, flags, exptime,
                                           len(value)) + value + b"\r\n")
        return self.read_line()

    def get(self, key):
        """Return the value or None on a miss."""
        self.send(b"get " + key + b"\r\n")
        line = self.read_line()
        if line == b"END\r\n":
            return None
        m = re.match(rb"VALUE (\S+) (\d+) (\d+)\r\n", line)
        if not m:
            raise ValueError("bad get reply: %r" % line[:200])
        n = int(m.group(3))
        data = self.read_exact(n + 2)
        end = self.read_line()
        if data[-2:] != b"\r\n" or end != b"END\r\n":
            raise ValueError("bad get framing")
        return data[:-2]

    def stats(self, arg=b""):
        self.send(b"stats" + (b" " + arg if arg else b"") + b"\r\n")
        out = {}
        while True:
            line = self.read_line()
            if line == b"END\r\n":
                return out
            parts = line.decode("latin-1").split()
            if len(parts) >= 3 and parts[0] == "STAT":
                out[parts[1]] = " ".join(parts[2:])
            else:
                raise ValueError("bad stats line %r" % line)


class Tap:
    """Minimal TAP producer with a known plan."""

    def __init__(self, out=sys.stdout):
        self.n = 0
        self.failed = 0
        self.out = out

    def plan(self, count):
        self.out.write("1..%d\n" % count)
        self.out.flush()

    def diag(self, msg):
        for line in str(msg).splitlines() or [""]:
            self.out.write("# %s\n" % line)
        self.out.flush()

    def result(self, ok, name, diag=None, skip=None):
        self.n += 1
        name = name.replace("#", "\\#")
        if skip is not None:
            self.out.write("ok %d - %s # SKIP %s\n" % (self.n, name, skip))
        else:
            self.out.write("%s %d - %s\n" % ("ok" if ok else "not ok",
                                             self.n, name))
            if not ok:
                self.failed += 1
        if diag and (not ok or skip is not None):
            self.diag(diag)
        self.out.flush()
        return ok


def kmsg_mark():
    """Return the current number of bytes of dmesg output (for diffs)."""
    try:
        return len(subprocess.run(["dmesg"], capture_output=True,
                                  check=False).stdout)
    except OSError:
        return 0


def kmsg_since(mark):
    try:
        out = subprocess.run(["dmesg"], capture_output=True,
                             check=False).stdout
    except OSError:
        return ""
    return out[mark:].decode("utf-8", "replace")


def sh(cmd, check=False):
    """Run a command list; return CompletedProcess with text output."""
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def start_memcached(port, memory_mb=64, item_max="16m", extra=()):
    """Start Debian's memcached on 127.0.0.1:@port; return the Popen."""
    args = ["/usr/bin/memcached", "-l", "127.0.0.1", "-p", str(port),
            "-U", "0", "-m", str(memory_mb), "-I", item_max, "-c", "1024",
            "-t", "2"]
    if os.geteuid() == 0:
        args += ["-u", "root"]
    args += list(extra)
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < deadline:
        if wait_port(("127.0.0.1", port), 0.5):
            return p
    p.kill()
    p.wait()
    err = p.stderr.read().decode() if p.stderr else ""
    raise RuntimeError("memcached on port %d did not start: %s" % (port, err))
