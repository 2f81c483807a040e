#!/bin/bash
# The contract between the ranks and elastic-run (elastic-run(1), RANKS):
# a run ends only when its training ends.
#
# 1. The race that used to end a run as "success": the ranks learn of an
#    event through a peer (one rank alone is told; the others see its flag
#    in the all-reduce), checkpoint and exit before the launcher hears of
#    anything.  Made deterministic here: the signal goes to one rank's
#    process only, so neither elastic-run nor its sentinel ever gets it.
#    The ranks' event status (75) makes it a relaunch; the run finishes.
# 2. Ranks of the old contract (exit 0 when told) on a node that fails:
#    exit 0 is not taken for the end while the world lost a node.
# 3. A script that knows nothing of slurm-elastic: exit 0 is success at
#    the first launch; one that fails on its own is retried up to
#    --max-restarts.
# 4. Ranks slow to leave: the grace is checked against reality.
# 5. The sentinel step ends COMPLETED in sacct, not CANCELLED.
# 6. A rank told while it is still starting (no handler yet) is told
#    again, not left to the end of the grace.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 36

EX="$ELASTIC_SRCDIR/contribs/examples/pytorch"
has_torch || bail "python3-torch is not installed"

# --- 1. told through a peer, before the launcher ------------------------------
W=$ED_TMP/race
# The checkpoint dir is the ranks' to make: the launcher uses none of
# another user's (this test runs as root).
mkdir -p "$W/samples" && chmod -R 777 "$W"
SAMPLES=1024 BATCH=64 EPOCHS=4
out=$W/out
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$out" -t 30 \
	--elastic-min=2 --elastic-max=2 --elastic-grace=30 --elastic-checkpoint-dir="$W/ckpt" \
	--wrap "export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN --elasticd=none -- $PYTHON $EX/train_ddp.py --samples $SAMPLES --global-batch $BATCH \
	--epochs $EPOCHS --step-sleep 0.05 --log-every 8 --sample-log-dir $W/samples --timeout 60")
like "a 2-node PyTorch job is accepted" "$jid" '^[0-9]+$'
steps_of() { cat "$W"/samples/samples.rank0.world2.pid*.log 2>/dev/null | wc -l; }
ok "its ranks train" wait_until 120 eval '[ "$(steps_of)" -ge 5 ]'
# The process of rank 1 of the first launch: signal it alone.
rank_pid() { # rank_pid RANK RESTART
	local p
	for p in $(pgrep -u "$TEST_USER" -f "$EX/train_ddp.py"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ELASTIC_JOB_ID=$jid" &&
			tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "RANK=$1" &&
			tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ELASTIC_RESTART_COUNT=$2" &&
			echo "$p" && return 0
	done
	return 1
}
r1=$(rank_pid 1 0)
ok "rank 1 is found by its environment" test -n "$r1"
kill -URG "$r1"
ok "the ranks stop, told through the all-reduce" wait_until 60 log_has "$out" 'event=exit rank=0 .*restart=0'
ok "... rank 0 was told by its peer only" log_has "$out" 'event=told rank=0 world=2 restart=0 signal=none via=peer'
ok "elastic-run relaunches them" wait_until 60 log_has "$out" 'elastic-run: .* event=relaunch restart=1 '
like "... because they exited with the event status, which it had not seen" \
	"$(grep 'elastic-run: .* event=event restart=0 ' "$out")" 'cause=ranks-event(-exit)? .*(status=.*exit=75|nodes=)'
is "... the launcher heard no signal of its own" "$(grep -cE 'event=event restart=0 .*cause=(signal|raised)' "$out")" 0
ok "the training finishes" wait_until 300 log_has "$out" '^train_ddp: done: '
ok "... and elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
ok "... from the launch after the event" log_has "$out" 'elastic-run: .* event=done restart=1 .*result=success'
is "... after all the steps" "$(sed -nE 's/^train_ddp: done: .* ([0-9]+) steps.*/\1/p' "$out")" $((SAMPLES / BATCH * EPOCHS))
is "... with no failure counted" "$(grep -c 'event=failure' "$out")" 0
cs=$("$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window 0)
like "every sample processed exactly once" "$cs" ' 0 missing, 0 unexpected, 0 repeated'
ok "the job completes" wait_until 30 eval '[ "$(job_field "$jid" JobState)" = COMPLETED ]'
is "the sentinel step ended COMPLETED, not CANCELLED" \
	"$(sacct -n -j "$jid" -o jobname%20,state | awk '$1 == "elastic-sentinel" { print $2 }')" COMPLETED

# --- 2. the old contract: exit 0 when told, a node fails ----------------------
# Ranks that stop with 0 on the event (or Slurm's SIGTERM) and finish at
# the second launch.  The node of the second rank fails: whatever the ranks
# exit with, the world lost a node, so the first launch is not the end.
W=$ED_TMP/old && mkdir -p "$W" && chmod 777 "$W"
cat >"$W/rank.sh" <<'EOS'
#!/bin/bash
echo "$RANK $WORLD_SIZE $SLURMD_NODENAME" >"$W/ranks.$ELASTIC_RESTART_COUNT.$RANK"
[ "$ELASTIC_RESTART_COUNT" -ge 1 ] && exit 0
trap 'exit 0' URG TERM
while :; do sleep 0.5 & wait $!; done
EOS
chmod 755 "$W/rank.sh"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/out" -t 30 \
	--elastic-min=2 --elastic-max=2 --elastic-grace=10 --export=ALL,W="$W" \
	--wrap "exec $RUN --elasticd=none -- $W/rank.sh")
ok "old-contract ranks start on 2 nodes" wait_until 60 eval '[ -e "$W/ranks.0.0" ] && [ -e "$W/ranks.0.1" ]'
node=$(awk '{ print $3 }' "$W/ranks.0.1")
batch=$(job_field "$jid" BatchHost)
ok "the node of rank 1 ($node) is not the batch host ($batch)" test "$node" != "$batch"
node_fail "$node"
ok "the job goes on: elastic-run relaunches on the node left" wait_until 120 test -e "$W/ranks.1.0"
is "... not a success at the first launch" "$(grep -c 'event=done restart=0' "$W/out")" 0
like "... it saw the world change" "$(grep -E 'event=event restart=0 ' "$W/out" | head -n1)" 'cause=(membership|world-changed|member-exit|node-lost)'
ok "... and ends in success" wait_until 60 log_has "$W/out" 'event=done restart=[1-9][0-9]* nnodes=1 result=success'
node_resume "$node"
heal_nodes

# --- 3. a script that knows nothing of slurm-elastic --------------------------
W=$ED_TMP/plain && mkdir -p "$W" && chmod 777 "$W"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/ok.out" -t 30 \
	--elastic-min=2 --elastic-max=2 --wrap "exec $RUN --elasticd=none -- $PYTHON -c 'print(\"trained\")'")
ok "a plain script that exits 0 ends the run" wait_until 60 job_gone_or_done "$jid"
is "... in success at the first launch, after one launch" \
	"$(grep -c 'event=done restart=0 nnodes=2 result=success' "$W/ok.out") $(grep -c 'event=relaunch' "$W/ok.out")" "1 0"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/fail.out" -t 30 \
	--elastic-min=2 --elastic-max=2 --wrap "exec $RUN --elasticd=none --max-restarts=2 -- $PYTHON -c 'raise SystemExit(3)'")
ok "a plain script that fails" wait_until 60 job_gone_or_done "$jid"
is "... is retried up to --max-restarts=2, then the job fails" \
	"$(job_field "$jid" JobState) $(grep -c 'event=failure' "$W/fail.out")" "FAILED 3"

# --- 4. ranks slow to leave: the grace checked --------------------------------
W=$ED_TMP/slow && mkdir -p "$W" && chmod 777 "$W"
cat >"$W/rank.sh" <<'EOS'
#!/bin/bash
[ "$ELASTIC_RESTART_COUNT" -ge 1 ] && exit 0
# As libelastic's: the handler only notes the event (it may come twice).
trap 'ev=1' URG
touch "$W/up.$RANK"
while :; do
	[ -n "${ev:-}" ] && { sleep 3; exit 75; }
	sleep 0.5 & wait $!
done
EOS
chmod 755 "$W/rank.sh"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/out" -t 30 \
	--elastic-min=1 --elastic-max=1 --elastic-grace=5 --export=ALL,W="$W" \
	--wrap "exec $RUN --elasticd=none -- $W/rank.sh")
ok "ranks that take 3 s to checkpoint start" wait_until 60 test -e "$W/up.0"
ok "... elastic-run says they are up" wait_until 30 log_has "$W/out" 'event=ranks-up restart=0'
"$ELASTIC_EVENT" raise "$jid" >/dev/null
ok "... on an event, it warns: 3 s is more than half of the 5 s grace" \
	wait_until 30 log_has "$W/out" 'event=grace-warning restart=0 nnodes=1 exit_seconds=[3-4]\.[0-9]+ grace=5 killed=no'
like "... in the job's output, in words" "$(grep 'elastic-run: warning: the ranks took' "$W/out")" \
	'took [34]\.[0-9] s of the 5 s grace to checkpoint and exit: raise --elastic-grace'
wait_until 60 job_gone_or_done "$jid"

# A script that never watches the event (a plain torchrun script) is
# killed at the grace's end: the advice is not a longer grace.
W=$ED_TMP/deaf && mkdir -p "$W" && chmod 777 "$W"
cat >"$W/rank.sh" <<'EOS'
#!/bin/bash
[ "$ELASTIC_RESTART_COUNT" -ge 1 ] && exit 0
touch "$W/up.$RANK"
while :; do sleep 0.5 & wait $!; done
EOS
chmod 755 "$W/rank.sh"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/out" -t 30 \
	--elastic-min=1 --elastic-max=1 --elastic-grace=3 --export=ALL,W="$W" \
	--wrap "exec $RUN --elasticd=none -- $W/rank.sh")
ok "ranks that ignore the event start" wait_until 60 log_has "$W/out" 'event=ranks-up restart=0'
"$ELASTIC_EVENT" raise "$jid" >/dev/null
ok "... on an event they are killed at the 3 s grace's end" \
	wait_until 30 log_has "$W/out" 'event=grace-warning restart=0 nnodes=1 exit_seconds=[3-4]\.[0-9]+ grace=3 killed=yes'
like "... and the advice is to watch the event, not a longer grace" \
	"$(grep 'elastic-run: warning: no rank exited' "$W/out")" \
	'no rank exited in the 3 s grace after the event \(SIGURG\): .*each resize costs the whole grace; watch the event, or shorten --elastic-grace'
wait_until 60 job_gone_or_done "$jid"

# --- 5. told while still starting ---------------------------------------------
# A rank that installs its handler 3 s after it starts (a framework being
# imported) ignores an event raised before: it is told again.
W=$ED_TMP/late && mkdir -p "$W" && chmod 777 "$W"
cat >"$W/rank.sh" <<'EOS'
#!/bin/bash
[ "$ELASTIC_RESTART_COUNT" -ge 1 ] && exit 0
touch "$W/started"
sleep 3
trap 'exit 75' URG
while :; do sleep 0.5 & wait $!; done
EOS
chmod 755 "$W/rank.sh"
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -D "$ED_TMP" -o "$W/out" -t 30 \
	--elastic-min=1 --elastic-max=1 --elastic-grace=60 --export=ALL,W="$W" \
	--wrap "exec $RUN --elasticd=none -- $W/rank.sh")
ok "a rank that is slow to install its handler starts" wait_until 60 test -e "$W/started"
"$ELASTIC_EVENT" raise "$jid" >/dev/null
ok "... an event raised meanwhile reaches it all the same: it exits 75, long before the 60 s grace" \
	wait_until 20 log_has "$W/out" 'event=exited restart=0 nnodes=1 killed_members=0 waited=[0-9]\.[0-9]+ status=exit=75'
ok "... and the run ends in success" wait_until 30 log_has "$W/out" 'event=done restart=1 .*result=success'

cleanup_jobs
done_testing
