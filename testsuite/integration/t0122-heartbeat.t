#!/bin/bash
# Lost nodes found by elastic-run's heartbeats, at Slurm's own
# SlurmdTimeout (300 s), long before Slurm finds them: a group of min=2
# max=3 (a 2-node base and a unit) under elastic-run loses
#   1. its unit's node (minicluster crash: every process killed, its link
#      down): the launcher names it within seconds, cancels the unit,
#      relaunches at 2 without a failure counted, while Slurm still has the
#      node up; it boots and a unit brings the world back to 3;
#   2. the base's second node (not the batch host): the base is shrunk
#      without it (as --no-kill does at SlurmdTimeout) and the world goes
#      on over the base's batch host and the unit;
#   3. a unit's node cut off (its link down, its processes alive): the
#      same, and the ranks it still runs are in no world;
#   4. a unit's node split from the other compute nodes while it and they
#      still reach the controller (Slurm sees nothing wrong, ever): the
#      world goes on with the side that holds the batch host;
#   5. a unit's node while the controller's host is cut off: named as
#      soon, Slurm asked nothing.
# No other node is ever taken for lost (no false alarm).  elasticd drains
# each node named (SuspectNodes=drain), three in the hour at most
# (SuspectDrainsPerHour=3): the fourth is only reported.  An admin
# resumes them (State=RESUME) once repaired.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 44

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
HB=3 FAULT=2

ok "SlurmdTimeout=300, Slurm's default" slurmd_timeout_for_test 300

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
# A rank: records its world; on the event "checkpoints" and exits 0.
cat >"$ED_TMP/worker.sh" <<'EOS'
#!/bin/bash
echo "$RANK $WORLD_SIZE $SLURMD_NODENAME" >"$W/r.$ELASTIC_RESTART_COUNT.$RANK"
trap 'exit 0' URG
while :; do sleep 0.5 & wait $!; done
EOS
chmod 755 "$ED_TMP/worker.sh"
out=$W/out

ed_write_conf SuspectNodes=drain SuspectDrainsPerHour=3
at_exit resume_suspects
ok "elasticd starts" ed_start
base=$(ED_WRAP="exec $RUN -- $ED_TMP/worker.sh" \
	submit_group "$TEST_USER" --elastic-min=2 --elastic-max=3 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-fault-timeout=$FAULT --elastic-grace=10 \
	--elastic-heartbeat-timeout=$HB -o "$out" --export=ALL,W="$W")
like "a min=2 max=3 group with a ${HB} s heartbeat timeout is accepted" "$base" '^[0-9]+$'
like "... its tag carries the timeout" "$(admin_comment "$base")" " hb=$HB "
ranks_up() { grep -cE "event=ranks-up restart=[0-9]+ nnodes=$1 " "$out" 2>/dev/null; }
ok "it runs at 3 nodes: the base and a unit" wait_until 90 bash -c "grep -qE 'event=ranks-up restart=[0-9]+ nnodes=3 ' '$out'"
batch_host=$(job_field "$base" BatchHost)
# The fourth node busy: no replacement, the world shrinks.
fill=$(filler preempt 1)
ok "a job holds the last free node" wait_until 30 job_running "$fill"

# lost_within NODE SECONDS: the launcher named NODE lost; prints the
# seconds from $tc to its line.
lost_line() { grep -E "event=event .*cause=node-lost node=$1 " "$out" | tail -n1; }
line_time() { date -d "$(sed -E 's/^elastic-run: ([^ ]+)Z .*/\1/' <<<"$1")Z" +%s.%N; }
newest_unit() { running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1; }
up_after() { # up_after N T: a launch of N nodes up after line T of $out
	tail -n +"$(($2 + 1))" "$out" | grep -qE "event=ranks-up restart=[0-9]+ nnodes=$1 "
}
# released NODE: what the launcher did in Slurm of NODE, after line $mark.
released() {
	wait_until 10 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=released .*node=$1 '"
	tail -n +"$((mark + 1))" "$out" | grep -E "event=released .*node=$1 " | tail -n1
}

# --- 1. a unit's node crashes -------------------------------------------------
unit=$(newest_unit)
node=$(job_hosts "$unit")
mark=$(wc -l <"$out")
node_fail "$node"
tc=$ED_FAULT_AT
ok "1: elastic-run names $node lost" wait_until 30 bash -c "grep -qE 'cause=node-lost node=$node ' '$out'"
took=$(awk -v a="$tc" -v b="$(line_time "$(lost_line "$node")")" 'BEGIN { printf "%.1f", b - a }')
figure "heartbeat: crash of a unit's node to the launcher's word: $took s (timeout $HB s, SlurmdTimeout 300 s)"
# Its heartbeat, not Slurm: the figure is bench-faults'; a loaded
# machine stretches it past the timeout and the probe (8.7 s seen).
ok "1: ... by its heartbeat, long before Slurm's SlurmdTimeout ($took s, under 20 s)" below "$took" 20
like "1: ... and cancels its unit $unit" "$(released "$node")" "job=$unit slurm=cancelled"
ok "1: it runs at 2 nodes" wait_until 60 up_after 2 "$mark"
took=$(secs_since "$tc")
figure "heartbeat: crash of a unit's node to ranks up at 2 nodes: $took s (fault timeout $FAULT s)"
ok "1: ... before Slurm marks $node down" bash -c "! sinfo -h -N -n $node -o %t | grep -q '^down'"
is "1: no failure counted against --max-restarts" "$(grep -c 'event=failure' "$out")" 0
ok "1: elasticd drained $node, saying why" wait_until 10 drained_by "$node" "$base" lost || diag "$(drained_for "$node")"
mark=$(wc -l <"$out")
ok "1: $node boots" node_resume "$node"
scontrol update NodeName="$node" State=RESUME
ok "1: a unit brings the world back to 3" wait_until 90 up_after 3 "$mark"

# --- 2. the base's second node crashes --------------------------------------------
bnode=$(job_hosts "$base" | grep -vxF "$batch_host" | head -n1)
mark=$(wc -l <"$out")
node_fail "$bnode"
tc=$ED_FAULT_AT
ok "2: elastic-run names $bnode lost" wait_until 30 bash -c "grep -qE 'cause=node-lost node=$bnode ' '$out'"
like "2: ... and shrinks the base without it" "$(released "$bnode")" "job=$base slurm=shrunk"
is "2: the base runs on its batch host" "$(job_field "$base" JobState) $(job_field "$base" NodeList)" "RUNNING $batch_host"
ok "2: it runs at 2 nodes: the base's batch host and the unit" wait_until 60 up_after 2 "$mark"
figure "heartbeat: crash of the base's second node to ranks up at 2 nodes: $(secs_since "$tc") s"
is "2: still no failure counted" "$(grep -c 'event=failure' "$out")" 0
ok "2: elasticd drained $bnode" wait_until 10 drained_by "$bnode" "$base" lost || diag "$(drained_for "$bnode")"
mark=$(wc -l <"$out")
ok "2: $bnode boots" node_resume "$bnode"
scontrol update NodeName="$bnode" State=RESUME
ok "2: a unit brings the world back to 3" wait_until 90 up_after 3 "$mark"

# --- 3. a unit's node is cut off, its processes alive ----------------------------
unit=$(newest_unit)
node=$(job_hosts "$unit")
mark=$(wc -l <"$out")
heal() { "$MINICLUSTER" heal "$node" >/dev/null; }
"$MINICLUSTER" cut "$node" >/dev/null
at_exit heal
tc=$(now)
ok "3: elastic-run names the cut-off $node lost" wait_until 30 bash -c "grep -qE 'cause=node-lost node=$node ' '$out'"
like "3: ... and cancels its unit $unit" "$(released "$node")" "job=$unit slurm=cancelled"
ok "3: it runs at 2 nodes" wait_until 60 up_after 2 "$mark"
figure "heartbeat: a unit's node cut off to ranks up at 2 nodes: $(secs_since "$tc") s"
ok "3: elasticd drained $node" wait_until 10 drained_by "$node" "$base" lost || diag "$(drained_for "$node")"
heal
ok "3: with its link back, its unit ends in Slurm" wait_until 60 job_gone_or_done "$unit"
unlike_world() { ! grep -E 'event=(launch|relaunch) ' "$out" | tail -n1 | grep -qE ":$node([, ]|\$)"; }
ok "3: the cut-off node is in no world since (no split brain)" unlike_world

# --- 4. a unit's node split from the other compute nodes --------------------------
mark=$(wc -l <"$out")
scontrol update NodeName="$node" State=RESUME
scancel "$fill"
ok "4: with the last node free again, a unit brings the world back to 3" wait_until 90 up_after 3 "$mark"
unit=$(newest_unit)
node=$(job_hosts "$unit")
# Its packets to the base's nodes go nowhere; the controller it reaches.
split_peers=$(for h in $(job_hosts "$base"); do "$MINICLUSTER" exec "$node" getent hosts "$h" | awk '{ print $1 }'; done)
unsplit() { local a; for a in $split_peers; do "$MINICLUSTER" exec "$node" ip route del blackhole "$a/32" 2>/dev/null; done; return 0; }
at_exit unsplit
mark=$(wc -l <"$out")
tc=$(now)
for a in $split_peers; do "$MINICLUSTER" exec "$node" ip route add blackhole "$a/32"; done
ok "4: elastic-run names $node, split from the batch host's side, lost" wait_until 30 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'cause=node-lost node=$node '"
like "4: ... and cancels its unit $unit" "$(released "$node")" "job=$unit slurm=cancelled"
ok "4: the world goes on without it" wait_until 60 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up '"
figure "heartbeat: a unit's node split from the other compute nodes to ranks up without it: $(secs_since "$tc") s"
ok "4: ... on the batch host's side (no split brain)" unlike_world
capped() { grep -q "node $node suspect (lost): reported (SuspectDrainsPerHour reached)" "$ED_LOG"; }
ok "4: elasticd only reports $node: three drains this hour already" wait_until 10 capped
like "4: Slurm saw nothing wrong with $node, and it is not drained" "$(sinfo -h -N -n "$node" -o %t)" '^(idle|alloc|mix|comp)$'
unsplit

# --- 5. a unit's node crashes while the controller's host is cut off -------------
# Slurm answers nothing while the cut lasts (each call waits some 25 s):
# the launcher asks the host's slurmd at the address it read at the
# launch, and names the node before the controller is back.
# (The split node's unit may have been replaced at once.)
world_is() { grep -E 'event=ranks-up ' "$out" | tail -n1 | grep -qE " nnodes=$1 "; }
ok "5: the world is back at 3" wait_until 90 world_is 3
unit=$(newest_unit)
node=$(job_hosts "$unit")
mark=$(wc -l <"$out")
ctl_heal() { "$MINICLUSTER" heal ctl >/dev/null; }
"$MINICLUSTER" cut ctl >/dev/null
at_exit ctl_heal
node_fail "$node"
tc=$ED_FAULT_AT
ok "5: with the controller cut off, elastic-run names $node lost" \
	wait_until 20 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'cause=node-lost node=$node '"
figure "heartbeat: crash of a unit's node, the controller cut off, to the launcher's word: $(secs_since "$tc") s (timeout $HB s)"
ctl_heal
ok "5: once the controller is back, the world goes on without $node" \
	wait_until 90 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up '"
ok "5: ... and $node is in no world" unlike_world
node_resume "$node"

# --- no false alarm -----------------------------------------------------------------
is "five nodes named lost, no other" "$(grep -c 'cause=node-lost' "$out")" 5
is "no late heartbeat from a healthy node" "$(grep -c 'event=heartbeat-late' "$out")" 0
is "the group still runs" "$(job_field "$base" JobState)" RUNNING
ok "no heartbeat step outlives its launch" bash -c "[ \$(squeue -h -s -j $base -o %j | grep -c elastic-heartbeat) -le 1 ]"
done_testing
