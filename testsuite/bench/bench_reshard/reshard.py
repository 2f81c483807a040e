#!/usr/bin/env python3
"""One rank of make bench-reshard: a sharded model of a given size, saved
and loaded through slurm_elastic.sharded (PyTorch's DCP).

    reshard.py MODE MB DIR

MODE save: train a step, then checkpoint: synchronously (the stall is the
whole save), then async (the stall is the copy to memory, or the part of
it the next step's forward and backward did not hide; the write goes on
beside 5 training steps), into DIR, 3 times each (the medians).  MODE load: load and reshard the
newest checkpoint of DIR at this world's size.  MODE heal: replica 0
(the first half of the ranks) trains a step; replica 1 takes its state
from replica 0 over the world's transport, then every rank loads the
same state from DIR for comparison: from the page cache, then cold (its
pages dropped first, as on a node that did not write it).  MB: the parameters plus the Adam
state, in MB, over the whole world.  The model is sharded by FSDP2 where
fully_shard runs on the CPU (HSDP for heal: replicated across the two
halves, sharded inside each), by tensor parallel otherwise.

Rank 0 prints "reshard: KEY=VALUE ..." lines for bench_reshard.
"""

import datetime
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist

import slurm_elastic.torch as et
from slurm_elastic import sharded

for _m in ("TypedStorage is deprecated", "DTensor random operators",
           "`torch.distributed.reduce_op` is deprecated"):
    warnings.filterwarnings("ignore", message=_m)

WIDTH = 1024  # a layer is WIDTH x WIDTH floats (4 MiB); Adam holds 2 more
REPS = 3


def median(xs):
    return sorted(xs)[len(xs) // 2]


def build(mb, mesh, how):
    """Layers for mb MB of parameters and Adam state (3 copies)."""
    layers = max(1, round(mb * 2**20 / (3 * 4 * (WIDTH * WIDTH + WIDTH))))
    model = torch.nn.Sequential(*(torch.nn.Linear(WIDTH, WIDTH)
                                  for _ in range(layers)))
    if how == "tp":
        from torch.distributed.tensor.parallel import (ColwiseParallel,
                                                       RowwiseParallel,
                                                       parallelize_module)
        plan = {str(i): ColwiseParallel() if i % 2 == 0 else RowwiseParallel()
                for i in range(layers - layers % 2)}
        parallelize_module(model, mesh["shard"], plan)
    else:
        from torch.distributed.fsdp import fully_shard
        for m in model:
            fully_shard(m, mesh=mesh)
        fully_shard(model, mesh=mesh)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, foreach=False)
    return model, opt


def step(model, opt):
    x = torch.randn(8, WIDTH)
    opt.zero_grad(set_to_none=True)
    model(x).pow(2).mean().backward()
    opt.step()


def state_bytes(state):
    """This rank's bytes of model and optimizer state."""
    ts = sharded._state_tensors(state)[1]
    return sum(t.numel() * t.element_size() for t in ts)


def total(n):
    t = torch.tensor([float(n)], dtype=torch.float64)
    dist.all_reduce(t)
    return t.item()


def checksum(state):
    """This rank's sum of its model and optimizer state."""
    ts = sharded._state_tensors(state)[1]
    return sum(float(t.double().sum()) for t in ts)


def same_as_replica0(state, mesh):
    """Does every rank hold what the rank of replica 0 at its place holds?"""
    c = torch.tensor([checksum(state)], dtype=torch.float64)
    lo, hi = c.clone(), c.clone()
    g = mesh["replica"].get_group()
    dist.all_reduce(lo, op=dist.ReduceOp.MIN, group=g)
    dist.all_reduce(hi, op=dist.ReduceOp.MAX, group=g)
    ok = torch.tensor([1.0 if lo.item() == hi.item() else 0.0])
    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
    return ok.item() == 1.0


def drop_pages(path):
    """Drop the page cache of a checkpoint's files: its load then reads
    the disk, as a joiner on another node would (a clean page is dropped
    whoever asks)."""
    for e in os.scandir(path):
        fd = os.open(e.path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def say(rank, **kv):
    if rank == 0:
        print("reshard: " + " ".join("%s=%s" % (k, v if not isinstance(v, float)
                                                else "%.4f" % v)
                                     for k, v in kv.items()), flush=True)


def main():
    mode, mb, d = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    et.init_process_group("gloo", timeout=datetime.timedelta(seconds=600))
    rank, world = dist.get_rank(), dist.get_world_size()
    from torch.distributed.device_mesh import init_device_mesh
    rep = 2 if mode == "heal" else 1
    mesh = init_device_mesh("cpu", (rep, world // rep),
                            mesh_dim_names=("replica", "shard"))
    how = "fsdp" if sharded.fsdp_runs_on("cpu") else "tp"
    model, opt = build(mb, mesh if how == "fsdp" and rep > 1 else
                       (mesh["shard"] if how == "fsdp" else mesh), how)
    state = sharded.TrainState(model, opt)
    ckpt = sharded.Checkpointer(d)
    step(model, opt)
    nbytes = total(state_bytes(state))
    if mode == "save":
        # Each kind REPS times, the median: a save's first call sets up
        # what the next ones reuse (DCP's planner, the async thread).
        syncs, stalls, totals = [], [], []
        for i in range(REPS):
            dist.barrier()
            t0 = time.time()
            ckpt.save(state, 1 + 2 * i, wait=True)
            syncs.append(time.time() - t0)
            step(model, opt)
            dist.barrier()
            before = checksum(state)
            t0 = time.time()
            ckpt.save(state, 2 + 2 * i)
            for _ in range(5):
                step(model, opt)
            ckpt.wait()
            totals.append(time.time() - t0)
            # The step loop's stall: save() and, where the copy to memory
            # goes on beside the next step, the optimizer's wait for it.
            stalls.append([d["stall"] for d in ckpt.completed()
                           if d["async"]][-1])
        # The last async save holds the state as it was at save(), not as
        # the 5 steps beside its copy and write left it.
        ckpt.load(state)
        ok = torch.tensor([1.0 if checksum(state) == before else 0.0])
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        say(rank, mode=mode, how=how, world=world, bytes=int(nbytes),
            sync=median(syncs), stall=median(stalls),
            async_total=median(totals), first_stall=stalls[0],
            exact="yes" if ok.item() == 1.0 else "no")
    elif mode == "load":
        dist.barrier()
        t0 = time.time()
        path = ckpt.load(state)
        load_s = time.time() - t0
        say(rank, mode=mode, how=how, world=world, bytes=int(nbytes),
            load=load_s, path=os.path.basename(path or "none"))
    else:
        replica = mesh["replica"].get_local_rank()
        if replica == 1:  # a joiner: its own state is not the world's
            with torch.no_grad():
                for p in model.parameters():
                    (p.to_local() if hasattr(p, "to_local") else p).add_(1.0)
        dist.barrier()
        t0 = time.time()
        got = total(sharded.heal(state, mesh, src=0, dim="replica"))
        heal_s = time.time() - t0
        same = same_as_replica0(state, mesh)
        loads = []
        for cold in (False, True):
            if cold:
                drop_pages(ckpt.newest())
            dist.barrier()
            t0 = time.time()
            ckpt.load(state)
            loads.append(time.time() - t0)
        say(rank, mode=mode, how=how, world=world, bytes=int(nbytes),
            healed_bytes=int(got), heal=heal_s, load=loads[0],
            load_cold=loads[1], same="yes" if same else "no")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
