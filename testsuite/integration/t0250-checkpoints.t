#!/bin/bash
# Checkpoints on the real cluster: JOB@STEP addresses through the job's tag
# (elasticctl checkpoints, and --elastic-resume-from as the launcher
# resolves it), retention, and --elastic-eval: an eval job per new
# checkpoint, on one free node, not elastic itself, while the training job
# runs on, with its result collected per step.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 32

CTL="$ELASTIC_CTL"
TOOL="$ELASTIC_BUILDDIR/testsuite/integration/ckpt_tool"
make_tmp tmp
chmod 755 "$tmp"

# --- JOB@STEP through the job's tag -------------------------------------------
jid=$(sbatch --parsable -H --elastic-min=1 "--elastic-checkpoint-dir=$tmp/ck a/%j" --wrap true)
dir="$tmp/ck a/$jid"
mkdir -p "$dir/ckpt-40"
for s in 10 20; do printf x >"$dir/ckpt-$(printf %08d $s).pt"; done
printf xyz >"$dir/ckpt-40/model.bin"
printf x >"$dir/.ckpt-00000050.pt.tmp"

out=$("$CTL" checkpoints "$jid" 2>&1)
rc=$?
is "elasticctl checkpoints JOB: finds the dir from the job's tag" "$(printf '%s\n' "$out" | head -n1)" "$dir"
is "... lists the checkpoints newest first, not the hidden one" \
	"$(printf '%s\n' "$out" | awk 'NR > 3 {print $1 ":" $2}' | tr '\n' ' ')" \
	"40:ckpt-40/ 20:ckpt-00000020.pt 10:ckpt-00000010.pt "
is "... and exits 0" "$rc" 0
is "elasticctl checkpoints JOB@STEP prints that checkpoint's path" \
	"$("$CTL" checkpoints "$jid@20")" "$dir/ckpt-00000020.pt"
is "... any padding of the step" "$("$CTL" checkpoints "$jid@0040")" "$dir/ckpt-40"
out=$("$CTL" checkpoints "$jid@25" 2>&1)
rc=$?
is "... a step it does not have: exit 5" "$rc" 5
is "... with the steps it has" "$out" "elasticctl: $jid@25: job $jid has no checkpoint at step 25 (has 10, 20, 40)"
json=$("$CTL" --json checkpoints "$jid")
is "--json: one object, the checkpoints newest first with their sizes" \
	"$(printf '%s' "$json" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["job"], d["exists"], [(c["step"], c["kind"], c["size"]) for c in d["checkpoints"]])')" \
	"$jid True [(40, 'dir', 3), (20, 'file', 1), (10, 'file', 1)]"
is "a directory of checkpoints by path, @STEP" "$("$CTL" checkpoints "$dir@10")" "$dir/ckpt-00000010.pt"
is "a job slurmctld does not know: DefaultCheckpointDir with %j" \
	"$("$CTL" checkpoints 4000000000 2>&1)" "no checkpoints in $HOME/elastic-checkpoints/4000000000 (it does not exist)"
is "... or --dir" "$("$CTL" checkpoints --dir="$tmp/ck a/%j" "$jid@10" 2>&1)" "$dir/ckpt-00000010.pt"
out=$("$CTL" checkpoints "ck@1" 2>&1)
rc=$?
is "a bad address is a usage error" "$rc" 2
like "... naming what is allowed" "$out" "^elasticctl: checkpoints ck@1: not a job id nor an absolute path"

# --- --elastic-resume-from, resolved as the launcher does ----------------------
j2=$(sbatch --parsable -H --elastic-min=1 "--elastic-checkpoint-dir=$tmp/ck2/%j" "--elastic-resume-from=$jid@20" --wrap true)
is "resume-from JOB@STEP: the earlier job's checkpoint of that step" "$("$TOOL" prev "$j2" 2>&1)" "$dir/ckpt-00000020.pt"
is "resume-from JOB: its newest" "$("$TOOL" prev "$j2" "$jid" 2>&1)" "$dir/ckpt-40"
is "resume-from PATH@STEP" "$("$TOOL" prev "$j2" "$dir@10" 2>&1)" "$dir/ckpt-00000010.pt"
is "resume-from a step that is not there fails with one line" "$("$TOOL" prev "$j2" "$jid@30" 2>&1)" \
	"ckpt_tool: --elastic-resume-from=$jid@30: job $jid has no checkpoint at step 30 (has 10, 20, 40)"
mkdir -p "$tmp/ck2/$j2" && printf x >"$tmp/ck2/$j2/ckpt-3.pt"
is "the job's own newest checkpoint wins over resume-from (requeue, relaunch)" "$("$TOOL" prev "$j2" 2>&1)" "$tmp/ck2/$j2/ckpt-3.pt"
scancel "$jid" "$j2"

# --- --elastic-eval: one eval job per new checkpoint ---------------------------
# The training job writes checkpoints and runs the launcher's pass; the
# eval command prints its result last.
cat >"$tmp/train.sh" <<EOS
#!/bin/bash
d="$tmp/ck3/\$SLURM_JOB_ID"
mkdir -p "\$d"
for s in 1 2 3; do printf 'w%s' \$s >"\$d/.ckpt-\$s.tmp" && mv "\$d/.ckpt-\$s.tmp" "\$d/ckpt-\$s.pt"; done
"$TOOL" tick "\$SLURM_JOB_ID" >"$tmp/tick1" 2>&1
touch "$tmp/ticked"
while [ ! -e "$tmp/go" ]; do sleep 0.2; done
printf w4 >"\$d/ckpt-4.pt"
"$TOOL" tick "\$SLURM_JOB_ID" "\$d/ckpt-2.pt" >"$tmp/tick2" 2>&1
touch "$tmp/done"
while [ ! -e "$tmp/end" ]; do sleep 0.2; done
EOS
chmod 755 "$tmp/train.sh"
cat >"$tmp/eval.sh" <<'EOS'
#!/bin/bash
echo "evaluating $ELASTIC_EVAL_CHECKPOINT of job $ELASTIC_EVAL_JOB"
env | grep -c '_SLURM_SPANK_OPTION_elastic_' | sed 's/^/spank options: /'
sleep 1
echo "step=$ELASTIC_EVAL_STEP weights=$(cat "$ELASTIC_EVAL_CHECKPOINT") node=$SLURMD_NODENAME"
EOS
chmod 755 "$tmp/eval.sh"
jid=$(sbatch --parsable --elastic-min=1 --elastic-keep=1 "--elastic-checkpoint-dir=$tmp/ck3/%j" \
	"--elastic-eval=$tmp/eval.sh --top 5" -o "$tmp/train.out" "$tmp/train.sh")
dir="$tmp/ck3/$jid"
ok "the training job runs its first checkpoint pass" wait_until 60 test -e "$tmp/ticked"
is "... which submits one eval job per checkpoint" "$(cat "$tmp/tick1")" "checkpoints=3 newest=3 submitted=3 failed=0 deleted=0"
evals=$(awk '{print $2}' "$dir/eval/index" | tr '\n' ' ')
is "... recorded in eval/index" "$(awk '{print $1}' "$dir/eval/index" | tr '\n' ' ')" "1 2 3 "
e1=$(echo "$evals" | awk '{print $1}')
like "an eval job: named elastic-eval, one node, in the first preemptible partition" \
	"$(job_field "$e1" JobName) $(job_field "$e1" NumNodes) $(job_field "$e1" Partition)" "^elastic-eval 1(-1)? preempt$"
is "... not an elastic job itself (no tag)" "$(admin_comment "$e1")" ""
is "... low priority (nice)" "$(job_field "$e1" Nice)" 10000
evals_done() { for e in $evals; do job_gone_or_done "$e" || return 1; done; }
ok "the eval jobs finish while the training job runs" wait_until 60 evals_done
is "... and the training job is still running" "$(job_field "$jid" JobState)" RUNNING
is "... each read its own checkpoint" "$(tail -n1 "$dir/eval/ckpt-2.out" | cut -d' ' -f1-2)" "step=2 weights=w2"
is "... without the training job's elastic options" "$(grep 'spank options' "$dir/eval/ckpt-2.out")" "spank options: 0"
table=$("$CTL" checkpoints "$jid")
like "elasticctl checkpoints: each step with its eval job, done, and its result" \
	"$(printf '%s\n' "$table" | awk '$1 == 3')" "^ *3 +ckpt-3\.pt .* $(echo "$evals" | awk '{print $3}') +done +step=3 weights=w3 node=n[0-9]$"

# Retention: keep=1, the ranks resumed from ckpt-2, a new checkpoint 4.
touch "$tmp/go"
ok "the second pass runs" wait_until 60 test -e "$tmp/done"
like "... submits the new checkpoint's eval and deletes beyond --elastic-keep" "$(cat "$tmp/tick2")" "checkpoints=4 newest=4 submitted=1 failed=0 deleted=2"
is "... never the one in use nor the newest" "$(cd "$dir" && ls -d ckpt-* | tr '\n' ' ')" "ckpt-2.pt ckpt-4.pt "
touch "$tmp/end"
wait_until 60 job_gone_or_done "$jid"
cleanup_jobs
done_testing
