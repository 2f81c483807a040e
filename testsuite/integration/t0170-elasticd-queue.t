#!/bin/bash
# Growth never jumps the queue: a group's unit waits behind another user's
# job queued in the preemptible partition, even one queued after the unit
# (UnitNice in elastic.conf lowers the units' priority).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 9

ok "elasticd starts" ed_start
# 3 of the 4 nodes held by one-node jobs: the group's base takes the
# fourth, and its unit must wait.
fills=""
for n in 1 2 3; do fills="$fills $(filler base 1)"; done
ok "3 one-node jobs hold 3 of the 4 nodes" wait_until 30 eval \
	'[ "$(squeue -h -t R -j "${fills// /,}" 2>/dev/null | wc -l)" = 3 ]'
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=2 --elastic-step=1 --elastic-scale-delay=1)
like "$TEST_USER's min=1 max=2 group is accepted" "$base" '^[0-9]+$'
ok "... its base runs and its unit waits for a node" wait_until 60 eval \
	'job_running "$base" && [ -n "$(slurm_units "$base" PENDING)" ]'
unit=$(slurm_units "$base" PENDING | awk '{ print $1; exit }')
# Another user's job, queued after the unit, in the units' partition.
other=$(runuser -u "$OTHER_USER" -- sbatch --parsable -p preempt -N1 -D "$ED_TMP" -o /dev/null -t 30 \
	--wrap 'exec sleep 1800')
like "$OTHER_USER queues a one-node job after the unit" "$other" '^[0-9]+$'
ok "... the unit's priority is below it" test "$(squeue -h -j "$unit" -o %Q)" -lt "$(squeue -h -j "$other" -o %Q)" ||
	diag "priorities: unit $(squeue -h -j "$unit" -o %Q), $OTHER_USER's $(squeue -h -j "$other" -o %Q)"
first=${fills# }
first=${first%% *}
scancel "$first"
ok "a node frees: $OTHER_USER's job gets it" wait_until 60 job_running "$other"
ok "... and the unit still waits" test "$(job_field "$unit" JobState)" = PENDING
scancel "$other"
ok "when $OTHER_USER's job ends, the unit gets the node" wait_until 60 job_running "$unit"
# shellcheck disable=SC2086 # job ids
scancel $fills "$base" 2>/dev/null
done_testing
