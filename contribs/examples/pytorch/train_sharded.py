#!/usr/bin/env python3
"""Elastic sharded PyTorch training example for slurm-elastic.

Trains a small transformer (token embeddings, causal self-attention and
MLP blocks) on a synthetic, deterministic task with the model and the
optimizer sharded across the ranks, gloo on CPU, NCCL on GPUs by the same
code.  It runs under ``elastic-run`` or plain ``torchrun``.

Sharding (``--shard``):

* ``fsdp``: FSDP2 (``fully_shard``) over the data-parallel ranks, with
  ``--tp N`` tensor parallel inside each group of N consecutive ranks (a
  2-D mesh; keep a group inside a node);
* ``tp``: tensor parallel only (``--tp N``), the data-parallel replicas'
  gradients summed across them;
* ``auto`` (the default): ``fsdp`` where fully_shard trains on the device
  (GPUs; the CPU from torch 2.7), else ``tp``.

The world must be a multiple of ``--tp``: give the job sizes that are
(``--elastic-step``, ``--elastic-sizes``); any other size is refused with
a one-line error naming the allowed sizes.

Checkpoints are PyTorch distributed checkpoints (DCP), a directory per
save (``ckpt-<step>`` in the checkpoint dir) written by every rank, saved
at N ranks and loaded at M: a resized world reshards.  The periodic saves
(``--checkpoint-every``) are async: the step loop waits only for the copy
to memory (beside the next step's forward and backward where torch takes
a copy under way).  At an elastic event the ranks agree after the step, save
synchronously, and exit with ``slurm_elastic.EXIT_EVENT`` (75): the
launcher relaunches at the new size (the restart path).

With ``--in-place`` (under elastic-run) the world is resized without a
relaunch for replicated shards (``slurm_elastic.sharded.InPlace``):
replicas of ``--replica`` consecutive ranks (default ``--tp``), each
holding the whole state (``fsdp``: HSDP, FSDP2 inside a replica;
``tp``: tensor-parallel groups); whole replicas leave with their ranks,
joiners take their shards from a live replica, and a change that leaves
a shard with no copy takes the restart path from a checkpoint, saying
why (``path=restart why=shard-K-lost``).

The data order is that of train_ddp.py (the same seeded permutation per
epoch, global step k consuming the next ``--global-batch`` samples split
across the data-parallel ranks), the position saved in the checkpoint,
and the loss is the mean over the global batch at any world size: every
sample once per epoch across resizes, and the final loss that of an
uninterrupted run within float tolerance.

Output, as train_ddp.py's (the tests' helpers read both):
``train_ddp: <time> event=<up|stepped|told|checkpoint|exit|done> rank=R
world=W restart=N ...``, ``train_ddp: world W restart N ...`` at each
start, ``step S epoch E samples C loss L world W`` every ``--log-every``
steps, ``train_ddp: done: ...``, ``initial loss`` and ``final loss``;
and the sharded example's own: ``train_sharded: checkpoint step=S
stall=T seconds=T bytes=B`` per save, ``train_sharded: resumed from P
(saved by W ranks) in T s``.  Rank 0 logs each step's samples (the
whole global batch) to ``<sample-log-dir>/samples.rank0.*.log``.
"""

import argparse
import datetime
import os
import sys
import time
import warnings

try:
    import slurm_elastic
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    os.pardir, os.pardir, "python"))
    import slurm_elastic

import torch
import torch.distributed as dist
import torch.nn.functional as F

import slurm_elastic.torch as et  # noqa: E402
from slurm_elastic import sharded  # noqa: E402
# The timeline's clock and the --epochs-file rule, as the DDP example's.
from train_ddp import epochs_now, stamp  # noqa: E402

TAG = "train_ddp"  # the timeline's tag, as train_ddp.py's

# torch's own notes to its developers, not to the user of this script.
for _m in ("TypedStorage is deprecated", "DTensor random operators",
           "`torch.distributed.reduce_op` is deprecated",
           "FSDP2-wrapped module .* returned a view tensor"):
    warnings.filterwarnings("ignore", message=_m)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=1024)
    p.add_argument("--seq", type=int, default=8, help="tokens per sample")
    p.add_argument("--vocab", type=int, default=32)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--epochs-file",
                   help="a file that may lower --epochs while training runs "
                        "(as train_ddp.py's)")
    p.add_argument("--global-batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--tp", type=int, default=1,
                   help="tensor-parallel degree: groups of TP consecutive "
                        "ranks (1)")
    p.add_argument("--shard", choices=("auto", "fsdp", "tp"), default="auto")
    p.add_argument("--in-place", action="store_true",
                   help="resize in place under elastic-run (replicated "
                        "shards: slurm_elastic.sharded.InPlace)")
    p.add_argument("--replica", type=int, default=0,
                   help="ranks per replica with --in-place, a multiple of "
                        "--tp (default: --tp)")
    p.add_argument("--checkpoint-dir")
    p.add_argument("--checkpoint-every", type=int, default=0)
    p.add_argument("--sync-save", action="store_true",
                   help="periodic saves synchronous (default: async)")
    p.add_argument("--sample-log-dir")
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--step-sleep", type=float, default=0.0)
    p.add_argument("--backend", choices=("auto", "gloo", "nccl"),
                   default="auto")
    p.add_argument("--timeout", type=float, default=300.0)
    a = p.parse_args(argv)
    for name in ("samples", "seq", "vocab", "dim", "heads", "layers",
                 "epochs", "global_batch", "tp"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name.replace("_", "-"))
    if a.dim % a.heads or a.heads % a.tp:
        p.error("--dim must be a multiple of --heads, --heads of --tp")
    a.replica = a.replica or a.tp
    if a.replica % a.tp:
        p.error("--replica must be a multiple of --tp")
    return a


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.hd = d // heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d)
                                          for _ in range(4))
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.ln1(x)
        b, t = h.shape[0], h.shape[1]
        # Under tensor parallel q, k and v hold this rank's heads only.
        q, k, v = (f(h) for f in (self.q, self.k, self.v))
        nh = q.shape[-1] // self.hd
        q, k, v = (z.view(b, t, nh, self.hd).transpose(1, 2)
                   for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, nh * self.hd))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Model(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.emb = torch.nn.Embedding(a.vocab, a.dim)
        self.pos = torch.nn.Parameter(torch.zeros(a.seq, a.dim))
        self.blocks = torch.nn.ModuleList(Block(a.dim, a.heads)
                                          for _ in range(a.layers))
        self.ln = torch.nn.LayerNorm(a.dim)
        self.head = torch.nn.Linear(a.dim, a.vocab)

    def forward(self, x):
        h = self.emb(x) + self.pos
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln(h))


def make_dataset(a):
    """Random token sequences; each target token is a fixed permutation
    of its input token: the same data everywhere."""
    g = torch.Generator().manual_seed(a.seed)
    perm = torch.randperm(a.vocab, generator=g)
    x = torch.randint(a.vocab, (a.samples, a.seq), generator=g)
    return x, perm[x]


def shard_model(a, model, mesh, how):
    """Tensor parallel over mesh["tp"] (attention heads and the MLP's
    hidden units), then FSDP2 over the data-parallel ranks for how ==
    "fsdp" (HSDP on a mesh of replicas)."""
    if a.tp > 1:
        from torch.distributed.tensor.parallel import (ColwiseParallel,
                                                       RowwiseParallel,
                                                       parallelize_module)
        plan = {"q": ColwiseParallel(), "k": ColwiseParallel(),
                "v": ColwiseParallel(), "o": RowwiseParallel(),
                "fc1": ColwiseParallel(), "fc2": RowwiseParallel()}
        for blk in model.blocks:
            parallelize_module(blk, mesh["tp"], plan)
    if how == "fsdp":
        from torch.distributed.fsdp import fully_shard
        dp = mesh["dp"] if "dp" in mesh.mesh_dim_names else \
            mesh["rep", "shard"]
        for blk in model.blocks:
            fully_shard(blk, mesh=dp)
        fully_shard(model, mesh=dp)
    return model


def full_loss(model, x, y):
    """The mean loss over the whole data set (every rank, a collective
    under tensor parallel or FSDP)."""
    tot = 0.0
    with torch.no_grad():
        for i in range(0, len(x), 256):
            out = model(x[i:i + 256])
            tot += F.cross_entropy(out.reshape(-1, out.shape[-1]),
                                   y[i:i + 256].reshape(-1),
                                   reduction="sum").item()
    return tot / y.numel()


class Run:
    """One launch: the world, its mesh, the sharded model, the state."""

    def __init__(self, a, init=True):
        self.a = a
        if "ELASTIC_JOB_ID" in os.environ:
            w = slurm_elastic.elastic_world()
            self.rank, self.world, self.restart = (w.rank, w.world_size,
                                                   w.restart_count)
            local = w.local_rank
        else:
            self.rank, self.world = (int(os.environ["RANK"]),
                                     int(os.environ["WORLD_SIZE"]))
            self.restart = int(os.environ.get("ELASTIC_RESTART_COUNT", 0))
            local = int(os.environ.get("LOCAL_RANK", 0))
        try:
            # A joiner's world is the one it joins (sharded.InPlace's).
            if init:
                sharded.check_degree(self.world, a.tp)
        except ValueError as e:
            sys.exit("train_sharded: %s" % e)
        cuda = a.backend == "nccl" or (a.backend == "auto"
                                       and torch.cuda.is_available())
        self.dev = torch.device("cuda", local) if cuda else torch.device("cpu")
        if cuda:
            torch.cuda.set_device(local)
        self.backend = "nccl" if cuda else "gloo"
        self.how = a.shard
        if self.how == "auto":
            self.how = "fsdp" if sharded.fsdp_runs_on(self.dev.type) else "tp"
        if init:
            et.init_process_group(self.backend, rank=self.rank,
                                  world_size=self.world,
                                  timeout=datetime.timedelta(seconds=a.timeout))
            self.set_mesh(sharded.device_mesh(a.tp, self.dev.type))

    def set_mesh(self, mesh):
        """The world of mesh (the current process group)."""
        self.mesh = mesh
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.dp_rank, self.dp = sharded.data_parallel(mesh)

    def timeline(self, event, fmt="", t=None):
        print("%s: %s event=%s rank=%d world=%d restart=%d%s"
              % (TAG, stamp(t), event, self.rank, self.world, self.restart,
                 (" " + fmt) if fmt else ""), flush=True)

    def say0(self, msg):
        if self.rank == 0:
            print(msg, flush=True)


def build(run):
    a = run.a
    torch.manual_seed(a.seed)
    model = Model(a).to(run.dev)
    model = shard_model(a, model, run.mesh, run.how)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, foreach=False)
    return model, opt


def report(run, ckpt):
    """The saves completed since the last report, one line each."""
    for d in ckpt.completed():
        run.say0("train_sharded: checkpoint step=%d async=%s stall=%.4f "
                 "seconds=%.4f bytes=%d" % (d["step"], d["async"] and "yes"
                                            or "no", d["stall"],
                                            d["seconds"], d["nbytes"]))


def main(argv=None):
    a = parse_args(argv)
    if a.in_place:
        return main_in_place(a)
    run = Run(a)
    x_all, y_all = make_dataset(a)
    x_all, y_all = x_all.to(run.dev), y_all.to(run.dev)
    model, opt = build(run)
    state = sharded.TrainState(model, opt, world=run.world)
    ckpt = sharded.Checkpointer(a.checkpoint_dir, async_save=not a.sync_save)
    t0 = time.time()
    path = ckpt.load(state)
    if path:
        how = "resumed from %s" % path
        run.say0("train_sharded: resumed from %s (saved by %s ranks) in "
                 "%.3f s" % (path, state.extra.get("world"), time.time() - t0))
    else:
        how = "fresh start"
        state.extra["initial_loss"] = full_loss(model, x_all, y_all)
    state.extra["world"] = run.world
    run.say0("%s: world %d restart %d %s at step %d, samples consumed %d, "
             "backend %s, shard %s tp %d dp %d"
             % (TAG, run.world, run.restart, how, state.step, state.consumed,
                dist.get_backend(), run.how, a.tp, run.dp))
    run.timeline("up", "step=%d samples_consumed=%d path=restart"
                 % (state.step, state.consumed))
    return train(run, a, model, opt, state, ckpt, x_all, y_all)


def step_once(run, a, model, opt, xb, yb, n):
    opt.zero_grad(set_to_none=True)
    out = model(xb)
    loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), yb.reshape(-1),
                           reduction="sum")
    # The gradient is the mean over the global batch at any size: FSDP
    # and sync_replicas average over the data-parallel ranks.
    (loss * (run.dp / (n * a.seq))).backward()
    sharded.sync_replicas(model, run.mesh)
    opt.step()
    return loss.detach()


def sample_log(run, a):
    """Rank 0's log of the samples of each step, this world's."""
    if not a.sample_log_dir or run.rank != 0:
        return None
    os.makedirs(a.sample_log_dir, exist_ok=True)
    return open(os.path.join(a.sample_log_dir, "samples.rank0.world%d.pid%d"
                             ".log" % (run.world, os.getpid())), "a")


def batches(a, position):
    """The global batches (epoch, ids) from position() (the samples
    consumed) on, to the end of the epochs (--epochs-file may lower them
    at an epoch's start)."""
    order = sharded.GlobalOrder(a.samples, a.global_batch, a.seed)
    total, last_epoch = a.samples * a.epochs, -1
    while position() < total:
        epoch, ids = order.batch(position())
        if epoch != last_epoch:
            total, last_epoch = a.samples * epochs_now(a), epoch
            if position() >= total:
                return
        yield epoch, ids


def train(run, a, model, opt, state, ckpt, x_all, y_all):
    slog, start = sample_log(run, a), state.step
    for epoch, ids in batches(a, lambda: state.consumed):
        mine = sharded.GlobalOrder.mine(ids, run.dp_rank, run.dp).to(run.dev)
        loss = step_once(run, a, model, opt, x_all[mine], y_all[mine],
                         len(ids))
        if a.step_sleep:
            time.sleep(a.step_sleep)
        state.advance(len(ids))
        if state.step == start + 1:
            run.timeline("stepped", "step=%d path=restart" % state.step)
        if slog:
            slog.write("%d %d %s\n" % (state.step, epoch,
                                       " ".join(map(str, ids.tolist()))))
            slog.flush()
        # The loss (this data-parallel rank's; the tensor-parallel ranks
        # of a group hold the same) summed in the event's all-reduce.
        flag = 1.0 if slurm_elastic.elastic_event_detected() else 0.0
        t = torch.tensor([flag, loss.item() / a.tp], dtype=torch.float64,
                         device=run.dev)
        dist.all_reduce(t)
        slurm_elastic.progress(state.step)
        if a.log_every and state.step % a.log_every == 0:
            run.say0("step %d epoch %d samples %d loss %.6f world %d"
                     % (state.step, epoch, state.consumed,
                        t[1].item() / (len(ids) * a.seq), run.world))
        if t[0].item() > 0:
            return on_event(run, state, ckpt, slog)
        if a.checkpoint_every and state.step % a.checkpoint_every == 0:
            ckpt.save(state, state.step)
            report(run, ckpt)
    return done(run, a, state, ckpt, slog, x_all, y_all,
                dist.destroy_process_group)


def done(run, a, state, ckpt, slog, x_all, y_all, leave):
    """The end of the training: the last checkpoint, the final loss; then
    leave() the world."""
    path = ckpt.save(state, state.step, wait=True) or ckpt.wait()
    report(run, ckpt)
    final = full_loss(state.model, x_all, y_all)
    dist.barrier()
    run.say0("%s: done: %d epochs, %d steps, %d samples, checkpoint %s"
             % (TAG, state.consumed // a.samples, state.step, state.consumed,
                path))
    run.say0("initial loss %.6f" % state.extra["initial_loss"])
    run.say0("final loss %.6f" % final)
    if slog:
        slog.close()
    leave()
    run.timeline("done", "step=%d samples_consumed=%d"
                 % (state.step, state.consumed))
    return 0


def on_event(run, state, ckpt, slog):
    """All ranks saw the event after this step: save it, then exit for
    the relaunch."""
    t0 = time.time()
    run.timeline("told", "signal=agreed")
    path = ckpt.save(state, state.step, wait=True)
    report(run, ckpt)
    dist.barrier()
    run.timeline("checkpoint", "seconds=%.3f step=%d"
                 % (time.time() - t0, state.step))
    run.say0("%s: elastic event at step %d (samples consumed %d): "
             "checkpoint %s, exiting" % (TAG, state.step, state.consumed, path))
    if slog:
        slog.close()
    dist.destroy_process_group()
    run.timeline("exit", "step=%d" % state.step)
    return slurm_elastic.EXIT_EVENT


def main_in_place(a):
    """main() resized in place (slurm_elastic.sharded.InPlace): the same
    training, checkpoints and logs; a resize keeps the processes."""
    run = Run(a, init=False)
    x_all, y_all = make_dataset(a)
    x_all, y_all = x_all.to(run.dev), y_all.to(run.dev)

    def build(mesh):
        torch.manual_seed(a.seed)
        model = shard_model(a, Model(a).to(run.dev), mesh, run.how)
        return model, torch.optim.Adam(model.parameters(), lr=a.lr,
                                       foreach=False)

    try:
        el = sharded.InPlace(build, a.replica, tp=a.tp, backend=run.backend,
                             timeout=a.timeout, device_type=run.dev.type,
                             checkpoint_dir=a.checkpoint_dir,
                             async_save=not a.sync_save)
    except ValueError as e:  # a world that is not whole replicas
        sys.exit("train_sharded: %s" % e)
    run.set_mesh(el.mesh)
    how = "joined"
    if not el.joining:
        t0 = time.time()
        path = el.ckpt.load(el.state)
        if path:
            how = "resumed from %s" % path
            run.say0("train_sharded: resumed from %s (saved by %s ranks) in "
                     "%.3f s" % (path, el.state.extra.get("world"),
                                 time.time() - t0))
        else:
            how = "fresh start"
            el.state.extra["initial_loss"] = full_loss(el.state.model, x_all,
                                                       y_all)
    el.start()
    run.set_mesh(el.mesh)
    el.state.extra["world"] = run.world
    run.say0("%s: world %d restart %d %s at step %d, samples consumed %d, "
             "backend %s, shard %s tp %d dp %d, in place world %d"
             % (TAG, run.world, run.restart, how, el.state.step,
                el.state.consumed, dist.get_backend(), run.how, a.tp, run.dp,
                el.world_no))
    run.timeline("up", "step=%d samples_consumed=%d world_no=%d path=in-place "
                 "pid=%d healed_bytes=%d" % (el.state.step, el.state.consumed,
                                             el.world_no, os.getpid(),
                                             el.healed))
    return train_in_place(run, a, el, x_all, y_all)


def train_in_place(run, a, el, x_all, y_all):
    slog, first = sample_log(run, a), True
    for epoch, ids in batches(a, lambda: el.state.consumed):
        st = el.state
        mine = sharded.GlobalOrder.mine(ids, run.dp_rank, run.dp).to(run.dev)
        try:
            loss = step_once(run, a, st.model, st.optimizer, x_all[mine],
                             y_all[mine], len(ids))
            if a.step_sleep:
                time.sleep(a.step_sleep)
            st.advance(len(ids))
            if slog:
                slog.write("%d %d %s\n" % (st.step, epoch,
                                           " ".join(map(str, ids.tolist()))))
                slog.flush()
            if first:
                run.timeline("stepped", "step=%d path=in-place" % st.step)
                first = False
            if a.log_every and st.step % a.log_every == 0:
                t = torch.tensor([loss.item() / a.tp], dtype=torch.float64,
                                 device=run.dev)
                dist.all_reduce(t)
                run.say0("step %d epoch %d samples %d loss %.6f world %d"
                         % (st.step, epoch, st.consumed,
                            t[0].item() / (len(ids) * a.seq), run.world))
            if a.checkpoint_every and st.step % a.checkpoint_every == 0:
                el.ckpt.save(st, st.step)
                report(run, el.ckpt)
            resized = el.step_done()
        except RuntimeError as e:
            t = time.time()
            print("train_sharded: rank %d: a collective failed at step %d: %s"
                  % (run.rank, el.state.step, str(e).split("\n")[0][:200]),
                  file=sys.stderr, flush=True)
            resized = el.recover(e)
            run.timeline("recovered", "after=%.3f error=%s"
                         % (time.time() - t, str(e).split("\n")[0][:80]))
        if resized:
            run.set_mesh(el.mesh)
            el.state.extra["world"] = run.world
            if slog:
                slog.close()
            slog, first = sample_log(run, a), True
            run.timeline("resized", "step=%d world_no=%d path=in-place pid=%d "
                         "healed_bytes=%d" % (el.state.step, el.world_no,
                                              os.getpid(), el.healed))
            run.say0("%s: world %d in place world %d at step %d, samples "
                     "consumed %d" % (TAG, run.world, el.world_no,
                                      el.state.step, el.state.consumed))
    return done(run, a, el.state, el.ckpt, slog, x_all, y_all, el.finish)


if __name__ == "__main__":
    slurm_elastic.exit_rank(main())
