#!/usr/bin/python3
"""The figures of bench_resize, from what the runs left behind.

usage: resize_report.py RUN_DIR

RUN_DIR holds, for each run (restart/ and in-place/, the elastic job on
each resize path, or elastic/ from before; restart-spare/ and
in-place-spare/, a group with a spare whose world members' nodes crash;
native/):
  out        the job's output: elastic-run's timeline (stderr) and the
             ranks' (train_ddp.py, stdout), lines
             "<prog>: <RFC 3339 UTC time> event=<what> k=v ...";
  marks      the bench's own marks, "<epoch seconds> <name> [k=v ...]"
             (a crash window runs from a "crash" mark to the next "boot");
  sacct      sacct -P -X -D of every job of the run (header line first);
  events.json (elastic only) elasticd's GET /v1/groups/<job>/events;
  high.start, high.end  the preemptor's own times (epoch seconds).
and RUN_DIR/params: k=v lines (scale_delay, ...).

Lines that do not parse are ignored; fields after the known ones are
ignored, so the timelines may grow.  Prints "bench: ..." lines: figures, not
verdicts; the targets are printed next to them.
"""

import datetime
import json
import os
import re
import sys

LINE_RE = re.compile(
    r"^(?P<src>elastic-run|train_ddp): "
    r"(?P<t>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (?P<rest>.*)$")
KV_RE = re.compile(r"(\w[\w.-]*)=(\S*)")


def rfc3339(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def timeline(path):
    """[(time, src, {k: v})] in time order."""
    out = []
    for line in read(path).splitlines():
        m = LINE_RE.match(line.strip())
        if not m:
            continue
        kv = dict(KV_RE.findall(m.group("rest")))
        if "event" not in kv:
            continue
        out.append((rfc3339(m.group("t")), m.group("src"), kv))
    out.sort(key=lambda x: x[0])
    return out


def marks(path):
    out = []
    for line in read(path).splitlines():
        p = line.split()
        if len(p) >= 2:
            try:
                out.append((float(p[0]), p[1], dict(KV_RE.findall(line))))
            except ValueError:
                pass
    return out


def mark(ms, name):
    for t, n, _ in ms:
        if n == name:
            return t
    return None


def preempt_start(ms):
    """Slurm's preemption start as the bench's poller saw it: the poll
    before the one that saw PreemptTime set (the earliest it can have
    been), the poll that saw it, and the job."""
    for t, n, kv in ms:
        if n == "preempt-seen":
            try:
                return float(kv.get("prev_poll", t)), t, kv.get("job")
            except ValueError:
                return t, t, kv.get("job")
    return None, None, None


def preempt_lines(head, ms, high_submit, told_last, nranks, extra=""):
    p0, p1, pjob = preempt_start(ms)
    print("%s: preempt->last-rank-told %s s (target < 1 s) [Slurm's "
          "preemption of job %s (its PreemptTime, polled: between +%s and "
          "+%s s after the high job's submission) -> last of %d ranks' told]"
          % (head, f(span(p0, told_last)), pjob or "?",
             f(span(high_submit, p0)), f(span(high_submit, p1)), nranks))
    print("%s: high-job-submitted->last-rank-told %s s%s"
          % (head, f(span(high_submit, told_last)), extra))


def preemptor_running(head, d, ms, high_submit, note):
    """The time the preemptor waited: submitted -> its own start.  Slurm
    gives the nodes back when the preempted job is gone: at GraceTime's
    end for a whole job, as soon as the units' ranks left for elastic.
    Also the part after Slurm began the preemption (its own scheduling
    before that is the same for both)."""
    start = epoch_file(os.path.join(d, "high.start"))
    p0, p1, _ = preempt_start(ms)
    w = span(high_submit, start)
    print("%s: preemptor submitted->running %s s %s; from Slurm's preemption "
          "start (+%s s) %s s" % (head, f(w), note, f(span(high_submit, p1)),
                                 f(span(p1, start))))
    return w


def epoch_file(path):
    try:
        return float(read(path).split()[0])
    except (IndexError, ValueError):
        return None


def slurm_time(s):
    """sacct's local time, whole seconds; None for Unknown/None."""
    try:
        return datetime.datetime.fromisoformat(s).timestamp()
    except ValueError:
        return None


def sacct(path):
    lines = [l for l in read(path).splitlines() if l.strip()]
    if not lines:
        return []
    head = lines[0].split("|")
    rows = []
    for l in lines[1:]:
        r = dict(zip(head, l.split("|")))
        for k in ("Submit", "Start", "End"):
            r[k] = slurm_time(r.get(k, ""))
        try:
            r["NNodes"] = int(r.get("NNodes", "0"))
        except ValueError:
            r["NNodes"] = 0
        rows.append(r)
    return rows


def num(kv, k, default=None):
    try:
        return int(kv[k])
    except (KeyError, TypeError, ValueError):
        return default


def f(x):
    return "n/a" if x is None else "%.2f" % x


def span(a, b):
    return None if a is None or b is None else b - a


def first(tl, src, event, restart=None, after=None):
    for t, s, kv in tl:
        if s == src and kv.get("event") == event and \
                (restart is None or num(kv, "restart") == restart) and \
                (after is None or t >= after):
            return t, kv
    return None, {}


def ranks(tl, event, restart):
    """[(time, kv)] of the ranks' EVENT lines of that restart."""
    return [(t, kv) for t, s, kv in tl if s == "train_ddp"
            and kv.get("event") == event and num(kv, "restart") == restart]


def rank_block(tl, restart):
    """What the ranks of RESTART logged about leaving: last told, the
    longest checkpoint, and the slowest rank's time in user code from
    being told to its exit."""
    told = {num(kv, "rank"): t for t, kv in ranks(tl, "told", restart)}
    exits = {num(kv, "rank"): t for t, kv in ranks(tl, "exit", restart)}
    ck = [float(kv.get("seconds", "nan")) for t, kv in ranks(tl, "checkpoint", restart)]
    user = [exits[r] - told[r] for r in told if r in exits]
    return dict(told_last=max(told.values()) if told else None,
                told_first=min(told.values()) if told else None,
                nranks_told=len(told),
                checkpoint=max(ck) if ck else None,
                user=max(user) if user else None)


def ranks_up(tl, restart, after=None):
    ups = [t for t, kv in ranks(tl, "up", restart) if after is None or t >= after]
    return (max(ups), len(ups)) if ups else (None, 0)


def usage(rows, total_samples, label, submit=None):
    """Time to finish and samples per node-second held."""
    node_s = sum(r["NNodes"] * (r["End"] - r["Start"]) for r in rows
                 if r["Start"] and r["End"] and r["End"] >= r["Start"])
    return node_s


def summary(label, rows_main, rows_all, tl):
    done_kv = {}
    for t, s, kv in tl:
        if s == "train_ddp" and kv.get("event") == "done":
            done_kv = kv
    samples = num(done_kv, "samples_consumed")
    submit = min((r["Submit"] for r in rows_main if r["Submit"]), default=None)
    end = max((r["End"] for r in rows_main if r["End"]), default=None)
    node_s = usage(rows_all, samples, label)
    fin = span(submit, end)
    print("bench: %s: time to finish %s s (Slurm Submit -> End of the job%s)"
          % (label, f(fin), ", after %d requeue(s)" % (len(rows_main) - 1)
             if len(rows_main) > 1 else ""))
    if samples and node_s:
        print("bench: %s: %d samples in %.1f node-seconds held (%d Slurm "
              "job record(s)): %.1f samples per node-second"
              % (label, samples, node_s, len(rows_all), samples / node_s))
    else:
        print("bench: %s: samples per node-second n/a (samples %s, "
              "node-seconds %s: did the training finish?)"
              % (label, samples, f(node_s)))
    return fin, (samples / node_s if samples and node_s else None)


def elastic_report(d, params):
    tl = timeline(os.path.join(d, "out"))
    ms = marks(os.path.join(d, "marks"))
    ev = []
    try:
        doc = json.loads(read(os.path.join(d, "events.json"), "{}"))
        ev = [(rfc3339(e["time"]), e) for e in doc.get("events", [])
              if isinstance(e, dict) and "time" in e]
    except (ValueError, KeyError):
        pass
    ev.sort(key=lambda x: x[0])
    rows = sacct(os.path.join(d, "sacct"))
    base = mark(ms, "base") and [m for m in ms if m[1] == "base"][0][2].get("job")
    rows_main = [r for r in rows if r.get("JobID") == base]
    units = [r for r in rows if ("group=%s" % base) in r.get("AdminComment", "")]
    high_submit = mark(ms, "high-submit")
    # Each preemptor's end (high.end, then high-2.end, ...).
    high_ends = sorted(x for x in (epoch_file(os.path.join(d, n))
                                   for n in os.listdir(d)
                                   if re.match(r"high(-\d+)?\.end\Z", n))
                       if x is not None)
    base_start = rows_main[0]["Start"] if rows_main else None
    scale = float(params.get("scale_delay", "1"))
    grow_target = scale + 5

    n = preempts = 0
    used_ev = set()
    max_launcher, max_world = 0, 0
    # The first world: the units may have started before the launcher's
    # first launch, which then starts on all of them (no resize).
    up0, kv0 = first(tl, "elastic-run", "ranks-up", 0)
    if up0 is not None:
        launch0, lk0 = first(tl, "elastic-run", "launch", 0)
        rup0, _ = ranks_up(tl, 0)
        print("bench: start: the launcher's first world: %s node(s); "
              "idle-node-to-in-use %s s (target scale delay %g + 5 = %g s) "
              "[base job started (Slurm, whole s) -> launcher ranks-up on "
              "them; launch +%s s; ranks' own up +%s s]"
              % (kv0.get("nnodes", "?"), f(span(base_start, up0)), scale,
                 grow_target, f(span(base_start, launch0)), f(span(base_start, rup0))))
        max_launcher = num(kv0, "nnodes", 0)
    for t, s, kv in tl:
        if s != "elastic-run" or kv.get("event") != "event":
            continue
        r = num(kv, "restart")
        if kv.get("cause") == "stop":
            continue
        n += 1
        # elasticd's event that led to it: the last one before (or just
        # after: clocks are the same machine's) the launcher's.
        cand = [(te, e) for te, e in ev if t - 60 <= te <= t + 0.5
                and te not in used_ev and e.get("cause") not in ("start", "end")]
        te, e = cand[-1] if cand else (None, {})
        if te is not None:
            used_ev.add(te)
        cause = e.get("cause") or kv.get("cause", "?")
        told_t, _ = first(tl, "elastic-run", "told", r)
        relaunch_t, rk = first(tl, "elastic-run", "relaunch", r + 1)
        up_t, _ = first(tl, "elastic-run", "ranks-up", r + 1)
        rb = rank_block(tl, r)
        rup, nup = ranks_up(tl, r + 1)
        head = "bench: resize %d %s" % (n, cause)
        max_launcher = max(max_launcher, num(rk, "nnodes", 0))
        max_world = max(max_world, num(e, "world_nodes", 0) if e else 0)
        print("%s: elasticd gen %s world %s nodes; launcher restart %d -> %d "
              "at nnodes %s -> %s%s"
              % (head, e.get("generation", "?"), e.get("world_nodes", "?"), r,
                 r + 1, kv.get("nnodes"), rk.get("nnodes", "?"),
                 "" if str(rk.get("nnodes")) == str(e.get("world_nodes", rk.get("nnodes")))
                 else " (the launcher's membership does not come from elasticd yet)"))
        # The preemptor's own times and Slurm's preemption start are
        # known for the first preemption of the run.
        if cause == "preempt" and not preempts:
            preempts += 1
            preempt_lines(head, ms, high_submit, rb["told_last"], rb["nranks_told"],
                          " [elasticd's event +%s s, launcher's event +%s s, "
                          "launcher told +%s s]"
                          % (f(span(high_submit, te)), f(span(high_submit, t)),
                             f(span(high_submit, told_t))))
            waited["elastic"] = preemptor_running(
                head, d, ms, high_submit,
                "(target < 2 s + the ranks' checkpoint %s s) [the preempted "
                "units are cancelled once their ranks left]" % f(rb["checkpoint"]))
        user = rb["user"] or 0.0
        # The event starts when the launcher or a rank hears of it,
        # whichever is first (elasticd raises it on the ranks directly).
        t0 = min(t, rb["told_first"]) if rb["told_first"] is not None else t
        ov = span(t0, up_t)
        print("%s: overhead %s s (target < 2 s) [event (launcher's or first rank's)->ranks-up "
              "%s s minus ranks' told->exit %s s (checkpoint %s s); "
              "relaunch +%s s; ranks' own up (process group formed) +%s s]"
              % (head, f(ov - user if ov is not None else None), f(ov),
                 f(rb["user"]), f(rb["checkpoint"]), f(span(t, relaunch_t)),
                 f(span(t, rup))))
        done_t, _ = first(tl, "train_ddp", "done", r)
        if not rb["nranks_told"] and done_t is not None and done_t <= t:
            print("%s: note: the ranks had finished the training before this "
                  "event: the relaunch only found the last checkpoint "
                  "(more EPOCHS make the resize happen during training)" % head)
        if cause in ("grow", "return"):
            ended = [x for x in high_ends if te and x < te]
            idle = max(ended) if ended else base_start
            what = "preemptor ended" if ended else "base job started (Slurm, whole s)"
            print("%s: idle-node-to-in-use %s s (target scale delay %g + 5 = %g s) "
                  "[%s -> elasticd grow +%s s -> launcher ranks-up; "
                  "ranks' own up +%s s]"
                  % (head, f(span(idle, up_t)), scale, grow_target, what,
                     f(span(idle, te)), f(span(idle, rup))))
    if not n:
        print("bench: elastic: no resize in the launcher's timeline")
    res = summary("elastic", rows_main, rows_main + units, tl)
    if max_launcher < max_world:
        print("bench: elastic: note: the launcher ran the ranks on at most %d "
              "node(s) while elasticd's world had up to %d: the units' nodes "
              "were held but not trained on, so time to finish and samples "
              "per node-second are those of a launcher without elasticd's "
              "membership" % (max_launcher, max_world))
    return res


def native_report(d, params):
    tl = timeline(os.path.join(d, "out"))
    ms = marks(os.path.join(d, "marks"))
    rows = sacct(os.path.join(d, "sacct"))
    job = [m for m in ms if m[1] == "job"]
    job = job[0][2].get("job") if job else None
    rows_main = [r for r in rows if r.get("JobID") == job]
    high_submit = mark(ms, "high-submit")
    high_end = epoch_file(os.path.join(d, "high.end"))
    scale = float(params.get("scale_delay", "1"))
    restarts = sorted({num(kv, "restart") for t, s, kv in tl
                       if s == "train_ddp" and num(kv, "restart") is not None})
    n = 0
    for r in restarts:
        rb = rank_block(tl, r)
        if not rb["nranks_told"]:
            continue
        n += 1
        rup, nup = ranks_up(tl, r + 1)
        head = "bench: native resize %d preempt" % n
        preempt_lines(head, ms, high_submit, rb["told_last"], rb["nranks_told"],
                      " [Slurm's SIGTERM to the steps]")
        waited["native"] = preemptor_running(
            head, d, ms, high_submit,
            "[Slurm frees the nodes at the end of the partition's GraceTime]")
        print("%s: told->ranks up again %s s [whole job requeued: ranks' "
              "told->exit %s s (checkpoint %s s), then GraceTime, the "
              "requeue and the wait for all %d nodes]"
              % (head, f(span(rb["told_last"], rup)), f(rb["user"]),
                 f(rb["checkpoint"]), nup))
        if high_end:
            print("bench: native resize %d regrow: idle-node-to-in-use %s s "
                  "(target scale delay %g + 5 = %g s) [preemptor ended -> "
                  "requeued job's ranks up]"
                  % (n, f(span(high_end, rup)), scale, scale + 5))
    if not n:
        print("bench: native: no rank was told of a preemption")
    return summary("native", rows_main, rows_main, tl)


def crash_windows(ms):
    """[(crash, boot)]: each crash mark to the next boot mark (inf while
    the node has not booted)."""
    out = []
    for t, n, _ in ms:
        if n == "crash":
            out.append([t, float("inf")])
        elif n == "boot" and out and out[-1][1] == float("inf"):
            out[-1][1] = t
    return [tuple(w) for w in out]


def resizes(tl, ms):
    """Each resize of a run, in order: a dict with kind (shrink, grow,
    crash: fewer nodes in a crash window, crash-spare: as many, a spare in
    the lost member's place), from and to (nodes), the launcher's event
    time, the first step rank 0 completed at the new size, and the parts
    (seconds from the event).  In-place resizes that changed nothing are
    left out."""
    windows = crash_windows(ms)
    evs = [(t, kv) for t, s, kv in tl if s == "elastic-run"
           and kv.get("event") == "event" and kv.get("cause") != "stop"]
    out = []
    for i, (t, kv) in enumerate(evs):
        nxt = evs[i + 1][0] if i + 1 < len(evs) else float("inf")
        el = {}
        for t2, s2, kv2 in tl:
            if s2 == "elastic-run" and t <= t2 < nxt and \
                    kv2.get("event") not in el:
                el[kv2["event"]] = (t2, kv2)
        if "unchanged" in el:
            continue
        if "resize" in el:
            path, tr = "in-place", el["resize"][0]
            how = el["resize"][1].get("path", path)
            frm, to = num(el["resize"][1], "from"), num(el["resize"][1], "to")
            parts = ([("joiners ready", tr)] if "joining" in el else []) + \
                [("all joined", el.get("resized", (None,))[0])]
            ready = tr
        elif "relaunch" in el:
            path, ready, how = "restart", None, "restart"
            frm, to = num(kv, "nnodes"), num(el["relaunch"][1], "nnodes")
            parts = [(k, el.get(k, (None,))[0])
                     for k in ("told", "exited", "relaunch", "ranks-up")]
        else:
            continue
        step = next((t2 for t2, s2, kv2 in tl if s2 == "train_ddp"
                     and kv2.get("event") == "stepped" and t2 > t
                     and num(kv2, "rank") == 0
                     and (to is None or num(kv2, "world") == to)), None)
        crash = next((c for c, b in windows if c <= t < b), None)
        if crash is not None and to is not None and frm is not None \
                and to <= frm:
            kind = "crash" if to < frm else "crash-spare"
        else:
            kind = "shrink" if (to or 0) < (frm or 0) else "grow"
        out.append(dict(path=path, how=how, kind=kind, frm=frm, to=to, t=t,
                        step=step, ready=ready, crash=crash,
                        parts=[(k, span(t, x)) for k, x in parts]))
    return out


def p50(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def print_resize(run, n, r, extra):
    """One resize of run (the n-th): the event to the first step at the
    new size, its parts, and extra."""
    print("bench: %s: resize %d %s %s -> %s nodes: event -> first step "
          "at the new size %s s [%s]%s"
          % (run, n, r["kind"], r["frm"], r["to"],
             f(span(r["t"], r["step"])),
             ", ".join("%s +%s s" % (k, f(v)) for k, v in r["parts"]),
             extra))


def paths_report(out, params):
    """The restart and the in-place path side by side, per resize: the
    event to the first training step at the new size, and its parts."""
    rows = {}
    for path in ("restart", "in-place"):
        d = os.path.join(out, path)
        if not os.path.isdir(d):
            continue
        rows[path] = resizes(timeline(os.path.join(d, "out")),
                             marks(os.path.join(d, "marks")))
        for n, r in enumerate(rows[path], 1):
            extra = ""
            if r["kind"] == "crash":
                extra = "; crash -> launcher's event %s s" % f(span(r["crash"], r["t"]))
            if r["path"] == "in-place" and r["kind"] == "grow":
                extra = "; joiners ready -> first step %s s" % f(span(r["ready"], r["step"]))
            print_resize(path, n, r, extra)
    if not rows:
        return
    fault = float(params.get("fault_timeout", "5"))
    for kind, what, target in (
            ("shrink", "event -> first step", "< 1 s"),
            ("grow", "event -> first step (in place: joiners ready -> first step)", "< 1 s"),
            ("crash", "launcher's event (its heartbeats, or Slurm) -> first step",
             "< fault timeout %g + 2 s" % fault)):
        figs = []
        for path in ("restart", "in-place"):
            rs = [r for r in rows.get(path, []) if r["kind"] == kind]
            xs = [span(r["ready"] if path == "in-place" and kind == "grow"
                       else r["t"], r["step"]) for r in rs]
            figs.append("%s p50 %s s max %s s (%d)"
                        % (path, f(p50(xs)), f(max((x for x in xs if x is not None),
                                                   default=None)), len(rs)))
        print("bench: %s, %s: %s (in-place target %s)"
              % (kind, what, "; ".join(figs), target))


def p50_max(xs):
    return "p50 %s s max %s s" % (
        f(p50(xs)), f(max((x for x in xs if x is not None), default=None)))


def spares_report(out):
    """The runs with a spare (restart-spare, in-place-spare): per resize
    as in paths_report, then, over the crashes that a spare took, the
    launcher's event -> first step at the same size and the crash (the
    bench's mark: the instant the node's link went down) -> first step."""
    rows = {}
    for path in ("restart", "in-place"):
        name = path + "-spare"
        d = os.path.join(out, name)
        if not os.path.isdir(d):
            continue
        ms = marks(os.path.join(d, "marks"))
        rows[path] = resizes(timeline(os.path.join(d, "out")), ms)
        for n, r in enumerate(rows[path], 1):
            extra = ""
            if r["kind"] in ("crash", "crash-spare"):
                extra = "; crash -> launcher's event %s s, crash -> first " \
                    "step %s s (path %s)" % (f(span(r["crash"], r["t"])),
                                             f(span(r["crash"], r["step"])),
                                             r["how"])
            print_resize(name, n, r, extra)
        # A crash that no same-size resize answered: a shrink, a
        # fallback that lost the spare, or no resize at all.
        ncrash = len(crash_windows(ms))
        nspare = len([r for r in rows[path] if r["kind"] == "crash-spare"])
        if nspare != ncrash:
            print("bench: %s: note: %d crash(es), %d resize(s) at the same "
                  "size in their windows" % (name, ncrash, nspare))
    if not rows:
        return
    for what, start, tail in (
            ("launcher's event -> first step at the same size", "t",
             " (targets: in place < 5 s, restart < 15 s)"),
            ("crash -> first step at the same size (the fault to training "
             "again)", "crash", "")):
        figs = []
        for path in ("restart", "in-place"):
            rs = [r for r in rows.get(path, []) if r["kind"] == "crash-spare"]
            figs.append("%s %s (%d)" % (
                path, p50_max([span(r[start], r["step"]) for r in rs]),
                len(rs)))
        print("bench: crash with a spare, %s: %s%s"
              % (what, "; ".join(figs), tail))


# Preemptor submitted -> running, per run, for the side-by-side line.
waited = {}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    params = dict(KV_RE.findall(read(os.path.join(d, "params"))))
    res = {}
    # The restart path's run is "restart" ("elastic" before the in-place
    # path had a run of its own).
    for name, label, fn in (("elastic", "elastic", elastic_report),
                            ("restart", "elastic", elastic_report),
                            ("native", "native", native_report)):
        if os.path.isdir(os.path.join(d, name)):
            res[label] = fn(os.path.join(d, name), params)
    paths_report(d, params)
    spares_report(d)
    if "elastic" in res and "native" in res:
        (fe, se), (fn_, sn) = res["elastic"], res["native"]
        if fe and fn_:
            print("bench: elastic vs native: time to finish %.1f s vs %.1f s "
                  "(%.2fx)" % (fe, fn_, fn_ / fe))
        if se and sn:
            print("bench: elastic vs native: samples per node-second %.1f vs "
                  "%.1f (%.2fx)" % (se, sn, se / sn))
    if waited.get("elastic") is not None and waited.get("native") is not None:
        print("bench: elastic vs native: preemptor submitted->running %.2f s "
              "vs %.2f s" % (waited["elastic"], waited["native"]))


if __name__ == "__main__":
    main()
