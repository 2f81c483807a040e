#!/bin/bash
# Notifications: a unit tells elasticd when it starts and when Slurm
# signals it (its program, elastic-run --unit, also passes the signal on
# to the unit's steps), and elasticd reads that job at once; slurmstepd
# tells of a unit's start first, as root, with its nodes, which elasticd
# takes before any read.  With a read
# of Slurm a minute (ElasticdPollInterval=60000) a group still grows to its
# max and a preempted unit leaves the world within seconds.  With
# ElasticdNotify=drop the notifications are lost: the poll alone still
# brings the group back to its max.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 33

metric() { curl -fsS -m 2 "http://$ED_SERVER/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
at_least() { [ "$(metric "$1")" -ge "$2" ] 2>/dev/null; }

grace=$(scontrol show partition preempt | grep -oE 'GraceTime=[0-9]+' | cut -d= -f2)
ed_write_conf ElasticdPollInterval=60000 ElasticdNotify=yes
ok "elasticd starts, reading Slurm once a minute" ed_start
t_ed=$ED_STARTED
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=3 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=5)
like "a min=1 max=3 group is accepted" "$base" '^[0-9]+$'
ok "it grows to 3 nodes" gwait 40 "$base" 'world == 3 and len(units()) == 2 and state == "RUNNING"' ||
	show_group "$base"
took=$(secs_since "$t_ed")
figure "notify: elasticd started to a world of 3: $took s (a read of Slurm every 60 s)"
ok "... before elasticd's next read of Slurm: the units' notifications" below "$took" 55
# A unit elasticd submitted is read by id at its next cycles too: the
# world can reach 3 before the second unit's notification comes in.
ok "both units' starts were taken" wait_until 10 at_least 'elasticd_notifications_total{action="read"}' 2
ok "... in cycles that read only the jobs notified" at_least elasticd_notified_cycles_total 1
units=$(running_units "$base")
script=$(scontrol write batch_script "${units%% *}" - 2>/dev/null)
like "... its batch script execs elastic-run --unit=SIG" "$script" "elastic-run' --unit=URG"

# --- a preemption, seen through the unit's signal -----------------------
sampler_start "$base"
t0=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
like "a 2-node job in the high partition is accepted" "$hjid" '^[0-9]+$'
ok "the world shrinks to 2 (the preempted unit's notification)" gwait 20 "$base" 'world == 2' ||
	show_group "$base"
figure "notify: preemptor submitted to a world of 2: $(secs_since "$t0") s (GraceTime=$grace s, reads of Slurm every 60 s)"
ok "the timeline records the preemption" gwait 5 "$base" 'any(e.get("cause") == "preempt" for e in events)'
# The unit's program passed Slurm's signal on to its steps: a signal
# request for that unit by its owner (elasticd's own come from root).
relayed() {
	local u uid
	uid=$(id -u "$TEST_USER")
	for u in $units; do
		grep -q "REQUEST_KILL_JOB JobId=$u uid $uid\$" "$MC_DIR/log/slurmctld.log" && return 0
	done
	return 1
}
ok "the preempted unit passed the signal on to its steps, as its owner" wait_until 5 relayed
ok "the preemptor starts" wait_until $((grace + 30)) job_running "$hjid"
ok "a signal was notified" wait_until 5 at_least 'elasticd_notifications_total{action="read"}' 3
sampler_stop

# --- a unit's start, told by slurmstepd ----------------------------------
# The replacement unit, pending while the preemptor runs, starts as it
# ends.  slurmstepd (as root)
# tells elasticd before the unit's program runs, with the nodes slurmctld
# gave: elasticd takes that without a read of Slurm, and reads the job
# after, to confirm.
ok "the preempted unit's replacement waits, pending, as elasticd knows" \
	gwait 20 "$base" 'len(units(state="pending")) >= 1' || show_group "$base"
t2=$(now)
scancel "$hjid"
ok "the preemptor ends: the group returns to 3 nodes" gwait 30 "$base" 'world == 3 and len(units()) == 2' ||
	show_group "$base"
figure "notify: preemptor ended to a world of 3: $(secs_since "$t2") s (reads of Slurm every 60 s)"
ok "... the new unit's start taken on slurmstepd's word, before a read" at_least elasticd_unit_starts_told_total 1
# Each running unit's nodes as elasticd has them, and as Slurm has them.
ed_nodes() { gq "$base" '" ".join("%s=%s" % (m["job_id"], m["nodes"]) for m in sorted(units(), key=lambda m: m["job_id"]))'; }
slurm_nodes() {
	local u out=
	for u in $(running_units "$base"); do out+="$u=$(squeue -h -j "$u" -o %N) "; done
	echo "${out% }"
}
is "... the units' nodes are those Slurm gave them" "$(ed_nodes)" "$(slurm_nodes)"
# Only root (slurmstepd) or SlurmUser may say a unit's nodes.
u=$(running_units "$base")
u=${u%% *}
is "a user's word on a unit's nodes is refused (403)" \
	"$(api_code POST "/v1/groups/$u/notify?event=start&nodes=n1" "$TEST_USER")" 403
is "... nodes only with event=start (400)" \
	"$(api_code POST "/v1/groups/$u/notify?event=signal&nodes=n1")" 400
is "... nor a list no node name makes (400)" \
	"$(api_code POST "/v1/groups/$u/notify?event=start&nodes=n1;x")" 400
# A user's own job claiming a group in its environment: slurmstepd tells
# of its start as of any unit's, and elasticd reads it, nothing more.
told=$(metric elasticd_unit_starts_told_total)
reads=$(metric 'elasticd_notifications_total{action="read"}')
fake=$(runuser -u "$TEST_USER" -- sbatch --parsable -p preempt -N1 -D "$ED_TMP" -o /dev/null -t 5 \
	--export="ALL,ELASTIC_GROUP=$base" --wrap 'exec sleep 300')
ok "a user's job with ELASTIC_GROUP=<the group> in its environment runs" wait_until 30 job_running "$fake"
ok "... slurmstepd tells elasticd of its start" wait_until 10 at_least 'elasticd_notifications_total{action="read"}' $((reads + 1))
cycles=$(metric elasticd_reconcile_cycles_total)
ok "... elasticd decides after that" wait_until 5 at_least elasticd_reconcile_cycles_total $((cycles + 1))
is "... it is not taken as a unit's start" "$(metric elasticd_unit_starts_told_total)" "$told"
is "... nor as a member of the group" "$(gq "$base" "any(m['job_id'] == $fake for m in members())")" false
scancel "$fake"

# --- notifications dropped: the poll alone --------------------------------
ok "elasticd stops" ed_stop
ed_write_conf ElasticdPollInterval=3000 ElasticdNotify=drop
ok "elasticd starts again, dropping notifications, reading Slurm every 3 s" ed_start
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a preemptor runs again" wait_until $((grace + 30)) job_running "$hjid"
ok "... the world shrinks to 2 at the poll" gwait 30 "$base" 'world == 2' || show_group "$base"
t3=$(now)
scancel "$hjid"
ok "the group returns to 3 nodes at the poll alone" gwait 60 "$base" 'world == 3 and len(units()) == 2' ||
	show_group "$base"
figure "notify: dropped: preemptor ended to a world of 3: $(secs_since "$t3") s (reads every 3 s)"
is "the new unit's notification was dropped, none taken" \
	"$(metric 'elasticd_notifications_total{action="read"}') $(at_least 'elasticd_notifications_total{action="dropped"}' 1 && echo dropped)" "0 dropped"
is "... nor a start on slurmstepd's word" "$(metric elasticd_unit_starts_told_total)" 0
ok "elasticd stops on SIGTERM" ed_stop
done_testing
