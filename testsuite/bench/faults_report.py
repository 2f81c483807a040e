#!/usr/bin/env python3
"""The table of `make bench-faults`: fault -> training again at the new
size, p50 and max over the runs, from the "figure:" lines the fault
stories print (testsuite/integration/t0122, t0124, t0125, t0127, t0128,
t0330, t0331), each beside the project's target for it.
Usage: faults_report.py LOG...  (one log per story run)."""

import re
import statistics
import sys

# figure text (a regular expression on the line after "# figure: ") ->
# (fault, path, the target in seconds or None): the time from the fault
# to the first training step, or to the ranks up, at the new size.
ROWS = [
    (r"^heartbeat: crash of a unit's node to ranks up at 2 nodes: ([0-9.]+) s",
     "unit node crash", "restart", 15),
    (r"^heartbeat: crash of the base's second node to ranks up at 2 nodes: ([0-9.]+) s",
     "base node crash (not the batch host)", "restart", 15),
    (r"^heartbeat: a unit's node cut off to ranks up at 2 nodes: ([0-9.]+) s",
     "node cut off (its link down)", "restart", 15),
    (r"^heartbeat: a unit's node split from the other compute nodes to ranks up without it: ([0-9.]+) s",
     "split from the batch host's side", "restart", 20),
    (r"^split: pytorch: it trains on at 3, on the batch host's side: ([0-9.]+) s",
     "split between compute nodes (PyTorch)", "restart", 20),
    (r"^hang: a rank stopped to ranks up at 2 nodes: ([0-9.]+) s",
     "hang (hang timeout 10 s)", "restart", 10 + 15),
    (r"^straggler: throttled to ranks up at 2 nodes: ([0-9.]+) s",
     "slow node (5% of a CPU), evicted", "restart", None),
    (r"^batch host: crash to ranks up again: ([0-9.]+) s",
     "batch host crash", "restart", 60),
    (r"^in place: crash: it goes on at 3 ranks in place: ([0-9.]+) s",
     "unit node crash", "in place", 5),
    (r"^in place: it goes on at 3 ranks in place, from the survivors' memory: ([0-9.]+) s",
     "unit node crash (heartbeats at 5 s)", "in place", None),
    (r"^in place: split: it goes on at 3 ranks in place, on the batch host's side: ([0-9.]+) s",
     "split between compute nodes (PyTorch)", "in place", 10),
    (r"^in place: hang: it goes on at 3 ranks in place: ([0-9.]+) s",
     "hang (hang timeout 10 s)", "in place", 10 + 5),
]


def collect(lines):
    """(fault, path) -> [seconds] from the figure lines."""
    seen = {}
    for line in lines:
        m = re.match(r"^# figure: (.*)$", line.rstrip("\n"))
        if not m:
            continue
        for pattern, fault, path, _ in ROWS:
            f = re.match(pattern, m.group(1))
            if f:
                seen.setdefault((fault, path), []).append(float(f.group(1)))
    return seen


def table(seen, runs_wanted=5):
    """The report's lines: one per fault and path, in ROWS' order."""
    out = ["%-40s %-9s %5s %8s %8s %8s" % ("fault", "path", "runs", "target",
                                           "p50 s", "max s")]
    for _, fault, path, target in ROWS:
        v = seen.get((fault, path))
        goal = "< %d" % target if target else "-"
        if not v:
            out.append("%-40s %-9s %5d %8s %8s %8s" % (fault, path, 0, goal, "-", "-"))
            continue
        note = "" if len(v) >= runs_wanted else "  (fewer than %d runs)" % runs_wanted
        if target and max(v) >= target:
            note += "  (over the target)"
        out.append("%-40s %-9s %5d %8s %8.1f %8.1f%s"
                   % (fault, path, len(v), goal, statistics.median(v), max(v), note))
    return out


def main(argv):
    lines = []
    for name in argv[1:]:
        with open(name, encoding="utf-8", errors="replace") as f:
            lines.extend(f)
    for line in table(collect(lines)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
