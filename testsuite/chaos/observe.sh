# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # the suite's variables, shared with chaos
# observe.sh: what the chaos suite reads of a run (the job's output,
# elasticd, Slurm) and the pending recovery it times.  Sourced by chaos.
# ---------------------------------------------------------------- reading the run
ts() { date +%T.%3N; }
rank0_step() { sed -n 's/^step \([0-9]*\) .*/\1/p' "$out" 2>/dev/null | tail -n1; }
lines() { { wc -l <"$out"; } 2>/dev/null || echo 0; }
# launcher_last: elastic-run's last event about its ranks.
launcher_last() {
	grep -E '^elastic-run: .* event=(launch|relaunch|ranks-up|event|told|exited|failure|waiting) ' "$out" 2>/dev/null |
		tail -n1 | sed 's/.* event=\([a-z-]*\).*/\1/'
}
# launcher_steady: the ranks are up.
launcher_steady() { [ "$(launcher_last)" = ranks-up ]; }
# launcher_waiting: elastic-run runs no rank until elasticd's next world.
launcher_waiting() { [ "$(launcher_last)" = waiting ]; }
last_restart() {
	grep -E "^$TAG: world [0-9]+ restart " "$out" 2>/dev/null | tail -n1 | awk '{ print $5 }'
}
group_nodes() { # the nodes of the group's world, by name
	local j
	for j in $BASE $(running_units "$BASE"); do job_hosts "$j"; done | sort -u
}
batch_host() { job_field "$BASE" BatchHost; }
base_ran() { # base_ran SECONDS: the base job has run that long
	local st
	st=$(date -d "$(job_field "$BASE" StartTime)" +%s 2>/dev/null) || return 1
	[ "$(job_field "$BASE" JobState)" = RUNNING ] && [ $(($(date +%s) - st)) -ge "$1" ]
}
step_reached() { [ "$(rank0_step)" -ge "$1" ] 2>/dev/null || log_done || base_ended; }
# base_ended: the base job ended (not requeued: a requeue passes through
# PENDING): the group is gone and no fault or recovery is left to wait
# for.  Its state and reason are said once.
base_ended() {
	[ -n "$BASE" ] && ! log_done && job_gone_or_done "$BASE" || return 1
	[ -n "$BASE_ENDED" ] && return 0
	BASE_ENDED=1
	run_fail "the base job $BASE ended: $(job_field "$BASE" JobState) ($(job_field "$BASE" Reason)), exit $(job_field "$BASE" ExitCode)"
}
# ckpt_newest: the newest checkpoint's name; ckpt_after NAME: one newer
# than NAME is there (elastic-run prunes old ones: their count says
# nothing).
ckpt_newest() { find "$CKPT" -maxdepth 1 -name 'ckpt-*' 2>/dev/null | sed 's|.*/||' | sort | tail -n1; }
ckpt_after() { [[ $(ckpt_newest) > $1 ]]; }
group_known() { [ -n "$(gq "$BASE" state 2>/dev/null)" ]; }
no_units() { [ -z "$(slurm_units "$BASE")" ]; }

# trained_at W OFFSET R0: rank 0 trained a step at world W, after line
# OFFSET, in a start with restart count above R0.
trained_at() {
	awk -v w="$1" -v off="$2" -v r0="$3" -v tag="$TAG" '
		index($0, tag ": world ") == 1 { cw = $3; cr = $5; ok = 0; next }
		/^step / && NR > off && cw == w && $NF == w && cr > r0 { ok = 1 }
		END { exit !ok }' "$out" 2>/dev/null
}
# recovered: the group trains again at the expected world REC_T or, when
# fewer than its min nodes are left, waits DEGRADED with no rank running.
recovered() {
	[ -z "$REC_PRED" ] || { eval "$REC_PRED"; return; }
	requeued || true
	target_world
	if [ "$REC_T" -lt "$MINN" ]; then
		[ "$(gq "$BASE" 'state' 2>/dev/null)" = DEGRADED ] && launcher_waiting
		return
	fi
	[ "$(gq "$BASE" '"%s %s" % (state, world)' 2>/dev/null)" = "RUNNING $REC_T" ] &&
		launcher_steady && trained_at "$REC_T" "$REC_OFF" "$REC_R0"
}
# said RE: the job's output has a line matching RE since the pending
# fault; said_then_step RE: and rank 0 trained a step after it.
said() { tail -n +$((REC_OFF + 1)) "$out" 2>/dev/null | grep -qE -- "$1"; }
said_then_step() {
	tail -n +$((REC_OFF + 1)) "$out" 2>/dev/null | awk -v re="$1" '
		$0 ~ re { seen = 1; next }
		seen && /^step / { ok = 1 }
		END { exit !ok }'
}
# target_start NODE KIND / target_end NODE KIND: a fault on NODE begins
# and ends, for the false alarms' reckoning (alarms.py).
target_start() { echo "$(date +%s.%N) start $1 $2" >>"$R/targets"; }
target_end() { echo "$(date +%s.%N) end $1 $2" >>"$R/targets"; }
# Idle nodes of n1..n4 out of service (not the one of the pending fault,
# counted apart): drained by elasticd for a fault (until the admin's
# return, the fault's inverse), or by Slurm itself: a kill -9 of slurmctld that lost a
# unit's start makes it start the unit again on a node that still runs it,
# and Slurm drains the node ("Duplicate jobid") until an admin resumes it.
# A draining node still runs its job: it is counted until that ends.
# Out of service too: an idle (or completing) node Slurm holds as not
# responding (its state marked "*"): a message sent while the node was down
# or cut failed after it came back, and no job starts there until a ping
# of slurmctld's answers (every SlurmdTimeout/3, 100 s at Slurm's default).
# One query: a node without "*" is there for drained, down or fail.
slurm_drained() {
	local ours=${SICK:-none}
	sinfo -h -N -n "n[1-$MAXN]" -t drained,down,fail,no_respond -o '%N %t' 2>/dev/null |
		awk '$2 !~ /\*/ || $2 ~ /^(idle|comp|drain|down|fail)/ { print $1 }' |
		sort -u | grep -vxF "$ours" | tr '\n' ' '
}
DRAINED_SAID=""
# expected world REC_T: the nodes n1..n4, minus the one of the pending
# fault (crashed, hung, split off or slow), minus the preemptor's, minus
# those out of service meanwhile (said once).
target_world() {
	local d
	d=$(slurm_drained)
	if [ "$d" != "$DRAINED_SAID" ]; then
		DRAINED_SAID=$d
		[ -z "$d" ] || say "  $(ts) out of service in Slurm: $d($(sinfo -h -n "${d%% *}" -o %E 2>/dev/null | head -n1))"
	fi
	# shellcheck disable=SC2086 # count the names
	local up=$((MAXN - $(echo $SICK $d | wc -w)))
	# A preemptor that cannot start takes nothing: the world keeps them all.
	if [ -n "$HIGH_BLOCKED" ]; then REC_T=$up; else REC_T=$((up - HIGH_N)); fi
	[ "$REC_T" -ge 0 ] || REC_T=0
}
# preemptor_blocked N: the preemptor takes units' nodes only, never the
# base's: with fewer than N in service outside the base (nodes out of
# service), Slurm cannot start it and preempts nothing.  Decided once, when
# the preemptor is submitted (HIGH_BLOCKED, until its inverse).
preemptor_blocked() {
	local h d base_in=0 gone up
	d=$(slurm_drained)
	gone="$d $SICK"
	# shellcheck disable=SC2086 # count the names
	up=$((MAXN - $(echo $gone | wc -w)))
	for h in $(job_hosts "$BASE" 2>/dev/null); do
		[[ " $gone " == *" $h "* ]] || base_in=$((base_in + 1))
	done
	((up - base_in < $1))
}

# pending recovery: its label, start time, deadline.
# REC_PRED: for a fault that changes no world, the command that says it
# is over.
REC_KIND="" REC_T0="" REC_DL=0 REC_T=0 REC_OFF=0 REC_R0=-1 REC_RQ0=0 REC_RQ="" REC_PRED="" REC_HELD=""
# How long Slurm may take to start a base it requeued: its nodes answer
# again at slurmctld's next ping, then the scheduler starts the job.
REQUEUE_DL=300
base_restarts() { job_field "$BASE" Restarts; }
expect() { # expect KIND DEADLINE RELAUNCH(0|1)
	REC_KIND=$1 REC_T0=$(now) REC_DL=$2 REC_OFF=$(lines) REC_RQ="" REC_PRED="" REC_HELD=""
	REC_RQ0=$(base_restarts)
	REC_RQ0=${REC_RQ0:-0}
	target_world
	if [ "$3" = 1 ]; then REC_R0=$(last_restart); else REC_R0=-1; fi
	REC_R0=${REC_R0:--1}
}
# requeued: Slurm requeued the base during the pending recovery (a fault
# can make it: its batch host taken for dead).  The whole world then
# starts again from the newest checkpoint under a new elastic-run, whose
# restarts count from 0; said once, and the recovery is timed as
# KIND+requeue.
requeued() {
	[ -z "$REC_RQ" ] || return 0
	local n
	n=$(base_restarts)
	[ -n "$n" ] && [ "$n" -gt "$REC_RQ0" ] 2>/dev/null || return 1
	REC_RQ=1 REC_R0=-1
	say "  $(ts) Slurm requeued the base (Restarts=$n, $(job_field "$BASE" Reason)): it starts again from its checkpoint"
}
# wait_recovery: wait for the pending recovery; record its figure.
wait_recovery() {
	[ -n "$REC_KIND" ] || return 0
	local t ok=1
	wait_until "$REC_DL" recovered_or_done ||
		{ [ -n "$REC_RQ" ] && wait_until "$REQUEUE_DL" recovered_or_done; } ||
		{ slurm_holds && wait_until "$REQUEUE_DL" recovered_or_done; } || ok=0
	[ -z "$REC_RQ" ] || REC_KIND=$REC_KIND+requeue
	[ -z "$REC_HELD" ] || REC_KIND=$REC_KIND+held
	if [ "$ok" = 0 ]; then
		echo "$REC_KIND timeout" >>"$FIGS"
		local st=steady tr=yes
		launcher_steady || st="not steady"
		trained_at "$REC_T" "$REC_OFF" "$REC_R0" || tr=no
		run_fail "no recovery from $REC_KIND within $REC_DL s: want world $REC_T; elasticd: $(gq "$BASE" '"%s world=%s" % (state, world)' 2>&1); launcher $st: $(grep '^elastic-run: .* event=' "$out" | tail -n1 | cut -c1-140); trained at $REC_T after line $REC_OFF (restart > $REC_R0): $tr"
	elif [ -n "$BASE_ENDED" ]; then
		echo "$REC_KIND timeout" >>"$FIGS"
	elif log_done && ! trained_at "$REC_T" "$REC_OFF" "$REC_R0"; then
		# The last steps ran before the new world came: nothing to time.
		echo "$REC_KIND ended" >>"$FIGS"
		say "  $(ts) $REC_KIND: the training ended before the world of $REC_T"
	else
		t=$(secs_since "$REC_T0")
		echo "$REC_KIND $t" >>"$FIGS"
		if [ "$REC_T" -lt "$MINN" ]; then
			say "  $(ts) recovered from $REC_KIND: below min ($REC_T of $MINN nodes), DEGRADED, elastic-run waiting with no rank after $t s"
		else
			say "  $(ts) recovered from $REC_KIND: training at $REC_T nodes after $t s"
		fi
	fi
	REC_KIND=""
}
recovered_or_done() { recovered || log_done || base_ended; }
# slurm_holds: at the deadline, a unit elasticd asked for is still
# pending in Slurm.  Its nodes can fall out of Slurm's view during the
# wait (a message to them failed: "not responding" until slurmctld's
# next ping, SlurmdTimeout/3), after the expected world was taken; the
# wait goes on as for a requeue, and the figure is KIND+held.  A unit
# Slurm can never start still fails the run.
slurm_holds() {
	local p
	p=$(slurm_units "$BASE" PENDING | awk '{ print $1 }' | tr '\n' ' ')
	[ -n "$p" ] || return 1
	REC_HELD=1
	say "  $(ts) Slurm holds unit(s) ${p}pending $(squeue -h -j "${p%% *}" -o %R 2>/dev/null); nodes: $(scontrol -o show node "n[1-$MAXN]" 2>/dev/null | awk '{
		for (i = 2; i <= NF; i++) if ($i ~ /^State=/) { printf "%s=%s ", substr($1, 10), substr($i, 7); break } }')- waiting up to $REQUEUE_DL s more"
}
# interrupted: the next fault fires before the pending recovery was seen.
interrupted() {
	[ -n "$REC_KIND" ] || return 0
	echo "$REC_KIND interrupted" >>"$FIGS"
	say "  $(ts) $REC_KIND: the next fault fires during its resize"
	REC_KIND=""
}

RUN_FAILS=()
run_fail() {
	RUN_FAILS+=("$*")
	say "  FAIL: $*"
}

# resize_or_recovered: elastic-run logged a launch, relaunch or event line
# since the pending fault, or the group trains again already.
resize_or_recovered() {
	tail -n +$((REC_OFF + 1)) "$out" 2>/dev/null | grep -qE '^elastic-run: .* event=(launch|relaunch|event) ' ||
		recovered
}

# ---------------------------------------------------------------- faults
