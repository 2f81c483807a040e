#!/bin/bash
# elastic-run when the group falls below its min: a min=2 max=2 group whose
# base loses a node (minicluster crash) while every other node is taken.
# elasticd says DEGRADED and forms no new world; the launcher runs no rank (the
# base alone, 1 node, is a size the job does not take) and says it waits;
# when a node frees up, a unit brings the group back to 2 and the ranks run
# again at 2, from where they were.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 13

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
# A rank: records its launch; on the event exits 0 (checkpointed); once
# $W/finish exists, ends.
cat >"$ED_TMP/worker.sh" <<'EOS'
#!/bin/bash
f="$W/r.$ELASTIC_RESTART_COUNT.$RANK"
# Written whole under a name the tests' r.N.* do not match, then named.
echo "$RANK $WORLD_SIZE $ELASTIC_RESTART_COUNT $SLURM_JOB_ID" >"$W/.r.$ELASTIC_RESTART_COUNT.$RANK"
mv "$W/.r.$ELASTIC_RESTART_COUNT.$RANK" "$f"
trap 'ev=1' URG
while [ ! -e "$W/finish" ]; do
	[ -z "${ev:-}" ] || exit 0
	sleep 0.5 & wait $!
done
EOS
chmod 755 "$ED_TMP/worker.sh"

out=$W/out
launches_since() { tail -n +"$(($1 + 1))" "$out" 2>/dev/null | grep -E 'event=(re)?launch ' || true; }

ok "elasticd starts" ed_start
# Every node of the preemptible partitions but two (the base's) is taken.
f1=$(filler base 2)
ok "a filler holds 2 of the 4 nodes" wait_until 30 job_running "$f1"
base=$(ED_WRAP="exec $RUN -- $ED_TMP/worker.sh" \
	submit_group "$TEST_USER" --elastic-min=2 --elastic-max=2 \
	--elastic-fault-timeout=5 --elastic-grace=5 -o "$out" --export=ALL,W="$W")
ok "a min=2 max=2 group runs its ranks on its base's 2 nodes" \
	wait_until 60 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=2 '

bnode=$(job_hosts "$base" | grep -vxF "$(job_field "$base" BatchHost)" | head -n1)
mark=$(wc -l <"$out")
node_fail "$bnode"
base_shrunk() { [ "$(job_field "$base" NumNodes) $(job_field "$base" JobState)" = "1 RUNNING" ]; }
ok "the base loses $bnode (crashed) and runs on 1 node" wait_until 90 base_shrunk
ok "elasticd: DEGRADED (1 node left, min 2)" \
	gwait 60 "$base" 'state == "DEGRADED"' || show_group "$base"
ok "elastic-run says it waits for a world" wait_until 60 log_has "$out" 'event=waiting .*source=elasticd reason=no-world'
# A window, not a wait: as long again as the launcher's wait for
# elasticd's next world (the fault timeout + 5 s), after which it used to
# launch over its own allocation.
sleep 12
is "... and launches nothing meanwhile (not the base's 1 node alone)" "$(launches_since "$mark")" ""
nr=$(ps -eo args= | grep -c "^/bin/bash $ED_TMP/worker.sh" || true)
is "... no rank runs" "$nr" 0
is "... the job still runs" "$(job_field "$base" JobState)" RUNNING

t0=$(now)
scancel "$f1"
ok "a node frees up: a unit brings the group back to 2" \
	gwait 60 "$base" 'world == 2 and len(units()) == 1 and state == "RUNNING"' || show_group "$base"
ok "the ranks run again at 2" wait_until 60 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=2 '
r=$(grep -E 'event=ranks-up restart=[0-9]+ nnodes=2 ' "$out" | tail -n1 | sed -E 's/.* restart=([0-9]+) .*/\1/')
figure "below min: a node free to the ranks up at 2 again: $(secs_since "$t0") s"
both_up() { [ "$(nfiles "r.$r.*")" = 2 ]; }
ok "... both" wait_until 10 both_up
touch "$W/finish"
ok "the job ends with success" wait_until 60 log_has "$out" 'event=done .*result=success'
node_resume "$bnode"
done_testing
