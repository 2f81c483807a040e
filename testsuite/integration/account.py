#!/usr/bin/env python3
"""account.py: one judgement of a job's account document (elasticctl
report --json), or of its picture, for the integration tests.

    account.py DOC adds-up TOLERANCE   held = training + lost causes, in
                                       node-seconds, within TOLERANCE
    account.py DOC final               the launcher's last report came
    account.py DOC kinds KIND...       each KIND among the events and among
                                       the resizes that ended
    account.py DOC steps               prints the steps done
    account.py DOC ratios              goodput and ettr in (0, 1]
    account.py DOC png FILE            FILE is a PNG with a size (IHDR)
    account.py DOC svg FILE WORD...    FILE is an SVG whose text has each WORD

Exits 0 when it holds, else 1 with the reason on stderr."""

import json
import struct
import sys


def fail(why):
    print("account.py: " + why, file=sys.stderr)
    sys.exit(1)


def adds_up(doc, tol):
    # The causes are node_seconds' keys but held, as elasticd names them
    # from the one table the launcher and elasticctl use too
    # (src/common/acctnames.c): no list here to fall behind it.
    ns = doc["node_seconds"]
    lost = sum(v for c, v in ns.items() if c != "held")
    if abs(ns["held"] - lost) > tol:
        fail("held %.3f, causes %.3f: off by %.3f"
             % (ns["held"], lost, ns["held"] - lost))
    if ns["held"] <= 0 or ns["training"] <= 0:
        fail("nothing held or trained: %r" % ns)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
        rest = len(f.read())
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail("%s: not a PNG" % path)
    w, h = struct.unpack(">II", head[16:24])
    if w == 0 or h == 0 or rest + 24 < 10000:
        fail("%s: %dx%d, %d bytes" % (path, w, h, rest + 24))


def main(argv):
    doc = json.load(open(argv[1]))
    what, args = argv[2], argv[3:]
    if what == "adds-up":
        adds_up(doc, float(args[0]))
    elif what == "final":
        if not doc.get("ended") or doc.get("phase") != "ended":
            fail("not final: ended %r, phase %r"
                 % (doc.get("ended"), doc.get("phase")))
    elif what == "kinds":
        # Each kind both as an event (no path) and as a resize that
        # ended (its path): the kind names the cause, not a guess.
        evs = doc.get("events", [])
        for ended in (False, True):
            seen = {e.get("kind") for e in evs if ("path" in e) == ended}
            missing = [k for k in args if k not in seen]
            if missing:
                fail("no %s %s among %s" % ("resize" if ended else "event",
                                            missing, sorted(seen)))
    elif what == "steps":
        print(doc["steps"])
    elif what == "ratios":
        for k in ("goodput", "ettr"):
            if not 0 < doc[k] <= 1:
                fail("%s %r" % (k, doc[k]))
    elif what == "png":
        png_size(args[0])
    elif what == "svg":
        text = open(args[0]).read()
        if "<svg" not in text:
            fail("%s: not an SVG" % args[0])
        missing = [w for w in args[1:] if ">%s<" % w not in text]
        if missing:
            fail("%s: no mark %s" % (args[0], missing))
    else:
        fail("unknown judgement " + what)


if __name__ == "__main__":
    main(sys.argv)
