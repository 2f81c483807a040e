#!/bin/bash
# The MPI example under elastic-run --launcher=mpirun and elasticd: one
# MPI_COMM_WORLD over the base and its units (mpirun's orteds started as
# steps of the jobs holding their nodes), which shrinks when a
# high-priority job preempts units and grows back when it ends; each
# relaunch resumes from the checkpoint written at the event, every sample
# is processed exactly once and the loss decreases.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 15

TRAIN="$ELASTIC_BUILDDIR/contribs/examples/mpi/train_mpi"
CHECK="$ELASTIC_SRCDIR/contribs/examples/pytorch/check_samples.py"
[ -x "$TRAIN" ] || bail "not built: $TRAIN"
command -v mpirun >/dev/null || bail "mpirun not found (apt-get install openmpi-bin)"
W=$ED_TMP/w
mkdir -p "$W/samples" && chmod -R 777 "$W"
SAMPLES=2048 BATCH=64 EPOCHS=${T0235_EPOCHS:-30}
out=$W/out
log() { grep -E -- "$1" "$out" 2>/dev/null; }

# Open MPI talks over the cluster's network (see contribs/examples/mpi).

ok "elasticd starts" ed_start
base=$(ED_WRAP="export PMIX_MCA_gds=hash OMPI_MCA_pml=ob1 \
OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=$CLUSTER_NET OMPI_MCA_oob_tcp_if_include=$CLUSTER_NET OMPI_MCA_rtc=^hwloc OMPI_MCA_mpi_yield_when_idle=1
exec $RUN --launcher=mpirun -- $TRAIN --samples $SAMPLES --batch $BATCH --epochs $EPOCHS \
	--step-sleep 0.05 --log-every 4 --checkpoint-every 8 --sample-log-dir $W/samples" \
	submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=20 --elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a min=1 max=4 MPI job is accepted" "$base" '^[0-9]+$'

# world_trains W: the newest start is at W ranks and has trained a step.
world_trains() {
	[ -e "$out" ] && awk -v w="$1" '
		/^train_mpi: world / { cur = ($3 == w); seen = 0 }
		cur && /^step / && $NF == w { seen = 1 }
		END { exit !(cur && seen) }' "$out"
}
ok "the ranks train as one world of 4 over the base and 3 units" wait_until 90 world_trains 4
like "... launched by one mpirun over the group's jobs" "$(log 'event=(re)?launch .*nnodes=4' | tail -n1)" \
	"source=elasticd jobs=$base:"

t0=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a 2-node high-priority job takes 2 units: the world shrinks to 2" wait_until 90 world_trains 2
figure "mpi: preemptor submitted to the ranks training at 2: $(secs_since "$t0") s"
ok "the preemptor runs" wait_until 30 job_running "$hjid"
t0=$(now)
scancel "$hjid"
ok "the preemptor ends: the world grows back to 4" wait_until 90 world_trains 4
figure "mpi: preemptor ended to the ranks training at 4: $(secs_since "$t0") s"

ok "training finishes" wait_until 300 log_has "$out" '^train_mpi: done'
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
# The ranks on mpirun's own node are in no Slurm step: mpirun passes the
# event on to them; none was left to be killed at the grace's end.
is "every world ended on its own: no member killed at the grace's end" \
	"$(log 'event=exited ' | grep -vc ' killed_members=0 ')" 0
worlds=$(log '^train_mpi: world ' | awk '{ print $3 }' | tr '\n' ' ' | sed 's/ $//')
like "the worlds: 4, then 2, then 4 (sizes on the way up allowed)" "$worlds" '^(1 )?([23] )*4 2 (3 )?4$'
# Each start after the first resumed from the checkpoint of the event that
# ended the one before.
resumes_ok() {
	awk '/^train_mpi: elastic event at step/ { ev = $6 }
		/^train_mpi: world / && ev != "" {
			if ($0 !~ ("at step " ev ",")) bad = 1; ev = "" }
		END { exit bad }' "$out"
}
ok "each relaunch resumed at the step of the event's checkpoint" resumes_ok
cs=$(runuser -u "$TEST_USER" -- /usr/bin/python3 "$CHECK" "$W/samples" "$SAMPLES" "$EPOCHS")
ok "every sample of every epoch processed exactly once: $cs" \
	runuser -u "$TEST_USER" -- /usr/bin/python3 "$CHECK" "$W/samples" "$SAMPLES" "$EPOCHS"
init=$(log '^initial loss ' | awk '{ print $3 }')
final=$(log '^final loss ' | awk '{ print $3 }')
ok "the loss decreased ($init -> $final)" awk -v a="$init" -v b="$final" 'BEGIN { exit !(b < a / 10) }'
if [ "$_t_failed" != 0 ]; then
	diag "output:" && grep -vE '^(step |.*Forwarding signal)' "$out" | tail -n 150 | sed 's/^/#   /'
fi
ok "elasticd stops on SIGTERM" ed_stop
done_testing
