"""The arithmetic of a sharded world, without torch: which sizes a world
may have, and which samples each rank takes at a data position.

A position is the global count of samples consumed since the start of
the training.  It does not depend on the world size: saved by N ranks, it
is resumed by M, and the next global batch is the same samples whatever
M is (only its split across the data-parallel ranks changes)."""

__all__ = ["check_degree", "parallel_dims", "next_batch", "share"]

_DEGREE_MAX = 1 << 16


def check_degree(world: int, degree: int, what: str = "tensor-parallel") -> None:
    """Raise ValueError, in one line naming the sizes allowed, unless a
    world of `world` ranks holds whole groups of `degree` ranks."""
    if not isinstance(degree, int) or isinstance(degree, bool) or \
            not 1 <= degree <= _DEGREE_MAX:
        raise ValueError("%s degree %r: a whole number from 1 to %d"
                         % (what, degree, _DEGREE_MAX))
    if not isinstance(world, int) or world < 1:
        raise ValueError("world size %r: a whole number of at least 1"
                         % (world,))
    if world % degree:
        raise ValueError(
            "world size %d is not a multiple of the %s degree %d: give the "
            "job sizes that are (ranks per node x nodes; with one rank per "
            "node, sbatch --elastic-min=%d --elastic-step=%d)"
            % (world, what, degree, degree, degree))


def parallel_dims(world: int, tp: int = 1):
    """(dp, tp): the data-parallel and tensor-parallel sizes of a world
    of `world` ranks with tensor-parallel groups of `tp` ranks."""
    check_degree(world, tp)
    return world // tp, tp


def next_batch(consumed: int, samples: int, global_batch: int):
    """(epoch, start, end) of the next global step at position consumed:
    the ids order[start:end] of the epoch's order.  A step never crosses
    an epoch's end: the last one of an epoch may be short."""
    if samples < 1 or global_batch < 1 or consumed < 0:
        raise ValueError("samples and global batch must be at least 1, the "
                         "position at least 0")
    epoch, offset = divmod(consumed, samples)
    return epoch, offset, min(offset + global_batch, samples)


def share(n: int, dp_rank: int, dp_size: int):
    """(start, end) of data-parallel rank dp_rank's share of a global
    batch of n samples split over dp_size ranks, as torch.tensor_split
    splits it (the first n % dp_size shares one longer)."""
    if dp_size < 1 or not 0 <= dp_rank < dp_size or n < 0:
        raise ValueError("data-parallel rank %r of %r: out of range"
                         % (dp_rank, dp_size))
    q, r = divmod(n, dp_size)
    start = dp_rank * q + min(dp_rank, r)
    return start, start + q + (1 if dp_rank < r else 0)
