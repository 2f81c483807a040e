#!/bin/bash
# An event costs slurmctld one signal a group, whatever its size: a group
# of 3 (base + 2 units) runs elastic-run, whose report says it relays;
# the event asked through the API is raised by elasticd in the base alone
# (one REQUEST_KILL_JOB in slurmctld's log), the launcher hears it on the
# base's steps and tells the units' ranks over its heartbeat steps (no
# request to slurmctld at all), and every rank of the 3 nodes gets the
# event, the last within 0.1 s of slurmctld taking the signal.  Then
# Slurm preempts a unit: the same, and the unit that stays is never
# signalled through slurmctld.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

CTLD_LOG=$MC_DIR/log/slurmctld.log
W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
# A rank: on the event, says when, where and in which job, and exits 0
# (checkpointed); its relaunch waits for the next.
cat >"$ED_TMP/worker.sh" <<'EOS'
#!/bin/bash
trap 'echo "${EPOCHREALTIME/,/.} $SLURM_JOB_ID $SLURMD_NODENAME $ELASTIC_RESTART_COUNT" >>"$W/events"; exit 0' URG
while :; do sleep 0.2 & wait $!; done
EOS
chmod 755 "$ED_TMP/worker.sh"
out=$W/out

ok "elasticd starts" ed_start
base=$(ED_WRAP="exec $RUN -- $ED_TMP/worker.sh" \
	submit_group "$TEST_USER" --elastic-min=1 --elastic-max=3 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=10 -o "$out" --export=ALL,W="$W")
like "a min=1 max=3 group running elastic-run is accepted" "$base" '^[0-9]+$'
ok "its ranks run on 3 nodes" wait_until 90 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=3 '
ok "its launcher reported that it relays events" \
	gwait 20 "$base" 'world == 3 and g.get("relay") is True' || show_group "$base"
jobs=$(gq "$base" 'ids(members(in_world=True))')
restart=$(grep -oE 'event=ranks-up restart=[0-9]+ nnodes=3 ' "$out" | tail -n1 | grep -oE 'restart=[0-9]+')
restart=${restart#restart=}
diag "world: jobs $jobs, restart $restart"

# --- the event -------------------------------------------------------------
from=$(($(wc -l <"$CTLD_LOG") + 1))
ed_from=$(($(wc -l <"$ED_LOG") + 1))
ok "the event is asked for through the API" ctl "$TEST_USER" raise "$base"
got_all() { [ "$(awk -v r="$restart" '$4 == r' "$W/events" 2>/dev/null | wc -l)" -ge 3 ]; }
ok "every rank got the event" wait_until 15 got_all || diag "events: $(tr '\n' ';' <"$W/events" 2>/dev/null)"
is "... one on each of the 3 nodes, in each of the 3 jobs" \
	"$(awk -v r="$restart" '$4 == r { print $2 }' "$W/events" | sort -nu | tr '\n' ' ' | sed 's/ $//')" "$jobs"
ok "the launcher relaunched its ranks" \
	wait_until 60 log_has "$out" "event=ranks-up restart=$((restart + 1)) nnodes=3 "

# Jobs signalled through slurmctld since the event, the relaunch included
# (its steps' ends are another request, REQUEST_CANCEL_JOB_STEP).
kills() {
	tail -n +"$from" "$CTLD_LOG" | grep -oE 'REQUEST_KILL_JOB JobId=[0-9]+ uid [0-9]+' |
		sed 's/REQUEST_KILL_JOB //'
}
is "slurmctld got one signal for the event: the base's, from elasticd" "$(kills | tr '\n' ';')" "JobId=$base uid 0;"
like "elasticd says it raised the event in the base alone" \
	"$(tail -n +"$ed_from" "$ED_LOG" | grep 'raise URG' | tail -n1)" \
	"group $base: raise URG in generation [0-9]+ \\(3 nodes; in the base, its launcher relays\\).*: jobs $base, relayed to 2"
like "the launcher told the 2 units over its heartbeat steps" \
	"$(grep 'event=told' "$out" | tail -n1)" "relayed=2 had=$base"

# From slurmctld taking the base's signal to the last rank's handler.
t_ctld=$(tail -n +"$from" "$CTLD_LOG" | grep -m1 "REQUEST_KILL_JOB JobId=$base " |
	sed -E 's/^\[([^]]+)\].*/\1/')
t_ctld=$(date -d "$t_ctld" +%s.%N)
t_last=$(awk -v r="$restart" '$4 == r { print $1 }' "$W/events" | sort -n | tail -n1)
lat=$(awk -v a="$t_ctld" -v b="$t_last" 'BEGIN { printf "%.3f", b - a }')
figure "relay: slurmctld took the base's signal to the last rank's handler: $lat s"
ok "... under 0.1 s" below "$lat" 0.1

# --- a preemption --------------------------------------------------------
# A 2-node job in the high partition takes the idle node and one unit:
# Slurm signals that unit itself; elasticd raises the event in the base
# alone, and the launcher tells the unit that stays.
restart=$((restart + 1))
from=$(($(wc -l <"$CTLD_LOG") + 1))
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
like "a 2-node job in the high partition is accepted" "$hjid" '^[0-9]+$'
ok "a unit is preempted: the world shrinks to 2" gwait 60 "$base" 'world == 2' || show_group "$base"
stays=$(gq "$base" 'ids(members(in_world=True))')
stays=${stays#"$base "}
ok "every rank got the event" wait_until 15 got_all || diag "events: $(tr '\n' ';' <"$W/events" 2>/dev/null)"
ok "the launcher relaunched its ranks on the 2 nodes left" \
	wait_until 60 log_has "$out" "event=ranks-up restart=$((restart + 1)) nnodes=2 "
kills_of() { kills | grep -c "^JobId=$1 " || :; }
is "slurmctld got no signal for the unit that stays ($stays), one for the base" \
	"$(kills_of "$stays") $(kills_of "$base")" "0 1"
diag "requests: $(kills | tr '\n' ';')"
scancel "$hjid"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
