"""Unit tests of slurm_elastic.inplace, the rank's side of the world
channel, against a fake launcher that speaks the protocol of
src/elastic-run/inplace.h."""

import hashlib
import hmac
import os
import secrets
import socket
import threading
import time
import unittest

import slurm_elastic as se
from slurm_elastic import inplace
from slurm_elastic.inplace import InPlaceError, WorldClient, parse_world

TOKEN = "0123456789abcdef" * 4

IN_PLACE = (b"path in-place\nsize 12\nnproc 4\nmaster n1 29511\nsrc 0\n"
            b"member 101 0 n1,n2\nmember 202 8 n5\n")


def mac(text, token=TOKEN):
    return hmac.new(token.encode("ascii"), text, hashlib.sha256).hexdigest()


class Peer:
    """The launcher's end of one connection."""

    def __init__(self, sock, snonce):
        self.sock = sock
        self.sock.settimeout(5)
        self.snonce = snonce
        self.buf = b""
        self.reg = None

    def line(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(4096)
            if not data:
                raise EOFError("the client closed")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("ascii")

    def world(self, n, payload, cnonce=None, token=TOKEN):
        """World n's message for this connection (or for cnonce's)."""
        cnonce = cnonce or self.reg["cnonce"]
        m = mac(b"world %s %d %d\n" % (cnonce.encode("ascii"), n,
                                        len(payload)) + payload, token)
        return b"world %d %d %s\n" % (n, len(payload),
                                      m.encode("ascii")) + payload

    def send(self, data):
        self.sock.sendall(data)

    def send_world(self, n, payload=IN_PLACE, **kw):
        self.send(self.world(n, payload, **kw))

    def close(self):
        self.sock.close()


class FakeLauncher:
    """elastic-run's listening side: greets, and checks a register as
    inplace_parse_register does."""

    def __init__(self):
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(8)
        self.lsock.settimeout(5)
        self.port = self.lsock.getsockname()[1]
        self.peers = []

    def accept(self, hello=None):
        s, _ = self.lsock.accept()
        p = Peer(s, secrets.token_hex(16))
        self.peers.append(p)
        if hello is None:
            hello = "elastic-inplace/1 hello %s" % p.snonce
        p.send(hello.encode("ascii") + b"\n")
        return p

    def register(self, p):
        f = p.line().split(" ")
        assert len(f) == 8 and f[0] == "register", f
        text = "register %s %s" % (p.snonce, " ".join(f[1:7]))
        p.reg = dict(cnonce=f[1], world=int(f[2]), job=int(f[3]), node=f[4],
                     local=int(f[5]), pid=int(f[6]),
                     mac_ok=hmac.compare_digest(mac(text.encode("ascii")),
                                                f[7]))
        return p

    def connect(self, client):
        """client.connect() against this launcher: the launcher's Peer."""
        out = {}

        def serve():
            try:
                out["peer"] = self.register(self.accept())
            except BaseException as e:
                out["error"] = e

        t = threading.Thread(target=serve)
        t.start()
        try:
            client.connect()
        finally:
            t.join(5)
        if "error" in out:
            raise out["error"]
        return out["peer"]

    def close(self):
        for p in self.peers:
            p.close()
        self.lsock.close()


class Parse(unittest.TestCase):
    def test_in_place(self):
        w = parse_world(IN_PLACE, 7)
        self.assertEqual(w, inplace.WorldMsg(
            number=7, path="in-place", size=12, nproc=4, master_addr="n1",
            master_port=29511, src=0,
            members=((101, 0, ("n1", "n2")), (202, 8, ("n5",)))))
        w = parse_world(b"path in-place\nmember 9 0 a\nsrc 1\nsize 2\n"
                        b"nproc 2\nmaster fe80::1%eth0 1\n", 1)
        self.assertEqual((w.master_addr, w.master_port, w.src),
                         ("fe80::1%eth0", 1, 1))

    def test_lost(self):
        self.assertEqual(parse_world(IN_PLACE, 7).lost, ())
        w = parse_world(IN_PLACE + b"lost 10.0.0.5,n7,fe80::1%eth0\n", 7)
        self.assertEqual(w.lost, ("10.0.0.5", "n7", "fe80::1%eth0"))
        many = b",".join(b"n%d" % i for i in range(inplace.LOST_MAX))
        self.assertEqual(len(parse_world(IN_PLACE + b"lost " + many + b"\n",
                                         7).lost), inplace.LOST_MAX)
        for line, why in ((b"lost " + many + b",x", "1 to 64 addresses"),
                          (b"lost n1,,n2", "not 'lost ADDR"),
                          (b"lost n/1", "not 'lost ADDR"),
                          (b"lost", "malformed lost"),
                          (b"lost n1 n2", "malformed lost")):
            with self.assertRaises(InPlaceError, msg=line) as cm:
                parse_world(IN_PLACE + line + b"\n", 7)
            self.assertIn(why, str(cm.exception))
        with self.assertRaises(InPlaceError) as cm:
            parse_world(b"path restart\nlost n1\n", 7)
        self.assertIn("an item in a restart world", str(cm.exception))

    def test_rank_of(self):
        w = parse_world(IN_PLACE, 7)
        # Survivors: OFFSET + index * nproc + local.
        self.assertEqual(w.rank_of(101, "n1", 0), 0)
        self.assertEqual(w.rank_of(101, "n2", 3), 7)
        # A joiner's member comes after them.
        self.assertEqual(w.rank_of(202, "n5", 0), 8)
        self.assertEqual(w.rank_of(202, "n5", 3), 11)
        # Leavers: a job not in the world, a node not in its job's list,
        # a local rank beyond nproc.
        self.assertIsNone(w.rank_of(303, "n1", 0))
        self.assertIsNone(w.rank_of(101, "n5", 0))
        self.assertIsNone(w.rank_of(101, "n1", 4))
        self.assertIsNone(w.rank_of(101, "n1", -1))
        self.assertTrue(w.has_job(202))
        self.assertFalse(w.has_job(303))

    def test_restart_stop(self):
        for path in ("restart", "stop"):
            w = parse_world(b"path %s\n" % path.encode(), 9)
            self.assertEqual(w, inplace.WorldMsg(9, path, 0, 0, "", 0, 0, ()))
            self.assertIsNone(w.rank_of(101, "n1", 0))
            self.assertFalse(w.has_job(101))

    def test_rejects(self):
        base = IN_PLACE.split(b"\n")[:-1]

        def but(i, line):
            lines = list(base)
            if line is None:
                del lines[i]
            else:
                lines[i] = line
            return b"\n".join(lines) + b"\n"

        cases = [
            (but(2, b"ranks 4"), "line 3 b'ranks 4': unknown item"),
            (IN_PLACE + b"colour blue\n", "unknown item"),
            (but(3, b"master n1 0"), "line 4 b'master n1 0': port not"),
            (but(3, b"master n1 65536"), "port not"),
            (but(3, b"master n1 x"), "port not"),
            (but(3, b"master n1"), "malformed master"),
            (but(3, b"master n/1 29500"), "not an address"),
            (but(4, b"src 12"), "line 5 b'src 12': src not below size 12"),
            (but(4, b"src -1"), "src not"),
            (but(6, b"member 202 9 n5"), "line 7 b'member 202 9 n5': ranks"),
            (but(6, b"member 202 8 n5,n6"), "beyond size 12"),
            (but(6, b"member 202 8 n/5"), "node 'n/5': not"),
            (but(6, b"member 202 8 n5,"), "node '': not"),
            (but(6, b"member 202 8 " + b"n" * 256), "not 1 to 255"),
            (but(6, b"member 202 8 n5 n6"), "not 'member JOB OFFSET"),
            (but(6, b"member 101 8 n5"), "job 101 listed twice"),
            (but(6, b"member 0 8 n5"), "job not"),
            (but(6, b"member 202 8 n5,n5"), "a node listed twice"),
            (but(1, b"size 0"), "size not 1 to"),
            (but(1, b"size +12"), "size not"),
            (but(1, b"size  12"), "malformed size"),
            (but(1, b"size 2147483648"), "size not"),
            (but(2, b"nproc 0"), "nproc not"),
            (but(1, b"size \xc3\xa9"), "line 2 b'size \\xc3\\xa9': not ASCII"),
            (but(1, b""), "line 2 b'': unknown item"),
            (but(0, b"path in place"), "malformed path"),
            (but(0, b"path sideways"), "malformed path"),
            (IN_PLACE + b"size 12\n", "size given twice"),
            (but(0, None), "no path"),
            (but(4, None), "in-place without src"),
            (but(3, None), "in-place without master"),
            (b"\n".join(base[:5]) + b"\n", "in-place without a member"),
            (IN_PLACE[:-1], "not ending in a newline"),
            (b"", "payload empty"),
            (b"path restart\nsize 4\n", "line 2 b'size 4': an item in a "
             "restart world"),
            (b"path stop\nmember 1 0 a\n", "an item in a stop world"),
            (b"path stop\n" + b"x" * inplace.PAYLOAD_MAX, "payload of"),
        ]
        for payload, why in cases:
            with self.assertRaises(InPlaceError, msg=payload[:80]) as cm:
                parse_world(payload, 5)
            self.assertTrue(str(cm.exception).startswith("world 5: "),
                            str(cm.exception))
            self.assertIn(why, str(cm.exception))


ENV = {
    "ELASTIC_INPLACE_ADDR": "batch1:40123",
    "ELASTIC_INPLACE_TOKEN": TOKEN,
    "ELASTIC_INPLACE_WORLD": "3",
    "ELASTIC_INPLACE_WAIT": "390",
    "SLURM_JOB_ID": "101",
    "SLURMD_NODENAME": "n2",
    "LOCAL_RANK": "1",
}


def env(**changes):
    e = dict(ENV)
    for k, v in changes.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def connected(host):
    """A TCP connection from here to a listener on host: (ours, theirs)."""
    ls = socket.create_server((host, 0))
    with ls:
        ours = socket.create_connection(ls.getsockname())
        theirs, _ = ls.accept()
    return ours, theirs


class Drop(unittest.TestCase):
    """drop_connections ends this process's connections to given hosts
    (127.0.0.2 and 127.0.0.3 are this machine's too, on lo)."""

    def setUp(self):
        self.socks = []
        for host in ("127.0.0.1", "127.0.0.2", "127.0.0.3"):
            ours, theirs = connected(host)
            self.socks.append((ours, theirs))
            self.addCleanup(ours.close)
            self.addCleanup(theirs.close)

    def ended(self, s):
        s.settimeout(0.05)
        try:
            return s.recv(1) == b""
        except socket.timeout:
            return False

    def test_only_those_hosts(self):
        (a, a2), (b, b2), (c, c2) = self.socks
        # A reader blocked on b returns at once, its stream ended.
        got = []
        b.settimeout(5)
        t = threading.Thread(target=lambda: got.append(b.recv(1)))
        t.start()
        time.sleep(0.1)
        t0 = time.monotonic()
        self.assertEqual(inplace.drop_connections(["127.0.0.2"]), 1)
        t.join(5)
        self.assertEqual(got, [b""])
        self.assertLess(time.monotonic() - t0, 1)
        # Its peer sees the end too; the others live on.
        self.assertTrue(self.ended(b2))
        for s in (a, a2, c, c2):
            self.assertFalse(self.ended(s))
        a.sendall(b"x")
        self.assertEqual(a2.recv(1), b"x")

    def test_shutdown_sockets(self):
        (a, _), (b, b2), (c, _) = self.socks
        before = inplace.socket_inodes()
        self.assertIn(b.fileno(), before)
        d, d2 = connected("127.0.0.1")
        self.addCleanup(d2.close)
        new = {fd: ino for fd, ino in inplace.socket_inodes().items()
               if before.get(fd) != ino}
        self.assertEqual(set(new), {d.fileno(), d2.fileno()})
        # One closed and its descriptor reused by another socket: not
        # that one.
        fd = d.fileno()
        d.close()
        e = socket.socket(fileno=os.dup(b.fileno()))
        self.addCleanup(e.close)
        if e.fileno() != fd:
            os.dup2(e.fileno(), fd)
            self.addCleanup(os.close, fd)
        self.assertEqual(inplace.shutdown_sockets(new), 1)  # d2 only
        # Reused between the listing and the cut: the inode decides.
        self.assertFalse(inplace._shutdown(fd, lambda s: True, new[fd]))
        self.assertTrue(self.ended(d2))
        for s in (a, b, c, b2):
            self.assertFalse(self.ended(s))
        # Never a listener, nor a connection of the spared port.
        before = inplace.socket_inodes()
        ls = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(ls.close)
        f = socket.create_connection(ls.getsockname())
        self.addCleanup(f.close)
        f2, _ = ls.accept()
        self.addCleanup(f2.close)
        g, g2 = connected("127.0.0.1")
        self.addCleanup(g.close)
        self.addCleanup(g2.close)
        new = {fd: ino for fd, ino in inplace.socket_inodes().items()
               if before.get(fd) != ino}
        self.assertEqual(len(new), 5)
        self.assertEqual(inplace.shutdown_sockets(
            new, spare_port=ls.getsockname()[1]), 2)  # g and g2
        self.assertTrue(self.ended(g) and self.ended(g2))
        self.assertFalse(self.ended(f) or self.ended(f2))
        f3 = socket.create_connection(ls.getsockname())  # still listens
        f3.close()

    def test_keep_names_unresolved(self):
        (a, _), (b, _), (c, _) = self.socks
        self.assertEqual(inplace.drop_connections(
            ["127.0.0.3", "no-such-host.invalid"], keep=(c.fileno(),)), 0)
        self.assertEqual(inplace.drop_connections(
            ["no-such-host.invalid"]), 0)
        self.assertEqual(inplace.drop_connections([]), 0)
        for s in (a, b, c):
            self.assertFalse(self.ended(s))


class FromEnv(unittest.TestCase):
    def test_good(self):
        c = WorldClient.from_env(ENV)
        self.assertEqual((c.addr, c.port, c.world, c.wait_seconds, c.job,
                          c.node, c.local), ("batch1", 40123, 3, 390, 101,
                                             "n2", 1))
        self.assertIsNone(c.on_world)
        self.assertEqual(c.lost, "not connected")
        c = WorldClient.from_env(env(ELASTIC_INPLACE_ADDR="[::1]:7",
                                     ELASTIC_INPLACE_WORLD="0"))
        self.assertEqual((c.addr, c.port, c.world), ("::1", 7, 0))
        c = WorldClient.from_env(env(ELASTIC_INPLACE_ADDR="10.1.2.3:65535"))
        self.assertEqual((c.addr, c.port), ("10.1.2.3", 65535))
        # Constructed directly: the default wait.
        self.assertEqual(WorldClient("h", 1, TOKEN, 0, 1, "n", 0)
                         .wait_seconds, 60)

    def test_no_channel(self):
        self.assertIsNone(WorldClient.from_env(env(ELASTIC_INPLACE_ADDR=None)))
        self.assertIsNone(WorldClient.from_env(env(ELASTIC_INPLACE_ADDR="")))
        # Nothing else is read then.
        self.assertIsNone(WorldClient.from_env({}))

    def test_errors(self):
        cases = [
            ("ELASTIC_INPLACE_ADDR", ["batch1", "batch1:0", "batch1:x",
                                      "batch1:65536", ":40123", "::1:5",
                                      "[::1]", "[]:5", "a b:5", "batch1:+5",
                                      "h" * 300 + ":5"],
             "ELASTIC_INPLACE_ADDR="),
            ("ELASTIC_INPLACE_TOKEN", [TOKEN[:-1], TOKEN + "0", TOKEN.upper(),
                                       "g" * 64, ""],
             "ELASTIC_INPLACE_TOKEN: not 64 hex digits"),
            ("ELASTIC_INPLACE_TOKEN", [None],
             "ELASTIC_INPLACE_TOKEN is not set"),
            ("ELASTIC_INPLACE_WORLD", ["-1", "x", "", None, "1" * 20],
             "ELASTIC_INPLACE_WORLD"),
            ("ELASTIC_INPLACE_WAIT", ["0", "86401", "1.5", None],
             "ELASTIC_INPLACE_WAIT"),
            ("SLURM_JOB_ID", ["0", "4294967296", "12_3", None],
             "SLURM_JOB_ID"),
            ("SLURMD_NODENAME", ["a b", "", "n/1", "n" * 256, None],
             "SLURMD_NODENAME"),
            ("LOCAL_RANK", ["65536", "-1", None], "LOCAL_RANK"),
        ]
        for name, values, start in cases:
            for v in values:
                with self.assertRaises(se.ElasticEnvError,
                                       msg="%s=%r" % (name, v)) as cm:
                    WorldClient.from_env(env(**{name: v}))
                msg = str(cm.exception)
                self.assertTrue(msg.startswith(start), msg)
                self.assertIsInstance(cm.exception, ValueError)
                # The secret is never in a message.
                if name == "ELASTIC_INPLACE_TOKEN" and v:
                    self.assertNotIn(v[:16], msg)

    def test_init_rejects(self):
        good = dict(addr="h", port=1, token=TOKEN, world=0, job=1, node="n",
                    local=0, pid=1)
        WorldClient(**good)
        for k, v in [("token", TOKEN.upper()), ("token", "ab"), ("job", 0),
                     ("node", "a b"), ("local", 65536), ("pid", 0),
                     ("world", -1), ("port", 0)]:
            with self.assertRaises(ValueError, msg=k):
                WorldClient(**dict(good, **{k: v}))


class Channel(unittest.TestCase):
    def setUp(self):
        self.srv = FakeLauncher()
        self.addCleanup(self.srv.close)
        self.client = self.new_client()

    def new_client(self):
        c = WorldClient("127.0.0.1", self.srv.port, TOKEN, world=3, job=101,
                        node="n2", local=1, pid=4242, connect_timeout=5)
        self.addCleanup(c.close)
        return c

    def up(self, client=None):
        return self.srv.connect(client or self.client)

    def assertLost(self, why, client=None):
        """The client loses the channel promptly, saying why."""
        c = client or self.client
        t0 = time.monotonic()
        self.assertIsNone(c.wait(2**62, 5))
        self.assertLess(time.monotonic() - t0, 2)
        self.assertIsNotNone(c.lost)
        self.assertIn(why, c.lost)
        c._thread.join(2)
        self.assertFalse(c._thread.is_alive())

    def test_register(self):
        p = self.up()
        self.assertTrue(p.reg["mac_ok"])
        self.assertEqual((p.reg["world"], p.reg["job"], p.reg["node"],
                          p.reg["local"], p.reg["pid"]),
                         (3, 101, "n2", 1, 4242))
        self.assertRegex(p.reg["cnonce"], r"\A[0-9a-f]{32}\Z")
        self.assertIsNone(self.client.lost)
        # Fresh per connection.
        self.assertNotEqual(self.up(self.new_client()).reg["cnonce"],
                            p.reg["cnonce"])

    def test_world_received(self):
        seen = []
        self.client.on_world = seen.append
        p = self.up()
        p.send_world(4)
        w = self.client.wait(3, 5)
        self.assertEqual(w, parse_world(IN_PLACE, 4))
        self.assertIs(self.client.latest(3), w)
        self.assertIsNone(self.client.latest(4))
        self.assertEqual(seen, [w])
        self.assertEqual(w.rank_of(self.client.job, self.client.node,
                                   self.client.local), 5)
        p.send_world(5, b"path stop\n")
        self.assertEqual(self.client.wait(4, 5).path, "stop")
        self.assertIsNone(self.client.lost)

    def test_lost_dropped(self):
        ours, theirs = connected("127.0.0.2")
        self.addCleanup(ours.close)
        self.addCleanup(theirs.close)
        p = self.up()
        p.send_world(4, IN_PLACE + b"lost 127.0.0.2\n")
        self.assertEqual(self.client.wait(3, 5).lost, ("127.0.0.2",))
        ours.settimeout(5)
        self.assertEqual(ours.recv(1), b"")
        deadline = time.monotonic() + 5  # counted once the drop returns
        while self.client.dropped == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(self.client.dropped, 1)
        self.assertIsNone(self.client.lost)  # the channel itself stays
        p.send_world(5)
        self.assertEqual(self.client.wait(4, 5).number, 5)

    def test_lost_kept_when_asked(self):
        ours, theirs = connected("127.0.0.2")
        self.addCleanup(ours.close)
        self.addCleanup(theirs.close)
        self.client.drop_lost = False
        p = self.up()
        p.send_world(4, IN_PLACE + b"lost 127.0.0.2\n")
        self.assertEqual(self.client.wait(3, 5).number, 4)
        p.send_world(5)
        self.assertEqual(self.client.wait(4, 5).number, 5)
        ours.sendall(b"x")
        self.assertEqual(theirs.recv(1), b"x")
        self.assertEqual(self.client.dropped, 0)

    def test_latest_and_wait(self):
        p = self.up()
        self.assertIsNone(self.client.latest(0))
        t0 = time.monotonic()
        self.assertIsNone(self.client.wait(0, 0.2))
        self.assertGreaterEqual(time.monotonic() - t0, 0.19)
        self.assertIsNone(self.client.lost)
        # A world that comes while waiting ends the wait.
        timer = threading.Timer(0.1, p.send_world, (4,))
        timer.start()
        self.addCleanup(timer.join)
        t0 = time.monotonic()
        self.assertEqual(self.client.wait(0, 5).number, 4)
        self.assertLess(time.monotonic() - t0, 2)
        # Already there: no waiting, with any timeout.
        self.assertEqual(self.client.wait(3, 0).number, 4)
        self.assertIsNone(self.client.wait(4, 0))

    def test_world_seen_after_callback(self):
        # The callback cuts the old process group's connections: a rank
        # that saw the world first would have moved to its new group.
        seen = []
        self.client.on_world = lambda w: seen.append(self.client.latest(3))
        p = self.up()
        p.send_world(4)
        self.assertEqual(self.client.wait(3, 5).number, 4)
        self.assertEqual(seen, [None])

    def test_wait_member(self):
        # A spare's rank: worlds without it pass; the first with it is
        # its own; the restart path or a stop ends the wait.
        other = (b"path in-place\nsize 4\nnproc 4\nmaster n1 29511\n"
                 b"src 0\nmember 202 0 n5\n")
        p = self.up()
        p.send_world(4, other)
        p.send_world(5, IN_PLACE)
        w = self.client.wait_member(5)
        self.assertEqual(w.number, 5)
        self.assertEqual(w.rank_of(101, "n2", 1), 5)
        p.send_world(6, other)
        p.send_world(7, b"path restart\n")
        self.assertEqual(self.client.wait(6, 5).number, 7)
        t0 = time.monotonic()
        self.assertIsNone(self.client.wait_member(5))
        self.assertLess(time.monotonic() - t0, 2)
        self.assertIsNone(self.new_client().wait_member(0.1))

    def test_older_ignored(self):
        seen = []
        self.client.on_world = lambda w: seen.append(w.number)
        p = self.up()
        for n in (5, 3, 5, 6):
            p.send_world(n, b"path restart\n" if n == 3 else IN_PLACE)
        self.assertEqual(self.client.wait(5, 5).number, 6)
        self.assertEqual(seen, [5, 6])
        self.assertEqual(self.client.latest(0).path, "in-place")

    def test_callback_errors_swallowed(self):
        def boom(w):
            raise RuntimeError("the caller's bug")
        self.client.on_world = boom
        p = self.up()
        p.send_world(4)
        p.send_world(5)
        self.assertEqual(self.client.wait(4, 5).number, 5)
        self.assertIsNone(self.client.lost)

    def test_bad_mac(self):
        p = self.up()
        p.send_world(4, token="f" * 64)
        self.assertLost("world 4: wrong MAC")
        self.assertIsNone(self.client.latest(0))
        # Nothing after it is believed (the socket is closed anyway).
        try:
            p.send_world(5)
        except OSError:
            pass
        time.sleep(0.05)
        self.assertIsNone(self.client.latest(0))

    def test_replay_from_other_connection(self):
        a = self.new_client()
        pa = self.up(a)
        pb = self.up()
        msg = pa.world(4, IN_PLACE)
        pa.send(msg)
        self.assertEqual(a.wait(3, 5).number, 4)
        pb.send(msg)  # bound to a's nonce: b must not believe it
        self.assertLost("wrong MAC")
        self.assertIsNone(self.client.latest(0))
        self.assertIsNone(a.lost)

    def test_oversized_header(self):
        p = self.up()
        p.send(b"world 4 " + b"1" * 2000)
        self.assertLost("longer than 1024 bytes")

    def test_oversized_len(self):
        p = self.up()
        # Refused at the header: the client does not wait for 1 MiB.
        p.send(b"world 4 1048577 %s\n" % (b"0" * 64))
        self.assertLost("bad world header")

    def test_malformed_header(self):
        for head in (b"world 4 10\n", b"world 0 10 %s\n" % (b"0" * 64),
                     b"hello\n", b"world 4 1 %s\n" % (b"A" * 64)):
            c = self.new_client()
            self.up(c).send(head)
            self.assertLost("world header", c)

    def test_bad_payload_loses(self):
        p = self.up()
        p.send_world(4, IN_PLACE + b"colour blue\n")
        self.assertLost("world 4: line 8 b'colour blue': unknown item")
        self.assertIsNone(self.client.latest(0))

    def test_eof(self):
        p = self.up()
        p.send_world(4, b"path stop\n")
        self.assertEqual(self.client.wait(3, 5).number, 4)
        p.close()
        self.assertLost("closed the channel")
        # What came before the end still stands.
        self.assertEqual(self.client.latest(3).path, "stop")
        self.assertEqual(self.client.wait(3, 0).number, 4)

    def test_joined_failed(self):
        p = self.up()
        self.client.joined(4, 120)
        self.client.failed(5)
        self.client.failed(6, "shard-1-lost")
        self.assertEqual(p.line(), "joined 4 120")
        self.assertEqual(p.line(), "failed 5")
        self.assertEqual(p.line(), "failed 6 shard-1-lost")
        # A reason the launcher would refuse is the caller's error.
        for bad in ("Shard", "a b", "", "x" * 48):
            self.assertRaises(ValueError, self.client.failed, 6, bad)
        self.assertIsNone(self.client.lost)
        # A value the launcher would refuse loses the channel, quietly.
        self.client.joined(6, -1)
        self.assertLost("joined: bad world or step")
        self.assertRaises(EOFError, p.line)
        # Lost: nothing sent, nothing raised.
        self.client.failed(7)

    def test_send_after_peer_gone(self):
        p = self.up()
        p.close()
        self.assertLost("closed the channel")
        self.client.joined(4, 1)
        self.client.failed(4)

    def test_close(self):
        p = self.up()
        t = self.client._thread
        self.client.close()
        self.client.close()
        self.assertFalse(t.is_alive())
        self.assertEqual(self.client.lost, "closed")
        self.assertIsNone(self.client.wait(0, 5))
        self.assertRaises(EOFError, p.line)
        self.assertRaises(InPlaceError, self.client.connect)
        # Never connected: closing is harmless, connecting refused.
        c = self.new_client()
        c.close()
        self.assertEqual(c.lost, "closed")
        self.assertRaises(InPlaceError, c.connect)

    def test_bad_hello(self):
        for hello, why in [("elastic-inplace/2 hello " + "0" * 32,
                            "not elastic-inplace/1"),
                           ("elastic-inplace/1 hello " + "0" * 31,
                            "bad nonce"),
                           ("elastic-inplace/1 hello " + "A" * 32,
                            "bad nonce"),
                           ("elastic-inplace/1 hi " + "0" * 32,
                            "not elastic-inplace/1"),
                           ("x" * 2000, "longer than 1024")]:
            c = self.new_client()
            t = threading.Thread(target=self.srv.accept, args=(hello,))
            t.start()
            with self.assertRaises(InPlaceError, msg=hello[:40]) as cm:
                c.connect()
            t.join(5)
            self.assertIn(why, str(cm.exception))
            self.assertEqual(c.lost, "not connected")

    def test_hello_timeout_and_refused(self):
        c = WorldClient("127.0.0.1", self.srv.port, TOKEN, 3, 101, "n2", 1,
                        connect_timeout=0.2)
        self.addCleanup(c.close)
        with self.assertRaisesRegex(InPlaceError, "timed out"):
            c.connect()  # accepted by the kernel, never greeted
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        c = WorldClient("127.0.0.1", port, TOKEN, 3, 101, "n2", 1)
        with self.assertRaisesRegex(InPlaceError, "cannot connect"):
            c.connect()
        self.assertIsInstance(InPlaceError("x"), ConnectionError)


class WaitListening(unittest.TestCase):
    """A new world's rank 0 opens its store late (the end of its step):
    a joiner waits past its timeout while told to, and no longer."""

    def setUp(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()

    def listen_after(self, seconds):
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.addCleanup(srv.close)

        def later():
            time.sleep(seconds)
            srv.bind(("127.0.0.1", self.port))
            srv.listen(4)
        t = threading.Thread(target=later)
        t.start()
        self.addCleanup(t.join)

    def test_within_timeout(self):
        self.listen_after(0.2)
        self.assertTrue(inplace.wait_listening("127.0.0.1", self.port, 5.0))

    def test_past_timeout_while_waiting(self):
        self.listen_after(0.6)
        t0 = time.monotonic()
        # Told to wait for 10 s at most: a listener that never comes
        # fails the test rather than hanging it.
        self.assertTrue(inplace.wait_listening(
            "127.0.0.1", self.port, 0.1, lambda: time.monotonic() - t0 < 10))
        self.assertGreaterEqual(time.monotonic() - t0, 0.5)

    def test_gives_up(self):
        t0 = time.monotonic()
        self.assertFalse(inplace.wait_listening("127.0.0.1", self.port, 0.2))
        asked = []

        def waiting():
            asked.append(1)
            return len(asked) < 5  # a newer world came, or the channel went
        self.assertFalse(inplace.wait_listening("127.0.0.1", self.port, 0.0,
                                                waiting))
        self.assertEqual(len(asked), 5)
        self.assertLess(time.monotonic() - t0, 3.0)


if __name__ == "__main__":
    unittest.main()
