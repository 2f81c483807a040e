#!/bin/bash
# A sharded model resized in place, on the cluster of hosts:
# contribs/examples/pytorch/train_sharded.py --in-place (slurm_elastic.
# sharded.InPlace), replicas of 2 ranks (a base of 2 nodes, units of 2,
# one rank per node), each holding the whole state: HSDP (FSDP2 inside a
# replica) where fully_shard runs on the CPU, else tensor parallel in
# groups of 2 (--tp 2) replicated across the data-parallel ranks.
# It starts at 2, grows to 4 (the unit's ranks take their shards from the
# base's replica over gloo, not from the disk), loses its unit to a
# high-priority job, grows back, loses a unit's node to a crash (its
# replica gone, the base's kept), finishes.  The ranks that stay keep
# their processes through every resize, every elastic-run resize is in
# place, every sample is trained once per epoch (beyond the step a crash
# may redo) and the final loss is that of an uninterrupted run at 2
# ranks, within 5%.  Its DCP checkpoints are kept as --elastic-keep=3
# says, and a new job starts from one of them by JOB@STEP, resharded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 32
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
require_dcp
SAMPLES=1024 BATCH=32 EVERY=8
EPOCHS=600
PHASE_FIGURE="sharded in place"
out=$W/out
if PYTHONPATH=$ELASTIC_SRCDIR/contribs/python "$PYTHON" -c 'import sys; from slurm_elastic import sharded; sys.exit(not sharded.fsdp_runs_on("cpu"))' 2>/dev/null; then
	TP=1 SHARD=fsdp
else
	TP=2 SHARD=tp
fi
ARGS="--samples $SAMPLES --global-batch $BATCH --tp $TP --shard $SHARD"

ok "elasticd starts" ed_start
fill=$(filler preempt 2)
ok "2 of the 4 nodes are busy" wait_until 30 job_running "$fill"
t_phase=$(now)
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_sharded.py --in-place --replica 2 $ARGS --epochs $EPOCHS \
	--epochs-file $W/epochs --step-sleep 0.05 --checkpoint-every $EVERY --log-every 4 \
	--sample-log-dir $W/samples --timeout 10"
base=$(submit_group "$TEST_USER" --elastic-sizes=2,4 --elastic-scale-delay=2 --elastic-grace=30 \
	--elastic-fault-timeout=5 --elastic-keep=3 --elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a --elastic-sizes=2,4 sharded job in replicas of 2 is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
ok "it starts at 2 ranks, fresh, on the world channel ($SHARD, tp $TP)" \
	wait_until 90 eval "log '^train_ddp: world 2 restart 0 fresh start at step 0, .* shard $SHARD tp $TP .* in place world 1' | grep -q . &&
		log '^train_ddp: .* event=up rank=0 world=2 .* world_no=1 ' | grep -q ."
# world_pids N W: the W rank processes of in-place world N, once all
# have said so (a world's test passes at its rank 0's first step).
world_pids() { wait_until 30 eval "[ \$(pids_in $1 | wc -w) -ge $2 ]" && pids_in "$1"; }
p1=$(world_pids 1 2)

t_phase=$(now)
scancel "$fill"
inplace_phase 4 "the nodes go idle: it grows to 4 ranks in place (2 replicas)"
p_grow=$(world_pids "$last_world" 4)
ok "... the base's ranks kept their processes ($p1 in $p_grow)" subset "$p1" "$p_grow"
# healed_bytes=: what a rank took from a live replica (0 on the source).
healed() { log "^train_ddp: .* event=(up|resized) rank=$1 .* world_no=$2 " | sed -nE 's/.* healed_bytes=([0-9]+).*/\1/p'; }
like "... the joiners took their shards from the base's replica, over gloo" "$(healed 2 "$last_world")" '^[1-9][0-9]*$'
like "... all 4 start the world at one step" "$(steps_in "$last_world" | tr '\n' ' ')" '^[1-9][0-9]* $'

t_phase=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
inplace_phase 2 "a high-priority job takes its unit: the base's replica goes on at 2 in place"
p_pre=$(world_pids "$last_world" 2)
ok "... its ranks kept their processes ($p_pre in $p_grow)" subset "$p_pre" "$p_grow"
ok "the preemptor runs" wait_until 60 job_running "$hjid"
t_phase=$(now)
scancel "$hjid"
inplace_phase 4 "the preemptor ends: it grows back to 4 in place"
p_back=$(world_pids "$last_world" 4)
ok "... the base's ranks kept their processes ($p_pre in $p_back)" subset "$p_pre" "$p_back"

unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit" | head -n1)
t_phase=$(now)
ok "a unit's node ($node) crashes" node_fail "$node"
at_exit "node_resume $node 2>/dev/null; true"
inplace_phase 2 "... its replica is gone: the base's goes on at 2 in place, from memory" 150
p_fail=$(world_pids "$last_world" 2)
ok "... the survivors kept their processes ($p_fail in $p_back)" subset "$p_fail" "$p_back"

finish_soon
ok "training finishes" wait_until 600 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
whys=$(relaunch_whys)
is "no relaunch: every resize in place (${whys:-none})" "$(log 'elastic-run: .* event=(relaunch|fallback) ' | wc -l)" 0
[ -z "$whys" ] || relaunch_errors
n_in_place=$(log 'elastic-run: .* event=resized .*path=in-place ' | wc -l)
ok "elastic-run resized in place at least 4 times ($n_in_place)" test "$n_in_place" -ge 4
# A crash may make the world redo the step it died in: a step's window.
EVERY=0 trained_well "the crash"

# The same training without a resize, at 2 ranks, outside Slurm.
sharded_as_ref
# --- its checkpoints: DCP directories, retention, JOB@STEP -----------------
kept=$(cd "$W/ckpt/$base" && ls -d ckpt-* | tr '\n' ' ')
three_dcp() {
	local d
	for d in $kept; do test -f "$W/ckpt/$base/$d/.metadata" || return 1; done
	[ "$(wc -w <<<"$kept")" = 3 ]
}
ok "--elastic-keep=3: 3 DCP checkpoints are left ($kept)" three_dcp
first=${kept%% *}
step=$((10#${first#ckpt-}))
like "elasticctl checkpoints $base@$step names that directory" \
	"$(runuser -u "$TEST_USER" -- "$ELASTIC_CTL" checkpoints "$base@$step" 2>&1)" "/ckpt/$base/$first\$"
# A new job (at 2, on the restart path) from that step: it reshards what
# the world saved and goes on from there.
out2=$W/out2
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_sharded.py $ARGS --epochs $((EPOCHS + 1)) --log-every 0 --timeout 10"
job2=$(submit_group "$TEST_USER" --elastic-sizes=2 --elastic-resume-from="$base@$step" \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out2")
at_exit "scancel $job2 2>/dev/null; true"
ok "--elastic-resume-from=$base@$step: the new job loads that checkpoint" \
	wait_until 120 log_has "$out2" "^train_sharded: resumed from .*/ckpt/$base/$first "
ok "... and trains to its end from step $step" wait_until 300 eval \
	"grep -qE '^train_ddp: world 2 restart 0 resumed from .* at step $step, ' '$out2' && log_has '$out2' '^train_ddp: done: '"
ok "no unit is left" wait_until 60 eval '[ -z "$(slurm_units "$base" RUNNING; slurm_units "$base" PENDING)" ]'
ok "the crashed node boots" node_resume "$node"
diag "timeline:" && grep -E 'elastic-run: .*event=(launch|event|joining|resize|resized|fallback|done)' "$out" | sed 's/^/#   /' || true
for s in $(log 'elastic-run: .* event=resized ' | sed -nE 's/.* seconds=([0-9.]+).*/\1/p'); do figure "sharded in-place resize, event to all ranks joined: $s s"; done
ok "elasticd stops on SIGTERM" ed_stop
done_testing
