#!/usr/bin/env python3
"""alarms.py: the suspect nodes of one chaos run against its faults.

    alarms.py OUT ELASTICD_LOG TARGETS GROUP

OUT is the job's output (elastic-run's timeline lines, ISO times in UTC),
ELASTICD_LOG elasticd's log (local times of the day), TARGETS the chaos
run's record of its faults ("EPOCH fault - KIND" as each is applied,
"EPOCH start|end NODE KIND" for those on a node), GROUP the base
job's id.  A suspect is a node elastic-run found lost, hung, straggling
or split off, or one elasticd drained, reported or set DOWN for the
group.  It is a true alarm when a fault was on that node at the time (from
its start to GRACE seconds after its end); else a false alarm, and a
healthy node drained when elasticd drained it.  Prints one line per
suspect and a summary; exits 0 (the caller judges)."""

import datetime
import re
import sys

GRACE = 30.0
RUN_EVENT = re.compile(
    r"^elastic-run: (\S+Z) event=(hang|straggler|split|event) (.*)$")
ED_SUSPECT = re.compile(
    r"^elasticd: (\d\d:\d\d:\d\d\.\d+) group (\d+): node (\S+) suspect "
    r"\(([^)]*)\): ([a-z]+)")
ED_BATCH = re.compile(
    r"^elasticd: (\d\d:\d\d:\d\d\.\d+) group (\d+): batch host (\S+) lost")


def kv(text):
    return dict(w.split("=", 1) for w in text.split() if "=" in w)


def iso(ts):
    return datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def run_suspects(lines):
    """[(t, node, what)] from elastic-run's lines."""
    out = []
    for line in lines:
        m = RUN_EVENT.match(line.rstrip("\n"))
        if not m:
            continue
        t, ev, f = iso(m.group(1)), m.group(2), kv(m.group(3))
        if ev == "event":
            # Its own line (hang, straggler, split) says the others.
            if f.get("cause") == "node-lost" and "node" in f:
                out.append((t, f["node"], "lost"))
        elif ev == "split":
            for n in f.get("left", "").split(","):
                if n:
                    out.append((t, n, "split"))
        elif "node" in f:
            out.append((t, f["node"], ev))
    return out


def ed_suspects(lines, group, day):
    """[(t, node, what, drained)] from elasticd's lines for group; the
    times of day are put on day (local), a day later when they wrap."""
    out, last = [], None
    for line in lines:
        m = ED_SUSPECT.match(line) or ED_BATCH.match(line)
        if not m or m.group(2) != str(group):
            continue
        clock = datetime.datetime.strptime(m.group(1), "%H:%M:%S.%f").time()
        t = datetime.datetime.combine(day, clock).timestamp()
        while last is not None and t < last - 3600:
            t += 86400
        last = t
        if m.re is ED_BATCH:
            out.append((t, m.group(3), "batch-host", True))
        else:
            out.append((t, m.group(3), "elasticd " + m.group(4),
                        m.group(5) == "drained"))
    return out


def windows(lines):
    """{node: [[start, end]]} from the targets' lines (end None: open)."""
    w = {}
    for line in lines:
        p = line.split()
        if len(p) < 4:
            continue
        t, what, node = float(p[0]), p[1], p[2]
        if what == "start":
            w.setdefault(node, []).append([t, None])
        elif what == "end" and w.get(node) and w[node][-1][1] is None:
            w[node][-1][1] = t
    return w


def true_alarm(w, node, t, grace=GRACE):
    for start, end in w.get(node, []):
        if start - 2 <= t and (end is None or t <= end + grace):
            return True
    return False


def faults(lines):
    """[(t, kind)] of every fault the run applied, in order."""
    return sorted((float(p[0]), p[3]) for p in (x.split() for x in lines)
                  if len(p) >= 4 and p[1] == "fault")


def after(fs, t):
    """The kind of the last fault before t ("launch" before any)."""
    k = "launch"
    for ft, kind in fs:
        if ft <= t:
            k = kind
    return k


def reckon(run, ed, w, fs=()):
    """(lines, suspects, false alarms, healthy nodes drained); a false
    alarm's line names the fault it came after."""
    rows, false, healthy = [], 0, 0
    for t, node, what, drained in [(a, b, c, False) for a, b, c in run] + ed:
        ok = true_alarm(w, node, t)
        false += not ok
        healthy += drained and not ok
        rows.append("%.3f %s %s %s%s%s" % (
            t, node, what, "true" if ok else "FALSE",
            " drained" if drained else "",
            "" if ok else " after=" + after(fs, t)))
    return sorted(rows), len(rows), false, healthy


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], errors="replace") as f:
        run = run_suspects(f)
    with open(argv[3]) as f:
        tl = f.readlines()
    w = windows(tl)
    first = min([float(x.split()[0]) for x in tl if x.strip()] or [0.0])
    day = datetime.datetime.fromtimestamp(first).date() if first else \
        datetime.date.today()
    with open(argv[2], errors="replace") as f:
        ed = ed_suspects(f, argv[4], day)
    rows, n, false, healthy = reckon(run, ed, w, faults(tl))
    for r in rows:
        print("alarm " + r)
    print("alarms: %d suspect reports, %d false alarms, %d healthy nodes "
          "drained" % (n, false, healthy))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
