#!/bin/bash
# Real PyTorch DDP ranks on a cluster of hosts (MC_HOSTS=1): elasticd on
# ctl, the batch script and the ranks on compute hosts, rendezvous over
# the hosts' addresses.  Real faults: a unit's node crashes (every process
# on it killed, its link down) and boots again; elasticd's host is cut
# off from the nodes for a moment.  The run ends when its training ends.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/pytorch.sh"
hosts_setup 5 710000

plan 23

pytorch_setup

SAMPLES=2048 BATCH=64 EVERY=10
EPOCHS=${T0310_EPOCHS:-120}
out=$W/out
PHASE_FIGURE="hosts: pytorch"

ok "elasticd starts on ctl" hosts_ed_start
like "... listening on ctl's address, not this machine's" \
	"$("$MINICLUSTER" exec ctl ss -Hltn "sport = :$ED_PORT")" "$MC_SUBNET\.2:$ED_PORT"

t_phase=$(now)
base=$(ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS \
	--step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 --sample-log-dir $W/samples --timeout 30" \
	submit_group "$TEST_USER" --elastic-min=2 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=5 \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
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

# The crash comes once the ranks have checkpointed: what they did after
# the newest checkpoint is lost with the node, as on a real cluster.
ckpts() { find "$W/ckpt/$base" -maxdepth 1 -name 'ckpt-*.pt' 2>/dev/null | wc -l; }
ok "the ranks train and checkpoint" wait_until 120 eval '[ "$(ckpts)" -ge 2 ]'

# --- a unit's node crashes ----------------------------------------------------
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
t_phase=$(now)
ok "the node of unit $unit ($node) crashes" "$MINICLUSTER" crash "$node"
is "... nothing of it runs any more" "$(ip netns pids "mc$MC_PORT_BASE-$node" | wc -l)" 0
phase 3 "the job goes on at 3 ranks without it" 150
r_fail=$last_r
like "... from the newest checkpoint the survivors had, not from scratch" \
	"$(log "^train_ddp: world 3 restart $r_fail ")" "resumed from .*/ckpt-[0-9]+\.pt at step [1-9][0-9]*,"
t_phase=$(now)
ok "the node boots" "$MINICLUSTER" boot "$node"
phase 4 "it grows back to 4 ranks" 120

# --- elasticd's host cut off from the nodes for a moment ----------------------
# Shorter than SlurmdTimeout, so that slurmctld (on ctl too) keeps its nodes.
ok "ctl is partitioned from the compute hosts" "$MINICLUSTER" partition ctl
ok "... elastic-run says it cannot reach elasticd, and keeps its world" \
	wait_until 8 log_has "^elastic-run: warning: .*\\(keeping the world\\)"
"$MINICLUSTER" join >/dev/null
ok "... and hears from elasticd again after the partition" wait_until 30 log_has '^elastic-run: elasticd at .* answers again'

# --- the end ------------------------------------------------------------------
ok "training finishes" wait_until 600 log_has '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has 'elastic-run: .* event=done .*result=success'
window=$(((EVERY + 1) * BATCH))
cs=$(runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window")
ok "every sample processed, none repeated beyond the $window of the crash: $cs" \
	runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window"
like "... and nothing missing" "$cs" ' 0 missing, 0 unexpected'
init=$(log '^initial loss ' | awk '{ print $3 }')
final=$(log '^final loss ' | awk '{ print $3 }')
ok "the loss decreased ($init -> $final)" awk -v a="$init" -v b="$final" 'BEGIN { exit !(b < a / 10) }'
is "elastic-run counted no failure" "$(log 'event=failure' | wc -l)" 0
diag "worlds: $(log '^train_ddp: world ' | awk '{ print $3 }' | tr '\n' ' ')"

done_testing
