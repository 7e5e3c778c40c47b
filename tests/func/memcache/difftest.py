#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Differential memcache test: reference memcached vs. device under test.

The same scripted command sequence is sent to both servers in lock step and
the replies are compared byte for byte after the normalisations listed in
DOCUMENTED_DIFFERENCES. Every request is followed by a 'version' sentinel so
that the end of a reply (including "no reply at all" for noreply) is known
without timeouts.

Standalone use (e.g. on the host against two memcacheds):
    difftest.py --ref 127.0.0.1:21211 --dut 127.0.0.1:21212
    difftest.py --spawn-ref 21211 --dut 127.0.0.1:11211
    difftest.py --ref 127.0.0.1:21211 --dump      # show reference replies
"""

import argparse
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcutil  # noqa: E402

KIB = 1024
MIB = 1024 * 1024
HEAD = 256 * KIB

# Differences between memcached 1.6 and Goblin Store that are accepted on
# purpose. Each entry is applied as a normalisation to BOTH replies.
DOCUMENTED_DIFFERENCES = [
    ("version", "The version string names the implementation; the sentinel "
     "and 'version' replies compare as 'VERSION <v>'."),
    ("stats", "Statistic names and values are implementation specific; a "
     "'stats' reply is only checked to be well formed ('STAT <name> <value>' "
     "lines then END)."),
    ("cas", "CAS unique values are allocated differently; each distinct CAS "
     "seen in a reply is renamed C1, C2, ... by order of first appearance on "
     "that server, so equality and change of CAS are still compared."),
    ("me", "'me' (meta debug) prints allocator internals (cls, la, fetch); "
     "only 'ME <key>' vs 'EN' is compared."),
    ("item-limit", "memcached counts its ~50 byte item header and the key "
     "against -I, Goblin limits the value length itself (item_max, "
     "default 1 MiB, here 16 MiB like the reference's -I 16m). The "
     "script therefore tests 16 MiB - 4 KiB (both store) and 16 MiB + 1 "
     "(both refuse), not exactly 16 MiB."),
    ("stats-settings", "'stats settings' is compared only for the "
     "settings named in the step (cmp 'stat:NAME'); Goblin reports a "
     "subset of memcached's settings. 'stats items', 'stats slabs' and "
     "'stats conns' answer END only (no slab classes, no per-connection "
     "listing); not compared."),
    ("control-key", "Goblin refuses keys holding control bytes (<= 0x20 "
     "or 0x7f) in every transport (store, RDMA, libgoblin); memcached's text "
     "protocol stores them. Goblin answers 'CLIENT_ERROR bad command line "
     "format' and swallows the data; a set of such a key compares as "
     "'<control-key>' when the reference stored it and Goblin refused it."),
    ("arith-size", "memcached treats values too big for one slab chunk "
     "(value + key + ~59 byte header > 512 KiB) as non-numeric for "
     "incr/decr; Goblin uses the same formula with a fixed 59 byte header, "
     "so the limit can differ by a few bytes (flags suffix). Not exercised."),
    ("last-access", "mg l (seconds since the last access) is compared "
     "as 0 or not 0 ('l+') where a step sleeps, and as 0 or 1 ('l<=1') "
     "right after a store: the two servers' clocks tick their seconds at "
     "different moments."),
    ("ttl-tick", "Meta TTLs (' t<seconds>') are whole seconds of each "
     "server's own clock, which ticks at different moments: a t token may "
     "differ by one second, all else must be equal. The script sends each "
     "step to one server, then the other: if it stalls between the two "
     "(a loaded host), the time between an item's creation and a later "
     "read differs by as much between the servers, and the tolerance "
     "grows by the spread of those offsets within the section."),
    ("eviction", "Which old items an LRU evicts depends on the allocator "
     "(slab classes vs. head blocks); under eviction pressure only the "
     "replies to the stores and to reads of the newest items are compared."),
]


class Skew:
    """The spread of the offsets between the moments the reference and
    Goblin executed a step, within one section: a TTL read there may
    differ by that much more than the one-second tick (see 'ttl-tick').
    A server executes a step somewhere between the moment it is sent and
    the moment its reply is read, so each step bounds its offset by
    [dut start - ref end, dut end - ref start]."""

    def __init__(self):
        self.section, self.lo, self.hi = None, 0.0, 0.0

    def note(self, section, ref_span, dut_span):
        lo = dut_span[0] - ref_span[1]
        hi = dut_span[1] - ref_span[0]
        if section != self.section:
            self.section, self.lo, self.hi = section, lo, hi
        self.lo, self.hi = min(self.lo, lo), max(self.hi, hi)

    def slack(self):
        # whole seconds only: below a second the spread is the scheduling
        # noise of an idle run, which the one-second tick already covers
        return 1 + int(math.floor(self.hi - self.lo))


class Step:
    def __init__(self, section, payload, conn=0, capture=None, cmp="exact",
                 sleep=0.0):
        self.section = section
        self.payload = payload
        self.conn = conn
        self.capture = capture      # (varname, regex with one group)
        self.cmp = cmp              # exact | stats | none | me | evict-store
        self.sleep = sleep


def pattern(n):
    """n bytes of a position dependent, non-repeating-per-page pattern."""
    unit = bytes((i * 7) & 0xff for i in range(251))
    return (unit * (n // 251 + 1))[:n]


SECTIONS = ["basic storage", "multi-get", "append/prepend", "cas",
            "incr/decr", "noreply", "verbosity/flush_all", "meta",
            "meta state", "meta cas modes", "expiry",
            "bad input", "stats subcommands", "item size limit",
            "eviction"]


def build_script(big=True, evict_total=48 * MIB, evict_item=200 * KIB):
    S = []

    def add(section, payload, **kw):
        assert section in SECTIONS
        S.append(Step(section, payload, **kw))

    # --- basic storage commands -------------------------------------------
    sec = "basic storage"
    add(sec, b"flush_all\r\n")
    add(sec, b"get foo\r\n")
    add(sec, b"set foo 5 0 3\r\nbar\r\n")
    add(sec, b"get foo\r\n")
    add(sec, b"add foo 0 0 1\r\nx\r\n")
    add(sec, b"add newk 7 0 2\r\nxy\r\n")
    add(sec, b"replace nokey 0 0 1\r\nx\r\n")
    add(sec, b"replace foo 9 0 4\r\nbarr\r\n")
    add(sec, b"get foo newk\r\n")
    add(sec, b"set empty 0 0 0\r\n\r\n")
    add(sec, b"get empty\r\n")
    add(sec, b"set flags 4294967295 0 1\r\nf\r\n")
    add(sec, b"get flags\r\n")
    add(sec, b"delete foo\r\n")
    add(sec, b"delete foo\r\n")
    add(sec, b"get foo\r\n")
    add(sec, b"touch newk 0\r\n")
    add(sec, b"touch nokey 0\r\n")
    add(sec, b"gat 0 newk nokey\r\n")
    add(sec, b"gats 0 newk\r\n")
    add(sec, b"set bin 0 0 8\r\n\x00\r\n\xff\x01\r\nz\r\n")
    add(sec, b"get bin\r\n")
    add(sec, b"set " + b"k" * 250 + b" 0 0 1\r\nL\r\n")
    add(sec, b"get " + b"k" * 250 + b"\r\n")

    # --- multi-get --------------------------------------------------------
    sec = "multi-get"
    keys = [b"mg%03d" % i for i in range(60)]
    add(sec, b"".join(b"set %s %d 0 %d\r\n%s\r\n" % (k, i, len(k) * 3, k * 3)
                      for i, k in enumerate(keys) if i % 3))
    add(sec, b"get " + b" ".join(keys) + b"\r\n")
    add(sec, b"gets " + b" ".join(keys[:10]) + b"\r\n")
    add(sec, b"get mg001 mg001 mg002 mg000 mg001\r\n")
    add(sec, b"get  mg001   mg002 \r\n")
    add(sec, b"get nothere1 nothere2\r\n")

    # --- append / prepend ---------------------------------------------------
    sec = "append/prepend"
    add(sec, b"append nokey 0 0 1\r\nx\r\n")
    add(sec, b"prepend nokey 0 0 1\r\nx\r\n")
    add(sec, b"set ap 3 0 4\r\nmid-\r\n")
    add(sec, b"append ap 99 0 4\r\n-end\r\n")
    add(sec, b"prepend ap 99 0 6\r\nstart-\r\n")
    add(sec, b"get ap\r\n")
    add(sec, b"append ap 0 0 0\r\n\r\n")
    add(sec, b"gets ap\r\n", capture=("apcas", rb"VALUE ap \d+ \d+ (\d+)"))
    add(sec, b"append ap 0 0 1 noreply\r\n!\r\n")
    add(sec, b"gets ap\r\n")
    add(sec, b"set apbig 0 0 %d\r\n%s\r\n" % (HEAD - 2, b"a" * (HEAD - 2)))
    add(sec, b"append apbig 0 0 5\r\nbcdef\r\n")
    add(sec, b"get apbig\r\n")

    # --- cas and cas races between two connections --------------------------
    sec = "cas"
    add(sec, b"cas nokey 0 0 1 1\r\nx\r\n")
    add(sec, b"set c 0 0 1\r\n1\r\n")
    add(sec, b"gets c\r\n", conn=0, capture=("c0", rb"VALUE c \d+ \d+ (\d+)"))
    add(sec, b"gets c\r\n", conn=1, capture=("c1", rb"VALUE c \d+ \d+ (\d+)"))
    add(sec, b"cas c 0 0 1 {c0}\r\nA\r\n", conn=0)
    add(sec, b"cas c 0 0 1 {c1}\r\nB\r\n", conn=1)
    add(sec, b"gets c\r\n", conn=1, capture=("c2", rb"VALUE c \d+ \d+ (\d+)"))
    add(sec, b"touch c 0\r\n")
    add(sec, b"cas c 0 0 1 {c2}\r\nC\r\n", conn=1)
    add(sec, b"gets c\r\n", capture=("c3", rb"VALUE c \d+ \d+ (\d+)"))
    add(sec, b"cas c 0 0 1 {c3} noreply\r\nD\r\n")
    add(sec, b"cas c 0 0 1 {c3}\r\nE\r\n")
    add(sec, b"get c\r\n")
    add(sec, b"delete c\r\n")
    add(sec, b"cas c 0 0 1 {c3}\r\nF\r\n")
    add(sec, b"cas c 0 0 1 0\r\nG\r\n")
    add(sec, b"cas c 0 0 1\r\nH\r\n")

    # --- incr / decr ----------------------------------------------------------
    sec = "incr/decr"
    add(sec, b"incr nokey 1\r\n")
    add(sec, b"decr nokey 1\r\n")
    add(sec, b"set n 0 0 2\r\n10\r\n")
    add(sec, b"incr n 5\r\n")
    add(sec, b"decr n 6\r\n")
    add(sec, b"get n\r\n")
    add(sec, b"decr n 100\r\n")
    add(sec, b"set n 0 0 20\r\n18446744073709551615\r\n")
    add(sec, b"incr n 1\r\n")
    add(sec, b"get n\r\n")
    add(sec, b"set n 0 0 20\r\n18446744073709551610\r\n")
    add(sec, b"incr n 10\r\n")
    add(sec, b"incr n 18446744073709551615\r\n")
    add(sec, b"incr n 18446744073709551616\r\n")
    add(sec, b"incr n -1\r\n")
    add(sec, b"incr n abc\r\n")
    add(sec, b"incr n\r\n")
    add(sec, b"set s 0 0 3\r\nabc\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"set s 0 0 3\r\n 12\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"get s\r\n")
    add(sec, b"set s 0 0 6\r\n12 abc\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"get s\r\n")
    add(sec, b"set s 0 0 4\r\n\t7\r\n\r\n")
    add(sec, b"decr s 1\r\n")
    add(sec, b"get s\r\n")
    add(sec, b"set s 0 0 3\r\n+12\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"set s 0 0 3\r\n12x\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"set s 0 0 1\r\n9\r\n")
    add(sec, b"incr s 1\r\n")
    add(sec, b"get s\r\n")
    add(sec, b"set s 0 0 2\r\n-1\r\n")
    add(sec, b"decr s 1\r\n")
    add(sec, b"set n 0 0 1\r\n7\r\n")
    add(sec, b"incr n 3 noreply\r\n")
    add(sec, b"decr n 1 noreply\r\n")
    add(sec, b"gets n\r\n")
    add(sec, b"incr n 1\r\n")
    add(sec, b"gets n\r\n")

    # --- noreply ----------------------------------------------------------------
    sec = "noreply"
    add(sec, b"set nr 0 0 1 noreply\r\na\r\n")
    add(sec, b"add nr 0 0 1 noreply\r\nb\r\n")
    add(sec, b"replace nr 0 0 1 noreply\r\nc\r\n")
    add(sec, b"prepend nr 0 0 1 noreply\r\nd\r\n")
    add(sec, b"get nr\r\n")
    add(sec, b"touch nr 0 noreply\r\n")
    add(sec, b"delete nr noreply\r\n")
    add(sec, b"delete nr noreply\r\n")
    add(sec, b"get nr\r\n")
    add(sec, b"flush_all noreply\r\n")
    add(sec, b"verbosity 0 noreply\r\n")

    # --- verbosity / flush_all / misc ------------------------------------------
    sec = "verbosity/flush_all"
    add(sec, b"verbosity 1\r\n")
    add(sec, b"verbosity 0\r\n")
    add(sec, b"verbosity\r\n")
    add(sec, b"set f1 0 0 1\r\n1\r\n")
    add(sec, b"flush_all\r\n")
    add(sec, b"get f1\r\n")
    add(sec, b"set f1 0 0 1\r\n2\r\n")
    add(sec, b"get f1\r\n")
    add(sec, b"flush_all 0\r\n")
    add(sec, b"get f1\r\n")
    add(sec, b"flush_all abc\r\n")
    add(sec, b"version\r\n")
    add(sec, b"stats\r\n", cmp="stats")

    # --- meta commands -------------------------------------------------------------
    sec = "meta"
    add(sec, b"mn\r\n")
    add(sec, b"mg nokey v\r\n")
    add(sec, b"mg nokey v q\r\nmn\r\n")
    add(sec, b"ms mk 5\r\nhello\r\n")
    add(sec, b"ms mk 5 T0 F33\r\nhello\r\n")
    add(sec, b"mg mk\r\n")
    add(sec, b"mg mk v\r\n")
    add(sec, b"mg mk s v f k\r\n")
    add(sec, b"mg mk v Oabc123 k\r\n")
    add(sec, b"mg mk t\r\n")
    add(sec, b"mg mk c v\r\n", capture=("mc", rb" c(\d+)"))
    add(sec, b"mg mk q v\r\nmn\r\n")
    add(sec, b"ms mk 2 C{mc}\r\nhi\r\n")
    add(sec, b"ms mk 2 C{mc}\r\nho\r\n")
    add(sec, b"ms mk 3 I\r\nabc\r\n")
    add(sec, b"ms mk 3 MA\r\ndef\r\n")
    add(sec, b"ms mk 3 MP\r\nxyz\r\n")
    add(sec, b"mg mk v\r\n")
    add(sec, b"ms mnew 1 ME\r\n1\r\n")
    add(sec, b"ms mnew 1 ME\r\n2\r\n")
    add(sec, b"ms mnone 1 MR\r\n1\r\n")
    add(sec, b"ms mnew 1 MR\r\n3\r\n")
    add(sec, b"ms mnew 1 MS\r\n4\r\n")
    add(sec, b"mg mnew v\r\n")
    add(sec, b"ms mq 1 q\r\nx\r\nmn\r\n")
    add(sec, b"ms mk S3\r\nabc\r\n")
    add(sec, b"ms mk 3 ZZ\r\nabc\r\n")
    add(sec, b"ms mk abc\r\nabc\r\n")
    add(sec, b"ms mk 1 T60 F7 c\r\nz\r\n")
    add(sec, b"mg mk v f t\r\n")
    add(sec, b"md mnone\r\n")
    add(sec, b"md mnone q\r\nmn\r\n")
    add(sec, b"md mq\r\n")
    add(sec, b"md mq\r\n")
    add(sec, b"md mk q\r\nmn\r\n")
    add(sec, b"mg mk v\r\n")
    add(sec, b"ma nokey\r\n")
    add(sec, b"ma nokey N0 J13\r\n")
    add(sec, b"ma nokey v\r\n")
    add(sec, b"ma nokey v\r\n")
    add(sec, b"ma nokey MD D5 v\r\n")
    add(sec, b"ma nokey MI D18446744073709551615 v\r\n")
    add(sec, b"ma nokey M- D100 v\r\n")
    add(sec, b"ma nokey q\r\nmn\r\n")
    add(sec, b"ma mnew v\r\n")
    add(sec, b"ms mtxt 3\r\nabc\r\n")
    add(sec, b"ma mtxt\r\n")
    add(sec, b"ms mac 1\r\n5\r\n")
    add(sec, b"mg mac c\r\n", capture=("macc", rb" c(\d+)"))
    add(sec, b"ma mac C{macc} v\r\n")
    add(sec, b"ma mac C{macc} q\r\nmn\r\n")
    add(sec, b"ma mac C{macc} v c t\r\n")
    add(sec, b"ma mac C0 v\r\n")
    add(sec, b"ma nokey C5\r\n")
    add(sec, b"ma mac T100 v t\r\n")
    add(sec, b"mg mac t v\r\n")
    add(sec, b"ma mac N0 J7 T50 t v\r\n")
    add(sec, b"ma mac2 N0 J7 T50 t v c\r\n")
    add(sec, b"ms mtxt 3\r\nabc\r\n")
    add(sec, b"ma mtxt C1\r\n")
    add(sec, b"me nokey\r\n", cmp="me")
    add(sec, b"ms mek 2\r\nhi\r\n")
    add(sec, b"me mek\r\n", cmp="me")
    add(sec, b"mg\r\n")
    add(sec, b"mg " + b"x" * 251 + b" v\r\n")
    add(sec, b"mx foo\r\n")

    # --- meta state: h, l, R, N, T order, X/Z/W, md I/T, ms I ------------------
    sec = "meta state"
    add(sec, b"ms ws1 2 T100\r\nhi\r\n")
    add(sec, b"mg ws1 h l t v\r\n", cmp="la-tick")
    add(sec, b"mg ws1 h l\r\n", cmp="la-tick")
    add(sec, b"mg ws1 u h\r\n")
    add(sec, b"mg ws1 t T50\r\n")
    add(sec, b"mg ws1 t T100 t\r\n")
    add(sec, b"mg ws1 T100 t\r\n")
    add(sec, b"mg ws1 R50 t c\r\n")
    add(sec, b"mg ws1 R0 c\r\n")
    add(sec, b"mg ws1 R-1 c\r\n")
    add(sec, b"mg ws1 R200 t c\r\n")
    add(sec, b"mg ws1 R200 t c\r\n")
    add(sec, b"mg ws1 c\r\n")
    add(sec, b"md ws1 I T30\r\n")
    add(sec, b"mg ws1 t c v\r\n")
    add(sec, b"mg ws1 t c\r\n")
    add(sec, b"mg ws1 q k\r\n")
    add(sec, b"md ws1 I q\r\nmn\r\n")
    add(sec, b"mg ws1 t c\r\n")
    add(sec, b"md ws1 T10\r\n")
    add(sec, b"mg ws1 t\r\n")
    add(sec, b"md nokey I\r\n")
    add(sec, b"md ws1 I C18446744073709551615\r\n")
    add(sec, b"ms ws1 1\r\nz\r\n")
    add(sec, b"mg ws1 t c v\r\n")
    add(sec, b"ms ws2 3\r\nold\r\n")
    add(sec, b"mg ws2 c\r\n", capture=("wsa", rb" c(\d+)"))
    add(sec, b"md ws2 I\r\n")
    add(sec, b"mg ws2 c v\r\n")
    add(sec, b"ms ws2 3 C{wsa} I\r\nnew\r\n")
    add(sec, b"mg ws2 v c t\r\n")
    add(sec, b"ms ws2 3 C{wsa}\r\nbad\r\n")
    add(sec, b"ms ws2 3 C18446744073709551615 I\r\nbad\r\n")
    add(sec, b"ms ws2 3 C0 I\r\nbad\r\n")
    add(sec, b"mg ws2 c\r\n", capture=("wsc", rb" c(\d+)"))
    add(sec, b"ms ws2 3 C{wsc} I\r\nfin\r\n")
    add(sec, b"mg ws2 v c\r\n")
    add(sec, b"ms ws2 3 I\r\nset\r\n")
    add(sec, b"mg ws2 v\r\n")
    add(sec, b"mg wv1 N30 s t v\r\n")
    add(sec, b"mg wv1 N30 s t\r\n")
    add(sec, b"mg wv1 t N30 h\r\n")
    add(sec, b"mg wv2 t N30 q\r\nmn\r\n")
    add(sec, b"mg wv2 t\r\n")
    add(sec, b"mg wv3 N0 T40 t\r\n")
    add(sec, b"mg wv3 t\r\n")
    # created: T and N in flag order, the last one stays (memcached)
    add(sec, b"mg wv4 N30 T10 t\r\n")
    add(sec, b"mg wv4 t\r\n")
    add(sec, b"mg wv5 T10 N30 t\r\n")
    add(sec, b"mg wv5 t\r\n")
    add(sec, b"mg wv6 T10 t N30\r\n")
    add(sec, b"mg wv6 t\r\n")
    # stored already expired: still a cas of its own each time
    add(sec, b"ms wx 1 T-1 c\r\nx\r\nms wx 1 T-1 c\r\ny\r\nmg wx c\r\n")
    add(sec, b"ms wv2 2\r\nok\r\n")
    add(sec, b"mg wv2 v N30\r\n")
    add(sec, b"md wv2 I\r\n")
    add(sec, b"mg wv2 v N30\r\n")
    add(sec, b"ms wa 1 T100\r\n5\r\n")
    add(sec, b"ma wa t T50 v\r\n")
    add(sec, b"mg wa t v\r\n")
    add(sec, b"ma wa T20 t\r\n")
    add(sec, b"ma wa MD T0 t v\r\n")
    add(sec, b"ma wn2 T50 N0 t v\r\n")
    add(sec, b"mg wn2 t\r\n")
    add(sec, b"ma wn3 N0 T50 t v c\r\n")
    add(sec, b"mg wn3 t\r\n")
    add(sec, b"md wa I\r\n")
    add(sec, b"ma wa v\r\n")
    add(sec, b"mg wa v\r\n")
    add(sec, b"mg wa v\r\n")
    add(sec, b"md ws1 x\r\n")
    add(sec, b"mg ws1 E5\r\n")

    # --- meta set: C in every mode -------------------------------------------
    sec = "meta cas modes"
    add(sec, b"ms wm 2\r\nab\r\n")
    add(sec, b"mg wm c\r\n", capture=("wmc", rb" c(\d+)"))
    add(sec, b"ms wm 2 MA C18446744073709551615\r\ncd\r\n")
    add(sec, b"ms wm 2 MA C{wmc}\r\ncd\r\n")
    add(sec, b"mg wm v\r\n")
    add(sec, b"ms wm 2 MP C{wmc}\r\nzz\r\n")
    add(sec, b"ms wm 2 MP C0\r\nzz\r\n")
    add(sec, b"mg wm v c\r\n", capture=("wmp", rb" c(\d+)"))
    add(sec, b"ms wm 2 MP C{wmp} c\r\nyy\r\n")
    add(sec, b"ms wm 2 MR C{wmc}\r\nqq\r\n")
    add(sec, b"mg wm c\r\n", capture=("wmr", rb" c(\d+)"))
    add(sec, b"ms wm 2 MR C{wmr} c\r\nqq\r\n")
    add(sec, b"mg wm v\r\n")
    add(sec, b"ms wm 2 MR C{wmr} I\r\nrr\r\n")
    add(sec, b"mg wm v\r\n")
    add(sec, b"ms wm 2 MA C{wmr} I\r\nss\r\n")
    add(sec, b"ms wm 2 ME C{wmr}\r\ntt\r\n")
    add(sec, b"ms wm 2 MS C{wmr}\r\ntt\r\n")
    add(sec, b"ms wnone 2 MR C5\r\nqq\r\n")
    add(sec, b"ms wnone 2 MA C5\r\nqq\r\n")
    add(sec, b"ms wnone 2 MP C5 q\r\nqq\r\nmn\r\n")
    add(sec, b"ms wnone 2 MS C5\r\nqq\r\n")
    add(sec, b"ms wnone 2 ME C5\r\nqq\r\n")
    add(sec, b"ms wnone 2 ME C5\r\nqq\r\n")
    add(sec, b"mg wnone v\r\n")
    add(sec, b"ms wnone 2 MA q\r\nrr\r\nmn\r\n")
    add(sec, b"mg wnone v\r\n")

    # --- expiry -----------------------------------------------------------------------
    sec = "expiry"
    add(sec, b"ms wl 1\r\nx\r\n")
    # just stored: 0 seconds since, or 1 if either server's second ticks
    # between the two requests (a slow guest sees it)
    add(sec, b"mg wl h l\r\n", cmp="la-tick")
    add(sec, b"set e1 0 2 1\r\na\r\n")
    add(sec, b"set e2 0 100 1\r\nb\r\n")
    add(sec, b"set e3 0 0 1\r\nc\r\n")
    add(sec, b"touch e3 2\r\n")
    add(sec, b"set e4 0 0 1\r\nd\r\n")
    add(sec, b"gat 2 e4\r\n")
    add(sec, b"set e5 0 -1 1\r\ne\r\n")
    add(sec, b"ms e6 1 T2\r\nf\r\n")
    add(sec, b"get e1 e2 e3 e4 e5 e6\r\n")
    add(sec, b"get e1 e2 e3 e4 e5 e6\r\n", sleep=3.2)
    add(sec, b"mg e2 v\r\n")
    # after the second hit memcached updates la when its LRU gets to it
    # (asynchronously from the cold segment): not compared past that
    add(sec, b"mg wl u h l\r\n", cmp="la")
    add(sec, b"mg wl h l\r\n", cmp="la")

    # --- bad input ------------------------------------------------------------------
    sec = "bad input"
    add(sec, b"bogus\r\n")
    add(sec, b"\r\n")
    add(sec, b"GET foo\r\n")
    add(sec, b"get\r\n")
    add(sec, b"get " + b"x" * 251 + b"\r\n")
    add(sec, b"set " + b"x" * 251 + b" 0 0 1\r\na\r\n")
    add(sec, b"set k 0 0\r\n")
    add(sec, b"set k 0 0 -1\r\n")
    add(sec, b"set k abc 0 1\r\na\r\n")
    add(sec, b"set k 0 abc 1\r\na\r\n")
    add(sec, b"set k 0 0 abc\r\na\r\n")
    add(sec, b"set k 0 0 3\r\nabcd\r\n")
    add(sec, b"get k\r\n")
    add(sec, b"set k 0 0 1 extra junk\r\na\r\n")
    add(sec, b"delete\r\n")
    add(sec, b"delete k 0\r\n")
    add(sec, b"delete k 5\r\n")
    add(sec, b"delete k noreply extra\r\n")
    add(sec, b"touch k\r\n")
    add(sec, b"incr\r\n")
    add(sec, b"cas k 0 0 1 abc\r\na\r\n")
    add(sec, b"set k 0 0 1\na\r\n")
    add(sec, b"get k\n")
    add(sec, b"get k\r\r\n")
    add(sec, b"gets\r\n")
    add(sec, b"set \x01\x7f 0 0 1\r\na\r\n", cmp="control-key")
    add(sec, b"set k 4294967296 0 1\r\na\r\n")
    add(sec, b"gets k\r\n")
    add(sec, b"set k 0 0 1 junk\r\nb\r\n")
    add(sec, b"get k\r\n")
    add(sec, b"set k 0 0 2147483646\r\n")
    add(sec, b"gat 10\r\n")
    add(sec, b"gat abc k\r\n")
    add(sec, b"gat 0 k " + b"y" * 251 + b"\r\n")
    add(sec, b"verbosity x\r\n")
    add(sec, b"version x\r\n")
    add(sec, b"quit now\r\n")
    add(sec, b"incr k 1 2 3\r\n")
    add(sec, b"delete a b c d\r\n")
    add(sec, b"flush_all 1 2 3\r\n")
    add(sec, b"touch k x\r\n")
    add(sec, b"stats detail\r\n")
    add(sec, b"get a\tb\r\n")
    add(sec, b"me\r\n")
    add(sec, b"mg k v v\r\n")
    add(sec, b"mg k Tabc\r\n")
    add(sec, b"mg k O" + b"1" * 32 + b"\r\n")
    add(sec, b"mg k O" + b"1" * 31 + b" k\r\n")
    add(sec, b"ms k 3 MAA\r\nabc\r\n")
    add(sec, b"ms k 3 MX\r\nabc\r\n")
    add(sec, b"ms k 3 T1 T2\r\nabc\r\n")
    add(sec, b"ms Zm9v 2 b\r\nhi\r\n")
    add(sec, b"mg Zm9v b v k\r\n")
    add(sec, b"get foo\r\n")
    add(sec, b"mg Zm9 b v\r\n")
    add(sec, b"md k Tabc\r\n")
    add(sec, b"md Zm9 b\r\n")
    add(sec, b"mg Z=9v b v\r\n")
    add(sec, b"mg Zm9v! b v\r\n")
    add(sec, b"set k 0 -2147483649 1\r\na\r\n")
    add(sec, b"ma k MX\r\n")
    add(sec, b"ma k Dabc\r\n")
    add(sec, b"mg k" + b" v" * 30 + b"\r\n")
    add(sec, b"ms k 1" + b" v" * 17 + b"\r\nx\r\n")
    add(sec, b"md k" + b" q" * 18 + b"\r\n")
    add(sec, b"ma k" + b" q" * 18 + b"\r\n")
    add(sec, b"mg k" + b" t" * 17 + b"\r\n")
    add(sec, b"ms k 1 Ma\r\nx\r\n")
    add(sec, b"ma k Mi\r\n")
    add(sec, b"mg Zm9 Tabc b\r\n")
    add(sec, b"mg Zm9 b Tabc\r\n")
    add(sec, b"mg k Fx Tabc\r\n")
    add(sec, b"mg Zg==Zm9v b k v\r\n")
    add(sec, b"md Zm9 b q\r\n")
    add(sec, b"set k 0 0 4294967297\r\na\r\n")
    add(sec, b"set k 0 2147483648 1\r\na\r\n")
    add(sec, b"get k\r\n")
    add(sec, b"set k 0 0 1\r\nz\r\n")
    add(sec, b"get k\x00junk\r\n")
    add(sec, b"bget k\r\n")
    add(sec, b"me Zm9v b\r\n", cmp="me")
    add(sec, b"me !! b\r\n")
    add(sec, b"me " + b"m" * 251 + b"\r\n")
    add(sec, b"GET / HTTP/1.1\r\n")
    add(sec, b"set k 0 0 3\r\nab\r\n\r\n")
    add(sec, b"set k 0 0 3 noreply\r\nabcde\r\n")

    # --- stats subcommands, memcached 1.6.18's answers ---------------------------------
    sec = "stats subcommands"
    add(sec, b"stats settings\r\n", cmp="stat:item_size_max")
    add(sec, b"stats settings\r\n", cmp="stat:detail_enabled")
    add(sec, b"stats detail dump\r\n")
    add(sec, b"stats detail on\r\n")
    add(sec, b"stats settings\r\n", cmp="stat:detail_enabled")
    add(sec, b"stats detail off\r\n")
    add(sec, b"stats settings\r\n", cmp="stat:detail_enabled")
    add(sec, b"stats detail\r\n")
    add(sec, b"stats detail foo\r\n")
    add(sec, b"stats detail on extra\r\n")
    add(sec, b"stats detail off\r\n")
    add(sec, b"stats sizes\r\n")
    add(sec, b"stats nosuch\r\n")
    add(sec, b"stats reset\r\n")
    # the counters memcached resets start again from 0
    add(sec, b"set rs 0 0 1\r\nx\r\n")
    add(sec, b"get rs rs2\r\n")
    add(sec, b"delete rs2\r\n")
    add(sec, b"incr rs2 1\r\n")
    add(sec, b"touch rs 0\r\n")
    for name in ("cmd_get", "get_hits", "get_misses", "cmd_set",
                 "total_items", "delete_hits", "delete_misses",
                 "incr_misses", "cmd_touch", "touch_hits", "cmd_flush",
                 "total_connections"):
        add(sec, b"stats\r\n", cmp="stat:" + name)
    add(sec, b"stats reset\r\n")
    for name in ("cmd_get", "get_hits", "cmd_set", "total_items"):
        add(sec, b"stats\r\n", cmp="stat:" + name)
    # stats detail: per key prefix (before the first ':') counts of get
    # (hit), storage commands (stored or not) and delete (hit or not);
    # meta, touch and arithmetic commands are not counted
    add(sec, b"stats detail on\r\n")
    add(sec, b"set user:1 0 0 1\r\nx\r\n")
    add(sec, b"add user:1 0 0 1\r\nx\r\n")
    add(sec, b"get user:1 user:2 b:x :e d:e:f nocolon\r\n")
    add(sec, b"gets user:1\r\n")
    add(sec, b"gat 0 user:1 sess:9\r\n")
    add(sec, b"append sess:9 0 0 1\r\nx\r\n")
    add(sec, b"delete user:1\r\n")
    add(sec, b"delete user:1 noreply\r\n")
    add(sec, b"touch sess:9 0\r\n")
    add(sec, b"incr user:5 1\r\n")
    add(sec, b"mg user:1 v\r\n")
    add(sec, b"ms sess:1 1\r\nq\r\n")
    add(sec, b"md sess:1\r\n")
    add(sec, b"stats detail dump\r\n")
    add(sec, b"stats detail off\r\n")
    add(sec, b"get user:1\r\n")
    add(sec, b"stats detail dump\r\n")
    add(sec, b"stats reset\r\n")
    add(sec, b"stats detail dump\r\n")
    add(sec, b"verbosity 1\r\n")
    add(sec, b"stats settings\r\n", cmp="stat:verbosity")
    add(sec, b"verbosity 0 noreply\r\n")
    add(sec, b"stats settings\r\n", cmp="stat:verbosity")
    add(sec, b"verbosity\r\n")
    add(sec, b"verbosity 1 2 3\r\n")
    add(sec, b"stats settings\r\n", cmp="stat:cas_enabled")

    # --- values around the head size and the item-size limit ------------------------
    sec = "item size limit"
    for n in (HEAD - 1, HEAD, HEAD + 1, 1 * MIB):
        add(sec, lambda n=n: b"set big%d 1 0 %d\r\n%s\r\n" %
            (n, n, pattern(n)))
        add(sec, b"get big%d\r\n" % n)
    if big:
        n = 16 * MIB - 4 * KIB
        add(sec, lambda n=n: b"set limit 2 0 %d\r\n%s\r\n" % (n, b"L" * n))
        add(sec, b"get limit\r\n")
        n = 16 * MIB + 1
        add(sec, lambda n=n: b"set over 0 0 %d\r\n%s\r\n" % (n, b"O" * n))
        add(sec, b"get over\r\n")
        add(sec, lambda n=n: b"set limit 0 0 %d\r\n%s\r\n" % (n, b"O" * n))
        add(sec, b"get limit\r\n")
    add(sec, b"set huge 0 0 4294967295\r\n")
    add(sec, b"get huge\r\n")
    add(sec, b"flush_all\r\n")

    # --- eviction pressure -------------------------------------------------------------
    sec = "eviction"
    count = evict_total // evict_item
    for i in range(count):
        add(sec, lambda i=i: b"set ev%d 0 0 %d\r\n%s\r\n" %
            (i, evict_item, (b"%08d" % i) * (evict_item // 8)))
    for i in range(count - 3, count):
        add(sec, b"get ev%d\r\n" % i)
    for i in range(0, count, max(1, count // 8)):
        add(sec, b"get ev%d\r\n" % i, cmp="evicted")
    add(sec, b"set after 0 0 5\r\nafter\r\n")
    add(sec, b"get after\r\n")
    add(sec, b"quit\r\n", conn=2)
    return S


class Server:
    def __init__(self, name, addr):
        self.name = name
        self.addr = addr
        self.conns = {}
        self.vars = {}
        self.casmap = {}

    def conn(self, i):
        c = self.conns.get(i)
        if c is None or c.eof:
            if c is not None:
                c.close()
            c = mcutil.Conn(self.addr)
            self.conns[i] = c
        return c

    def close(self):
        for c in self.conns.values():
            c.close()
        self.conns = {}

    def cas_sym(self, num):
        if num not in self.casmap:
            self.casmap[num] = b"C%d" % (len(self.casmap) + 1)
        return self.casmap[num]

    def run(self, step):
        payload = step.payload() if callable(step.payload) else step.payload
        for k, v in self.vars.items():
            payload = payload.replace(b"{%s}" % k.encode(), v)
        reply, status = self.conn(step.conn).request(payload)
        if step.capture:
            m = re.search(step.capture[1], reply)
            self.vars[step.capture[0]] = m.group(1) if m else b"0"
        return reply, status


_VALUE_CAS = re.compile(rb"^(VALUE \S+ \d+ \d+ )(\d+)(\r)$", re.M)
_META_LINE = re.compile(rb"^(VA|HD|EN|NF|NS|EX|MN)(?: ([^\r\n]*))?\r$", re.M)


def normalize(server, step, reply, status):
    out = reply
    if step.cmp == "stats":
        lines = out.split(b"\r\n")
        ok = lines[-2:] == [b"END", b""] and all(
            re.match(rb"STAT [^ ]+ [^\r\n]*$", ln) for ln in lines[:-2])
        out = b"<stats %s>" % (b"well-formed" if ok else b"MALFORMED")
    elif step.cmp == "control-key":
        if out in (b"STORED\r\n",
                   b"CLIENT_ERROR bad command line format\r\n"):
            out = b"<control-key>"
    elif step.cmp.startswith("stat:"):
        # one statistic of a 'stats <sub>' reply, END checked
        name = step.cmp[5:].encode()
        m = re.search(rb"^STAT %s ([^\r\n]*)\r$" % re.escape(name), out,
                      re.M)
        end = out.endswith(b"END\r\n")
        out = b"STAT %s %s%s" % (name, m.group(1) if m else b"<missing>",
                                 b" END" if end else b" <no END>")
    elif step.cmp == "me":
        m = re.match(rb"ME (\S+) ", out)
        out = b"ME " + m.group(1) if m else out
    else:
        if step.cmp == "la":
            out = re.sub(rb" l[1-9][0-9]*", b" l+", out)
        elif step.cmp == "la-tick":
            out = re.sub(rb" l[01](?=[ \r])", b" l<=1", out)
        out = re.sub(rb"^VERSION [^\r\n]*\r$", b"VERSION <v>\r", out,
                     flags=re.M)
        out = _VALUE_CAS.sub(
            lambda m: m.group(1) + server.cas_sym(m.group(2)) + m.group(3),
            out)

        def meta(m):
            toks = m.group(2).split(b" ") if m.group(2) else []
            toks = [b"c" + server.cas_sym(t[1:])
                    if t[:1] == b"c" and t[1:].isdigit() else t
                    for t in toks]
            return m.group(1) + (b" " + b" ".join(toks) if toks else b"") + \
                b"\r"
        out = _META_LINE.sub(meta, out)
    if status != "ok":
        out += b"<%s>" % status.encode()
    return out


_TTL_TOK = re.compile(rb"( t)(-?[0-9]+)")


def run_timed(srv, step):
    """srv.run(step), an OSError as its status: (reply, status, span),
    span the (start, end) of the exchange on the monotonic clock."""
    t0 = time.monotonic()
    try:
        raw, st = srv.run(step)
    except OSError as e:
        raw, st = b"", "error %s" % e
    return raw, st, (t0, time.monotonic())


def ttl_close(a, b, slack=1):
    """Equal but for meta TTL tokens at most slack seconds apart (see
    'ttl-tick')."""
    pa, pb = _TTL_TOK.split(a), _TTL_TOK.split(b)
    if len(pa) != len(pb):
        return False
    for i, (x, y) in enumerate(zip(pa, pb)):
        if i % 3 == 2:
            if x != y and (x.startswith(b"-") or y.startswith(b"-") or
                           abs(int(x) - int(y)) > slack):
                return False
        elif x != y:
            return False
    return True


def show(b, limit=300):
    if len(b) > limit:
        return repr(b[:limit // 2]) + (" ...(%d bytes)... " % len(b)) + \
            repr(b[-limit // 2:])
    return repr(b)


def run_diff(ref_addr, dut_addr, tap=None, big=True, dump=False,
             evict_total=48 * MIB, evict_item=200 * KIB):
    """Run the script; returns {section: [failure messages]} (ordered)."""
    script = build_script(big=big, evict_total=evict_total,
                          evict_item=evict_item)
    ref = Server("ref", ref_addr)
    dut = Server("dut", dut_addr) if dut_addr else None
    results = {sec: [] for sec in SECTIONS}
    evict_seen = {}
    skew = Skew()
    for step in script:
        fails = results.setdefault(step.section, [])
        if step.sleep:
            time.sleep(step.sleep)
        r_raw, r_st, ref_span = run_timed(ref, step)
        r = normalize(ref, step, r_raw, r_st)
        if dump:
            print("%-18s %s\n    -> %s" % (step.section, show(
                step.payload() if callable(step.payload) else step.payload,
                120),
                                          show(r, 400)))
        if dut is None:
            continue
        d_raw, d_st, dut_span = run_timed(dut, step)
        skew.note(step.section, ref_span, dut_span)
        d = normalize(dut, step, d_raw, d_st)
        if step.cmp == "none":
            continue
        if step.cmp == "evicted":
            # Not compared (see DOCUMENTED_DIFFERENCES), but each server
            # must have evicted at least one of the oldest items.
            evict_seen.setdefault(step.section, [False, False])
            evict_seen[step.section][0] |= r_raw == b"END\r\n"
            evict_seen[step.section][1] |= d_raw == b"END\r\n"
            continue
        if r != d and not ttl_close(r, d, skew.slack()) and len(fails) < 20:
            req = step.payload() if callable(step.payload) else step.payload
            fails.append("request %s\n  ref: %s\n  dut: %s" %
                         (show(req, 160), show(r), show(d)))
    for sec, (r_ev, d_ev) in evict_seen.items():
        if not (r_ev and d_ev):
            results[sec].append("no early item was evicted (ref %s, dut %s)"
                                % (r_ev, d_ev))
    ref.close()
    if dut:
        dut.close()
    return results


def run_steps(ref_addr, dut_addr, steps):
    """Run (payload, cmp) pairs on both servers in lock step (one
    connection each); returns the list of differences."""
    ref = Server("ref", ref_addr)
    dut = Server("dut", dut_addr)
    fails = []
    skew = Skew()
    try:
        for payload, cmp in steps:
            step = Step("extra", payload, cmp=cmp)
            out = []
            spans = []
            for srv in (ref, dut):
                raw, st, span = run_timed(srv, step)
                spans.append(span)
                out.append(normalize(srv, step, raw, st))
            skew.note("extra", spans[0], spans[1])
            if out[0] != out[1] and \
                    not ttl_close(out[0], out[1], skew.slack()):
                req = payload() if callable(payload) else payload
                fails.append("request %s\n  ref: %s\n  dut: %s" %
                             (show(req, 160), show(out[0]), show(out[1])))
    finally:
        ref.close()
        dut.close()
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", help="reference memcached host:port")
    ap.add_argument("--spawn-ref", type=int, metavar="PORT",
                    help="start Debian memcached on 127.0.0.1:PORT")
    ap.add_argument("--dut", help="server under test host:port")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--no-big", action="store_true")
    ap.add_argument("--memory-mb", type=int, default=32)
    args = ap.parse_args()
    proc = None
    if args.spawn_ref:
        proc = mcutil.start_memcached(args.spawn_ref, args.memory_mb)
        ref = ("127.0.0.1", args.spawn_ref)
    else:
        ref = mcutil.parse_addr(args.ref)
    dut = mcutil.parse_addr(args.dut) if args.dut else None
    try:
        res = run_diff(ref, dut, big=not args.no_big, dump=args.dump,
                       evict_total=args.memory_mb * MIB * 3 // 2)
    finally:
        if proc:
            proc.terminate()
            proc.wait()
    if dut is None:
        return 0
    tap = mcutil.Tap()
    tap.plan(len(res))
    for sec, fails in res.items():
        tap.result(not fails, "differential: " + sec, "\n".join(fails))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
