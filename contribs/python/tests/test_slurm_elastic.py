"""Unit tests of the slurm_elastic module (run by tap.py from make check)."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import unittest

import slurm_elastic as se

GOOD = {
    "RANK": "5",
    "LOCAL_RANK": "1",
    "WORLD_SIZE": "8",
    "LOCAL_WORLD_SIZE": "4",
    "GROUP_RANK": "1",
    "MASTER_ADDR": "node1",
    "MASTER_PORT": "29500",
    "ELASTIC_JOB_ID": "4242",
    "ELASTIC_RESTART_COUNT": "2",
    "ELASTIC_NNODES": "2",
    "ELASTIC_PREV_NNODES": "3",
    "ELASTIC_CHECKPOINT_DIR": "/ck/4242",
    "ELASTIC_PREV_CHECKPOINT": "/ck/4242/step-100",
}
REQUIRED = [
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
    "MASTER_ADDR", "MASTER_PORT", "ELASTIC_JOB_ID", "ELASTIC_RESTART_COUNT",
    "ELASTIC_NNODES",
]


def env(**changes):
    """GOOD with changes; a value of None removes the variable."""
    e = dict(GOOD)
    for k, v in changes.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


class World(unittest.TestCase):
    def fails(self, e, message):
        with self.assertRaises(se.ElasticEnvError) as cm:
            se.elastic_world(e)
        self.assertTrue(str(cm.exception).startswith(message),
                        "%r does not start with %r" % (str(cm.exception), message))
        self.assertIsInstance(cm.exception, ValueError)

    def test_good(self):
        w = se.elastic_world(GOOD)
        self.assertEqual(w, se.World(
            rank=5, local_rank=1, world_size=8, local_world_size=4,
            group_rank=1, nnodes=2, prev_nnodes=3, restart_count=2,
            job_id=4242, master_addr="node1", master_port=29500,
            checkpoint_dir="/ck/4242", prev_checkpoint="/ck/4242/step-100"))
        with self.assertRaises(AttributeError):
            w.rank = 0  # frozen

    def test_reads_os_environ_by_default(self):
        saved = dict(os.environ)
        try:
            os.environ.update(GOOD)
            self.assertEqual(se.elastic_world().rank, 5)
            self.assertEqual(se.checkpoint_dir(), "/ck/4242")
            self.assertEqual(se.prev_checkpoint(), "/ck/4242/step-100")
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_limits(self):
        w = se.elastic_world(env(ELASTIC_JOB_ID="4294967295", MASTER_PORT="65535",
                                 WORLD_SIZE="2147483647", RANK="2147483646"))
        self.assertEqual((w.job_id, w.master_port, w.world_size, w.rank),
                         (4294967295, 65535, 2147483647, 2147483646))
        self.assertEqual(se.elastic_world(env(RANK="0007")).rank, 7)

    def test_optional(self):
        w = se.elastic_world(env(ELASTIC_PREV_NNODES=None,
                                 ELASTIC_CHECKPOINT_DIR=None,
                                 ELASTIC_PREV_CHECKPOINT=""))
        self.assertEqual(w.prev_nnodes, 0)
        self.assertIsNone(w.checkpoint_dir)
        self.assertIsNone(w.prev_checkpoint)

    def test_missing(self):
        for name in REQUIRED:
            with self.subTest(name=name):
                self.fails(env(**{name: None}), "%s is not set" % name)

    def test_garbage(self):
        for bad in ["-1", "+1", " 1", "1 ", "1k", "0x10", "1.5", "abc",
                    "1e3", "\u0663", "1_000", "\uff11"]:
            with self.subTest(value=bad):
                self.fails(env(WORLD_SIZE=bad),
                           "WORLD_SIZE=%s: not a whole number" % bad)
        self.fails(env(MASTER_PORT=""), "MASTER_PORT=: empty value")
        self.fails(env(MASTER_ADDR=""), "MASTER_ADDR=: empty value")
        self.fails(env(ELASTIC_PREV_NNODES=""),
                   "ELASTIC_PREV_NNODES=: empty value")

    def test_overflow(self):
        cases = [
            ("RANK", "2147483648", "RANK=2147483648: out of range"),
            ("WORLD_SIZE", "18446744073709551616",
             "WORLD_SIZE=18446744073709551616: out of range"),
            ("WORLD_SIZE", "9" * 40, "WORLD_SIZE=" + "9" * 40 + ": out of range"),
            ("WORLD_SIZE", "0", "WORLD_SIZE=0: out of range (allowed: 1"),
            ("ELASTIC_NNODES", "0", "ELASTIC_NNODES=0: out of range"),
            ("ELASTIC_JOB_ID", "0", "ELASTIC_JOB_ID=0: out of range"),
            ("ELASTIC_JOB_ID", "4294967296", "ELASTIC_JOB_ID=4294967296: out of range"),
            ("MASTER_PORT", "0", "MASTER_PORT=0: out of range"),
            ("MASTER_PORT", "65536",
             "MASTER_PORT=65536: out of range (allowed: 1 to 65535)"),
        ]
        for name, value, message in cases:
            with self.subTest(name=name, value=value):
                self.fails(env(**{name: value}), message)
        # A value is quoted at most 64 characters long, as libelastic does.
        with self.assertRaises(se.ElasticEnvError) as cm:
            se.elastic_world(env(RANK="9" * 100))
        self.assertEqual(str(cm.exception),
                         "RANK=" + "9" * 64 + ": out of range (allowed: 0 to 2147483647)")

    def test_string_lengths(self):
        self.assertEqual(len(se.elastic_world(env(MASTER_ADDR="a" * 255)).master_addr), 255)
        self.fails(env(MASTER_ADDR="a" * 256),
                   "MASTER_ADDR is too long (256 bytes; at most 255)")
        # Bytes, not characters: 128 two-byte characters are 256 bytes.
        self.fails(env(MASTER_ADDR="\u00e9" * 128), "MASTER_ADDR is too long (256 bytes")
        self.assertEqual(len(se.elastic_world(env(ELASTIC_CHECKPOINT_DIR="/" * 4095)).checkpoint_dir), 4095)
        self.fails(env(ELASTIC_CHECKPOINT_DIR="/" * 4096), "ELASTIC_CHECKPOINT_DIR is too long")
        self.fails(env(ELASTIC_PREV_CHECKPOINT="/" * 4096), "ELASTIC_PREV_CHECKPOINT is too long")
        with self.assertRaises(se.ElasticEnvError):
            se.checkpoint_dir({"ELASTIC_CHECKPOINT_DIR": "/" * 4096})

    def test_inconsistent(self):
        self.fails(env(RANK="8"), "RANK=8 is not below WORLD_SIZE=8")
        self.fails(env(LOCAL_RANK="4"), "LOCAL_RANK=4 is not below LOCAL_WORLD_SIZE=4")
        self.fails(env(LOCAL_WORLD_SIZE="9", LOCAL_RANK="0"),
                   "LOCAL_WORLD_SIZE=9 is above WORLD_SIZE=8")
        self.fails(env(GROUP_RANK="2"), "GROUP_RANK=2 is not below ELASTIC_NNODES=2")

    def test_checkpoint_helpers(self):
        self.assertEqual(se.checkpoint_dir({"ELASTIC_CHECKPOINT_DIR": "/x"}), "/x")
        self.assertIsNone(se.checkpoint_dir({}))
        self.assertIsNone(se.checkpoint_dir({"ELASTIC_CHECKPOINT_DIR": ""}))
        self.assertEqual(se.prev_checkpoint({"ELASTIC_PREV_CHECKPOINT": "/x/1"}), "/x/1")
        self.assertIsNone(se.prev_checkpoint({}))
        self.assertIsNone(se.prev_checkpoint({"ELASTIC_PREV_CHECKPOINT": ""}))


class SignalNames(unittest.TestCase):
    def test_good(self):
        for name, sig in [("URG", signal.SIGURG), ("WINCH", signal.SIGWINCH),
                          ("USR1", signal.SIGUSR1), ("USR2", signal.SIGUSR2),
                          ("HUP", signal.SIGHUP), ("INT", signal.SIGINT),
                          ("TERM", signal.SIGTERM)]:
            self.assertEqual(se.signal_from_name(name), sig)

    def test_bad(self):
        for bad in ["", "urg", "SIGURG", "URG ", " URG", "KILL", "STOP",
                    "23", "USR3", "CHLD", None, 23]:
            with self.subTest(name=bad):
                with self.assertRaises(ValueError) as cm:
                    se.signal_from_name(bad)
                self.assertIn("not an elastic event signal (allowed: URG, WINCH, "
                              "USR1, USR2, HUP, INT, TERM)", str(cm.exception))


def wait_detected(seconds=5.0):
    """Python runs handlers between bytecodes: poll briefly."""
    deadline = time.monotonic() + seconds
    while not se.elastic_event_detected() and time.monotonic() < deadline:
        time.sleep(0.001)
    return se.elastic_event_detected()


class Handler(unittest.TestCase):
    """In this process, where the import installed the handlers (make check
    runs us without ELASTIC_SIGNAL)."""

    def setUp(self):
        if "ELASTIC_SIGNAL" in os.environ:
            self.fail("unset ELASTIC_SIGNAL to run these tests")
        se.elastic_init()  # idempotent
        se.elastic_event_clear()

    tearDown = setUp

    def test_installed_at_import(self):
        self.assertIs(signal.getsignal(signal.SIGURG), se._handler)
        self.assertIs(signal.getsignal(signal.SIGTERM), se._handler)
        self.assertEqual(se.elastic_signal(), signal.SIGURG)

    def test_urg_sets_flag(self):
        self.assertFalse(se.elastic_event_detected())
        self.assertEqual(se.elastic_event_signal(), 0)
        os.kill(os.getpid(), signal.SIGURG)
        self.assertTrue(wait_detected())
        self.assertEqual(se.elastic_event_signal(), signal.SIGURG)
        # Sticky; a later signal does not replace the first.
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.01)
        self.assertTrue(se.elastic_event_detected())
        self.assertEqual(se.elastic_event_signal(), signal.SIGURG)
        se.elastic_event_clear()
        self.assertFalse(se.elastic_event_detected())
        self.assertEqual(se.elastic_event_signal(), 0)

    def test_term_is_an_event_and_does_not_kill(self):
        os.kill(os.getpid(), signal.SIGTERM)
        self.assertTrue(wait_detected())
        self.assertEqual(se.elastic_event_signal(), signal.SIGTERM)

    def test_detected_is_cheap(self):
        # A module variable read: a million calls take well under a second.
        t = time.monotonic()
        for _ in range(1000000):
            se.elastic_event_detected()
        self.assertLess(time.monotonic() - t, 1.0)

    def _child_after_signal(self, sig, setup):
        """Fork a child, run setup() in it, send it sig, then let it exit 0
        once the signal was surely sent.  Returns its wait status."""
        ready_r, ready_w = os.pipe()
        go_r, go_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                setup()
                os.write(ready_w, b"r")
                os.read(go_r, 1)
                # Let Python run a pending handler, as a worker would.
                for _ in range(100):
                    pass
            finally:
                os._exit(0)
        try:
            os.read(ready_r, 1)
            os.kill(pid, sig)
            os.write(go_w, b"g")
            return os.waitpid(pid, 0)[1]
        finally:
            for fd in (ready_r, ready_w, go_r, go_w):
                os.close(fd)

    def test_child_without_handler_survives_urg(self):
        for sig in (signal.SIGURG, signal.SIGWINCH):
            status = self._child_after_signal(
                sig, lambda: signal.signal(sig, signal.SIG_DFL))
            self.assertTrue(os.WIFEXITED(status), "child killed by %s" % sig)
            self.assertEqual(os.WEXITSTATUS(status), 0)
        # The check can fail: USR1 kills such a child (why URG is the default).
        status = self._child_after_signal(
            signal.SIGUSR1, lambda: signal.signal(signal.SIGUSR1, signal.SIG_DFL))
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGUSR1)

    def test_forked_child_with_inherited_handler_survives(self):
        # A DataLoader worker: forked, keeps the handler, even for TERM.
        for sig in (signal.SIGURG, signal.SIGTERM):
            status = self._child_after_signal(sig, lambda: None)
            self.assertTrue(os.WIFEXITED(status))
            self.assertEqual(os.WEXITSTATUS(status), 0)


def run_python(code, **environ):
    """Run code in a fresh interpreter with the module on its path."""
    e = dict(os.environ)
    e.pop("ELASTIC_SIGNAL", None)
    e.update(environ)
    e["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(se.__file__)))]
        + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    # SIGINT as a terminal starts it: a shell's background jobs (a CI
    # runner's, say) inherit it ignored, and the module rightly keeps that.
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          env=e, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=60, preexec_fn=lambda: signal.signal(
                              signal.SIGINT, signal.SIG_DFL))


class FreshProcess(unittest.TestCase):
    def check(self, code, want_stdout, **environ):
        p = run_python(code, **environ)
        self.assertEqual((p.returncode, p.stdout.strip()), (0, want_stdout),
                         "stderr: " + p.stderr)
        return p

    def test_chains_to_previous_handler(self):
        self.check("""
            import os, signal, time
            got = []
            signal.signal(signal.SIGUSR2, lambda s, f: got.append(s))
            signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
            import slurm_elastic as se
            os.kill(os.getpid(), signal.SIGUSR2)
            time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)
            print(se.elastic_event_detected(), se.elastic_event_signal() == signal.SIGUSR2,
                  got == [signal.SIGUSR2, signal.SIGTERM], se.elastic_signal() == signal.SIGUSR2)
            """, "True True True True", ELASTIC_SIGNAL="USR2")

    def test_event_does_not_break_a_blocked_system_call(self):
        # A rank blocked in C code (torch's TCPStore connecting at the
        # rendezvous) when the event comes: its read() must go on, not
        # fail with EINTR (torch then raised "Interrupted system call"
        # and the other ranks waited for it in the rendezvous).
        self.check("""
            import ctypes, errno, os, signal, threading
            import slurm_elastic as se
            libc = ctypes.CDLL(None, use_errno=True)
            r, w = os.pipe()
            tid = threading.get_native_id()
            bit = 1 << (signal.SIGURG - 1)
            def proc(name):
                with open("/proc/self/task/%d/%s" % (tid, name)) as f:
                    return f.read()
            def pending():
                for line in proc("status").splitlines():
                    if line.startswith("SigPnd:"):
                        return int(line.split()[1], 16) & bit
            def helper():
                while not proc("syscall").startswith("0 "):  # in read(2)
                    threading.Event().wait(0.01)
                signal.pthread_kill(threading.main_thread().ident, signal.SIGURG)
                while pending():  # delivered while blocked in read(2)
                    threading.Event().wait(0.01)
                os.write(w, b"x")
            threading.Thread(target=helper).start()
            buf = ctypes.create_string_buffer(1)
            n = libc.read(r, buf, 1)
            print(n, errno.errorcode.get(ctypes.get_errno()) if n < 0 else buf.raw.decode(),
                  se.elastic_event_signal() == signal.SIGURG)
            """, "1 x True")

    def test_sigint_chains_to_keyboard_interrupt(self):
        self.check("""
            import os, signal, time
            import slurm_elastic as se
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
                print("no KeyboardInterrupt")
            except KeyboardInterrupt:
                print(se.elastic_event_signal() == signal.SIGINT)
            """, "True", ELASTIC_SIGNAL="INT")

    def test_bad_signal_fails_the_import(self):
        for bad in ["KILL", "SIGURG", "urg", ""]:
            with self.subTest(value=bad):
                self.check("""
                    import signal
                    try:
                        import slurm_elastic
                    except ValueError as e:
                        print(e)
                    print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
                          signal.getsignal(signal.SIGURG) is signal.SIG_DFL)
                    """, "ELASTIC_SIGNAL=%s: not an elastic event signal "
                    "(allowed: URG, WINCH, USR1, USR2, HUP, INT, TERM)\n"
                    "True True" % bad, ELASTIC_SIGNAL=bad)

    def test_import_in_a_thread_then_init_in_main(self):
        self.check("""
            import os, signal, threading, time, warnings
            caught = []
            def imp():
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    import slurm_elastic
                    caught.extend(w)
            t = threading.Thread(target=imp); t.start(); t.join()
            import slurm_elastic as se
            first = signal.getsignal(signal.SIGURG) is signal.SIG_DFL
            se.elastic_init()
            os.kill(os.getpid(), signal.SIGURG)
            time.sleep(0.01)
            print(len(caught), first, se.elastic_event_detected())
            """, "1 True True")



class ExitRank(unittest.TestCase):
    """exit_rank() and exit_for_event(): the status chosen, atexit
    handlers run, files flushed, and no teardown (a thread that never
    ends would hold it, an object freed in it would say so)."""

    CODE = """
        import atexit, os, sys, threading
        import slurm_elastic as se
        class Torn:
            def __del__(self):
                os.write(2, b"torn down")
        keep = Torn()
        atexit.register(lambda: print("atexit", end=" "))
        f = open(os.environ["OUT"], "w")
        f.write("buffered")
        sys.stdout.write("stdout")
        threading.Thread(target=threading.Event().wait).start()
        %s
        """

    def run_exit(self, call):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out")
            p = run_python(self.CODE % call, OUT=out)
            with open(out) as f:
                return p, f.read()

    def test_exit_rank(self):
        for status in (0, 3, se.EXIT_EVENT):
            p, written = self.run_exit("se.exit_rank(%d)" % status)
            self.assertEqual((p.returncode, p.stdout, p.stderr, written),
                             (status, "stdoutatexit ", "", "buffered"))

    def test_exit_for_event(self):
        p, written = self.run_exit("se.exit_for_event()")
        self.assertEqual((p.returncode, p.stdout, p.stderr, written),
                         (75, "stdoutatexit ", "", "buffered"))

    def test_teardown_is_what_it_skips(self):
        # The same program ended by sys.exit waits for its thread: the
        # check above could not pass with a teardown.
        with self.assertRaises(subprocess.TimeoutExpired):
            import tempfile
            with tempfile.TemporaryDirectory() as d:
                e = dict(os.environ, OUT=os.path.join(d, "out"))
                e["PYTHONPATH"] = os.path.dirname(
                    os.path.dirname(os.path.abspath(se.__file__)))
                subprocess.run([sys.executable, "-c", textwrap.dedent(
                    self.CODE % "sys.exit(0)")], env=e,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    timeout=3)


class SizeConfig(unittest.TestCase):
    """size_config_vars: as the SPANK plugin's sizeconf_foreach."""

    def test_default_then_own(self):
        env = {"ELASTIC_SIZE_CONFIG": "default BATCH=256 LR=0.1;4 LR=0.025;8 BATCH=32"}
        self.assertEqual(se.size_config_vars(4, env),
                         {"BATCH": "256", "LR": "0.025"})
        self.assertEqual(se.size_config_vars(8, env),
                         {"BATCH": "32", "LR": "0.1"})
        self.assertEqual(se.size_config_vars(3, env),
                         {"BATCH": "256", "LR": "0.1"})

    def test_no_default_and_none(self):
        env = {"ELASTIC_SIZE_CONFIG": "4 B=3;16;65535 C=x"}
        self.assertEqual(se.size_config_vars(4, env), {"B": "3"})
        self.assertEqual(se.size_config_vars(16, env), {})
        self.assertEqual(se.size_config_vars(2, env), {})
        self.assertEqual(se.size_config_vars(4, {}), {})

if __name__ == "__main__":
    unittest.main()
