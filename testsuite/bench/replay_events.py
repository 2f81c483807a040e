#!/usr/bin/python3
"""The groups' timelines of a bench_cluster_replay run, from elasticd's
API: every INTERVAL seconds, GET /v1/groups/ID/events of each group
whose base job id is in IDS (a file the replay appends to), the events
merged with those read before (elasticd keeps a group's most recent 32
only) and written whole to OUT as {ID: [event, ...]} (time order).  Runs
until killed; each credential is root's munge credential bound to its
request (elasticd-api(7)).

  replay_events.py URL MUNGE-SOCKET IDS OUT [INTERVAL]
"""
import json
import os
import subprocess
import sys
import time
import urllib.request


def get(url, path, sock):
    payload = "elastic-api/1 request GET %s %s" % (path, os.urandom(16).hex())
    cred = subprocess.run(["munge", "-s", payload, "-S", sock], capture_output=True,
                          text=True, check=True).stdout.strip()
    req = urllib.request.Request(url + path, headers={"Authorization": "Munge " + cred})
    with urllib.request.urlopen(req, timeout=5) as f:
        return json.load(f)


def merge(known, events):
    seen = {(e.get("time"), e.get("generation"), e.get("cause")) for e in known}
    for e in events:
        if (e.get("time"), e.get("generation"), e.get("cause")) not in seen:
            known.append(e)
    known.sort(key=lambda e: e.get("time") or "")


def main(url, sock, ids_path, out, interval=2.0):
    timelines = {}
    while True:
        try:
            with open(ids_path) as f:
                ids = [ln.split()[0] for ln in f if ln.strip()]
        except OSError:
            ids = []
        for gid in ids:
            try:
                doc = get(url, "/v1/groups/%s/events" % gid, sock)
            except Exception:
                continue  # not adopted yet, or a busy moment: next time
            merge(timelines.setdefault(gid, []), doc.get("events") or [])
        with open(out + ".new", "w") as f:
            json.dump(timelines, f)
        os.replace(out + ".new", out)
        time.sleep(interval)


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(*sys.argv[1:5], *(float(a) for a in sys.argv[5:]))
