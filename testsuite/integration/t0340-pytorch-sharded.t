#!/bin/bash
# A sharded model resized on the restart path, on the cluster of hosts:
# contribs/examples/pytorch/train_sharded.py, a small transformer with
# tensor parallel in groups of 2 ranks (--tp 2) and, where fully_shard
# runs on the CPU (torch 2.7 and later), FSDP2 over the data-parallel
# ranks; DCP checkpoints (async between events), saved at one world size
# and loaded, resharded, at another.  The group's sizes follow the
# parallelism (--elastic-sizes=2,4: a base of 2 nodes, units of 2): it
# starts at 2 (the other nodes busy), grows to 4, loses its unit to a
# high-priority job, grows back, loses one node of its unit to a crash
# (down to 2: never a world of 3), finishes.
# Every resize is a relaunch that reshards (path=restart); every sample
# is trained once per epoch (beyond the steps the crash made redo), and
# the final loss is that of an uninterrupted run at 2 ranks, within 5%.
# (The README's sharded loop: t0341, in the unstable leg.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 26
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
require_dcp
SAMPLES=1024 BATCH=32 EVERY=8
EPOCHS=600
PHASE_FIGURE="sharded"
out=$W/out
ARGS="--samples $SAMPLES --global-batch $BATCH --tp 2"

ok "elasticd starts" ed_start
fill=$(filler preempt 2)
ok "2 of the 4 nodes are busy" wait_until 30 job_running "$fill"
t_phase=$(now)
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_sharded.py $ARGS --epochs $EPOCHS --epochs-file $W/epochs \
	--step-sleep 0.05 --checkpoint-every $EVERY --log-every 4 --sample-log-dir $W/samples --timeout 60"
base=$(submit_group "$TEST_USER" --elastic-sizes=2,4 --elastic-scale-delay=2 --elastic-grace=30 \
	--elastic-fault-timeout=5 --elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a --elastic-sizes=2,4 sharded job (--tp 2) is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
phase 2 "it starts at 2 ranks, fresh"
shard=$(log '^train_ddp: world 2 restart 0 ' | sed -nE 's/.* shard ([a-z]+) tp 2 .*/\1/p')
like "... sharded (tensor parallel in 2-rank groups; FSDP2 where it runs on the CPU)" "$shard" '^(tp|fsdp)$'

t_phase=$(now)
scancel "$fill"
phase 4 "the nodes go idle: it grows to 4 ranks (dp 2 x tp 2)"
t_phase=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
phase 2 "a high-priority job takes its unit: it goes on at 2 ranks"
t_phase=$(now)
scancel "$hjid"
phase 4 "the preemptor ends: it grows back to 4 ranks"

# The crash after a save of the world of 4: its relaunch reshards 4 -> 2.
saves_now() { log '^train_sharded: checkpoint step=' | wc -l; }
# shellcheck disable=SC2034 # read by the eval
n_saves=$(saves_now)
ok "the world of 4 saves a checkpoint" wait_until 60 eval '[ "$(saves_now)" -gt "$n_saves" ]'
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit" | head -n1)
t_phase=$(now)
ok "a unit's node ($node) crashes" node_fail "$node"
at_exit "node_resume $node 2>/dev/null; true"
phase 2 "... it goes on at 2 ranks, the sizes' next below 4" 150

finish_soon
ok "training finishes" wait_until 600 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
# An async save is on disk a save after it starts: the crash may redo up
# to two intervals of steps.
EVERY=$((2 * EVERY)) trained_well "the crash"
worlds=$(log '^train_ddp: world ' | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//')
like "the worlds: 2 4 2 4 2, never 3" "$worlds" '^2 4 2 4 2$'
is "every relaunch printed its path: restart" \
	"$(log 'elastic-run: .* event=relaunch ' | grep -vc 'path=restart')" 0
# Each relaunch reshards what the world before saved: "resumed from
# ckpt-S (saved by N ranks)" at another world size than N.
resharded=$(log '^train_sharded: resumed from ' | sed -nE 's/.*saved by ([0-9]+) ranks.*/\1/p' | tr '\n' ' ' | sed 's/ $//')
like "each relaunch loaded a DCP checkpoint saved at the other size" "$resharded" '^2 4 2 4$'
ok "the checkpoints are DCP directories" eval 'ls -d "$W/ckpt/$base"/ckpt-* | head -n1 | xargs -I{} test -f {}/.metadata'
saves=$(log '^train_sharded: checkpoint step=[0-9]+ async=yes ' | wc -l)
ok "periodic saves were async ($saves)" test "$saves" -gt 0

# The same training without a resize, at 2 ranks, outside Slurm.
sharded_as_ref --shard "$shard"
ok "no unit is left" wait_until 60 eval '[ -z "$(slurm_units "$base" RUNNING; slurm_units "$base" PENDING)" ]'
ok "the crashed node boots" node_resume "$node"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
