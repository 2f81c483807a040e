#!/bin/sh
# Local test of train_ddp.py without Slurm: ranks are started by hand on
# 127.0.0.1 with the torchrun environment, as elastic-run would start them.
#
#   2 ranks -> event (SIGURG to every rank) -> 3 ranks -> event -> 1 rank
#
# Then: every sample id processed exactly once per epoch over all launches
# (checkpoint-on-event leaves no repeat window), every launch resumed where
# the previous one stopped, the loss decreased, and the final loss matches an
# uninterrupted 1-rank run (the gradient is the global-batch mean at any
# world size), whose count of epochs --epochs-file lowers.  Last, a rank
# whose saves fail (EFBIG) says so and trains to the end; the older
# checkpoint stays.  Fails when torch is not importable:
# it is a dependency.
set -eu

PYTHON=${PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN="$HERE/train_ddp.py"
SAMPLES=4096
EPOCHS=3
ARGS="--samples $SAMPLES --epochs $EPOCHS --global-batch 64 --step-sleep 0.02 --log-every 32"

if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
	echo "test_local: FAIL: $PYTHON cannot import torch (apt-get install python3-torch)"
	exit 1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/train_ddp.XXXXXX")
PIDS=""
cleanup() {
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	if [ "${KEEP:-0}" = 1 ]; then echo "test_local: kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-lo}
export ELASTIC_CHECKPOINT_DIR="$T/ckpt"
unset ELASTIC_PREV_CHECKPOINT ELASTIC_JOB_ID 2>/dev/null || true

fail() { echo "test_local: FAIL: $*"; for f in "$T"/*.out; do echo "== $f"; cat "$f"; done; exit 1; }

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# launch NAME WORLD [EXTRA_ARGS]: start WORLD ranks in the background.
launch() {
	name=$1 world=$2; shift 2
	port=$(free_port)
	PIDS=""
	r=0
	while [ $r -lt "$world" ]; do
		RANK=$r WORLD_SIZE=$world LOCAL_RANK=$r LOCAL_WORLD_SIZE=$world \
		MASTER_ADDR=127.0.0.1 MASTER_PORT=$port ELASTIC_RESTART_COUNT=$RESTART \
			"$PYTHON" "$TRAIN" $ARGS "$@" >"$T/$name.rank$r.out" 2>&1 &
		PIDS="$PIDS $!"
		r=$((r + 1))
	done
}

# wait_steps WORLD N: until rank 0 of the WORLD-rank launch logged N steps.
wait_steps() {
	i=0
	while :; do
		n=$(cat "$T"/samples/samples.rank0.world"$1".pid*.log 2>/dev/null | wc -l)
		[ "$n" -ge "$2" ] && return 0
		i=$((i + 1))
		[ $i -gt 600 ] && fail "world $1 did not reach $2 steps"
		sleep 0.1
	done
}

# event: SIGURG to the last rank first, then to the others (as the launcher
# does, not all at the same instant), then wait for all to exit with the
# event status.
event() {
	for p in $(echo $PIDS | tr ' ' '\n' | sort -rn); do kill -URG "$p"; sleep 0.05; done
	reap 75
}

# reap [STATUS]: wait for every rank to exit with STATUS (0: finished;
# 75 after an event: "relaunch me").
reap() {
	for p in $PIDS; do
		rc=0
		wait "$p" || rc=$?
		[ "$rc" = "${1:-0}" ] || fail "rank pid $p exited $rc (want ${1:-0})"
	done
	PIDS=""
}

SL="--sample-log-dir $T/samples"

RESTART=0
launch a 2 $SL
wait_steps 2 40
event
grep -q "elastic event at step" "$T/a.rank0.out" || fail "2 ranks did not checkpoint on the event"
step_a=$(sed -n 's/.*elastic event at step \([0-9]*\).*/\1/p' "$T/a.rank0.out")

RESTART=1
launch b 3 $SL
wait_steps 3 50
event
grep -q "world 3 restart 1 resumed from .*ckpt-0*$step_a.pt at step $step_a" "$T/b.rank0.out" ||
	fail "3 ranks did not resume at step $step_a"
step_b=$(sed -n 's/.*elastic event at step \([0-9]*\).*/\1/p' "$T/b.rank0.out")
[ -n "$step_b" ] || fail "3 ranks did not checkpoint on the event"

RESTART=2
launch c 1 $SL
reap
grep -q "world 1 restart 2 resumed from .*ckpt-0*$step_b.pt at step $step_b" "$T/c.rank0.out" ||
	fail "1 rank did not resume at step $step_b"

"$PYTHON" "$HERE/check_samples.py" "$T/samples" $SAMPLES $EPOCHS --window 0 ||
	fail "samples not processed exactly once"

# Reference: the same training, uninterrupted, on 1 rank; its epochs
# lowered to the same count by --epochs-file.
ELASTIC_CHECKPOINT_DIR="$T/ref-ckpt"
RESTART=0
echo "$EPOCHS" >"$T/epochs"
launch ref 1 --step-sleep 0 --epochs $((EPOCHS * 3)) --epochs-file "$T/epochs"
reap
grep -q "^train_ddp: done: $EPOCHS epochs, $((SAMPLES * EPOCHS / 64)) steps" "$T/ref.rank0.out" ||
	fail "--epochs-file did not end the reference run after $EPOCHS epochs"

"$PYTHON" - "$T/c.rank0.out" "$T/ref.rank0.out" "$step_a" "$step_b" <<'EOF' || fail "loss check"
import re, sys
def val(f, key):
    return float(re.search(r"^%s loss ([0-9.e+-]+)$" % key, open(f).read(), re.M).group(1))
init, final, ref = val(sys.argv[1], "initial"), val(sys.argv[1], "final"), val(sys.argv[2], "final")
print("test_local: events at steps %s and %s; initial loss %.6f, final loss %.6f, "
      "uninterrupted final loss %.6f" % (sys.argv[3], sys.argv[4], init, final, ref))
if not final < init / 10:
    sys.exit("test_local: loss did not decrease")
if abs(final - ref) > 1e-3 * ref + 1e-6:
    sys.exit("test_local: elastic run diverged from the uninterrupted run")
EOF

# Saves that fail end nothing.  A file size limit below a checkpoint's size
# (about 2 kB; 1 block of 512 or 1024 bytes) makes its write fail with EFBIG
# (Python ignores SIGXFSZ); the output goes through a pipe, out of reach of
# the limit.
ELASTIC_CHECKPOINT_DIR="$T/full"
RESTART=0
launch full1 1 --epochs 1 --step-sleep 0
reap
good=$ELASTIC_CHECKPOINT_DIR/ckpt-00000064.pt
[ -f "$good" ] || fail "no checkpoint $good to keep"
cp "$good" "$T/good.pt"
port=$(free_port)
# shellcheck disable=SC2086 # word lists
# The limit is set once torch is imported: some releases write files of
# their own at import (torch.distributed's JIT templates).
(
	rc=0
	RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 LOCAL_WORLD_SIZE=1 \
	MASTER_ADDR=127.0.0.1 MASTER_PORT=$port ELASTIC_RESTART_COUNT=0 \
		"$PYTHON" -c 'import resource, runpy, sys
import torch, torch.distributed, torch.distributed.nn, torch.nn.parallel
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")' "$TRAIN" $ARGS --epochs 2 --step-sleep 0 \
		--checkpoint-every 16 2>&1 || rc=$?
	echo "exit $rc"
) | cat >"$T/full2.rank0.out"
grep -q '^exit 0$' "$T/full2.rank0.out" || fail "the rank whose saves failed did not finish"
grep -q '^final loss ' "$T/full2.rank0.out" || fail "the rank whose saves failed did not finish"
for s in 80 96 112 128; do
	grep -q "^train_ddp: checkpoint not saved at step $s: .* (the newest checkpoint stays ckpt-00000064.pt); training goes on\$" "$T/full2.rank0.out" ||
		fail "no line for the failed save at step $s"
done
left=$(find "$ELASTIC_CHECKPOINT_DIR" -mindepth 1 ! -name ckpt-00000064.pt)
[ -z "$left" ] || fail "the failed saves left: $left"
cmp -s "$good" "$T/good.pt" || fail "the last good checkpoint changed"
echo "test_local: PASS (2 -> 3 -> 1 ranks; saves failing with EFBIG)"
