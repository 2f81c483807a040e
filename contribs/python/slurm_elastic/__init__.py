"""The elastic event and world info for Python ranks of a slurm-elastic job.

A rank of an elastic training job learns in one cheap call that it must
checkpoint and exit.  The ranks of a world agree on it after every step
(at a preemption some get the signal a step before others, and a rank that
stopped alone would leave the others waiting in the next collective), rank
0 saves the checkpoint of that step, and all exit with the event status
that tells elastic-run "relaunch me"::

    import slurm_elastic
    from slurm_elastic.torch import event_agreed

    state = slurm_elastic.load_checkpoint()       # None: start fresh
    step = state["step"] if state else 0           # steps done so far
    while step < steps:
        train_one_step()
        step += 1
        if event_agreed():                         # every rank, same step
            if dist.get_rank() == 0:
                slurm_elastic.save_checkpoint(state_of(step), step)
            dist.barrier()
            slurm_elastic.exit_for_event()         # status 75: relaunch me
    if dist.get_rank() == 0:                       # the final checkpoint:
        slurm_elastic.save_checkpoint(state_of(step), step)  # a relaunch
    dist.barrier()                                 # ends at once; exit 0

A complete program in this form (``train.py``) is in the README and in
spank_elastic(8), EXAMPLES; CI runs it through a preemption.  Exit status
0 means "my training is finished": elastic-run declares success only when
every rank exited 0 and nothing elastic happened.

The event is a signal: ``ELASTIC_SIGNAL`` from the environment (a name
without ``SIG``: URG, WINCH, USR1, USR2, HUP, INT or TERM; URG when unset),
or SIGTERM.  Slurm sends it to every rank of every step when it preempts
the job or its time runs out; ``elastic-event raise``, elasticd and the
launcher send it to resize the job.  URG and WINCH are ignored by processes
that have no handler, so helpers such as DataLoader workers survive it.

Importing this module fails with ValueError for a bad ``ELASTIC_SIGNAL``
(a rank without a handler would never see an event), and installs a
handler for both signals (with
:func:`signal.signal`) that sets a module-level flag and then calls the
Python handler that was installed before, if any.  So a rank that imports
the module no longer dies on SIGTERM: it must exit once it sees the event,
or Slurm kills it KillWait seconds later.

Python runs signal handlers in the main thread, between bytecodes: the
flag is set as soon as the main thread next runs Python code (a long call
into C delays it).  The signal does not interrupt the system call such a
call may be blocked in (:func:`signal.siginterrupt` is off for both):
torch's rendezvous and gloo fail on EINTR.  Forked children (DataLoader
workers) inherit the handler; that is harmless.  Install your own handler
for these signals *before* importing this module (it is chained), or call
the old one from yours and then ``signal.siginterrupt(sig, False)``
(:func:`signal.signal` turns interrupting back on).

Checkpoints are entries ``ckpt-<STEP>[.<ext>]`` of the checkpoint dir:
:func:`checkpoint_path` names the one of a step (write to a hidden
``.ckpt-...`` name, then rename), :func:`list_checkpoints` and
:func:`newest_checkpoint` find them as elastic-run and elasticctl do.

A torch built without libuv (Debian 13's) cannot rendezvous unless
``USE_LIBUV=0``: importing this module after torch.distributed, or
importing :mod:`slurm_elastic.torch`, sets it when it is needed and unset
(:func:`torch_store_fallback`).

The module uses the standard library only and mirrors the C library
libelastic (see libelastic(3)); its values and error messages are the same.
"""

import dataclasses
import os
import re
import signal
import stat
import threading
import warnings
from typing import List, NoReturn, Optional

from ._exit import exit_rank
from ._progress import progress, saving

__all__ = [
    "EXIT_EVENT",
    "Checkpoint",
    "ElasticEnvError",
    "World",
    "checkpoint_dir",
    "checkpoint_path",
    "elastic_event_clear",
    "elastic_event_detected",
    "elastic_event_signal",
    "elastic_init",
    "elastic_signal",
    "elastic_world",
    "exit_for_event",
    "exit_rank",
    "torch_store_fallback",
    "list_checkpoints",
    "load_checkpoint",
    "newest_checkpoint",
    "parse_checkpoint_name",
    "prev_checkpoint",
    "progress",
    "save_checkpoint",
    "saving",
    "signal_from_name",
    "size_config_vars",
]

#: Signals the event may travel by, as ELASTIC_SIGNAL names them.
SIGNALS = {
    "URG": signal.SIGURG,
    "WINCH": signal.SIGWINCH,
    "USR1": signal.SIGUSR1,
    "USR2": signal.SIGUSR2,
    "HUP": signal.SIGHUP,
    "INT": signal.SIGINT,
    "TERM": signal.SIGTERM,
}
DEFAULT_SIGNAL = "URG"

_INT_MAX = 2**31 - 1
_ADDR_MAX = 255  # bytes, as libelastic's ELASTIC_WORLD_ADDR_MAX - 1
_PATH_MAX = 4095  # bytes, as libelastic's ELASTIC_WORLD_PATH_MAX - 1

# 0, or the signal of the first event since the last clear.  One value, so
# the flag and the signal cannot disagree; reading it is the whole cost of
# elastic_event_detected().
_event = 0
_previous = {}  # signal number -> the Python handler we replaced
_installed_signal = 0  # 0 until the handlers are installed
_lock = threading.Lock()


class ElasticEnvError(ValueError):
    """An elastic variable of the environment is missing or malformed.

    The message names the variable, as libelastic's does:
    ``"WORLD_SIZE=abc: not a whole number"``.
    """


def signal_from_name(name: str) -> int:
    """The signal number for an ELASTIC_SIGNAL name: ``"URG"`` -> SIGURG.

    Exact match, upper case, without ``SIG``.  Raises ValueError for any
    other name (KILL and STOP are never event signals).
    """
    try:
        return SIGNALS[name]
    except (KeyError, TypeError):
        raise ValueError(
            "ELASTIC_SIGNAL=%.64s: not an elastic event signal (allowed: %s)"
            % (name, ", ".join(SIGNALS))
        ) from None


def _handler(signum, frame):
    global _event
    if not _event:
        _event = signum
    prev = _previous.get(signum)
    if callable(prev):
        prev(signum, frame)


def elastic_init() -> None:
    """Install the handlers for ELASTIC_SIGNAL and SIGTERM.

    Called at import; call it again to learn why that failed.  Idempotent
    once it succeeded.  Raises ValueError for a bad ELASTIC_SIGNAL (then
    nothing is installed) or when called outside the main thread (as
    :func:`signal.signal` does).
    """
    global _installed_signal
    with _lock:
        if _installed_signal:
            return
        sig = signal_from_name(os.environ.get("ELASTIC_SIGNAL", DEFAULT_SIGNAL))
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("elastic_init: handlers can only be installed "
                             "from the main thread")
        installed = []
        try:
            for s in dict.fromkeys((sig, signal.SIGTERM)):
                prev = signal.signal(s, _handler)
                installed.append((s, prev))
                if prev is not _handler:
                    _previous[s] = prev
                # The handler only notes the event: it must not break the
                # system call a C extension is blocked in (torch's TCPStore
                # and gloo do not retry EINTR; Python code does anyway).
                # SIGINT keeps interrupting, as Ctrl-C should.
                if s != signal.SIGINT:
                    signal.siginterrupt(s, False)
        except BaseException:
            for s, prev in reversed(installed):
                signal.signal(s, prev if prev is not None else signal.SIG_DFL)
            raise
        _installed_signal = sig


def elastic_event_detected() -> bool:
    """True once an event arrived; sticky until :func:`elastic_event_clear`.

    Reads a module variable: no system call, cheap enough for every step.
    """
    return _event != 0


def elastic_event_signal() -> int:
    """The signal of the first event since the last clear, 0 if none.

    SIGTERM means Slurm is ending the job: KILL follows after KillWait.
    """
    return _event


def elastic_event_clear() -> None:
    """Forget the event, e.g. after a checkpoint when the rank runs on."""
    global _event
    _event = 0


#: The exit status of a rank that stops for an elastic event (after its
#: checkpoint): 75, EX_TEMPFAIL of sysexits.h, as libelastic's
#: ELASTIC_EXIT_EVENT.  elastic-run relaunches on it; 0 means "finished".
EXIT_EVENT = 75


def exit_for_event() -> NoReturn:
    """Leave the rank with :data:`EXIT_EVENT`: "stopped for an elastic
    event, relaunch me", never to be mistaken for the end of training.
    It is ``exit_rank(EXIT_EVENT)``: atexit handlers run, the interpreter
    is not torn down (torch may abort or hang there), ``finally`` blocks
    do not run."""
    exit_rank(EXIT_EVENT)


def elastic_signal() -> int:
    """The event signal in use besides SIGTERM (SIGURG unless
    ELASTIC_SIGNAL says otherwise).  Raises ValueError for a bad one."""
    if _installed_signal:
        return _installed_signal
    return signal_from_name(os.environ.get("ELASTIC_SIGNAL", DEFAULT_SIGNAL))


@dataclasses.dataclass(frozen=True)
class World:
    """The rank's place in the current world (see :func:`elastic_world`)."""

    rank: int  #: RANK: global rank, < world_size
    local_rank: int  #: LOCAL_RANK: rank on this node
    world_size: int  #: WORLD_SIZE: ranks in the world
    local_world_size: int  #: LOCAL_WORLD_SIZE: ranks on this node
    group_rank: int  #: GROUP_RANK: this node's index, < nnodes
    nnodes: int  #: ELASTIC_NNODES: nodes in the world
    prev_nnodes: int  #: ELASTIC_PREV_NNODES: before the last restart, 0 first
    restart_count: int  #: ELASTIC_RESTART_COUNT: 0 on the first start
    job_id: int  #: ELASTIC_JOB_ID: the group's base job
    master_addr: str  #: MASTER_ADDR
    master_port: int  #: MASTER_PORT
    checkpoint_dir: Optional[str]  #: ELASTIC_CHECKPOINT_DIR, None if unset
    prev_checkpoint: Optional[str]  #: ELASTIC_PREV_CHECKPOINT, None if unset


def _num(env, name, lo, hi, required=True):
    s = env.get(name)
    if s is None:
        if required:
            raise ElasticEnvError("%s is not set" % name)
        return None
    if s == "":
        raise ElasticEnvError("%s=: empty value" % name)
    if s.strip("0123456789"):
        raise ElasticEnvError("%s=%.64s: not a whole number" % (name, s))
    v = int(s)
    if not lo <= v <= hi:
        raise ElasticEnvError(
            "%s=%.64s: out of range (allowed: %d to %d)" % (name, s, lo, hi))
    return v


def _str(env, name, limit, required=True):
    s = env.get(name)
    if s is None:
        if required:
            raise ElasticEnvError("%s is not set" % name)
        return None
    if s == "" and required:
        raise ElasticEnvError("%s=: empty value" % name)
    n = len(os.fsencode(s))
    if n > limit:
        raise ElasticEnvError(
            "%s is too long (%d bytes; at most %d)" % (name, n, limit))
    return s or None


def elastic_world(environ=None) -> World:
    """The rank's :class:`World`, read from the environment.

    The SPANK plugin sets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
    GROUP_RANK, MASTER_ADDR, MASTER_PORT (as torchrun does) and
    ELASTIC_JOB_ID, ELASTIC_RESTART_COUNT, ELASTIC_NNODES; those are
    required.  ELASTIC_PREV_NNODES (0), ELASTIC_CHECKPOINT_DIR and
    ELASTIC_PREV_CHECKPOINT (None when unset or empty) are optional.

    Parsing is strict: decimal digits only, ranks and counts up to
    2**31 - 1, job ids 1 to 2**32 - 1, ports 1 to 65535, and the values
    must agree (RANK < WORLD_SIZE, ...).  Raises :class:`ElasticEnvError`
    naming the variable otherwise.  ``environ`` defaults to
    :data:`os.environ`.
    """
    env = os.environ if environ is None else environ
    w = World(
        rank=_num(env, "RANK", 0, _INT_MAX),
        local_rank=_num(env, "LOCAL_RANK", 0, _INT_MAX),
        world_size=_num(env, "WORLD_SIZE", 1, _INT_MAX),
        local_world_size=_num(env, "LOCAL_WORLD_SIZE", 1, _INT_MAX),
        group_rank=_num(env, "GROUP_RANK", 0, _INT_MAX),
        nnodes=_num(env, "ELASTIC_NNODES", 1, _INT_MAX),
        prev_nnodes=_num(env, "ELASTIC_PREV_NNODES", 0, _INT_MAX,
                         required=False) or 0,
        restart_count=_num(env, "ELASTIC_RESTART_COUNT", 0, _INT_MAX),
        job_id=_num(env, "ELASTIC_JOB_ID", 1, 2**32 - 1),
        master_port=_num(env, "MASTER_PORT", 1, 65535),
        master_addr=_str(env, "MASTER_ADDR", _ADDR_MAX),
        checkpoint_dir=_str(env, "ELASTIC_CHECKPOINT_DIR", _PATH_MAX,
                            required=False),
        prev_checkpoint=_str(env, "ELASTIC_PREV_CHECKPOINT", _PATH_MAX,
                             required=False),
    )
    if w.rank >= w.world_size:
        raise ElasticEnvError("RANK=%d is not below WORLD_SIZE=%d"
                              % (w.rank, w.world_size))
    if w.local_rank >= w.local_world_size:
        raise ElasticEnvError("LOCAL_RANK=%d is not below LOCAL_WORLD_SIZE=%d"
                              % (w.local_rank, w.local_world_size))
    if w.local_world_size > w.world_size:
        raise ElasticEnvError("LOCAL_WORLD_SIZE=%d is above WORLD_SIZE=%d"
                              % (w.local_world_size, w.world_size))
    if w.group_rank >= w.nnodes:
        raise ElasticEnvError("GROUP_RANK=%d is not below ELASTIC_NNODES=%d"
                              % (w.group_rank, w.nnodes))
    return w


def checkpoint_dir(environ=None) -> Optional[str]:
    """Where this job writes checkpoints: ELASTIC_CHECKPOINT_DIR, or None
    when unset or empty.  The directory may not exist yet; it is the same
    on every rank (shared storage), so let one rank create it."""
    env = os.environ if environ is None else environ
    return _str(env, "ELASTIC_CHECKPOINT_DIR", _PATH_MAX, required=False)


def prev_checkpoint(environ=None) -> Optional[str]:
    """The checkpoint to resume from after a restart:
    ELASTIC_PREV_CHECKPOINT, or None (unset or empty) to start fresh."""
    env = os.environ if environ is None else environ
    return _str(env, "ELASTIC_PREV_CHECKPOINT", _PATH_MAX, required=False)


def size_config_vars(nnodes: int, environ=None) -> dict:
    """The per-size variables at a world of nnodes nodes (``--elastic-size-
    config``): from ELASTIC_SIZE_CONFIG, the canonical form the job carries
    ("default A=1 B=2;4 B=3"), the default line's variables, then the size's
    own over them, as the SPANK plugin sets them at a launch.  {} without
    one.  An in-place resize applies them (:class:`slurm_elastic.torch.
    InPlace`), since no launch does."""
    env = os.environ if environ is None else environ
    text = env.get("ELASTIC_SIZE_CONFIG", "")
    default, own = {}, {}
    for line in text.split(";"):
        words = line.split(" ")
        if not words or not words[0]:
            continue
        if words[0] == "default":
            target = default
        elif words[0].isdigit() and int(words[0]) == nnodes:
            target = own
        else:
            continue
        for w in words[1:]:
            name, eq, value = w.partition("=")
            if eq and name:
                target[name] = value
    default.update(own)
    return default


# Checkpoints, named as elastic-run and elasticctl name them (see
# spank_elastic(8), CHECKPOINTS): an entry "ckpt-<STEP>[.<ext>]" of the
# checkpoint dir, a file or a directory; hidden entries are incomplete
# writes; symbolic links are not checkpoints.

_CKPT_RE = re.compile(r"ckpt-([0-9]{1,18})(?:\.[A-Za-z0-9._-]+)?\Z")
_CKPT_NAME_MAX = 255


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """One checkpoint of a checkpoint dir."""
    step: int
    path: str
    is_dir: bool


def parse_checkpoint_name(name: str) -> Optional[int]:
    """The step of an entry named like a checkpoint ("ckpt-00000100.pt" ->
    100, "ckpt-7" -> 7), or None."""
    if len(name) > _CKPT_NAME_MAX:
        return None
    m = _CKPT_RE.match(name)
    return int(m.group(1)) if m else None


def _owned(st) -> bool:
    """Is a file of this stat ours, writable by no other user?  (As
    elastic-run's: owned by us, not writable by others, group-writable
    only for our primary group, a user private group.)  Root's are all."""
    uid = os.geteuid()
    if uid == 0:
        return True
    return (st.st_uid == uid and not st.st_mode & stat.S_IWOTH and
            (not st.st_mode & stat.S_IWGRP or st.st_gid == os.getegid()))


def _own_dir(directory: str) -> None:
    """Raise PermissionError unless directory is ours, writable by no
    other user: another user's directory where ours is looked for is
    never read from nor written to."""
    st = os.stat(directory)
    if not _owned(st):
        raise PermissionError(
            "checkpoint dir %s: %s: not used" % (
                directory,
                "owned by uid %d, not by uid %d" % (st.st_uid, os.geteuid())
                if st.st_uid != os.geteuid()
                else "writable by other users (mode %04o; chmod go-w)"
                % (st.st_mode & 0o7777)))


def list_checkpoints(directory=None, environ=None) -> List[Checkpoint]:
    """The checkpoints of directory (default: ELASTIC_CHECKPOINT_DIR),
    oldest first (by step, then name).  A missing directory has none.
    Only what is ours counts: the directory must be ours (PermissionError
    otherwise), and an entry another user owns or may write is left
    out."""
    if directory is None:
        directory = checkpoint_dir(environ)
        if directory is None:
            return []
    try:
        _own_dir(directory)
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return []
    found = []
    for e in entries:
        step = parse_checkpoint_name(e.name)
        if step is None:
            continue
        try:
            if e.is_symlink():
                continue
            is_dir = e.is_dir(follow_symlinks=False)
            if not is_dir and not e.is_file(follow_symlinks=False):
                continue
            if not _owned(e.stat(follow_symlinks=False)):
                continue
        except OSError:
            continue  # gone meanwhile
        found.append((step, e.name, Checkpoint(step, e.path, is_dir)))
    found.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in found]


def newest_checkpoint(directory=None, environ=None) -> Optional[str]:
    """The path of the newest checkpoint (highest step) of directory
    (default: ELASTIC_CHECKPOINT_DIR), or None when there is none."""
    cks = list_checkpoints(directory, environ)
    if not cks:
        return None
    top = cks[-1].step
    return next(c.path for c in cks if c.step == top)


def checkpoint_path(step: int, directory=None, environ=None,
                    ext: Optional[str] = ".pt") -> str:
    """Where the checkpoint of step is: the existing one of that step in
    directory (default: ELASTIC_CHECKPOINT_DIR) whatever its padding and
    extension, else the name to write it under, "ckpt-%08d" + ext (ext
    None: a directory checkpoint).  Write to a hidden name (".ckpt-...")
    first and rename it, so readers never see half a checkpoint."""
    if not isinstance(step, int) or isinstance(step, bool) or step < 0 \
            or step > 999999999999999999:
        raise ValueError("checkpoint step %r: not a whole number from 0 to "
                         "999999999999999999" % (step,))
    if directory is None:
        directory = checkpoint_dir(environ)
        if directory is None:
            raise ElasticEnvError("ELASTIC_CHECKPOINT_DIR is not set")
    for c in list_checkpoints(directory):
        if c.step == step:
            return c.path
    if ext and (not ext.startswith(".") or
                not re.fullmatch(r"\.[A-Za-z0-9._-]+", ext)):
        raise ValueError("checkpoint extension %r: '.' then letters, digits, "
                         "'.', '_' or '-'" % (ext,))
    return os.path.join(directory, "ckpt-%08d%s" % (step, ext or ""))


def save_checkpoint(obj, step: int, directory=None, environ=None) -> str:
    """Write obj as the checkpoint of step, atomically, and return its path.

    STEP is the number of training steps completed: the checkpoint of step
    S holds the state after S steps, and a run resumed from it runs step S
    next (steps counted from 0).  The file is "ckpt-%08d.pt" in directory
    (default: ELASTIC_CHECKPOINT_DIR, created if missing), written with
    torch.save when torch is importable (pickle otherwise) under a hidden
    name, flushed to disk, then renamed: a reader (the launcher, an
    evaluation job, the next launch) sees all of it or nothing.  Call it on
    one rank (rank 0), then a barrier, so no rank exits before it is done.
    The save is announced to elastic-run (:func:`saving`): however long it
    takes, no rank of the world is taken as hung meanwhile.  A save that
    cannot be written (a full disk, a quota) raises OSError and leaves
    nothing behind: the last good checkpoint stays the newest, and a
    script may say so and train on (the examples do).
    """
    with saving():
        return _save_checkpoint(obj, step, directory, environ)


class _Sink:
    """A checkpoint file that keeps its first write error (a full disk)
    for the caller to raise: torch's zip writer, failing, writes its end
    records anyway, and a second error there aborts the process."""

    def __init__(self, f):
        self.f, self.error = f, None

    def write(self, b):
        if self.error is None:
            try:
                return self.f.write(b)
            except OSError as e:
                self.error = e
        return memoryview(b).nbytes

    def flush(self):
        if self.error is None:
            self.f.flush()


def _save_checkpoint(obj, step, directory, environ):
    path = checkpoint_path(step, directory, environ)
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    _own_dir(directory)
    tmp = os.path.join(directory, ".%s.tmp.%d" % (os.path.basename(path),
                                                   os.getpid()))
    try:
        with open(tmp, "wb") as f:
            sink = _Sink(f)
            try:
                import torch
                torch.save(obj, sink)
            except ImportError:
                import pickle
                pickle.dump(obj, sink)
            if sink.error is not None:
                raise sink.error
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return path


def load_checkpoint(map_location=None, environ=None):
    """The state saved by :func:`save_checkpoint` that this launch resumes
    from (ELASTIC_PREV_CHECKPOINT: elastic-run sets it to the newest
    checkpoint of the job, or of --elastic-resume-from), or None to start
    fresh.  torch.load when torch is importable (map_location goes to it),
    pickle otherwise."""
    path = prev_checkpoint(environ)
    if path is None:
        return None
    try:
        import torch
    except ImportError:
        import pickle
        with open(path, "rb") as f:
            return pickle.load(f)
    return torch.load(path, map_location=map_location)


def torch_store_fallback() -> bool:
    """Make torch's rendezvous work on a torch built without libuv.

    torch 2.4 and later create every TCPStore with libuv unless told
    otherwise (``USE_LIBUV=0`` for a rendezvous from the environment; some
    stores, torchrun's own and a torchrun worker's, cannot be told), and a
    torch built without libuv (Debian 13's 2.6) then fails every one with
    "use_libuv was requested but PyTorch was build without libuv support".
    If torch.distributed is loaded, USE_LIBUV is unset (or 0) and this torch's
    TCPStore refuses libuv (a store on an ephemeral port of 127.0.0.1,
    closed at once): sets ``USE_LIBUV=0`` for this process and its
    children, and makes torch.distributed's TCPStore default to no libuv
    in this process (a subclass, under the names torch's modules imported
    it by).  True when it did.  Called at import when torch.distributed is
    already imported, and by slurm_elastic.torch and slurm_elastic.torchrun.
    """
    import sys
    dist = sys.modules.get("torch.distributed")
    # USE_LIBUV=0 (ours, inherited, or the user's) still needs the stores
    # that do not read it mended; another value is the user's choice.
    if dist is None or os.environ.get("USE_LIBUV", "0") != "0" or not hasattr(dist, "TCPStore"):
        return False
    base = dist.TCPStore
    try:
        store = base("127.0.0.1", 0, 1, True, use_libuv=True)
    except RuntimeError as e:
        if "libuv" not in str(e):
            return False
    except TypeError:  # a torch before use_libuv: nothing to mend
        return False
    else:
        del store
        return False
    os.environ["USE_LIBUV"] = "0"

    class TCPStore(base):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("use_libuv", False)
            super().__init__(*args, **kwargs)

    TCPStore.__name__ = TCPStore.__qualname__ = base.__name__
    for name, mod in list(sys.modules.items()):
        if name.startswith("torch.distributed") and getattr(mod, "TCPStore", None) is base:
            mod.TCPStore = TCPStore
    return True


# A handler as early as possible.  A bad ELASTIC_SIGNAL fails the import
# (ValueError naming it): a rank without a handler would never see an
# event.  Imported outside the main thread, the handlers cannot be
# installed yet: a warning, and elastic_init() from the main thread.
signal_from_name(os.environ.get("ELASTIC_SIGNAL", DEFAULT_SIGNAL))
try:
    elastic_init()
except ValueError as _e:
    warnings.warn("slurm_elastic: no event handler installed: %s" % _e,
                  RuntimeWarning, stacklevel=2)
torch_store_fallback()
