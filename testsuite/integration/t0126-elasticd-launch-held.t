#!/bin/bash
# A base whose launch fails: Slurm drains the node, requeues the base and
# holds it ("launch failed requeued held"), as after a prolog failure or
# when a requeue after a node failure meets the old job still on the
# returning node ("Duplicate jobid").  The cluster's prolog fails a job's
# launch once per file MC_DIR/prolog-fail/JOBID.K.  With
# ElasticdReleaseLaunchHolds=1, two groups at once:
#   A. one failed launch: elasticd releases the base, which runs on
#      another node; the timeline and the log say so;
#   B. launches that keep failing: released once, then left held for an
#      admin, said once in the log.
# A requeued job waits for Slurm's credential window (cred_expire, 30 s in
# the minicluster) before it starts again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 16

# fail_launches ID N: the next N launches of job ID fail in the prolog.
fail_launches() {
	local k
	for k in $(seq "$2"); do : >"$MC_DIR/prolog-fail/$1.$k"; done
}
held() { [ "$(job_field "$1" Reason)" = launch_failed_requeued_held ]; }
restarts() { job_field "$1" Restarts; }
drained() { sinfo -h -N -t drain -o '%N %E' | awk '$2 == "Prolog" { print $1 }' | sort -u | tr '\n' ' '; }
resume_drained() {
	local n
	for n in $(drained); do scontrol update nodename="$n" state=resume; done
}
no_failures_left() { rm -f "$MC_DIR"/prolog-fail/*; }
at_exit resume_drained
at_exit no_failures_left

ed_write_conf ElasticdReleaseLaunchHolds=1
ok "elasticd starts (ElasticdReleaseLaunchHolds=1)" ed_start

# Held at submission until their prolog failures are set.
a=$(submit_group "$TEST_USER" --hold --elastic-min=1 --elastic-max=1)
b=$(submit_group "$TEST_USER" --hold --elastic-min=1 --elastic-max=1)
like "two min=1 max=1 groups are accepted" "$a $b" '^[0-9]+ [0-9]+$'
fail_launches "$a" 1
fail_launches "$b" 2
scontrol release "$a" "$b"

# --- A. one failed launch ----------------------------------------------------
requeued() { [ "$(restarts "$1")" -ge 1 ] 2>/dev/null; }
ok "A: its launch fails: Slurm drains the node and requeues the base" wait_until 30 requeued "$a"
drained_first=$(drained)
ok "A: elasticd releases it and it runs (after Slurm's 30 s)" wait_until 90 job_running "$a"
is "A: ... requeued once, on another node than a drained one" \
	"$(restarts "$a") $(drained | tr ' ' '\n' | grep -cxF "$(job_field "$a" NodeList)")" "1 0"
ok "A: the log says why" log_has "$ED_LOG" "group $a: base held by Slurm after a failed launch: release \(1 of 1\)"
ok "A: the timeline records it" \
	gwait 10 "$a" 'any(e.get("cause") == "fail" and "launch failed" in e.get("detail", "") for e in events)' ||
	show_group "$a"
ok "A: the group forms its world" gwait 30 "$a" 'world == 1 and state == "RUNNING"' || show_group "$a"
diag "A: drained after the first launches: ${drained_first:-none}; A then on $(job_field "$a" NodeList)"

# --- B. launches that keep failing ---------------------------------------
second_hold() { [ "$(restarts "$b")" = 2 ] && held "$b"; }
ok "B: two launches fail, one release between them" wait_until 90 second_hold
ok "B: ... in the log" log_has "$ED_LOG" "group $b: base held by Slurm after a failed launch: release \(1 of 1\)"
ok "B: the second hold is left to an admin, and the log says so" \
	wait_until 10 log_has "$ED_LOG" "group $b: base held by Slurm after a failed launch, released 1 time\(s\) already \(ElasticdReleaseLaunchHolds=1\): left to an admin"
# Watched for three of elasticd's polls: it does nothing more.
stays_held() {
	local until=$((SECONDS + 3))
	while [ "$SECONDS" -lt "$until" ]; do
		held "$b" || return 1
		sleep 0.1
	done
}
ok "B: ... it stays held for 3 s (elasticd polls every second)" stays_held
is "B: ... not released a second time, said once" \
	"$(restarts "$b") $(grep -c "group $b: .*left to an admin" "$ED_LOG")" "2 1"
is "three nodes drained by the failed launches" "$(drained | wc -w)" 3
resume_drained
scontrol release "$b"
ok "B: released by an admin, it runs (after Slurm's 30 s)" wait_until 90 job_running "$b"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
