"""Unit tests of the checkpoint helpers of slurm_elastic."""

import os
import shutil
import tempfile
import unittest

import slurm_elastic as se


class Names(unittest.TestCase):
    def test_good(self):
        for name, step in [("ckpt-00000100.pt", 100), ("ckpt-42.bin", 42),
                           ("ckpt-7", 7), ("ckpt-0", 0),
                           ("ckpt-5.tar.gz", 5),
                           ("ckpt-999999999999999999", 999999999999999999)]:
            self.assertEqual(se.parse_checkpoint_name(name), step, name)

    def test_bad(self):
        for name in ["ckpt-", "ckpt-x", ".ckpt-1.pt", "ckpt-1.", "ckpt--1",
                     "ckpt-1x", "ckpt-1.p t", "ckpt-1.pt\n", "Ckpt-1",
                     "ckpt-0000000000000000001", "ckpt-1." + "a" * 260,
                     "ckpt-١", ""]:
            self.assertIsNone(se.parse_checkpoint_name(name), repr(name))


class Directory(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="test_ckpt_py.")
        self.env = {"ELASTIC_CHECKPOINT_DIR": self.d}

    def tearDown(self):
        shutil.rmtree(self.d)

    def put(self, name):
        with open(os.path.join(self.d, name), "w") as f:
            f.write("x")

    def test_list_and_newest(self):
        for n in ["ckpt-00000100.pt", "ckpt-42.bin", ".ckpt-200.pt.tmp.1",
                  "notes.txt", "ckpt-x"]:
            self.put(n)
        os.mkdir(os.path.join(self.d, "ckpt-7"))
        os.mkdir(os.path.join(self.d, "eval"))
        os.symlink(os.path.join(self.d, "ckpt-42.bin"),
                   os.path.join(self.d, "ckpt-300.pt"))
        cks = se.list_checkpoints(environ=self.env)
        self.assertEqual([c.step for c in cks], [7, 42, 100])
        self.assertEqual(cks[0].path, os.path.join(self.d, "ckpt-7"))
        self.assertTrue(cks[0].is_dir)
        self.assertFalse(cks[1].is_dir)
        self.assertEqual(se.list_checkpoints(self.d), cks)
        self.assertEqual(se.newest_checkpoint(environ=self.env),
                         os.path.join(self.d, "ckpt-00000100.pt"))
        # The first by name stands for a step written twice.
        self.put("ckpt-100.bin")
        self.assertEqual(se.newest_checkpoint(self.d),
                         os.path.join(self.d, "ckpt-00000100.pt"))
        self.put("ckpt-000000100")
        self.assertEqual(se.newest_checkpoint(self.d),
                         os.path.join(self.d, "ckpt-000000100"))

    def test_missing_or_unset(self):
        self.assertEqual(se.list_checkpoints(os.path.join(self.d, "no")), [])
        self.assertIsNone(se.newest_checkpoint(os.path.join(self.d, "no")))
        self.assertEqual(se.list_checkpoints(environ={}), [])
        self.assertIsNone(se.newest_checkpoint(environ={}))
        self.assertIsNone(se.newest_checkpoint(self.d))

    def test_checkpoint_path(self):
        self.assertEqual(se.checkpoint_path(100, environ=self.env),
                         os.path.join(self.d, "ckpt-00000100.pt"))
        self.assertEqual(se.checkpoint_path(100, self.d, ext=None),
                         os.path.join(self.d, "ckpt-00000100"))
        self.assertEqual(se.checkpoint_path(3, self.d, ext=".tar.gz"),
                         os.path.join(self.d, "ckpt-00000003.tar.gz"))
        # An existing one, whatever its name.
        self.put("ckpt-42.bin")
        self.assertEqual(se.checkpoint_path(42, self.d),
                         os.path.join(self.d, "ckpt-42.bin"))
        for bad in [-1, 1.5, "3", True, 10 ** 18]:
            with self.assertRaises(ValueError):
                se.checkpoint_path(bad, self.d)
        for ext in ["pt", ".p t", "./x", "."]:
            with self.assertRaises(ValueError):
                se.checkpoint_path(1, self.d, ext=ext)
        with self.assertRaises(se.ElasticEnvError):
            se.checkpoint_path(1, environ={})


if __name__ == "__main__":
    unittest.main()
