#!/usr/bin/env python3
"""alarms.py on made-up lines: true alarms within a fault's window, false
ones outside it, healthy nodes drained (make check; no cluster)."""

import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alarms  # noqa: E402


def check(cond, what):
    if not cond:
        print("not ok - " + what)
        sys.exit(1)
    print("ok - " + what)


def utc(s):
    return datetime.datetime.fromisoformat(s).replace(
        tzinfo=datetime.timezone.utc)


def main():
    t0 = utc("2026-11-29T10:00:00").timestamp()
    run = alarms.run_suspects([
        "elastic-run: 2026-11-29T10:00:05.000Z event=event restart=0 nnodes=4 cause=node-lost node=n3 job=7 silent=5.0 heard=yes\n",
        "elastic-run: 2026-11-29T10:00:06.000Z event=released restart=0 nnodes=4 node=n3 job=7 slurm=cancelled\n",
        "elastic-run: 2026-11-29T10:02:00.000Z event=split restart=1 nnodes=4 left=n4,n2 kept=2\n",
        "elastic-run: 2026-11-29T10:03:00.000Z event=hang restart=2 nnodes=3 rank=2 node=n4 job=9 step=5 stalled=21.0 timeout=20.0 median_step=0.060\n",
        "elastic-run: 2026-11-29T10:03:00.100Z event=event restart=2 nnodes=3 cause=hang node=n4 job=9\n",
        "step 12 loss 0.1 world 4\n",
    ])
    check([(n, w) for _, n, w in run] ==
          [("n3", "lost"), ("n4", "split"), ("n2", "split"), ("n4", "hang")],
          "elastic-run's suspects, once each: %s" % run)
    check(run[0][0] == t0 + 5, "ISO times in UTC")
    local = datetime.datetime.fromtimestamp(t0 + 7)
    ed = alarms.ed_suspects([
        "elasticd: %s group 5: node n3 suspect (lost): drained; 1 drained\n"
        % local.strftime("%H:%M:%S.%f")[:12],
        "elasticd: %s group 6: node n1 suspect (lost): drained; 1 drained\n"
        % local.strftime("%H:%M:%S.%f")[:12],
        "elasticd: %s group 5: batch host n1 lost (launcher silent)\n"
        % local.strftime("%H:%M:%S.%f")[:12],
    ], "5", local.date())
    check(len(ed) == 2 and abs(ed[0][0] - (t0 + 7)) < 0.01 and ed[0][3],
          "elasticd's drain of group 5, at its local time: %s" % ed)
    w = alarms.windows([
        "%f start n3 crash-unit\n" % (t0 + 1),
        "%f end n3 crash-unit\n" % (t0 + 60),
        "%f start n4 partition\n" % (t0 + 110),
        "%f end n4 partition\n" % (t0 + 150),
        "%f start n4 hang\n" % (t0 + 170),
    ])
    check(alarms.true_alarm(w, "n3", t0 + 5), "within the crash: true")
    check(alarms.true_alarm(w, "n3", t0 + 85), "25 s after its end: true")
    check(not alarms.true_alarm(w, "n3", t0 + 95), "35 s after: false")
    check(alarms.true_alarm(w, "n4", t0 + 500), "an open fault: true")
    rows, n, false, healthy = alarms.reckon(run, ed, w)
    check(n == 6, "six suspects")
    check(false == 2, "n2 split off and the batch host n1: false: %s" % rows)
    check(healthy == 1, "the batch host set DOWN healthy: %s" % rows)
    fs = alarms.faults(["%f fault - kill9\n" % (t0 + 100),
                        "%f start n4 partition\n" % (t0 + 110),
                        "%f fault - partition\n" % (t0 + 110)])
    rows, n, false, healthy = alarms.reckon(run, ed, w, fs)
    check([r.split()[-1] for r in rows if "FALSE" in r] ==
          ["after=launch", "after=partition"],
          "a false alarm names the fault it came after: %s" % rows)
    rows, n, false, healthy = alarms.reckon([], [], {})
    check((n, false, healthy) == (0, 0, 0), "nothing: nothing")


if __name__ == "__main__":
    main()
