#!/bin/sh
# Local test of train_mpi without Slurm: mpirun on this machine, resized
# through checkpoints as elastic-run would resize it:
#
#   mpirun -np 2 -> event (SIGURG to ONE rank) -> mpirun -np 3 -> event
#   (SIGURG to every rank) -> mpirun -np 1 to the end
#
# Then: the ranks of each launch agreed on the step to stop at (one rank's
# event stops all), every launch resumed where the previous one stopped,
# every sample id was trained on exactly once per epoch over all launches
# (check_samples.py of the PyTorch example), the loss decreased, and the
# final loss matches an uninterrupted 1-rank run.  Last, a rank whose saves
# fail (EFBIG) says so and trains to the end; the older checkpoint stays.
#
# Environment (make check sets them): MPIRUN, TRAIN_MPI, CHECK_SAMPLES,
# PYTHON.  KEEP=1 keeps the temporary directory.
set -eu

MPIRUN=${MPIRUN:-mpirun}
PYTHON=${PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
TRAIN_MPI=${TRAIN_MPI:-$HERE/train_mpi}
CHECK_SAMPLES=${CHECK_SAMPLES:-$HERE/../pytorch/check_samples.py}
SAMPLES=4096
EPOCHS=3
ARGS="--samples $SAMPLES --epochs $EPOCHS --batch 64 --log-every 32"

for f in "$TRAIN_MPI" "$CHECK_SAMPLES"; do
	[ -e "$f" ] || { echo "test_local: FAIL: $f not found (run make)"; exit 1; }
done
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "test_local: FAIL: $MPIRUN not found (apt-get install openmpi-bin)"; exit 1; }

# CI runs as root; ranks on one machine talk TCP over loopback.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI_OPTS="--oversubscribe --bind-to none --mca pml ob1 --mca btl self,tcp
	--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"

T=$(mktemp -d "${TMPDIR:-/tmp}/train_mpi.XXXXXX")
MPIRUN_PID=""
cleanup() {
	# mpirun, then any rank it left behind (by the pids in the sample logs).
	[ -z "$MPIRUN_PID" ] || kill -KILL "$MPIRUN_PID" 2>/dev/null || true
	for p in $(rank_pids '*'); do kill -KILL "$p" 2>/dev/null || true; done
	if [ "${KEEP:-0}" = 1 ]; then echo "test_local: kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
CKPT="$T/ckpt" PREV=""
unset ELASTIC_CHECKPOINT_DIR ELASTIC_PREV_CHECKPOINT ELASTIC_JOB_ID ELASTIC_SIGNAL 2>/dev/null || true

fail() {
	echo "test_local: FAIL: $*"
	for f in "$T"/*.out; do [ -e "$f" ] && { echo "== $f"; cat "$f"; }; done
	exit 1
}

# rank_pids WORLD: the pids of the ranks of the WORLD-rank launch, from the
# names of their sample logs (samples.rank<R>.world<W>.pid<P>.log).
rank_pids() {
	for f in "$T"/samples/samples.rank*.world$1.pid*.log; do
		[ -e "$f" ] || continue
		f=${f##*.pid}
		echo "${f%.log}"
	done
}

# launch NAME WORLD [EXTRA_ARGS]: mpirun WORLD ranks in the background.
launch() {
	name=$1 world=$2
	shift 2
	# shellcheck disable=SC2086 # word lists
	env ELASTIC_RESTART_COUNT="$RESTART" ELASTIC_CHECKPOINT_DIR="$CKPT" \
		${PREV:+ELASTIC_PREV_CHECKPOINT="$PREV"} "$MPIRUN" -np "$world" $MPI_OPTS \
		"$TRAIN_MPI" $ARGS "$@" >"$T/$name.out" 2>&1 &
	MPIRUN_PID=$!
}

# wait_steps WORLD N: until every rank of the WORLD-rank launch logged N
# steps (60 s).
wait_steps() {
	deadline=$(($(date +%s) + 60))
	while :; do
		n=0
		for f in "$T"/samples/samples.rank*.world"$1".pid*.log; do
			[ -e "$f" ] || continue
			[ "$(wc -l <"$f")" -ge "$2" ] && n=$((n + 1))
		done
		[ "$n" -ge "$1" ] && return 0
		[ "$(date +%s)" -lt "$deadline" ] || fail "world $1 did not reach $2 steps in 60 s"
		kill -0 "$MPIRUN_PID" 2>/dev/null || fail "world $1 ended before $2 steps"
		sleep 0.1
	done
}

# reap SECONDS [STATUS]: wait (with a deadline) for mpirun to exit with
# STATUS (0: finished; 75 after an event: "relaunch me").
reap() {
	deadline=$(($(date +%s) + $1))
	while kill -0 "$MPIRUN_PID" 2>/dev/null; do
		[ "$(date +%s)" -lt "$deadline" ] || fail "mpirun (pid $MPIRUN_PID) still running after $1 s"
		sleep 0.1
	done
	rc=0
	wait "$MPIRUN_PID" || rc=$?
	MPIRUN_PID=""
	[ "$rc" = "${2:-0}" ] || fail "mpirun exited $rc (want ${2:-0})"
}

event_step() { sed -n 's/.*elastic event at step \([0-9]*\).*/\1/p' "$T/$1.out"; }

# last_steps WORLD: the last step each rank of the launch logged, sorted
# and unique: one value when they all stopped at the same step.
last_steps() {
	for f in "$T"/samples/samples.rank*.world"$1".pid*.log; do
		tail -n 1 "$f" | cut -d' ' -f1
	done | sort -u | tr '\n' ' '
}

SL="--sample-log-dir $T/samples"

# 2 ranks; the event reaches one rank only: the allreduce stops them all.
RESTART=0
launch a 2 $SL --step-sleep 0.01
wait_steps 2 40
kill -URG "$(rank_pids 2 | sort -n | tail -n 1)"
reap 60 75
step_a=$(event_step a)
[ -n "$step_a" ] || fail "2 ranks did not checkpoint on the event"
[ -f "$T/ckpt/ckpt-$(printf %08d "$step_a").bin" ] || fail "no checkpoint ckpt-$(printf %08d "$step_a").bin"
[ "$(last_steps 2)" = "$step_a " ] || fail "2 ranks stopped at different steps: $(last_steps 2) (event at $step_a)"

# 3 ranks from that checkpoint; the event reaches every rank.
RESTART=1
launch b 3 $SL --step-sleep 0.01
wait_steps 3 50
for p in $(rank_pids 3); do kill -URG "$p"; done
reap 60 75
grep -q "world 3 restart 1 resumed from .*ckpt-0*$step_a.bin at step $step_a," "$T/b.out" ||
	fail "3 ranks did not resume at step $step_a"
step_b=$(event_step b)
[ -n "$step_b" ] || fail "3 ranks did not checkpoint on the event"
[ "$(last_steps 3)" = "$step_b " ] || fail "3 ranks stopped at different steps: $(last_steps 3) (event at $step_b)"

# 1 rank to the end, from ELASTIC_PREV_CHECKPOINT (a file) with an empty
# checkpoint directory of its own.
RESTART=2 PREV="$T/ckpt/ckpt-$(printf %08d "$step_b").bin" CKPT="$T/ckpt2"
launch c 1 $SL
reap 120
grep -q "world 1 restart 2 resumed from .*ckpt-0*$step_b.bin at step $step_b," "$T/c.out" ||
	fail "1 rank did not resume at step $step_b"
grep -q "^train_mpi: done: $EPOCHS epochs" "$T/c.out" || fail "1 rank did not finish"

"$PYTHON" "$CHECK_SAMPLES" "$T/samples" $SAMPLES $EPOCHS --window 0 ||
	fail "samples not trained on exactly once"

# Reference: the same training, uninterrupted, on 1 rank.
RESTART=0 PREV="" CKPT="$T/ref-ckpt"
launch ref 1
reap 120

val() { sed -n "s/^$2 loss \([0-9.e+-]*\)\$/\1/p" "$T/$1.out"; }
init=$(val c initial) final=$(val c final) ref=$(val ref final)
[ -n "$init" ] && [ -n "$final" ] && [ -n "$ref" ] || fail "no initial/final loss lines"
echo "test_local: events at steps $step_a and $step_b; initial loss $init, final loss $final, uninterrupted final loss $ref"
awk -v i="$init" -v f="$final" 'BEGIN { exit !(f < i / 10) }' || fail "loss did not decrease"
awk -v f="$final" -v r="$ref" 'BEGIN { d = f - r; if (d < 0) d = -d; exit !(d <= 1e-3 * r + 1e-6) }' ||
	fail "elastic run diverged from the uninterrupted run"

# Saves that fail end nothing.  A file size limit below a checkpoint's size
# (16488 bytes with --features 1024; 16 blocks of 512 or 1024 bytes), and
# SIGXFSZ ignored, make every write of one fail with EFBIG.  One rank run
# directly (an MPI singleton): mpirun's own files would hit the limit too.
FULL="--samples 4096 --features 1024 --lr 0.001 --batch 64"
RESTART=0 PREV="" CKPT="$T/full"
# shellcheck disable=SC2086 # word lists
launch full1 1 $FULL --epochs 1
reap 120
good=$CKPT/ckpt-00000064.bin
[ -f "$good" ] || fail "no checkpoint $good to keep"
cp "$good" "$T/good.bin"
# shellcheck disable=SC2086 # word lists
(
	ulimit -f 16
	trap '' XFSZ
	rc=0
	env OMPI_MCA_btl=self OMPI_MCA_rtc=^hwloc PMIX_MCA_gds=hash \
		ELASTIC_RESTART_COUNT=0 ELASTIC_CHECKPOINT_DIR="$CKPT" \
		"$TRAIN_MPI" $FULL --epochs 2 --checkpoint-every 16 2>&1 || rc=$?
	echo "exit $rc"
) | cat >"$T/full2.out"
grep -q '^exit 0$' "$T/full2.out" || fail "the rank whose saves failed did not finish"
grep -q '^final loss ' "$T/full2.out" || fail "the rank whose saves failed did not finish"
for s in 80 96 112 128; do
	grep -q "^train_mpi: checkpoint not saved at step $s: .* (the newest checkpoint stays ckpt-00000064.bin); training goes on\$" "$T/full2.out" ||
		fail "no line for the failed save at step $s"
done
left=$(find "$CKPT" -mindepth 1 ! -name ckpt-00000064.bin)
[ -z "$left" ] || fail "the failed saves left: $left"
cmp -s "$good" "$T/good.bin" || fail "the last good checkpoint changed"
echo "test_local: PASS (mpirun 2 -> 3 -> 1 ranks; saves failing with EFBIG)"
