#!/bin/bash
# elastic-run with elasticd: one world over the group's allocations (the
# base and its units, one srun each, ranks numbered across them), and a
# relaunch at the new size for each new generation: growth into idle nodes,
# two units preempted by a high-priority job, growth back, a clean end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 38

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
# A rank: records what it sees; on the event writes a "checkpoint" and
# exits 0 (6 s later while $W/slow exists); once $W/finish exists, ends
# (exit 0).
cat >"$ED_TMP/worker.sh" <<'EOS'
#!/bin/bash
f="$W/r.$ELASTIC_RESTART_COUNT.$RANK"
# Written whole under a name the tests' r.N.* do not match, then named.
echo "$RANK $WORLD_SIZE $ELASTIC_RESTART_COUNT $ELASTIC_PREV_NNODES $ELASTIC_JOB_ID $SLURM_JOB_ID $MASTER_ADDR:$MASTER_PORT" >"$W/.r.$ELASTIC_RESTART_COUNT.$RANK"
mv "$W/.r.$ELASTIC_RESTART_COUNT.$RANK" "$f"
# The handler only notes the event, as libelastic's: it may come twice.
trap 'ev=1' URG
while [ ! -e "$W/finish" ]; do
	if [ -n "${ev:-}" ]; then
		[ -e "$W/slow" ] && sleep 6
		echo "$(date +%s.%N)" >"$W/ck.$ELASTIC_RESTART_COUNT.$RANK"
		exit 0
	fi
	sleep 0.5 & wait $!
done
EOS
chmod 755 "$ED_TMP/worker.sh"

out=$W/out
# restart_of N: the restart count of the newest launch of N nodes whose
# ranks are all up.
restart_of() {
	grep -E "event=ranks-up restart=[0-9]+ nnodes=$1 " "$out" 2>/dev/null | tail -n1 |
		sed -E 's/.* restart=([0-9]+) .*/\1/'
}
# ranks R: "RANK WORLD_SIZE RESTART PREV_NNODES GROUP" of restart R, sorted.
ranks() { cat "$W"/r."$1".* 2>/dev/null | awk '{ print $1, $2, $3, $4, $5 }' | sort -n; }
jobs_of() { cat "$W"/r."$1".* 2>/dev/null | awk '{ print $6 }' | sort -un | tr '\n' ' ' | sed 's/ $//'; }
masters_of() { cat "$W"/r."$1".* 2>/dev/null | awk '{ print $7 }' | sort -u | wc -l; }
expect_ranks() { # expect_ranks RESTART N PREV GROUP
	local i
	for ((i = 0; i < $2; i++)); do echo "$i $2 $1 $3 $4"; done
}

# --- elasticd down at the start: the job runs at its allocation and says so
base=$(ED_WRAP="exec $RUN -- $ED_TMP/worker.sh" \
	submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=10 -o "$out" --export=ALL,W="$W")
like "a min=1 max=4 group runs elastic-run" "$base" '^[0-9]+$'
ok "with elasticd down, elastic-run launches over the base's node" \
	wait_until 60 log_has "$out" 'event=ranks-up restart=0 nnodes=1 '
ok "and says the group grows only once elasticd answers" \
	log_has "$out" "no world of job $base from elasticd .*own allocation \\(1 node\\), which grows only once elasticd answers"
ok "elasticd starts" ed_start

# --- growth ---------------------------------------------------------------
ok "the group grows to 4 nodes" gwait 60 "$base" 'world == 4 and len(units()) == 3' || show_group "$base"
ok "elastic-run relaunches its ranks over the 4 nodes" wait_until 60 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=4 '
ok "elastic-run says the world follows elasticd again" log_has "$out" "elasticd answers: the world of job $base is the group's"
r4=$(restart_of 4)
ok "... 4 ranks start" wait_until 10 have "r.$r4.*" 4
is "... one world: RANK 0-3, WORLD_SIZE=4, ELASTIC_JOB_ID the base" \
	"$(ranks "$r4" | awk '{ print $1, $2, $3, $5 }')" "$(expect_ranks "$r4" 4 x "$base" | awk '{ print $1, $2, $3, $5 }')"
is "... spanning the base and its 3 units, one srun each" \
	"$(jobs_of "$r4")" "$(printf '%s\n' "$base" $(running_units "$base") | sort -un | tr '\n' ' ' | sed 's/ $//')"
is "... all with the same MASTER_ADDR:MASTER_PORT" "$(masters_of "$r4")" 1
# Drawn at random, in 20000..29999 (1 in 10000 that it is the default).
port=$(cat "$W"/r."$r4".* 2>/dev/null | awk '{ sub(/.*:/, "", $7); print $7 }' | sort -u)
ok "... a port other users cannot tell in advance (not 20000 + job id mod 10000: $port)" \
	test "$port" -ge 20000 -a "$port" -le 29999 -a "$port" -ne $((20000 + base % 10000))
like "the timeline names elasticd's world and its jobs" \
	"$(grep -E "event=(re)?launch restart=$r4 " "$out")" "source=elasticd jobs=$base:"

# --- two units preempted ----------------------------------------------------
before=$(running_units "$base")
t0=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
like "a 2-node high-priority job is accepted" "$hjid" '^[0-9]+$'
ok "every rank of the 4-node world is told and checkpoints" wait_until 30 have "ck.$r4.*" 4
t_ck=$(cat "$W"/ck."$r4".* | sort -n | tail -n1)
figure "elastic-run: preemptor submitted to the last rank's checkpoint: $(awk -v a="$t0" -v b="$t_ck" 'BEGIN { printf "%.2f", b - a }') s"
# After r4: the first launch may have been at 2 nodes too.
ok "the ranks are relaunched over the 2 nodes left" wait_until 60 eval '[ "$(restart_of 2)" -gt "$r4" ] 2>/dev/null'
r2=$(restart_of 2)
figure "elastic-run: preemptor submitted to the ranks up at 2 nodes: $(secs_since "$t0") s"
ok "... 2 ranks start" wait_until 10 have "r.$r2.*" 2
is "... RANK 0-1, WORLD_SIZE=2, ELASTIC_PREV_NNODES=4" "$(ranks "$r2")" "$(expect_ranks "$r2" 2 4 "$base")"
is "... on the base and the unit that was not preempted: elasticd's world" "$(jobs_of "$r2")" \
	"$(gq "$base" 'ids(members(in_world=True))')"
ok "elasticctl status: RUNNING again once the ranks run at 2 nodes" \
	wait_until 5 eval '[ "$(gq "$base" state)" = RUNNING ]'
t_run=$(secs_since "$t0")
ok "... ${t_run} s after the preemptor came: before the 10 s grace ended" below "$t_run" 10
ok "the preemptor runs" wait_until 30 job_running "$hjid"
t_hi=$(secs_since "$t0")
figure "elastic-run: preemptor submitted to preemptor running: $t_hi s (GraceTime 10 s)"
# The units' ranks left in a fraction of a second: elasticd cancels them
# then, not at the end of the grace.
ok "... ${t_hi} s after it was submitted: the preempted units were released when their ranks left, not after the 10 s grace" below "$t_hi" 9
is "one relaunch for the preemption: no launch in between" "$r2" "$((r4 + 1))"

# --- regrowth, with ranks slow to checkpoint ----------------------------------
touch "$W/slow"
t3=$(now)
scancel "$hjid"
ok "when the preemptor ends, the ranks are relaunched over 4 nodes again" \
	wait_until 60 eval '[ "$(restart_of 4)" -gt "$r4" ]'
figure "elastic-run: preemptor ended to the ranks up at 4 nodes: $(secs_since "$t3") s"
r4b=$(restart_of 4)
ok "... 4 ranks start" wait_until 10 have "r.$r4b.*" 4
is "... RANK 0-3, WORLD_SIZE=4" "$(ranks "$r4b" | awk '{ print $1, $2 }' | tr '\n' ';')" "0 4;1 4;2 4;3 4;"
rm -f "$W/slow"
like "the ranks took 6 s of the 10 s grace: elastic-run warns on its timeline" \
	"$(grep 'event=grace-warning' "$out" | tail -n1)" 'exit_seconds=[6-9]\.[0-9]+ grace=10 killed=no'
ok "... and elasticctl status too" wait_until 10 eval 'ctl root status "$base" | grep -q "WARNING: group $base: the ranks took [6-9]\.[0-9] s of the 10 s grace"'
like "... and its events" "$(ctl root events "$base" | grep grace-warning)" 'ranks took [6-9]\.[0-9] s of the 10 s grace to checkpoint and exit'
is "... in the group's document" "$(gq "$base" 'g["grace_warning"]')" true

# --- the end --------------------------------------------------------------------
touch "$W/finish"
ok "the ranks finish and elastic-run reports success" wait_until 30 log_has "$out" 'event=done .*result=success'
ok "the base job completes" wait_until 30 eval '[ "$(job_field "$base" JobState)" = COMPLETED ]'
ok "its units are released" wait_until 30 eval '[ -z "$(slurm_units "$base")" ]'
ok "the ended group's status still reads: ENDED" wait_until 10 eval 'ctl "$TEST_USER" status "$base" | grep -q "^group $base: ENDED"'
like "... and its events, to the end" "$(ctl "$TEST_USER" events "$base" | tail -n1)" ' end +[0-9]+ +[0-9]+ +(exited|completed)'
ok "... it is no longer in the list of groups" eval '! ctl root status | grep -q "^ *$base "'
diag "elastic-run's timeline:" && sed 's/^/#   /' "$out" | grep 'elastic-run:' || true
ok "elasticd stops on SIGTERM" ed_stop
done_testing
