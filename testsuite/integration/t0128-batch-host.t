#!/bin/bash
# The batch host lost, at Slurm's own SlurmdTimeout (300 s): a group of
# min=2 max=3 (a 2-node base and a unit) under elastic-run, whose batch
# host (the base's first node, where elastic-run runs) crashes: every
# process killed, its link down.  Slurm alone would requeue the base only
# after SlurmdTimeout and hold it for the requeue delay (cred_expire,
# 120 s) on top.  elasticd hears no more from the launcher; after twice
# the heartbeat timeout (10 s at least) it finds the batch host's slurmd
# not answering while the group's other nodes do, sets the node DOWN
# (SuspectNodes=drain), and once Slurm has requeued the base lets it
# start at once (StartTime=now): the base runs again on the nodes left
# and its new launcher's ranks run, in well under a minute.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 11

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
ok "SlurmdTimeout=300, Slurm's default" slurmd_timeout_for_test 300

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
out=$W/out
cat >"$ED_TMP/rank.py" <<'EOS'
import os, sys, time
import slurm_elastic as se

step = 0
while not se.elastic_event_detected():
    time.sleep(0.2)
    step += 1
    se.progress(step)
sys.exit(0)
EOS
chmod 644 "$ED_TMP/rank.py"

ed_start_draining
base=$(py_group --elastic-heartbeat-timeout=3 --open-mode=append -o "$out")
like "a group is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
ok "it runs at 3 nodes" wait_until 90 bash -c "grep -qE 'event=ranks-up restart=[0-9]+ nnodes=3 ' '$out'"
batch=$(job_field "$base" BatchHost)
restarts=$(job_field "$base" Restarts)
mark=$(wc -l <"$out")
ts=$(now)
at_exit "node_resume $batch 2>/dev/null; true"
node_fail "$batch"
down_by_us() { sinfo -h -N -n "$batch" -o '%T|%E' | head -n1 | grep -qE "^down[a-z*]*\|slurm-elastic: job $base: batch host lost"; }
ok "elasticd sets the batch host $batch DOWN, saying why" wait_until 40 down_by_us || diag "$(sinfo -h -N -n "$batch" -o '%T|%E')" "$(tail -n 5 "$ED_LOG")"
figure "batch host: crash to elasticd's DOWN: $(secs_since "$ts") s (SlurmdTimeout=300)"
requeued() { [ "$(job_field "$base" Restarts)" -gt "$restarts" ]; }
ok "Slurm requeues the base at once" wait_until 20 requeued
ok "elasticd lets it start at once, once Slurm has requeued it" wait_until 45 grep -q "group $base: requeued base let start now" "$ED_LOG"
ok "the base runs again, without $batch" wait_until 40 bash -c "[ \"\$(squeue -h -j $base -o %T)\" = RUNNING ] && ! scontrol show hostnames \"\$(squeue -h -j $base -o %N)\" | grep -qx $batch"
figure "batch host: crash to the base running again: $(secs_since "$ts") s"
ok "its new launcher's ranks run" wait_until 60 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up '"
figure "batch host: crash to ranks up again: $(secs_since "$ts") s"
like "Slurm itself never saw $batch not responding" "$(sinfo -h -N -n "$batch" -o '%E')" "^slurm-elastic: job $base: batch host lost"
like "elasticctl shows it among the group's events" "$(ctl "$TEST_USER" events "$base" 2>&1)" "suspect.*node $batch lost \\(the batch host\\): set down"
done_testing
