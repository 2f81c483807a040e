"""DCP checkpoints of a sharded world (slurm_elastic.sharded.Checkpointer):
a directory per save, written under a hidden name and renamed once whole,
async saves whose copy to memory runs beside the next step where torch
allows it."""

import os
import shutil
import sys
import threading
import time
from concurrent.futures import Future

import torch
import torch.distributed as dist

from . import _progress
from . import (_own_dir, checkpoint_dir, checkpoint_path, list_checkpoints,
               parse_checkpoint_name, prev_checkpoint, saving)

__all__ = ["Checkpointer"]


def _is_dcp(path) -> bool:
    return os.path.isfile(os.path.join(path, ".metadata"))


class Checkpointer:
    """DCP checkpoints of a sharded world in the checkpoint dir (default
    ELASTIC_CHECKPOINT_DIR).  Create it on every rank after the process
    group: its saves run on a Gloo group of their own, so that an async
    save's last steps never meet the training's collectives.

    save() with async_save (the default) returns once the copy of the
    state to memory is under way: where DCP takes a copy that is not done
    yet (its async_stager: Debian unstable's torch, not 2.6), the copy
    runs beside the next step's forward and backward, and a TrainState's
    optimizer waits for it before its next step (the state changes there,
    not before; change it otherwise only after wait()); else save()
    returns once copied.  The
    write goes on beside the training and is renamed into place when
    done.  The next save(), wait() and load() wait for it.  completed()
    says what each save cost: its stall of the step loop (the save's and
    the optimizer's wait), its whole time and what this rank wrote."""

    def __init__(self, directory=None, async_save=True, log=sys.stderr):
        import torch.distributed.checkpoint as dcp
        self.dcp = dcp
        self.directory = directory or checkpoint_dir()
        self.async_save = async_save and hasattr(dcp, "async_save")
        self.log = log
        self.pending = self.writer = None
        self.saved = None  # the path of the newest save that completed
        self._done = []
        self._held = 0.0  # the optimizer's wait for the copy under way
        self._hook = self._staging = None
        self.renew()

    def renew(self, drop=False):
        """After the process group changed (a resize in place): the saves'
        group in the new one.  An async save under way is waited for, or
        with drop (its world broke) forgotten: its hidden directory is
        never renamed into place."""
        if drop:
            self.pending = None
        self.wait()
        self.pg = dist.new_group(backend="gloo")
        self.rank = dist.get_rank()

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
                w = self._writer(tmp)
                res = self.dcp.async_save(sd, checkpoint_id=tmp,
                                          storage_writer=w,
                                          process_group=self.pg)
                # With a copy under way, DCP answers both futures.
                fut = getattr(res, "upload_completion", res)
                self.pending = (fut, tmp, final, step, t0, time.time() - t0)
                self._hold(state, w.staging)
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

    def _hold(self, state, staging):
        """The optimizer's next step waits for the copy under way (a
        TrainState's; else save() waits for it)."""
        self._unhook()
        if staging is None or staging.done():
            return
        opt = getattr(state, "optimizer", None)
        if not hasattr(opt, "register_step_pre_hook"):
            self._copied(staging)
            return
        self._staging = staging
        self._hook = opt.register_step_pre_hook(self._pre_step)

    def _pre_step(self, *_):
        # Left in place (torch iterates over the hooks): a no-op once the
        # copy is waited for; the next save or wait() removes it.
        staging, self._staging = self._staging, None
        if staging is not None:
            self._copied(staging)

    def _unhook(self):
        if self._hook is not None:
            self._hook.remove()
        self._hook = self._staging = None

    def _copied(self, staging):
        t = time.time()
        try:
            staging.result()
        except Exception:  # noqa: BLE001 (the save's future says it)
            pass
        self._held += time.time() - t

    def wait(self):
        """Wait for the async save under way, if any; its path or None."""
        if self.pending is None:
            return self.saved
        fut, tmp, final, step, t0, stall = self.pending
        self.pending = None
        self._unhook()  # the copy is done once the write is
        stall, self._held = stall + self._held, 0.0
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
        seconds = time.time() - t0
        _progress.saved(seconds)
        self._done.append({"step": step, "path": final, "async": was_async,
                           "stall": stall, "seconds": seconds,
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

    import inspect
    # Does async_save take a copy not done yet (a future)?
    overlap = "async_stager" in inspect.signature(dcp.async_save).parameters

    class StagingWriter(dcp.FileSystemWriter):
        def __init__(self, path):
            super().__init__(path)
            self._bufs = {}
            self.staging = None  # the copy under way (a future)

        def stage(self, state_dict):
            if not overlap:
                return self._copy(state_dict, ())
            fut = self.staging = Future()

            def copy():
                try:
                    fut.set_result(self._copy(state_dict, ()))
                except BaseException as e:  # noqa: BLE001
                    fut.set_exception(e)
            threading.Thread(target=copy, name="slurm_elastic-staging",
                             daemon=True).start()
            return fut

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
