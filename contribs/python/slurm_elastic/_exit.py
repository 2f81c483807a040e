"""Ending a rank with the status it chose, without the interpreter's
teardown (see :func:`slurm_elastic.exit_rank`)."""

import atexit
import gc
import io
import os
import sys
from typing import NoReturn


def _flush_open_files():
    """Flush every file still open for writing: os._exit would drop what
    their buffers hold, which the teardown would have written."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError, AttributeError):
            pass  # closed or replaced: nothing to flush
    for o in gc.get_objects():
        if not isinstance(o, (io.BufferedIOBase, io.TextIOBase)):
            continue
        try:
            if not o.closed and o.writable():
                o.flush()
        except (OSError, ValueError):
            pass  # a broken pipe or full disk: the status still counts


def exit_rank(status: int = 0) -> NoReturn:
    """End the rank now with STATUS (0: finished; EXIT_EVENT: relaunch
    me).  The atexit handlers run (logging, DataLoader workers,
    multiprocessing children) and every open file is flushed, but the
    interpreter is not torn down: that teardown frees what a DDP module
    still holds, its Gloo process group among them, once Python no longer
    lends its lock to other threads.  A torch worker thread that asks for
    it then is ended in the middle of C++ code and the process aborts
    (134, "terminate called without an active exception", seen with
    Debian 13's torch 2.6 and Python 3.13); before torch 2.8 it may hang
    there instead.  Either way elastic-run would not see the status the
    rank chose.  ``finally`` blocks of callers do not run."""
    atexit._run_exitfuncs()  # prints a failing handler's error, goes on
    _flush_open_files()
    os._exit(status)
