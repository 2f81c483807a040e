#!/bin/bash
# Units never take a rigid job's backfill reservation, where the rigid job
# cannot preempt them (elasticd(8), Sharing): a cluster of its own, 7
# nodes with MC_TIERS=test (base, ondemand and preempt all PriorityTier 1:
# nobody preempts units), the bases on n1, units and the rigid jobs of
# dave (partition 'ondemand', PreemptMode=OFF) on n[2-7].  There Slurm's
# backfill is a rigid job's only protection, and it holds because elasticd
# gives each unit a nice (UnitNice) that puts it behind the rigid job and
# the base's time left as its time limit.
#   1. Rigid jobs R0 and R1 hold 3 unit nodes each for 5 minutes; a group
#      of alice (base -t 30: units of about 30 minutes) waits with 6
#      units pending.  Then R2, which needs the 6, is submitted: behind
#      the units in time, ahead of them by their nice, it waits with a
#      planned start at R1's end.  R0 cancelled, 3 nodes are idle; the
#      units would outlive R2's planned start: Slurm leaves them pending,
#      once every unit has been looked at by two backfill passes and
#      after, and R2's planned start stays.  (Without the nice they
#      would start at once, before R2 in priority order.)
#   2. R1 cancelled, R2 starts within 15 s (t0190's bound), no unit
#      having slipped onto its nodes.
#   3. The other way: R1' holds 3 nodes for 10 minutes, R2' waits for
#      the 6; a group of bob (base -t 3: units of 2 minutes, which end
#      before R2' starts) takes the 3 idle nodes through backfill, and
#      R2''s planned start is not moved later.  (Without a time limit
#      they would stay pending.)
# Slurm's main scheduler (22.05's and 24.11's alike) leaves the units
# pending too: the nodes of a partition whose first job waits go to no job
# after it (the units' reason is "Nodes required for job are DOWN,
# DRAINED or reserved for jobs in higher priority partitions"); only the
# backfill scheduler starts jobs there out of priority order, and only
# those that end before the starts it plans for the jobs ahead of them.
. "$(dirname "$0")/lib.sh"

# The cluster of this test, side by side with the one the others share.
MC_DIR=$MC_DIR-backfill
MC_PORT_BASE=$((MC_PORT_BASE + 900))
export MC_DIR MC_PORT_BASE MC_HOSTS=0 MC_NODES=7 MC_FIRST_JOB_ID=900000 MC_TIERS=test \
	MC_PART_BASE='n1' MC_PART_PREEMPT='n[2-7]' MC_PART_ONDEMAND='n[2-7]' MC_PART_HIGH='n1'
. "$(dirname "$0")/elasticd.sh"

plan 24

ed_own_cluster
ok "elasticd starts" ed_start

RIGID=elastic-dave
rigid() { # rigid NODES MINUTES: a job of dave in 'ondemand'
	runuser -u "$RIGID" -- sbatch --parsable -p ondemand -N "$1" -t "$2" -D "$ED_TMP" -o /dev/null \
		-J rigid --wrap 'exec sleep 1800'
}
# bf_plan R: pending R's start as planned by the backfill scheduler (epoch),
# from one reading of the job; nothing while it has none.  Slurm's main
# scheduler, at each pass, marks every pending job as its own
# (Scheduler=Main) until the next backfill pass plans it again
# (build_job_queue), and each backfill pass clears every planned start
# before it plans them again (_clear_job_estimates), 22.05 to 26.05: a
# reading in between finds no plan.
bf_plan() {
	local st sc t
	{ read -r st; read -r sc; read -r t; } < <(job_fields "$1" JobState Scheduler StartTime)
	[ "$st" = PENDING ] && [[ $sc == Backfill* ]] || return 0
	epoch "$t"
}
# plan_now R: R's planned start, past a backfill pass planning it again
# (nothing if it has none for 10 s).
plan_now() {
	local s end=$((SECONDS + 10))
	while s=$(bf_plan "$1") && [ -z "$s" ] && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
	done
	printf '%s\n' "$s"
}
# near S AT: S is AT give or take 2 s.
near() { [ -n "$1" ] && [ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]; }
# planned R AT: R has a planned start, AT give or take 2.
planned() { near "$(bf_plan "$1")" "$2"; }
# bf_stat NAME: a figure of sdiag's backfill section.
bf_stat() { sdiag | sed -n '/^Backfilling stats/,/^$/p' | sed -n "s/^[[:space:]]*$1: *//p" | head -n1 | awk '{ print $1 }'; }
# bf_passed CYCLES N: N backfill passes since sdiag counted CYCLES.
bf_passed() { [ "$(bf_stat 'Total cycles')" -ge $(($1 + $2)) ]; }
unit_ids() { slurm_units "$1" | awk '{ print $1 }' | sort -n | tr '\n' ' '; }
# looked_at SINCE CYCLES UNIT...: two backfill passes at least since
# CYCLES (sdiag), the last of which went through every pending job (the
# UNITs and R2), and every UNIT pending, evaluated by Slurm at SINCE
# (epoch) or later and given a later start by the backfill scheduler
# (Scheduler=Backfill:*).
looked_at() {
	local since=$1 cycles=$2 u e
	shift 2
	bf_passed "$cycles" 2 || return 1
	[ "$(bf_stat 'Last depth cycle')" -ge $(($# + 1)) ] || return 1
	for u in "$@"; do
		[ "$(job_field "$u" JobState)" = PENDING ] || return 1
		[ "$(job_field "$u" Scheduler)" = 'Backfill:*' ] || return 1
		e=$(job_time "$u" LastSchedEval)
		[ -n "$e" ] && [ "$e" -ge "$since" ] || return 1
	done
}
group_gone() { job_gone_or_done "$1" && [ -z "$(slurm_units "$1")" ]; }
idle_unit_nodes() { sinfo -h -N -p preempt -t idle -o '%N' | sort -u | wc -l; }
# ends_before AT JOB...: every JOB's end (start and limit) is before AT
# (and there is one JOB at least).
ends_before() {
	local at=$1 j e
	shift
	[ $# -gt 0 ] || return 1
	for j in "$@"; do
		e=$(job_time "$j" EndTime)
		[ -n "$e" ] && [ "$e" -lt "$at" ] || return 1
	done
}
# limits UNIT...: their time limits (scontrol's), space-separated.
limits() { local u; for u in "$@"; do printf '%s ' "$(job_field "$u" TimeLimit)"; done; }

# rigid_pair R1 R2 MINUTES: R2 (r2), a rigid job that needs the 6 unit
# nodes, waits with a planned start at the end (r1_end) of R1 (r1, of
# MINUTES).
rigid_pair() {
	r1_end=$(job_time "$r1" EndTime)
	r2=$(rigid 6 "$3")
	ok "$2, which needs the 6, waits with a planned start at $1's end" wait_until 30 planned "$r2" "$r1_end" ||
		diag "$2: $(scontrol show job -o "$r2")"
}

# --- 1. units too long for the reservation stay pending ---------------------
r0=$(rigid 3 5)
r1=$(rigid 3 5)
ok "rigid jobs R0 and R1 of $RIGID hold 3 unit nodes each for 5 minutes" \
	wait_until 30 eval 'job_running "$r0" && job_running "$r1"'
a=$(submit_group elastic-alice --elastic-min=1 --elastic-max=7 --elastic-step=1)
ok "alice's group (base -t 30 on n1) runs at 1 node with 6 units pending" \
	gwait 60 "$a" 'world == 1 and len(units(state="pending")) == 6' || show_group "$a"
read -ra au <<<"$(unit_ids "$a")"
# Each unit's limit is the base's time left in whole minutes: 30 when
# asked for in the base's first second, 29 or 28 on a slower start; far
# past R2's planned start.
like "its units' time limits are the base's time left (about 30 minutes)" "$(limits "${au[@]}")" \
	'^((00:)?(2[89]|30):00 ){6}$'
rigid_pair R1 R2 5
scancel "$r0"
ok "R0 cancelled, its 3 nodes are idle" wait_until 30 eval '[ "$(idle_unit_nodes)" = 3 ]'
since=$(date +%s)
cycles=$(bf_stat 'Total cycles')
ok "Slurm looks at every unit in two backfill passes and after" \
	wait_until 30 looked_at "$since" "$cycles" "${au[@]}" ||
	diag "backfill cycles $cycles -> $(bf_stat 'Total cycles'); units: $(slurm_units "$a" | tr '\n' ';')"
figure "backfill: $(bf_stat 'Last depth cycle') jobs in the last backfill pass, $(bf_stat 'Total cycles') passes"
is "... and leaves every unit pending, on 3 idle nodes" "$(running_units "$a")|$(idle_unit_nodes)" "|3"
ok "R2's planned start is still R1's end" near "$(plan_now "$r2")" "$r1_end" ||
	diag "R2: $(scontrol show job -o "$r2")"
diag "a unit's reason: $(job_field "${au[0]}" Reason)"

# --- 2. R1 ends: R2 starts at once ------------------------------------------
t0=$(now)
scancel "$r1"
ok "R1 cancelled: R2 starts" wait_until 30 job_running "$r2"
delay=$(secs_since "$t0")
figure "backfill: R2 (6 nodes) started $delay s after R1 was cancelled, 6 units of about 30 minutes pending"
ok "... within 15 s" below "$delay" 15
is "R2 holds the 6 unit nodes, no unit runs" "$(job_field "$r2" NodeList)|$(running_units "$a")" "n[2-7]|"
scancel "$a"
ok "alice's group ends" wait_until 60 group_gone "$a"
scancel "$r2"
ok "R2 ends, the queue is empty" wait_until 60 queue_empty

# --- 3. units that end before the reservation may use the idle nodes --------
r1=$(rigid 3 10)
ok "R1' holds 3 of the 6 unit nodes for 10 minutes" wait_until 30 job_running "$r1"
rigid_pair "R1'" "R2'" 10
plan0=$(plan_now "$r2")
t0=$(now)
b=$(submit_group elastic-bob -t 3 --elastic-min=1 --elastic-max=4 --elastic-step=1)
ok "bob's group (base -t 3: units of 2 minutes) reaches a world of 4 on the 3 idle nodes" \
	gwait 60 "$b" 'world == 4' || show_group "$b"
figure "backfill: 3 units of 2 minutes started in $(secs_since "$t0") s on the nodes R2' waits for"
read -ra bu <<<"$(running_units "$b")"
like "its units' limits end before R2''s planned start" "$(limits "${bu[@]}")" '^((00:)?0[23]:00 ){3}$'
ok "... and they end before it" ends_before "$plan0" "${bu[@]}"
sched=$(for u in "${bu[@]}"; do job_field "$u" Scheduler; done | sort -u | tr '\n' ' ')
is "the backfill scheduler started them" "$sched" "Backfill "
cycles=$(bf_stat 'Total cycles')
ok "two backfill passes later" wait_until 30 bf_passed "$cycles" 2
ok "R2''s planned start is not moved later by them" near "$(plan_now "$r2")" "$plan0" ||
	diag "R2' planned at $plan0, now: $(scontrol show job -o "$r2")"
scancel "$b"
ok "bob's group ends" wait_until 60 group_gone "$b"
scancel "$r1" "$r2"
ok "everything ends" wait_until 60 queue_empty

done_testing
