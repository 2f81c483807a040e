#!/bin/bash
# Node failures (minicluster crash: every process of the host killed, its
# link down; Slurm finds out when the node stops answering): a group of
# min=2 max=4 (base on 2 nodes, 2 one-node units) loses
#   1. a unit's node that is back within --elastic-fault-timeout (it boots
#      as soon as Slurm has seen it down; ReturnToService=2 takes it back
#      when its slurmd registers): the replacement unit keeps the world at
#      4, never 3;
#   2. a unit's node for good: after the fault timeout the world goes on at
#      3; when the node returns, a unit brings it back to 4;
#   3. one of the base's nodes (not the batch host): the base shrinks
#      (--no-kill) and runs on, the world goes on at 3, then back to 4.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 22

FAULT=10
ok "elasticd starts" ed_start
base=$(submit_group "$TEST_USER" --elastic-min=2 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-fault-timeout=$FAULT --elastic-grace=2)
like "a min=2 max=4 group with a ${FAULT} s fault timeout is accepted" "$base" '^[0-9]+$'
ok "it grows to 4 nodes: the 2-node base and 2 units" \
	gwait 60 "$base" 'world == 4 and len(units()) == 2 and state == "RUNNING"' || show_group "$base"
batch_host=$(job_field "$base" BatchHost)

# unit_node: the node of the running unit with the highest job id.
unit_node() {
	local j
	j=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
	echo "$j $(job_hosts "$j")"
}

# --- 1. a unit's node fails and is back within the fault timeout -----------
read -r unit node < <(unit_node)
gen0=$(gq "$base" gen)
tc=$(now)
node_fail "$node"
unit_failed() { job_gone_or_done "$unit"; }
ok "1: the unit on $node fails when Slurm sees the node down" wait_until 90 unit_failed
t0=$(now)
figure "fail 1: crash of $node to Slurm ending its unit: $(secs_since "$tc") s (SlurmdTimeout)"
ok "1: $node boots" node_resume "$node"
diag "fail 1: $node failed (unit $unit: $(job_field "$unit" JobState)) and was back $(secs_since "$t0") s later"
ok "1: a replacement unit restores the world of 4" \
	gwait $((FAULT + 20)) "$base" "world == 4 and len(units()) == 2 and gen > $gen0" ||
	show_group "$base"
took=$(secs_since "$t0")
figure "fail 1: unit's end to a new world of 4: $took s (fault timeout ${FAULT} s)"
ok "1: ... within the fault timeout" below "$took" "$FAULT"
is "1: the world never went down to 3" "$(worlds_seen "$tc")" "4 "
is "1: the base ran on" "$(job_field "$base" JobState) $(job_field "$base" NumNodes)" "RUNNING 2"

# --- 2. a unit's node fails for good ------------------------------------------
read -r unit node < <(unit_node)
node_fail "$node"
ok "2: the unit on $node fails when Slurm sees the node down" wait_until 90 unit_failed
t0=$(now)
ok "2: after the fault timeout the group goes on at 3 nodes" \
	gwait $((FAULT + 20)) "$base" "world == 3 and '$unit' not in ids(members(in_world=True)).split()" ||
	show_group "$base"
t3=$(first_sample_time "$t0" '$3 == 3')
took=$(awk -v a="$t0" -v b="$t3" 'BEGIN { printf "%.1f", b - a }')
figure "fail 2: end of the unit on $node ($unit) to a world of 3: $took s (fault timeout ${FAULT} s)"
ok "2: ... not before the fault timeout (it waited for a replacement)" below "$((FAULT - 1))" "$took"
like "2: ... DEGRADED while it waited" "$(awk -v a="$t0" -v b="$t3" '$1 >= a && $1 < b { print $4 }' "$ED_SAMPLES" | sort -u | tr '\n' ' ')" DEGRADED
ok "2: the timeline records the failure" gwait 5 "$base" 'any(e.get("cause") == "fail" for e in events)'
t0=$(now)
node_resume "$node"
ok "2: when the node returns, a unit brings the group back to 4" \
	gwait 60 "$base" 'world == 4 and len(units()) == 2' || show_group "$base"
figure "fail 2: node resumed to a world of 4: $(secs_since "$t0") s"

# --- 3. a base node fails ---------------------------------------------------------
bnode=$(job_hosts "$base" | grep -vxF "$batch_host" | head -n1)
t0=$(now)
node_fail "$bnode"
base_shrunk() { [ "$(job_field "$base" NumNodes) $(job_field "$base" JobState)" = "1 RUNNING" ]; }
ok "3: the base loses $bnode and runs on, on its batch host (no-kill)" wait_until 90 base_shrunk
ok "3: the group goes on at 3 nodes (the base's 1 and 2 units)" \
	gwait $((FAULT + 20)) "$base" 'world == 3 and len(units()) == 2' || show_group "$base"
figure "fail 3: base node $bnode failed to a world of 3: $(secs_since "$t0") s"
is "3: the group's base is still the same job, on the same batch host" \
	"$(gq "$base" 'ids(members(kind="base", in_world=True))') $(job_field "$base" BatchHost)" "$base $batch_host"
t0r=$(now)
node_resume "$bnode"
ok "3: when the node returns, a unit brings the group back to 4" \
	gwait 60 "$base" 'world == 4 and len(units()) == 3' || show_group "$base"
figure "fail 3: node resumed to a world of 4: $(secs_since "$t0r") s"
ws=$(worlds_seen "$t0")
ok "3: never below min (2): worlds seen $ws" bash -c '! printf "%s\n" $0 | grep -qxE "0|1"' "$ws"

ok "no orphan or surplus units" test -z "$(orphan_units)" -a "$(slurm_units "$base" | wc -l)" = 3
ok "elasticd stops on SIGTERM" ed_stop
done_testing
