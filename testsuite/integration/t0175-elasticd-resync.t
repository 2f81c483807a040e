#!/bin/bash
# ElasticdResyncInterval=N: elasticd reads the whole queue only every N
# seconds; between, one slurm_load_job() per job of the groups it knows
# (by id: none of it grows with the queue).  It still finds every group
# and follows it:
#   1. a group submitted after elasticd started is not read between
#      resyncs ...
#   2. ... until someone asks for it (GET /v1/groups/ID, as elastic-run
#      does when it starts): it is read at the next poll;
#   3. another owner's group is found by the next resync, unasked;
#   4. the groups grow (the new units read by id from their
#      submission), a preempted unit leaves at once and the group grows
#      back, on the reads by id alone;
#   5. in steady state a cycle costs one RPC per job of the groups that
#      may change (the bases, the units not ended), not a read of the
#      queue.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 12

RESYNC=20
ed_write_conf ElasticdResyncInterval=$RESYNC
ok "elasticd starts with ElasticdResyncInterval=$RESYNC" ed_start
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

# --- 3: another owner's group, found by the resync ------------------------
b=$(submit_group "$OTHER_USER" --elastic-min=1 --elastic-max=1)
like "3: $OTHER_USER's group is accepted" "$b" '^[0-9]+$'
ok "3: it is found by a resync, unasked (within ${RESYNC} s and a poll)" wait_until $((RESYNC + 5)) listed "$b"

# --- 4: grow, preempt, grow back on the reads by id ------------------------
ok "4: $TEST_USER's group grows to 2" gwait 30 "$a" 'world == 2 and state == "RUNNING"' || show_group "$a"
unit=$(running_units "$a" | awk '{ print $1 }')
gen=$(gq "$a" gen)
high=$(sbatch --parsable -p high -N1 -w "$(job_hosts "$unit")" -o /dev/null -t 5 --wrap 'exec sleep 600')
ok "4: a high job preempts its unit: the world goes to 1 at once" \
	gwait 20 "$a" "world == 1 and gen > $gen" || show_group "$a"
scancel "$high"
ok "4: the preemptor gone, it grows back to 2" gwait 60 "$a" 'world == 2 and state == "RUNNING"' || show_group "$a"

# --- 5: what a cycle costs --------------------------------------------------
# The groups' jobs that may change, of every user and every earlier test
# still in slurmctld's table: the bases, ended ones too, and the units that
# have not ended (an ended unit is kept as it was).  Sampled over a few
# polls: a resync cycle (1 RPC) may fall in between.
known=$(squeue_py 'len([j for j in jobs if base_tag(j) or (unit(j) and live(j))])')
steady=$(for _ in 1 2 3 4 5; do metric elasticd_slurm_rpcs_last_cycle; sleep 1.1; done | sort -n | uniq -c | sort -rn | head -n1 | awk '{ print $2 }')
is "5: a steady cycle: one RPC per live job of the groups ($known)" "$steady" "$known"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
