#!/usr/bin/env python3
"""Elastic PyTorch DDP training example for slurm-elastic.

Trains a linear regression on a synthetic, deterministic data set with
DistributedDataParallel (gloo on CPU, NCCL when CUDA is available).  It runs
under ``elastic-run`` or plain ``torchrun``: the rank comes from the torchrun
environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).

Elastic behaviour:

* After every step the ranks agree (one small all_reduce that also carries
  the loss) whether any of them saw ``slurm_elastic.elastic_event_detected()``.
  If so, rank 0 writes a checkpoint of the *current* step and all ranks exit
  with ``slurm_elastic.EXIT_EVENT`` (75): the launcher relaunches at the new
  size.  Exit status 0 means the training is finished; a relaunch after
  that finds the final checkpoint and exits 0 at once.
* A checkpoint holds the model, the optimizer, the global step and the data
  position: the global count of samples consumed.  It does not depend on the
  world size, so it loads at any size.
* A save that fails (a full disk, a quota) ends nothing: rank 0 says
  ``train_ddp: checkpoint not saved at step S: ERROR (the newest checkpoint
  stays NAME|none); training goes on`` on standard error, and a relaunch
  resumes from that older checkpoint.
* Global step k consumes the next ``--global-batch`` sample ids of the
  epoch's shuffled order (seeded by ``--seed`` + epoch), split across the
  ranks by rank and world size.  A resized world continues at the same
  position: no sample is skipped, and none is repeated unless the ranks are
  killed without seeing the event (then the steps after the last periodic
  checkpoint, ``--checkpoint-every``, run again).
* The loss is scaled so that the gradient is the mean over the global batch
  whatever the world size: the training is the same at every size.

Each rank prints a timeline on standard output, one line per event, with
the wall time (RFC 3339, UTC, milliseconds) in the format of elastic-run's:
``train_ddp: <time> event=<what> rank=R world=W restart=N ...`` with
event = up (process group formed; ``step=`` where it resumes), told (the
event signal arrived; the time is the signal's, ``signal=``), checkpoint
(``seconds=`` spent from noticing the event to all ranks done with the
checkpoint, ``step=``), exit (the rank leaves after an event), stepped
(the first step of a launch or of an in-place world completed) and done.

With ``--in-place`` the ranks use ``slurm_elastic.torch.InPlace``: under
elastic-run a resize keeps their processes (the ranks that stay re-form
the process group and go on from the step they are at; new ranks join warm
and take the model, the optimizer and the position from them), with the
same checkpoints; rank 0 alone logs each step's samples, the whole
global batch, once the step's update (which holds every rank's share) is
done.  Their timeline adds resized (a new
in-place world, ``world_no=``, ``pid=``) and recovered (a collective
failed when a peer died; ``after=`` seconds waiting for the next world).
Benchmarks (testsuite/bench/bench_resize) parse these lines; more fields
may be added at the end.

Each rank appends the sample ids it processed to
``<sample-log-dir>/samples.rank<R>.world<W>.pid<P>.log`` (one line per step:
``step epoch id id ...``) so that tests can prove exactly-once processing.
"""

import argparse
import datetime
import glob
import os
import re
import signal
import sys
import time

try:
    import slurm_elastic
except ImportError:
    # Run from the source tree: contribs/examples/pytorch/ -> contribs/python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    os.pardir, os.pardir, "python"))
    import slurm_elastic

_told = []  # (time, signal) of each event signal, appended by the handler


def watch_event_signals():
    """Record when the event signals arrive, chaining to slurm_elastic's
    handlers (installed at import), so the timeline has the time a rank
    was told rather than the time it noticed at the end of a step."""
    sigs = {signal.SIGTERM}
    try:
        sigs.add(slurm_elastic.elastic_signal())
    except ValueError:
        pass
    for s in sigs:
        prev = signal.getsignal(s)

        def handler(signum, frame, prev=prev):
            _told.append((time.time(), signum))
            if callable(prev):
                prev(signum, frame)
        signal.signal(s, handler)
        # signal.signal made it interrupt system calls again: torch's
        # rendezvous fails on EINTR (see slurm_elastic).
        signal.siginterrupt(s, False)


if __name__ == "__main__":
    # Before importing torch (a second or two): an event that comes while
    # the rank starts is timed too.
    watch_event_signals()


import torch
import torch.distributed as dist

import slurm_elastic.torch  # noqa: E402 (after the handlers above)
from torch.nn.parallel import DistributedDataParallel as DDP

CKPT_RE = re.compile(r"^ckpt-(\d+)\.pt$")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=4096,
                   help="data set size N; sample ids are 0..N-1 (4096)")
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--noise", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--epochs-file",
                   help="a file that may lower --epochs while training "
                        "runs: every rank reads the count in it as each "
                        "epoch starts (write it, whole, an epoch ahead)")
    p.add_argument("--global-batch", type=int, default=64,
                   help="samples per global step, split across ranks (64)")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--checkpoint-dir",
                   help="where to write checkpoints "
                        "(default: ELASTIC_CHECKPOINT_DIR)")
    p.add_argument("--checkpoint-every", type=int, default=0,
                   help="also checkpoint every N steps (0: only on events "
                        "and at the end)")
    p.add_argument("--sample-log-dir",
                   help="where each rank logs its sample ids "
                        "(default: no log)")
    p.add_argument("--log-every", type=int, default=10,
                   help="rank 0 prints the loss every N steps (10)")
    p.add_argument("--step-sleep", type=float, default=0.0,
                   help="seconds of simulated compute per step (0)")
    p.add_argument("--sample-sleep", type=float, default=0.0,
                   help="seconds of simulated compute per sample of the "
                        "rank's share of each step (0): unlike "
                        "--step-sleep, a larger world trains faster")
    p.add_argument("--backend", choices=("auto", "gloo", "nccl"),
                   default="auto")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds a collective waits for a lost peer (300)")
    p.add_argument("--in-place", action="store_true",
                   help="resize in place under elastic-run: the ranks that "
                        "stay keep training, new ranks join warm and take "
                        "the state from them (slurm_elastic.torch.InPlace)")
    a = p.parse_args(argv)
    for name in ("samples", "features", "epochs", "global_batch"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name.replace("_", "-"))
    return a


def epochs_now(args):
    """--epochs, or the smaller count in --epochs-file.

    Every rank reads it as each epoch starts: the ranks step together, so
    they all see a count written (whole, by a rename) an epoch before the
    boundary it ends the training at."""
    if not args.epochs_file:
        return args.epochs
    try:
        with open(args.epochs_file) as f:
            return max(1, min(int(f.read().strip()), args.epochs))
    except (OSError, ValueError):
        return args.epochs


def env_int(name, default=None):
    s = os.environ.get(name)
    if s is None or s == "":
        if default is None:
            sys.exit("train_ddp: %s is not set (run under elastic-run or "
                     "torchrun)" % name)
        return default
    try:
        return int(s)
    except ValueError:
        sys.exit("train_ddp: %s=%s: not a whole number" % (name, s))


def world_from_env():
    """(rank, world_size, local_rank, restart_count) from the environment.

    Under elastic-run slurm_elastic validates the whole rank environment;
    under plain torchrun only the torchrun variables exist."""
    if "ELASTIC_JOB_ID" in os.environ:
        try:
            w = slurm_elastic.elastic_world()
        except slurm_elastic.ElasticEnvError as e:
            sys.exit("train_ddp: %s" % e)
        return w.rank, w.world_size, w.local_rank, w.restart_count
    return (env_int("RANK"), env_int("WORLD_SIZE"), env_int("LOCAL_RANK", 0),
            env_int("ELASTIC_RESTART_COUNT", 0))


def stamp(t=None):
    """RFC 3339 UTC with milliseconds, as elastic-run's timeline."""
    t = time.time() if t is None else t
    return (datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")


def make_dataset(n, d, noise, seed):
    """A fixed linear regression: y = x.w + b + noise, the same everywhere."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(d, 1, generator=g)
    b = torch.randn(1, generator=g)
    x = torch.randn(n, d, generator=g)
    y = x @ w + b + noise * torch.randn(n, 1, generator=g)
    return x, y


def epoch_order(epoch, n, seed):
    g = torch.Generator().manual_seed(seed * 1000003 + epoch)
    return torch.randperm(n, generator=g)


def list_checkpoints(path):
    """[(step, file)] for a checkpoint file or a directory of them."""
    if not path:
        return []
    if os.path.isfile(path):
        m = CKPT_RE.match(os.path.basename(path))
        return [(int(m.group(1)) if m else -1, path)]
    out = []
    for f in glob.glob(os.path.join(glob.escape(path), "ckpt-*.pt")):
        m = CKPT_RE.match(os.path.basename(f))
        if m:
            out.append((int(m.group(1)), f))
    return out


def newest_checkpoint(ckpt_dir):
    """The newest of ELASTIC_PREV_CHECKPOINT (a file or a directory) and
    this job's own directory; None to start fresh."""
    cands = list_checkpoints(slurm_elastic.prev_checkpoint())
    cands += list_checkpoints(ckpt_dir)
    return max(cands)[1] if cands else None


def full_loss(model, x, y):
    with torch.no_grad():
        return torch.nn.functional.mse_loss(model(x), y).item()


def save_state(args, ckpt_dir, model, opt, step, consumed, initial_loss,
               world):
    """The checkpoint of step (rank 0): atomic, named for the steps done,
    ckpt-<step>.pt; its path, or None when the save failed."""
    try:
        return slurm_elastic.save_checkpoint({
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "step": step,
            "samples_consumed": consumed,
            "initial_loss": initial_loss,
            "world_size": world,
            "config": {k: getattr(args, k) for k in
                       ("samples", "features", "seed", "global_batch")},
        }, step, directory=ckpt_dir)
    except OSError as e:
        # A full or failing filesystem must not end the training: the save
        # is atomic, so the older checkpoints are whole and a relaunch
        # resumes from the newest of them.  Loud, for people and tests.
        old = list_checkpoints(ckpt_dir)
        print("train_ddp: checkpoint not saved at step %d: %s (the newest "
              "checkpoint stays %s); training goes on"
              % (step, e.strerror or e,
                 os.path.basename(max(old)[1]) if old else "none"),
              file=sys.stderr, flush=True)
        return None


def resume(args, ckpt_dir, rank, model, opt, device):
    """Every rank loads the newest checkpoint rank 0 picks (a collective):
    (path, step, samples consumed, initial loss), or (None, ...) for a
    fresh start, where the initial loss is None."""
    pick = [newest_checkpoint(ckpt_dir) if rank == 0 else None]
    dist.broadcast_object_list(pick, src=0)
    if not pick[0]:
        return None, 0, 0, None
    ck = torch.load(pick[0], map_location=device)
    for k in ("samples", "features", "seed"):
        if ck["config"][k] != getattr(args, k):
            sys.exit("train_ddp: %s: --%s=%s but the checkpoint has %s"
                     % (pick[0], k, getattr(args, k), ck["config"][k]))
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["optimizer"])
    return pick[0], ck["step"], ck["samples_consumed"], ck["initial_loss"]


def train_step(args, ddp, opt, xb, yb, world, batch_len, mine_len):
    """One step on this rank's share (xb, yb) of a global batch of
    batch_len samples; its summed squared error."""
    opt.zero_grad(set_to_none=True)
    sqerr = ((ddp(xb) - yb) ** 2).sum()
    # DDP averages gradients over ranks; scaling by world / batch makes
    # the gradient the mean over the global batch at any world size.
    (sqerr * (world / batch_len)).backward()
    opt.step()
    if args.step_sleep:
        time.sleep(args.step_sleep)
    if args.sample_sleep:
        time.sleep(args.sample_sleep * mine_len)
    return sqerr


def main(argv=None):
    args = parse_args(argv)
    if args.in_place:
        return train_in_place(args)
    rank, world, local_rank, restarts = world_from_env()

    def timeline(event, fmt="", t=None):
        print("train_ddp: %s event=%s rank=%d world=%d restart=%d%s"
              % (stamp(t), event, rank, world, restarts,
                 (" " + fmt) if fmt else ""), flush=True)
    ckpt_dir = args.checkpoint_dir or slurm_elastic.checkpoint_dir()

    use_cuda = args.backend == "nccl" or (args.backend == "auto"
                                          and torch.cuda.is_available())
    if use_cuda:
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
    else:
        device = torch.device("cpu")
    # The event is held back during the rendezvous, which it would break.
    slurm_elastic.torch.init_process_group(
        "nccl" if use_cuda else "gloo", rank=rank, world_size=world,
        timeout=datetime.timedelta(seconds=args.timeout))

    torch.manual_seed(args.seed)
    x_all, y_all = make_dataset(args.samples, args.features, args.noise,
                                args.seed)
    model = torch.nn.Linear(args.features, 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr,
                          momentum=args.momentum)
    step, consumed = 0, 0
    initial_loss = full_loss(model, x_all.to(device), y_all.to(device))

    # Rank 0 picks the checkpoint so that every rank loads the same one.
    path, s0, c0, l0 = resume(args, ckpt_dir, rank, model, opt, device)
    if path:
        step, consumed, initial_loss = s0, c0, l0
    if rank == 0:
        print("train_ddp: world %d restart %d %s at step %d, samples "
              "consumed %d, backend %s"
              % (world, restarts, ("resumed from %s" % path) if path
                 else "fresh start", step, consumed, dist.get_backend()),
              flush=True)

    timeline("up", "step=%d samples_consumed=%d" % (step, consumed))
    ddp = DDP(model, device_ids=[local_rank] if use_cuda else None)
    x_all, y_all = x_all.to(device), y_all.to(device)
    n, total = args.samples, args.samples * args.epochs

    def checkpoint():
        if rank == 0 and ckpt_dir:
            return save_state(args, ckpt_dir, model, opt, step, consumed,
                              initial_loss, world)
        return None

    slog = None
    if args.sample_log_dir:
        os.makedirs(args.sample_log_dir, exist_ok=True)
        slog = open(os.path.join(args.sample_log_dir,
                                 "samples.rank%d.world%d.pid%d.log"
                                 % (rank, world, os.getpid())), "a")

    order_epoch, order = -1, None
    start_step = step
    while consumed < total:
        epoch, offset = divmod(consumed, n)
        if epoch != order_epoch:
            total = n * epochs_now(args)
            if consumed >= total:
                break
            order_epoch, order = epoch, epoch_order(epoch, n, args.seed)
        # A global step never crosses an epoch boundary.
        batch = order[offset:min(offset + args.global_batch, n)]
        mine = torch.tensor_split(batch, world)[rank]
        xb, yb = x_all[mine.to(device)], y_all[mine.to(device)]

        sqerr = train_step(args, ddp, opt, xb, yb, world, len(batch),
                           len(mine))

        step += 1
        consumed += len(batch)
        if step == start_step + 1:  # the first step of this launch
            timeline("stepped", "step=%d path=restart" % step)
        if slog:
            slog.write("%d %d %s\n" % (step, epoch,
                                       " ".join(map(str, mine.tolist()))))
            slog.flush()

        # One collective per step: the loss and whether any rank saw the
        # event, so that all ranks stop after the same step.
        flag = 1.0 if slurm_elastic.elastic_event_detected() else 0.0
        t = torch.tensor([flag, sqerr.item()], dtype=torch.float64,
                         device=device)
        dist.all_reduce(t)
        loss = t[1].item() / len(batch)
        # A step done: a rank that stops reporting hangs, and the CPU
        # time between reports finds a slow node (elastic-run(1)).
        slurm_elastic.progress(step)
        if rank == 0 and args.log_every and step % args.log_every == 0:
            print("step %d epoch %d samples %d loss %.6f world %d"
                  % (step, epoch, consumed, loss, world), flush=True)

        if t[0].item() > 0:
            t_noticed = time.time()
            if _told:
                when, sig = _told[0]
                timeline("told", "signal=%s" % signal.Signals(sig).name[3:],
                         t=when)
            else:  # no signal here: a peer saw it (the all_reduce)
                timeline("told", "signal=none via=peer", t=t_noticed)
            path = checkpoint()
            dist.barrier()
            timeline("checkpoint", "seconds=%.3f step=%d"
                     % (time.time() - t_noticed, step))
            if rank == 0:
                print("train_ddp: elastic event at step %d (samples consumed "
                      "%d): checkpoint %s, exiting"
                      % (step, consumed, path), flush=True)
            if slog:
                slog.close()
            dist.destroy_process_group()
            timeline("exit", "step=%d" % step)
            # Not 0: "stopped for an event, relaunch me", which the
            # launcher cannot take for the end of the training.
            return slurm_elastic.EXIT_EVENT
        if args.checkpoint_every and step % args.checkpoint_every == 0:
            checkpoint()

    path = checkpoint() if step else None
    final = full_loss(model, x_all, y_all)
    dist.barrier()
    if rank == 0:
        print("train_ddp: done: %d epochs, %d steps, %d samples, checkpoint "
              "%s" % (consumed // n, step, consumed, path), flush=True)
        print("initial loss %.6f" % initial_loss)
        print("final loss %.6f" % final, flush=True)
    if slog:
        slog.close()
    dist.destroy_process_group()
    timeline("done", "step=%d samples_consumed=%d" % (step, consumed))
    return 0


def train_in_place(args):
    """main() with slurm_elastic.torch.InPlace: the same training, the
    same checkpoints and sample logs, but a resize keeps the processes."""
    _, _, local_rank, restarts = world_from_env()
    ckpt_dir = args.checkpoint_dir or slurm_elastic.checkpoint_dir()

    def timeline(event, fmt="", t=None):
        print("train_ddp: %s event=%s rank=%d world=%d restart=%d%s"
              % (stamp(t), event, el.rank, el.world_size, restarts,
                 (" " + fmt) if fmt else ""), flush=True)

    def checkpoint():
        if el.rank == 0 and ckpt_dir:
            p = el.position
            return save_state(args, ckpt_dir, model, opt, p["step"],
                              p["consumed"], p["initial_loss"], el.world_size)
        return None

    el = slurm_elastic.torch.InPlace(
        args.backend if args.backend != "auto" else "gloo",
        timeout=args.timeout, checkpoint=checkpoint)
    torch.manual_seed(args.seed)
    x_all, y_all = make_dataset(args.samples, args.features, args.noise,
                                args.seed)
    model = torch.nn.Linear(args.features, 1)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr,
                          momentum=args.momentum)
    el.carry(model=model, optimizer=opt)
    how = "joined"
    if not el.joining:
        path, step, consumed, loss0 = resume(args, ckpt_dir, el.rank,
                                             model, opt, "cpu")
        if loss0 is None:
            loss0 = full_loss(model, x_all, y_all)
        how = ("resumed from %s" % path) if path else "fresh start"
        el.position = {"step": step, "consumed": consumed,
                       "initial_loss": loss0}
    el.start()
    if el.rank == 0:
        print("train_ddp: world %d restart %d %s at step %d, samples "
              "consumed %d, backend %s, in place world %d"
              % (el.world_size, restarts, how, el.position["step"],
                 el.position["consumed"], dist.get_backend(), el.world_no),
              flush=True)
    timeline("up", "step=%d samples_consumed=%d world_no=%d path=in-place "
             "pid=%d" % (el.position["step"], el.position["consumed"],
                         el.world_no, os.getpid()))
    ddp = DDP(model)
    n, total = args.samples, args.samples * args.epochs

    def open_log():
        if not args.sample_log_dir or el.rank != 0:
            return None
        os.makedirs(args.sample_log_dir, exist_ok=True)
        return open(os.path.join(args.sample_log_dir,
                                 "samples.rank%d.world%d.pid%d.log"
                                 % (el.rank, el.world_size, os.getpid())),
                    "a")
    slog = open_log()
    order_epoch, order, first = -1, None, True
    while el.position["consumed"] < total:
        p = el.position
        epoch, offset = divmod(p["consumed"], n)
        if epoch != order_epoch:
            total = n * epochs_now(args)
            if p["consumed"] >= total:
                break
            order_epoch, order = epoch, epoch_order(epoch, n, args.seed)
        batch = order[offset:min(offset + args.global_batch, n)]
        world, rank = el.world_size, el.rank
        mine = torch.tensor_split(batch, world)[rank]
        try:
            train_step(args, ddp, opt, x_all[mine], y_all[mine], world,
                       len(batch), len(mine))
            p["step"] += 1
            p["consumed"] += len(batch)
            # Rank 0 logs the whole global batch once its update is done:
            # the update holds every rank's share, and a rank that dies
            # right after the step could not log its own.
            if slog and rank == 0:
                slog.write("%d %d %s\n" % (p["step"], epoch,
                                           " ".join(map(str, batch.tolist()))))
                slog.flush()
            if first:
                timeline("stepped", "step=%d path=in-place" % p["step"])
                first = False
            if rank == 0 and args.log_every and p["step"] % args.log_every == 0:
                print("step %d epoch %d samples %d world %d"
                      % (p["step"], epoch, p["consumed"], world), flush=True)
            if args.checkpoint_every and p["step"] % args.checkpoint_every == 0:
                checkpoint()
            resized = el.step_done()
        except RuntimeError as e:
            t = time.time()
            resized = el.recover(e)
            timeline("recovered", "after=%.3f error=%s"
                     % (time.time() - t, str(e).split("\n")[0][:80]))
        if resized:
            if slog:
                slog.close()
            slog = open_log()
            ddp = DDP(model)
            first = True
            timeline("resized", "step=%d world_no=%d path=in-place pid=%d"
                     % (el.position["step"], el.world_no, os.getpid()))
            if el.rank == 0:
                print("train_ddp: world %d in place world %d at step %d, "
                      "samples consumed %d"
                      % (el.world_size, el.world_no, el.position["step"],
                         el.position["consumed"]), flush=True)

    path = checkpoint()
    final = full_loss(model, x_all, y_all)
    dist.barrier()
    if el.rank == 0:
        print("train_ddp: done: %d epochs, %d steps, %d samples, checkpoint "
              "%s" % (el.position["consumed"] // n, el.position["step"],
                      el.position["consumed"], path), flush=True)
        print("initial loss %.6f" % el.position["initial_loss"])
        print("final loss %.6f" % final, flush=True)
    if slog:
        slog.close()
    el.finish()
    timeline("done", "step=%d samples_consumed=%d"
             % (el.position["step"], el.position["consumed"]))
    return 0


if __name__ == "__main__":
    # Not sys.exit: the interpreter's teardown frees the DDP module's
    # process group, where torch may abort or hang (exit_rank()).
    slurm_elastic.exit_rank(main())
