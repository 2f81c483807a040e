#!/usr/bin/python3
"""replay_report.py on a made-up replay: the workload's parsing and its
users, the report from sacct's runs (utilization, rigid waits and
completions, groups' node-seconds and shares, Jain's index, unit starts
and preemptions an hour) computed as stated, the comparison's
allowances, and replay_timeline.py's listing of a replay beside a
simulator's timeline.  No cluster needed (make check)."""

import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "replay_report.py")
T0 = 1_800_000_000

WORKLOAD = """# slurm-elastic workload v1
# submit_s kind user nodes max runtime_s limit_s
0 rigid r1 4 - 100 200
0 elastic a 1 4 200 300   # alice
10 elastic b 1 4 200 300
10 preemptor p 2 - 50 100
20 rigid r2 2 - 50 100
30 elastic a 2 3 100 200
"""

# JobIDRaw|NNodes|Submit|Start|End|State|AdminComment, times from T0.
RUNS = [
    (1, 4, 0, 0, 100, "COMPLETED", ""),          # r1
    (2, 1, 0, 1, 201, "COMPLETED", "elastic:v1 min=1"),   # group a
    (3, 1, 10, 11, 211, "COMPLETED", "elastic:v1 min=1"),  # group b
    (4, 2, 10, 20, 70, "COMPLETED", ""),         # preemptor
    (5, 2, 20, 100, 150, "COMPLETED", ""),       # r2
    (6, 2, 30, 150, 250, "COMPLETED", "elastic:v1 min=2"),  # group a'
    # units: group 2 holds 3 nodes 1..201, one preempted at 12 and again
    (10, 3, 1, 1, 201, "CANCELLED by 0", "elastic-unit:v1 group=2 kind=unit"),
    (11, 2, 11, 11, 12, "REQUEUED", "elastic-unit:v1 group=3 kind=unit"),
    (11, 2, 12, 60, 211, "CANCELLED by 0", "elastic-unit:v1 group=3 kind=unit"),
    (12, 1, 150, 150, 250, "PREEMPTED", "elastic-unit:v1 group=6 kind=unit"),
    # preempted and cancelled at once by elasticd, its base running on
    (14, 1, 150, 150, 200, "CANCELLED by 0", "elastic-unit:v1 group=6 kind=unit"),
    (13, 1, 150, "Unknown", 250, "CANCELLED by 0", "elastic-unit:v1 group=6 kind=unit"),
    # someone else's job: not ours
    (99, 16, 0, 0, 1000, "COMPLETED", ""),
]


def t(v):
    return str(T0 + v) if isinstance(v, int) else v


def run(args, **kw):
    return subprocess.run([sys.executable, REPORT] + args, capture_output=True, text=True, **kw)


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    return bool(cond)


def close(a, b):
    return abs(a - b) < 1e-3


def test_plan(d, wl):
    plan = run(["plan", wl]).stdout.split("\n")
    good = check(plan[1].split() == ["1", "0", "elastic", "a", "1", "4", "200", "300", "elastic-alice"]
                 and plan[2].split()[-1] == "elastic-bob" and plan[3].split()[-1] == "elastic-dave"
                 and plan[5].split()[-1] == "elastic-alice",
                 "plan: submission order, groups' labels onto alice, bob in turn, others dave")
    bad = os.path.join(d, "bad")
    with open(bad, "w") as f:
        f.write("# slurm-elastic workload v1\n0 rigid r 4 8 10 20\n")
    r = run(["plan", bad])
    return good & check(r.returncode == 2 and "line 2: max '8' of a rigid job" in r.stderr,
                        "plan: a rigid job with a max is refused, naming the line")


def test_report(d, wl):
    """The report's figures; (all good, the report's text)."""
    with open(os.path.join(d, "jobs"), "w") as f:
        f.write("0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n")
    with open(os.path.join(d, "sacct"), "w") as f:
        for row in RUNS:
            f.write("|".join([str(row[0]), str(row[1]), t(row[2]), t(row[3]), t(row[4]),
                              row[5], row[6]]) + "\n")
    r = run(["report", "--workload", wl, "--jobs", os.path.join(d, "jobs"),
             "--sacct", os.path.join(d, "sacct"), "--nodes", "16"])
    good = check(r.returncode == 0, "report runs: " + r.stderr.strip())
    rep = json.loads(r.stdout)
    # span 0..250; node-seconds: r1 400, a 200, b 200, p 100, r2 100,
    # a' 200, units 600 + 2 + 302 + 100 + 50 = 1054
    good &= check(rep["span_s"] == 250 and close(rep["utilization"], round(2254 / 4000.0, 4)),
                  "utilization: every run's node-seconds over nodes x span (%s)" % rep["utilization"])
    rg = rep["rigid"]
    good &= check(rg["n"] == 2 and rg["wait_p50_s"] == 0 and rg["wait_p95_s"] == 80
                  and rg["completion_mean_s"] == 115 and rg["completion_p95_s"] == 130,
                  "rigid: waits 0, 80 and completions 100, 130, nearest rank (%s)" % rg)
    gs = rep["groups"]
    good &= check([(g["user"], g["min"], g["max"]) for g in gs] == [("a", 1, 4), ("b", 1, 4), ("a", 2, 3)],
                  "groups in the workload's order, by label")
    good &= check([g["node_seconds"] for g in gs] == [800, 504, 350],
                  "a group's node-seconds: its base's and its units' (%s)" % [g["node_seconds"] for g in gs])
    good &= check(close(gs[0]["share"], round(600 / 1054, 4)) and close(gs[2]["share"], round(150 / 1054, 4)),
                  "share: the group's unit node-seconds over all groups'")
    good &= check(close(rep["jain"], round(1304 ** 2 / (2 * (800 ** 2 + 504 ** 2)), 4)),
                  "jain over the groups of equal min and max (%s)" % rep["jain"])
    good &= check(close(rep["unit_starts_per_h"], round(5 / (250 / 3600.0), 1))
                  and close(rep["unit_preemptions_per_h"], round(3 / (250 / 3600.0), 1)),
                  "unit runs started an hour; preempted: PREEMPTED, REQUEUED, cancelled before the base's "
                  "end (not at it)")
    return good, r.stdout


def iso(v):
    return datetime.datetime.fromtimestamp(T0 + v, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def test_events(d, wl, share0):
    # group a's world from elasticd's timeline: 1 node at 1 s, 4 at
    # 11.5 s, 3 at 101 s; the base ends at 201 s
    with open(os.path.join(d, "events"), "w") as f:
        json.dump({"2": [{"time": iso(11.5), "cause": "grow", "generation": 2, "world_nodes": 4},
                         {"time": iso(1), "cause": "start", "generation": 1, "world_nodes": 1},
                         {"time": iso(101), "cause": "preempt", "generation": 3, "world_nodes": 3},
                         {"time": iso(201), "cause": "end", "generation": 3, "world_nodes": 0}]}, f)
    r = run(["report", "--workload", wl, "--jobs", os.path.join(d, "jobs"), "--events",
             os.path.join(d, "events"), "--sacct", os.path.join(d, "sacct"), "--nodes", "16"])
    gs = json.loads(r.stdout)["groups"] if r.returncode == 0 else r.stderr
    return check(r.returncode == 0 and gs[0]["node_seconds"] == 10.5 + 4 * 89.5 + 300
                 and gs[1]["node_seconds"] == 504 and close(gs[0]["share"], share0),
                 "with elasticd's events a group's node-seconds are its world's (%s)" % gs)


def test_timeline(d, wl):
    """replay_timeline.py on the same files (after test_events), with a
    simulator's timeline of three events."""
    sim = {"timeline": [
        {"t_s": 0, "event": "submit", "role": "base", "job": 1001, "nodes": 1, "group": 0, "line": 1},
        {"t_s": 0.5, "event": "start", "role": "rigid", "job": 1000, "nodes": 4, "line": 0},
        {"t_s": 2, "event": "preempt", "role": "unit", "job": 1005, "nodes": 1, "group": 0, "by": 1000},
        {"t_s": 3, "event": "end", "role": "unit", "job": 1005, "nodes": 1, "group": 0,
         "why": "cancelled after preemption"}]}
    with open(os.path.join(d, "simtl.json"), "w") as f:
        f.write('{"nodes": 16}\n' + json.dumps(sim) + "\n")
    args = [sys.executable, os.path.join(HERE, "replay_timeline.py"), "--workload", wl,
            "--jobs", os.path.join(d, "jobs"), "--sacct", os.path.join(d, "sacct"),
            "--events", os.path.join(d, "events"), "--sim", os.path.join(d, "simtl.json")]
    r = subprocess.run(args, capture_output=True, text=True)
    lines = [ln.split() for ln in r.stdout.splitlines()]
    good = check(r.returncode == 0 and lines[0] == ["0.0", "replay", "start", "r1", "1"]
                 and ["0.5", "sim", "start", "r1", "1000"] in lines
                 and ["1.0", "replay", "start", "a.unit", "10"] in lines
                 and ["1.0", "replay", "world", "a", "2", "1", "start"] in lines
                 and ["2.0", "sim", "preempt", "a.unit", "1005", "for", "1000"] in lines
                 and ["3.0", "sim", "end", "a.unit", "1005", "cancelled", "after", "preemption"] in lines
                 and ["12.0", "replay", "end", "b.unit", "11", "REQUEUED"] in lines,
                 "timeline: both sides in time order, units by their group's label\n" + r.stdout + r.stderr)
    r = subprocess.run(args + ["--only", "b"], capture_output=True, text=True)
    return good & check(r.returncode == 0 and r.stdout and all(
        ln.split()[3] in ("b", "b.unit") for ln in r.stdout.splitlines()),
        "timeline --only b: b's jobs and units alone\n" + r.stdout)


def test_compare(d, report):
    sim = json.loads(report)
    sim["utilization"] *= 1.05
    sim["rigid"]["wait_p95_s"] = 85  # 5 s off: within the 10 s floor
    sim["groups"][0]["node_seconds"] = 880  # 10% of 880 is 88: 80 off, fine
    with open(os.path.join(d, "replay.json"), "w") as f:
        f.write(report)
    with open(os.path.join(d, "sim.json"), "w") as f:
        json.dump(sim, f)
    c = run(["compare", os.path.join(d, "replay.json"), os.path.join(d, "sim.json")])
    good = check(c.returncode == 0 and "agreement: yes" in c.stdout,
                 "compare: within 10% or the floor agrees\n" + c.stdout)
    sim["groups"][1]["share"] += 0.1
    with open(os.path.join(d, "sim.json"), "w") as f:
        json.dump(sim, f)
    c = run(["compare", os.path.join(d, "replay.json"), os.path.join(d, "sim.json")])
    return good & check(c.returncode == 1 and "DISAGREE" in c.stdout and "agreement: NO" in c.stdout,
                        "compare: a share 0.1 off disagrees, and says which")


def test_harm(d, report):
    """harm: with's rigid wait p95 no more than the grace above without's."""
    with_ = json.loads(report)
    without = json.loads(report)
    without["rigid"]["wait_p95_s"] = with_["rigid"]["wait_p95_s"] - 10
    paths = [os.path.join(d, n) for n in ("with.json", "without.json")]
    for path, doc in zip(paths, (with_, without)):
        with open(path, "w") as f:
            json.dump(doc, f)
    c = run(["harm"] + paths + ["--grace", "10"])
    good = check(c.returncode == 0 and c.stdout.rstrip().endswith(": pass"),
                 "harm: 10 s more than without, grace 10 s, passes\n" + c.stdout)
    c = run(["harm"] + paths + ["--grace", "9"])
    good &= check(c.returncode == 1 and "FAIL" in c.stdout,
                  "harm: 10 s more than without, grace 9 s, fails\n" + c.stdout)
    without["rigid"]["n"] += 1
    with open(paths[1], "w") as f:
        json.dump(without, f)
    c = run(["harm"] + paths + ["--grace", "100"])
    return good & check(c.returncode == 1, "harm: a different count of rigid jobs fails")


def main():
    with tempfile.TemporaryDirectory() as d:
        wl = os.path.join(d, "w")
        with open(wl, "w") as f:
            f.write(WORKLOAD)
        good = test_plan(d, wl)
        fine, report = test_report(d, wl)
        good &= fine
        good &= test_events(d, wl, json.loads(report)["groups"][0]["share"])
        good &= test_timeline(d, wl)
        good &= test_compare(d, report)
        good &= test_harm(d, report)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
