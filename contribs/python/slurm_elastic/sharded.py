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
import sys

import torch
import torch.distributed as dist

from . import EXIT_EVENT, exit_rank
from ._checkpointer import Checkpointer
from ._shards import (check_degree, next_batch, parallel_dims, replica_dims,
                      replica_sources, replicas_kept, share)
from .torch import InPlace as _TorchInPlace
from .torch import destroy_process_group

__all__ = ["Checkpointer", "GlobalOrder", "InPlace", "TrainState",
           "check_degree", "data_parallel", "device_mesh", "fsdp_runs_on",
           "heal", "parallel_dims", "sync_replicas"]


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


def device_mesh(tp: int = 1, device_type: str = "cpu", replica: int = 0):
    """A 2-D device mesh ("dp", "tp") over this world: tensor-parallel
    groups of tp consecutive ranks (keep them inside a node), data
    parallel across them.  With replica (ranks per replica, a multiple of
    tp), a 3-D mesh ("rep", "shard", "tp") for replicated shards: replicas
    of `replica` consecutive ranks, FSDP's shards over "shard" inside one
    (HSDP: fully_shard(mesh=mesh["rep", "shard"])).  ValueError, naming
    the sizes allowed, when the world is not a multiple of tp (replica)."""
    from torch.distributed.device_mesh import init_device_mesh
    world = dist.get_world_size()
    if replica:
        return init_device_mesh(device_type, replica_dims(world, replica, tp),
                                mesh_dim_names=("rep", "shard", "tp"))
    dp, tp = parallel_dims(world, tp)
    return init_device_mesh(device_type, (dp, tp),
                            mesh_dim_names=("dp", "tp"))


def data_parallel(mesh):
    """(rank, size) of this rank among the data-parallel ranks of a mesh
    of device_mesh(): those whose batches differ (all but "tp")."""
    if "dp" in mesh.mesh_dim_names:
        return mesh["dp"].get_local_rank(), mesh["dp"].size()
    r, s = mesh["rep"], mesh["shard"]
    return r.get_local_rank() * s.size() + s.get_local_rank(), \
        r.size() * s.size()


def _fsdp_wrapped(model) -> bool:
    try:
        from torch.distributed.fsdp import FSDPModule
    except ImportError:
        return False
    return any(isinstance(m, FSDPModule) for m in model.modules())


def sync_replicas(model, mesh):
    """Between backward() and the optimizer's step: average the gradients
    over the data-parallel ranks, as FSDP does, for a model replicated
    across them (sharded by tensor parallel only, or not at all; nothing
    to average under fully_shard).  On a mesh of replicas, then the ranks
    of each replica agree that every gradient arrived (a commit point): a
    peer replica that dies in the step leaves all of them before the
    step or all after it, never a step apart (sharded.InPlace)."""
    dims = [d for d in ("dp", "rep", "shard")
            if d in mesh.mesh_dim_names and mesh[d].size() > 1]
    if dims and not _fsdp_wrapped(model):
        _average(model, mesh, dims)
    if "rep" in mesh.mesh_dim_names:
        t = torch.zeros(1, device=mesh.device_type)
        for d in ("shard", "tp"):
            if mesh[d].size() > 1:
                dist.all_reduce(t, group=mesh[d].get_group())


def _average(model, mesh, dims):
    n = 1
    for d in dims:
        n *= mesh[d].size()
    for p in model.parameters():
        if p.grad is not None:
            g = p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            for d in dims:
                dist.all_reduce(g, group=mesh[d].get_group())
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
        self.load_position(sd)

    def load_position(self, sd):
        """The step, the position and extra of a state dict alone."""
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


def _state_tensors(state):
    """(state dict, the local tensors of its model and optimizer, in its
    order): what a heal sends and a survivor keeps."""
    sd = state.state_dict()
    return sd, _local_tensors({"model": sd["model"], "optim": sd["optim"]},
                              [])


def _live_storage(state):
    """The data pointers of the state's own tensors: the model's
    parameters and buffers and the optimizer's state, as this rank holds
    them."""
    ts = list(state.model.parameters()) + list(state.model.buffers())
    for st in state.optimizer.state.values():
        ts += [v for v in st.values() if isinstance(v, torch.Tensor)]
    return {(t.to_local() if hasattr(t, "to_local") else t).data_ptr()
            for t in ts}


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
    sd, tensors = _state_tensors(state)
    # gloo and NCCL broadcast contiguous buffers in place; all at once,
    # then waited for: the transport pipelines them (a third of the time
    # of one after the other, with gloo).
    bufs = [t if t.is_contiguous() else t.contiguous() for t in tensors]
    for w in [dist.broadcast(b, src=root, group=group, async_op=True)
              for b in bufs]:
        w.wait()
    n = 0
    for t, buf in zip(tensors, bufs):
        if buf is not t:
            t.copy_(buf)
        n += buf.numel() * buf.element_size()
    rest = [sd["position"], sd["extra"]]
    dist.broadcast_object_list(rest, src=root, group=group)
    sd["position"], sd["extra"] = rest
    live = _live_storage(state)
    if all(t.data_ptr() in live for t in tensors):
        # The state dict's tensors are the state's own (torch's sharded
        # state dicts are views): written in place, only the position.
        state.load_position(sd)
    else:
        state.load_state_dict(sd)
    return 0 if mesh[dim].get_local_rank() == src else n


def _forget_meshes():
    """Empty DTensor's caches of sharding decisions: a mesh of the new
    world equal to one of the old (the same ranks and names) would find
    the old's there, and its process groups, gone (torch 2.6)."""
    try:
        from torch.distributed.tensor import DTensor
        from torch.distributed.tensor import _redistribute
    except ImportError:
        return
    prop = DTensor._op_dispatcher.sharding_propagator.propagate_op_sharding
    for f in (getattr(prop, "cache", prop),
              getattr(_redistribute, "_gen_transform_infos", None)):
        if hasattr(f, "cache_clear"):
            f.cache_clear()


def _gather_ints(values):
    """Every rank's list of ints (the same length on all), by rank."""
    t = torch.tensor(values, dtype=torch.int64)
    out = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(out, t)
    return [[int(v) for v in o.tolist()] for o in out]


class InPlace(_TorchInPlace):
    """A sharded world that elastic-run resizes without restarting it, for
    replicated shards: replicas of `replica` consecutive ranks, each
    holding the whole state between its ranks (HSDP's shard groups, or
    tensor-parallel groups replicated across the data-parallel ranks).

    When whole replicas leave (preempted, crashed, hung), the survivors
    keep their shards: the model and optimizer are built again on the new
    world's mesh (``build(mesh)`` returns them) and take their own shards
    back; when replicas join, their ranks take their shards from a live
    replica over the world's transport (:func:`heal`), not from the disk.
    When a change leaves some shard with no copy in place (every replica
    broken, or a size that is not whole replicas), the ranks tell
    elastic-run why (``path=restart why=shard-K-lost``) and take the
    restart path: a change seen coming (a preemption, a grow) saves a
    checkpoint in the old world first, a fault resumes from the last one.

        el = sharded.InPlace(build, replica=2, tp=2)  # joins the world
        if not el.joining:
            el.ckpt.load(el.state)                # the newest, resharded
        el.start()                                # a joiner heals
        while ...:
            try:
                ...train a step of el.state.model over el.mesh...
                el.state.advance(n)
                if el.state.step % every == 0:
                    el.ckpt.save(el.state, el.state.step)
                resized = el.step_done()
            except RuntimeError as e:             # a peer died
                resized = el.recover(e)

    ``el.state`` is a :class:`TrainState` (its extra carried too),
    ``el.mesh`` the mesh of device_mesh(tp, device_type, replica), and
    ``el.ckpt`` the :class:`Checkpointer` of checkpoint_dir (its saves'
    group follows the world).  Without elastic-run's channel every event
    takes the restart path, with a checkpoint.
    """

    def __init__(self, build, replica, tp=1, backend="gloo", timeout=30.0,
                 device_type="cpu", checkpoint_dir=None, async_save=True,
                 environ=None):
        check_degree(replica, tp)
        self.build, self.replica, self.tp = build, replica, tp
        self.device_type = device_type
        self.state = self.mesh = None
        self.healed = 0  # the bytes this rank took from a replica, last
        super().__init__(backend, timeout, checkpoint=None, environ=environ)
        self.ckpt = None
        self._groups(lambda: Checkpointer(checkpoint_dir,
                                          async_save=async_save))

    @property
    def position(self):
        """The step, as the base class carries it (read only here)."""
        st = self.__dict__.get("state")
        return {"step": st.step if st else 0}

    @position.setter
    def position(self, value):
        pass  # the state's own

    def _rebuild(self):
        """The mesh of this world and the model and optimizer on it; the
        position and extra kept."""
        old = self.state
        self.mesh = device_mesh(self.tp, self.device_type, self.replica)
        model, opt = self.build(self.mesh)
        self.state = TrainState(model, opt, **(old.extra if old else {}))
        if old is not None:
            self.state.step, self.state.consumed = old.step, old.consumed

    def _groups(self, checkpointer):
        """The world's mesh, model and Checkpointer (checkpointer() makes
        or renews it), their process groups' sockets noted with the
        world's: a world that names a node lost shuts them down too, so
        that a rank blocked in a collective of a mesh's group fails at
        once, not at its timeout."""
        from . import inplace

        before = inplace.socket_inodes()
        self._rebuild()
        self.ckpt = checkpointer()
        self._pg_socks.update({fd: ino for fd, ino in
                               inplace.socket_inodes().items()
                               if before.get(fd) != ino})

    def start(self):
        """After the checkpoint's load: a joiner takes its shards from a
        live replica; the ranks of a launch tell elastic-run they are in
        their world."""
        if self.joining:
            self._enter(None)
            self._joined()
        elif self.client:
            self.client.joined(self.world_no, self.state.step)

    def _exit_restart(self, collectives):
        """The restart path: with the world whole, every rank saves (the
        checkpoint is a collective), then all exit for the event."""
        if collectives and dist.is_initialized() and self.ckpt:
            self.ckpt.save(self.state, self.state.step, wait=True)
        super()._exit_restart(collectives)

    def _refuse(self, w, why, collectives):
        if self._rank == 0:
            print("slurm_elastic: world %d not in place: %s; the restart "
                  "path%s" % (w.number, why, ", after a checkpoint"
                              if collectives else ""), file=sys.stderr,
                  flush=True)
        if collectives:
            self.ckpt.save(self.state, self.state.step, wait=True)
        self.client.failed(w.number, why)
        super()._exit_restart(collectives)

    def _move(self, w, broken=False):
        if w.path != "in-place":
            self._exit_restart(collectives=not broken)
        rank = w.rank_of(self._job, self._node, self._local)
        if not broken:
            # The old world is whole: it sees whether the next one keeps
            # a copy of every shard, and checkpoints when it does not.
            self.ckpt.wait()
            new = [r[0] for r in _gather_ints([-1 if rank is None else rank])]
            why = replicas_kept(self.replica, new, w.size)
            if why:
                self._refuse(w, why, collectives=True)
        mine = (self._rank % self.replica, self.state.step,
                _state_tensors(self.state)[1])
        try:
            destroy_process_group()
        except (RuntimeError, AssertionError, ValueError):
            pass
        if rank is None:
            exit_rank(EXIT_EVENT)  # its replica lives on in the others
        _forget_meshes()
        self._world = w
        self._init(w)
        # In a joiner's order (its __init__, then start()): every rank
        # makes the new world's groups in the same order.
        self._groups(lambda: self.ckpt.renew(drop=True) or self.ckpt)
        self._enter(mine)
        self._joined()
        self.resizes += 1
        return True

    def _enter(self, mine):
        """In the new world, its model built: which replica each shard
        comes from, this rank's own shards back when it kept its place,
        the others' from their source replica."""
        k, step, old = mine if mine else (-1, 0, None)
        held = _gather_ints([k, step])
        src, top, why = replica_sources(self.replica, held)
        if why:
            self._refuse(self._world, why, collectives=False)
        if old is not None and k == self._rank % self.replica and step == top:
            sd, new = _state_tensors(self.state)
            if len(new) != len(old) or any(a.shape != b.shape
                                           for a, b in zip(new, old)):
                raise RuntimeError("sharded.InPlace: build() made another "
                                   "model than the world before")
            for a, b in zip(new, old):
                a.copy_(b)
            self.state.load_state_dict(sd)
        self.healed = heal(self.state, self.mesh, src=src[self._rank %
                                                          self.replica],
                           dim="rep")
