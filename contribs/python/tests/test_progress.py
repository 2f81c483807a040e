"""Unit tests of slurm_elastic's progress reports (_progress.py)."""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import unittest

from slurm_elastic import _progress as pg

# The record libelastic writes for the same values (test_progress_rec.c).
C_RECORD = (b"v1 2 120 98765 r 4242 3 1500" + b" " * 35 + b"\n")


def _child(code, env):
    """Run code in a fresh interpreter (the module's state is per process),
    return its stdout and stderr."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    e = dict(os.environ, PYTHONPATH=here, **env)
    # A rank starts with SIGQUIT at its default; a test run in the
    # background of a shell without job control inherits it ignored.
    r = subprocess.run([sys.executable, "-c", code], env=e,
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=lambda: signal.signal(signal.SIGQUIT,
                                                        signal.SIG_DFL))
    if r.returncode:
        raise AssertionError(r.stderr)
    return r.stdout, r.stderr


class Record(unittest.TestCase):
    def test_same_as_libelastic(self):
        self.assertEqual(pg.format_record(2, 120, 98765, "r", 4242, 3, 1500),
                         C_RECORD)
        self.assertEqual(len(C_RECORD), pg.REC_LEN)

    def test_too_long(self):
        with self.assertRaises(ValueError):
            pg.format_record(1, 10 ** 40, 10 ** 20, "r", 1, 3)


class Reports(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="test_progress.")
        self.d = os.path.join(self.top, "p")
        self.env = {"ELASTIC_PROGRESS_DIR": self.d, "RANK": "3",
                    "ELASTIC_RESTART_COUNT": "7"}

    def tearDown(self):
        shutil.rmtree(self.top)

    def read(self):
        with open(os.path.join(self.d, "rank.3"), "rb") as f:
            return f.read()

    def test_steps_and_saving(self):
        _child("import slurm_elastic as se\n"
               "se.progress(); se.progress(); se.progress(40)\n", self.env)
        rec = self.read()
        self.assertEqual(len(rec), 64)
        w = rec.split()
        self.assertEqual(w[:3], [b"v1", b"7", b"40"])
        self.assertEqual(w[4], b"r")
        self.assertEqual(int(w[6]), int(signal.SIGQUIT))
        self.assertEqual(stat.S_IMODE(os.stat(self.d).st_mode), 0o700)
        _child("import slurm_elastic as se\n"
               "se.progress(5)\n"
               "with se.saving():\n"
               "    print(open('%s/rank.3').read().split()[4])\n"
               % self.d, self.env)
        self.assertEqual(self.read().split()[4], b"r")

    def test_saving_before_any_step_says_nothing(self):
        _child("import slurm_elastic as se\n"
               "with se.saving():\n"
               "    pass\n", self.env)
        self.assertFalse(os.path.exists(os.path.join(self.d, "rank.3")))

    def test_saving_is_reported(self):
        out, _ = _child("import slurm_elastic as se\n"
                        "se.progress()\n"
                        "with se.saving():\n"
                        "    print(open('%s/rank.3').read().split()[4])\n"
                        % self.d, self.env)
        self.assertEqual(out.strip(), "s")

    def test_save_times(self):
        # A save announced by saving() is timed; saved() reports one that
        # was not (an async save); the records after say it, in ms.
        _child("import time, slurm_elastic as se\n"
               "from slurm_elastic import _progress\n"
               "se.progress(1)\n"
               "with se.saving():\n"
               "    time.sleep(0.3)\n", self.env)
        self.assertGreaterEqual(int(self.read().split()[7]), 300)
        _child("import slurm_elastic as se\n"
               "from slurm_elastic import _progress\n"
               "se.progress(1); _progress.saved(2.5); se.progress(2)\n",
               self.env)
        self.assertEqual(self.read().split()[7], b"2500")

    def test_stacks_on_sigquit(self):
        _, err = _child("import os, signal, slurm_elastic as se\n"
                        "se.progress()\n"
                        "os.kill(os.getpid(), signal.SIGQUIT)\n", self.env)
        self.assertIn("Current thread", err)

    def test_mpi_rank_without_rank(self):
        # Under mpirun there is no RANK: the MPI library's number names
        # the record; one that is not a number names nothing.
        env = dict(self.env, RANK="", OMPI_COMM_WORLD_RANK="3")
        _child("import slurm_elastic as se\nse.progress(9)\n", env)
        self.assertEqual(self.read().split()[2], b"9")
        env = dict(self.env, RANK="../x", PMIX_RANK="")
        _child("import slurm_elastic as se\nse.progress(9)\n", env)
        self.assertEqual(sorted(os.listdir(self.d)), ["rank.3"])

    def test_not_under_elastic_run(self):
        out, _ = _child("import slurm_elastic as se\n"
                        "se.progress(); print('fine')\n",
                        {"ELASTIC_PROGRESS_DIR": ""})
        self.assertEqual(out.strip(), "fine")
        self.assertFalse(os.path.exists(self.d))

    def test_foreign_directory_refused(self):
        os.mkdir(self.d, 0o755)
        os.chmod(self.d, 0o777)
        _, err = _child("import slurm_elastic as se\nse.progress()\n",
                        self.env)
        self.assertIn("no progress reports", err)
        self.assertFalse(os.path.exists(os.path.join(self.d, "rank.3")))
