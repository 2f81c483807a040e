#!/bin/bash
# What cannot be done in place takes the restart path, and says so: PyTorch
# ranks resized in place (train_ddp.py --in-place) lose a node of the base
# job to a crash.  The base's member changes its node list, which no
# survivor can re-form around: elastic-run falls back (event=fallback
# why=... nodes-changed), the ranks are relaunched from the newest
# checkpoint, and the next growth is in place again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 16
pytorch_setup

SAMPLES=2048 BATCH=64 EVERY=10
EPOCHS=${T0332_EPOCHS:-600}
out=$W/out

ok "elasticd starts" ed_start
base=$(ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py --in-place --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS \
	--epochs-file $W/epochs --step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 --sample-log-dir $W/samples --timeout 10" \
	submit_group "$TEST_USER" --elastic-min=2 --elastic-max=3 --elastic-step=1 \
	--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=5 \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a min=2 max=3 PyTorch job is accepted" "$base" '^[0-9]+$'
# At once, or through a resize in place when the unit starts later.
ok "it trains at 3 ranks, on the world channel" \
	wait_until 120 eval "log '^train_ddp: .* event=stepped rank=0 world=3 .*path=in-place' | grep -q ."
# The relaunch resumes from the newest checkpoint: the crash comes after
# the first (a crash before it rightly starts afresh).
ok "... and writes a checkpoint" wait_until 120 eval "ls '$W/ckpt/$base'/ckpt-*.pt >/dev/null 2>&1"
fill=$(filler preempt 1)
ok "the last idle node is taken: no replacement for a lost one" wait_until 30 job_running "$fill"
batch=$(job_field "$base" BatchHost)
node=$(job_hosts "$base" | grep -vx "$batch" | head -n1)
like "the base holds a node besides its batch host $batch" "$node" '^n[0-9]+$'

ok "that node ($node) crashes" node_fail "$node"
ok "the resize falls back to the restart path, saying why" \
	wait_until 150 log_has "$out" "elastic-run: .* event=fallback .*path=restart why=job=$base nodes-changed"
ok "... the ranks are relaunched on it" wait_until 90 log_has "$out" 'elastic-run: .* event=relaunch .*path=restart'
# A restart after a lost base node waits for Slurm to clean the base's
# old step up, which can take a while on a busy machine.
ok "... and train again, at 2 ranks, from a checkpoint" \
	wait_until 240 eval "log '^train_ddp: world 2 restart [1-9][0-9]* resumed from .*/ckpt-[0-9]+\.pt' | grep -q ." ||
	{ diag "the ranks' starts and elastic-run's timeline:" && grep -a -E '^train_ddp: (world|.* event=up )|elastic-run: ' "$out" | tail -n 40 | sed 's/^/#   /'; }
t_phase=$(now)
scancel "$fill"
# in_place_after_relaunch: after the last relaunch, a resize in place to 3.
in_place_after_relaunch() {
	awk '/^elastic-run: .* event=relaunch / { seen = 0; after = 1 }
		after && /^elastic-run: .* event=resized .*path=in-place .*ranks=3/ { seen = 1 }
		END { exit !seen }' "$out"
}
ok "the node is freed: the next growth, to 3, is in place again" wait_until 150 in_place_after_relaunch
figure "in place after a fallback: idle node to a world of 3: $(secs_since "$t_phase") s"
ok "the crashed node boots" node_resume "$node"

finish_soon
ok "training finishes" wait_until 400 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
window=$(((EVERY + 1) * BATCH))
cs=$(runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window")
ok "every sample processed, none repeated beyond the $window since the last checkpoint: $cs" \
	runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window"
diag "timeline:" && grep -E 'elastic-run: .*event=(launch|relaunch|event|joining|resize|resized|fallback|done)' "$out" | sed 's/^/#   /' || true
ok "elasticd stops on SIGTERM" ed_stop
done_testing
