#!/bin/bash
# Spares (--elastic-spares): a group of min=1 max=2 with one spare (its
# base on 1 node, a unit in the world, a spare unit beside it), with a
# fault timeout far longer than the test waits:
#   1. the spare comes once the world's unit runs, is in no world, and
#      elasticctl shows it;
#   1b. every shared node busy, a 1-node high-priority job: Slurm takes
#      the spare (SparePartitions=spare, a tier below the world's unit's
#      partition), not the world's unit; the world stays as it was;
#   2. the world's unit fails (cancelled, as Slurm ends a crashed node's
#      unit; the crash itself is the fault tests' and the chaos run's):
#      the spare takes its place in the same pass, at the same size (the
#      world is never 1), and a new spare is asked for;
#   3. a high-priority job takes the world unit's node: the spare takes
#      its place at once;
#   4. /metrics counts the swaps; the base ends and no unit is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 29

# world_unit, spare_unit: the group's unit in the world, and its spare.
world_unit() { gq "$base" 'ids([m for m in members(in_world=True) if m.get("kind") != "base"])'; }
spare_unit() { gq "$base" 'ids([m for m in members(state="running") if m.get("spare")])'; }
# The fault timeout: far longer than any wait here.
FAULT=120

ed_write_conf SparePartitions=spare
ok "elasticd starts" ed_start
base=$(submit_group "$TEST_USER" --elastic-spares=1 --elastic-min=1 --elastic-max=2 \
	--elastic-fault-timeout=$FAULT --elastic-scale-delay=1 --elastic-grace=2)
like "a min=1 max=2 group with a spare is accepted" "$base" '^[0-9]+$'
ok "1: it reaches a world of 2 and a spare runs beside it" \
	gwait 90 "$base" 'world == 2 and g.get("spares") == 1 and len(units()) == 2 and state == "RUNNING"' ||
	show_group "$base"
spare=$(spare_unit)
is "1: the spare is in no world" "$(gq "$base" 'ids(members(in_world=True))' | grep -cw "$spare")" 0
out=$(ctl "$TEST_USER" status "$base" 2>&1)
printf '%s\n' "$out" | sed 's/^/# elasticctl: /'
like "1: elasticctl shows it beside the world" "$out" "1 spare unit beside it"
like "1: ... and marks it in its table" "$out" "$spare .*running .*spare"

is "1: the spare is in the spares' partition, the world's unit in the preemptible one" \
	"$(job_field "$spare" Partition) $(job_field "$(world_unit)" Partition)" "spare preempt"

# --- 1b. a preemption takes the spare first -------------------------------------
unit=$(world_unit)
gen=$(gq "$base" 'g.get("generation")')
free=$(sinfo -h -p high -t idle -N -o '%N' | sort -u | tr '\n' ' ')
fillers=""
for node in $free; do
	fillers="$fillers $(sbatch --parsable -p high -N1 -w "$node" -J filler -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')"
done
at_exit "scancel $fillers 2>/dev/null; true"
fillers_run() { local j; for j in $fillers; do job_running "$j" || return 1; done; }
ok "1b: the idle shared nodes ($free) are taken" wait_until 30 fillers_run
spare_node=$(job_hosts "$spare")
hjid=$(sbatch --parsable -p high -N1 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
at_exit "scancel $hjid 2>/dev/null; true"
ok "1b: a 1-node job in the high partition runs" wait_until 60 job_running "$hjid"
is "1b: ... on the spare's node ($spare_node), not the world unit's" "$(job_hosts "$hjid")" "$spare_node"
isnt_running() { [ "$(job_field "$1" JobState)" != RUNNING ]; }
ok "1b: Slurm took the spare $spare" isnt_running "$spare"
is "1b: the world's unit $unit runs on" "$(job_field "$unit" JobState)" RUNNING
is "1b: the world is as it was (generation $gen)" "$(gq "$base" 'g.get("generation")') $(world_unit)" "$gen $unit"
scancel $fillers "$hjid"
ok "1b: a new spare runs once the nodes are free" gwait 90 "$base" 'g.get("spares") == 1 and len(units()) == 2' || show_group "$base"
spare=$(spare_unit)

# --- 2. the world's unit fails ------------------------------------------------
unit=$(world_unit)
sampler_start "$base"
tc=$(now)
ok "2: the world's unit $unit is cancelled" scancel "$unit"
unit_failed() { job_gone_or_done "$unit"; }
ok "2: Slurm ends it" wait_until 30 unit_failed
t0=$(now)
ok "2: the spare $spare takes its place at the same size" \
	gwait 30 "$base" "world == 2 and ids(members(in_world=True)).split().count('$spare') == 1" ||
	show_group "$base"
took=$(secs_since "$t0")
figure "spares: a unit's end to a world of 2 with the spare: $took s (fault timeout $FAULT s)"
ok "2: ... at once, not after the fault timeout" below "$took" 10
is "2: the world never went down to 1" "$(worlds_seen "$tc")" "2 "
like "2: the timeline names the swap" "$(gq "$base" '[e.get("detail") for e in events if e.get("cause") == "fail"]')" \
	"spare unit $spare in its place"
ok "2: a new spare runs" gwait 90 "$base" 'g.get("spares") == 1 and len(units()) == 2' || show_group "$base"

# --- 3. a preemptor takes the world unit's node ---------------------------------
spare=$(spare_unit)
unit=$(world_unit)
node=$(job_hosts "$unit")
t0=$(now)
hjid=$(sbatch --parsable -p high -N1 -w "$node" -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
like "3: a 1-node job in the high partition on $node is accepted" "$hjid" '^[0-9]+$'
ok "3: the spare $spare takes the preempted unit's place at once" \
	gwait 30 "$base" "world == 2 and ids(members(in_world=True)).split().count('$spare') == 1" ||
	show_group "$base"
figure "spares: preemptor submitted to a world of 2 with the spare: $(secs_since "$t0") s"
like "3: the timeline names the swap" "$(gq "$base" '[e.get("detail") for e in events if e.get("cause") == "preempt"]')" \
	"preempted; spare unit $spare in its place"
ok "3: the preemptor runs" wait_until 60 job_running "$hjid"
scancel "$hjid"

# --- 4. /metrics, the end ----------------------------------------------------------
metrics=$(curl -fsS -m 5 "http://$ED_SERVER/metrics" 2>&1)
like "4: /metrics counts the two swaps" "$metrics" 'elasticd_swaps_total 2'
like "4: ... and the spares' nodes" "$metrics" 'elasticd_spare_nodes [01]'
sampler_stop
scancel "$base"
no_units() { [ -z "$(slurm_units "$base" RUNNING; slurm_units "$base" PENDING)" ]; }
ok "4: the base ends: no unit is left" wait_until 60 no_units

ok "elasticd stops on SIGTERM" ed_stop
