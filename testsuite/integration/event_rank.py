"""event_rank.py DIR TAG: the Python twin of event_rank.c for t0040-event.t.

Forks a helper child (as a DataLoader would) that restores the default
action for the event signal and SIGTERM, reports DIR/TAG.<procid>.ready,
then polls slurm_elastic.elastic_event_detected().  When the event arrives
it writes the CLOCK_REALTIME time it saw it to DIR/TAG.<procid>.seen, waits
for DIR/finish, and reports in DIR/TAG.<procid>.child whether the helper is
alive and still without a handler.
"""

import os
import signal
import sys
import time

import slurm_elastic

directory, tag = sys.argv[1], sys.argv[2]
procid = os.environ.get("SLURM_PROCID", "x")


def report(what, text):
    path = os.path.join(directory, "%s.%s.%s" % (tag, procid, what))
    with open(path + ".tmp", "w") as f:
        f.write(text + "\n")
    os.rename(path + ".tmp", path)


def default_action(pid, sig):
    masks = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("SigCgt", "SigIgn"):
                masks[key] = int(value, 16)
    bit = 1 << (sig - 1)
    return not ((masks.get("SigCgt", -1) | masks.get("SigIgn", -1)) & bit)


sig = slurm_elastic.elastic_signal()
slurm_elastic.elastic_init()

r, w = os.pipe()
child = os.fork()
if child == 0:
    signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.write(w, b"r")
    while True:
        signal.pause()
os.read(r, 1)

try:
    world = slurm_elastic.elastic_world()
    desc = "rank=%d/%d local=%d/%d group=%d/%d job=%d master=%s:%d ckpt=%s" % (
        world.rank, world.world_size, world.local_rank, world.local_world_size,
        world.group_rank, world.nnodes, world.job_id, world.master_addr,
        world.master_port, world.checkpoint_dir)
except slurm_elastic.ElasticEnvError as e:
    desc = str(e)
report("ready", "pid=%d child=%d signal=%d world: %s" % (os.getpid(), child, sig, desc))

# The hot loop a training rank runs: one flag read per step.
deadline = time.monotonic() + 600
while not slurm_elastic.elastic_event_detected():
    if time.monotonic() > deadline:
        report("seen", "timeout")
        sys.exit(1)
    time.sleep(0.001)
report("seen", "%.6f %d" % (time.clock_gettime(time.CLOCK_REALTIME),
                            slurm_elastic.elastic_event_signal()))

deadline = time.monotonic() + 120
while not os.path.exists(os.path.join(directory, "finish")):
    if time.monotonic() > deadline:
        break
    time.sleep(0.01)
alive = os.waitpid(child, os.WNOHANG) == (0, 0)
if alive:
    default = default_action(child, sig) and default_action(child, signal.SIGTERM)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
else:
    default = False
report("child", "alive=%d default=%d" % (alive, default))
