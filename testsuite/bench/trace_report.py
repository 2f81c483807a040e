#!/usr/bin/env python3
"""The table of bench_trace: each policy's replay against the oracle, and
the simulator (bench_goodput) on the same schedule beside it.

Each run directory (OUT/POLICY) holds `series` (a line a second: the time,
the spot nodes there are, rank 0's last step line "step S epoch E samples
C loss L world W"), `window` (start and end times) and `sacct` (the jobs
of the run: id|name|nodes|elapsed s|state|comment).  The client's samples
a second per node are measured on the runs: the median of the rate per
node over the seconds the world did not change and the training moved.
"""
import argparse
import datetime
import re
import shutil
import statistics
import subprocess
import sys

STEP = re.compile(r"step (\d+) epoch \d+ samples (\d+) loss \S+ world (\d+)")


def hostnames(nodelist):
    """Slurm's "n[1-3,7],n9" -> ["n1", "n2", "n3", "n7", "n9"]."""
    out = []
    for m in re.finditer(r"([A-Za-z_-]+)(?:\[([^\]]*)\]|(\d+))", nodelist):
        prefix, ranges, single = m.groups()
        if single is not None:
            out.append(prefix + single)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            for i in range(int(lo), int(hi or lo) + 1):
                out.append("%s%d" % (prefix, i))
    return out


def read_series(path, t0):
    """[(seconds since t0, spot nodes, samples or None, world or None)]; a
    line whose count of nodes is missing keeps the one before."""
    rows, nodes = [], 0
    with open(path) as f:
        for line in f:
            parts = line.split(None, 1)
            try:
                t = float(parts[0]) - t0
            except (IndexError, ValueError):
                continue
            rest = parts[1] if len(parts) > 1 else ""
            m = re.match(r"(\d+)\s*(.*)", rest)
            if m:
                nodes, rest = int(m.group(1)), m.group(2)
            m = STEP.search(rest)
            rows.append((t, nodes, int(m.group(2)) if m else None,
                         int(m.group(3)) if m else None))
    return rows


def run_figures(rows, duration):
    """Useful samples (the position at the end), samples done again (the
    drops of the position), and the rates per node of the steady seconds."""
    pos, best, repeated, rates = 0, 0, 0, []
    prev = None
    for t, _, c, w in rows:
        if c is None or t > duration + 1:
            continue
        if c < best:
            repeated += best - c
            best = c
        best = max(best, c)
        if prev and prev[2] == w and c > prev[1] and t > prev[0]:
            rates.append((c - prev[1]) / (t - prev[0]) / w)
        prev = (t, c, w)
        pos = c
    return pos, repeated, rates


def relaunch_gaps(rows):
    """Seconds from the last step of one world to the first of the next."""
    gaps, last = [], None  # (time the position last moved, its world)
    prev_c = None
    for t, _, c, w in rows:
        if c is None:
            continue
        if prev_c is not None and c > prev_c:
            if last and w != last[1]:
                gaps.append(t - last[0])
            last = (t, w)
        prev_c = c
    return gaps


TIMELINE = re.compile(r"^elastic-run: (\d{4}-\d\d-\d\dT[\d:.]+)Z "
                      r"event=(event|relaunch|launch) ")


def stop_phases(path):
    """Seconds from an event to the relaunch that follows it, in
    elastic-run's timeline (its output): the new world is picked then,
    once the old ranks are down; events between are taken by it."""
    phases, since = [], None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = TIMELINE.match(line)
                if not m:
                    continue
                t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
                if m.group(2) == "event":
                    since = t if since is None else since
                elif m.group(2) == "relaunch" and since is not None:
                    phases.append(t - since)
                    since = None
                else:
                    since = None
    except OSError:
        pass
    return phases


def time_to(rows, target):
    for t, _, c, _ in rows:
        if c is not None and c >= target:
            return t
    return None


def node_seconds(path, spot_nodes):
    spot = od = 0.0
    try:
        with open(path) as f:
            for line in f:
                fields = line.rstrip("\n").split("|")
                if len(fields) < 4 or fields[1] == "reclaim":
                    continue
                try:
                    secs = float(fields[3])
                except ValueError:
                    continue
                for h in hostnames(fields[2]):
                    n = int(re.sub(r"\D", "", h) or 0)
                    if n > spot_nodes:
                        od += secs
                    else:
                        spot += secs
    except OSError:
        pass
    return spot, od


def sim_table(goodput, args):
    """bench_goodput's table: {policy: (samples/s, % oracle)}."""
    out = subprocess.run([goodput] + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("trace_report: bench_goodput failed: " + out.stderr.strip())
    table = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] in ("slurm-elastic", "native-requeue",
                                    "restart-at-size", "oracle"):
            table[f[0]] = (float(f[1]), float(f[2]))
    return table, out.stdout


def write_plot(out, runs, minn):
    """OUT/replay.dat and .gp, and OUT/replay.png when gnuplot is there:
    the nodes there are, each policy's world and its samples over time."""
    with open(out + "/replay.dat", "w") as f:
        for p, v in runs.items():
            f.write("# %s: seconds nodes world samples\n" % p)
            for t, a, c, w in v[0]:
                f.write("%.1f %d %s %s\n" % (t, a + minn, w or 0,
                                             "NaN" if c is None else c))
            f.write("\n\n")
    with open(out + "/replay.gp", "w") as f:
        f.write("set terminal pngcairo size 1200,900\n"
                "set output '%s/replay.png'\n"
                "set multiplot layout 2,1 title 'bench-trace: the replay'\n"
                "set xlabel 'seconds'\nset ylabel 'nodes'\n"
                "set key outside\n"
                "plot '%s/replay.dat' index 0 using 1:2 with steps lw 2 "
                "title 'there'" % (out, out))
        for k, p in enumerate(runs):
            f.write(", '' index %d using 1:3 with steps title '%s'" % (k, p))
        f.write("\nset ylabel 'samples'\nplot ")
        f.write(", ".join("'%s/replay.dat' index %d using 1:4 with lines "
                          "lw 2 title '%s'" % (out, k, p)
                          for k, p in enumerate(runs)))
        f.write("\nunset multiplot\n")
    if shutil.which("gnuplot") and subprocess.run(
            ["gnuplot", out + "/replay.gp"],
            capture_output=True).returncode == 0:
        return out + "/replay.png"
    return out + "/replay.dat (no gnuplot: no PNG)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--goodput", required=True)
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--minn", type=int, required=True)
    ap.add_argument("--sim-args", required=True)
    ap.add_argument("--spot-price", type=float, default=0.92)
    ap.add_argument("--ondemand-price", type=float, default=3.06)
    ap.add_argument("policies", nargs="+")
    a = ap.parse_args()

    runs, rates, gaps, stops = {}, [], {}, []
    for p in a.policies:
        d = "%s/%s" % (a.out, p)
        try:
            t0, t1 = map(float, open(d + "/window").read().split())
        except (OSError, ValueError):
            print("%s: no window: the run did not complete" % p)
            continue
        rows = read_series(d + "/series", t0)
        duration = t1 - t0
        pos, repeated, r = run_figures(rows, duration)
        rates += r
        gaps[p] = relaunch_gaps(rows)
        if p == "slurm-elastic":
            stops = stop_phases(d + "/out")
        runs[p] = (rows, duration, pos, repeated,
                   node_seconds(d + "/sacct", a.nodes))
    if not runs or not rates:
        sys.exit("trace_report: no run trained: nothing to report")
    rate = statistics.median(rates)
    duration = max(v[1] for v in runs.values())
    # The simulator's costs: a new world's first step comes `gap` after
    # the old world's last (checkpoint, resize, a new job's start,
    # relaunch: all in --restart), as measured on each policy's run (on
    # all of them for a run that never relaunched).
    every = [g for v in gaps.values() for g in v]
    gap_all = statistics.median(every) if every else 8.0
    sim, texts, gap_of = {}, [], {}
    for p in runs:
        gap_of[p] = statistics.median(gaps[p]) if gaps[p] else gap_all
        # elastic-run takes the world changes before the old ranks are
        # down in one relaunch: that part of it, as measured.
        stop = min(statistics.median(stops), gap_of[p]) \
            if p == "slurm-elastic" and stops else 0
        table, text = sim_table(a.goodput, a.sim_args.split() + [
            "--rate", "%.3f" % rate, "--ckpt", "0", "--resize", "0",
            "--start", "0", "--restart", "%.2f" % gap_of[p],
            "--stop", "%.2f" % stop, "--policies", p + ",oracle"])
        sim[p] = table.get(p, (0, 0))
        sim["oracle"] = table.get("oracle", (0, 0))
        texts.append(text)
    with open(a.out + "/sim.txt", "w") as f:
        f.write("\n".join(texts))
    oracle = sim.get("oracle", (0, 0))[0]
    target = oracle * duration / 2
    print("bench-trace: the client: %.1f samples/s per node (median of %d "
          "steady seconds); a world change, from the last step to the "
          "next: %s; the oracle %.1f samples/s; the simulator with those "
          "costs: %s" % (rate, len(rates), ", ".join(
              "%s %.1f s (%d)" % (p, gap_of[p], len(gaps[p])) for p in runs),
              oracle, a.out + "/sim.txt"))
    hdr = ("policy", "samples/s", "% oracle", "to target s", "spot n-h",
           "od n-h", "repeated", "cost $", "sim samples/s", "sim - replay")
    print("%-16s %10s %9s %12s %9s %8s %10s %8s %14s %13s" % hdr)
    for p, (rows, dur, pos, rep, (spot, od)) in runs.items():
        gp = pos / dur if dur > 0 else 0
        ttt = time_to(rows, target)
        cost = spot / 3600 * a.spot_price + od / 3600 * a.ondemand_price
        s = sim.get(p, (0, 0))[0]
        diff = "%+.1f%%" % (100 * (s - gp) / gp) if gp > 0 else "-"
        print("%-16s %10.1f %9.1f %12s %9.2f %8.2f %10d %8.2f %14.1f %13s"
              % (p, gp, 100 * gp / oracle if oracle else 0,
                 "never" if ttt is None else "%.0f" % ttt,
                 spot / 3600, od / 3600, rep, cost, s, diff))
    print("%-16s %10.1f %9.1f" % ("oracle", oracle, 100.0))
    print("bench-trace: plot: " + write_plot(a.out, runs, a.minn))


if __name__ == "__main__":
    main()
