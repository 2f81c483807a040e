#!/bin/bash
# Hangs found from the ranks' progress (slurm_elastic.progress(), a record
# per step that each node's heartbeat passes on): a group of min=2 max=3
# (a 2-node base and a unit), Python ranks stepping every 0.2 s with
# --elastic-hang-timeout=10,
#   1. no false alarm: a first step of 15 s (imports, data loading), then a
#      checkpoint save of 15 s that rank 0 announces while the others wait
#      for it without progress, trip nothing; the save, longer than the
#      10 s grace, is said at once (a warning, source=measured);
#   2. the rank on the unit's node stops (SIGSTOP: its process lives, its
#      node is fine, Slurm sees nothing): elastic-run names the rank and the
#      node within the timeout, prints every rank's stacks into the job's
#      output (the stopped one's state from /proc), lets the unit go and
#      trains on at 2 nodes, no failure counted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
HANG=10

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
out=$W/out
cat >"$ED_TMP/rank.py" <<'EOS'
import os, sys, time
import slurm_elastic as se

W, rank = os.environ["W"], int(os.environ["RANK"])
restart = os.environ["ELASTIC_RESTART_COUNT"]
with open(f"{W}/pid.{restart}.{rank}", "w") as f:
    f.write(f"{os.getpid()} {os.environ['SLURMD_NODENAME']}\n")
if os.path.exists(f"{W}/slowstart"):
    time.sleep(15)
step = 0
while not se.elastic_event_detected():
    time.sleep(0.2)
    step += 1
    se.progress(step)
    if step == 1:
        open(f"{W}/stepping.{restart}.{rank}", "w").close()
    if rank == 0 and os.path.exists(f"{W}/save"):
        os.unlink(f"{W}/save")
        open(f"{W}/saving", "w").close()
        with se.saving():
            time.sleep(15)
        os.unlink(f"{W}/saving")
        open(f"{W}/saved", "w").close()
    while os.path.exists(f"{W}/saving"):  # the others, in "a collective"
        time.sleep(0.1)
sys.exit(0)
EOS
chmod 644 "$ED_TMP/rank.py"

ed_start_draining
touch "$W/slowstart"
base=$(py_group --elastic-hang-timeout=$HANG -o "$out" --export=ALL,W="$W")
like "a group with a ${HANG} s hang timeout is accepted" "$base" '^[0-9]+$'
ok "it runs at 3 nodes" wait_until 90 bash -c "grep -qE 'event=ranks-up restart=[0-9]+ nnodes=3 ' '$out'"
fill=$(filler preempt 1)
ok "a job holds the last free node" wait_until 30 job_running "$fill"
restart=$(grep -E 'event=ranks-up restart=[0-9]+ nnodes=3 ' "$out" | tail -n1 | sed -E 's/.* restart=([0-9]+) .*/\1/')

# --- 1. no false alarm --------------------------------------------------------------
ok "1: the ranks start" wait_until 30 have "pid.$restart.*" 3
rm -f "$W/slowstart"
ok "1: the ranks report their first step, 15 s after their start" wait_until 40 have "stepping.$restart.*" 3
is "1: a first step longer than the timeout is no hang" "$(grep -c 'event=hang' "$out")" 0
touch "$W/save"
ok "1: rank 0 saves for 15 s, the others wait" wait_until 60 test -e "$W/saved"
is "1: a save longer than the timeout is no hang" "$(grep -c 'event=hang' "$out")" 0
like "1: ... and elastic-run says it is longer than the grace, before any event" \
	"$(wait_until 10 grep -qE 'event=grace-warning .*source=measured' "$out"; grep -E 'event=grace-warning .*source=measured' "$out" | head -n1)" \
	'event=grace-warning .*source=measured save_seconds=1[5-9]\.[0-9]+ rank=0 grace=10'

# --- 2. a rank stops -----------------------------------------------------------------
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
read -r rank pid < <(rank_on "$W" "$restart" "$node")
mark=$(wc -l <"$out")
ts=$(now)
kill -STOP "$pid"
ok "2: elastic-run names rank $rank on $node hung" wait_until 40 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=hang .*rank=$rank node=$node '"
took=$(secs_since "$ts")
figure "hang: a rank stopped to the launcher's word: $took s (--elastic-hang-timeout=$HANG)"
# The timeout runs from the rank's last report, which may come a moment
# before the stop: the launcher's own count of the silence is the measure.
stalled=$(tail -n +$((mark + 1)) "$out" | grep -E "event=hang .*rank=$rank node=$node " |
	head -n1 | sed -nE 's/.* stalled=([0-9.]+) .*/\1/p')
ok "2: ... after the timeout, not before (silent ${stalled:-?} s)" \
	awk -v s="${stalled:-0}" -v h="$HANG" 'BEGIN { exit !(s >= h) }'
ok "2: the stopped rank's state is in the job's output" wait_until 5 bash -c "tail -n +$((mark + 1)) '$out' | grep 'stacks: rank $rank ' | grep -q 'State:.*T (stopped)'"
ok "2: the other ranks' Python stacks too" wait_until 5 bash -c "tail -n +$((mark + 1)) '$out' | grep -q 'most recent call first'"
left_world "$out" "$mark" "$node" "$unit" "$base" 2 hang
figure "hang: a rank stopped to ranks up at 2 nodes: $(secs_since "$ts") s"
kill -CONT "$pid" 2>/dev/null
done_testing
