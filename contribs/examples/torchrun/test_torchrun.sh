#!/bin/sh
# train.py runs unchanged under plain torchrun, without Slurm:
#
#  1. Debian 12's torchrun (python3-torch 1.13 on Python 3.11) crashes in
#     its own code before it starts a worker unless --redirects and --tee
#     are given (README.md, "Plain torchrun on Debian 12").  This checks
#     that the crash is still the one the README documents: when it stops
#     crashing, this fails, and README.md and this test need updating.
#     Debian 13's torchrun (torch 2.6 built without libuv) fails to
#     rendezvous; python3 -m slurm_elastic.torchrun is torchrun that works
#     there (README.md, "Plain torchrun on Debian 13").
#  2. With the workaround, 2 workers train; the elastic event (SIGURG to
#     the workers, as elastic-run sends it) makes them checkpoint and exit
#     with the event status 75, which torchrun reports as its workers'
#     failure; a 1-worker torchrun resumes from the
#     checkpoint and finishes.  Every sample id is trained on exactly once
#     per epoch over both runs, and the loss decreased.
# Fails (never skips) when torchrun or torch is missing: they are the
# dependencies of the example.
set -eu

PYTHON=${PYTHON:-/usr/bin/python3}
TORCHRUN=${TORCHRUN:-/usr/bin/torchrun}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN="$HERE/train.py"
CHECK="$HERE/../pytorch/check_samples.py"
export PYTHONPATH="$HERE/../../python${PYTHONPATH:+:$PYTHONPATH}"
export GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-lo}
unset ELASTIC_JOB_ID ELASTIC_CHECKPOINT_DIR ELASTIC_PREV_CHECKPOINT 2>/dev/null || true
SAMPLES=2048
EPOCHS=2

fail() {
	echo "test_torchrun: FAIL: $*"
	for f in "$T"/*.out; do [ -e "$f" ] && { echo "== $f"; tail -n 30 "$f"; }; done
	exit 1
}
[ -x "$TORCHRUN" ] || { echo "test_torchrun: FAIL: no $TORCHRUN (apt-get install python3-torch)"; exit 1; }
"$PYTHON" -c 'import torch' 2>/dev/null || { echo "test_torchrun: FAIL: $PYTHON cannot import torch"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/test_torchrun.XXXXXX")
TRPID=""
cleanup() {
	[ -z "$TRPID" ] || kill -KILL "$TRPID" 2>/dev/null || true
	[ -z "$TRPID" ] || pkill -KILL -P "$TRPID" 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "test_torchrun: kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
cd "$T"

# --- 1. plain torchrun: the documented failure -------------------------------
# A torch built without libuv (Debian 13's 2.6, unstable's 2.14, which
# spells it "built") cannot rendezvous under plain torchrun at all;
# slurm_elastic says so by setting USE_LIBUV=0.
nolibuv=$("$PYTHON" -c 'import os, torch.distributed, slurm_elastic; print(os.environ.get("USE_LIBUV", ""))')
rc=0
timeout 120 "$TORCHRUN" --standalone --nproc_per_node=2 "$TRAIN" --checkpoint-dir "$T/plain" \
	>"$T/plain.out" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then
	fail "plain torchrun works here now: update README.md (Plain torchrun on Debian 12 and 13) and this test"
fi
if [ "$nolibuv" = 0 ]; then
	grep -Eq 'use_libuv was requested but PyTorch was buil[dt] without libuv support' "$T/plain.out" ||
		fail "plain torchrun failed (exit $rc), but not with the libuv error README.md documents"
	LAUNCH="$PYTHON -m slurm_elastic.torchrun"
else
	grep -q "AttributeError: 'NoneType' object has no attribute 'get'" "$T/plain.out" &&
		grep -q 'in to_map' "$T/plain.out" ||
		fail "plain torchrun failed (exit $rc), but not with the crash README.md documents"
	LAUNCH=$TORCHRUN
fi
[ ! -e "$T/plain" ] || fail "plain torchrun started a worker (it wrote a checkpoint)"
echo "test_torchrun: plain torchrun fails before starting workers, as documented (exit $rc); then: $LAUNCH"

# --- 2. with --redirects=1 --tee=1: event, checkpoint, resume at 1 worker ----
ARGS="--samples $SAMPLES --epochs $EPOCHS --checkpoint-dir $T/ckpt --sample-log-dir $T/samples"
$LAUNCH --standalone --nproc_per_node=2 --redirects=1 --tee=1 "$TRAIN" $ARGS --step-sleep 0.05 \
	>"$T/run1.out" 2>&1 &
TRPID=$!
steps() { cat "$T"/samples/samples.rank0.* 2>/dev/null | wc -l; }
i=0
until [ "$(steps)" -ge 10 ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail "the 2 workers did not train 10 steps in 60 s"
	kill -0 "$TRPID" 2>/dev/null || fail "torchrun ended before 10 steps"
	sleep 0.1
done
# The workers: the processes running train.py under torchrun's agent.
workers=$(pgrep -P "$TRPID" -f "$TRAIN" || true)
[ "$(echo "$workers" | wc -w)" = 2 ] || fail "expected 2 workers under torchrun $TRPID, found: $workers ($(ps -o pid,args --ppid "$TRPID" | tr '\n' ';'))"
kill -URG $workers
rc=0
wait "$TRPID" || rc=$?
TRPID=""
# The workers stop with the event status (75, slurm_elastic.EXIT_EVENT):
# plain torchrun reports it as its workers' failure, exitcode 75.
[ "$rc" != 0 ] || fail "torchrun exited 0 after the event (want its workers' event status reported)"
grep -q 'exitcode *: 75' "$T/run1.out" || fail "torchrun exited $rc after the event, but not for its workers' status 75"
grep -q 'train: elastic event: checkpoint .*/ckpt-[0-9]*\.pt at epoch' "$T/run1.out" || fail "no checkpoint on the event"
[ -z "$(grep 'train: done' "$T/run1.out")" ] || fail "the first run finished before the event: nothing to resume"
ls "$T"/ckpt/ckpt-*.pt >/dev/null 2>&1 || fail "no checkpoint file"

$LAUNCH --standalone --nproc_per_node=1 --redirects=1 --tee=1 "$TRAIN" $ARGS >"$T/run2.out" 2>&1 ||
	fail "the resumed 1-worker run failed"
grep -q 'train: world 1 .* resumed from .*ckpt-' "$T/run2.out" || fail "the 1-worker run did not resume from the checkpoint"
grep -q 'train: done' "$T/run2.out" || fail "the 1-worker run did not finish"
"$PYTHON" "$CHECK" "$T/samples" "$SAMPLES" "$EPOCHS" || fail "samples lost or repeated across the resize"
first=$(sed -n 's/.*train: initial loss \([0-9.]*\).*/\1/p' "$T/run1.out")
last=$(sed -n 's/.*train: done, [0-9]* steps, loss \([0-9.]*\).*/\1/p' "$T/run2.out")
[ -n "$first" ] && [ -n "$last" ] && awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a / 10) }' ||
	fail "the loss did not decrease tenfold: initial '$first', final '$last'"
echo "test_torchrun: PASS: torchrun 2 workers -> event, checkpoint -> torchrun 1 worker resumed; loss $first -> $last"
