#!/bin/bash
# A base job in a preemptible partition (BasePartitions=base,preempt) is
# preempted: its ranks get the event at the start of the grace and
# checkpoint; Slurm requeues the job (PreemptMode=REQUEUE), runs it again
# when its nodes are free, and elastic-run resumes from the newest
# checkpoint of the first run, so that every step is trained once and the
# job completes.  Slurm 24.05 changed what happens in the grace (a batch
# script that exits during it is requeued, not completed): the story must
# end the same on 22.05 and 24.11.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 15

make_tmp tmp
chmod 755 "$tmp"
at_exit cleanup_jobs
W=$tmp/w
mkdir -p "$W"
chmod 777 "$W"
STEPS=20

# A rank (one per node): resumes after the step of ELASTIC_PREV_CHECKPOINT,
# one step a second, rank 0 writes ckpt-<step> (atomically) and every rank
# logs the steps it trained; on the event it exits 75 ("relaunch me")
# after its step, as a training script does.
cat >"$tmp/rank.sh" <<'EOS'
#!/bin/bash
r=${SLURM_NODEID:-0}
echo "${SLURM_RESTART_COUNT:-0} ${ELASTIC_RESTART_COUNT:-0} $ELASTIC_PREV_CHECKPOINT" >>"$W/launches.$r"
ev=0
trap 'ev=1' URG
s=0
[[ $ELASTIC_PREV_CHECKPOINT =~ ckpt-0*([0-9]+)$ ]] && s=${BASH_REMATCH[1]}
d=$ELASTIC_CHECKPOINT_DIR
mkdir -p "$d"
while [ "$s" -lt "$STEPS" ]; do
	sleep 1
	s=$((s + 1))
	if [ "$r" = 0 ]; then
		echo "$s" >"$d/.ckpt-$s.tmp" && mv "$d/.ckpt-$s.tmp" "$d/ckpt-$(printf %04d "$s")"
	fi
	echo "$s" >>"$W/steps.$r"
	if [ "$ev" = 1 ]; then
		echo "$s" >>"$W/events.$r"
		exit 75
	fi
done
EOS
chmod 755 "$tmp/rank.sh"

jid=$(sbatch --parsable -p preempt -N2 --elastic-min=2 --elastic-max=2 \
	"--elastic-checkpoint-dir=$tmp/ck/%j" -o "$W/out" --open-mode=append \
	--export=ALL,W="$W",STEPS=$STEPS --wrap "exec $RUN -- $tmp/rank.sh")
like "an elastic base job in the preemptible partition is accepted" "$jid" '^[0-9]+$'
at_steps() { [ "$(tail -n1 "$W/steps.0" 2>/dev/null)" -ge "$1" ] 2>/dev/null; }
ok "its ranks train" wait_until 60 at_steps 3

nodes=$(job_field "$jid" NodeList)
hjid=$(sbatch --parsable -p high -w "$nodes" -N2 -o /dev/null --wrap 'sleep 5')
like "a job of the high partition wants its nodes" "$hjid" '^[0-9]+$'
ok "both ranks see the event in the grace and exit after their step" \
	wait_until 30 eval '[ -s "$W/events.0" ] && [ -s "$W/events.1" ]'
requeued() { [ "$(job_field "$jid" Restarts)" -ge 1 ] 2>/dev/null; }
ok "Slurm requeues the base (Restarts=1), not ends it" wait_until 60 requeued
# Nothing is launched in the grace: from Slurm 24.05 elastic-run exits at
# once (the job is requeued and the preemptor starts), before it waits for
# Slurm's kill at the grace's end.
ok "elastic-run says the job is preempted and launches nothing in the grace" \
	log_has "$W/out" 'elastic-run: .* event=preempted restart=0 .*then=(exit|wait)'
is "... one launch in the first run" "$(grep -c '^0 ' "$W/launches.0")" 1
ok "the preemptor runs and ends" wait_until 90 job_gone_or_done "$hjid"
# A requeued batch job is eligible again a while after it ended (Slurm's
# requeue delay, about two minutes).
second_run() { grep -q '^1 ' "$W/launches.0" 2>/dev/null; }
ok "the base runs again" wait_until 240 second_run
# The newest checkpoint: the one of the event's step, or a later one of a
# launch in the grace.
prev=$(grep '^1 ' "$W/launches.0" | head -n1 | cut -d' ' -f3)
event_step=$(head -n1 "$W/events.0")
prev_step=$(sed -n 's|.*/ckpt-0*\([0-9]*\)$|\1|p' <<<"$prev")
like "... and resumes from a checkpoint of the first run" "$prev" "/ck/$jid/ckpt-[0-9]+\$"
ok "... the newest: at or after the event's step ($event_step)" test "${prev_step:-0}" -ge "$event_step"
ok "the job completes" wait_until 120 job_gone_or_done "$jid" || {
	scontrol show job "$jid" | sed 's/^/# /'
	sacct -j "$jid" -o JobID,State,ExitCode,Start,End | sed 's/^/# /'
	tail -n 40 "$W/out" | sed 's/^/# /'
}
is "... successfully" "$(job_field "$jid" JobState) $(job_field "$jid" ExitCode)" "COMPLETED 0:0"
is "... after one requeue" "$(job_field "$jid" Restarts)" 1
# Steps after the checkpoint a rank resumed from are trained again only if
# a launch was ended past it (Slurm's kill at the grace's end); every step
# up to STEPS is there, in order, none skipped.
is "every step was trained, none skipped" "$(sort -un "$W/steps.0" | tr '\n' ' ')" "$(seq -s' ' 1 $STEPS) "
[ "$(sort -un "$W/steps.0" | wc -l)" = $STEPS ] || { tail -n 30 "$W/out"; cat "$W/launches.0"; }

done_testing
