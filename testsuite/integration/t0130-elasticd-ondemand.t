#!/bin/bash
# On-demand fallback and return, make-before-break: a job in the high
# partition holds 3 of the preemptible nodes n[1-4] and the base the
# fourth, so the preemptible partition is full while n5 (the ondemand
# partition) is free.  A min=1 max=2 group with --elastic-ondemand=always is
# below its target: elasticd puts a unit on n5.  When the preemptible nodes
# are freed, a preemptible unit starts first and only then is the on-demand
# unit released: the world never drops below 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

ok "elasticd starts" ed_start
fill=$(filler high 3)
ok "a job in the high partition holds 3 of the preemptible nodes" wait_until 30 job_running "$fill"
t0=$(now)
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=2 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-ondemand=always)
like "a min=1 max=2 group with --elastic-ondemand=always is accepted" "$base" '^[0-9]+$'
ok "its base takes the last preemptible node" wait_until 30 job_running "$base"
diag "filler on $(job_field "$fill" NodeList), base on $(job_field "$base" NodeList)"

ok "the group reaches 2 nodes with an on-demand unit" \
	gwait 60 "$base" 'world == 2 and len(units(kind="ondemand")) == 1 and len(members(in_world=True)) == 2' ||
	show_group "$base"
figure "on-demand: base submitted to a world of 2 with an on-demand unit: $(secs_since "$t0") s"
od=$(gq "$base" 'ids(units(kind="ondemand"))')
like "the on-demand unit is one job" "$od" '^[0-9]+$'
is "... in the ondemand partition, on n5" "$(job_field "$od" Partition) $(job_field "$od" NodeList)" "ondemand n5"
is "... submitted as $TEST_USER" "$(job_field "$od" UserId | cut -d'(' -f1)" "$TEST_USER"
like "... tagged kind=ondemand" "$(admin_comment "$od")" "^elastic-unit:v1 group=$base kind=ondemand nodes=1 req=[1-9][0-9]*\$"
ok "the timeline records the fallback" gwait 5 "$base" 'any(e.get("cause") == "ondemand" for e in events)'
t2=$(first_sample_time "$t0" '$3 == 2')

# --- preemptible capacity returns ------------------------------------------
t1=$(now)
scancel "$fill"
ok "back on preemptible nodes: a preemptible unit in the world, no on-demand unit left" \
	gwait 60 "$base" 'world == 2 and len(units(kind="preemptible")) == 1 and len(members(kind="ondemand")) == 0' ||
	show_group "$base"
figure "on-demand: preemptible nodes freed to back on preemptible units: $(secs_since "$t1") s"
pu=$(gq "$base" 'ids(units(kind="preemptible"))')
is "the preemptible unit runs in the preempt partition" "$(job_field "$pu" Partition) $(job_field "$pu" JobState)" "preempt RUNNING"
od_done() { job_gone_or_done "$od"; }
ok "the on-demand unit is released" wait_until 15 od_done
# Make-before-break: Slurm's own times of the two jobs.
times=$(squeue_py "'%s %s' % (as_time(next(j for j in jobs if j['job_id'] == $pu)['start_time']), as_time(next(j for j in jobs if j['job_id'] == $od)['end_time']))")
figure "on-demand: unit released $(awk -v s="$times" 'BEGIN { split(s, t, " "); printf "%d", t[2] - t[1] }') s after the preemptible unit started (Slurm's times, 1 s resolution)"
ok "... only after the preemptible unit had started (make-before-break)" \
	awk -v s="$times" 'BEGIN { split(s, t, " "); exit !(t[1] <= t[2]) }'
is "the world never dropped below 2 nor went above max during the move" "$(worlds_seen "$t2")" "2 "
ok "the timeline records the return" gwait 5 "$base" 'any(e.get("cause") == "return" for e in events)'
ok "no live on-demand unit and no orphans" test -z "$(slurm_units "$base" | grep ' ondemand ')" -a -z "$(orphan_units)"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
