#!/usr/bin/env python3
"""faults_report.py on made-up figure lines: the table's rows, p50 and
max, and the runs counted (make check; no cluster)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faults_report  # noqa: E402

LINES = [
    "ok 5 - something\n",
    "# figure: heartbeat: crash of a unit's node to ranks up at 2 nodes: 6.0 s\n",
    "# figure: heartbeat: crash of a unit's node to ranks up at 2 nodes: 7.0 s (x)\n",
    "# figure: heartbeat: crash of a unit's node to ranks up at 2 nodes: 9.5 s\n",
    "# figure: hang: a rank stopped to ranks up at 2 nodes: 14.9 s\n",
    "# figure: batch host: crash to ranks up again: 27.1 s\n",
    "# figure: batch host: crash to the base running again: 26.1 s\n",
    "# not a figure: batch host: crash to ranks up again: 99 s\n",
]


def check(cond, what):
    if not cond:
        print("not ok - " + what)
        sys.exit(1)
    print("ok - " + what)


def main():
    seen = faults_report.collect(LINES)
    check(seen[("unit node crash", "restart")] == [6.0, 7.0, 9.5],
          "three crash figures, in order")
    check(seen[("batch host crash", "restart")] == [27.1],
          "the batch host's ranks-up figure only")
    rows = faults_report.table(seen, runs_wanted=3)
    crash = [r for r in rows if r.startswith("unit node crash ") and "restart" in r][0]
    check(crash.split()[-2:] == ["7.0", "9.5"], "p50 7.0, max 9.5: " + crash)
    check("fewer than" not in crash, "three runs of three wanted")
    hang = [r for r in rows if r.startswith("hang")][0]
    check("fewer than 3 runs" in hang, "one run of three is said: " + hang)
    split = [r for r in rows if r.startswith("split between")][0]
    check(split.split()[-2:] == ["-", "-"], "no run: no figure")
    check(crash.split()[-4:-2] == ["<", "15"], "the crash's target: " + crash)
    batch = [r for r in rows if r.startswith("batch host crash")][0]
    check(batch.endswith("(fewer than 3 runs)"), "under its target: " + batch)
    slow = faults_report.table(faults_report.collect(
        ["# figure: in place: hang: it goes on at 3 ranks in place: 16.0 s\n"]), 1)
    hang_ip = [r for r in slow if r.startswith("hang") and "in place" in r][0]
    check(hang_ip.endswith("(over the target)"), "over its target is said: " + hang_ip)
    check(len(rows) == len(faults_report.ROWS) + 1, "a header and a row per fault")


if __name__ == "__main__":
    main()
