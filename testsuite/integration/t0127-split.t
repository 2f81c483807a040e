#!/bin/bash
# A split between compute nodes that all still reach the controller and
# the batch host (Slurm sees nothing wrong, ever), under real PyTorch DDP
# ranks: a min=2 max=4 group at 4 nodes; the newest unit's node loses its
# routes to the other nodes but the batch host.  The ranks' all_reduce
# across the split fails (their collective timeout, 15 s); elastic-run
# asks every node's heartbeat task which others it reaches, keeps the
# side that holds the batch host (the larger: 3 nodes), lets the other
# node's unit go, and trains on at 3: no failure counted against
# --max-restarts, no two worlds, the job never FAILED.  elasticd drains
# the node that left (SuspectNodes=drain), so that no unit lands there
# again until an admin resumes it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 11
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
SAMPLES=2048 BATCH=64 EVERY=10 EPOCHS=200
out=$W/out
PHASE_FIGURE="split: pytorch"

ed_write_conf SuspectNodes=drain
at_exit resume_suspects
ok "elasticd starts" ed_start
t_phase=$(now)
base=$(submit_ddp 2 15)
like "a min=2 max=4 PyTorch job is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
phase 4 "it grows into the idle nodes: 4 ranks on 4 hosts"
ok "the ranks report their steps" wait_until 60 bash -c "grep -qE '^step [0-9]+ .* world 4\$' '$out'"

unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
# Its packets to every other compute node but the batch host go nowhere.
split_found "$node" "$base" "elastic-run finds the split and lets $node go" 90
figure "split: the routes cut to the launcher's word: $(secs_since "$t_phase") s"
ok "... cancelling its unit $unit" wait_until 20 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=released .*node=$node job=$unit slurm=cancelled'"
phase 3 "it trains on at 3, on the batch host's side"
is "no failure counted against --max-restarts" "$(grep -c 'event=failure' "$out")" 0
ok "elasticd drained $node, saying why" wait_until 10 drained_by "$node" "$base" lost || diag "$(drained_for "$node")"
held() { for u in $(running_units "$base"); do job_hosts "$u"; done | grep -qx "$node"; }
no_two_worlds() { ! tail -n +$((mark + 1)) "$out" | grep -E 'event=(launch|relaunch) ' | grep -qE "[=,]$unit:" && ! held; }
ok "no world since holds its unit nor $node (no two worlds)" no_two_worlds
like "the job runs on" "$(job_field "$base" JobState)" '^RUNNING$'
split_heal
done_testing
