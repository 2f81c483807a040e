#!/bin/bash
# Ghost steps: slurmctld is killed (-9) after it heard that the ranks' step
# ended and before it saved its state.  Started again, it holds the step as
# running, and nothing on the nodes answers for it: a signal does not end
# it, and it holds the nodes' CPUs until the job ends.  elastic-run's next
# launch must not wait on it forever ("Requested nodes are busy"): it
# overlaps the ghost (elastic-run(1), TIMELINE, stale-steps).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 10

W=$ED_TMP/ghost
mkdir -p "$W" && chmod 777 "$W"
# The ranks fail once, at the first launch, when the test says so; then
# they run and finish.
cat >"$W/rank.sh" <<'EOF'
#!/bin/bash
echo "rank $SLURM_PROCID up restart=$ELASTIC_RESTART_COUNT"
if [ "$ELASTIC_RESTART_COUNT" = 0 ]; then
	while [ ! -e "$1/fail" ]; do sleep 0.5 & wait $!; done
	exit 1
fi
sleep 5
echo "rank $SLURM_PROCID done"
EOF
chmod 755 "$W/rank.sh"
out=$W/out
jid=$(runuser -u "$TEST_USER" -- sbatch --parsable -N2 -D "$ED_TMP" -o "$out" -t 10 \
	--elastic-min=2 --elastic-max=2 --elastic-grace=10 \
	--wrap "exec $RUN --elasticd=none --max-restarts=2 -- $W/rank.sh $W")
like "a 2-node job under elastic-run is accepted" "$jid" '^[0-9]+$'
ok "its ranks run" wait_until 60 log_has "$out" 'event=ranks-up restart=0 ' ||
	diag "$(tail -n 5 "$out")"

# The ranks' step: the one of the first launch (above the sentinel's).
rank_step() {
	squeue -h -s -j "$jid" -o '%i %j' 2>/dev/null | awk '$2 == "rank.sh" { sub(/.*\./, "", $1); print $1 }'
}
step=$(rank_step)
like "... in step $step of the job" "$step" '^[0-9]+$'
# slurmctld saves its state at most every 5 s after a change, and the
# end of a step is no change it saves for.  Make it save the job with the
# step running (a change to the job, then the next save), then end the
# step and kill slurmctld well within the 5 s.
saved() { stat -c %.9Y "$MC_DIR/state/job_state" 2>/dev/null; }
s0=$(saved)
scontrol update JobId="$jid" Comment=ghost-test
ok "slurmctld saves the job with its step running" wait_until 15 eval '[ "$(saved)" != "$s0" ]'
touch "$W/fail"
# slurmctld has heard the step end when it no longer lists it; elastic-run
# waits a few seconds before it relaunches after a failure.
ok "the ranks fail and slurmctld hears their step end" wait_until 30 eval '[ -z "$(rank_step)" ]'
ok "slurmctld is killed (-9) and started again from its saved state" "$MINICLUSTER" restart slurmctld
steps() { squeue -h -s -j "$jid" --Format=StepId:24,StepState:12 2>/dev/null; }
ghost() { steps | grep -qE "^$jid\\.$step +RUNNING"; }
ok "... which brings the ended step back: a ghost" wait_until 10 ghost ||
	diag "steps: $(steps | tr '\n' ';')"
t0=$(now)
ok "elastic-run finds the ghost and overlaps it" \
	wait_until 60 log_has "$out" 'event=stale-steps restart=1 .*ghosts=[1-9][0-9]* overlap=yes'
ok "... the ranks run again at once, beside the ghost" wait_until 30 log_has "$out" 'event=ranks-up restart=1 ' ||
	diag "$(tail -n 5 "$out")"
figure "ghost steps: slurmctld restart to ranks up again: $(secs_since "$t0") s"
ok "... and finish: success" wait_until 60 log_has "$out" 'event=done restart=1 .*result=success' ||
	diag "$(tail -n 8 "$out")"
scancel "$jid" 2>/dev/null
done_testing
