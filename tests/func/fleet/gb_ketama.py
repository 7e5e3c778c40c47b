# SPDX-License-Identifier: GPL-2.0
"""Weighted ketama for pymemcache's HashClient, placed like libmemcached.

pymemcache's HashClient places keys with rendezvous hashing by default. This
hasher makes it a member of a Goblin fleet (Documentation/fleet.rst): keys
land on the servers libmemcached (MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED),
twemproxy (ketama, md5) and libgoblin's server sets pick::

    from pymemcache.client.hash import HashClient
    from gb_ketama import ketama_hasher

    servers = [("10.0.0.1", 11211), ("10.0.0.2", 11211), ("10.0.0.3", 11212)]
    hc = HashClient(servers, hasher=ketama_hasher({"10.0.0.1:11211": 2}))

HashClient names a server "HOST:PORT"; the ring name is libmemcached's
("HOST" for port 11211). A removed server's points leave the ring, as in
libmemcached's auto-eject (the ring is rebuilt over the remaining servers).
"""

import bisect
import hashlib
import struct

POINTS = 160


def _f32(x):
    """Round to single precision, as the C reference computes."""
    return struct.unpack("f", struct.pack("f", x))[0]


def points(weight, total, live):
    """Ring points of a server of @weight out of @total over @live servers."""
    pct = _f32(_f32(weight) / _f32(total))
    f = _f32(pct * POINTS)
    f = _f32(f / 4)
    f = _f32(f * _f32(live))
    f = _f32(f + _f32(0.0000000001))
    return int(f) * 4          # f >= 0: int() is floor


def key_hash(key):
    """First four bytes of MD5(key), little-endian."""
    if isinstance(key, str):
        key = key.encode()
    return struct.unpack("<I", hashlib.md5(key).digest()[:4])[0]


def ring_name(node):
    host, _, port = node.rpartition(":")
    return host if port == "11211" else node


class KetamaHash:
    """A HashClient hasher: add_node, remove_node, get_node."""

    weights = {}               # "HOST:PORT" -> weight (default 1)

    def __init__(self):
        self.nodes = []
        self.values = []
        self.owners = []

    def _build(self):
        ws = [self.weights.get(n, 1) for n in self.nodes]
        total = sum(ws)
        pts = []
        for i, node in enumerate(self.nodes):
            name = ring_name(node)
            for j in range(points(ws[i], total, len(self.nodes)) // 4):
                d = hashlib.md5(("%s-%u" % (name, j)).encode()).digest()
                for q in range(4):
                    pts.append((struct.unpack("<I", d[4 * q:4 * q + 4])[0], i))
        pts.sort()
        self.values = [v for v, _ in pts]
        self.owners = [self.nodes[i] for _, i in pts]

    def add_node(self, node):
        self.nodes.append(node)
        self._build()

    def remove_node(self, node):
        self.nodes.remove(node)
        self._build()

    def get_node(self, key):
        if not self.values:
            return None
        if len(self.nodes) == 1:
            return self.nodes[0]
        i = bisect.bisect_left(self.values, key_hash(key))
        return self.owners[i if i < len(self.values) else 0]


def ketama_hasher(weights=None):
    """A KetamaHash subclass with these weights, for HashClient(hasher=...)."""
    return type("KetamaHash", (KetamaHash,), {"weights": dict(weights or {})})
