#!/bin/bash
# elastic-run, first slice: the launcher in a batch script relaunches its
# ranks after an elastic event (same world, ELASTIC_RESTART_COUNT + 1),
# retries ranks that fail on their own up to --max-restarts, then fails the
# job with a clear message, and prints its timeline.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 26

make_tmp tmp
chmod 755 "$tmp"

# A rank: records what it sees, loops, and on the event (SIGURG) writes a
# "checkpoint" and exits 0.  $W/deaf: ignore the event; $W/fail: fail at once; $W/last=N: finish
# (exit 0) at restart N.
cat >"$tmp/worker.sh" <<'EOS'
#!/bin/bash
echo "$RANK $WORLD_SIZE $ELASTIC_RESTART_COUNT $ELASTIC_PREV_NNODES $MASTER_ADDR" >"$W/ranks.$ELASTIC_RESTART_COUNT.$RANK"
trap 'echo "ck $RANK" >"$W/ckpt.$ELASTIC_RESTART_COUNT.$RANK"; exit 0' URG
[ -e "$W/deaf" ] && trap '' URG
[ -e "$W/fail" ] && exit 3
[ -e "$W/last" ] && [ "$ELASTIC_RESTART_COUNT" -ge "$(cat "$W/last")" ] && exit 0
while :; do sleep 0.5 & wait $!; done
EOS
chmod 755 "$tmp/worker.sh"

# --- elastic events: relaunch, same world ------------------------------------
W="$tmp/ok" && mkdir -p "$W" && echo 3 >"$W/last"
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 --elastic-grace=10 -o "$W/out" \
	--export=ALL,W="$W" --wrap "exec $RUN --elasticd=none -- $tmp/worker.sh")
ok "the ranks of the first launch start" wait_until 60 have "ranks.0.*" 2
ok "... and elastic-run says they are up" wait_until 20 log_has "$W/out" 'event=ranks-up restart=0 nnodes=2 ranks=2'
is "... RANK/WORLD_SIZE/RESTART/PREV_NNODES: 0 2 0 0 and 1 2 0 0" \
	"$(cat "$W"/ranks.0.* | awk '{print $1, $2, $3, $4}' | sort | tr '\n' ';')" "0 2 0 0;1 2 0 0;"

# The elastic event as preemption brings it: the signal on every step and
# on the batch step (so elastic-run sees it too).
scancel --full --signal=URG "$jid"
ok "on the event the ranks checkpoint" wait_until 20 have "ckpt.0.*" 2
ok "... and are relaunched" wait_until 30 have "ranks.1.*" 2
is "... with ELASTIC_RESTART_COUNT=1, ELASTIC_PREV_NNODES=2, the same world" \
	"$(cat "$W"/ranks.1.* | awk '{print $1, $2, $3, $4}' | sort | tr '\n' ';')" "0 2 1 2;1 2 1 2;"
ok "... and are up again" wait_until 20 log_has "$W/out" 'event=ranks-up restart=1'

# The event sent to elastic-run alone: it raises it on the ranks itself.
pid=$(pgrep -f "^$RUN --elasticd=none -- $tmp/worker.sh" | head -n1)
ok "elastic-run runs in the batch script" test -n "$pid"
[ -n "$pid" ] && kill -USR1 "$pid"
ok "SIGUSR1 to elastic-run: the ranks are told and checkpoint" wait_until 20 have "ckpt.1.*" 2
ok "... and are relaunched with ELASTIC_RESTART_COUNT=2" wait_until 30 have "ranks.2.*" 2
ok "... and are up again" wait_until 20 log_has "$W/out" 'event=ranks-up restart=2'

# The event raised on the steps only, as elasticd does: elastic-run hears
# of it from its sentinel step.
ok "elastic-event raise JOB succeeds" "$ELASTIC_EVENT" raise "$jid"
ok "... the ranks checkpoint" wait_until 20 have "ckpt.2.*" 2
ok "... and are relaunched with ELASTIC_RESTART_COUNT=3" wait_until 30 have "ranks.3.*" 2
like "... elastic-run saw it raised on the steps" "$(grep 'event=event restart=2' "$W/out")" 'cause=raised signal=URG on=steps'
ok "the job completes when the ranks finish" wait_until 30 job_gone_or_done "$jid"
is "... COMPLETED" "$(job_field "$jid" JobState)" COMPLETED
# The timeline; its account, the last line, is a line of its own.
tl=$(grep '^elastic-run: ' "$W/out" | grep -v '^elastic-run: account: ')
# The last ranks exit at once: whether their step is seen running first
# (ranks-up@3) depends on timing.
is "the timeline: one line per step, in order" \
	"$(printf '%s\n' "$tl" | sed -n 's/.* event=\([a-z-]*\) restart=\([0-9]*\) .*/\1@\2/p' | tr '\n' ' ' | sed 's/ranks-up@3 //')" \
	"launch@0 ranks-up@0 event@0 told@0 exited@0 relaunch@1 ranks-up@1 event@1 told@1 exited@1 relaunch@2 ranks-up@2 event@2 told@2 exited@2 relaunch@3 done@3 "
bad=$(printf '%s\n' "$tl" | grep -Ev '^elastic-run: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z event=[a-z-]+ restart=[0-9]+ nnodes=2( |$)')
is "... each line: RFC 3339 time (ms), event, restart, nnodes" "$bad" ""

# --- ranks that ignore the event: killed after --elastic-grace --------------
W="$tmp/deaf" && mkdir -p "$W" && touch "$W/deaf" && echo 1 >"$W/last"
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 --elastic-grace=3 -o "$W/out" \
	--export=ALL,W="$W" --wrap "exec $RUN --elasticd=none -- $tmp/worker.sh")
ok "ranks that ignore the event start" wait_until 60 log_has "$W/out" 'event=ranks-up restart=0'
"$ELASTIC_EVENT" raise "$jid"
ok "... are killed after the grace and relaunched" wait_until 30 have "ranks.1.*" 2
like "... the timeline says they were killed after 3 s" "$(grep 'event=exited restart=0' "$W/out")" 'killed_members=1 grace=3 waited=[3-9]\.'
ok "... and the job completes" wait_until 30 job_gone_or_done "$jid"

# --- ranks that fail on their own ------------------------------------------
W="$tmp/fail" && mkdir -p "$W" && touch "$W/fail"
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 -o "$W/out" \
	--export=ALL,W="$W" --wrap "$RUN --elasticd=none --max-restarts=2 -- $tmp/worker.sh")
ok "a job whose ranks keep failing ends" wait_until 60 job_gone_or_done "$jid"
is "... FAILED, after 1 launch + 2 retries" "$(job_field "$jid" JobState) $(grep -c 'event=failure' "$W/out")" "FAILED 3"
like "... with a clear message" "$(cat "$W/out")" \
	"elastic-run: the ranks failed 3 times on their own \(not an elastic event; last: exit=[0-9]+\), more than --max-restarts=2: giving up"

cleanup_jobs
done_testing
