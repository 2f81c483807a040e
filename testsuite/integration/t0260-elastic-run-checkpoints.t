#!/bin/bash
# Checkpoint continuity through elastic-run in real jobs: each launch gets
# ELASTIC_PREV_CHECKPOINT (the newest checkpoint of the job, else what
# --elastic-resume-from names: JOB, JOB@STEP), an eval job runs on a free
# node for each new checkpoint while training goes on (--elastic-eval,
# results per step in elasticctl checkpoints), and --elastic-keep deletes
# old checkpoints but never one in use.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 16

CTL="$ELASTIC_CTL"
make_tmp tmp
chmod 755 "$tmp"
at_exit cleanup_jobs

# A rank: records ELASTIC_PREV_CHECKPOINT, then writes checkpoints
# ckpt-<N>.bin (atomically, N after the one it resumed from) once a second
# until it has written $W/n of them; on the event it exits 0.
cat >"$tmp/worker.sh" <<'EOS'
#!/bin/bash
echo "$ELASTIC_PREV_CHECKPOINT" >"$W/prev.$ELASTIC_RESTART_COUNT"
trap 'exit 0' URG
d=$ELASTIC_CHECKPOINT_DIR
mkdir -p "$d"
s=0
[[ $ELASTIC_PREV_CHECKPOINT =~ ckpt-0*([0-9]+)\.bin$ ]] && s=${BASH_REMATCH[1]}
n=0
while :; do
	if [ "$n" -lt "$(cat "$W/n")" ]; then
		s=$((s + 1)) n=$((n + 1))
		printf 'w%s' "$s" >"$d/.ckpt-$s.tmp" && mv "$d/.ckpt-$s.tmp" "$d/ckpt-$(printf %04d "$s").bin"
	fi
	[ -e "$W/stop" ] && exit 0
	sleep 1
done
EOS
cat >"$tmp/eval.sh" <<'EOS'
#!/bin/bash
sleep 1
echo "step=$ELASTIC_EVAL_STEP weights=$(cat "$ELASTIC_EVAL_CHECKPOINT") job=$ELASTIC_EVAL_JOB"
EOS
chmod 755 "$tmp/worker.sh" "$tmp/eval.sh"
ckpts() { (cd "$1" 2>/dev/null && ls -d ckpt-* 2>/dev/null | tr '\n' ' '); }

# --- a training job with eval and retention --------------------------------------------
W=$tmp/a && mkdir -p "$W" && echo 4 >"$W/n"
jid=$(sbatch --parsable --elastic-min=1 --elastic-max=1 --elastic-keep=2 --elastic-grace=10 \
	"--elastic-checkpoint-dir=$tmp/ck/%j" "--elastic-eval=$tmp/eval.sh" -o "$W/out" \
	--export=ALL,W="$W" --wrap "exec $RUN --elasticd=none -- $tmp/worker.sh")
dir=$tmp/ck/$jid
ok "the first launch starts with no checkpoint to resume from" wait_until 60 test -e "$W/prev.0"
is "... ELASTIC_PREV_CHECKPOINT is empty" "$(cat "$W/prev.0")" ""
evals_for() { [ "$(awk '{print $1}' "$dir/eval/index" 2>/dev/null | tr '\n' ' ')" = "$1" ]; }
ok "elastic-run submits an eval job for each new checkpoint" wait_until 60 evals_for "1 2 3 4 "
ok "... and says so in its timeline" log_has "$W/out" 'elastic-run: .* event=checkpoints .*evals=[1-9]'
evals=$(awk '{print $2}' "$dir/eval/index" | tr '\n' ' ')
evals_done() { for e in $evals; do job_gone_or_done "$e" || return 1; done; }
ok "the eval jobs run on free nodes and finish" wait_until 90 evals_done
is "... while the training job runs on" "$(job_field "$jid" JobState)" RUNNING
like "elasticctl checkpoints shows each step's eval result" \
	"$("$CTL" checkpoints "$jid" | awk '$1 == 4')" "^ *4 +ckpt-0004\.bin .* done +step=4 weights=w4 job=$jid$"
ok "--elastic-keep=2: the older checkpoints go once their eval is done" \
	wait_until 30 eval '[ "$(ckpts "$dir")" = "ckpt-0003.bin ckpt-0004.bin " ]'

# --- an elastic event: the relaunch resumes from the newest --------------------------------
scancel --full --signal=URG "$jid"
ok "after an event the ranks are relaunched" wait_until 30 test -e "$W/prev.1"
is "... with ELASTIC_PREV_CHECKPOINT the newest checkpoint" "$(cat "$W/prev.1")" "$dir/ckpt-0004.bin"
echo 6 >"$W/n"
# Retention never deletes the checkpoint the running ranks resumed from.
ok "new checkpoints come; keep=2 keeps the newest and the one in use" \
	wait_until 60 eval '[ "$(ckpts "$dir")" = "ckpt-0004.bin ckpt-0009.bin ckpt-0010.bin " ]'
touch "$W/stop"
ok "the job completes" wait_until 60 eval '[ "$(job_field "$jid" JobState)" = COMPLETED ]'

# --- a new job continues from an earlier one ------------------------------------------------------
resume() { # resume NAME SPEC: a job resuming from SPEC; prints its prev.0 or its error
	local w=$tmp/$1 j
	mkdir -p "$w" && echo 0 >"$w/n" && touch "$w/stop"
	j=$(sbatch --parsable --elastic-min=1 --elastic-max=1 "--elastic-checkpoint-dir=$tmp/ck/%j" \
		"--elastic-resume-from=$2" -o "$w/out" --export=ALL,W="$w" --wrap "exec $RUN --elasticd=none -- $tmp/worker.sh")
	wait_until 60 job_gone_or_done "$j" || return 1
	cat "$w/prev.0" 2>/dev/null || grep -v -e ' event=' -e '^elastic-run: account: ' "$w/out"
}
is "--elastic-resume-from=JOB: the earlier job's newest checkpoint" "$(resume b "$jid")" "$dir/ckpt-0010.bin"
is "--elastic-resume-from=JOB@STEP: that step's" "$(resume c "$jid@9")" "$dir/ckpt-0009.bin"
is "--elastic-resume-from=PATH@STEP: the same by path" "$(resume d "$dir@4")" "$dir/ckpt-0004.bin"
is "a step that is not there: the job fails with one line" "$(resume e "$jid@5")" \
	"elastic-run: --elastic-resume-from=$jid@5: job $jid has no checkpoint at step 5 (has 4, 9, 10)"
done_testing
