#!/bin/bash
# Slurm preempts units one at a time, never the group: a 2-node job in the
# high partition takes 2 of a 4-node group's 3 units; the base and the
# third unit run on, the world shrinks to 2, the preemptor starts within the
# preempt partition's GraceTime, and the group returns to 4 nodes when the
# preemptor ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 19

grace=$(scontrol show partition preempt | grep -oE 'GraceTime=[0-9]+' | cut -d= -f2)
ok "elasticd starts" ed_start
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=5)
like "a min=1 max=4 group is accepted (ranks checkpoint within 5 s)" "$base" '^[0-9]+$'
ok "it grows to 4 nodes" gwait 60 "$base" 'world == 4 and len(units()) == 3 and state == "RUNNING"' ||
	show_group "$base"
before=$(running_units "$base")
gen0=$(gq "$base" gen)
base_nodes=$(job_field "$base" NodeList)
diag "units before: $before; base on $base_nodes; generation $gen0"

# --- the preemptor ----------------------------------------------------------
sampler_start "$base"
t0=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
like "a 2-node job in the high partition is accepted" "$hjid" '^[0-9]+$'
ok "the preemptor starts" wait_until $((grace + 30)) job_running "$hjid"
t_start=$(now)
took=$(awk -v a="$t0" -v b="$t_start" 'BEGIN { printf "%.1f", b - a }')
figure "preempt: preemptor submitted to running: $took s (GraceTime=$grace s)"
# Slurm ends a preempted job at the end of GraceTime at the latest; the
# preemptor then waits for the next scheduling pass (sched_interval=2).
ok "... within the grace time (and Slurm's 2 s scheduling interval)" below "$took" "$((grace + 2))"
for j in $before; do
	[ "$(job_field "$j" JobState)" = RUNNING ] && continue
	diag "unit $j: $(job_field "$j" JobState) (Slurm's end $(job_field "$j" EndTime), preemptor submitted $(date -d "@${t0%.*}" +%H:%M:%S))"
done

ok "the world shrinks to the base and one unit" gwait 30 "$base" 'world == 2 and len(members(in_world=True)) == 2' ||
	show_group "$base"
t2=$(first_sample_time "$t0" '$3 == 2')
figure "preempt: preemptor submitted to a world of 2 nodes: $(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s"
is "the base job runs on, on the same nodes" "$(job_field "$base" JobState) $(job_field "$base" NodeList)" "RUNNING $base_nodes"
survivors=()
for j in $before; do
	[ "$(job_field "$j" JobState)" = RUNNING ] && survivors+=("$j")
done
is "exactly one of the 3 units was not preempted" "${#survivors[@]}" 1
survivor=${survivors[0]:-none}
is "... it runs on, never restarted" "$(job_field "$survivor" JobState) $(job_field "$survivor" Restarts)" "RUNNING 0"
is "... and is in the new world with the base" \
	"$(gq "$base" 'ids(members(in_world=True))')" "$(printf '%s\n' "$base" "$survivor" | sort -n | tr '\n' ' ' | sed 's/ $//')"
ok "the timeline records the preemption" gwait 5 "$base" 'any(e.get("cause") == "preempt" for e in events)'
is "the preemptor holds 2 nodes the group had" \
	"$(job_hosts "$hjid" | grep -cvxF -f <(job_hosts "$base"; job_hosts "$survivor"))" 2
ok "the generation went forward" test "$(gq "$base" gen)" -gt "$gen0"

# While the preemptor holds its nodes the group cannot grow: it stays at 2.
gwatch 3 "$base"
is "while the preemptor runs, the world stays at 2" "$(worlds_seen "$t2")" "2 "

# --- the preemptor ends ------------------------------------------------------
t3=$(now)
scancel "$hjid"
ok "the group returns to 4 nodes" gwait 60 "$base" 'world == 4 and len(units()) == 3' || show_group "$base"
figure "preempt: preemptor ended to a world of 4 again: $(secs_since "$t3") s"
sampler_stop
is "the base and the surviving unit are still the same jobs, running" \
	"$(job_field "$base" JobState) $(job_field "$survivor" JobState) $(job_field "$survivor" Restarts)" "RUNNING RUNNING 0"
live_is_3() { [ "$(slurm_units "$base" | wc -l)" = 3 ]; }
ok "no surplus units: 3 live unit jobs (preempted ones released or reused)" wait_until 10 live_is_3 ||
	diag "units: $(slurm_units "$base" | tr '\n' ';')"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
