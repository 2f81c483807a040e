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


def elastic_pos(t):
    # 2 nodes at 100 samples/s each until 50 s, a relaunch, 4 from 55 s
    return 200 * t if t <= 50 else 10000 if t < 55 else 10000 + 400 * (t - 55)


def native_pos(t):
    # 4 nodes until 30 s, then a crash back to the checkpoint at 8000
    return 400 * t if t <= 30 else 8000


def main():
    fails = 0
    with tempfile.TemporaryDirectory() as out:
        e, n = out + "/slurm-elastic", out + "/native-requeue"
        write(e + "/series", series(
            [(t, 16, elastic_pos(t), 2 if t < 55 else 4) for t in range(101)])
              # a line whose count of nodes was read while being written
              + "%.3f  step 999 epoch 0 samples 1 loss 0.5 world 4\n"
              % (T0 + 200))
        write(e + "/window", "%.3f %.3f\n" % (T0, T0 + 100))
        # Two events before one relaunch (3.5 s after the first), then
        # one 1.5 s before its relaunch: a stop phase of 2.5 s (median).
        tl = "elastic-run: 2027-01-15T08:00:%06.3fZ event=%s restart=0\n"
        write(e + "/out", tl % (0, "launch") + tl % (50, "event")
              + "train_ddp: a line of the ranks\n" + tl % (51, "event")
              + tl % (53.5, "relaunch") + tl % (54, "ranks-up")
              + tl % (57, "event") + tl % (58.5, "relaunch"))
        write(e + "/sacct", "7|elastic|n[17-18]|100|COMPLETED|elastic:v1\n"
                            "8|unit|n[1-2]|45|CANCELLED|elastic-unit:v1\n"
                            "9|reclaim|n3|30|CANCELLED|\n")
        write(n + "/series", series(
            [(t, 16, native_pos(t), 4) for t in range(101)]))
        write(n + "/window", "%.3f %.3f\n" % (T0, T0 + 100))
        write(n + "/sacct", "10|native|n[1-3,17]|30|PREEMPTED|\n")
        stub = out + "/bench_goodput"
        write(stub, "#!/bin/sh\n"
                    "echo \"$*\" >>%s/sim.args\n"
                    "echo 'slurm-elastic 300.0 83.3 1 2 3'\n"
                    "echo 'native-requeue 90.0 25.0 1 2 3'\n"
                    "echo 'oracle 360.0 100.0 1 2 3'\n" % out, 0o755)
        r = subprocess.run(
            [sys.executable, HERE + "/trace_report.py", "--out", out,
             "--goodput", stub, "--nodes", "16", "--minn", "2",
             "--sim-args", "--trace T --speed 60",
             "slurm-elastic", "native-requeue"],
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
    check("the client's rate: 100 samples/s per node",
          "100.0 samples/s per node" in text)
    check("the relaunch gap: 6 s, passed to the simulator as --restart "
          "(native, which never relaunched, gets the runs' median)",
          "slurm-elastic 6.0 s (1), native-requeue 6.0 s (0)" in text and
          args.count("--restart 6.00") == 2)
    check("slurm-elastic's stop phase (event to relaunch, 2.5 s) passed "
          "as --stop; 0 for native",
          "--restart 6.00 --stop 2.50 --policies slurm-elastic" in args and
          "--stop 0.00 --policies native-requeue" in args)
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
