"""What a PyTorch rank of an elastic job needs beyond the event flag.

At a preemption the ranks get the event signal a few milliseconds apart,
some a step before others: a rank that stops alone leaves the others
waiting in the next collective.  :func:`event_agreed` makes the ranks agree
in one small all-reduce, so that every rank stops after the same step::

    from slurm_elastic.torch import event_agreed, init_process_group

    init_process_group("gloo")        # torch's, the event held back meanwhile
    ...
    if event_agreed():                # every rank, every step
        ...checkpoint on rank 0, barrier, exit_for_event()
"""

import collections
import datetime
import os
import pickle
import signal
import warnings

import torch
import torch.distributed as dist

from . import (EXIT_EVENT, elastic_event_detected, elastic_signal,
               exit_rank, progress, size_config_vars, torch_store_fallback)

__all__ = ["InPlace", "destroy_process_group", "event_agreed",
           "init_process_group"]

# torch.distributed is loaded now: a torch without libuv needs USE_LIBUV=0
# before its first rendezvous.
torch_store_fallback()


# The tensors of our collectives, kept until the process group is gone.
# torch before 2.8 destroys a Gloo group with the GIL held while it joins
# the group's workers; a worker that drops the last reference to a tensor
# Python no longer holds needs the GIL to free it, and the two wait for
# each other for ever (a rank that left its world stayed until Slurm
# killed it).  Held here, the worker's reference is never the last.  Each
# collective is synchronous and its wait lets a worker take the GIL, so
# one that drops out of the deque has long been let go by the workers.
_held = collections.deque(maxlen=16)


def _hold(t):
    _held.append(t)
    return t


def _device(group=None):
    """Where a collective's tensor lives: the current CUDA device for
    NCCL, else the CPU."""
    if dist.get_backend(group) == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return "cpu"


def _broadcast_object(obj, src):
    """src's obj on every rank: broadcast_object_list's work on tensors
    held here (its own are let go while gloo's workers may still hold
    them: see _held)."""
    me = dist.get_rank() == src
    data = torch.frombuffer(bytearray(pickle.dumps(obj)), dtype=torch.uint8) \
        if me else None
    n = _hold(torch.tensor([data.numel() if me else 0], dtype=torch.int64,
                           device=_device()))
    dist.broadcast(n, src)
    if not me:
        data = torch.empty(int(n.item()), dtype=torch.uint8)
    data = _hold(data.to(_device()))
    dist.broadcast(data, src)
    return obj if me else pickle.loads(data.cpu().numpy().tobytes())


def destroy_process_group(group=None):
    """:func:`torch.distributed.destroy_process_group`, then let go of the
    tensors this module's collectives used.  Call it in place of torch's
    after :func:`event_agreed` (torch's own is safe too while these
    tensors are held, and they are held until this is called)."""
    dist.destroy_process_group(group)
    if group is None:
        _held.clear()


def init_process_group(*args, **kwargs):
    """:func:`torch.distributed.init_process_group`, with the elastic
    signal and SIGTERM held back until it returns.

    A signal that arrives while a rank waits in the rendezvous breaks
    torch's TCPStore ("RuntimeError: Interrupted system call"), and its
    peers then wait for it until the grace runs out.  Held back, it is
    delivered when the rendezvous is done, and elastic_event_detected()
    is true from then on.  Call it from the main thread, in place of
    torch's.  Threads that torch starts meanwhile keep both signals
    blocked, so they always go to the main thread.
    """
    sigs = {signal.SIGTERM}
    try:
        sigs.add(elastic_signal())
    except ValueError:
        pass
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        return dist.init_process_group(*args, **kwargs)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def event_agreed(group=None) -> bool:
    """True on every rank of group (default: the whole world) when any of
    them saw the elastic event, False on every rank otherwise.

    One all-reduce (MAX) of one number: call it at the same point of every
    step on every rank, as any collective.  With the NCCL backend the
    number lives on the current CUDA device.
    """
    progress()
    flag = _hold(torch.tensor([1 if elastic_event_detected() else 0],
                              dtype=torch.int32, device=_device(group)))
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=group)
    return bool(flag.item())


class InPlace:
    """A rank that elastic-run resizes without restarting it.

    Under ``elastic-run`` (``--in-place=auto``, the default) the ranks of a
    job that use this class keep their processes across resizes: at a
    preemption the ranks that stay re-form the process group at the new
    size and go on from the step they are at; when the job grows, the new
    ranks start while the world trains on, and take the model, the
    optimizer and the position from the ranks already there (not from the
    disk).  When a node dies, hangs or is split off, the survivors'
    collective fails: at once when elastic-run found the node (its world
    names it lost, and the old process group's connections are shut
    down), else after at most ``timeout``; :meth:`recover` takes them
    into the next world from the state of the last step they all
    completed.  What cannot be done in place falls back to the restart
    path: rank 0 checkpoints and the ranks exit for the event, as with
    :func:`event_agreed`.  Without elastic-run
    (torchrun) or with ``--in-place=no`` the class takes the restart path
    at every event::

        el = InPlace("gloo", checkpoint=save)  # joins the world
        model, opt = build()
        el.carry(model=model, optimizer=opt)   # what a joiner takes
        if not el.joining:
            ...load the newest checkpoint, set el.position
        el.start()                             # a joiner gets the state
        ddp = DDP(model)
        while el.position["step"] < steps:
            try:
                train_one_step(ddp)            # updates el.position
                resized = el.step_done()
            except RuntimeError as e:          # a peer died
                resized = el.recover(e)
            if resized:
                ddp = DDP(model)               # the new process group

    ``position`` is a dict of picklable values carried with the model
    (the step, the samples consumed); ``step_done()`` is called once per
    step, at the same point on every rank, as any collective.
    ``checkpoint`` is called on rank 0 (with no argument) before the
    ranks exit for the restart path; it must not use collectives.  With
    ``checkpoint_on_resize`` rank 0 also calls it after each in-place
    resize (the in-place path needs none: the state lives on in the
    ranks; periodic checkpoints are the script's, as before).  After a
    resize, ``size_vars`` (and os.environ) hold the per-size variables of
    ``--elastic-size-config`` at the new size (batch size, learning
    rate...): apply them with the new DDP.
    """

    def __init__(self, backend="gloo", timeout=30.0, checkpoint=None,
                 checkpoint_on_resize=False, environ=None):
        from . import inplace

        env = os.environ if environ is None else environ
        self.backend = backend
        self.timeout = timeout if isinstance(timeout, datetime.timedelta) \
            else datetime.timedelta(seconds=float(timeout))
        self.checkpoint = checkpoint
        self.checkpoint_on_resize = checkpoint_on_resize
        self.position = {}
        self.resizes = 0
        #: The per-size variables of the current world (--elastic-size-
        #: config), also in os.environ: apply them after each resize.
        self.size_vars = size_config_vars(
            int(env.get("ELASTIC_NNODES", "0") or 0), env)
        self._objs = {}
        self._pg_socks = {}  # the process group's: descriptor -> inode
        self._store_port = None  # its rendezvous's
        self.cut = 0  # the process group's connections shut down
        self._job = int(env.get("SLURM_JOB_ID", "0") or 0)
        self._node = env.get("SLURMD_NODENAME", "")
        self._local = int(env.get("LOCAL_RANK", "0") or 0)
        self.client = None
        try:
            self.client = inplace.WorldClient.from_env(environ)
        except ValueError as e:
            warnings.warn("in-place resizes off: %s" % e)
        self.world_no = self.client.world if self.client else 0
        self.joining = bool(self.client) and self.world_no == 0
        self._world = None
        if self.client:
            self.client.on_world = self._on_world
            try:
                self.client.connect()
            except (OSError, inplace.InPlaceError) as e:
                warnings.warn("in-place resizes off: %s" % e)
                self.client = None
                if self.joining:
                    raise SystemExit(EXIT_EVENT)
        if self.joining:
            # A joiner is warm now: it waits for the world it joins.
            w = self.client.wait_member(86400.0)
            if w is None:
                raise SystemExit(EXIT_EVENT)
            self._world = w
            self._init(w)
        else:
            self._pg_init(backend, timeout=self.timeout)
            self._rank, self._size = dist.get_rank(), dist.get_world_size()

    # --- where the rank is --------------------------------------------------
    @property
    def rank(self):
        """This rank in the current world (kept after :meth:`finish`)."""
        return self._rank

    @property
    def world_size(self):
        return self._size

    def finish(self):
        """At the end of training: leave the process group and the
        channel (elastic-run then sees the ranks end on their own)."""
        if dist.is_initialized():
            destroy_process_group()
        if self.client:
            self.client.close()

    @property
    def in_place(self):
        """True while resizes are done in place (the channel is up)."""
        return bool(self.client) and not self.client.lost

    def carry(self, **objs):
        """Name what a resize carries: modules (their tensors are
        broadcast in place) and objects with state_dict() and
        load_state_dict() (an optimizer, a scheduler)."""
        self._objs.update(objs)

    def start(self):
        """After carry(): a joiner takes the state of the world it joins;
        the ranks of a launch tell elastic-run they are in theirs."""
        if self.joining:
            self._sync(self._world.src, survived=False)
            self._joined()
        elif self.client:
            self.client.joined(self.world_no, self.position.get("step", 0))

    # --- at every step --------------------------------------------------------
    def step_done(self):
        """Call once per step on every rank.  True when the world was
        resized in place (rebuild DDP and what depends on the world size);
        does not return when the rank leaves or the restart path is taken.
        A rank that leaves (its node is taken back) ends at once with
        os._exit(75) once stdout and stderr are flushed: its ``finally``
        blocks and atexit handlers do not run (torch's own shutdown of a
        process group that DDP still holds can deadlock there).
        """
        from . import elastic_event_clear

        if not self.in_place:
            if event_agreed():
                self._exit_restart(collectives=True)
            return False
        progress()
        # The channel's word, not the signal, says what happens.
        elastic_event_clear()
        w = self.client.latest(self.world_no)
        seen = _hold(torch.tensor([w.number if w else 0], dtype=torch.int64))
        dist.all_reduce(seen, op=dist.ReduceOp.MAX)
        target = int(seen.item())
        if target <= self.world_no:
            return False
        w = self.client.wait(target - 1, float(self.client.wait_seconds))
        if w is None:
            self._exit_restart(collectives=True)
        return self._move(w)

    def recover(self, exc):
        """After a collective failed (a peer died): the next world, from
        the state of the last step every survivor completed.  True when
        the rank goes on in it; re-raises exc when there is no next world.
        """
        if not self.in_place:
            raise exc
        w = self.client.wait(self.world_no, float(self.client.wait_seconds))
        if w is None:
            raise exc
        return self._move(w, broken=True)

    # --- the parts ----------------------------------------------------------------
    def _exit_restart(self, collectives):
        """The restart path: rank 0 checkpoints, all exit for the event."""
        if self.checkpoint and dist.is_initialized() and dist.get_rank() == 0:
            self.checkpoint()
        if collectives:
            try:
                dist.barrier()
            except RuntimeError:
                pass
        exit_rank(EXIT_EVENT)  # no teardown: see exit_rank()

    def _move(self, w, broken=False):
        if w.path != "in-place":
            self._exit_restart(collectives=not broken)
        rank = w.rank_of(self._job, self._node, self._local)
        try:
            destroy_process_group()
        except (RuntimeError, AssertionError, ValueError):
            pass
        if rank is None:
            # Our member left the world (its node is taken back): the
            # state lives on in the others, nothing to save.  At once:
            # the preemptor waits for the node (and see exit_rank()).
            exit_rank(EXIT_EVENT)
        self._world = w
        self._init(w)
        self._sync(w.src, survived=True)
        self._joined()
        self.resizes += 1
        if self.checkpoint_on_resize and self.checkpoint and self._rank == 0:
            self.checkpoint()
        return True

    def _init(self, w):
        from . import inplace

        rank = w.rank_of(self._job, self._node, self._local)
        host = w.master_addr
        if rank != 0:
            # A joiner, past the timeout, while w is the newest world
            # and the launcher is there (it ends a join that takes too
            # long); the ranks already there come together.
            client = self.client if self.joining else None
            inplace.wait_listening(
                host, w.master_port, self.timeout.total_seconds(),
                client and (lambda: not client.lost and
                            client.latest(w.number) is None))
        if ":" in host:
            host = "[%s]" % host
        self._pg_init(self.backend, init_method="tcp://%s:%d"
                      % (host, w.master_port), rank=rank,
                      world_size=w.size, timeout=self.timeout)
        self._rank, self._size = rank, w.size
        nnodes = sum(len(nodes) for _, _, nodes in w.members)
        os.environ.update(RANK=str(rank), WORLD_SIZE=str(w.size),
                          MASTER_ADDR=w.master_addr,
                          MASTER_PORT=str(w.master_port),
                          ELASTIC_NNODES=str(nnodes))
        # The per-size overrides a launch at this size would have set.
        self.size_vars = size_config_vars(nnodes)
        os.environ.update(self.size_vars)

    def _pg_init(self, *args, **kwargs):
        """init_process_group(), noting the sockets it opened: the
        process group's (Gloo connects every pair at once), and its
        rendezvous's."""
        from . import inplace

        before = inplace.socket_inodes()
        init_process_group(*args, **kwargs)
        self._pg_socks = {fd: ino for fd, ino in
                          inplace.socket_inodes().items()
                          if before.get(fd) != ino}
        port = os.environ.get("MASTER_PORT", "")
        self._store_port = self._world.master_port if self._world else \
            int(port) if port.isdigit() else None

    def _on_world(self, w):
        """From the channel's reader: a world that names nodes lost ends
        the old process group's connections, so that every survivor's
        collective fails at once (not only those blocked on a lost peer:
        the others wait on a survivor that has stopped waiting) and
        :meth:`recover` takes them into it.  The group is left anyway."""
        from . import inplace

        if w.lost and w.path == "in-place":
            self.cut += inplace.shutdown_sockets(self._pg_socks,
                                                 self._store_port)

    def _sync(self, src, survived):
        """Every rank of the new world takes src's state, or, when the
        survivors did not all stop after the same step, the state of the
        first that went furthest."""
        step = int(self.position.get("step", 0)) if survived else -1
        t = _hold(torch.tensor([step, -step if survived else -(2**62)],
                               dtype=torch.int64))
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        top = int(t[0].item())
        if top >= 0 and top != -int(t[1].item()):
            # A peer died in the middle of a step's collectives: those
            # whose all-reduce had completed (every rank's part in it)
            # went on to the next step, the others did not.  The step
            # is whole on the first: all take its state.
            mine = dist.get_rank() if survived and step == top \
                else dist.get_world_size()
            v = _hold(torch.tensor([mine], dtype=torch.int64))
            dist.all_reduce(v, op=dist.ReduceOp.MIN)
            src = int(v.item())
        for name in sorted(self._objs):
            obj = self._objs[name]
            if isinstance(obj, torch.nn.Module):
                for v in obj.state_dict().values():
                    dist.broadcast(_hold(v), src)
            else:
                state = _broadcast_object(
                    obj.state_dict() if dist.get_rank() == src else None, src)
                if dist.get_rank() != src:
                    obj.load_state_dict(state)
        box = _broadcast_object(
            {"position": self.position, "rng": torch.get_rng_state()}
            if dist.get_rank() == src else None, src)
        if dist.get_rank() != src:
            self.position = dict(box["position"])
            torch.set_rng_state(box["rng"])

    def _joined(self):
        self.world_no = self._world.number
        self.client.world = self.world_no
        self.joining = False
        self.client.joined(self.world_no, self.position.get("step", 0))
