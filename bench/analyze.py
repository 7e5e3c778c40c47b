#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a bench/guest-suite result directory into report.md and plots.

usage: bench/analyze.py RESULTDIR

Standard library only. Percentiles are nearest-rank: the value of rank
ceil(p/100 * n) in the sorted samples. Anything missing is reported as
"not measured: <reason>" (from <name>.skip, or the missing files).
"""
import csv
import glob
import math
import os
import re
import shutil
import subprocess
import sys

PCTS = [50, 90, 99, 99.9, 99.99, 100]
PCT_NAMES = ["p50", "p90", "p99", "p99.9", "p99.99", "max"]
SIZE_NAMES = {4096: "4 KiB", 262144: "256 KiB", 1048576: "1 MiB"}
SERVERS = [("goblin-rdma", "Goblin RDMA"), ("goblin-tcp", "Goblin TCP"),
           ("memcached", "memcached TCP")]
STAT_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq",
               "steal"]


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
        if not self.sizes:
            self.sizes = sorted({int(m.group(1)) for f in
                                 glob.glob(os.path.join(self.raw, "*-latency.csv"))
                                 for m in [re.search(r"-(\d+)-latency", f)] if m})

    def why(self, name):
        """Reason a measurement is missing, or None if it exists."""
        p = os.path.join(self.d, name + ".skip")
        if os.path.exists(p):
            return open(p).read().strip() or "skipped"
        return None

    def missing(self, name, what="result"):
        why = self.why(name)
        p = os.path.join(self.raw, name + ".txt")
        if not why and os.path.exists(p):
            why = "no usable result in raw/%s.txt" % name
        return "not measured: %s" % (why or "no %s for %s" % (what, name))

    def stat_delta(self, name):
        p = os.path.join(self.raw, name + ".stat")
        if not os.path.exists(p):
            return None
        lines = [l.split() for l in open(p) if l.startswith("cpu")]
        if len(lines) < 2:
            return None
        a = [int(x) for x in lines[0][1:9]]
        b = [int(x) for x in lines[1][1:9]]
        return dict(zip(STAT_FIELDS, [y - x for x, y in zip(a, b)]))

    # --- perftest ---
    def perftest(self, name):
        p = os.path.join(self.raw, name + ".txt")
        if self.why(name) or not os.path.exists(p):
            return None
        for line in open(p):
            f = line.split()
            if len(f) >= 9 and f[0].isdigit() and f[1].isdigit():
                v = [float(x) for x in f[2:9]]
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

    # --- gbbench ---
    def latency(self, tag):
        p = os.path.join(self.raw, tag + "-latency.csv")
        if self.why(tag) or not os.path.exists(p):
            return None
        cols = {"ttfb_ns": [], "payload_ns": [], "complete_ns": [],
                "crc_ns": []}
        with open(p) as f:
            for row in csv.DictReader(f):
                for k in cols:
                    cols[k].append(int(row[k]))
        for k in cols:
            cols[k].sort()
        return cols if cols["complete_ns"] else None

    def latcpu(self, tag):
        """CPU accounting over the whole latency phase (one row), or None."""
        p = os.path.join(self.raw, tag + "-latcpu.csv")
        if self.why(tag) or not os.path.exists(p):
            return None
        with open(p) as f:
            rows = list(csv.DictReader(f))
        if not rows:
            return None
        r = rows[-1]
        for k in ("wall_ns", "self_ns", "watch_ns", "all_ns", "ncpus", "hz") + \
                tuple(STAT_FIELDS):
            r[k] = int(r[k])
        return r

    def throughput(self, tag):
        p = os.path.join(self.raw, tag + "-throughput.csv")
        if self.why(tag) or not os.path.exists(p):
            return None
        with open(p) as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            for k in ("qps", "depth", "run", "wall_ns", "bytes", "self_ns",
                      "watch_ns", "all_ns", "ncpus", "hz", "gets") + tuple(STAT_FIELDS):
                r[k] = int(r[k])
            r["gbit_s"] = float(r["gbit_s"])
        return rows or None


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
        "busy_s": r["all_ns"] / 1e9,
        "server_s": r["watch_ns"] / 1e9,
        "client_s": r["self_ns"] / 1e9,
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


def best_at_qps(rows, qps):
    """Best Gbit/s at a QP count: confirm mean if confirmed there, else
    the best sweep point. Returns (gbit, sd, row used, label)."""
    conf = [r for r in rows if r["kind"] == "confirm" and r["qps"] == qps]
    if conf:
        m, sd = mean_sd([r["gbit_s"] for r in conf])
        return m, sd, conf[-1], "confirm x%d depth %d" % (len(conf), conf[0]["depth"])
    sw = [r for r in rows if r["kind"] == "sweep" and r["qps"] == qps]
    if not sw:
        return None, None, None, ""
    b = max(sw, key=lambda r: r["gbit_s"])
    return b["gbit_s"], None, b, "sweep depth %d" % b["depth"]


def saturation_point(rows):
    conf = [r for r in rows if r["kind"] == "confirm"]
    if not conf:
        return None
    m, sd = mean_sd([r["gbit_s"] for r in conf])
    return {"qps": conf[0]["qps"], "depth": conf[0]["depth"], "mean": m,
            "sd": sd, "n": len(conf), "row": conf[-1]}


def target_line(name, value, target, cmp, unit=""):
    if value is None:
        return "| %s | %s | %s | not measured |" % (name, "n/a", target)
    ok = value >= cmp if target.startswith(">=") else value <= cmp
    return "| %s | %.3f%s | %s | %s |" % (name, value, unit, target,
                                        "met" if ok else "MISSED")


def plot(res, outdir, lines):
    gp = shutil.which("gnuplot")
    if not gp:
        lines.append("Plots: not drawn: gnuplot not installed.\n")
        return
    pdir = os.path.join(outdir, "plots")
    os.makedirs(pdir, exist_ok=True)
    cdf_series = []
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
            cdf_series.append((fn, "%s %s" % (label, cl)))
    tp_series = []
    for key, label in SERVERS:
        rows = res.throughput("%s-%d" % (key, 262144))
        if not rows:
            continue
        fn = os.path.join(pdir, "tp-%s.dat" % key)
        with open(fn, "w") as f:
            for q in sorted({r["qps"] for r in rows}):
                g = best_at_qps(rows, q)[0]
                f.write("%d %.4f\n" % (q, g))
        tp_series.append((fn, label))
    for tool in ("ib_write_bw", "ib_read_bw"):
        pts = []
        for q in (1, 2, 4, 8, 16):
            p = res.perftest("%s-262144-q%d" % (tool, q))
            if p and "bw_avg" in p:
                pts.append((q, p["bw_avg"]))
        if pts:
            fn = os.path.join(pdir, "tp-%s.dat" % tool)
            with open(fn, "w") as f:
                for q, g in pts:
                    f.write("%d %.4f\n" % (q, g))
            tp_series.append((fn, tool))
    script = ["set terminal pngcairo size 900,560 noenhanced",
              "set grid", "set key bottom right"]
    if cdf_series:
        script += ["set output '%s'" % os.path.join(outdir, "latency-cdf.png"),
                   "set title 'GET latency CDF, 256 KiB, one outstanding request'",
                   "set xlabel 'microseconds (log)'", "set logscale x",
                   "set ylabel 'fraction of requests'", "set yrange [0:1]",
                   "plot " + ", ".join("'%s' using 1:2 with lines lw 2 title '%s'" % s
                                       for s in cdf_series),
                   "unset logscale x", "set autoscale y"]
    if tp_series:
        script += ["set output '%s'" % os.path.join(outdir, "throughput-qps.png"),
                   "set title 'GET payload throughput vs QPs, 256 KiB'",
                   "set xlabel 'QPs (connections)'", "set ylabel 'Gbit/s'",
                   "set key top left", "set logscale x 2", "set yrange [0:*]",
                   "plot " + ", ".join("'%s' using 1:2 with linespoints lw 2 title '%s'" % s
                                       for s in tp_series)]
    if not cdf_series and not tp_series:
        lines.append("Plots: nothing to plot.\n")
        return
    with open(os.path.join(pdir, "plots.gp"), "w") as f:
        f.write("\n".join(script) + "\n")
    try:
        subprocess.run([gp, os.path.join(pdir, "plots.gp")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except subprocess.CalledProcessError as e:
        lines.append("Plots: gnuplot failed: %s\n" % e.stderr.decode(errors="replace").strip())
        return
    if cdf_series:
        lines.append("![latency CDF](latency-cdf.png)\n")
    if tp_series:
        lines.append("![throughput vs QPs](throughput-qps.png)\n")


def report(d):
    res = Result(d)
    L = []
    P = res.params
    L.append("# Goblin Store benchmark report\n")
    L.append("Run: `%s`, %s, kernel %s, guest CPUs %s (qemu TCG: absolute "
             "numbers are ~100x below hardware; the ratios are the point).\n"
             % (os.path.basename(os.path.abspath(d)), P.get("date", "?"),
                P.get("kernel", "?"), P.get("guest_cpus", "?")))
    L.append("## Parameters\n")
    L.append("```")
    if os.path.exists(os.path.join(d, "params.txt")):
        L.append(open(os.path.join(d, "params.txt")).read().rstrip())
    L.append("```\n")
    L.append("Client and server share the guest's CPUs; all traffic is on the "
             "emulated rxe link (Soft-RoCE) or TCP inside the guest. Exact "
             "commands: `commands.txt`; raw outputs and CSVs: `raw/`.\n")

    # --- latency ---
    L.append("## GET latency (one connection, one outstanding request)\n")
    L.append("Nearest-rank percentiles in microseconds, from submission. "
             "TTFB: response header visible; payload: last value byte in "
             "client memory; completion: response fully consumed.\n")
    med = {}
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
                med[(key, s, col)] = nearest_rank(v, 50) / 1e3
        pl = []
        for tool in ("ib_read_lat", "ib_write_lat"):
            p = res.perftest("%s-%d" % (tool, s))
            if p and "t_typical" in p:
                pl.append("%s typical %.1f us (min %.1f, p99 %.1f, max %.1f, %d iters)"
                          % (tool, p["t_typical"], p["t_min"], p["p99"],
                             p["t_max"], p["iters"]))
            else:
                pl.append("%s: %s" % (tool, res.missing("%s-%d" % (tool, s))))
        L.append("\nPeers at %s: %s.\n" % (size_name(s), "; ".join(pl)))
    p = res.perftest("ib_send_lat-512")
    if p and "t_typical" in p:
        L.append("ib_send_lat 512 B: typical %.1f us (min %.1f, p99 %.1f). "
                 "perftest reports send/write latency as half a ping-pong "
                 "round trip, read latency as a full round trip.\n"
                 % (p["t_typical"], p["t_min"], p["p99"]))
    else:
        L.append("ib_send_lat 512 B: %s\n" % res.missing("ib_send_lat-512"))

    # --validate cost
    L.append("### CRC32C validation cost (--validate, 256 KiB)\n")
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

    # --- throughput ---
    L.append("## GET throughput (closed loop, one thread per QP)\n")
    L.append("Payload bytes of GETs completed inside the measurement window. "
             "Saturation point: first sweep point within %s of the best; "
             "confirmation runs give run-to-run stddev.\n"
             % P.get("sat_frac", "0.95"))
    tp = {}
    for s in res.sizes:
        L.append("### %s\n" % size_name(s))
        L.append("| server | kind | QPs | depth | Gbit/s | GET/s | guest busy | server CPU | client CPU | softirq |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for key, label in SERVERS:
            tag = "%s-%d" % (key, s)
            rows = res.throughput(tag)
            if not rows:
                L.append("| %s | %s | | | | | | | | |" % (label, res.missing(tag, "throughput CSV")))
                continue
            tp[(key, s)] = rows
            for r in rows:
                sp = cpu_split(r, r["hz"] or res.hz)
                L.append("| %s | %s | %d | %d | %.3f | %.0f | %s | %s | %s | %s |" % (
                    label, r["kind"], r["qps"], r["depth"], r["gbit_s"],
                    r["gets"] / (r["wall_ns"] / 1e9),
                    *(("%.0f%%" % (100 * sp[k])) if sp else "n/a"
                      for k in ("busy", "server", "client", "softirq"))))
            sat = saturation_point(rows)
            if sat:
                L.append("| %s | **saturation** | %d | %d | **%.3f ± %.3f** | | | | | |"
                         % (label, sat["qps"], sat["depth"], sat["mean"], sat["sd"]))
        if s == 262144:
            for tool in ("ib_write_bw", "ib_read_bw"):
                for q in (1, 2, 4, 8):
                    p = res.perftest("%s-262144-q%d" % (tool, q))
                    if p and "bw_avg" in p:
                        L.append("| %s | peer | %d | | %.3f | | | | | |" % (tool, q, p["bw_avg"]))
                    elif os.path.exists(os.path.join(res.raw, "%s-262144-q%d.txt" % (tool, q))) or res.why("%s-262144-q%d" % (tool, q)):
                        L.append("| %s | %s | %d | | | | | | | |" % (tool, res.missing("%s-262144-q%d" % (tool, q)), q))
        L.append("")
    plot(res, d, L)

    # --- server-side CPU cost ---
    L.append("## Server-side CPU cost per GB served\n")
    L.append("Seconds of CPU per GB of payload over the throughput windows "
             "(confirmation runs). Server CPU: Goblin's work runs on kernel "
             "workqueues, so it is the runtime of the `kworker` threads (plus "
             "any `goblin*`/`gb-*` threads; the guest runs little other "
             "kworker work); memcached: its own threads. All threads: every "
             "thread's runtime (softirq work such as rxe and the TCP stack is "
             "charged to the thread it interrupted). Runtimes are schedstat "
             "deltas; the softirq share is sampled from /proc/stat ticks. "
             "perftest peers: user+system time of both perftest processes "
             "(they busy-poll their completion queues), setup included.\n")
    L.append("| workload | GB | server CPU s/GB | client CPU s/GB | all threads s/GB | softirq share |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for (key, s), rows in sorted(tp.items()):
        sat = saturation_point(rows)
        use = [r for r in rows if r["kind"] == "confirm"] or rows
        gb = sum(r["bytes"] for r in use) / 1e9
        if gb <= 0:
            continue
        ticks = sum(sum(r[k] for k in STAT_FIELDS) for r in use)
        L.append("| %s %s%s | %.3f | %.2f | %.2f | %.2f | %s |" % (
            dict(SERVERS)[key], size_name(s),
            " (q%d d%d)" % (sat["qps"], sat["depth"]) if sat else "", gb,
            sum(r["watch_ns"] for r in use) / 1e9 / gb,
            sum(r["self_ns"] for r in use) / 1e9 / gb,
            sum(r["all_ns"] for r in use) / 1e9 / gb,
            "%.0f%%" % (100.0 * sum(r["softirq"] for r in use) / ticks) if ticks else "n/a"))
    for tool in ("ib_write_bw", "ib_read_bw"):
        for q in (1, 2, 4, 8):
            name = "%s-262144-q%d" % (tool, q)
            p = res.perftest(name)
            cpu = res.children_cpu(name)
            if not p or "bw_avg" not in p or cpu is None:
                continue
            gb = p["bytes"] * p["iters"] * q / 1e9
            L.append("| %s 256 KiB q%d (both ends, whole run incl. setup) | %.3f | n/a | n/a | %.2f | n/a |"
                     % (tool, q, gb, cpu / gb))
    L.append("")

    # --- ratios and targets ---
    L.append("## Ratios and targets\n")
    L.append("| ratio | value | target | status |")
    L.append("|---|---:|---|---|")
    notes = []
    # 1. throughput vs ib_write_bw at 2 QPs
    wb = res.perftest("ib_write_bw-262144-q2")
    rows = tp.get(("goblin-rdma", 262144))
    r1 = None
    if rows and wb and "bw_avg" in wb and wb["bw_avg"] > 0:
        g, sd, row, how = best_at_qps(rows, 2)
        if g is not None:
            r1 = g / wb["bw_avg"]
            notes.append("Goblin RDMA 256 KiB at 2 QPs: %.3f Gbit/s (%s) vs "
                         "ib_write_bw 2 QPs %.3f Gbit/s. %s." % (
                             g, how, wb["bw_avg"],
                             saturation_verdict(cpu_split(row, row["hz"] or res.hz))))
    elif not rows:
        notes.append("Goblin RDMA throughput: %s." % res.missing("goblin-rdma-262144"))
    if not wb or "bw_avg" not in wb:
        notes.append("ib_write_bw 2 QPs: %s." % res.missing("ib_write_bw-262144-q2"))
    L.append(target_line("Goblin RDMA 256 KiB GET payload throughput / ib_write_bw, 2 QPs",
                         r1, ">= 0.97", 0.97))
    # 2. median completion vs ib_read_lat
    rl = res.perftest("ib_read_lat-262144")
    r2 = None
    m = med.get(("goblin-rdma", 262144, "complete_ns"))
    if m is not None and rl and rl.get("t_typical"):
        r2 = m / rl["t_typical"]
        lc = res.latcpu("goblin-rdma-262144")
        notes.append("Goblin RDMA 256 KiB median completion %.1f us vs "
                     "ib_read_lat typical %.1f us. Over the latency phase: %s." % (
                         m, rl["t_typical"],
                         saturation_verdict(cpu_split(lc, lc["hz"] or res.hz))
                         if lc else "no CPU accounting"))
    L.append(target_line("Goblin RDMA 256 KiB median completion / ib_read_lat 256 KiB",
                         r2, "<= 1.1", 1.1))
    # 3. TTFB vs ib_send_lat
    sl = res.perftest("ib_send_lat-512")
    m = med.get(("goblin-rdma", 262144, "ttfb_ns"))
    if m is not None and sl and sl.get("t_typical"):
        L.append("| Goblin RDMA 256 KiB median TTFB / ib_send_lat 512 B | %.3f | (none) | informational; vs 2x ib_send_lat (round trip): %.3f |"
                 % (m / sl["t_typical"], m / (2 * sl["t_typical"])))
    else:
        L.append("| Goblin RDMA 256 KiB median TTFB / ib_send_lat 512 B | n/a | (none) | not measured |")
    # 4. TCP vs memcached
    for s in res.sizes:
        tgt = {262144: (">= 1.5", 1.5), 4096: (">= 1.2", 1.2)}.get(s)
        gr = tp.get(("goblin-tcp", s))
        mr = tp.get(("memcached", s))
        val = None
        if gr and mr:
            gs, ms = saturation_point(gr), saturation_point(mr)
            if gs and ms and ms["mean"] > 0:
                val = gs["mean"] / ms["mean"]
                notes.append("TCP %s: Goblin %.3f Gbit/s (q%d d%d) vs memcached %.3f Gbit/s (q%d d%d). Goblin: %s. memcached: %s." % (
                    size_name(s), gs["mean"], gs["qps"], gs["depth"],
                    ms["mean"], ms["qps"], ms["depth"],
                    saturation_verdict(cpu_split(gs["row"], gs["row"]["hz"] or res.hz)),
                    saturation_verdict(cpu_split(ms["row"], ms["row"]["hz"] or res.hz))))
        else:
            for k in ("goblin-tcp", "memcached"):
                if not tp.get((k, s)):
                    notes.append("TCP %s %s: %s." % (size_name(s), k, res.missing("%s-%d" % (k, s))))
        name = "Goblin TCP / memcached TCP GET throughput, %s" % size_name(s)
        if tgt:
            L.append(target_line(name, val, tgt[0], tgt[1]))
        else:
            L.append("| %s | %s | (none) | informational |" % (name, fmt(val, "%.3f")))
    L.append("")
    for n in notes:
        L.append("- " + n)
    L.append("")
    L.append("Targets are reported, never asserted. \"Guest CPU saturated\" "
             "means the threads' runtime adds up to >= 90% of both vCPUs over the "
             "window; client, server and rxe (softirq) compete for the same "
             "two emulated CPUs in this setup.\n")
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: analyze.py RESULTDIR\n")
        return 2
    report(sys.argv[1])
    print(os.path.join(sys.argv[1], "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
