"""Progress reports for elastic-run's hang detection.

Call :func:`progress` once per training step (``event_agreed()`` and
``InPlace.step_done()`` do it for you).  A rank that reports no step for
``--elastic-hang-timeout`` (by default the larger of 60 s and ten median
steps) is taken as hung: elastic-run asks every rank for its stacks (this
module prints them with :mod:`faulthandler` on SIGQUIT), names the rank
and node in the job's output and relaunches without that node.  Wrap a
checkpoint save that may take longer than a step in ``with saving():``: a
save is never a hang.  Nothing is reported before the first call, so a
slow first step (imports, data loading) never trips it.

Each report is one write of a 64-byte record to ``rank.<RANK>`` in
``ELASTIC_PROGRESS_DIR`` on the rank's node (a directory of the user's
own, mode 0700), which the node's heartbeat task reads; the format is
libelastic's (src/common/progress_rec.h).  Outside elastic-run
(``ELASTIC_PROGRESS_DIR`` unset) every call does nothing.
"""

import contextlib
import faulthandler
import os
import signal
import stat
import sys
import threading
import time

REC_LEN = 64
STACK_SIGNAL = signal.SIGQUIT

_lock = threading.Lock()
_state = {"fd": None, "step": 0, "saving": False, "sig": 0, "restart": 0,
          "reported": False, "save_ms": 0}


def _own_dir(path):
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if (not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid()
            or st.st_mode & 0o077):
        raise PermissionError(f"{path}: not a directory of this user's own")


def _open():
    _state["fd"] = -1
    d = os.environ.get("ELASTIC_PROGRESS_DIR", "")
    # RANK (torchrun, elastic-run), else the MPI library's.
    rank = next((v for v in (os.environ.get(k, "") for k in (
        "RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"))
        if v.isascii() and v.isdigit() and len(v) <= 9), "")
    if not d.startswith("/") or not rank:
        return
    try:
        _own_dir(d)
        _state["fd"] = os.open(os.path.join(d, "rank." + rank),
                               os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW
                               | os.O_CLOEXEC, 0o600)
    except OSError as e:
        print(f"slurm_elastic: no progress reports: {e}", file=sys.stderr)
        return
    _state["restart"] = int(os.environ.get("ELASTIC_RESTART_COUNT", "0")
                            or 0)
    # Stacks on request, unless the script handles the signal itself.
    if signal.getsignal(STACK_SIGNAL) in (signal.SIG_DFL, None):
        faulthandler.register(STACK_SIGNAL, all_threads=True, chain=False)
        _state["sig"] = int(STACK_SIGNAL)


def format_record(restart, step, mono_ms, state, pid, sig, save_ms=0):
    """The 64-byte record (bytes), as libelastic writes it."""
    text = f"v1 {restart} {step} {mono_ms} {state} {pid} {sig} {save_ms}"
    if len(text) > REC_LEN - 1:
        raise ValueError("progress record too long")
    return (text.ljust(REC_LEN - 1) + "\n").encode()


def _write():
    if _state["fd"] is None:
        _open()
    if _state["fd"] < 0:
        return
    rec = format_record(_state["restart"], _state["step"],
                        time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                        // 1000000, "s" if _state["saving"] else "r",
                        os.getpid(), _state["sig"], _state["save_ms"])
    try:
        os.pwrite(_state["fd"], rec, 0)
    except OSError:
        pass


def progress(step=None):
    """Report a step done: step, or one more than the last report."""
    with _lock:
        _state["step"] = _state["step"] + 1 if step is None else int(step)
        _state["saving"] = False
        _state["reported"] = True
        _write()


@contextlib.contextmanager
def saving():
    """A checkpoint save: no hang is declared while it runs, and its time
    is reported (see saved()).  Before the first progress() it reports
    nothing: a script that reports no steps is not watched (its saves
    alone would say nothing of its progress)."""
    with _lock:
        _state["saving"] = True
        if _state["reported"]:
            _write()
    t0 = time.monotonic()
    try:
        yield
    finally:
        with _lock:
            _state["saving"] = False
            _state["save_ms"] = int((time.monotonic() - t0) * 1000)
            if _state["reported"]:
                _write()


def saved(seconds):
    """A checkpoint save took seconds, whole (an async one's too): the
    next records say so, and elastic-run weighs it against the grace."""
    with _lock:
        _state["save_ms"] = max(0, int(seconds * 1000))
