#!/bin/bash
# ElasticdResyncInterval=N: every N seconds elasticd reads the jobs of the
# groups' owners (one slurm_load_job_user() each), and the whole queue
# only every ElasticdQueueInterval seconds; between, one slurm_load_job()
# per job of the groups it knows (by id: none of it grows with the queue).
# It still finds every group and follows it:
#   1. a group submitted after elasticd started is not read between
#      resyncs ...
#   2. ... until someone asks for it (GET /v1/groups/ID, as elastic-run
#      does when it starts): it is read at the next poll;
#   3. another group of the same owner is found by the next read of the
#      owners' jobs, unasked, slurmctld counting those reads;
#   4. another owner's group is found unasked, at the latest by the next
#      read of the whole queue;
#   5. the groups grow (the new units read by id from their
#      submission), a preempted unit leaves at once and the group grows
#      back, on the reads by id alone;
#   6. in steady state a cycle costs one RPC per job of the groups that
#      may change (the bases, the units not ended), not a read of the
#      queue.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 17

RESYNC=20 QUEUE=60
ed_write_conf ElasticdResyncInterval=$RESYNC ElasticdQueueInterval=$QUEUE
ok "elasticd starts with ElasticdResyncInterval=$RESYNC ElasticdQueueInterval=$QUEUE" ed_start
t_start=$SECONDS
# metric NAME: one of elasticd's /metrics values.
metric() { curl -fsS -m 5 "http://$ED_SERVER/metrics" | awk -v n="$1" '$1 == n { print $2 }'; }
# Its first cycle read the whole queue; the next ones read no owner's jobs.
cycles_past() { [ "$(metric elasticd_reconcile_cycles_total)" -ge 3 ] 2>/dev/null; }
wait_until 10 cycles_past || diag "elasticd: $(metric elasticd_reconcile_cycles_total) cycles after 10 s"

# listed ID: the group is in GET /v1/groups (a listing asks for nothing).
listed() {
	api_get /v1/groups root | "$PYTHON" -c 'import json, sys; sys.exit(0 if any(g["id"] == int(sys.argv[1]) for g in json.load(sys.stdin)["groups"]) else 1)' "$1"
}

# --- 1, 2: a new owner's group, found when asked for ----------------------
a=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=2 --elastic-step=1)
like "1: $TEST_USER's group is accepted" "$a" '^[0-9]+$'
ok "1: its base runs" wait_until 30 job_running "$a"
early=$((SECONDS - t_start))
# Before the first resync (RESYNC s after elasticd's start) nothing reads
# it: the base must run well before then.
unread() { [ "$early" -lt $((RESYNC - 5)) ] && ! listed "$a"; }
ok "1: ... and elasticd has not read it ${early} s after its start (before the first resync)" unread
t0=$(now)
group_json "$a" >/dev/null 2>&1 # asked for: 404 now, read at the next poll
ok "2: asked for, it is read within 2 polls" wait_until 3 listed "$a"
figure "resync: a group asked for to elasticd knowing it: $(secs_since "$t0") s"

# --- 3: the same owner's next group, found by the read of its jobs -------
# user_reads: slurmctld's count of REQUEST_JOB_USER_INFO (sdiag).
user_reads() { sdiag | awk '/^Remote Procedure Call statistics by message type/ { on = 1 } on && /REQUEST_JOB_USER_INFO/ { sub(/.*count:/, ""); print $1 + 0; found = 1; exit } END { if (!found) print 0 }'; }
r0=$(user_reads)
c=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=1)
like "3: $TEST_USER's second group is accepted" "$c" '^[0-9]+$'
ok "3: it is found by a read of its owner's jobs, unasked (within ${RESYNC} s and a poll)" \
	wait_until $((RESYNC + 5)) listed "$c"
found=$((SECONDS - t_start)) r1=$(user_reads)
ok "3: ... ${found} s after elasticd's start, before its next read of the whole queue ($QUEUE s)" test "$found" -lt "$QUEUE"
ok "3: ... slurmctld counted reads of an owner's jobs (REQUEST_JOB_USER_INFO: $r0 -> $r1)" test "$r1" -gt "$r0"
ok "3: ... its base runs" wait_until 30 job_running "$c"
scancel "$c"

# --- 4: another owner's group, found by a resync --------------------------
b=$(submit_group "$OTHER_USER" --elastic-min=1 --elastic-max=1)
like "4: $OTHER_USER's group is accepted" "$b" '^[0-9]+$'
ok "4: it is found unasked (within ${QUEUE} s of elasticd's start and a poll)" \
	wait_until $((QUEUE + 5 > SECONDS - t_start + 5 ? QUEUE + 5 - (SECONDS - t_start) : 5)) listed "$b"

# --- 5: grow, preempt, grow back on the reads by id ------------------------
ok "5: $TEST_USER's group grows to 2" gwait 30 "$a" 'world == 2 and state == "RUNNING"' || show_group "$a"
unit=$(running_units "$a" | awk '{ print $1 }')
gen=$(gq "$a" gen)
high=$(sbatch --parsable -p high -N1 -w "$(job_hosts "$unit")" -o /dev/null -t 5 --wrap 'exec sleep 600')
ok "5: a high job preempts its unit: the world goes to 1 at once" \
	gwait 20 "$a" "world == 1 and gen > $gen" || show_group "$a"
scancel "$high"
ok "5: the preemptor gone, it grows back to 2" gwait 60 "$a" 'world == 2 and state == "RUNNING"' || show_group "$a"

# --- 6: what a cycle costs --------------------------------------------------
# The groups' jobs that may change, of every user and every earlier test
# still in slurmctld's table: the bases, ended ones too, and the units that
# have not ended (an ended unit is kept as it was).  Sampled over a few
# polls: a resync cycle (1 RPC) may fall in between.
known=$(squeue_py 'len([j for j in jobs if base_tag(j) or (unit(j) and live(j))])')
steady=$(for _ in 1 2 3 4 5; do metric elasticd_slurm_rpcs_last_cycle; sleep 1.1; done | sort -n | uniq -c | sort -rn | head -n1 | awk '{ print $2 }')
is "6: a steady cycle: one RPC per live job of the groups ($known)" "$steady" "$known"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
