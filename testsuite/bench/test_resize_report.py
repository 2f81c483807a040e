#!/usr/bin/python3
"""resize_report.py on a made-up run: the figures it prints are the spans
between the timeline lines they name, whatever extra fields and foreign
lines the output holds.  No cluster needed (make check)."""

import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1_800_000_000.0  # the base job's start; whole second, as Slurm's


def ts(dt):
    return (datetime.datetime.fromtimestamp(T0 + dt, datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")


def local(dt):
    return datetime.datetime.fromtimestamp(T0 + dt).strftime("%Y-%m-%dT%H:%M:%S")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def er(dt, event, restart, nnodes, extra=""):
    return "elastic-run: %s event=%s restart=%d nnodes=%d%s\n" % (
        ts(dt), event, restart, nnodes, " " + extra if extra else "")


def rk(dt, event, rank, world, restart, extra=""):
    return "train_ddp: %s event=%s rank=%d world=%d restart=%d%s\n" % (
        ts(dt), event, rank, world, restart, " " + extra if extra else "")


def main():
    d = tempfile.mkdtemp(prefix="test_resize_report.")
    e = os.path.join(d, "elastic")
    write(os.path.join(d, "params"), "scale_delay=2 grace=10\n")
    out = "".join([
        "some line a job prints\n",
        er(1.0, "launch", 0, 1, "members=1 new_field=x"),
        er(1.2, "ranks-up", 0, 1, "ranks=1"),
        rk(3.0, "up", 0, 1, 0, "step=0"),
        # growth: elasticd at 4.0, launcher event at 4.1, ranks-up at 5.0
        rk(4.05, "told", 0, 1, 0, "signal=URG future=1"),
        er(4.1, "event", 0, 1, "cause=raised signal=URG on=steps"),
        er(4.12, "told", 0, 1, "signal=URG ok=yes"),
        rk(4.3, "checkpoint", 0, 1, 0, "seconds=0.200 step=5"),
        rk(4.35, "exit", 0, 1, 0, "step=5"),
        er(4.6, "exited", 0, 1, "killed_members=0"),
        er(4.7, "relaunch", 1, 4, "members=4 generation=2 source=elasticd"),
        er(5.0, "ranks-up", 1, 4, "ranks=4"),
    ] + [rk(6.0 + r / 10, "up", r, 4, 1, "step=5") for r in range(4)] + [
        # preemption: high job submitted at 20.0, Slurm's PreemptTime seen
        # between 20.4 and 20.5, ranks told 20.6 .. 20.9
    ] + [rk(20.6 + r / 10, "told", r, 4, 1, "signal=TERM") for r in range(4)] + [
        er(20.7, "event", 1, 4, "cause=membership generation=2->3 from=4 to=2"),
        er(20.71, "told", 1, 4, "signal=URG ok=yes"),
    ] + [rk(21.0 + r / 10, "exit", r, 4, 1, "step=9") for r in range(4)] + [
        rk(21.0, "checkpoint", 0, 4, 1, "seconds=0.150 step=9"),
        er(21.5, "exited", 1, 4, "killed_members=0"),
        er(21.6, "relaunch", 2, 2, "members=2"),
        er(22.0, "ranks-up", 2, 2, "ranks=2"),
        rk(30.0, "done", 0, 2, 2, "step=20 samples_consumed=1000"),
        er(30.5, "done", 2, 2, "result=success"),
        "elastic-run: not a timeline line\n",
    ])
    write(os.path.join(e, "out"), out)
    write(os.path.join(e, "marks"),
          "%f submit\n%f base job=7\n%f preempt-seen prev_poll=%f job=9 PreemptTime=x\n"
          "%f high-submit\n" % (T0 - 1, T0 - 1, T0 + 20.5, T0 + 20.4, T0 + 20.0))
    # the preemptor starts at 21.2: the units went once the ranks left
    write(os.path.join(e, "high.start"), "%f\n" % (T0 + 21.2))
    write(os.path.join(e, "events.json"), json.dumps({"id": 7, "events": [
        {"time": ts(0.5), "cause": "start", "generation": 1, "world_nodes": 1},
        {"time": ts(4.0), "cause": "grow", "generation": 2, "world_nodes": 4},
        {"time": ts(20.65), "cause": "preempt", "generation": 3, "world_nodes": 2},
        {"time": ts(30.6), "cause": "end", "generation": 3, "world_nodes": 2}]}))
    write(os.path.join(e, "sacct"),
          "JobID|JobName|Partition|Submit|Start|End|NNodes|State|AdminComment\n"
          "7|job.sh|base|%s|%s|%s|1|COMPLETED|elastic:v1 x\n"
          "8|u|preempt|%s|%s|%s|3|CANCELLED|elastic-unit:v1 group=7 kind=p\n"
          % (local(-1), local(0), local(31), local(1), local(2), local(21)))
    # The native run: the preemptor waits for the partition's GraceTime.
    n = os.path.join(d, "native")
    write(os.path.join(n, "out"), "".join(
        [rk(40.0, "up", r, 4, 0, "step=0") for r in range(4)] +
        [rk(50.3 + r / 10, "told", r, 4, 0, "signal=TERM") for r in range(4)] +
        [rk(50.8, "checkpoint", 0, 4, 0, "seconds=0.100 step=9")] +
        [rk(51.0 + r / 10, "exit", r, 4, 0, "step=9") for r in range(4)] +
        [rk(190.0 + r / 10, "up", r, 4, 1, "step=9") for r in range(4)]))
    write(os.path.join(n, "marks"),
          "%f submit\n%f job job=11\n%f preempt-seen prev_poll=%f job=11 "
          "PreemptTime=x\n%f high-submit\n"
          % (T0 + 39, T0 + 39, T0 + 50.2, T0 + 50.1, T0 + 50.0))
    write(os.path.join(n, "high.start"), "%f\n" % (T0 + 60.5))
    # The in-place path: a shrink, an event that changed nothing, a grow
    # with warm joiners, a crash (marked by the bench 100 s in).
    ip = os.path.join(d, "in-place")
    write(os.path.join(ip, "marks"), "%.3f crash node=n2\n%.3f boot node=n2\n"
          % (T0 + 100, T0 + 150))
    write(os.path.join(ip, "out"), "".join([
        er(1.0, "launch", 0, 4, "members=3"),
        er(50.0, "event", 0, 4, "cause=raised signal=URG path=in-place"),
        er(50.2, "resize", 0, 2, "path=in-place world=2 from=4 to=2"),
        er(50.4, "resized", 0, 2, "path=in-place world=2 ranks=2 seconds=0.4"),
        rk(50.5, "stepped", 0, 2, 0, "step=300 path=in-place"),
        er(51.0, "event", 0, 2, "cause=raised signal=URG path=in-place"),
        er(51.1, "unchanged", 0, 2, "path=in-place world=2"),
        er(70.0, "event", 0, 2, "cause=membership path=in-place"),
        er(70.1, "joining", 0, 2, "path=in-place joiners=2"),
        er(72.0, "resize", 0, 4, "path=in-place world=3 from=2 to=4"),
        er(72.1, "resized", 0, 4, "path=in-place world=3 ranks=4"),
        rk(72.3, "stepped", 1, 4, 0, "step=400 path=in-place"),
        rk(72.4, "stepped", 0, 4, 0, "step=400 path=in-place"),
        er(130.0, "event", 0, 4, "cause=member-exit job=9 path=in-place"),
        er(135.0, "resize", 0, 3, "path=in-place world=4 from=4 to=3"),
        er(135.1, "resized", 0, 3, "path=in-place world=4 ranks=3"),
        rk(135.2, "stepped", 0, 3, 0, "step=500 path=in-place"),
    ]))
    res = subprocess.run([sys.executable, os.path.join(HERE, "resize_report.py"), d],
                         capture_output=True, text=True)
    print(res.stdout, end="")
    want = [
        "bench: start: the launcher's first world: 1 node(s); idle-node-to-in-use 1.20 s",
        # from the first hearing (rank told 4.05) to ranks-up 5.0, minus
        # the rank's told->exit 0.30
        "bench: resize 1 grow: overhead 0.65 s (target < 2 s)",
        "bench: resize 1 grow: idle-node-to-in-use 5.00 s (target scale delay 2 + 5 = 7 s)",
        "bench: resize 2 preempt: elasticd gen 3 world 2 nodes; launcher restart 1 -> 2 at nnodes 4 -> 2",
        # last rank told 20.9 - Slurm's preemption no later than 20.4
        "bench: resize 2 preempt: preempt->last-rank-told 0.50 s (target < 1 s)",
        "bench: resize 2 preempt: high-job-submitted->last-rank-told 0.90 s",
        # first told 20.6 -> ranks-up 22.0 = 1.4, minus slowest told->exit 0.4
        "bench: resize 2 preempt: overhead 1.00 s (target < 2 s)",
        "bench: resize 2 preempt: preemptor submitted->running 1.20 s (target < 2 s + the ranks' checkpoint 0.15 s)",
        # Slurm's preemption seen at 20.5: the rest is ours and Slurm's start
        "from Slurm's preemption start (+0.50 s) 0.70 s",
        "bench: elastic: time to finish 32.00 s",
        "bench: native resize 1 preempt: preemptor submitted->running 10.50 s",
        "bench: elastic vs native: preemptor submitted->running 1.20 s vs 10.50 s",
        # 1 node x 31 s + 3 nodes x 19 s = 88 node-seconds
        "bench: elastic: 1000 samples in 88.0 node-seconds held (2 Slurm job record(s)): 11.4 samples per node-second",
    ]
    want += [
        "bench: in-place: resize 1 shrink 4 -> 2 nodes: event -> first step "
        "at the new size 0.50 s [all joined +0.40 s]",
        # the unchanged event is no resize; rank 0's step, not rank 1's
        "bench: in-place: resize 2 grow 2 -> 4 nodes: event -> first step "
        "at the new size 2.40 s [joiners ready +2.00 s, all joined +2.10 s]; "
        "joiners ready -> first step 0.40 s",
        "bench: in-place: resize 3 crash 4 -> 3 nodes: event -> first step "
        "at the new size 5.20 s",
        "crash -> launcher's event 30.00 s",
        "bench: shrink, event -> first step: restart p50 n/a s max n/a s (0); "
        "in-place p50 0.50 s max 0.50 s (1) (in-place target < 1 s)",
        "in-place p50 0.40 s max 0.40 s (1) (in-place target < 1 s)",
        "in-place p50 5.20 s max 5.20 s (1) (in-place target < fault "
        "timeout 5 + 2 s)",
    ]
    bad = [w for w in want if w not in res.stdout]
    # Without the runs with a spare, no line of theirs.
    bad += ["(printed) " + w for w in ("crash-spare", "crash with a spare")
            if w in res.stdout]
    bad += spares()
    if res.returncode != 0 or bad:
        print("test_resize_report: FAIL: exit %d, missing:\n  %s\nstderr: %s"
              % (res.returncode, "\n  ".join(bad), res.stderr))
        return 1
    print("test_resize_report: PASS")
    subprocess.run(["rm", "-rf", d])
    return 0


def crash_marks(*w):
    """The bench's marks: (time, crash|boot), nodes n2 and n3 in turn."""
    return "".join("%.3f %s node=n%d\n" % (T0 + t, what, 2 + i % 2)
                   for i, (t, what) in enumerate(w))


def swap(t0, dt):
    """A crash found at t0, the spare's swap, rank 0's step at +dt."""
    return [
        er(t0, "event", 0, 3, "cause=node-lost node=n2 path=in-place"),
        er(t0 + 0.5, "resize", 0, 3,
           "path=swap world=5 from=3 to=3 stay=2 join=1 leave=1"),
        er(t0 + 1.0, "resized", 0, 3, "path=swap world=5 ranks=3 seconds=0.5"),
        rk(t0 + dt - 0.2, "stepped", 1, 3, 0, "step=9 path=in-place"),
        rk(t0 + dt, "stepped", 0, 3, 0, "step=9 path=in-place")]


def relaunch(t0, r, dt, cause="node-lost node=n2"):
    """An event at t0, a relaunch at 3 on the spare, a step at +dt."""
    return [
        er(t0, "event", r, 3, "cause=" + cause),
        er(t0 + 0.01, "told", r, 3, "signal=URG ok=yes"),
        er(t0 + dt - 3.0, "exited", r, 3, "killed_members=1"),
        er(t0 + dt - 2.9, "relaunch", r + 1, 3,
           "members=3 jobs=7:n1,9:n3,12:n4 path=restart"),
        er(t0 + dt - 2.5, "ranks-up", r + 1, 3, "ranks=3"),
        rk(t0 + dt, "stepped", 0, 3, r + 1, "step=1 path=restart")]


def spare_runs(d):
    """restart-spare/ and in-place-spare/ in d."""
    # In place: a growth to 3 before any crash, then swaps after crashes
    # at 20, 40 and 60 (booted at 30, 50, 70), an unchanged event inside
    # a window; a crash at 90 that lost the spare: a shrink to 2, then a
    # growth back to 3 before the node boots.
    ip = os.path.join(d, "in-place-spare")
    write(os.path.join(ip, "marks"), crash_marks(
        (20, "crash"), (30, "boot"), (40, "crash"), (50, "boot"),
        (60, "crash"), (70, "boot"), (90, "crash")))
    write(os.path.join(ip, "out"), "".join([
        er(1.0, "launch", 0, 1, "members=1"),
        er(5.0, "event", 0, 1, "cause=membership path=in-place"),
        er(5.1, "joining", 0, 1, "path=in-place joiners=2"),
        er(7.0, "resize", 0, 3, "path=in-place world=2 from=1 to=3"),
        er(7.5, "resized", 0, 3, "path=in-place world=2 ranks=3"),
        rk(8.0, "stepped", 0, 3, 0, "step=5 path=in-place"),
        er(10.0, "spare-warming", 0, 3, "job=12 nodes=n4"),
    ] + swap(23.0, 1.3) + [
        er(25.0, "event", 0, 3, "cause=membership path=in-place"),
        er(25.1, "unchanged", 0, 3, "path=in-place world=5"),
    ] + swap(43.2, 1.0) + swap(63.0, 2.0) + [
        er(93.0, "event", 0, 3, "cause=node-lost node=n3 path=in-place"),
        er(93.5, "resize", 0, 2, "path=in-place world=6 from=3 to=2"),
        er(94.0, "resized", 0, 2, "path=in-place world=6 ranks=2"),
        rk(94.5, "stepped", 0, 2, 0, "step=20 path=in-place"),
        # a new unit, the node still down: a growth, not the crash's
        er(100.0, "event", 0, 2, "cause=membership path=in-place"),
        er(100.1, "joining", 0, 2, "path=in-place joiners=1"),
        er(101.0, "resize", 0, 3, "path=in-place world=7 from=2 to=3"),
        er(101.5, "resized", 0, 3, "path=in-place world=7 ranks=3"),
        rk(102.0, "stepped", 0, 3, 0, "step=30 path=in-place"),
    ]))
    # The restart path: relaunches at 3 after crashes at 20, 60 and 100
    # (the last never booted); between, a relaunch at 3 outside any
    # window (elasticd's new world after the boot at 40) is no crash's.
    rs = os.path.join(d, "restart-spare")
    write(os.path.join(rs, "marks"), crash_marks(
        (20, "crash"), (40, "boot"), (60, "crash"), (80, "boot"), (100, "crash")))
    write(os.path.join(rs, "out"), "".join(
        [er(1.0, "launch", 0, 3, "members=3"), er(1.5, "ranks-up", 0, 3, "ranks=3"),
         rk(3.0, "stepped", 0, 3, 0, "step=1 path=restart")] +
        relaunch(23.0, 0, 10.0) + relaunch(45.0, 1, 3.0, "membership") +
        relaunch(63.0, 2, 9.0) + relaunch(103.0, 3, 14.0)))


def spares():
    """The runs with a spare: crashes that a spare takes at the same size
    (in place a swap, on the restart path a relaunch), same-size resizes
    outside the crash windows, a crash the spare did not answer.  What is
    missing or wrong, as a list."""
    d = tempfile.mkdtemp(prefix="test_resize_report.")
    spare_runs(d)
    res = subprocess.run([sys.executable, os.path.join(HERE, "resize_report.py"), d],
                         capture_output=True, text=True)
    print(res.stdout, end="")
    want = [
        "bench: in-place-spare: resize 1 grow 1 -> 3 nodes",
        # rank 0's first step, not rank 1's; the unchanged event is none
        "bench: in-place-spare: resize 2 crash-spare 3 -> 3 nodes: event -> "
        "first step at the new size 1.30 s [all joined +1.00 s]; crash -> "
        "launcher's event 3.00 s, crash -> first step 4.30 s (path swap)",
        "bench: in-place-spare: resize 3 crash-spare 3 -> 3 nodes: event -> "
        "first step at the new size 1.00 s",
        "bench: in-place-spare: resize 4 crash-spare 3 -> 3 nodes: event -> "
        "first step at the new size 2.00 s",
        "bench: in-place-spare: resize 5 crash 3 -> 2 nodes: event -> first "
        "step at the new size 1.50 s [all joined +1.00 s]; crash -> "
        "launcher's event 3.00 s, crash -> first step 4.50 s (path in-place)",
        "bench: in-place-spare: resize 6 grow 2 -> 3 nodes: event -> first "
        "step at the new size 2.00 s",
        "bench: in-place-spare: note: 4 crash(es), 3 resize(s) at the same "
        "size in their windows",
        "bench: restart-spare: resize 1 crash-spare 3 -> 3 nodes: event -> "
        "first step at the new size 10.00 s [told +0.01 s, exited +7.00 s, "
        "relaunch +7.10 s, ranks-up +7.50 s]; crash -> launcher's event "
        "3.00 s, crash -> first step 13.00 s (path restart)",
        "bench: restart-spare: resize 2 grow 3 -> 3 nodes: event -> first "
        "step at the new size 3.00 s",
        "bench: restart-spare: resize 3 crash-spare 3 -> 3 nodes",
        "bench: restart-spare: resize 4 crash-spare 3 -> 3 nodes: event -> "
        "first step at the new size 14.00 s",
        # p50 of 10, 9 and 14; of 1.3, 1.0 and 2.0
        "bench: crash with a spare, launcher's event -> first step at the "
        "same size: restart p50 10.00 s max 14.00 s (3); in-place p50 1.30 s "
        "max 2.00 s (3) (targets: in place < 5 s, restart < 15 s)",
        # from the crash marks: 13, 12, 17; 4.3, 4.2, 5.0
        "bench: crash with a spare, crash -> first step at the same size "
        "(the fault to training again): restart p50 13.00 s max 17.00 s (3); "
        "in-place p50 4.30 s max 5.00 s (3)",
    ]
    bad = [w for w in want if w not in res.stdout]
    if "restart-spare: note" in res.stdout:
        bad.append("(printed) restart-spare: note")
    if res.returncode != 0:
        bad.append("spares: exit %d: %s" % (res.returncode, res.stderr))
    if not bad:
        subprocess.run(["rm", "-rf", d])
    return bad


if __name__ == "__main__":
    sys.exit(main())
