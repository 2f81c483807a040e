#!/usr/bin/env python3
"""Check the sample logs of train_ddp.py: every sample id 0..N-1 processed
exactly once per epoch, over all ranks and all launches.

usage: check_samples.py LOG_DIR SAMPLES EPOCHS [--window K]

--window K allows up to K repeated (epoch, id) pairs: the samples processed
after the last checkpoint by ranks that were killed without seeing the event.
Prints one summary line; exits 1 when a sample is missing or repeated beyond
the window, or a sample log line is malformed.
"""

import argparse
import collections
import glob
import os
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("log_dir")
    p.add_argument("samples", type=int)
    p.add_argument("epochs", type=int)
    p.add_argument("--window", type=int, default=0)
    a = p.parse_args()

    seen = collections.Counter()
    files = sorted(glob.glob(os.path.join(a.log_dir, "samples.*.log")))
    if not files:
        sys.exit("check_samples: no samples.*.log in %s" % a.log_dir)
    bad = 0
    for f in files:
        with open(f) as fh:
            for line in fh:
                if not line.endswith("\n"):
                    bad += 1  # torn write of a killed rank
                    continue
                fields = line.split()
                epoch = int(fields[1])
                for i in fields[2:]:
                    seen[(epoch, int(i))] += 1

    want = {(e, i) for e in range(a.epochs) for i in range(a.samples)}
    missing = want - set(seen)
    extra = set(seen) - want
    repeated = sum(c - 1 for k, c in seen.items() if c > 1)
    print("check_samples: %d logs, %d sample-epochs processed, %d expected, "
          "%d missing, %d unexpected, %d repeated (window %d), "
          "%d torn lines"
          % (len(files), sum(seen.values()), len(want), len(missing),
             len(extra), repeated, a.window, bad))
    if missing or extra or repeated > a.window:
        for k in sorted(missing)[:10]:
            print("  missing epoch %d id %d" % k)
        for k in sorted(k for k, c in seen.items() if c > 1)[:10]:
            print("  repeated epoch %d id %d (%d times)" % (k + (seen[k],)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
