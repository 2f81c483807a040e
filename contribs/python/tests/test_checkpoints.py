"""Unit tests of the checkpoint helpers of slurm_elastic."""

import os
import shutil
import subprocess
import sys
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

    def test_only_ours(self):
        # Another user's file named like a newer checkpoint, and one of
        # ours that anyone may write, are not ours to resume from; another
        # user's directory where ours is looked for is refused.  (As root,
        # the files go to nobody and another uid, and a child lists them
        # as nobody.)
        root = os.geteuid() == 0
        uid, gid = (65534, 65534) if root else (os.geteuid(), os.getegid())
        os.chmod(self.d, 0o755)
        for n in ["ckpt-10.pt", "ckpt-20.pt", "ckpt-99999999.pt"]:
            self.put(n)
        os.chmod(os.path.join(self.d, "ckpt-20.pt"), 0o666)
        theirs = os.path.join(self.d, "theirs")
        os.mkdir(theirs)
        if root:
            os.chown(self.d, uid, gid)
            for n in ["ckpt-10.pt", "ckpt-20.pt"]:
                os.chown(os.path.join(self.d, n), uid, gid)
            os.chown(os.path.join(self.d, "ckpt-99999999.pt"), 54321, 54321)
            os.chown(theirs, 54321, 54321)
        else:
            os.chmod(os.path.join(self.d, "ckpt-99999999.pt"), 0o666)
            os.chmod(theirs, 0o777)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                if root:
                    os.setgroups([])
                    os.setgid(gid)
                    os.setuid(uid)
                out = [os.path.basename(se.newest_checkpoint(self.d))]
                try:
                    se.list_checkpoints(theirs)
                    out.append("listed")
                except PermissionError as e:
                    out.append("refused: " + str(e))
                try:
                    se.save_checkpoint({"x": 1}, 5, theirs)
                    out.append("saved")
                except PermissionError:
                    out.append("not saved")
                os.write(w, "|".join(out).encode())
            finally:
                os._exit(0)
        os.close(w)
        got = os.read(r, 4096).decode()
        os.close(r)
        os.waitpid(pid, 0)
        parts = got.split("|")
        self.assertEqual(parts[0], "ckpt-10.pt", got)
        self.assertTrue(parts[1].startswith("refused: checkpoint dir %s: "
                                            % theirs), got)
        self.assertIn("not used", parts[1])
        self.assertEqual(parts[2], "not saved", got)

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


class SaveLoad(unittest.TestCase):
    """save_checkpoint() writes whole checkpoints named for the steps
    done; load_checkpoint() reads what ELASTIC_PREV_CHECKPOINT names."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="test_save_py.")
        self.env = {"ELASTIC_CHECKPOINT_DIR": os.path.join(self.d, "new")}

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_round_trip(self):
        path = se.save_checkpoint({"step": 12, "w": [1.5]}, 12,
                                  environ=self.env)
        self.assertEqual(path, os.path.join(self.d, "new", "ckpt-00000012.pt"))
        # Nothing else left behind: no temporary file.
        self.assertEqual(os.listdir(os.path.join(self.d, "new")),
                         ["ckpt-00000012.pt"])
        self.assertEqual(se.newest_checkpoint(environ=self.env), path)
        env = dict(self.env, ELASTIC_PREV_CHECKPOINT=path)
        self.assertEqual(se.load_checkpoint(environ=env),
                         {"step": 12, "w": [1.5]})
        # Saved again at the same step: replaced whole.
        se.save_checkpoint({"step": 12, "w": [2.5]}, 12, environ=self.env)
        self.assertEqual(se.load_checkpoint(environ=env)["w"], [2.5])

    def test_fresh_start(self):
        for env in ({}, {"ELASTIC_PREV_CHECKPOINT": ""}):
            self.assertIsNone(se.load_checkpoint(environ=env))

    def test_failed_write_leaves_nothing(self):
        class Unpicklable:
            def __reduce__(self):
                raise TypeError("no")
        with self.assertRaises(Exception):
            se.save_checkpoint(Unpicklable(), 3, environ=self.env)
        self.assertEqual(os.listdir(os.path.join(self.d, "new")), [])

    def test_full_disk_raises(self):
        # A disk that fills during a save larger than the write buffers
        # (a file size limit stands in: EFBIG): the error reaches the
        # caller, the process lives on (torch's zip writer, failing
        # twice, once aborted it), and nothing is left behind.
        code = """
import os, resource, signal, sys
import slurm_elastic as se
try:
    import torch
    obj = {"w": torch.zeros(100000)}
except ImportError:
    obj = {"w": bytes(400000)}
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
try:
    se.save_checkpoint(obj, 5, directory=sys.argv[1])
    print("saved")
except OSError as e:
    print("raised", e.errno)
print(sorted(os.listdir(sys.argv[1])))
"""
        d = os.path.join(self.d, "full")
        p = subprocess.run([sys.executable, "-c", code, d],
                           env=dict(os.environ), capture_output=True,
                           text=True, timeout=120)
        self.assertEqual((p.returncode, p.stdout.split("\n")[:2]),
                         (0, ["raised 27", "[]"]), p.stderr[-2000:])

    def test_bad_step(self):
        for step in (-1, 1.5, "3", True):
            with self.assertRaises(ValueError):
                se.save_checkpoint({}, step, environ=self.env)


class InitProcessGroup(unittest.TestCase):
    """The event comes while a rank waits in the rendezvous: with
    slurm_elastic.torch.init_process_group it is held back, the
    rendezvous completes, and the event is seen after it."""

    def test_event_during_rendezvous(self):
        import subprocess
        import sys
        code = """
import os, signal, socket, subprocess, sys, tempfile
import torch.distributed as dist
import slurm_elastic as se
from slurm_elastic.torch import init_process_group
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="1", WORLD_SIZE="2")
marker = tempfile.mktemp()
# Once this rank is in the rendezvous (the marker, then half a second):
# the event, then half a second later rank 0.
master = "import torch.distributed as d; d.init_process_group('gloo'); d.barrier(); d.destroy_process_group()"
helper = subprocess.Popen(["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.05; done; sleep 0.5; '
                           'kill -URG "$2"; sleep 0.5; RANK=0 exec "$3" -c "$4"', "sh",
                           marker, str(os.getpid()), sys.executable, master])
open(marker, "w").close()
init_process_group("gloo")
print("rendezvous done", se.elastic_event_detected())
dist.barrier()
dist.destroy_process_group()
helper.wait()
os.unlink(marker)
"""
        env = dict(os.environ)
        env.pop("ELASTIC_SIGNAL", None)
        p = subprocess.run([sys.executable, "-c", code], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((p.returncode, p.stdout.strip()),
                         (0, "rendezvous done True"), p.stderr)


class InPlaceSync(unittest.TestCase):
    """InPlace's state sync after a crash in the middle of a step: the
    survivors whose all-reduce completed stepped on; all take the state
    of the first of them, not the launcher's source (3 gloo ranks)."""

    RANK = """
import os, sys, torch, torch.distributed as dist
from slurm_elastic.torch import InPlace
rank, store, steps, src = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
dist.init_process_group("gloo", init_method="file://" + store,
                        rank=rank, world_size=3)
el = InPlace.__new__(InPlace)
el.client, el._world = None, None
m = torch.nn.Linear(2, 1)
with torch.no_grad():
    for p in m.parameters():
        p.fill_(float(rank))
el._objs = {"model": m}
el.position = {"step": int(steps.split(",")[rank])}
el._sync(src, survived=True)
print(el.position["step"], float(m.weight[0, 0]), float(m.bias[0]))
dist.destroy_process_group()
"""

    def sync(self, steps, src):
        # A file store: no port another process could take first.
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        store = os.path.join(d, "store")
        env = dict(os.environ)
        env.pop("ELASTIC_INPLACE_ADDR", None)
        procs = [subprocess.Popen([sys.executable, "-c", self.RANK, str(r),
                                   store, steps, str(src)], env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for r in range(3)]
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
            outs.append(out.strip())
        return outs

    def test_same_step_takes_src(self):
        self.assertEqual(self.sync("7,7,7", 2), ["7 2.0 2.0"] * 3)

    def test_furthest_taken(self):
        # Ranks 1 and 2 completed step 6; rank 0 did not: rank 1's.
        self.assertEqual(self.sync("5,6,6", 0), ["6 1.0 1.0"] * 3)
        self.assertEqual(self.sync("6,5,5", 2), ["6 0.0 0.0"] * 3)


class TorchStoreFallback(unittest.TestCase):
    """torch_store_fallback(): USE_LIBUV=0 exactly when this torch needs
    it, never over the user's own setting, nothing before torch is
    loaded; after it a rendezvous from the environment works."""

    def run_code(self, code, **env_set):
        import subprocess
        import sys
        env = dict(os.environ)
        env.pop("USE_LIBUV", None)
        env.pop("ELASTIC_SIGNAL", None)
        env.update(env_set)
        p = subprocess.run([sys.executable, "-c", code], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip()

    def test_without_torch(self):
        self.assertEqual(self.run_code(
            "import os, slurm_elastic as se\n"
            "print(se.torch_store_fallback(), os.environ.get('USE_LIBUV'))"),
            "False None")

    def test_user_setting_kept(self):
        self.assertEqual(self.run_code(
            "import os, torch.distributed, slurm_elastic as se\n"
            "print(se.torch_store_fallback(), os.environ['USE_LIBUV'])",
            USE_LIBUV="1"), "False 1")

    def test_rendezvous_works(self):
        out = self.run_code("""
import os, socket
import torch.distributed as dist
import slurm_elastic
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
dist.init_process_group("gloo")
dist.barrier()
dist.destroy_process_group()
print("ok", os.environ.get("USE_LIBUV"))
""")
        self.assertIn(out, ("ok None", "ok 0"))


class EventAgreed(unittest.TestCase):
    """event_agreed() on a real (one-rank, gloo) process group, and the
    event status of exit_for_event()."""

    def test_one_rank_world(self):
        import subprocess
        import sys
        code = """
import os, signal, socket, time
import torch.distributed as dist
import slurm_elastic as se
from slurm_elastic.torch import event_agreed, init_process_group
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
# Ours, not torch's: torch's threads must never take the signal (one
# that did broke its store, and the process hung at its end).
init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                   rank=0, world_size=1)
before = event_agreed()
os.kill(os.getpid(), signal.SIGURG)
time.sleep(0.01)
print(before, event_agreed())
dist.destroy_process_group()
se.exit_for_event()
"""
        env = dict(os.environ)
        env.pop("ELASTIC_SIGNAL", None)
        p = subprocess.run([sys.executable, "-c", code], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((p.returncode, p.stdout.strip()),
                         (se.EXIT_EVENT, "False True"), p.stderr)
        self.assertEqual(se.EXIT_EVENT, 75)

    def test_tensors_held_until_destroyed(self):
        # torch before 2.8 joins a Gloo group's workers with the GIL held;
        # a worker freeing the last reference to our flag would need it.
        import subprocess
        import sys
        code = """
import gc, socket, weakref
import torch.distributed as dist
import slurm_elastic.torch as st
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
st.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                      rank=0, world_size=1)
for _ in range(20):
    st.event_agreed()
flags = [weakref.ref(t) for t in st._held]
gc.collect()
alive = sum(r() is not None for r in flags)
st.destroy_process_group()
gc.collect()
print(len(flags), alive, sum(r() is not None for r in flags))
"""
        p = subprocess.run([sys.executable, "-c", code], env=dict(os.environ),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "16 16 0"),
                         p.stderr)
