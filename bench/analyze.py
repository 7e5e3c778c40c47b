#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a bench/guest-suite result directory into report.md and a plot.

usage: bench/analyze.py RESULTDIR
       bench/analyze.py --agree RESULTDIR RESULTDIR...

Standard library only. Percentiles are nearest-rank: the value of rank
ceil(p/100 * n) in the sorted samples. Every compared pair was measured
interleaved (raw/<name>-r<i>.*, one file set per repetition); each ratio
is the median of the per-repetition ratios, with their min and max.
Anything missing is reported as "not measured: <reason>" (from
<name>.skip, or the missing files).

--agree prints, for every ratio, the medians of several runs and how far
apart they are (the run-to-run agreement issue 17 asks for).
"""
import csv
import glob
import gzip
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

PCTS = [50, 90, 99, 99.9, 100]
PCT_NAMES = ["p50", "p90", "p99", "p99.9", "max"]
SIZE_NAMES = {4096: "4 KiB", 262144: "256 KiB", 1048576: "1 MiB"}
SERVERS = [("goblin-rdma", "Goblin RDMA"), ("goblin-tcp", "Goblin TCP"),
           ("memcached", "memcached TCP")]
# the throughput phases: GET only, SET only (--set-pct 100), the GET/SET mix
PHASES = [("GET", ""), ("SET", "-set"), ("mixed", "-mix")]
STAT_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq",
               "steal"]
TRACE_SIZES = (262144, 4096)
AGREE = 0.10


def nearest_rank(sorted_v, p):
    if not sorted_v:
        return None
    r = math.ceil(p / 100.0 * len(sorted_v))
    r = min(max(r, 1), len(sorted_v))
    return sorted_v[r - 1]


def mean_sd(v):
    if not v:
        return None, None
    m = sum(v) / len(v)
    if len(v) < 2:
        return m, 0.0
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def size_name(s):
    return SIZE_NAMES.get(s, "%d B" % s)


def fmt(v, spec="%.1f"):
    return "n/a" if v is None else spec % v


def spread(v, spec="%.1f"):
    """median (min-max) of a list, or n/a."""
    v = [x for x in v if x is not None]
    if not v:
        return "n/a"
    return (spec + " (" + spec + "-" + spec + ")") % (
        statistics.median(v), min(v), max(v))


def exists(p):
    return os.path.exists(p) or os.path.exists(p + ".gz")


def open_text(p):
    """p, or p.gz (the committed sample keeps its CSVs compressed)."""
    if os.path.exists(p):
        return open(p)
    return gzip.open(p + ".gz", "rt")


def wrk_time_us(x):
    m = re.match(r"([\d.]+)(us|ms|s)$", x)
    if not m:
        return None
    return float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]


class Result:
    def __init__(self, d):
        self.d = d
        self.raw = os.path.join(d, "raw")
        self.params = {}
        p = os.path.join(d, "params.txt")
        if os.path.exists(p):
            for line in open(p):
                for m in re.finditer(r"(\w+)=(\S*)", line):
                    self.params.setdefault(m.group(1), m.group(2))
                if line.startswith("memcached=") or line.startswith("kernel="):
                    k, v = line.rstrip("\n").split("=", 1)
                    self.params[k] = v
        self.hz = 100
        try:
            self.hz = int(self.params.get("user_hz", "100"))
        except ValueError:
            pass
        self.sizes = [int(x) for x in
                      self.params.get("sizes", "").split(",")
                      if x.isdigit()]
        try:
            self.reps = int(self.params.get("reps", "0"))
        except ValueError:
            self.reps = 0
        if not self.reps:
            self.reps = max([int(m.group(1)) for f in glob.glob(os.path.join(self.raw, "*-r*.rc"))
                             for m in [re.search(r"-r(\d+)\.rc$", f)] if m] or [0])

    def why(self, name):
        """Reason a measurement is missing, or None if it exists."""
        p = os.path.join(self.d, name + ".skip")
        if os.path.exists(p):
            return open(p).read().strip() or "skipped"
        return None

    def missing(self, name, what="result"):
        why = self.why(name)
        if not why:
            why = self.why(name + "-r1")
        p = os.path.join(self.raw, name + ".txt")
        if not why and os.path.exists(p):
            why = "no usable result in raw/%s.txt" % name
        return "not measured: %s" % (why or "no %s for %s" % (what, name))

    def rep_tags(self, tag):
        """tag itself if it has files, else its repetitions tag-r1.. that
        were not skipped."""
        if any(exists(os.path.join(self.raw, "%s-%s.csv" % (tag, k)))
               for k in ("latency", "throughput")):
            return [tag]
        return ["%s-r%d" % (tag, r) for r in range(1, self.reps + 1)
                if not self.why("%s-r%d" % (tag, r))]

    def avail(self, name):
        """Share of the guest's CPU time that passed while NAME ran: the
        /proc/stat ticks of all CPUs over (wall time x CPUs x USER_HZ).
        Well below 1, the host did not run the guest's vCPUs (a shared,
        overloaded host); None without raw/NAME.wall."""
        w = os.path.join(self.raw, name + ".wall")
        st = os.path.join(self.raw, name + ".stat")
        if not os.path.exists(w) or not os.path.exists(st):
            # gbbench's own windows carry their wall time and ticks
            rows = self.latcpu(name) + (self.throughput(name) or [])
            cap = sum(r["wall_ns"] / 1e9 * max(r["ncpus"], 1) * (r["hz"] or self.hz)
                      for r in rows)
            if not cap:
                return None
            return sum(sum(r[k] for k in STAT_FIELDS) for r in rows) / cap
        t = [int(x) for x in open(w).read().split() if x.isdigit()]
        lines = [l.split() for l in open(st) if l.startswith("cpu")]
        if len(t) < 2 or len(lines) < 2 or t[1] <= t[0]:
            return None
        ticks = sum(int(b) - int(a) for a, b in zip(lines[0][1:9], lines[1][1:9]))
        try:
            ncpus = int(self.params.get("guest_cpus", "2"))
        except ValueError:
            ncpus = 2
        return ticks / ((t[1] - t[0]) / 1e9 * ncpus * self.hz)

    # --- perftest ---
    def perftest(self, name):
        p = os.path.join(self.raw, name + ".txt")
        if self.why(name) or not os.path.exists(p):
            return None
        for line in open(p):
            f = line.split()
            if len(f) >= 9 and f[0].isdigit() and f[1].isdigit():
                try:
                    v = [float(x) for x in f[2:9]]
                except ValueError:
                    return None
                if not all(math.isfinite(x) for x in v[:4]):
                    return None
                return {"bytes": int(f[0]), "iters": int(f[1]),
                        "t_min": v[0], "t_max": v[1], "t_typical": v[2],
                        "t_avg": v[3], "t_stdev": v[4], "p99": v[5],
                        "p99.9": v[6]}
            if len(f) == 5 and f[0].isdigit() and f[1].isdigit():
                return {"bytes": int(f[0]), "iters": int(f[1]),
                        "bw_peak": float(f[2]), "bw_avg": float(f[3]),
                        "mpps": float(f[4])}
        return None

    def children_cpu(self, name):
        """CPU seconds of the processes a step waited for (bash `times`)."""
        p = os.path.join(self.raw, name + ".times")
        if not os.path.exists(p):
            return None
        vals = []
        for line in open(p):
            f = line.split()
            if len(f) == 2:
                t = 0.0
                for x in f:
                    m = re.match(r"(\d+)m([\d.]+)s", x)
                    if m:
                        t += int(m.group(1)) * 60 + float(m.group(2))
                vals.append(t)
        if len(vals) < 2:
            return None
        return vals[-1] - vals[0]

    # --- wrk ---
    def wrk(self, name):
        p = os.path.join(self.raw, name + ".txt")
        if self.why(name) or not os.path.exists(p):
            return None
        r = {"non2xx": 0, "errors": 0, "lat": {}}
        for line in open(p):
            f = line.split()
            if line.startswith("Requests/sec:"):
                r["rps"] = float(f[1])
            elif re.match(r"\s+\d+ requests in", line):
                r["requests"] = int(f[0])
            elif line.startswith("Non-2xx"):
                r["non2xx"] = int(f[-1])
            elif line.startswith("  Socket errors:"):
                r["errors"] = sum(int(x.rstrip(",")) for x in f[2:] if x.rstrip(",").isdigit())
            elif len(f) == 2 and re.match(r"\d+%$", f[0]):
                r["lat"][int(f[0][:-1])] = wrk_time_us(f[1])
        if "rps" not in r or r["non2xx"] or r["errors"]:
            return None
        return r

    # --- gbbench ---
    def latency(self, tag):
        """Latency columns pooled over the repetitions of tag."""
        if self.why(tag):
            return None
        cols = {"ttfb_ns": [], "payload_ns": [], "complete_ns": [],
                "crc_ns": []}
        for t in self.rep_tags(tag):
            p = os.path.join(self.raw, t + "-latency.csv")
            if not exists(p):
                continue
            with open_text(p) as f:
                for row in csv.DictReader(f):
                    for k in cols:
                        cols[k].append(int(row[k]))
        for k in cols:
            cols[k].sort()
        return cols if cols["complete_ns"] else None

    def median_us(self, tag, col="complete_ns"):
        lat = self.latency(tag)
        return nearest_rank(lat[col], 50) / 1e3 if lat else None

    def latcpu(self, tag):
        """CPU accounting rows of the latency phases of tag."""
        out = []
        for t in self.rep_tags(tag):
            p = os.path.join(self.raw, t + "-latcpu.csv")
            if not exists(p):
                continue
            with open_text(p) as f:
                rows = list(csv.DictReader(f))
            if not rows:
                continue
            r = rows[-1]
            for k in ("wall_ns", "self_ns", "watch_ns", "all_ns", "ncpus", "hz") + \
                    tuple(STAT_FIELDS):
                r[k] = int(r[k])
            out.append(r)
        return out

    def throughput(self, tag):
        """Throughput rows pooled over the repetitions (r["rep"] set)."""
        if self.why(tag):
            return None
        out = []
        for t in self.rep_tags(tag):
            p = os.path.join(self.raw, t + "-throughput.csv")
            if not exists(p):
                continue
            m = re.search(r"-r(\d+)$", t)
            with open_text(p) as f:
                rows = list(csv.DictReader(f))
            for r in rows:
                for k in ("qps", "depth", "run", "wall_ns", "bytes", "self_ns",
                          "watch_ns", "all_ns", "ncpus", "hz", "gets") + tuple(STAT_FIELDS):
                    r[k] = int(r[k])
                r["sets"] = int(r.get("sets") or 0)
                r["gbit_s"] = float(r["gbit_s"])
                r["rep"] = int(m.group(1)) if m else 0
            out += rows
        return out or None

    def gbit(self, tag):
        rows = self.throughput(tag)
        if not rows:
            return None
        return statistics.mean(r["gbit_s"] for r in rows)

    def server_s_per_gb(self, tag):
        """Server threads' CPU seconds per GB of payload over tag's
        throughput windows."""
        rows = self.throughput(tag)
        if not rows:
            return None
        gb = sum(r["bytes"] for r in rows) / 1e9
        return sum(r["watch_ns"] for r in rows) / 1e9 / gb if gb > 0 else None


def cpu_split(r, hz):
    """Shares of guest CPU capacity (ncpus x window) in one gbbench window.

    Thread runtimes come from schedstat (precise); the softirq share is
    the fraction of /proc/stat ticks, a sample (the TCG guest loses ticks).
    """
    cap_ns = float(r["wall_ns"]) * max(r["ncpus"], 1)
    ticks = sum(r[k] for k in STAT_FIELDS)
    if cap_ns <= 0:
        return None
    busy = r["all_ns"] / cap_ns
    if r["all_ns"] >= 1 << 62 or busy < (r["watch_ns"] + r["self_ns"]) / cap_ns:
        # threads exited inside the window (older gbbench): fall back to
        # the sampled /proc/stat busy fraction
        busy = (ticks - r["idle"] - r["iowait"]) / float(ticks) if ticks > 0 else 0.0
        r["all_ns"] = int(busy * cap_ns)
    return {
        "busy": busy,
        "server": r["watch_ns"] / cap_ns,
        "client": r["self_ns"] / cap_ns,
        "softirq": r["softirq"] / float(ticks) if ticks > 0 else 0.0,
    }


def saturation_verdict(sp):
    if sp is None:
        return "no CPU accounting"
    parts = "server threads %.0f%%, client %.0f%%, softirq %.0f%% of guest CPU" % (
        100 * sp["server"], 100 * sp["client"], 100 * sp["softirq"])
    if sp["busy"] >= 0.9:
        top = max(("server CPU", sp["server"]), ("client CPU", sp["client"]),
                  ("softirq (rxe / network stack)", sp["softirq"]),
                  key=lambda x: x[1])
        return "guest CPU saturated (%.0f%% busy; largest: %s); %s" % (
            100 * sp["busy"], top[0], parts)
    return "guest CPU %.0f%% busy (not saturated); %s" % (100 * sp["busy"], parts)


def mean_split(rows, hz):
    sps = [cpu_split(r, r["hz"] or hz) for r in rows]
    sps = [x for x in sps if x]
    if not sps:
        return None
    return {k: statistics.mean(x[k] for x in sps) for k in sps[0]}


# --- the interleaved pairs ---
class Pair:
    """One ratio: A(rep) / B(rep) for every repetition with both sides."""

    def __init__(self, name, a_label, b_label, unit, fa, fb, target=None,
                 section="", tags=()):
        self.name, self.a_label, self.b_label, self.unit = name, a_label, b_label, unit
        self.fa, self.fb, self.target, self.section = fa, fb, target, section
        self.tags = tags

    def compute(self, res):
        self.a, self.b, self.ratios, self.avail = [], [], [], []
        for r in range(1, res.reps + 1):
            a, b = self.fa(r), self.fb(r)
            self.a.append(a)
            self.b.append(b)
            if a is not None and b:
                self.ratios.append(a / b)
                for t in self.tags:
                    v = res.avail("%s-r%d" % (t, r))
                    if v is not None:
                        self.avail.append(v)
        if self.ratios:
            self.median = statistics.median(self.ratios)
            self.lo, self.hi = min(self.ratios), max(self.ratios)
        else:
            self.median = self.lo = self.hi = None
        return self

    def status(self):
        if self.median is None:
            return "not measured"
        if not self.target:
            return "informational"
        op, v = self.target
        ok = (lambda x: x >= v) if op == ">=" else (lambda x: x <= v)
        st = "met" if ok(self.median) else "MISSED"
        if ok(self.lo) != ok(self.hi):
            st += " (spread crosses the target)"
        return st


def pairs(res):
    P = []

    def lat(tag, col="complete_ns"):
        return lambda r: res.median_us("%s-r%d" % (tag, r), col)

    def pt_typ(name):
        def f(r):
            p = res.perftest("%s-r%d" % (name, r))
            return p["t_typical"] if p and "t_typical" in p else None
        return f

    def pt_bw(name):
        def f(r):
            p = res.perftest("%s-r%d" % (name, r))
            return p["bw_avg"] if p and "bw_avg" in p else None
        return f

    def gbit(tag):
        return lambda r: res.gbit("%s-r%d" % (tag, r))

    def cpu_gb(tag):
        return lambda r: res.server_s_per_gb("%s-r%d" % (tag, r))

    def rps(tag):
        def f(r):
            w = res.wrk("%s-r%d" % (tag, r))
            return w["rps"] if w else None
        return f

    tgt_lat = {4096: ("<=", 1.2), 262144: ("<=", 1.05)}
    for s in res.sizes:
        P.append(Pair("Goblin RDMA GET median completion / ib_read_lat typical, %s" % size_name(s),
                      "Goblin RDMA", "ib_read_lat", "us",
                      lat("goblin-rdma-%d" % s), pt_typ("ib_read_lat-%d" % s),
                      tgt_lat.get(s), "rdma",
                      ("goblin-rdma-%d" % s, "ib_read_lat-%d" % s)))
    if 262144 in res.sizes:
        q, d = res.params.get("tp_qps", "2"), res.params.get("tp_depth", "4")
        P.append(Pair("Goblin RDMA 256 KiB GET throughput / ib_write_bw, %s QPs x %s in flight" % (q, d),
                      "Goblin RDMA", "ib_write_bw", "Gbit/s",
                      gbit("goblin-rdma-262144"), pt_bw("ib_write_bw-262144-q%s" % q),
                      (">=", 0.97), "rdma",
                      ("goblin-rdma-262144", "ib_write_bw-262144-q%s" % q)))
    for s in res.sizes:
        P.append(Pair("Goblin TCP / memcached GET throughput, %s" % size_name(s),
                      "Goblin TCP", "memcached", "Gbit/s",
                      gbit("goblin-tcp-%d" % s), gbit("memcached-%d" % s),
                      (">=", 1.5), "tcp", ("goblin-tcp-%d" % s, "memcached-%d" % s)))
    for s in res.sizes:
        P.append(Pair("Goblin TCP / memcached SET throughput, %s" % size_name(s),
                      "Goblin TCP", "memcached", "Gbit/s",
                      gbit("goblin-tcp-set-%d" % s), gbit("memcached-set-%d" % s),
                      (">=", 1.5), "set", ("goblin-tcp-set-%d" % s, "memcached-set-%d" % s)))
    q = res.params.get("set_qps", "2")
    for s in res.sizes:
        P.append(Pair("Goblin RDMA SET throughput / ib_read_bw, %s, %s QPs x 1 in flight" % (size_name(s), q),
                      "Goblin RDMA", "ib_read_bw", "Gbit/s",
                      gbit("goblin-rdma-set-%d" % s), pt_bw("ib_read_bw-%d-q%s" % (s, q)),
                      None, "set", ("goblin-rdma-set-%d" % s, "ib_read_bw-%d-q%s" % (s, q))))
    mix = res.params.get("mix_pct", "10")
    for s in res.sizes:
        P.append(Pair("Goblin TCP / memcached %s%% SET mix throughput, %s" % (mix, size_name(s)),
                      "Goblin TCP", "memcached", "Gbit/s",
                      gbit("goblin-tcp-mix-%d" % s), gbit("memcached-mix-%d" % s),
                      None, "mix", ("goblin-tcp-mix-%d" % s, "memcached-mix-%d" % s)))
    for s in res.sizes:
        P.append(Pair("Goblin RDMA %s%% SET mix / GET-only throughput, %s" % (mix, size_name(s)),
                      "mixed", "GET only", "Gbit/s",
                      gbit("goblin-rdma-mix-%d" % s), gbit("goblin-rdma-%d" % s),
                      None, "mix", ("goblin-rdma-mix-%d" % s, "goblin-rdma-%d" % s)))
    for ph, suf in PHASES:
        for s in res.sizes:
            P.append(Pair("Goblin TCP / memcached server CPU per GB, %s %s" % (ph, size_name(s)),
                          "Goblin TCP", "memcached", "s/GB",
                          cpu_gb("goblin-tcp%s-%d" % (suf, s)), cpu_gb("memcached%s-%d" % (suf, s)),
                          ("<=", 0.5), "cpu",
                          ("goblin-tcp%s-%d" % (suf, s), "memcached%s-%d" % (suf, s))))
    for s in res.sizes:
        P.append(Pair("Goblin TCP / memcached GET median completion, %s" % size_name(s),
                      "Goblin TCP", "memcached", "us",
                      lat("goblin-tcp-%d" % s), lat("memcached-%d" % s),
                      None, "tcp", ("goblin-tcp-%d" % s, "memcached-%d" % s)))
    for s in res.sizes:
        P.append(Pair("Goblin HTTP / nginx GET requests/s (wrk), %s" % size_name(s),
                      "Goblin HTTP", "nginx", "req/s",
                      rps("http-goblin-%d" % s), rps("http-nginx-%d" % s),
                      None, "http", ("http-goblin-%d" % s, "http-nginx-%d" % s)))
    for s in TRACE_SIZES:
        P.append(Pair("Goblin RDMA GET median, traced / untraced, %s" % size_name(s),
                      "traced", "untraced", "us",
                      lat("trace-rdma-%d-on" % s), lat("trace-rdma-%d-off" % s),
                      None, "trace", ("trace-rdma-%d-on" % s, "trace-rdma-%d-off" % s)))
    return [p.compute(res) for p in P]


def plot(res, outdir, lines):
    gp = shutil.which("gnuplot")
    if not gp:
        lines.append("Plot: not drawn: gnuplot not installed.\n")
        return
    pdir = os.path.join(outdir, "plots")
    os.makedirs(pdir, exist_ok=True)
    series = []
    for key, label in SERVERS:
        lat = res.latency("%s-%d" % (key, 262144))
        if not lat:
            continue
        for col, cl in (("complete_ns", "completion"), ("ttfb_ns", "TTFB")):
            fn = os.path.join(pdir, "cdf-%s-%s.dat" % (key, cl))
            v = lat[col]
            with open(fn, "w") as f:
                for i, x in enumerate(v):
                    f.write("%.3f %.6f\n" % (x / 1e3, (i + 1) / float(len(v))))
            series.append((fn, "%s %s" % (label, cl)))
    if not series:
        lines.append("Plot: nothing to plot.\n")
        return
    script = ["set terminal pngcairo size 900,560 noenhanced",
              "set grid", "set key bottom right",
              "set output '%s'" % os.path.join(outdir, "latency-cdf.png"),
              "set title 'GET latency CDF, 256 KiB, one outstanding request, all repetitions'",
              "set xlabel 'microseconds (log)'", "set logscale x",
              "set ylabel 'fraction of requests'", "set yrange [0:1]",
              "plot " + ", ".join("'%s' using 1:2 with lines lw 2 title '%s'" % s
                                  for s in series)]
    with open(os.path.join(pdir, "plots.gp"), "w") as f:
        f.write("\n".join(script) + "\n")
    try:
        subprocess.run([gp, os.path.join(pdir, "plots.gp")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except subprocess.CalledProcessError as e:
        lines.append("Plot: gnuplot failed: %s\n" % e.stderr.decode(errors="replace").strip())
        return
    lines.append("![latency CDF](latency-cdf.png)\n")


def ratio_table(res, L, PR):
    L.append("## Ratios (interleaved repetitions)\n")
    L.append("Each pair was measured back to back in every repetition (A then "
             "B on odd repetitions, B then A on even ones), with the same "
             "sizes and in-flight counts. Ratio: the median of the "
             "per-repetition ratios A/B, with their min-max; n: repetitions "
             "where both sides were measured. The side columns give each "
             "side's own median (min-max) over the repetitions. Guest ran: "
             "the lowest share, over those measurements, of the guest's CPU "
             "time that passed while they ran (/proc/stat ticks over wall "
             "time x vCPUs); well below 100%% the host did not run the "
             "guest's vCPUs for that share of the time (a shared, loaded "
             "host), which inflates latencies and makes ratios noisy. "
             "Targets are reported, never asserted.\n")
    L.append("| ratio (A / B) | median | min-max | n | target | status | A | B | guest ran |")
    L.append("|---|---:|---|---:|---|---|---|---|---:|")
    for p in PR:
        tg = "%s %s" % p.target if p.target else "(none)"
        if p.median is None:
            why = []
            for side, f in (("A", p.fa), ("B", p.fb)):
                if all(f(r) is None for r in range(1, res.reps + 1)):
                    why.append(side)
            L.append("| %s | n/a | | 0 | %s | not measured (%s missing) | | | |" % (
                p.name, tg, " and ".join(why) or "no repetition with both"))
            continue
        L.append("| %s | **%.3f** | %.3f-%.3f | %d | %s | %s | %s: %s %s | %s: %s %s | %s |" % (
            p.name, p.median, p.lo, p.hi, len(p.ratios), tg, p.status(),
            p.a_label, spread(p.a, "%.4g" if p.unit != "us" else "%.1f"), p.unit,
            p.b_label, spread(p.b, "%.4g" if p.unit != "us" else "%.1f"), p.unit,
            "%.0f%%" % (100 * min(p.avail)) if p.avail else "n/a"))
    L.append("")


def latency_section(res, L):
    L.append("## GET latency (one connection, one outstanding request)\n")
    L.append("Nearest-rank percentiles in microseconds, from submission, over "
             "the GETs of all repetitions together. TTFB: response header "
             "visible; payload: last value byte in client memory; "
             "completion: response fully consumed. ib_read_lat: its typical "
             "(median) time per repetition, the same iteration count.\n")
    for s in res.sizes:
        L.append("### %s\n" % size_name(s))
        L.append("| server | point | n | " + " | ".join(PCT_NAMES) + " |")
        L.append("|---|---|---:|" + "---:|" * len(PCT_NAMES))
        for key, label in SERVERS:
            tag = "%s-%d" % (key, s)
            lat = res.latency(tag)
            if not lat:
                L.append("| %s | | | %s |" % (label, res.missing(tag, "latency CSV")) +
                         " |" * (len(PCT_NAMES) - 1))
                continue
            for col, cl in (("ttfb_ns", "TTFB"), ("payload_ns", "payload"),
                            ("complete_ns", "completion")):
                v = lat[col]
                L.append("| %s | %s | %d | %s |" % (
                    label, cl, len(v),
                    " | ".join(fmt(nearest_rank(v, p) / 1e3) for p in PCTS)))
        typ = []
        for r in range(1, res.reps + 1):
            p = res.perftest("ib_read_lat-%d-r%d" % (s, r))
            typ.append(p["t_typical"] if p and "t_typical" in p else None)
        if any(x is not None for x in typ):
            L.append("\nib_read_lat %s typical per repetition: %s us (median (min-max) %s).\n" % (
                size_name(s), ", ".join(fmt(x) for x in typ), spread(typ)))
        else:
            L.append("\nib_read_lat %s: %s.\n" % (size_name(s), res.missing("ib_read_lat-%d" % s)))
    p = res.perftest("ib_send_lat-512")
    if p and "t_typical" in p:
        m = res.median_us("goblin-rdma-262144", "ttfb_ns")
        L.append("ib_send_lat 512 B (a Goblin control record's size): typical "
                 "%.1f us (min %.1f, p99 %.1f); perftest reports send latency "
                 "as half a ping-pong round trip.%s\n" % (
                     p["t_typical"], p["t_min"], p["p99"],
                     " Goblin RDMA 256 KiB median TTFB / (2 x ib_send_lat): %.2f." % (
                         m / (2 * p["t_typical"])) if m else ""))
    else:
        L.append("ib_send_lat 512 B: %s\n" % res.missing("ib_send_lat-512"))
    L.append("### CRC32C validation cost (--validate, 256 KiB, one run)\n")
    for key, label in SERVERS:
        tag = "%s-validate-262144" % key
        lat = res.latency(tag)
        if not lat:
            L.append("- %s: %s" % (label, res.missing(tag)))
            continue
        L.append("- %s: CRC32C median %.1f us per GET (p99 %.1f); completion "
                 "median with validation %.1f us (CRC time is outside the "
                 "completion timestamps)." % (
                     label, nearest_rank(lat["crc_ns"], 50) / 1e3,
                     nearest_rank(lat["crc_ns"], 99) / 1e3,
                     nearest_rank(lat["complete_ns"], 50) / 1e3))
    L.append("")


def timelines(res, L, PR):
    """Per-request timelines of bench/guest-suite's tracing pair."""
    L.append("## Per-request timelines (tracepoints)\n")
    L.append("`tools/gbtrace` over the latency phase of one connection "
             "(Documentation/tracing.rst): for the most common sequence of "
             "server events of a GET, each event's time since the request "
             "record arrived (cumulative) and since the previous event "
             "(delta), in microseconds; then the client's view from "
             "libgoblin's timestamps. Tables of the last traced repetition. "
             "Cost of tracing: the same latency phase with the goblin "
             "tracepoints disabled and enabled, interleaved repetitions.\n")
    cost = {p.name: p for p in PR if p.section == "trace"}
    for s in TRACE_SIZES:
        tag = "trace-rdma-%d" % s
        L.append("### GET %s over RDMA\n" % size_name(s))
        why = res.why(tag)
        if why:
            L.append("Not measured: %s.\n" % why)
            continue
        p = cost.get("Goblin RDMA GET median, traced / untraced, %s" % size_name(s))
        if p and p.median is not None:
            L.append("Cost of tracing: GET median completion %s us untraced, "
                     "%s us traced (median (min-max) over %d repetitions); "
                     "traced / untraced per repetition: median **%.3f** "
                     "(%.3f-%.3f).\n" % (spread(p.b), spread(p.a), len(p.ratios),
                                         p.median, p.lo, p.hi))
        else:
            L.append("Cost of tracing: %s.\n" % res.missing(tag + "-on"))
        ts = os.path.join(res.raw, tag + ".tracesize")
        for side in ("server", "client"):
            fn = os.path.join(res.raw, "%s-%s.table" % (tag, side))
            L.append("%s:\n" % side.capitalize())
            if os.path.exists(fn) and os.path.getsize(fn):
                L.append("```")
                L.append(open(fn).read().rstrip())
                L.append("```\n")
            else:
                L.append("(no table)\n")
        if os.path.exists(ts):
            L.append("Raw trace (not kept): %s.\n" % open(ts).read().strip())


def tp_table(res, L, suf, s, sets, peer=None):
    """One size's throughput table: every server's windows of the phase
    with tag suffix @suf (SET/s column with @sets), then @peer's (label,
    perftest name without -r<i>) per-repetition bandwidth."""
    cols = ["Gbit/s", "GET/s"] + (["SET/s"] if sets else []) + \
        ["guest busy", "server CPU", "client CPU", "softirq", "guest ran"]
    rest = " |" * len(cols)
    L.append("| server | rep | %s |" % " | ".join(cols))
    L.append("|---|---:|" + "---:|" * len(cols))
    for key, label in SERVERS:
        tag = "%s%s-%d" % (key, suf, s)
        rows = res.throughput(tag)
        if not rows:
            L.append("| %s | | %s%s" % (label, res.missing(tag, "throughput CSV"), rest))
            continue
        for r in rows:
            sp = cpu_split(r, r["hz"] or res.hz)
            w = r["wall_ns"] / 1e9
            ticks = sum(r[k] for k in STAT_FIELDS)
            ran = ticks / (w * max(r["ncpus"], 1) * (r["hz"] or res.hz))
            cells = ["%.3f" % r["gbit_s"], "%.0f" % (r["gets"] / w)]
            if sets:
                cells.append("%.0f" % (r["sets"] / w))
            cells += [("%.0f%%" % (100 * sp[k])) if sp else "n/a"
                      for k in ("busy", "server", "client", "softirq")]
            cells.append("%.0f%%" % (100 * ran))
            L.append("| %s | %d | %s |" % (label, r["rep"], " | ".join(cells)))
        L.append("| %s | **median (min-max)** | **%s**%s" % (
            label, spread([r["gbit_s"] for r in rows], "%.3f"), rest))
    if not peer:
        return
    label, name = peer
    bw = []
    for r in range(1, res.reps + 1):
        p = res.perftest("%s-r%d" % (name, r))
        if p and "bw_avg" in p:
            bw.append(p["bw_avg"])
            ran = res.avail("%s-r%d" % (name, r))
            L.append("| %s | %d | %.3f |%s %s |" % (
                label, r, p["bw_avg"], " |" * (len(cols) - 2),
                fmt(ran and 100 * ran, "%.0f%%")))
    if bw:
        L.append("| %s | **median (min-max)** | **%s**%s" % (label, spread(bw, "%.3f"), rest))
    else:
        L.append("| %s | | %s%s" % (label, res.missing(name), rest))


def throughput_section(res, L):
    q, d = res.params.get("tp_qps", "?"), res.params.get("tp_depth", "?")
    L.append("## GET throughput (closed loop, %s QPs x %s in flight each)\n" % (q, d))
    L.append("Payload bytes of GETs completed inside the measurement window, "
             "one window per repetition; guest busy / server / client CPU are "
             "shares of both vCPUs over the window (schedstat), softirq a "
             "/proc/stat sample. ib_write_bw: `-q %s -t %s`, its average.\n" % (q, d))
    for s in res.sizes:
        L.append("### %s\n" % size_name(s))
        peer = ("ib_write_bw", "ib_write_bw-262144-q%s" % q) if s == 262144 else None
        tp_table(res, L, "", s, False, peer)
        L.append("")


def write_section(res, L):
    q, d = res.params.get("tp_qps", "?"), res.params.get("tp_depth", "?")
    mix = res.params.get("mix_pct", "?")
    L.append("## SET and mixed throughput\n")
    L.append("SET: %s connections (QPs), each with one synchronous SET in "
             "flight, rewriting 4 corpus objects per connection with their own "
             "bytes (gbbench `--set-pct 100`). Mixed: the GET phase's %s x %s "
             "GETs in flight, and %s%% of the operations are SETs, sent on a "
             "second connection of each stream (`--set-pct %s`); every GET is "
             "still checked (key, length, status). Gbit/s counts the payload "
             "of both. ib_read_bw (the "
             "RDMA SET peer: the server pulls a SET's value with RDMA READs): "
             "`-q %s -t 1 -o 1`, its average.\n" % (q, q, d, mix, mix, q))
    for ph, suf in PHASES[1:]:
        for s in res.sizes:
            L.append("### %s, %s\n" % (ph, size_name(s)))
            peer = None
            if ph == "SET":
                peer = ("ib_read_bw", "ib_read_bw-%d-q%s" % (s, res.params.get("set_qps", "2")))
            tp_table(res, L, suf, s, True, peer)
            L.append("")


def http_section(res, L):
    P = res.params
    L.append("## HTTP GET: Goblin's listener vs nginx (wrk)\n")
    L.append("`wrk -t %s -c %s -d %ss` on one URL per size: Goblin's in-kernel "
             "HTTP listener (Documentation/http.rst) serving key `v<size>`, "
             "nginx-light %s (2 workers, sendfile) serving the same bytes as "
             "a file on the guest's tmpfs. Latency percentiles are wrk's "
             "(microseconds), per repetition.\n" % (
                 P.get("wrk_threads", "?"), P.get("wrk_conns", "?"),
                 P.get("wrk_s", "?"), P.get("nginx", "")))
    for s in res.sizes:
        L.append("### %s\n" % size_name(s))
        L.append("| server | rep | requests/s | Gbit/s | p50 | p90 | p99 |")
        L.append("|---|---:|---:|---:|---:|---:|---:|")
        for key, label in (("http-goblin", "Goblin HTTP"), ("http-nginx", "nginx")):
            got = []
            for r in range(1, res.reps + 1):
                w = res.wrk("%s-%d-r%d" % (key, s, r))
                if not w:
                    continue
                got.append(w["rps"])
                L.append("| %s | %d | %.0f | %.3f | %s | %s | %s |" % (
                    label, r, w["rps"], w["rps"] * s * 8 / 1e9,
                    *(fmt(w["lat"].get(p), "%.0f") for p in (50, 90, 99))))
            if got:
                L.append("| %s | **median (min-max)** | **%s** | | | | |" % (label, spread(got, "%.0f")))
            else:
                L.append("| %s | | %s | | | | |" % (label, res.missing("%s-%d" % (key, s))))
        L.append("")


def cpu_section(res, L):
    L.append("## Server-side CPU cost per GB served\n")
    L.append("Seconds of CPU per GB of payload over the throughput windows of "
             "all repetitions. Server CPU: Goblin's work runs on kernel "
             "workqueues, so it is the runtime of the `kworker` threads (plus "
             "any `goblin*`/`gb-*` threads); memcached: its own threads. All "
             "threads: every thread's runtime (softirq work such as rxe and "
             "the TCP stack is charged to the thread it interrupted). "
             "ib_write_bw: user+system time of both perftest processes (they "
             "busy-poll), setup included.\n")
    L.append("| workload | GB | server CPU s/GB | client CPU s/GB | all threads s/GB | softirq share |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for ph, suf in PHASES:
        for s in res.sizes:
            cpu_rows(res, L, ph, suf, s)
    cpu_peers(res, L)


def cpu_rows(res, L, ph, suf, s):
    for key, label in SERVERS:
        rows = res.throughput("%s%s-%d" % (key, suf, s))
        if not rows:
            continue
        gb = sum(r["bytes"] for r in rows) / 1e9
        if gb <= 0:
            continue
        ticks = sum(sum(r[k] for k in STAT_FIELDS) for r in rows)
        L.append("| %s %s %s | %.3f | %.2f | %.2f | %.2f | %s |" % (
            label, ph, size_name(s), gb,
            sum(r["watch_ns"] for r in rows) / 1e9 / gb,
            sum(r["self_ns"] for r in rows) / 1e9 / gb,
            sum(r["all_ns"] for r in rows) / 1e9 / gb,
            "%.0f%%" % (100.0 * sum(r["softirq"] for r in rows) / ticks) if ticks else "n/a"))


def cpu_peers(res, L):
    q = res.params.get("tp_qps", "2")
    gb = cpu = 0.0
    for r in range(1, res.reps + 1):
        name = "ib_write_bw-262144-q%s-r%d" % (q, r)
        p, c = res.perftest(name), res.children_cpu(name)
        if p and "bw_avg" in p and c is not None:
            gb += p["bytes"] * p["iters"] * int(q) / 1e9
            cpu += c
    if gb:
        L.append("| ib_write_bw 256 KiB q%s (both ends, incl. setup) | %.3f | n/a | n/a | %.2f | n/a |"
                 % (q, gb, cpu / gb))
    L.append("")


def notes(res, L):
    L.append("## Where the CPU went in the compared windows\n")
    for ph, suf in PHASES:
        for key, label in SERVERS:
            for s in res.sizes:
                rows = res.throughput("%s%s-%d" % (key, suf, s))
                if rows:
                    L.append("- %s %s %s throughput: %s." % (
                        label, ph, size_name(s), saturation_verdict(mean_split(rows, res.hz))))
    lc = res.latcpu("goblin-rdma-262144")
    if lc:
        L.append("- Goblin RDMA 256 KiB latency phase: %s." % saturation_verdict(mean_split(lc, res.hz)))
    L.append("\n\"Guest CPU saturated\" means the threads' runtime adds up to "
             ">= 90% of both vCPUs over the window (mean over repetitions); "
             "client, server and rxe (softirq) compete for the same two "
             "emulated CPUs in this setup.\n")


def report(d):
    res = Result(d)
    L = []
    P = res.params
    L.append("# Goblin Store benchmark report\n")
    L.append("Run: `%s`, %s, kernel %s, guest CPUs %s, %d interleaved "
             "repetitions (qemu TCG: absolute numbers are ~100x below "
             "hardware; the ratios are the point).\n"
             % (os.path.basename(os.path.abspath(d)), P.get("date", "?"),
                P.get("kernel", "?"), P.get("guest_cpus", "?"), res.reps))
    PR = pairs(res)
    ratio_table(res, L, PR)
    latency_section(res, L)
    timelines(res, L, PR)
    plot(res, d, L)
    throughput_section(res, L)
    write_section(res, L)
    http_section(res, L)
    cpu_section(res, L)
    notes(res, L)
    L.append("## Parameters\n")
    L.append("```")
    if os.path.exists(os.path.join(d, "params.txt")):
        L.append(open(os.path.join(d, "params.txt")).read().rstrip())
    L.append("```\n")
    L.append("Client and server share the guest's CPUs; all traffic is on the "
             "emulated rxe link (Soft-RoCE) or TCP inside the guest. Exact "
             "commands: `commands.txt`; raw outputs and CSVs: `raw/`.\n")
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def agree(dirs):
    runs = [(os.path.basename(os.path.abspath(d)), {p.name: p for p in pairs(Result(d))})
            for d in dirs]
    names = []
    for _, pr in runs:
        names += [n for n in pr if n not in names]
    out = ["| ratio | " + " | ".join("%s median (min-max)" % r for r, _ in runs) +
           " | max-min of medians / mean | within %d%% |" % (100 * AGREE),
           "|---|" + "---|" * len(runs) + "---:|---|"]
    nok = nall = 0
    for n in names:
        cells, meds = [], []
        for _, pr in runs:
            p = pr.get(n)
            if p is None or p.median is None:
                cells.append("n/a")
            else:
                cells.append("%.3f (%.3f-%.3f)" % (p.median, p.lo, p.hi))
                meds.append(p.median)
        if len(meds) >= 2:
            dev = (max(meds) - min(meds)) / statistics.mean(meds)
            ok = dev <= AGREE
            nall += 1
            nok += ok
            out.append("| %s | %s | %.1f%% | %s |" % (n, " | ".join(cells), 100 * dev,
                                                     "yes" if ok else "**no**"))
        else:
            out.append("| %s | %s | n/a | n/a |" % (n, " | ".join(cells)))
    out.append("\n%d of %d ratios measured in every run agree within %d%%." % (
        nok, nall, 100 * AGREE))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--agree":
        sys.stdout.write(agree(sys.argv[2:]))
        return 0
    if len(sys.argv) != 2:
        sys.stderr.write("usage: analyze.py RESULTDIR | --agree RESULTDIR RESULTDIR...\n")
        return 2
    report(sys.argv[1])
    print(os.path.join(sys.argv[1], "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
