#!/bin/bash
# Spares under real PyTorch DDP ranks on the cluster of hosts: a min=1
# max=2 group (a base of 1 node and a unit) with one spare (--elastic-spares=1, elasticd with
# SparePartitions=spare), its fault timeout far longer than the test
# waits, a 3 s heartbeat timeout:
#   1. in place (slurm_elastic.torch.InPlace): elastic-run starts the
#      spare's ranks ahead (warm: imported, waiting for a world that names
#      them); the world unit's node crashes (its processes killed, its
#      network gone): the warm ranks take its place in one resize
#      (path=swap) at 2 ranks, the base's ranks keep their processes,
#      elasticd follows with the same world (no second resize) and a new
#      spare runs, warmed in turn;
#   2. the restart path (the same script without --in-place): the world
#      unit's node crashes: one relaunch at 2 ranks, on the spare, never a
#      world of 1 and no fault timeout waited.
# Each training ends with every sample once across the swap and the loss
# divided by 10; no unit and no rank is left after.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 42
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
SAMPLES=2048 BATCH=64 EVERY=20 HB=3 FAULT=120
PHASE_FIGURE="spares"

world_unit() { gq "$base" 'ids([m for m in members(in_world=True) if m.get("kind") != "base"])'; }
spare_unit() { gq "$base" 'ids([m for m in members(state="running") if m.get("spare")])'; }
# ranks_on NODE: the training's processes in NODE's network namespace.
ranks_on() {
	ip netns pids "mc$MC_PORT_BASE-$1" 2>/dev/null | while read -r pid; do
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'train_ddp\.py' && echo "$pid"
	done | sort -n | tr '\n' ' '
}
has_ranks() { [ -n "$(ranks_on "$1")" ]; }
since() { tail -n +"$((mark + 1))" "$out" | grep -cE -- "$1"; }
# group INPLACE: the test user's group training the example (--in-place
# or not) for $EPOCHS, output to $out, samples and checkpoints under $W.
group() {
	rm -rf "$W/samples" "$W/epochs" && mkdir -p "$W/samples" && chmod 777 "$W/samples"
	ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py $1 --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS \
	--epochs-file $W/epochs --step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 \
	--sample-log-dir $W/samples --timeout 10" \
		submit_group "$TEST_USER" --elastic-spares=1 --elastic-min=1 --elastic-max=2 \
		--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=$FAULT \
		--elastic-heartbeat-timeout=$HB --elastic-checkpoint-dir="$W/ckpt/%j" -o "$out"
}
# the_end WHAT: the training finishes well, the group leaves nothing.
the_end() {
	finish_soon
	ok "$1: training finishes" wait_until 600 log_has "$out" '^train_ddp: done: '
	ok "$1: elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
	trained_well "the swap"
	no_units() { [ -z "$(slurm_units "$base" RUNNING; slurm_units "$base" PENDING)" ]; }
	ok "$1: no unit is left" wait_until 60 no_units
	# This cluster's nodes only: another cluster on the host may run
	# the same user's ranks.
	no_ranks() {
		local n
		for n in $(sinfo -h -N -o '%N' | sort -u); do [ -z "$(ranks_on "$n")" ] || return 1; done
	}
	ok "$1: no rank is left on any node" wait_until 30 no_ranks ||
		diag "$(for n in $(sinfo -h -N -o '%N' | sort -u); do echo "$n: $(ranks_on "$n")"; done)"
}

ed_write_conf SparePartitions=spare
ok "elasticd starts" ed_start

# --- 1. in place -------------------------------------------------------------
out=$W/out-in-place
EPOCHS=600
base=$(group --in-place)
like "1: a min=1 max=2 PyTorch group with a spare, in place, is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
ok "1: it trains at 2 ranks on the world channel" wait_until 120 eval "log '^train_ddp: .* event=stepped rank=0 world=2 ' | grep -q ."
last_world=$(world_at 2)
ok "1: its spare runs" gwait 90 "$base" 'g.get("spares") == 1' || show_group "$base"
spare=$(spare_unit)
unit=$(world_unit)
spare_node=$(job_hosts "$spare")
unit_node=$(job_hosts "$unit")
ok "1: elastic-run warms the spare $spare" wait_until 60 log_has "$out" "elastic-run: .* event=spare-warming .*job=$spare "
ok "1: ... its ranks run on $spare_node" wait_until 60 has_ranks "$spare_node"
warm=$(ranks_on "$spare_node")
p_before=$(pids_in "$last_world")
mark=$(wc -l <"$out")
t_phase=$(now)
ok "1: the world unit's node ($unit_node) crashes" node_fail "$unit_node"
at_exit "node_resume $unit_node 2>/dev/null; true"
inplace_phase 2 "1: the spare takes its place in place, at 2 ranks" 60
p_after=$(pids_in "$last_world")
is "1: one resize, a swap" "$(since 'elastic-run: .* event=resized .*path=swap ')" 1
is "1: no relaunch, no fallback, never a world of 1" "$(since 'elastic-run: .* event=(relaunch|fallback|failure) |^train_ddp: .* world=1 ')" 0
ok "1: the spare's warm ranks ($warm) are in the new world ($p_after)" subset "$warm" "$p_after"
survivors=$(for p in $p_before; do case " $p_after " in *" $p "*) echo "$p" ;; esac; done | tr '\n' ' ')
is "1: the base's ranks kept their processes" "$(echo "$survivors" | wc -w)" 1
ok "1: elastic-run found $unit_node lost, before Slurm" bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'cause=node-lost node=$unit_node '"
ok "1: elasticd's world is the launcher's, the spare in it" \
	gwait 30 "$base" "world == 2 and ids(members(in_world=True)).split().count('$spare') == 1" || show_group "$base"
ok "1: a new spare runs" gwait 90 "$base" "g.get('spares') == 1 and '$spare' not in ids([m for m in members() if m.get('spare')]).split()" ||
	show_group "$base"
new=$(spare_unit)
ok "1: elastic-run warms it ($new)" wait_until 60 log_has "$out" "elastic-run: .* event=spare-warming .*job=$new "
is "1: still that one resize" "$(since 'elastic-run: .* event=resize ')" 1
for s in $(tail -n +"$((mark + 1))" "$out" | sed -nE 's/.* event=resized .*path=swap .* seconds=([0-9.]+).*/\1/p'); do
	figure "spares: in place: the swap's resize, publication to all ranks joined: $s s"
done
the_end 1
ok "1: the crashed node boots" node_resume "$unit_node"

# --- 2. the restart path --------------------------------------------------------
out=$W/out-restart
last_r=-1
EPOCHS=600
base=$(group "")
like "2: the same group without --in-place is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
t_phase=$(now)
phase 2 "2: it trains at 2 ranks" 120
ok "2: its spare runs" gwait 90 "$base" 'g.get("spares") == 1' || show_group "$base"
spare=$(spare_unit)
unit=$(world_unit)
unit_node=$(job_hosts "$unit")
is "2: no warm ranks without the in-place API" "$(log 'elastic-run: .* event=spare-warming ' | wc -l)" 0
mark=$(wc -l <"$out")
t_phase=$(now)
ok "2: the world unit's node ($unit_node) crashes" node_fail "$unit_node"
at_exit "node_resume $unit_node 2>/dev/null; true"
phase 2 "2: relaunched at 2 ranks on the spare" 90
is "2: one relaunch, never a world of 1" "$(since 'elastic-run: .* event=relaunch .*path=restart'):$(since '^train_ddp: world 1 ')" "1:0"
like "2: ... on the spare" "$(tail -n +"$((mark + 1))" "$out" | grep -E 'elastic-run: .* event=relaunch ' | tail -n1)" "jobs=.*$spare"
the_end 2
ok "2: the crashed node boots" node_resume "$unit_node"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
