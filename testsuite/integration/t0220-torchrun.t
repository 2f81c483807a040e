#!/bin/bash
# A torchrun script under elastic-run: contribs/examples/torchrun/train.py
# (init_process_group("gloo") from the environment, RANK/LOCAL_RANK/
# WORLD_SIZE, DistributedSampler-style sharding, the slurm_elastic hook)
# launched by `elastic-run --nproc-per-node=2` on a 2-node elastic job:
# 4 ranks, 2 per node; an elastic event; the ranks checkpoint and leave,
# are relaunched (ELASTIC_RESTART_COUNT=1) and resume from the checkpoint;
# the job finishes with every sample trained on exactly once and the loss
# down.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 14

EVENT="$ELASTIC_EVENT"
TRAIN="$ELASTIC_SRCDIR/contribs/examples/torchrun/train.py"
CHECK="$ELASTIC_SRCDIR/contribs/examples/pytorch/check_samples.py"
PYTHON=/usr/bin/python3
SAMPLES=2048
EPOCHS=3
[ -x "$RUN" ] || bail "not built: $RUN"
has_torch || bail "$PYTHON cannot import torch (apt-get install python3-torch)"

make_tmp W
chmod 755 "$W"

cat >"$W/job.sh" <<EOF
#!/bin/bash
export PYTHONPATH="$ELASTIC_SRCDIR/contribs/python"
exec "$RUN" --nproc-per-node=2 -- "$PYTHON" "$TRAIN" --samples $SAMPLES --epochs $EPOCHS \\
	--step-sleep 0.1 --sample-log-dir "$W/samples"
EOF
chmod 755 "$W/job.sh"

# rank0_steps: steps rank 0 trained on so far (one sample log line each).
rank0_steps() { cat "$W"/samples/samples.rank0.* 2>/dev/null | wc -l; }
steps_at_least() { [ "$(rank0_steps)" -ge "$1" ]; }

# The checkpoints go where the job says (ELASTIC_CHECKPOINT_DIR), not to
# train.py's own --checkpoint-dir.
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 --elastic-grace=20 \
	--elastic-checkpoint-dir="$W/ckpt" -o "$W/out" "$W/job.sh")
like "a 2-node elastic job running elastic-run --nproc-per-node=2 is accepted" "$jid" '^[0-9]+$'
ok "elastic-run brings up 4 ranks on 2 nodes" \
	wait_until 60 log_has "$W/out" 'event=ranks-up restart=0 nnodes=2 ranks=4'
ok "... train.py sees a world of 4, 2 ranks per node, and starts fresh" \
	wait_until 60 log_has "$W/out" '^train: world 4 \(local rank 0 of 2\) fresh start'
is "... each rank logs its samples under its own RANK (0-3)" \
	"$(wait_until 30 steps_at_least 1; ls "$W/samples" | sed -n 's/^samples\.rank\([0-9]\)\.world4\..*/\1/p' | sort | tr -d '\n')" 0123
ok "the ranks train (10 steps)" wait_until 60 steps_at_least 10

ok "elastic-event raise JOB succeeds" "$EVENT" raise "$jid"
ok "on the event the ranks checkpoint and leave" \
	wait_until 30 log_has "$W/out" '^train: elastic event: checkpoint [^ ]+ at epoch [0-9]+ step [0-9]+, exiting'
ck=$(sed -n 's/^train: elastic event: checkpoint \([^ ]*\) at epoch [0-9]* step [0-9]*, exiting/\1/p' "$W/out" | head -n1)
ck_step=$(sed -n 's/^train: elastic event: checkpoint [^ ]* at epoch [0-9]* step \([0-9]*\), exiting/\1/p' "$W/out" | head -n1)
like "... in the job's --elastic-checkpoint-dir" "$ck" "^$W/ckpt/.*ckpt-0*${ck_step:-x}\.pt\$"
like "... elastic-run says they exited on their own, not killed" \
	"$(wait_until 30 log_has "$W/out" 'event=exited restart=0'; grep 'event=exited restart=0' "$W/out")" 'killed_members=0'
ok "elastic-run relaunches 4 ranks (restart 1)" \
	wait_until 60 log_has "$W/out" 'event=ranks-up restart=1 nnodes=2 ranks=4'
ok "... which resume from that checkpoint" \
	wait_until 60 log_has "$W/out" "^train: world 4 \\(local rank 0 of 2\\) resumed from ${ck:-none} at epoch [0-9]+ step ${ck_step:-x}\$"

ok "the job completes" wait_until 120 job_gone_or_done "$jid"
is "... COMPLETED after the training finished" \
	"$(job_field "$jid" JobState) $(grep -c '^train: done, ' "$W/out")" "COMPLETED 1"
out=$("$PYTHON" "$CHECK" "$W/samples" "$SAMPLES" "$EPOCHS" 2>&1)
rc=$?
first=$(sed -n 's/^train: initial loss \([0-9.]*\)$/\1/p' "$W/out")
last=$(sed -n 's/^train: done, [0-9]* steps, loss \([0-9.]*\)$/\1/p' "$W/out")
diag "$out" "loss $first -> $last; checkpoint at step $ck_step"
ok "every sample exactly once per epoch over both launches, and the loss fell tenfold" \
	test "$rc" = 0 -a -n "$first" -a -n "$last" -a "$(awk -v a="${first:-0}" -v b="${last:-1}" 'BEGIN { print (b < a / 10) }')" = 1
[ "$_t_failed" = 0 ] || { diag "job output:"; tail -n 40 "$W/out" | sed 's/^/#   /'; }

cleanup_jobs
done_testing
