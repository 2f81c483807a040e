# A rank of the account tests (t0350, t0351): steps every 0.1 s, each
# reported to elastic-run (slurm_elastic.progress) and written to
# $W/step.RESTART.RANK; exits 0 on the elastic event.  With CKPT_EVERY=N,
# saves a checkpoint every N steps (announced, 1 s; rank 0 writes the step
# to $W/ckpt) and resumes from it.  Finishes at step $LAST, or once
# $W/finish exists, after a last save of 3 s (a heartbeat or two).
import os
import sys
import time

import slurm_elastic as se

W, rank = os.environ["W"], int(os.environ["RANK"])
restart = os.environ["ELASTIC_RESTART_COUNT"]
last = int(os.environ.get("LAST", "0"))
every = int(os.environ.get("CKPT_EVERY", "0"))
ck = f"{W}/ckpt"


def save(step):
    with se.saving():
        if rank == 0:
            with open(ck + ".new", "w") as f:
                f.write(f"{step}\n")
            os.rename(ck + ".new", ck)
        time.sleep(1)


step = int(open(ck).read()) if every and os.path.exists(ck) else 0
with open(f"{W}/start.{restart}.{rank}", "w") as f:
    f.write(f"{step}\n")
while not (last and step >= last) and not os.path.exists(f"{W}/finish"):
    if se.elastic_event_detected():
        sys.exit(0)
    time.sleep(0.1)
    step += 1
    se.progress(step)
    with open(f"{W}/step.{restart}.{rank}", "w") as f:
        f.write(f"{step}\n")
    if every and step % every == 0:
        save(step)
with se.saving():
    time.sleep(3)
