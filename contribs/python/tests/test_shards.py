"""Unit tests of a sharded world's arithmetic (_shards.py): the sizes a
world may have, and the samples each rank takes at a position."""

import unittest

from slurm_elastic import _shards as sh


class Degree(unittest.TestCase):
    def test_multiples_pass(self):
        for world, tp in ((1, 1), (2, 2), (8, 2), (16, 8), (3, 1)):
            sh.check_degree(world, tp)
            self.assertEqual(sh.parallel_dims(world, tp), (world // tp, tp))

    def test_other_sizes_are_refused_naming_the_allowed(self):
        with self.assertRaises(ValueError) as c:
            sh.check_degree(3, 2)
        msg = str(c.exception)
        self.assertIn("world size 3 is not a multiple of the tensor-parallel "
                      "degree 2", msg)
        self.assertIn("--elastic-min=2 --elastic-step=2", msg)
        self.assertNotIn("\n", msg)

    def test_bad_degrees(self):
        for tp in (0, -1, 1 << 17, 2.0, True, "2"):
            with self.assertRaises(ValueError, msg=repr(tp)):
                sh.check_degree(4, tp)
        with self.assertRaises(ValueError):
            sh.check_degree(0, 1)


class Position(unittest.TestCase):
    def test_next_batch_never_crosses_an_epoch(self):
        self.assertEqual(sh.next_batch(0, 100, 32), (0, 0, 32))
        self.assertEqual(sh.next_batch(96, 100, 32), (0, 96, 100))
        self.assertEqual(sh.next_batch(100, 100, 32), (1, 0, 32))
        self.assertEqual(sh.next_batch(1050, 100, 32), (10, 50, 82))
        with self.assertRaises(ValueError):
            sh.next_batch(-1, 100, 32)

    def test_a_position_is_the_same_samples_at_any_world(self):
        # Walk an epoch at one size, stop, walk on at another: the
        # positions visited are those of a walk at one size.
        def walk(consumed, steps):
            seen = []
            for _ in range(steps):
                _, s, e = sh.next_batch(consumed, 100, 32)
                seen.append((s, e))
                consumed += e - s
            return seen, consumed
        a, c = walk(0, 2)
        b, _ = walk(c, 2)
        whole, _ = walk(0, 4)
        self.assertEqual(a + b, whole)

    def test_shares_cover_the_batch_once_as_tensor_split(self):
        for n in (0, 1, 7, 32, 33):
            for dp in (1, 2, 3, 4, 5):
                spans = [sh.share(n, r, dp) for r in range(dp)]
                self.assertEqual(spans[0][0], 0)
                self.assertEqual(spans[-1][1], n)
                for (s0, e0), (s1, _) in zip(spans, spans[1:]):
                    self.assertEqual(e0, s1)
                sizes = [e - s for s, e in spans]
                # torch.tensor_split: the first n % dp one longer.
                q, r = divmod(n, dp)
                self.assertEqual(sizes, [q + 1] * r + [q] * (dp - r))

    def test_share_bounds(self):
        for args in ((4, 2, 2), (4, -1, 2), (4, 0, 0), (-1, 0, 1)):
            with self.assertRaises(ValueError, msg=repr(args)):
                sh.share(*args)


if __name__ == "__main__":
    unittest.main()


class Replicas(unittest.TestCase):
    def test_dims(self):
        self.assertEqual(sh.replica_dims(8, 4, 2), (2, 2, 2))
        self.assertEqual(sh.replica_dims(4, 2), (2, 2, 1))
        with self.assertRaises(ValueError) as c:
            sh.replica_dims(6, 4)
        self.assertIn("not a multiple of the replica degree 4", str(c.exception))
        self.assertRaises(ValueError, sh.replica_dims, 8, 4, 3)

    def test_whole_replicas_leave_and_join(self):
        # 4 ranks, replicas of 2: the second replica leaves (preempted).
        self.assertIsNone(sh.replicas_kept(2, [0, 1, None, None], 2))
        # A replica joins: the old ranks keep their places.
        self.assertIsNone(sh.replicas_kept(2, [0, 1], 4))
        # The first leaves, the second becomes ranks 0 and 1: in place.
        self.assertIsNone(sh.replicas_kept(2, [-1, -1, 0, 1], 2))

    def test_every_replica_broken(self):
        # One rank of each replica leaves: shard 1 has no copy.
        self.assertEqual(sh.replicas_kept(2, [0, None, 1, None], 2),
                         "shard-1-lost")
        # One replica only (plain FSDP), a rank of it leaves.
        self.assertEqual(sh.replicas_kept(4, [0, 1, None, 2], 4),
                         "shard-2-lost")
        # A size the replicas do not divide.
        self.assertEqual(sh.replicas_kept(2, [0, 1, 2, None], 3),
                         "size-3-not-replicas-of-2")
        # A survivor moved to another place holds no shard there.
        self.assertEqual(sh.replicas_kept(2, [1, 0], 2), "shard-0-lost")

    def test_sources(self):
        # Replica 0 survived, replica 1 joined: every shard from 0.
        self.assertEqual(sh.replica_sources(2, [(0, 9), (1, 9), (-1, 0),
                                                (-1, 0)]), ([0, 0], 9, None))
        # Shard 0 survives in replica 1 only, shard 1 in replica 0 only.
        self.assertEqual(sh.replica_sources(2, [(-1, 0), (1, 5), (0, 5),
                                                (-1, 0)]), ([1, 0], 5, None))
        # A rank a step behind is no source.
        self.assertEqual(sh.replica_sources(2, [(0, 4), (1, 5), (0, 5),
                                                (1, 4)]), ([1, 0], 5, None))
        self.assertEqual(sh.replica_sources(2, [(0, 4), (1, 5)]),
                         (None, None, "shard-0-behind"))
        self.assertEqual(sh.replica_sources(2, [(1, 5), (1, 5)]),
                         (None, None, "shard-0-lost"))
        self.assertEqual(sh.replica_sources(2, [(-1, 0), (-1, 0)]),
                         (None, None, "no-survivor"))
        self.assertEqual(sh.replica_sources(2, [(0, 1), (1, 1), (0, 1)]),
                         (None, None, "size-3-not-replicas-of-2"))
