#!/usr/bin/python3
"""A replay's timeline beside the simulator's, to compare them event by
event (bench_cluster_replay's files; bench_cluster(1), TIMELINE).

  replay_timeline.py --workload W --jobs JOBS --sacct SACCT
                     [--events EVENTS] [--sim SIM_JSON] [--only LABEL ...]

One event a line, in time order (seconds from the first submit), the
replay's before the simulator's at the same second:

  TIME SIDE EVENT WHO JOB [DETAIL]

SIDE is "replay" or "sim"; EVENT start, end (DETAIL: Slurm's state, or
the simulator's reason), preempt (the simulator's: DETAIL the job it was
for) or world (DETAIL: the group's world, elasticd's); WHO the
workload's label of the job (r4, p2, g5), "LABEL.unit" for a group's
unit.  JOB is Slurm's job id in the replay, the model's own in the
simulator (the two differ).  The replay's starts and ends are sacct's
(whole seconds), its worlds elasticd's events (replay_events.py);
SIM_JSON is `bench_cluster --json --timeline` on the same workload (its
last line: the run with slurm-elastic).  --only keeps the events of
those labels and their units.  Sacct's runs are every run of every job:
a requeued unit's runs each start and end.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_report import event_time, read_sacct, read_workload  # noqa: E402


def replay_events(jobs, runs, timelines):
    """The replay's events: (t, event, who, job, detail), t from the
    first submit."""
    label = {j["job_id"]: j["user"] for j in jobs if j.get("job_id") is not None}
    t0 = min(r["submit"] for r in runs if r["submit"] is not None)
    out = []
    for r in runs:
        who = label.get(r["group"], "?") + ".unit" if r["group"] else label.get(r["job"], "?")
        if r["start"]:
            out.append((r["start"] - t0, "start", who, r["job"], ""))
            if r["end"]:
                out.append((r["end"] - t0, "end", who, r["job"], r["state"]))
    for base, events in (timelines or {}).items():
        for e in events:
            if e.get("time"):
                out.append((event_time(e["time"]) - t0, "world", label.get(int(base), "?"),
                            int(base), "%s %s" % (e.get("world_nodes"), e.get("cause", ""))))
    return out


def sim_events(jobs, run):
    """The simulator's events from its report's "timeline" (the same
    tuples as replay_events())."""
    labels = [j["user"] for j in jobs]
    group_label = {}
    for e in run.get("timeline", []):
        if e["role"] == "base" and "line" in e:
            group_label[e["group"]] = labels[e["line"]]
    out = []
    for e in run.get("timeline", []):
        if e["event"] == "submit":
            continue
        if e["role"] == "unit":
            who = group_label.get(e.get("group"), "?") + ".unit"
        else:
            who = labels[e["line"]] if "line" in e else "?"
        detail = {"end": e.get("why", ""), "preempt": "for %s" % e.get("by"),
                  "world": str(e["nodes"])}.get(e["event"], "")
        out.append((e["t_s"], e["event"], who, e["job"], detail))
    return out


def merged(replay, sim, only=None):
    """Both timelines as lines, in time order, the replay's first."""
    rows = [(e[0], 0, "replay") + tuple(e[1:]) for e in replay]
    rows += [(e[0], 1, "sim") + tuple(e[1:]) for e in sim]
    keep = set(only or [])
    lines = []
    for t, _, side, event, who, job, detail in sorted(rows, key=lambda x: (x[0], x[1])):
        if keep and who not in keep and who.rsplit(".", 1)[0] not in keep:
            continue
        lines.append(("%8.1f %-6s %-7s %-9s %6s %s" % (t, side, event, who, job, detail)).rstrip())
    return lines


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", required=True)
    p.add_argument("--jobs", required=True)
    p.add_argument("--sacct", required=True)
    p.add_argument("--events")
    p.add_argument("--sim")
    p.add_argument("--only", nargs="*")
    args = p.parse_args(argv)
    jobs = read_workload(args.workload)
    with open(args.jobs) as f:
        ids = dict(tuple(map(int, ln.split()[:2])) for ln in f if ln.strip())
    for j in jobs:
        j["job_id"] = ids.get(j["index"])
    timelines = None
    if args.events:
        with open(args.events) as f:
            timelines = json.load(f)
    sim = []
    if args.sim:
        with open(args.sim) as f:
            sim = sim_events(jobs, json.loads(f.read().strip().splitlines()[-1]))
    for line in merged(replay_events(jobs, read_sacct(args.sacct), timelines), sim, args.only):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
