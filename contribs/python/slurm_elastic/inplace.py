"""The rank's side of the world channel: word of in-place resizes.

When every rank of a world uses the in-place API (:class:`slurm_elastic.
torch.InPlace`), elastic-run resizes the job without restarting them: it
publishes the next world on a TCP channel of its own, and the ranks that
stay re-form their process group in it while the joiners' new ranks take
their state.  This module is that channel's client, framework-free and
standard library only; elastic-run(1), IN-PLACE RESIZES, and the
launcher's inplace.h say the protocol, which this mirrors.

elastic-run passes ELASTIC_INPLACE_ADDR (where it listens), _TOKEN (the
run's secret), _WORLD (the world the rank was launched in, 0 for a
joiner) and _WAIT (how long a rank whose collective failed waits for the
next world).  A rank connects, the launcher greets it with a fresh nonce,
and the rank registers (who it is: member job, node, local rank), keyed
with the token and bound to that nonce.  From then on the launcher sends
each world it publishes: which path the job takes (in-place, restart or
stop) and, in place, the new world's size, rendezvous, source rank and
members, from which each rank computes its new rank
(:meth:`WorldMsg.rank_of`).  Each world's MAC is keyed with the token and
bound to the rank's own nonce, so no one without the token can make a
rank believe a world, and no world sent on another connection is
believed on this one.  The rank answers "joined" once it is in a world,
or "failed" when it cannot join one (elastic-run then takes the restart
path).

A thread reads the channel, so that a world arrives while the main thread
trains or is stuck in a collective whose peer died.  When the launcher
found nodes lost, hung or split off, its world names them ("lost"), and
the thread shuts down the rank's connections to them: a collective
blocked on them fails at once, not at its timeout.  The training loop
asks :meth:`WorldClient.latest` once a step (no system call) or blocks in
:meth:`WorldClient.wait`.  Whatever goes wrong on the channel (a bad MAC,
a malformed message, the launcher gone) loses it for good: the reader
stops believing it and the rank falls back to the restart path, which
needs no channel.
"""

import dataclasses
import hashlib
import hmac
import os
import re
import secrets
import socket
import struct
import threading
import time
from typing import Optional

from . import ElasticEnvError, _num

__all__ = ["InPlaceError", "WorldClient", "WorldMsg", "drop_connections",
           "parse_world", "shutdown_sockets", "socket_inodes"]

PROTO = "elastic-inplace/1"
LINE_MAX = 1024  # a header line, '\n' included, as INPLACE_LINE_MAX
PAYLOAD_MAX = 1024 * 1024
NODE_MAX = 255
PATHS = ("in-place", "restart", "stop")
LOST_MAX = 64  # addresses in a world's "lost" item
WHY_MAX = 48  # a "failed" line's reason, as INPLACE_WHY_MAX ('\0' in)

_INT_MAX = 2**31 - 1
_JOB_MAX = 2**32 - 1
_WORLD_MAX = 2**63 - 1  # the launcher's bound, UINT64_MAX / 2
_STEP_MAX = 2**62 - 1  # INT64_MAX / 2, likewise
_LOCAL_MAX = 65535
_WAIT_MAX = 86400
_SEND_S = 2  # a status line blocks a training step at most this long

_DEC = re.compile(r"[0-9]{1,19}\Z")
_HEX = re.compile(r"[0-9a-f]+\Z")
_NODE = re.compile(r"[A-Za-z0-9._-]{1,%d}\Z" % NODE_MAX)
_WHY = re.compile(r"[a-z0-9-]{1,%d}\Z" % (WHY_MAX - 1))
_HOST = re.compile(r"[A-Za-z0-9._:%%-]{1,%d}\Z" % NODE_MAX)


class InPlaceError(ConnectionError):
    """The world channel failed or lied; the message names what."""


def _dec(s, lo, hi):
    """s as a whole number in lo..hi (decimal digits only), or None."""
    if not _DEC.match(s):
        return None
    v = int(s)
    return v if lo <= v <= hi else None


def _is_hex(s, n):
    return len(s) == n and bool(_HEX.match(s))


@dataclasses.dataclass(frozen=True)
class WorldMsg:
    """A world the launcher published (see :func:`parse_world`)."""

    number: int  #: the world's number, increasing over the run
    path: str  #: "in-place", "restart" (checkpoint, exit) or "stop"
    size: int  #: ranks in the world; 0 for restart and stop
    nproc: int  #: ranks per node
    master_addr: str  #: the new process group's rendezvous
    master_port: int
    src: int  #: the rank (a survivor) whose state everyone takes
    #: (job, offset, nodes): member job's ranks from offset on, its
    #: nodes in Slurm's order
    members: tuple
    #: the addresses of the nodes that left the last world by a fault
    #: (lost, hung, split off): their ranks cannot take part in leaving
    lost: tuple = ()

    def rank_of(self, job: int, node: str, local: int) -> Optional[int]:
        """The rank of local rank ``local`` on ``node`` of member ``job``
        in this world, or None when it is not in it (it leaves)."""
        if not 0 <= local < self.nproc:
            return None
        for j, offset, nodes in self.members:
            if j == job:
                if node not in nodes:
                    return None
                return offset + nodes.index(node) * self.nproc + local
        return None

    def has_job(self, job: int) -> bool:
        """Is member job ``job`` in this world?"""
        return any(j == job for j, _, _ in self.members)


def parse_world(payload: bytes, number: int) -> WorldMsg:
    """The :class:`WorldMsg` of world ``number`` from its payload.

    Strict, as the launcher writes it: one item a line, each line ending
    in '\\n', single spaces, decimal numbers; items it does not know are
    errors (a launcher speaking more than this client must not be half
    understood).  Raises :class:`InPlaceError` naming the bad line.
    """
    if len(payload) > PAYLOAD_MAX:
        raise InPlaceError("world %d: payload of %d bytes (at most %d)"
                           % (number, len(payload), PAYLOAD_MAX))
    if not payload.endswith(b"\n"):
        raise InPlaceError("world %d: payload empty or not ending in a "
                           "newline" % number)
    items = {}  # name -> (line number, raw line, value)
    members = []  # (line number, raw line, (job, offset, nodes))

    def bad(i, raw, what):
        return InPlaceError("world %d: line %d %.64r: %s"
                            % (number, i, raw, what))

    for i, raw in enumerate(payload[:-1].split(b"\n"), 1):
        try:
            f = raw.decode("ascii").split(" ")
        except UnicodeDecodeError:
            raise bad(i, raw, "not ASCII") from None
        name = f[0]
        if name == "member":
            if len(f) != 4:
                raise bad(i, raw, "not 'member JOB OFFSET NODE[,NODE...]'")
            job = _dec(f[1], 1, _JOB_MAX)
            offset = _dec(f[2], 0, _INT_MAX)
            nodes = tuple(f[3].split(","))
            if job is None:
                raise bad(i, raw, "job not 1 to %d" % _JOB_MAX)
            if any(job == m[2][0] for m in members):
                raise bad(i, raw, "job %d listed twice" % job)
            if offset is None:
                raise bad(i, raw, "offset not 0 to %d" % _INT_MAX)
            for n in nodes:
                if not _NODE.match(n):
                    raise bad(i, raw, "node %.64r: not 1 to %d of "
                              "[A-Za-z0-9._-]" % (n, NODE_MAX))
            # A node twice would give two ranks one number.
            if len(set(nodes)) != len(nodes):
                raise bad(i, raw, "a node listed twice")
            members.append((i, raw, (job, offset, nodes)))
            continue
        if name in items:
            raise bad(i, raw, "%s given twice" % name)
        if name == "path" and len(f) == 2 and f[1] in PATHS:
            v = f[1]
        elif name == "lost" and len(f) == 2:
            v = tuple(f[1].split(","))
            if len(v) > LOST_MAX or not all(_HOST.match(a) for a in v):
                raise bad(i, raw, "not 'lost ADDR[,ADDR...]' (1 to %d "
                          "addresses)" % LOST_MAX)
        elif name in ("size", "nproc") and len(f) == 2:
            v = _dec(f[1], 1, _INT_MAX)
            if v is None:
                raise bad(i, raw, "%s not 1 to %d" % (name, _INT_MAX))
        elif name == "master" and len(f) == 3:
            port = _dec(f[2], 1, 65535)
            if not _HOST.match(f[1]):
                raise bad(i, raw, "not an address")
            if port is None:
                raise bad(i, raw, "port not 1 to 65535")
            v = (f[1], port)
        elif name == "src" and len(f) == 2:
            v = _dec(f[1], 0, _INT_MAX)
            if v is None:
                raise bad(i, raw, "src not 0 to %d" % _INT_MAX)
        elif name in ("path", "size", "nproc", "master", "src", "lost"):
            raise bad(i, raw, "malformed %s" % name)
        else:
            raise bad(i, raw, "unknown item %.32r" % name)
        items[name] = (i, raw, v)

    if "path" not in items:
        raise InPlaceError("world %d: no path" % number)
    path = items["path"][2]
    if path != "in-place":
        # Checkpoint and exit: nothing else applies, so nothing else may
        # be there (a launcher that thinks otherwise is not understood).
        for i, raw, _ in sorted(list(items.values()) + members):
            if i != items["path"][0]:
                raise bad(i, raw, "an item in a %s world" % path)
        return WorldMsg(number, path, 0, 0, "", 0, 0, ())
    for name in ("size", "nproc", "master", "src"):
        if name not in items:
            raise InPlaceError("world %d: in-place without %s"
                               % (number, name))
    if not members:
        raise InPlaceError("world %d: in-place without a member" % number)
    size, nproc = items["size"][2], items["nproc"][2]
    i, raw, src = items["src"]
    if src >= size:
        raise bad(i, raw, "src not below size %d" % size)
    for i, raw, (job, offset, nodes) in members:
        if offset + len(nodes) * nproc > size:
            raise bad(i, raw, "ranks %d to %d: beyond size %d"
                      % (offset, offset + len(nodes) * nproc - 1, size))
    addr, port = items["master"][2]
    return WorldMsg(number, path, size, nproc, addr, port, src,
                    tuple(m[2] for m in members),
                    items["lost"][2] if "lost" in items else ())


def _split_addr(addr):
    """ELASTIC_INPLACE_ADDR's (host, port): HOST:PORT or [V6]:PORT."""
    host, sep, port = addr.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        host = ""  # an IPv6 address must be bracketed
    p = _dec(port, 1, 65535)
    if not sep or not _HOST.match(host) or p is None:
        raise ElasticEnvError("ELASTIC_INPLACE_ADDR=%.64s: not ADDR:PORT "
                              "(or [ADDR]:PORT), port 1 to 65535" % addr)
    return host, p


def _plain_ip(ip):
    """An address as a peer's socket shows it: no zone, no IPv4 mapping."""
    ip = ip.split("%", 1)[0]
    return ip[7:] if ip.startswith("::ffff:") and "." in ip else ip


def _ips_of(hosts):
    """The IP addresses the hosts resolve to (those that resolve)."""
    ips = set()
    for h in hosts:
        try:
            for info in socket.getaddrinfo(h, None,
                                           proto=socket.IPPROTO_TCP):
                ips.add(_plain_ip(info[4][0]))
        except (OSError, UnicodeError):
            pass
    return ips


def socket_inodes() -> dict:
    """This process's sockets now: descriptor -> inode."""
    out = {}
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return out
    for name in names:
        try:
            link = os.readlink("/proc/self/fd/" + name)
        except OSError:
            continue
        if name.isdigit() and link.startswith("socket:["):
            out[int(name)] = link[8:-1]
    return out


def _shutdown(fd, wanted, ino=None) -> bool:
    """Shut down the connected TCP stream at descriptor fd when
    wanted(its socket) says so and, if ino is given, it is still that
    socket; the descriptor stays open for its owner.  True when it
    did."""
    try:
        dup = os.dup(fd)
    except OSError:
        return False  # closed meanwhile
    try:
        # Another thread may have closed fd since it was listed and
        # opened a new socket there (the next process group's): the
        # inode of what the duplicate holds is the one to compare.
        if ino is not None and str(os.fstat(dup).st_ino) != str(ino):
            os.close(dup)
            return False
        s = socket.socket(fileno=dup)
    except OSError:
        os.close(dup)
        return False
    with s:
        try:
            if s.type != socket.SOCK_STREAM or \
                    s.family not in (socket.AF_INET, socket.AF_INET6) or \
                    s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) or \
                    not wanted(s):
                return False
            s.shutdown(socket.SHUT_RDWR)
            return True
        except OSError:
            return False  # not connected


def shutdown_sockets(socks, spare_port=None) -> int:
    """Shut down the connections of ``socks`` (descriptor -> inode, as
    :func:`socket_inodes` gave them) that are still open as they were,
    but listening sockets and connections from or to ``spare_port`` (a
    rendezvous store, whose threads end the process on an error);
    returns how many.  The descriptors stay open for their owner."""
    now = socket_inodes()

    def wanted(s):
        return spare_port not in (s.getsockname()[1], s.getpeername()[1])
    return sum(1 for fd, ino in socks.items()
               if now.get(fd) == ino and _shutdown(fd, wanted, ino))


def drop_connections(hosts, keep=()) -> int:
    """Shut down this process's TCP connections to ``hosts`` (addresses
    or names), but the descriptors in ``keep``; returns how many.

    A collective blocked on a peer that will never answer (its node
    lost, its ranks stopped, a split between them) then fails at once,
    its stream ended, rather than at the process group's timeout.  The
    descriptors stay open: their owner (the process group) closes them.
    """
    ips = _ips_of(hosts)
    if not ips:
        return 0

    def wanted(s):
        return _plain_ip(s.getpeername()[0]) in ips
    return sum(1 for fd in socket_inodes()
               if fd not in keep and _shutdown(fd, wanted))


def wait_listening(host, port, timeout, waiting=None) -> bool:
    """Until something listens on host:port (a new world's rendezvous
    store, which its rank 0 opens): up to ``timeout`` seconds, and past
    them for as long as ``waiting()`` is true; whether it listens.

    torch's store client retries a refused connection once a second: the
    ranks of a new world would wait most of that second for rank 0, which
    forms the world at the same moment.  A joiner waits longer: the ranks
    already there come at the end of their step (and of a checkpoint
    being written), which the process group's timeout does not bound;
    the launcher does, and says so on the channel."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline or (waiting and waiting()):
        try:
            socket.create_connection((host, port), timeout=1.0).close()
            return True
        except OSError:
            time.sleep(0.01)
    return False


class WorldClient:
    """A rank's connection to the world channel.

    :meth:`connect` registers the rank and starts the thread that reads
    the worlds; :meth:`latest` and :meth:`wait` give the newest;
    :meth:`joined` and :meth:`failed` answer.  Once :attr:`lost` is set,
    nothing more is read from the channel nor sent on it.
    ``on_world``, if set, is called from the reader thread with each new
    world (its exceptions are ignored: the reader must go on).  A world
    that names nodes lost (:attr:`WorldMsg.lost`) has the reader shut
    down the process's connections to them (:func:`drop_connections`),
    unless ``drop_lost`` is False; ``dropped`` counts them.
    """

    def __init__(self, addr: str, port: int, token: str, world: int,
                 job: int, node: str, local: int, pid: Optional[int] = None,
                 connect_timeout: float = 10.0):
        pid = os.getpid() if pid is None else pid
        # What the launcher would refuse, refused here, where it says why
        # (the launcher only drops the connection).
        for what, ok in (("token", isinstance(token, str) and
                          _is_hex(token, 64)),
                         ("world", 0 <= world <= _WORLD_MAX),
                         ("job", 1 <= job <= _JOB_MAX),
                         ("node", isinstance(node, str) and
                          bool(_NODE.match(node))),
                         ("local", 0 <= local <= _LOCAL_MAX),
                         ("pid", 1 <= pid <= _INT_MAX),
                         ("port", 1 <= port <= 65535)):
            if not ok:
                raise ValueError("WorldClient: bad %s" % what)
        self.addr, self.port = addr, port
        self.world, self.job, self.node = world, job, node
        self.local, self.pid = local, pid
        self.connect_timeout = connect_timeout
        self.wait_seconds = 60
        self.on_world = None
        self.drop_lost = True
        self.dropped = 0
        self._key = token.encode("ascii")
        self._cnonce = secrets.token_hex(16)
        self._sock = None
        self._thread = None
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._newest = None  # the newest world received
        self._lost = "not connected"
        # Sends, and the reader's close of the socket, one at a time: a
        # send never goes to a descriptor reused after the close.
        self._send_lock = threading.RLock()

    @classmethod
    def from_env(cls, environ=None) -> Optional["WorldClient"]:
        """The client elastic-run's variables describe, not connected yet;
        None when ELASTIC_INPLACE_ADDR is unset or empty (no channel: not
        under elastic-run, or in-place resizes are off).

        Also reads the rank's identity: SLURM_JOB_ID, SLURMD_NODENAME and
        LOCAL_RANK.  Raises :class:`slurm_elastic.ElasticEnvError` naming
        the variable that is missing or malformed.
        """
        env = os.environ if environ is None else environ
        addr = env.get("ELASTIC_INPLACE_ADDR")
        if not addr:
            return None
        host, port = _split_addr(addr)
        token = env.get("ELASTIC_INPLACE_TOKEN")
        if token is None:
            raise ElasticEnvError("ELASTIC_INPLACE_TOKEN is not set")
        if not _is_hex(token, 64):
            # The value is the run's secret: never in a message.
            raise ElasticEnvError("ELASTIC_INPLACE_TOKEN: not 64 hex digits")
        world = _num(env, "ELASTIC_INPLACE_WORLD", 0, _WORLD_MAX)
        wait = _num(env, "ELASTIC_INPLACE_WAIT", 1, _WAIT_MAX)
        job = _num(env, "SLURM_JOB_ID", 1, _JOB_MAX)
        node = env.get("SLURMD_NODENAME")
        if node is None:
            raise ElasticEnvError("SLURMD_NODENAME is not set")
        if not _NODE.match(node):
            raise ElasticEnvError(
                "SLURMD_NODENAME=%.64s: not a node name (1 to %d of "
                "[A-Za-z0-9._-])" % (node, NODE_MAX))
        local = _num(env, "LOCAL_RANK", 0, _LOCAL_MAX)
        c = cls(host, port, token, world, job, node, local)
        c.wait_seconds = wait
        return c

    # --- the connection ---------------------------------------------------
    def connect(self) -> None:
        """Connect, register, and start reading worlds.  Raises
        :class:`InPlaceError` when the launcher cannot be reached or its
        greeting is not the protocol's."""
        if self._sock is not None or self._lost != "not connected":
            raise InPlaceError("world channel: connect() called twice")
        where = "%s:%d" % (self.addr, self.port)
        try:
            sock = socket.create_connection((self.addr, self.port),
                                            timeout=self.connect_timeout)
        except OSError as e:
            raise InPlaceError("world channel %s: cannot connect: %s"
                               % (where, e)) from None
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            hello = self._read_line(sock, "hello").decode("ascii", "replace")
            f = hello.split(" ")
            if len(f) != 3 or f[0] != PROTO or f[1] != "hello":
                raise InPlaceError("not %s: %.64r" % (PROTO, hello))
            if not _is_hex(f[2], 32):
                raise InPlaceError("bad nonce: %.64r" % hello)
            text = "register %s %s %d %d %s %d %d" % (
                f[2], self._cnonce, self.world, self.job, self.node,
                self.local, self.pid)
            mac = hmac.new(self._key, text.encode("ascii"),
                           hashlib.sha256).hexdigest()
            sock.sendall(("register %s %d %d %s %d %d %s\n" % (
                self._cnonce, self.world, self.job, self.node, self.local,
                self.pid, mac)).encode("ascii"))
            # The reader blocks for as long as the run lasts; a status
            # line blocks the training step at most _SEND_S seconds.
            sock.settimeout(None)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                                struct.pack("ll", _SEND_S, 0))
            except OSError:
                pass  # another struct timeval: sends may block longer
        except OSError as e:
            sock.close()
            raise InPlaceError("world channel %s: %s" % (where, e)) from None
        with self._cond:
            self._sock = sock
            self._lost = None
        self._thread = threading.Thread(target=self._run, args=(sock,),
                                        name="slurm_elastic-inplace",
                                        daemon=True)
        self._thread.start()

    @property
    def lost(self) -> Optional[str]:
        """None while the channel is up, else why it is not."""
        return self._lost

    def close(self) -> None:
        """Leave the channel; the reader thread ends.  Idempotent."""
        with self._cond:
            if self._sock is None:  # never connected: never will be
                self._lost = "closed"
        self._lose("closed")
        t = self._thread
        if t is None:
            with self._send_lock:
                if self._sock is not None:
                    self._sock.close()
        elif t is not threading.current_thread():
            t.join(5.0)

    def _lose(self, reason):
        """The channel is lost for good: first reason wins; a reader
        blocked in recv wakes (to EOF) and closes the socket."""
        with self._cond:
            if self._lost is None:
                self._lost = reason
            self._cond.notify_all()
        with self._send_lock:
            if self._sock is not None:
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # not connected, or closed already

    # --- the worlds -------------------------------------------------------
    def latest(self, after: int) -> Optional[WorldMsg]:
        """The newest world received whose number is above ``after``, or
        None; does not block (cheap enough for every step)."""
        w = self._newest
        return w if w is not None and w.number > after else None

    def wait(self, after: int, timeout: float) -> Optional[WorldMsg]:
        """The newest world above ``after``, waiting up to ``timeout``
        seconds for one; None when none came or the channel is lost.
        A world received before the loss still counts (the launcher's
        "stop" is followed by its end)."""
        with self._cond:
            self._cond.wait_for(lambda: self.latest(after) is not None or
                                self._lost is not None, timeout)
            return self.latest(after)

    def wait_member(self, timeout: float) -> Optional[WorldMsg]:
        """For a rank that joins: the first in-place world it is in (its
        job, node and local rank), passing over those it is not in (a
        spare's rank waits beside worlds until one takes it in); None
        when the launcher takes the restart path or stops, the channel
        is lost, or none came within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        after = 0
        while True:
            w = self.wait(after, max(0.0, deadline - time.monotonic()))
            if w is None or w.path != "in-place":
                return None
            if w.rank_of(self.job, self.node, self.local) is not None:
                return w
            after = w.number

    def _read_line(self, sock, what):
        while True:
            i = self._buf.find(b"\n", 0, LINE_MAX)
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[:i + 1]
                return line
            if len(self._buf) >= LINE_MAX:
                raise InPlaceError("%s line longer than %d bytes"
                                   % (what, LINE_MAX))
            self._fill(sock)

    def _read_exact(self, sock, n):
        while len(self._buf) < n:
            self._fill(sock)
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def _fill(self, sock):
        data = sock.recv(65536)
        if not data:
            raise InPlaceError("the launcher closed the channel")
        self._buf += data

    def _read_world(self, sock):
        head = self._read_line(sock, "world header").decode("ascii",
                                                            "replace")
        f = head.split(" ")
        if len(f) != 4 or f[0] != "world":
            raise InPlaceError("not a world header: %.64r" % head)
        n = _dec(f[1], 1, _WORLD_MAX)
        plen = _dec(f[2], 0, PAYLOAD_MAX)
        if n is None or plen is None or not _is_hex(f[3], 64):
            raise InPlaceError("bad world header (number, length up to %d, "
                               "MAC): %.64r" % (PAYLOAD_MAX, head))
        payload = self._read_exact(sock, plen)
        text = b"world %s %d %d\n" % (self._cnonce.encode("ascii"), n, plen)
        mac = hmac.new(self._key, text + payload, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, f[3]):
            raise InPlaceError("world %d: wrong MAC (not the run's token, or "
                               "not sent for this connection)" % n)
        return parse_world(payload, n)

    def _run(self, sock):
        try:
            while True:
                w = self._read_world(sock)
                with self._cond:
                    if self._lost is not None:
                        break
                    # An old world (or one we have) is no news.
                    if self._newest is not None and \
                            w.number <= self._newest.number:
                        continue
                # The cuts come before the world is seen: a rank that
                # moved to it first would have its new process group's
                # connections cut.
                if w.lost and self.drop_lost:
                    self.dropped += drop_connections(w.lost,
                                                     keep=(sock.fileno(),))
                cb = self.on_world
                if cb is not None:
                    try:
                        cb(w)
                    except Exception:
                        pass  # the caller's; the channel goes on
                with self._cond:
                    self._newest = w
                    self._cond.notify_all()
        except OSError as e:  # InPlaceError included
            self._lose(str(e) or type(e).__name__)
        except Exception as e:  # a bug here: still never half-believe
            self._lose("reader: %r" % e)
        finally:
            self._lose("closed")
            with self._send_lock:
                sock.close()

    # --- the answers ------------------------------------------------------
    def joined(self, n: int, step: int) -> None:
        """Tell the launcher the rank is in world n, resuming after step
        steps.  Never raises: a failed send loses the channel."""
        self._send("joined", n, step)

    def failed(self, n: int, why: Optional[str] = None) -> None:
        """Tell the launcher the rank cannot join world n, and why (lower-
        case words and digits joined by "-"; elastic-run's fallback line
        says it: path=restart why=WHY)."""
        if why is not None and not _WHY.match(why):
            raise ValueError("why: %r is not [a-z0-9-]{1,%d}"
                             % (why, WHY_MAX - 1))
        self._send("failed", n, why=why)

    def _send(self, verb, *nums, why=None):
        err = None
        try:
            nums = [int(v) for v in nums]
        except (TypeError, ValueError):
            nums = [-1]
        if not 0 <= nums[0] <= _WORLD_MAX or any(
                not 0 <= v <= _STEP_MAX for v in nums[1:]):
            # The launcher would drop the connection without a word.
            self._lose("%s: bad world or step" % verb)
            return
        line = " ".join([verb] + [str(v) for v in nums] +
                        ([why] if why else [])) + "\n"
        with self._send_lock:
            if self._lost is not None:
                return
            try:
                self._sock.sendall(line.encode("ascii"))
            except OSError as e:
                err = e
        if err is not None:
            self._lose("%s: send: %s" % (verb, err))
