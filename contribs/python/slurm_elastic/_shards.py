"""The arithmetic of a sharded world, without torch: which sizes a world
may have, and which samples each rank takes at a data position.

A position is the global count of samples consumed since the start of
the training.  It does not depend on the world size: saved by N ranks, it
is resumed by M, and the next global batch is the same samples whatever
M is (only its split across the data-parallel ranks changes)."""

__all__ = ["check_degree", "parallel_dims", "next_batch", "replica_dims",
           "replica_sources", "replicas_kept", "share"]

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


# --- replicated shards, resized in place -----------------------------------
# A replica is `replica` consecutive ranks holding the whole state between
# them, a shard each; rank r holds shard r % replica of replica r //
# replica.  A world resized in place keeps its state when every shard has
# a live copy at the same place of some replica of the new world.


def replica_dims(world: int, replica: int, tp: int = 1):
    """(replicas, shard, tp): a world of replicas of `replica` ranks, each
    FSDP-sharded over `shard` groups of `tp` tensor-parallel ranks."""
    check_degree(replica, tp)
    check_degree(world, replica, "replica")
    return world // replica, replica // tp, tp


def replicas_kept(replica: int, new_of_old, size: int):
    """Seen from the world before a resize (every rank alive): None when
    the next world, of `size` ranks, where old rank o is new_of_old[o]
    (None or -1: it leaves), has a copy of every shard in place; else why
    not, in elastic-run's words (a "why=" token)."""
    if size < 1 or size % replica:
        return "size-%d-not-replicas-of-%d" % (size, replica)
    have = {n % replica for o, n in enumerate(new_of_old)
            if n is not None and 0 <= n < size and n % replica == o % replica}
    lost = [k for k in range(replica) if k not in have]
    return "shard-%d-lost" % lost[0] if lost else None


def replica_sources(replica: int, held):
    """Seen from the new world: held[r] = (shard, step) of what new rank r
    holds (shard -1: nothing, a joiner).  (sources, step, why): for each
    shard the replica whose copy every replica takes, those held in place
    at the furthest step any rank reached (a peer that died in a step may
    leave the survivors a step apart), and that step; or why not (None
    for sources and step): "shard-K-lost" (no copy in place), "shard-K-
    behind" (its copies a step behind another shard's)."""
    size = len(held)
    if size < 1 or size % replica:
        return None, None, "size-%d-not-replicas-of-%d" % (size, replica)
    steps = [st for k, st in held if k >= 0]
    if not steps:
        return None, None, "no-survivor"
    top, src = max(steps), [None] * replica
    for r, (k, st) in enumerate(held):
        if k == r % replica and st == top and src[k] is None:
            src[k] = r // replica
    if None in src:
        k = src.index(None)
        behind = any(h == k == r % replica for r, (h, _) in enumerate(held))
        return None, None, "shard-%d-%s" % (k, "behind" if behind else "lost")
    return src, top, None
