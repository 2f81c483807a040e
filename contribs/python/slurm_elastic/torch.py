"""What a PyTorch rank of an elastic job needs beyond the event flag.

At a preemption the ranks get the event signal a few milliseconds apart,
some a step before others: a rank that stops alone leaves the others
waiting in the next collective.  :func:`event_agreed` makes the ranks agree
in one small all-reduce, so that every rank stops after the same step::

    from slurm_elastic.torch import event_agreed

    if event_agreed():                # every rank, every step
        ...checkpoint on rank 0, barrier, exit_for_event()
"""

import torch
import torch.distributed as dist

from . import elastic_event_detected

__all__ = ["event_agreed"]


def event_agreed(group=None) -> bool:
    """True on every rank of group (default: the whole world) when any of
    them saw the elastic event, False on every rank otherwise.

    One all-reduce (MAX) of one number: call it at the same point of every
    step on every rank, as any collective.  With the NCCL backend the
    number lives on the current CUDA device.
    """
    device = "cpu"
    if dist.get_backend(group) == "nccl":
        device = torch.device("cuda", torch.cuda.current_device())
    flag = torch.tensor([1 if elastic_event_detected() else 0],
                        dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=group)
    return bool(flag.item())
