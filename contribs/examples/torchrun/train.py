#!/usr/bin/env python3
"""A typical torchrun training script, made elastic by one hook.

Launched by ``torchrun --nproc_per_node=N train.py`` or, on a slurm-elastic
cluster, by ``elastic-run --nproc-per-node=N train.py``: both set RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT, and
the script reads nothing else.  Everything marked ``# slurm-elastic`` is
the hook that README.md describes; the rest is what a torchrun script
already has.

The model is a linear regression on a fixed synthetic data set (gloo on
CPU; NCCL on GPUs unchanged).  The data is sharded DistributedSampler-style:
each epoch is one seeded permutation, each step takes the next
``--global-batch`` samples of it and rank r takes its slice.  Unlike
torch's DistributedSampler the position is kept in samples, not in steps of
one world size, so a checkpoint resumes at any world size without skipping
or repeating a sample.  With ``--sample-log-dir`` each rank logs the
sample ids it trained on (``step epoch id...`` per line), as
contribs/examples/pytorch/check_samples.py reads them.
"""

import argparse
import datetime
import glob
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import slurm_elastic  # slurm-elastic: the event handler (SIGURG, SIGTERM)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=2048)
    p.add_argument("--features", type=int, default=8)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--global-batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--checkpoint-dir", default="checkpoints")
    p.add_argument("--sample-log-dir")
    p.add_argument("--step-sleep", type=float, default=0.0,
                   help="seconds of simulated compute per step")
    return p.parse_args()


def sharded_batches(n, global_batch, world, rank, epoch, seed, start):
    """DistributedSampler-like: rank's slice of each global batch of the
    epoch's permutation, from sample position START of the epoch."""
    g = torch.Generator().manual_seed(seed * 1000003 + epoch)
    order = torch.randperm(n, generator=g)
    for off in range(start, n, global_batch):
        batch = order[off:off + global_batch]
        yield len(batch), torch.tensor_split(batch, world)[rank]


def main():
    args = parse_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])

    g = torch.Generator().manual_seed(args.seed)
    w_true = torch.randn(args.features, 1, generator=g)
    x = torch.randn(args.samples, args.features, generator=g)
    y = x @ w_true + 0.1 * torch.randn(args.samples, 1, generator=g)

    torch.manual_seed(args.seed)
    model = torch.nn.Linear(args.features, 1)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    epoch, pos, step = 0, 0, 0

    # slurm-elastic: resume from the newest checkpoint, this job's or the
    # previous one's (ELASTIC_PREV_CHECKPOINT); under torchrun, the same
    # --checkpoint-dir.
    ckpt_dir = slurm_elastic.checkpoint_dir() or args.checkpoint_dir
    found = []
    for d in (slurm_elastic.prev_checkpoint(), ckpt_dir):
        if d and os.path.isdir(d):
            found += glob.glob(os.path.join(glob.escape(d), "ckpt-*.pt"))
        elif d and os.path.isfile(d):
            found.append(d)
    if found:
        ck = torch.load(max(found, key=os.path.basename))
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        epoch, pos, step = ck["epoch"], ck["pos"], ck["step"]

    ddp = DDP(model)
    if rank == 0 and not found:
        print("train: initial loss %.6f" % ((model(x) - y) ** 2).mean().item())
    if rank == 0:
        print("train: world %d (local rank %d of %s) %s at epoch %d step %d"
              % (world, local_rank, os.environ.get("LOCAL_WORLD_SIZE"),
                 "resumed from %s" % max(found, key=os.path.basename)
                 if found else "fresh start", epoch, step), flush=True)
    log = None
    if args.sample_log_dir:
        os.makedirs(args.sample_log_dir, exist_ok=True)
        log = open(os.path.join(args.sample_log_dir, "samples.rank%d.world%d.pid%d.log"
                                % (rank, world, os.getpid())), "a")

    def save():  # rank 0 writes; the file appears whole or not at all
        path = os.path.join(ckpt_dir, "ckpt-%08d.pt" % step)
        if rank == 0:
            os.makedirs(ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "epoch": epoch, "pos": pos, "step": step}, path + ".tmp")
            os.replace(path + ".tmp", path)
        dist.barrier()
        return path

    while epoch < args.epochs:
        for n_global, mine in sharded_batches(args.samples, args.global_batch,
                                              world, rank, epoch, args.seed, pos):
            opt.zero_grad()
            loss = ((ddp(x[mine]) - y[mine]) ** 2).sum() * world / n_global
            loss.backward()
            opt.step()
            step += 1
            pos += n_global
            if log:
                log.write("%d %d %s\n" % (step, epoch, " ".join(map(str, mine.tolist()))))
                log.flush()
            if args.step_sleep:
                time.sleep(args.step_sleep)

            # slurm-elastic: the checkpoint hook.  All ranks agree (one
            # tiny all_reduce) so that they stop after the same step.
            stop = torch.tensor([int(slurm_elastic.elastic_event_detected())])
            dist.all_reduce(stop, op=dist.ReduceOp.MAX)
            if stop.item():
                path = save()
                if rank == 0:
                    print("train: elastic event: checkpoint %s at epoch %d step %d, "
                          "exiting" % (path, epoch, step), flush=True)
                slurm_elastic.exit_for_event()  # status 75: relaunch me
        epoch, pos = epoch + 1, 0
        if rank == 0:
            full = ((model(x) - y) ** 2).mean().item()
            print("train: epoch %d done, step %d, loss %.6f" % (epoch, step, full),
                  flush=True)
    save()
    if rank == 0:
        print("train: done, %d steps, loss %.6f"
              % (step, ((model(x) - y) ** 2).mean().item()), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
    slurm_elastic.exit_rank(0)  # slurm-elastic: no teardown, torch may abort in it
