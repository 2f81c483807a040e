"""Sharded PyTorch training in an elastic world: FSDP, tensor parallel.

A sharded rank holds a piece of the model and of the optimizer, so a
world that changes size reshards: what N ranks saved, M ranks load.
PyTorch's distributed checkpoint (DCP) does that; this module gives the
pieces every sharded script repeats, for the world of this launch::

    import slurm_elastic.torch as et
    from slurm_elastic import sharded

    et.init_process_group("gloo")            # "nccl" on GPUs
    mesh = sharded.device_mesh(tp=2)         # ("dp", "tp"), for this world
    model = ...parallelized over mesh["tp"], fully_shard over mesh["dp"]...
    ckpt = sharded.Checkpointer()            # ELASTIC_CHECKPOINT_DIR
    state = sharded.TrainState(model, opt)   # model, optimizer, position
    ckpt.load(state)                         # the newest, resharded here
    order = sharded.GlobalOrder(samples, global_batch, seed)
    while ...:
        epoch, ids = order.batch(state.consumed)
        mine = order.mine(ids, mesh["dp"].get_local_rank(), mesh["dp"].size())
        ...step...; state.advance(len(ids))
        if et.event_agreed():
            ckpt.save(state, state.step, wait=True); et.exit_for_event()
        if state.step % every == 0:
            ckpt.save(state, state.step)     # async: the loop waits for a copy

A checkpoint is a directory "ckpt-%08d" (the steps done) of the
checkpoint dir, written under a hidden name and renamed once every rank's
shard and the metadata are on disk: the launcher, its retention and
``--elastic-resume-from JOB@STEP`` see all of it or nothing, and a save
that fails (a full disk) leaves the newest good one the newest.
"""

import json
import os
import shutil
import sys
import time

import torch
import torch.distributed as dist

from . import (_own_dir, checkpoint_dir, checkpoint_path, list_checkpoints,
               parse_checkpoint_name, prev_checkpoint, saving)
from ._shards import check_degree, next_batch, parallel_dims, share

__all__ = ["Checkpointer", "GlobalOrder", "TrainState", "check_degree",
           "device_mesh", "fsdp_runs_on", "heal", "parallel_dims",
           "sync_replicas"]


def fsdp_runs_on(device_type: str) -> bool:
    """Can fully_shard (FSDP2) train on this device type with this torch?
    On GPUs wherever it exists; on the CPU only where torch's CPU streams
    record events, which FSDP2's all-gather needs (not torch 2.6)."""
    try:
        from torch.distributed.fsdp import fully_shard  # noqa: F401
    except ImportError:
        return False
    if device_type != "cpu":
        return True
    s = getattr(getattr(torch, "cpu", None), "Stream", None)
    return s is not None and hasattr(s, "record_event")


def device_mesh(tp: int = 1, device_type: str = "cpu"):
    """A 2-D device mesh ("dp", "tp") over this world: tensor-parallel
    groups of tp consecutive ranks (keep them inside a node), data
    parallel across them.  ValueError, naming the sizes allowed, when the
    world is not a multiple of tp."""
    from torch.distributed.device_mesh import init_device_mesh
    dp, tp = parallel_dims(dist.get_world_size(), tp)
    return init_device_mesh(device_type, (dp, tp),
                            mesh_dim_names=("dp", "tp"))


def _fsdp_wrapped(model) -> bool:
    try:
        from torch.distributed.fsdp import FSDPModule
    except ImportError:
        return False
    return any(isinstance(m, FSDPModule) for m in model.modules())


def sync_replicas(model, mesh):
    """Average the gradients over mesh["dp"], as FSDP does, for a model
    replicated across the data-parallel ranks (sharded by tensor parallel
    only, or not at all); nothing for a model under fully_shard."""
    if mesh["dp"].size() == 1 or _fsdp_wrapped(model):
        return
    group, n = mesh["dp"].get_group(), mesh["dp"].size()
    for p in model.parameters():
        if p.grad is not None:
            g = p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            dist.all_reduce(g, group=group)
            g.div_(n)


class GlobalOrder:
    """The data order: each epoch a permutation of the sample ids, seeded,
    the same on every rank at every world size.  The position is the
    count of samples consumed; the next global batch at a position is the
    same samples whatever the world, only their split changes."""

    def __init__(self, samples: int, global_batch: int, seed: int):
        self.samples, self.global_batch, self.seed = samples, global_batch, seed
        self._epoch, self._order = -1, None

    def order(self, epoch: int):
        if epoch != self._epoch:
            g = torch.Generator().manual_seed(self.seed * 1000003 + epoch)
            self._epoch = epoch
            self._order = torch.randperm(self.samples, generator=g)
        return self._order

    def batch(self, consumed: int):
        """(epoch, ids) of the next global step."""
        epoch, start, end = next_batch(consumed, self.samples,
                                       self.global_batch)
        return epoch, self.order(epoch)[start:end]

    @staticmethod
    def mine(ids, dp_rank: int, dp_size: int):
        """Data-parallel rank dp_rank's share of a global batch."""
        start, end = share(len(ids), dp_rank, dp_size)
        return ids[start:end]


class TrainState:
    """What a checkpoint holds: the model's and the optimizer's state
    (sharded as they are, through torch's get_state_dict), the steps done,
    the position (samples consumed) and what the script adds to extra
    (values JSON can hold).
    DCP saves and loads it at any world size (Stateful)."""

    def __init__(self, model, optimizer, **extra):
        self.model, self.optimizer = model, optimizer
        self.step, self.consumed, self.extra = 0, 0, dict(extra)

    def advance(self, samples: int):
        self.step += 1
        self.consumed += samples

    def state_dict(self):
        from torch.distributed.checkpoint.state_dict import get_state_dict
        msd, osd = get_state_dict(self.model, self.optimizer)
        # extra as one JSON text: DCP loads only the keys its caller
        # offers, and a resumed script does not know all of them.
        return {"model": msd, "optim": osd,
                "position": {"step": self.step, "consumed": self.consumed},
                "extra": json.dumps(self.extra, sort_keys=True)}

    def load_state_dict(self, sd):
        from torch.distributed.checkpoint.state_dict import set_state_dict
        set_state_dict(self.model, self.optimizer,
                       model_state_dict=sd["model"],
                       optim_state_dict=sd["optim"])
        self.step = int(sd["position"]["step"])
        self.consumed = int(sd["position"]["consumed"])
        self.extra.update(json.loads(sd.get("extra") or "{}"))


def _local_tensors(obj, out):
    """The tensors of a state dict, in its order, as this rank holds
    them (a DTensor's local shard)."""
    if isinstance(obj, dict):
        for k in sorted(obj, key=str):
            _local_tensors(obj[k], out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _local_tensors(v, out)
    elif hasattr(obj, "to_local"):
        out.append(obj.to_local())
    elif isinstance(obj, torch.Tensor):
        out.append(obj)
    return out


def heal(state, mesh, src: int = 0, dim: str = "dp"):
    """Give every replica along mesh[dim] the state of replica src, over
    the world's transport, not from disk: each rank takes the shard of
    its place in the replica (its coordinates on the other dimensions)
    from the rank of replica src at the same place.  For replicated
    shards (HSDP, or tensor-parallel groups replicated across the data-
    parallel ranks) when whole replicas join: the joiners' state is
    replaced, the survivors' is unchanged.  A collective of every rank;
    the bytes this rank received (0 on replica src)."""
    group = mesh[dim].get_group()
    root = dist.get_global_rank(group, src)
    sd = state.state_dict()
    tensors = _local_tensors({"model": sd["model"], "optim": sd["optim"]},
                             [])
    n = 0
    for t in tensors:
        # gloo and NCCL broadcast contiguous buffers in place.
        buf = t if t.is_contiguous() else t.contiguous()
        dist.broadcast(buf, src=root, group=group)
        if buf is not t:
            t.copy_(buf)
        n += buf.numel() * buf.element_size()
    rest = [sd["position"], sd["extra"]]
    dist.broadcast_object_list(rest, src=root, group=group)
    sd["position"], sd["extra"] = rest
    state.load_state_dict(sd)
    return 0 if mesh[dim].get_local_rank() == src else n


def _is_dcp(path) -> bool:
    return os.path.isfile(os.path.join(path, ".metadata"))


class Checkpointer:
    """DCP checkpoints of a sharded world in the checkpoint dir (default
    ELASTIC_CHECKPOINT_DIR).  Create it on every rank after the process
    group: its saves run on a Gloo group of their own, so that an async
    save's last steps never meet the training's collectives.

    save() with async_save (the default) returns once the state is copied
    to memory; the write goes on beside the training and is renamed into
    place when done.  The next save(), wait() and load() wait for it.
    completed() says what each save cost: its stall of the step loop,
    its whole time and what this rank wrote."""

    def __init__(self, directory=None, async_save=True, log=sys.stderr):
        import torch.distributed.checkpoint as dcp
        self.dcp = dcp
        self.directory = directory or checkpoint_dir()
        self.async_save = async_save and hasattr(dcp, "async_save")
        self.pg = dist.new_group(backend="gloo")
        self.rank = dist.get_rank()
        self.log = log
        self.pending = self.writer = None
        self.saved = None  # the path of the newest save that completed
        self._done = []

    def _say(self, msg):
        if self.rank == 0 and self.log:
            print("slurm_elastic: %s" % msg, file=self.log, flush=True)

    def _plan(self, step):
        """Rank 0 names the checkpoint and clears a stale half of it; every
        rank learns [final, tmp] (None: this step's is already there)."""
        plan = [None, None]
        if self.rank == 0 and self.directory:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            _own_dir(self.directory)
            final = checkpoint_path(step, self.directory, ext=None)
            if not os.path.exists(final):
                tmp = os.path.join(self.directory,
                                   ".%s.tmp" % os.path.basename(final))
                shutil.rmtree(tmp, ignore_errors=True)
                plan = [final, tmp]
        dist.broadcast_object_list(plan, src=0, group=self.pg)
        return plan

    def save(self, state, step: int, wait: bool = False):
        """Checkpoint state (a TrainState or a dict DCP takes) as step's:
        the path it will have, or None when nothing is saved (no
        checkpoint dir, this step's exists, or the save failed: said on
        standard error, the newest good checkpoint stays the newest)."""
        self.wait()
        final, tmp = self._plan(step)
        if final is None:
            return None
        sd = {"train": state}
        t0 = time.time()
        try:
            if self.async_save and not wait:
                fut = self.dcp.async_save(sd, checkpoint_id=tmp,
                                          storage_writer=self._writer(tmp),
                                          process_group=self.pg)
                self.pending = (fut, tmp, final, step, t0, time.time() - t0)
                return final
            with saving():
                self.dcp.save(sd, checkpoint_id=tmp, process_group=self.pg)
        except Exception as e:  # noqa: BLE001 (DCP wraps a rank's OSError)
            return self._failed(tmp, step, e)
        return self._finish(tmp, final, step, t0, time.time() - t0, False)

    def _writer(self, path):
        """The async saves' one writer: it copies the state into memory it
        keeps from one save to the next (the copy is the stall), and DCP
        points it at each save's directory."""
        if self.writer is None:
            self.writer = _staging_writer(self.dcp)(path)
        return self.writer

    def wait(self):
        """Wait for the async save under way, if any; its path or None."""
        if self.pending is None:
            return self.saved
        fut, tmp, final, step, t0, stall = self.pending
        self.pending = None
        try:
            fut.result()
        except Exception as e:  # noqa: BLE001
            return self._failed(tmp, step, e)
        return self._finish(tmp, final, step, t0, stall, True)

    def completed(self):
        """The saves completed since the last call, oldest first: dicts
        of step, path, async, stall, seconds, nbytes."""
        done, self._done = self._done, []
        return done

    def _finish(self, tmp, final, step, t0, stall, was_async):
        # DCP's coordinator (rank 0) writes the metadata last, after every
        # rank's shards: when its save returns, the checkpoint is whole.
        nbytes = _dir_bytes(tmp, self.rank)
        if self.rank == 0:
            os.rename(tmp, final)
            fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self.saved = final
        self._done.append({"step": step, "path": final, "async": was_async,
                           "stall": stall, "seconds": time.time() - t0,
                           "nbytes": nbytes})
        return final

    def _failed(self, tmp, step, e):
        if self.rank != 0:
            return None
        shutil.rmtree(tmp, ignore_errors=True)
        old = [c for c in list_checkpoints(self.directory) if c.is_dir]
        self._say("checkpoint not saved at step %d: %s (the newest "
                  "checkpoint stays %s); training goes on"
                  % (step, str(e).split("\n")[0][:200],
                     os.path.basename(old[-1].path) if old else "none"))
        return None

    def newest(self):
        """The checkpoint a launch resumes from: the newest DCP checkpoint
        of ELASTIC_PREV_CHECKPOINT (elastic-run's pick, or
        --elastic-resume-from) and of the checkpoint dir; None for none."""
        cands = []
        prev = prev_checkpoint()
        if prev and os.path.isdir(prev) and _is_dcp(prev):
            cands.append((parse_checkpoint_name(os.path.basename(prev)) or -1,
                          prev))
        if self.directory:
            try:
                cands += [(c.step, c.path)
                          for c in list_checkpoints(self.directory)
                          if c.is_dir and _is_dcp(c.path)]
            except PermissionError as e:
                self._say(str(e))
        return max(cands)[1] if cands else None

    def load(self, state):
        """Load the newest checkpoint (rank 0's pick, so every rank loads
        the same) into state, resharded for this world: its path, or None
        for a fresh start."""
        self.wait()
        pick = [self.newest() if self.rank == 0 else None]
        dist.broadcast_object_list(pick, src=0, group=self.pg)
        if pick[0] is None:
            return None
        self.dcp.load({"train": state}, checkpoint_id=pick[0],
                      process_group=self.pg)
        return pick[0]


def _staging_writer(dcp):
    """A FileSystemWriter that stages a state dict into buffers of its own,
    reused by every save (torch's cache pins its memory, which needs an
    accelerator): a plain copy, no allocation, on the CPU as on GPUs."""

    class StagingWriter(dcp.FileSystemWriter):
        def __init__(self, path):
            super().__init__(path)
            self._bufs = {}

        def stage(self, state_dict):
            return self._copy(state_dict, ())

        def _copy(self, obj, key):
            if isinstance(obj, dict):
                return {k: self._copy(v, key + (k,)) for k, v in obj.items()}
            if isinstance(obj, (list, tuple)):
                return type(obj)(self._copy(v, key + (i,))
                                 for i, v in enumerate(obj))
            if hasattr(obj, "to_local"):  # a DTensor: its shard, re-wrapped
                from torch.distributed.tensor import DTensor
                return DTensor.from_local(
                    self._buf(obj.to_local(), key), obj.device_mesh,
                    obj.placements, run_check=False, shape=obj.shape,
                    stride=obj.stride())
            if isinstance(obj, torch.Tensor):
                return self._buf(obj, key)
            return obj

        def _buf(self, t, key):
            b = self._bufs.get(key)
            if b is None or b.shape != t.shape or b.dtype != t.dtype:
                b = self._bufs[key] = torch.empty(t.shape, dtype=t.dtype,
                                                  device="cpu")
            return b.copy_(t.detach())

    return StagingWriter


def _dir_bytes(path, rank):
    """The bytes of this rank's shard files in a DCP directory (its own
    files are named for it: __RANK_*.distcp)."""
    n = 0
    try:
        for e in os.scandir(path):
            if e.name.startswith("__%d_" % rank) and e.is_file():
                n += e.stat().st_size
    except OSError:
        pass
    return n
