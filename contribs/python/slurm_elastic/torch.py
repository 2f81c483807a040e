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

import torch
import torch.distributed as dist

import signal

from . import elastic_event_detected, elastic_signal, torch_store_fallback

__all__ = ["event_agreed", "init_process_group"]

# torch.distributed is loaded now: a torch without libuv needs USE_LIBUV=0
# before its first rendezvous.
torch_store_fallback()


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
    device = "cpu"
    if dist.get_backend(group) == "nccl":
        device = torch.device("cuda", torch.cuda.current_device())
    flag = torch.tensor([1 if elastic_event_detected() else 0],
                        dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=group)
    return bool(flag.item())
