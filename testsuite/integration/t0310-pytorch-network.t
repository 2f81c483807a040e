#!/bin/bash
# Real PyTorch DDP ranks under network faults: elasticd on ctl, the batch
# script and the ranks on compute hosts, rendezvous over the hosts'
# addresses.  elasticd's host is cut off from the nodes for a moment; a
# unit's node is cut off for good while its ranks live on: the job goes on
# without it and never runs two worlds; when the node is back Slurm ends
# the stale ranks and the job grows again.  The run ends when its training
# ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 24
pytorch_setup

SAMPLES=2048 BATCH=64 EVERY=10
EPOCHS=${T0310_EPOCHS:-600}
out=$W/out
PHASE_FIGURE="network: pytorch"

ok "elasticd starts on ctl" ed_start
like "... listening on ctl's address, not this machine's" \
	"$("$MINICLUSTER" exec ctl ss -Hltn "sport = :$ED_PORT")" "$MC_SUBNET\.2:$ED_PORT"

t_phase=$(now)
base=$(submit_ddp 2 120)
like "a min=2 max=4 PyTorch job is accepted" "$base" '^[0-9]+$'
phase 4 "it grows into the idle nodes: 4 ranks on 4 hosts"
batch=$(job_field "$base" BatchHost)
like "elastic-run on $batch takes its world from elasticd on ctl (ElasticdServer)" \
	"$(log 'elastic-run: .* event=(launch|relaunch) ' | tail -n1)" "source=elasticd"
# Slurm's NodeAddr of that node, not a name each host would resolve its own way.
first=$(scontrol show hostnames "$(job_field "$base" NodeList)" | head -n1)
first_addr=$(scontrol show node "$first" | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')
is "... the base's first node is a host of its own" "$first_addr" "$MC_SUBNET.$((10 + ${first#n}))"
like "... and the ranks meet at its address" \
	"$(log 'elastic-run: .* event=(launch|relaunch) ' | tail -n1)" "master=$first_addr:[0-9]+"

ckpts() { find "$W/ckpt/$base" -maxdepth 1 -name 'ckpt-*.pt' 2>/dev/null | wc -l; }
ok "the ranks train and checkpoint" wait_until 120 eval '[ "$(ckpts)" -ge 2 ]'

# --- elasticd's host cut off from the nodes for a moment ----------------------
# Shorter than SlurmdTimeout, so that slurmctld (on ctl too) keeps its nodes.
ok "ctl is partitioned from the compute hosts" "$MINICLUSTER" partition ctl
ok "... elastic-run says it cannot reach elasticd, and keeps its world" \
	wait_until 8 log_has "$out" "^elastic-run: warning: .*\\(keeping the world\\)"
"$MINICLUSTER" join >/dev/null
ok "... and hears from elasticd again after the partition" wait_until 30 log_has "$out" '^elastic-run: elasticd at .* answers again'

# --- a unit's node cut off: its ranks live on ---------------------------------
# Slurm ends the unit when the node stops answering; the ranks there cannot
# reach anyone, and must not go on as a world of their own (their
# collectives wait up to --timeout 120 s).  They are ended when the node is
# back and its slurmd learns that their job is gone.
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
ns=mc$MC_PORT_BASE-$node
# ranks_on_node: pids of the training processes on the node.
ranks_on_node() {
	local p
	for p in $(ip netns pids "$ns" 2>/dev/null); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q 'train_ddp\.py' && echo "$p"
	done
}
stale=$(ranks_on_node | tr '\n' ' ')
# steps_of PIDS: the steps the ranks with those pids logged so far.
steps_of() { local p n=0; for p in $1; do n=$((n + $(cat "$W"/samples/samples.rank*.pid"$p".log 2>/dev/null | wc -l))); done; echo $n; }
t_phase=$(now)
ok "the node of unit $unit ($node) is cut off the network" "$MINICLUSTER" cut "$node"
steps_cut=$(steps_of "$stale")
phase 3 "the job goes on at 3 ranks without it" 150
r_cut=$last_r
alive() { local p; for p in $1; do [ -d "/proc/$p" ] && echo "$p"; done; }
like "... while the cut node's ranks live on (pids $stale)" "$(alive "$stale" | wc -l)" '^[1-9]'
ok "... and train nothing more: one world at a time" \
	awk -v a="$steps_cut" -v b="$(steps_of "$stale")" 'BEGIN { exit !(b <= a + 1) }'
t_phase=$(now)
"$MINICLUSTER" heal "$node" >/dev/null
ok "when the node is back, Slurm ends its stale ranks" wait_until 60 eval '[ -z "$(alive "$stale")" ]'
phase 4 "... and the job grows back to 4 ranks" 120
# (A step whose all-reduce was through when the link went may still be
# logged.)
ok "the cut node's ranks never trained after the cut" \
	awk -v a="$steps_cut" -v b="$(steps_of "$stale")" 'BEGIN { exit !(b <= a + 1) }'

# --- the end ------------------------------------------------------------------
finish_soon
ok "training finishes" wait_until 600 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
trained_well "a checkpoint"
is "elastic-run counted no failure" "$(log 'event=failure' | wc -l)" 0
diag "worlds: $(log '^train_ddp: world ' | awk '{ print $3 }' | tr '\n' ' ')"

done_testing
