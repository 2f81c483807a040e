#!/usr/bin/env python3
"""sampler.py: the chaos suite's sampler, about every second: the group's
units in Slurm (squeue --json) against the base and elasticd's members.
A line per sample to PATH; BAD lines are violations.

    sampler.py BASE MAXN URL MUNGE_SOCKET PATH
"""
import json, os, re, subprocess, sys, time, urllib.parse, urllib.request
base, maxn, url, sock, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ENDED = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
         "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}
unknown_since = {}
def unit_group(j):
    m = re.match(r"elastic-unit:v1 (.*)", j.get("admin_comment") or "")
    if not m:
        return None
    return dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv).get("group")
def hosts(nodelist):
    if not nodelist:
        return []
    r = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True, text=True)
    return r.stdout.split()
def members():
    try:
        payload = "elastic-api/1 request GET %s %s" % (urllib.parse.urlsplit(url).path, os.urandom(16).hex())
        cred = subprocess.run(["munge", "-s", payload, "-S", sock], capture_output=True, text=True, timeout=5).stdout.strip()
        req = urllib.request.Request(url, headers={"Authorization": "Munge " + cred})
        with urllib.request.urlopen(req, timeout=5) as f:
            g = json.load(f)
        g = g.get("group", g)
        return {str(m.get("job_id")) for m in g.get("members") or []}
    except Exception:
        return None
with open(path, "a", buffering=1) as out:
    while True:
        t = time.time()
        try:
            r = subprocess.run(["squeue", "--json"], capture_output=True, text=True, timeout=20)
            jobs = json.loads(r.stdout)["jobs"]
        except Exception:
            out.write("%.3f SLURM-UNREADABLE\n" % t)
            time.sleep(1)
            continue
        b = [j for j in jobs if str(j["job_id"]) == base]
        if not b or b[0].get("job_state") in ENDED:
            live = [j for j in jobs if unit_group(j) == base and j.get("job_state") not in ENDED | {"COMPLETING"}]
            out.write("%.3f base-ended live-units=%s\n" % (t, ",".join(str(j["job_id"]) for j in live) or "-"))
            time.sleep(1)
            continue
        b = b[0]
        bnodes = hosts(b.get("nodes")) if b.get("job_state") == "RUNNING" else []
        units = [j for j in jobs if unit_group(j) == base]
        live = [j for j in units if j.get("job_state") not in ENDED | {"COMPLETING"}]
        running = [j for j in live if j.get("job_state") == "RUNNING"]
        # A preempted unit runs out its GraceTime while its replacement
        # waits for nodes: leaving, not a duplicate.
        staying = [j for j in live if not j.get("preempt_time")]
        allowed = maxn - max(len(bnodes), 1)
        bad = []
        if len(staying) > allowed:
            bad.append("duplicate: %d live units (not preempted) > %d allowed (max %d - base %d nodes)"
                       % (len(staying), allowed, maxn, len(bnodes)))
        held = {}
        for j in [b] + running:
            for h in hosts(j.get("nodes")) if j is not b else bnodes:
                held.setdefault(h, []).append(str(j["job_id"]))
        for h, js in held.items():
            if len(js) > 1:
                bad.append("duplicate: %s held by %s" % (h, ",".join(js)))
        for j in units:
            if j.get("user_id") != b.get("user_id"):
                bad.append("owner: unit %s of uid %s, base of uid %s" % (j["job_id"], j.get("user_id"), b.get("user_id")))
        m = members()
        if m is not None:
            for j in running:
                jid = str(j["job_id"])
                if jid in m:
                    unknown_since.pop(jid, None)
                else:
                    unknown_since.setdefault(jid, t)
                    if t - unknown_since[jid] > 30:
                        bad.append("orphan: unit %s running for %.0f s unknown to elasticd" % (jid, t - unknown_since[jid]))
        for jid in list(unknown_since):
            if jid not in {str(j["job_id"]) for j in running}:
                del unknown_since[jid]
        out.write("%.3f base-nodes=%d live=%d allowed=%d units=%s elasticd=%s\n" % (
            t, len(bnodes), len(live), allowed,
            ",".join("%s:%s" % (j["job_id"], j.get("job_state")) for j in units) or "-",
            "up" if m is not None else "unreachable"))
        for x in bad:
            out.write("%.3f BAD %s\n" % (t, x))
        time.sleep(max(0.0, 1.0 - (time.time() - t)))
