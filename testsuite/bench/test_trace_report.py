#!/usr/bin/python3
"""trace_report.py on made-up runs: the client's rate, the relaunch gap,
useful samples, samples done again, node-hours from sacct, the time to
target and the simulator's figures beside them, computed as stated.  A
stand-in bench_goodput prints the simulator's table and keeps its
arguments.  No cluster needed (make check)."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1_800_000_000.0


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def series(rows):
    """rows: (t, spot nodes, samples or None, world)"""
    out = []
    for t, a, c, w in rows:
        step = "" if c is None else (
            "step %d epoch 0 samples %d loss 0.5 world %d" % (c // 10, c, w))
        out.append("%.3f %d %s\n" % (T0 + t, a, step))
    return "".join(out)


def steps(world, ts, pos):
    """A launch's output: its start line, then a timed step line at each
    of ts (rank 0's, --log-time) at position pos(t)."""
    out = ["train_mpi: world %d restart 0 resumed from ckpt at step 0, "
           "samples consumed 0, loss 1.0\n" % world]
    for k, t in enumerate(ts):
        out.append("step %d epoch 0 samples %d loss 0.5 world %d time %.3f\n"
                   % (k + 1, pos(t), world, T0 + t))
    return "".join(out)


def job_start(t):
    return "bench-trace: job 10 start %.6f\n" % (T0 + t)


def elastic_pos(t):
    # 2 nodes at 100 samples/s each until 50 s, a relaunch, 4 from 55 s
    return 200 * t if t <= 50 else 10000 if t < 55 else 10000 + 400 * (t - 55)


def restart_pos(t):
    # 4 nodes from 0.5 s until 40 s, 2 nodes from 45 s
    return int(400 * (min(t, 40) - 0.5)) + (200 * (t - 45) if t > 45 else 0)


def native_pos(t):
    # 4 nodes until 30 s, then a crash back to the checkpoint at 8000
    return 400 * t if t <= 30 else 8000


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as out:
        e, n = out + "/slurm-elastic", out + "/native-requeue"
        r = out + "/restart-at-size"
        write(e + "/series", series(
            [(t, 16, elastic_pos(t), 2 if t < 55 else 4) for t in range(101)])
              # a line whose count of nodes was read while being written
              + "%.3f  step 999 epoch 0 samples 1 loss 0.5 world 4\n"
              % (T0 + 200))
        write(e + "/window", "%.3f %.3f\n" % (T0, T0 + 100))
        # Two events before one relaunch (3.5 s after the first), then
        # one 1.5 s before its relaunch: a stop phase of 2.5 s (median).
        tl = "elastic-run: 2027-01-15T08:00:%06.3fZ event=%s restart=0\n"
        # Its steps: 200 a second at 2 nodes until 50 s, 400 at 4 from
        # 56 s: a gap of 6 s.
        write(e + "/out", tl % (0, "launch")
              + steps(2, range(1, 51), elastic_pos) + tl % (50, "event")
              + "train_ddp: a line of the ranks\n" + tl % (51, "event")
              + tl % (53.5, "relaunch") + tl % (54, "ranks-up")
              + steps(4, range(56, 101), elastic_pos)
              + tl % (57, "event") + tl % (58.5, "relaunch"))
        write(e + "/sacct", "7|elastic|n[17-18]|100|COMPLETED|elastic:v1\n"
                            "8|unit|n[1-2]|45|CANCELLED|elastic-unit:v1\n"
                            "9|reclaim|n3|30|CANCELLED|\n")
        write(n + "/series", series(
            [(t, 16, native_pos(t), 4) for t in range(101)]))
        write(n + "/window", "%.3f %.3f\n" % (T0, T0 + 100))
        write(n + "/sacct", "10|native|n[1-3,17]|30|PREEMPTED|\n")
        # Its job starts at 0, its ranks step from 2 s to 30 s; requeued,
        # it starts again at 60 s and steps from 62 s: cold launches of
        # 2 s, a requeue of 30 s from the last step (20 s past the grace).
        write(n + "/out", job_start(0) + steps(4, range(2, 31), native_pos)
              + job_start(60)
              + steps(4, range(62, 71), lambda t: 8000 + 400 * (t - 61)))
        # Restart-at-size: cold launches of 1.5 and 2 s (median 1.75),
        # one gap of 5.5 s (39.5 s to 45 s): the old job's end is 3.75 s.
        write(r + "/series", series(
            [(t, 16, restart_pos(t), 4 if t < 43 else 2)
             for t in range(101)]))
        write(r + "/window", "%.3f %.3f\n" % (T0, T0 + 100))
        write(r + "/sacct", "11|restart|n[1-4]|40|CANCELLED|\n")
        write(r + "/out", job_start(0)
              + steps(4, [1.5 + k for k in range(39)], restart_pos)
              + job_start(43) + steps(2, range(45, 101), restart_pos))
        stub = out + "/bench_goodput"
        write(stub, "#!/bin/sh\n"
                    "echo \"$*\" >>%s/sim.args\n"
                    "echo 'slurm-elastic 300.0 83.3 1 2 3'\n"
                    "echo 'native-requeue 90.0 25.0 1 2 3'\n"
                    "echo 'restart-at-size 200.0 55.0 1 2 3'\n"
                    "echo 'oracle 360.0 100.0 1 2 3'\n" % out, 0o755)
        r = subprocess.run(
            [sys.executable, HERE + "/trace_report.py", "--out", out,
             "--goodput", stub, "--nodes", "16", "--minn", "2",
             "--grace", "10",
             "--sim-args", "--trace T --speed 60",
             "slurm-elastic", "native-requeue", "restart-at-size"],
            capture_output=True, text=True)
        text = r.stdout
        dat = open(out + "/replay.dat").read() if os.path.exists(
            out + "/replay.dat") else ""
        args = open(out + "/sim.args").read() if os.path.exists(
            out + "/sim.args") else ""

    def check(what, ok):
        nonlocal fails
        print("%s - %s" % ("ok" if ok else "not ok", what))
        fails += not ok

    check("the report runs (exit 0): " + r.stderr.strip(), r.returncode == 0)
    rows = {ln.split()[0]: ln.split() for ln in text.splitlines() if ln.split()}
    el, na = rows.get("slurm-elastic", []), rows.get("native-requeue", [])
    check("the client's rate: 100 samples/s per node (its steps after "
          "each launch's first)", "100.0 samples/s per node" in text)
    check("the client's curve by world: 2:200.0,4:400.0, to the simulator",
          "2:200.0,4:400.0;" in text and
          args.count("--rate-curve 2:200.0,4:400.0") == 3)
    check("the relaunch gaps from the timed steps: elastic 6 s, native "
          "32 s, restart 5.5 s",
          "slurm-elastic 6.0 s (1), native-requeue 32.0 s (1), "
          "restart-at-size 5.5 s (1)" in text)
    check("the cold launches: native 2 s (2), restart 1.75 s (median of 2)",
          "native-requeue 2.0 s (2), restart-at-size 1.8 s (2)" in text)
    check("native's requeue: 30 s from its last step to its next start, "
          "the simulator's --requeue 20 s past the grace",
          "next start: 30.0 s;" in text and
          "--stop 0.00 --policies native-requeue,oracle --rate-curve "
          "2:200.0,4:400.0 --requeue 20.0" in args and
          args.count("--requeue") == 1)
    check("slurm-elastic: the gap as --restart, its stop phase (event to "
          "relaunch, 2.5 s) as --stop",
          "--restart 6.00 --stop 2.50 --policies slurm-elastic" in args)
    check("restart-at-size: the gap as --restart, the old job's end (gap "
          "less the cold launch) as --stop",
          "--restart 5.50 --stop 3.75 --policies restart-at-size" in args)
    check("native: its cold launch as --restart (requeued, it waits for "
          "its nodes in the simulator)",
          "--restart 2.00 --stop 0.00 --policies native-requeue" in args)
    check("the simulator runs each policy with the oracle",
          "--policies slurm-elastic,oracle" in args and
          "--policies native-requeue,oracle" in args)
    check("the simulator gets the measured rate and the run's arguments",
          "--rate 100.000" in args and "--trace T --speed 60" in args)
    check("elastic: 280 samples/s (28000 in 100 s), 77.8% of the oracle",
          el[1:3] == ["280.0", "77.8"])
    check("elastic: half the oracle's 36000 samples at 75 s", el[3:4] == ["75"])
    check("elastic: 0.03 spot node-hours (2 x 45 s), 0.06 on-demand (2 x "
          "100 s); the reclaiming job not counted", el[4:6] == ["0.03", "0.06"])
    check("elastic: nothing done again", el[6:7] == ["0"])
    check("elastic: the simulator's 300.0 beside it, +7.1%",
          el[8:10] == ["300.0", "+7.1%"])
    check("native: 80 samples/s, 4000 samples done again, never at target",
          na[1:2] == ["80.0"] and na[6:7] == ["4000"] and na[3:4] == ["never"])
    check("native: n[1-3,17]: 3 spot nodes and 1 on-demand for 30 s",
          na[4:6] == ["0.03", "0.01"])
    check("the plot's data: each run's nodes, world and samples a second",
          dat.count("# slurm-elastic: seconds nodes world samples") == 1 and
          "\n55.0 18 4 10000\n" in dat and "\n100.0 18 4 8000\n" in dat)
    check("the oracle's line", rows.get("oracle", [])[1:3] == ["360.0", "100.0"])
    if fails:
        print(text, r.stderr, sep="\n")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
