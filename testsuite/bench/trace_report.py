#!/usr/bin/env python3
"""The table of bench_trace: each policy's replay against the oracle, and
the simulator (bench_goodput) on the same schedule beside it.

Each run directory (OUT/POLICY) holds `series` (a line a second: the time,
the spot nodes there are, rank 0's last step line "step S epoch E samples
C loss L world W"), `out` (the job's output: the ranks' launches, "train_mpi:
world W restart R ...", their step lines with the time, "... time T", and
each plain job's start, "bench-trace: job J start T"), `window` (start and
end times) and `sacct` (the jobs of the run: id|name|nodes|elapsed
s|state|comment).

What the simulator is given is measured on the runs' step lines:
- the client's samples a second for each world size (the curve the
  simulator and the oracle train at: on a few cores a larger world is not
  proportionally faster), over each launch's steps after its first;
- a world change: from the last step of one launch to the first of the
  next (each policy's median);
- a cold launch: from a plain job's start to its first step; of a
  restart-at-size change, the rest is the old job's end (--stop).
"""
import argparse
import datetime
import re
import shutil
import statistics
import subprocess
import sys

STEP = re.compile(r"step (\d+) epoch \d+ samples (\d+) loss \S+ world (\d+)"
                  r"(?: time (\d+(?:\.\d+)?))?")
JOB_START = re.compile(r"^bench-trace: job \d+ start (\d+(?:\.\d+)?)")
LAUNCH = re.compile(r"^train_mpi: world \d+ restart \d+ (?:fresh|resumed)")


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
    """Useful samples (the position at the end) and samples done again
    (the drops of the position)."""
    pos, best, repeated = 0, 0, 0
    for t, _, c, _ in rows:
        if c is None or t > duration + 1:
            continue
        if c < best:
            repeated += best - c
            best = c
        best = max(best, c)
        pos = c
    return pos, repeated


def launches(path):
    """The ranks' launches in a run's output, in order: (the start of the
    plain job they are in, or None; their timed steps [(t, samples,
    world)])."""
    out, start = [], None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = JOB_START.match(line)
                if m:
                    start = float(m.group(1))
                elif LAUNCH.match(line):
                    out.append((start, []))
                    start = None
                elif out:
                    m = STEP.match(line)
                    if m and m.group(4):
                        out[-1][1].append((float(m.group(4)),
                                           int(m.group(2)), int(m.group(3))))
    except OSError:
        pass
    return out


def steady(runs, by):
    """Adds to by, {world: [samples, seconds]}, each launch's steps after
    its first (which carries the launch)."""
    for _, steps in runs:
        for (t0, c0, w), (t1, c1, w1) in zip(steps[1:], steps[2:]):
            if w1 == w and c1 > c0 and t1 > t0:
                v = by.setdefault(w, [0, 0.0])
                v[0] += c1 - c0
                v[1] += t1 - t0


CURVE_SECONDS = 5  # a world's point: of at least as many steady seconds


def rate_curve(by):
    """"W:R,..." for --rate-curve: each world's samples a second, for the
    worlds seen steady CURVE_SECONDS or more; "" if none was."""
    return ",".join("%d:%.1f" % (w, by[w][0] / by[w][1])
                    for w in sorted(by) if by[w][1] >= CURVE_SECONDS)


def relaunch_gaps(runs):
    """Seconds from the last step of a launch to the first of the next
    (launches without a step left out)."""
    timed = [st for _, st in runs if st]
    return [b[0][0] - a[-1][0] for a, b in zip(timed, timed[1:])]


def requeue_cycles(runs):
    """Seconds from a launch's last step to the start of the next plain
    job (a requeued one: the grace, Slurm's hold, its next pass)."""
    return [b[0] - a[1][-1][0] for a, b in zip(runs, runs[1:])
            if a[1] and b[0] is not None and b[0] > a[1][-1][0]]


def cold_launches(runs):
    """Seconds from a plain job's start to its ranks' first step."""
    return [st[0][0] - t for t, st in runs if t is not None and st]


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
                "lc rgb 'black' title 'there'" % (out, out))
        # a policy's colour the same in both
        for k, p in enumerate(runs):
            f.write(", '' index %d using 1:3 with steps lc %d title '%s'"
                    % (k, k + 1, p))
        f.write("\nset ylabel 'samples'\nplot ")
        f.write(", ".join("'%s/replay.dat' index %d using 1:4 with lines "
                          "lw 2 lc %d title '%s'" % (out, k, k + 1, p)
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
    ap.add_argument("--grace", type=float, default=0,
                    help="the preemption's grace, s (native's requeue)")
    ap.add_argument("--spot-price", type=float, default=0.92)
    ap.add_argument("--ondemand-price", type=float, default=3.06)
    ap.add_argument("policies", nargs="+")
    a = ap.parse_args()

    runs, gaps, colds, stops, by, requeues = {}, {}, {}, [], {}, []
    for p in a.policies:
        d = "%s/%s" % (a.out, p)
        try:
            t0, t1 = map(float, open(d + "/window").read().split())
        except (OSError, ValueError):
            print("%s: no window: the run did not complete" % p)
            continue
        rows = read_series(d + "/series", t0)
        duration = t1 - t0
        pos, repeated = run_figures(rows, duration)
        ls = launches(d + "/out")
        steady(ls, by)
        gaps[p], colds[p] = relaunch_gaps(ls), cold_launches(ls)
        if p == "native-requeue":
            requeues = requeue_cycles(ls)
        if p == "slurm-elastic":
            stops = stop_phases(d + "/out")
        runs[p] = (rows, duration, pos, repeated,
                   node_seconds(d + "/sacct", a.nodes))
    node_s = sum(w * v[1] for w, v in by.items())
    if not runs or not node_s:
        sys.exit("trace_report: no run trained: nothing to report")
    rate = sum(v[0] for v in by.values()) / node_s
    curve = rate_curve(by)
    duration = max(v[1] for v in runs.values())
    # The simulator's costs, as measured on each policy's run (on all of
    # them for a run without one): a new world's first step comes `gap`
    # after the old world's last (checkpoint, resize, a new job's start,
    # relaunch: all in --restart), a plain job's ranks `cold` after its
    # start.
    def median_of(d, p, default):
        every = [g for v in d.values() for g in v]
        return statistics.median(d[p]) if d[p] else \
            statistics.median(every) if every else default
    sim, texts, gap_of, cold_of = {}, [], {}, {}
    for p in runs:
        gap_of[p] = median_of(gaps, p, 8.0)
        cold_of[p] = min(median_of(colds, p, gap_of[p]), gap_of[p])
        restart, stop, requeue = gap_of[p], 0.0, None
        if p == "slurm-elastic" and stops:
            # elastic-run takes the world changes before the old ranks
            # are down in one relaunch: that part of it, as measured.
            stop = min(statistics.median(stops), gap_of[p])
        elif p == "restart-at-size":
            # the old job ends, then the new one starts cold
            stop = gap_of[p] - cold_of[p]
        elif p == "native-requeue":
            restart = cold_of[p]  # requeued, it waits for its nodes
            if requeues:
                # Slurm's requeue as it went, after the grace: the
                # shortest (the least waiting for nodes)
                requeue = max(0.0, min(requeues) - a.grace)
        args = ["--rate", "%.3f" % rate, "--ckpt", "0", "--resize", "0",
                "--start", "0", "--restart", "%.2f" % restart,
                "--stop", "%.2f" % stop, "--policies", p + ",oracle"]
        if curve:
            args += ["--rate-curve", curve]
        if requeue is not None:
            args += ["--requeue", "%.1f" % requeue]
        table, text = sim_table(a.goodput, a.sim_args.split() + args)
        sim[p] = table.get(p, (0, 0))
        sim["oracle"] = table.get("oracle", (0, 0))
        texts.append(text)
    with open(a.out + "/sim.txt", "w") as f:
        f.write("\n".join(texts))
    oracle = sim.get("oracle", (0, 0))[0]
    target = oracle * duration / 2
    print("bench-trace: the client: %.1f samples/s per node (over %.0f "
          "steady node-seconds), by world (the simulator's and the "
          "oracle's): %s; a world change, from the last step to the next: "
          "%s; a plain job's start to its first step: %s; native's "
          "requeue, from its last step to its next start: %s; the oracle "
          "%.1f samples/s; the simulator with those costs: %s" % (
              rate, node_s, curve or "-", ", ".join(
                  "%s %.1f s (%d)" % (p, gap_of[p], len(gaps[p]))
                  for p in runs), ", ".join(
                  "%s %.1f s (%d)" % (p, cold_of[p], len(colds[p]))
                  for p in runs if p != "slurm-elastic"),
              ", ".join("%.1f s" % r for r in requeues) or "-",
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
