#!/usr/bin/python3
"""The workload and the report of bench_cluster_replay: a workload file
(testsuite/bench/workloads) replayed through the embedded cluster's real
slurmctld, its report computed from Slurm's own accounting, and that
report against the cluster simulator's (bench_cluster) on the same file.

  replay_report.py plan WORKLOAD
      the workload's jobs, one a line, in submission order:
      "INDEX SUBMIT_S KIND LABEL NODES MAX RUNTIME_S LIMIT_S LINUX_USER"
      (groups' labels onto elastic-alice, -bob, -carol in turn, in the
      order they first appear; rigid jobs and preemptors: elastic-dave)
  replay_report.py report --workload W --jobs JOBS --sacct SACCT --nodes N
                          [--events EVENTS]
      the report JSON of a replay: JOBS has "INDEX JOBID" a line (the
      workload's job INDEX became Slurm job JOBID), SACCT is
      `sacct -a -X -D -P -n -o JobIDRaw,NNodes,Submit,Start,End,State,
      AdminComment` with SLURM_TIME_FORMAT=%s (every run of every job,
      the units elasticd submitted with them), EVENTS the groups'
      timelines from elasticd (replay_events.py)
  replay_report.py compare REPLAY SIM [--tolerance PCT] [--floor-s S]
      both reports side by side; exit 1 unless they agree (see agree())
  replay_report.py harm WITH WITHOUT --grace S
      the rigid jobs' wait p95 with slurm-elastic against the same
      workload's without it (each group one rigid job at its min): exit 1
      unless with is no more than the units' grace above without

The report (one JSON object), as bench_cluster prints it: nodes, span_s
(first submit to last end), utilization (node-seconds held by any job /
nodes x span), rigid {n, wait_p50_s, wait_p95_s, completion_mean_s,
completion_p95_s} over the rigid jobs (wait: submit to start; completion:
submit to end), groups [{user, min, max, node_seconds, share}] in the
workload's order (node_seconds: the group's world, elasticd's world_nodes
over time from its events to the base's end, as the simulator counts it;
without events what the base and units held; share: the group's unit
node-seconds held over all groups'), jain (Jain's index over the
node_seconds of the largest set of groups with equal min and max),
unit_starts_per_h (unit runs that started), unit_preemptions_per_h (unit
runs Slurm preempted: ended PREEMPTED or REQUEUED, or cancelled by
elasticd while their base ran on, see preempted()).  Percentiles are
nearest-rank.
"""
import argparse
import datetime
import json
import math
import re
import sys

HEADER = "slurm-elastic workload v1"
KINDS = ("rigid", "elastic", "preemptor")
GROUP_USERS = ("elastic-alice", "elastic-bob", "elastic-carol")
OTHER_USER = "elastic-dave"
UNIT_TAG = re.compile(r"elastic-unit:v1 .*\bgroup=(\d+)")
# A unit's run that Slurm ended by preemption (22.05 records the run
# before a requeue as REQUEUED when the requeue came from a preemption).
PREEMPTED = ("PREEMPTED", "REQUEUED")
# elasticd cancels a unit Slurm preempts at once (its group's new world
# leaves it out, and the preemptor need not wait out GraceTime): in
# sacct a unit cancelled while its base still ran, by more than this
# many seconds (a base's end and its units' cancel are one moment).
CANCEL_SLACK_S = 2


class WorkloadError(Exception):
    pass


def _field_int(text, what, lineno, lo=0):
    if not re.fullmatch(r"\d+", text) or int(text) < lo:
        raise WorkloadError("line %d: %s: '%s' is not a whole number of %d or more"
                            % (lineno, what, text, lo))
    return int(text)


def parse_line(line, lineno):
    """One job of the workload: a dict, or None for a blank or comment."""
    text = line.split("#", 1)[0].split()
    if not text:
        return None
    if len(text) != 7:
        raise WorkloadError("line %d: %d fields, not 7 (submit_s kind user nodes max "
                            "runtime_s limit_s)" % (lineno, len(text)))
    submit, kind, user, nodes, mx, runtime, limit = text
    if kind not in KINDS:
        raise WorkloadError("line %d: kind '%s' (allowed: %s)" % (lineno, kind, ", ".join(KINDS)))
    job = dict(submit_s=_field_int(submit, "submit_s", lineno), kind=kind, user=user,
               nodes=_field_int(nodes, "nodes", lineno, 1),
               runtime_s=_field_int(runtime, "runtime_s", lineno, 1),
               limit_s=_field_int(limit, "limit_s", lineno, 1))
    if kind == "elastic":
        job["max"] = _field_int(mx, "max", lineno, job["nodes"])
    elif mx != "-":
        raise WorkloadError("line %d: max '%s' of a %s job (allowed: -)" % (lineno, mx, kind))
    else:
        job["max"] = None
    return job


def read_workload(path):
    """The jobs of a workload file, in submission order (a stable sort:
    lines of one second keep their order), each with its index there and
    the Linux user it runs as."""
    jobs = []
    with open(path) as f:
        lines = f.read().splitlines()
    if not any(ln.startswith("#") and HEADER in ln for ln in lines[:5]):
        raise WorkloadError("no '# %s' line at the top" % HEADER)
    for lineno, line in enumerate(lines, 1):
        job = parse_line(line, lineno)
        if job:
            jobs.append(job)
    if not jobs:
        raise WorkloadError("no job")
    jobs.sort(key=lambda j: j["submit_s"])
    labels = []
    for i, job in enumerate(jobs):
        job["index"] = i
        if job["kind"] != "elastic":
            job["linux_user"] = OTHER_USER
            continue
        if job["user"] not in labels:
            labels.append(job["user"])
        job["linux_user"] = GROUP_USERS[labels.index(job["user"]) % len(GROUP_USERS)]
    return jobs


def cmd_plan(args):
    for j in read_workload(args.workload):
        print(j["index"], j["submit_s"], j["kind"], j["user"], j["nodes"],
              "-" if j["max"] is None else j["max"], j["runtime_s"], j["limit_s"],
              j["linux_user"])
    return 0


# ------------------------------------------------------------ the report


def _num(text):
    try:
        return float(text)
    except ValueError:
        return None  # Unknown, None: the run never started or ended


def read_sacct(path):
    """Every run: dict(job, nodes, submit, start, end, state, group) with
    group the base's job id of a unit (None otherwise)."""
    runs = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("|")
            if len(p) < 7 or not p[0].isdigit():
                continue
            m = UNIT_TAG.search("|".join(p[6:]))
            runs.append(dict(job=int(p[0]), nodes=int(p[1] or 0), submit=_num(p[2]),
                             start=_num(p[3]), end=_num(p[4]),
                             state=p[5].split()[0] if p[5] else "",
                             group=int(m.group(1)) if m else None))
    return runs


def held(run):
    """Node-seconds a run held its nodes."""
    if run["start"] is None or run["end"] is None or run["start"] <= 0:
        return 0.0
    return run["nodes"] * max(0.0, run["end"] - run["start"])


def nearest_rank(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    return float(v[max(0, math.ceil(p / 100.0 * len(v)) - 1)])


def jain(values):
    if not values or not any(values):
        return 1.0
    return sum(values) ** 2 / (len(values) * sum(x * x for x in values))


def equal_set(groups):
    """The node_seconds of the largest set of groups of equal min and max
    (the first such set on a tie)."""
    sets = {}
    for g in groups:
        sets.setdefault((g["min"], g["max"]), []).append(g["node_seconds"])
    return max(sets.values(), key=len) if sets else []


def rigid_part(jobs, runs_of):
    waits, comps = [], []
    for j in jobs:
        rs = runs_of.get(j.get("job_id"), [])
        if j["kind"] != "rigid" or not rs:
            continue
        submit = min(r["submit"] for r in rs if r["submit"] is not None)
        starts = [r["start"] for r in rs if r["start"]]
        ends = [r["end"] for r in rs if r["end"]]
        if starts:
            waits.append(min(starts) - submit)
        if ends:
            comps.append(max(ends) - submit)
    return dict(n=len(waits), wait_p50_s=nearest_rank(waits, 50),
                wait_p95_s=nearest_rank(waits, 95),
                completion_mean_s=sum(comps) / len(comps) if comps else 0.0,
                completion_p95_s=nearest_rank(comps, 95))


def event_time(text):
    """An event's RFC 3339 time (elasticd-api(7)) in seconds."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def world_node_seconds(events, end):
    """The group's world over time, as elasticd formed it: each event's
    world_nodes from its time to the next event's, up to its base's end."""
    pts = sorted((event_time(e["time"]), e.get("world_nodes") or 0) for e in events if e.get("time"))
    total = 0.0
    for i, (t, w) in enumerate(pts):
        nxt = min(pts[i + 1][0] if i + 1 < len(pts) else end, end)
        total += w * max(0.0, nxt - t)
    return total


def group_part(jobs, runs_of, units, timelines):
    """Each group's node_seconds: its world's (elasticd's timeline) when
    there is one, else what its base and units held."""
    groups = []
    for j in jobs:
        if j["kind"] != "elastic":
            continue
        base_runs = runs_of.get(j.get("job_id"), [])
        base = sum(held(r) for r in base_runs)
        mine = sum(held(r) for r in units if r["group"] == j.get("job_id"))
        events = timelines.get(str(j.get("job_id")))
        if events:
            ns = world_node_seconds(events, max((r["end"] or 0) for r in base_runs))
        else:
            ns = base + mine
        groups.append(dict(user=j["user"], min=j["nodes"], max=j["max"],
                           node_seconds=round(ns, 1), unit_node_seconds=mine))
    total = sum(g["unit_node_seconds"] for g in groups)
    for g in groups:
        g["share"] = round(g.pop("unit_node_seconds") / total, 4) if total else 0.0
    return groups


def preempted(unit, base_end):
    """A unit's run taken back while its group ran on."""
    if unit["state"] in PREEMPTED:
        return True
    return (unit["state"] == "CANCELLED" and unit["start"] is not None and unit["end"] is not None
            and base_end is not None and unit["end"] < base_end - CANCEL_SLACK_S)


def make_report(jobs, runs, nodes, timelines=None):
    """The report of a replay: jobs from read_workload with job_id set
    (the Slurm job each became), runs from read_sacct, timelines the
    groups' events by base job id (replay_events.py)."""
    ours = {j["job_id"] for j in jobs if j.get("job_id")}
    units = [r for r in runs if r["group"] in ours]
    runs_of = {}
    for r in runs:
        if r["job"] in ours:
            runs_of.setdefault(r["job"], []).append(r)
    every = [r for rs in runs_of.values() for r in rs] + units
    submits = [r["submit"] for rs in runs_of.values() for r in rs if r["submit"]]
    ends = [r["end"] for r in every if r["end"] and r["start"]]
    if not submits or not ends:
        raise ValueError("no job of the workload ran")
    span = max(ends) - min(submits)
    hours = span / 3600.0 if span > 0 else 1.0
    groups = group_part(jobs, runs_of, units, timelines or {})
    base_end = {g: max((r["end"] or 0) for r in rs) for g, rs in runs_of.items()}
    return dict(
        nodes=nodes, span_s=round(span, 1),
        utilization=round(sum(held(r) for r in every) / (nodes * span), 4) if span > 0 else 0.0,
        rigid={k: (round(v, 1) if isinstance(v, float) else v)
               for k, v in rigid_part(jobs, runs_of).items()},
        groups=groups, jain=round(jain(equal_set(groups)), 4),
        unit_starts_per_h=round(sum(1 for r in units if r["start"]) / hours, 1),
        unit_preemptions_per_h=round(sum(1 for r in units if preempted(r, base_end.get(r["group"])))
                                     / hours, 1))


def cmd_report(args):
    jobs = read_workload(args.workload)
    with open(args.jobs) as f:
        ids = dict(tuple(map(int, ln.split()[:2])) for ln in f if ln.strip())
    for j in jobs:
        j["job_id"] = ids.get(j["index"])
    timelines = {}
    if args.events:
        with open(args.events) as f:
            timelines = json.load(f)
    json.dump(make_report(jobs, read_sacct(args.sacct), args.nodes, timelines), sys.stdout)
    print()
    return 0


# ------------------------------------------------------------ comparison


def rows(replay, sim, tol, floor_s):
    """(name, replay's, simulator's, allowed difference or None: shown,
    not compared).  Allowed: tol of the simulator's value, or a floor
    for small values: floor_s for times, floor_s x the group's max nodes
    for node-seconds, 0.02 for a share."""
    out = [("utilization", replay["utilization"], sim["utilization"],
            tol * sim["utilization"])]
    for k in ("wait_p50_s", "wait_p95_s", "completion_mean_s", "completion_p95_s"):
        out.append(("rigid." + k, replay["rigid"][k], sim["rigid"][k],
                    max(tol * sim["rigid"][k], floor_s)))
    rg, sg = replay.get("groups", []), sim.get("groups", [])
    for i, (a, b) in enumerate(zip(rg, sg)):
        name = "group %d (%s %d-%d)" % (i, b.get("user"), b.get("min", 0), b.get("max", 0))
        out.append((name + " node_seconds", a["node_seconds"], b["node_seconds"],
                    max(tol * b["node_seconds"], floor_s * b.get("max", 1))))
        out.append((name + " share", a["share"], b["share"], max(tol * b["share"], 0.02)))
    for k in ("span_s", "jain", "unit_starts_per_h", "unit_preemptions_per_h"):
        out.append((k, replay.get(k), sim.get(k), None))
    out.append(("rigid.n", replay["rigid"]["n"], sim["rigid"]["n"], 0))
    return out


def agree(replay, sim, tol, floor_s):
    """(lines of the side-by-side table, True if every compared row is
    within its allowance and both have the same groups)."""
    fine = len(replay.get("groups", [])) == len(sim.get("groups", []))
    lines = ["%-34s %12s %12s %10s %10s  %s" % ("", "replay", "simulator", "diff", "allowed", "")]
    for name, a, b, allowed in rows(replay, sim, tol, floor_s):
        if allowed is None or a is None or b is None:
            lines.append("%-34s %12s %12s" % (name, a, b))
            continue
        d = a - b
        good = abs(d) <= allowed + 1e-9
        fine = fine and good
        lines.append("%-34s %12.4g %12.4g %+10.3g %10.3g  %s"
                     % (name, a, b, d, allowed, "ok" if good else "DISAGREE"))
    if len(replay.get("groups", [])) != len(sim.get("groups", [])):
        lines.append("groups: %d in the replay, %d in the simulator: DISAGREE"
                     % (len(replay.get("groups", [])), len(sim.get("groups", []))))
    return lines, fine


def cmd_compare(args):
    with open(args.replay) as f:
        replay = json.load(f)
    with open(args.sim) as f:
        sim = json.load(f)
    lines, fine = agree(replay, sim, args.tolerance / 100.0, args.floor_s)
    print("\n".join(lines))
    print("agreement: %s (within %g%% or the floors: %g s, %g node-s a node, share 0.02)"
          % ("yes" if fine else "NO", args.tolerance, args.floor_s, args.floor_s))
    return 0 if fine else 1


def harm(with_, without, grace):
    """(the line, True when the rigid jobs' wait p95 with slurm-elastic
    is no more than the units' grace above without it)."""
    a, b = with_["rigid"]["wait_p95_s"], without["rigid"]["wait_p95_s"]
    fine = with_["rigid"]["n"] == without["rigid"]["n"] and a <= b + grace + 1e-9
    return ("rigid wait p95 with slurm-elastic %g s, without %g s (%d and %d rigid jobs), "
            "the units' grace %g s: %s" % (a, b, with_["rigid"]["n"], without["rigid"]["n"],
                                          grace, "pass" if fine else "FAIL")), fine


def cmd_harm(args):
    with open(args.with_) as f:
        with_ = json.load(f)
    with open(args.without) as f:
        without = json.load(f)
    line, fine = harm(with_, without, args.grace)
    print(line)
    return 0 if fine else 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("workload")
    p = sub.add_parser("report")
    p.add_argument("--workload", required=True)
    p.add_argument("--jobs", required=True)
    p.add_argument("--sacct", required=True)
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--events")
    p = sub.add_parser("compare")
    p.add_argument("replay")
    p.add_argument("sim")
    p.add_argument("--tolerance", type=float, default=10.0)
    p.add_argument("--floor-s", type=float, default=10.0)
    p = sub.add_parser("harm")
    p.add_argument("with_", metavar="with")
    p.add_argument("without")
    p.add_argument("--grace", type=float, required=True)
    args = ap.parse_args(argv)
    try:
        return dict(plan=cmd_plan, report=cmd_report, compare=cmd_compare,
                    harm=cmd_harm)[args.cmd](args)
    except (WorkloadError, ValueError, OSError, KeyError) as e:
        print("replay_report: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
