#!/bin/bash
# Slow nodes found from what the ranks' threads wanted of a CPU (their
# run time and run-queue delay, read by each node's heartbeat beside the
# ranks' progress): a group of min=2 max=3 (a 2-node base and a unit),
# Python ranks in step (a barrier per step, as a collective would hold
# them), each step 20 ms of CPU; --elastic-stragglers=evict and windows
# of 10 steps (StragglerSteps=10 in elastic.conf),
#   1. no false alarm: rank 0's unannounced saves (0.5 s of CPU every 25
#      steps), an announced one, and a machine loaded by four busy
#      processes beside the ranks trip nothing;
#   2. the rank on the unit's node held to 5% of a CPU (its cgroup's
#      quota: the whole world now steps at its pace): elastic-run names
#      the rank, the node and its CPU time per step (mostly waiting for
#      the CPU) against the others',
#      evicts it (the unit let go), trains on at 2 nodes with no failure
#      counted; elasticd drains the node, counts it in /metrics and shows
#      it in elasticctl's events;
#   3. at its min (2 nodes) the world keeps a slow node: the base's
#      second node held back is reported, not evicted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
out=$W/out
cat >"$ED_TMP/rank.py" <<'EOS'
import os, sys, time
import slurm_elastic as se

W, rank = os.environ["W"], int(os.environ["RANK"])
size = int(os.environ["WORLD_SIZE"])
restart = os.environ["ELASTIC_RESTART_COUNT"]
with open(f"{W}/pid.{restart}.{rank}", "w") as f:
    f.write(f"{os.getpid()} {os.environ['SLURMD_NODENAME']}\n")

def burn(s):
    end = time.thread_time() + s
    while time.thread_time() < end:
        pass

def barrier(step):
    # Every rank's step done before any goes on: a collective's wait,
    # asleep, as gloo's and NCCL's host threads are.
    open(f"{W}/b.{restart}.{step}.{rank}", "w").close()
    deadline = time.time() + 120
    while time.time() < deadline:
        if all(os.path.exists(f"{W}/b.{restart}.{step}.{r}") for r in range(size)):
            return
        time.sleep(0.01)
    sys.exit(3)

step = 0
while not se.elastic_event_detected():
    step += 1
    burn(0.02)
    if rank == 0 and step % 25 == 0:
        burn(0.5)  # a save nobody announced
    if rank == 0 and os.path.exists(f"{W}/save"):
        os.unlink(f"{W}/save")
        with se.saving():
            burn(1.0)
            time.sleep(2)
        open(f"{W}/saved", "w").close()
    barrier(step)
    se.progress(step)
    with open(f"{W}/step.{restart}.{rank}", "w") as f:
        f.write(f"{step}\n")
sys.exit(0)
EOS
chmod 644 "$ED_TMP/rank.py"

set_policy "$(grep -vE '^[[:space:]]*Straggler' "$POLICY")" "StragglerSteps=10"
ed_start_draining
base=$(py_group --elastic-stragglers=evict -o "$out" --export=ALL,W="$W")
like "a group with --elastic-stragglers=evict is accepted" "$base" '^[0-9]+$'
ok "it runs at 3 nodes" wait_until 90 bash -c "grep -qE 'event=ranks-up restart=[0-9]+ nnodes=3 ' '$out'"
fill=$(filler preempt 1)
ok "a job holds the last free node" wait_until 30 job_running "$fill"
restart=$(grep -E 'event=ranks-up restart=[0-9]+ nnodes=3 ' "$out" | tail -n1 | sed -E 's/.* restart=([0-9]+) .*/\1/')
step_of() { local s; s=$(cat "$W/step.$restart.0" 2>/dev/null); echo "${s:-0}"; }
at_step() { [ "$(step_of)" -ge "$1" ]; }

# --- 1. no false alarm --------------------------------------------------------------
hogs=()
for _ in 1 2 3 4; do
	bash -c 'end=$((SECONDS + 20)); while [ $SECONDS -lt $end ]; do :; done' &
	hogs+=($!)
done
at_exit "kill ${hogs[*]} 2>/dev/null; true"
ok "1: 60 steps under a loaded machine and rank 0's unannounced saves" wait_until 120 at_step 60
wait "${hogs[@]}" 2>/dev/null
touch "$W/save"
events() { grep -E 'event=' "$out" | sed 's/^elastic-run: //'; }
ok "1: rank 0 saves, announced, for 3 s" wait_until 60 test -e "$W/saved" || diag "$(events)"
s=$(step_of)
ok "1: 40 steps more" wait_until 60 at_step $((s + 40))
named=$(grep -c 'event=straggler' "$out")
is "1: no straggler named" "$named" 0
[ "$named" = 0 ] || diag "$(events)"

# --- 2. a node held to 5% of a CPU ------------------------------------------------------
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
read -r rank pid < <(rank_on "$W" "$restart" "$node")
mark=$(wc -l <"$out")
after() { tail -n +"$((mark + 1))" "$out"; }
ts=$(now)
ok "2: rank $rank on $node held to 5% of a CPU" cpu_throttle "$pid" 5
ok "2: elastic-run names rank $rank on $node a straggler, to evict" wait_until 90 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=straggler .*rank=$rank node=$node .*action=evict'"
figure "straggler: a rank held to 5% of a CPU to the launcher's word: $(secs_since "$ts") s ($(after | grep -m1 'event=straggler' | grep -oE 'ms_per_step=[^ ]+ waiting=[^ ]+ others=[^ ]+ ratio=[^ ]+'))"
left_world "$out" "$mark" "$node" "$unit" "$base" 2 straggler
figure "straggler: throttled to ranks up at 2 nodes: $(secs_since "$ts") s"
like "2: /metrics counts it" "$(curl -fsS -m 5 "http://$ED_SERVER/metrics")" 'elasticd_suspect_nodes_total\{fault="straggler",action="drained"\} 1'
like "2: elasticctl shows it among the group's events" "$(ctl "$TEST_USER" events "$base" 2>&1)" "suspect.*node $node straggler: drained"
cpu_unthrottle

# --- 3. at the min, a slow node stays -------------------------------------------------
restart=$(grep -E 'event=ranks-up restart=[0-9]+ nnodes=2 ' "$out" | tail -n1 | sed -E 's/.* restart=([0-9]+) .*/\1/')
ok "3: the ranks at 2 nodes step" wait_until 30 bash -c "ls '$W'/pid.$restart.* 2>/dev/null | wc -l | grep -qx 2"
master=$(job_hosts "$base" | head -n1)
read -r rank pid node < <(rank_off "$W" "$restart" "$master")
mark=$(wc -l <"$out")
cpu_throttle "$pid" 5
ok "3: rank $rank on $node, at the min, is reported only" wait_until 90 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=straggler .*rank=$rank node=$node .*action=report \(the world is at its min\)'"
cpu_unthrottle
done_testing
