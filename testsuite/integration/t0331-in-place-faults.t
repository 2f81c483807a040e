#!/bin/bash
# Faults Slurm does not see, under real PyTorch DDP ranks resized in place
# (slurm_elastic.torch.InPlace) on the cluster of hosts: a min=2 max=4
# group grown to 4 nodes, its ranks' collective timeout 10 s,
# --elastic-hang-timeout=10, --elastic-heartbeat-timeout=3, elasticd
# with SuspectNodes=drain:
#   1. the newest unit's node loses its routes to the other compute nodes
#      but the batch host: the heartbeats' ring names the split, the unit
#      is let go, and the 3 ranks on the batch host's side go on in place,
#      keeping their processes;
#   2. the split heals and an admin resumes the node: back to 4 in place;
#   3. every rank on the newest unit's node stops (SIGSTOP; its node and
#      slurmd are fine): elastic-run names it hung after the hang timeout,
#      lets its unit go, and the 3 others go on in place;
#   4. the node resumed, back to 4; the newest unit's node crashes (its
#      processes killed, its network gone; 3 s heartbeat timeout): the 3
#      others go on in place without waiting for Slurm or for the
#      process group's timeout.
# No rank restarts, no failure is counted against --max-restarts, and the
# figures (fault -> a step at the new size) are make bench-faults's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 25
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
SAMPLES=2048 BATCH=64 EVERY=20 EPOCHS=400 HANG=10 HB=3
out=$W/out
PHASE_FIGURE="in place"

ed_write_conf SuspectNodes=drain
at_exit resume_suspects
ok "elasticd starts" ed_start
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py --in-place --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS \
	--step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 --timeout 10"
t_phase=$(now)
base=$(ED_WRAP=$ED_WRAP submit_group "$TEST_USER" --elastic-min=2 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=5 --elastic-hang-timeout=$HANG --elastic-heartbeat-timeout=$HB \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "a min=2 max=4 PyTorch job resizing in place is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
ok "it starts on the world channel" wait_until 90 eval "log '^train_ddp: .* event=up rank=0 world=[0-9] .* world_no=1 ' | grep -q ."
# It may start at 4 (the nodes idle) or grow to 4, in place or, when the
# growth comes before every rank said it resizes in place (a loaded
# machine starts them slowly), by a relaunch: the stories start after it.
[ "$(world_at 4)" = 1 ] && last_world=0
inplace_phase 4 "it runs at 4 ranks on 4 hosts" 120
p4=$(pids_in "$last_world")
started=$(wc -l <"$out")

# newest: the node of the group's newest unit.
newest() { job_hosts "$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)"; }
# ranks_on NODE: the training's processes in NODE's network namespace.
ranks_on() {
	ip netns pids "mc$MC_PORT_BASE-$1" 2>/dev/null | while read -r pid; do
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'train_ddp\.py' && echo "$pid"
	done | sort -n | tr '\n' ' '
}
# no_restart WHAT: the ranks kept their processes, nothing fell back.
no_restart() {
	ok "$1: the 3 that stayed kept their processes" subset "$(pids_in "$last_world")" "$p4"
	is "$1: no relaunch, no fallback to the restart path, no failure counted" \
		"$(tail -n +"$((started + 1))" "$out" | grep -cE 'elastic-run: .* event=(relaunch|fallback|failure) ')" 0
}

# --- 1. a split between compute nodes ------------------------------------------
node=$(newest)
split_found "$node" "$base" "1: elastic-run finds the split and lets $node go" 60
figure "in place: split: the routes cut to the launcher's word: $(secs_since "$t_phase") s"
inplace_phase 3 "split: it goes on at 3 ranks in place, on the batch host's side" 90
no_restart 1
ok "1: elasticd drained $node, saying why" wait_until 10 drained_by "$node" "$base" lost || diag "$(drained_for "$node")"

# --- 2. healed ---------------------------------------------------------------------
split_heal
t_phase=$(now)
scontrol update NodeName="$node" State=RESUME
inplace_phase 4 "the split heals, the node resumed: back to 4 ranks in place" 120
p4=$(pids_in "$last_world")

# --- 3. a node's ranks stop --------------------------------------------------------
node=$(newest)
stopped=$(ranks_on "$node")
like "3: the ranks on $node ($stopped)" "$stopped" '^[0-9]'
mark=$(wc -l <"$out")
t_phase=$(now)
# shellcheck disable=SC2086 # pids
kill -STOP $stopped
# shellcheck disable=SC2086 # pids
at_exit "kill -CONT $stopped 2>/dev/null; true"
ok "3: elastic-run names a rank on $node hung" wait_until 60 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=hang .* node=$node '" ||
	diag "$(tail -n +$((mark + 1)) "$out" | grep -E 'elastic-run:' | tail -n 15)"
took=$(secs_since "$t_phase")
figure "in place: hang: the ranks stopped to the launcher's word: $took s (--elastic-hang-timeout=$HANG)"
# The timeout runs from the ranks' last step, up to one step (0.05 s)
# and a heartbeat before the signal.
ok "3: ... after the timeout, not before ($took s)" below "$((HANG - 1))" "$took"
inplace_phase 3 "hang: it goes on at 3 ranks in place" 90
no_restart 3
ok "3: the unit on $node was let go" wait_until 20 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=released .*node=$node .*slurm=cancelled'"
# shellcheck disable=SC2086 # pids
kill -CONT $stopped 2>/dev/null

# --- 4. a node crashes -------------------------------------------------------------
t_phase=$(now)
scontrol update NodeName="$node" State=RESUME
inplace_phase 4 "the node resumed: back to 4 ranks in place" 120
p4=$(pids_in "$last_world")
node=$(newest)
mark=$(wc -l <"$out")
t_phase=$(now)
ok "4: the node of the newest unit ($node) crashes" node_fail "$node"
inplace_phase 3 "crash: it goes on at 3 ranks in place" 60
no_restart 4
ok "4: elastic-run found $node lost, before Slurm" bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'cause=node-lost node=$node '"

diag "timeline:" && grep -E 'elastic-run: .*event=(split|hang|event|released|joining|resize|resized|fallback)|event=recovered' "$out" | sed 's/^/#   /' || true
ok "the base job runs on" eval '[ "$(job_field "$base" JobState)" = RUNNING ]'
ok "elasticd stops on SIGTERM" ed_stop
done_testing
