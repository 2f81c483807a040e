#!/bin/bash
# Real PyTorch DDP ranks resized in place (slurm_elastic.torch.InPlace) on
# the cluster of hosts: start at min, grow into idle nodes, lose two units
# to a high-priority job, grow back, lose a unit's node to a crash (its
# processes killed, its network gone), grow back, finish.  The ranks that
# stay keep their processes through every resize; new ranks join warm and
# take the state from them; no rank restarts, every sample is processed
# exactly once and the final loss is that of an uninterrupted run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 36
pytorch_setup

SAMPLES=2048 BATCH=64 EVERY=20
STEPS_PER_EPOCH=$((SAMPLES / BATCH))
EPOCHS=${T0330_EPOCHS:-600}
out=$W/out
PHASE_FIGURE="in place"

ARGS="--samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS"
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py --in-place $ARGS --epochs-file $W/epochs \
	--step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 --sample-log-dir $W/samples --timeout 10"

ok "elasticd starts" ed_start
fill=$(filler preempt 3)
ok "3 of the 4 preemptible nodes are busy" wait_until 30 job_running "$fill"
t_phase=$(now)
base=$(ED_WRAP=$ED_WRAP submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=5 \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a min=1 max=4 PyTorch job is accepted" "$base" '^[0-9]+$'
ok "it starts at min: 1 rank, fresh, on the world channel" \
	wait_until 90 eval "log '^train_ddp: world 1 restart 0 fresh start at step 0, .* in place world 1' | grep -q . &&
		log '^train_ddp: .* event=up rank=0 world=1 .* world_no=1 ' | grep -q ."
p1=$(pids_in 1)

# --- growth into idle nodes: warm joiners ----------------------------------
t_phase=$(now)
scancel "$fill"
inplace_phase 4 "the nodes go idle: it grows to 4 ranks in place"
p_grow=$(pids_in "$last_world")
ok "... the rank that was there kept its process ($p1 in $p_grow)" subset "$p1" "$p_grow"
like "... the joiners were warm before the world switched (elastic-run: joining, then resize)" \
	"$(log 'elastic-run: .* event=(joining|resize) ' | tail -n2 | sed -E 's/.* event=([a-z]+) .*/\1/' | tr '\n' ' ')" '^joining resize $'
like "... and the joiners took its state: all 4 start the world at its step" "$(steps_in "$last_world" | tr '\n' ' ')" '^[1-9][0-9]* $'

# --- two units preempted ---------------------------------------------------
t_phase=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
inplace_phase 2 "a 2-node high-priority job takes 2 units: it goes on at 2 ranks in place"
p_pre=$(pids_in "$last_world")
ok "... the 2 ranks that stayed kept their processes ($p_pre in $p_grow)" subset "$p_pre" "$p_grow"
# preempted_held: a unit of the group preempted (its grace runs) still
# holds its node.  The ranks that leave have nothing to save: they exit
# at once, and elasticd releases their units, well before Slurm's grace
# (15 s) would end them.
preempted_held() {
	local u
	for u in $(running_units "$base"); do
		case $(job_field "$u" PreemptTime) in "" | None | Unknown) ;; *) return 0 ;; esac
	done
	return 1
}
# show_hold: which unit holds the preemptor up, and what the ranks said.
show_hold() {
	diag "$(squeue -h -t all -o '%i %T %r %N %j' 2>&1 | tail -n 12)"
	diag "$(grep -vE '^(step [0-9]+ epoch|train_ddp: world)' "$out" | tail -n 60)"
}
ok "... the ranks that left exited at once: their preempted units are released within 8 s" \
	wait_until 8 eval '! preempted_held' || show_hold
ok "the preemptor runs" wait_until 30 job_running "$hjid" || show_hold

t_phase=$(now)
scancel "$hjid"
inplace_phase 4 "the preemptor ends: it grows back to 4 ranks in place"
# Slurm may take a third unit before the regrowth: the ranks of the
# world just before it are those that must stay.
p_before=$(pids_in "$((last_world - 1))")
p_back=$(pids_in "$last_world")
ok "... the ranks that were there kept their processes ($p_before in $p_back)" subset "$p_before" "$p_back"

# --- a unit's node crashes -------------------------------------------------
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
t_phase=$(now)
ok "the node of unit $unit ($node) crashes" node_fail "$node"
inplace_phase 3 "it goes on at 3 ranks in place, from the survivors' memory" 150
p_fail=$(pids_in "$last_world")
ok "... the 3 survivors kept their processes ($p_fail in $p_back)" subset "$p_fail" "$p_back"
like "... their collective failed and they recovered" "$(log '^train_ddp: .* event=recovered ' | head -n1)" 'after='
t_phase=$(now)
ok "the node boots" node_resume "$node"
inplace_phase 4 "it grows back to 4 ranks in place" 150
p_last=$(pids_in "$last_world")
ok "... the 3 kept their processes ($p_fail in $p_last)" subset "$p_fail" "$p_last"

# --- the end ---------------------------------------------------------------
finish_soon
ok "training finishes" wait_until 600 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
ok "the base job completes" wait_until 30 eval '[ "$(job_field "$base" JobState)" = COMPLETED ]'
whys=$(relaunch_whys)
is "no rank restarted: one launch, no relaunch (${whys:-none})" "$(log 'elastic-run: .* event=relaunch ' | wc -l)" 0
is "no resize fell back to the restart path (${whys:-none})" "$(log 'elastic-run: .* event=fallback ' | wc -l)" 0
[ -z "$whys" ] || relaunch_errors
# Slurm may take the 2 units one after the other: two shrinks, then.
n_in_place=$(log 'elastic-run: .* event=resized .*path=in-place ' | wc -l)
ok "elastic-run resized in place at least 5 times ($n_in_place)" test "$n_in_place" -ge 5
window=0
cs=$(runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window")
ok "every sample of every epoch processed exactly once: $cs" \
	runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window"
like "... nothing missing" "$cs" ' 0 missing, 0 unexpected'
steps=$(log '^train_ddp: done: ' | tail -n1 | sed -E 's/.* ([0-9]+) steps.*/\1/')
is "the total number of steps is that of an uninterrupted run" "$steps" "$((EPOCHS * STEPS_PER_EPOCH))"
# The same training uninterrupted on 1 rank, here, as many epochs: its
# final loss.
ref=$W/ref
mkdir -p "$ref" && chmod 777 "$ref"
# shellcheck disable=SC2086 # options
(cd "$ref" && runuser -u "$TEST_USER" -- env -u SLURM_CONF RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 \
	LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((MC_PORT_BASE + 61)) \
	GLOO_SOCKET_IFNAME=lo OMP_NUM_THREADS=1 PYTHONPATH="$ELASTIC_SRCDIR/contribs/python" \
	"$PYTHON" "$EX/train_ddp.py" --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS --checkpoint-dir "$ref/ckpt" >"$ref/out" 2>&1)
REF=$(sed -n 's/^final loss \([0-9.e+-]*\)$/\1/p' "$ref/out")
like "the uninterrupted run on 1 rank gives a final loss" "$REF" '^[0-9]'
loss=$(log '^final loss ' | tail -n1 | awk '{ print $3 }')
ok "the final loss ($loss) is the uninterrupted run's ($REF) within float tolerance" \
	awk -v f="$loss" -v r="$REF" 'BEGIN { d = f - r; if (d < 0) d = -d; exit !(f != "" && d <= 1e-4 * r + 1e-7) }'
ok "periodic checkpoints were still written" test -n "$(ls "$W/ckpt/$base" 2>/dev/null)"
diag "timeline:" && grep -E 'elastic-run: .*event=(launch|event|joining|resize|resized|fallback|done)' "$out" | sed 's/^/#   /' || true
for s in $(log 'elastic-run: .* event=resized ' | sed -nE 's/.* seconds=([0-9.]+).*/\1/p'); do figure "in-place resize, event to all ranks joined: $s s"; done
# No false alarm through imports, checkpoints, resizes and a loaded
# machine: the crashed node alone was named, no rank hung.
is "no rank was taken as hung" "$(log 'elastic-run: .* event=hang ' | wc -l)" 0
like "no node but the crashed one was named lost" "$(log 'cause=node-lost ' | sed -E 's/.* node=([^ ]+) .*/\1/' | sort -u | tr '\n' ' ')" "^($node )?$"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
