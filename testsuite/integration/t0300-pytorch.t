#!/bin/bash
# Real PyTorch DDP ranks (gloo on CPU) under elastic-run and elasticd, in
# one job: start at min (the other nodes busy), grow into idle nodes, lose
# two units to a high-priority job, grow back, lose a node to failure, grow
# back, finish.  After each resize the ranks resume from the last
# checkpoint at the new world size; at the end every sample of every epoch
# was processed exactly once (beyond the steps after the last periodic
# checkpoint that the failed node's world redid) and the loss decreased.
# Then what its owner looks at: elasticctl report's accounting (held =
# training + each lost cause), the picture with the story's events, and
# the ratios in sacct.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 41

pytorch_setup

SAMPLES=2048 BATCH=64 EVERY=10
STEPS_PER_EPOCH=$((SAMPLES / BATCH))
EPOCHS=${T0300_EPOCHS:-600}
out=$W/out

ok "elasticd starts" ed_start
# The 3 other preemptible nodes are busy: the group starts at min.
fill=$(filler preempt 3)
ok "3 of the 4 preemptible nodes are busy" wait_until 30 job_running "$fill"
t_phase=$(now)
base=$(submit_ddp 1 60)
like "a min=1 max=4 PyTorch job is accepted" "$base" '^[0-9]+$'
phase 1 "it starts at min: 1 rank, fresh"
like "... from no checkpoint" "$(log '^train_ddp: world 1 restart 0 ')" 'fresh start at step 0'

# --- growth into idle nodes ------------------------------------------------------
t_phase=$(now)
scancel "$fill"
phase 4 "the nodes go idle: it grows to 4 ranks"
r_grow=$last_r

# --- two units preempted ------------------------------------------------------------
t_phase=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
phase 2 "a 2-node high-priority job takes 2 units: it goes on at 2 ranks"
r_pre=$last_r
ok "the preemptor runs" wait_until 30 job_running "$hjid"

t_phase=$(now)
scancel "$hjid"
phase 4 "the preemptor ends: it grows back to 4 ranks"
r_back=$last_r

# --- a node fails ----------------------------------------------------------------------
unit=$(running_units "$base" | tr ' ' '\n' | sed '/^$/d' | tail -n1)
node=$(job_hosts "$unit")
t_phase=$(now)
node_fail "$node"
phase 3 "a unit's node ($node) fails: it goes on at 3 ranks" 150
r_fail=$last_r
t_phase=$(now)
node_resume "$node"
phase 4 "the node is back: it grows back to 4 ranks"

# --- the end ---------------------------------------------------------------------------------
finish_soon
ok "training finishes" wait_until 400 log_has "$out" '^train_ddp: done: '
ok "elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
ok "the base job completes" wait_until 30 eval '[ "$(job_field "$base" JobState)" = COMPLETED ]'

# Each elastic resize resumed from the checkpoint the ranks wrote at the
# event: "elastic event at step S ... checkpoint .../ckpt-S.pt", then the
# next start "resumed from .../ckpt-S.pt at step S".
resume_ok() { # resume_ok RESTART: restart R resumed from R-1's event checkpoint
	local prev
	prev=$(awk -v r="$(($1 - 1))" '
		/^train_ddp: world / { cur = ($5 == r) }
		cur && /^train_ddp: elastic event at step/ { print $6 }' "$out" | tail -n1)
	[ -n "$prev" ] && log "^train_ddp: world [0-9]+ restart $1 " | grep -qE "resumed from .*/ckpt-0*$prev\.pt at step $prev,"
}
ok "the growth to 4 resumed from the checkpoint written at the event" resume_ok "$r_grow"
ok "the shrink to 2 (preemption) resumed from the event's checkpoint" resume_ok "$r_pre"
ok "the regrowth to 4 resumed from the event's checkpoint" resume_ok "$r_back"
# The failed node's world resumed from the newest checkpoint there was:
# the one its ranks wrote when told of the lost member (if they still could
# reach each other), the last periodic one (every $EVERY steps), or, when
# the node died before the next of those, the one the world had started
# from.
fail_step=$(log "^train_ddp: world 3 restart $r_fail " | sed -nE 's/.* at step ([0-9]+),.*/\1/p')
back_step=$(log "^train_ddp: world 4 restart $r_back " | sed -nE 's/.* at step ([0-9]+),.*/\1/p')
ev_step=$(awk -v r="$r_back" '
	/^train_ddp: world / { cur = ($5 == r) }
	cur && /^train_ddp: elastic event at step/ { print $6 }' "$out" | tail -n1)
like "after the failure, the world of 3 resumed from a checkpoint" \
	"$(log "^train_ddp: world 3 restart $r_fail ")" "resumed from .*/ckpt-[0-9]+\.pt at step [0-9]+,"
ok "... at step $fail_step: the event's (${ev_step:-none}), a periodic one after $back_step, or $back_step" \
	eval '[ -n "$fail_step" ] && { [ "$fail_step" = "$ev_step" ] || [ "$fail_step" = "$back_step" ] ||
		{ [ $((fail_step % EVERY)) -eq 0 ] && [ "$fail_step" -ge "$back_step" ]; }; }'
is "elastic-run counted no failure: every relaunch was an elastic event" "$(log 'event=failure' | wc -l)" 0
# However the ranks learned of it (the node's heartbeats, a lost member,
# the world changing, a peer's flag with the event status), it was an
# elastic event: an event that ended a launch from the world of 4 the node
# failed in to the world of 3 (a later one, such as the regrowth seen first
# as a membership change, says nothing of the failure).
fail_events=$(awk -v a="$r_back" -v b="$r_fail" '/^elastic-run: .* event=event restart=/ {
	r = $0; sub(/.* restart=/, "", r); r += 0; if (r >= a && r < b) print }' "$out")
like "the failure was seen as an elastic event" "$fail_events" "cause=(node-lost node=$node job=$unit|member-exit job=$unit|membership .*members=4->3|ranks-event|world-changed)"

# Exactly once: every (epoch, sample) processed once, except the samples
# of the steps the failed world redid after its last checkpoint.
trained_well "the failure"
is "the last world had 4 ranks" "$(log '^step ' | tail -n1 | awk '{ print $NF }')" 4
worlds=$(log '^train_ddp: world ' | awk '{ print $3 }' | tr '\n' ' ')
# Slurm may start a growth's units seconds apart (past the scale delay):
# then the world passes through a size on the way up.
like "the worlds, in order: 1, 4, 2, 4, 3, 4 (sizes on the way up allowed)" \
	"$(echo "$worlds" | tr -s ' ' | sed 's/ $//')" '^1 ([23] )*4 2 (3 )?4 3 4$'
steps=$(log '^train_ddp: done: ' | sed -E 's/.* ([0-9]+) steps.*/\1/')
is "the total number of steps is that of an uninterrupted run" "$steps" "$((EPOCHS * STEPS_PER_EPOCH))"

# --- what the researcher looks at: the job's accounting and its picture -----------------
# elastic-run reported its ledger to elasticd all along, the last one
# final: held = training + every lost cause (within a node-second), the
# story's events (growth, preemption, crash) among them, steps as trained.
rep=$(ctl "$TEST_USER" report "$base" 2>&1)
ok "elasticctl report: held = training + lost adds up" grep -q 'adds up' <<<"$rep"
diag "report:" && sed 's/^/#   /' <<<"$rep"
ctl "$TEST_USER" report --json "$base" >"$W/account.json" 2>&1
acct_check() { # acct_check WHAT: one judgement of the document (account.py)
	"$PYTHON" "$ELASTIC_SRCDIR/testsuite/integration/account.py" "$W/account.json" "$@"
}
ok "... its JSON: the causes add up to held within a second" acct_check adds-up 1.0
ok "... the ledger is final (the launcher ended)" acct_check final
ok "... growth, preemption and crash among its events and its resizes" acct_check kinds growth preemption crash
# Steps as the nodes' heartbeats heard them: the last beat's.
acct_steps=$(acct_check steps)
ok "... its steps ($acct_steps) are the training's ($steps), but those after the last heartbeat (20 at most)" \
	eval '[ "$acct_steps" -le "$steps" ] && [ "$acct_steps" -ge $((steps - 20)) ]'

ok "... goodput and ETTR are fractions above 0" acct_check ratios
ok "the picture: elasticctl report --png --svg" ctl "$TEST_USER" report --png "$W/report.png" --svg "$W/report.svg" "$base"
ok "... the PNG has a size (IHDR) and content" acct_check png "$W/report.png"
ok "... the SVG marks growth, preemption and crash" acct_check svg "$W/report.svg" growth preemption crash
sacct_ratio() { sacct -n -X -j "$base" -o AdminComment%400 2>/dev/null | grep -q 'goodput=0\.[0-9]* ettr='; }
ok "sacct shows the base's goodput and ETTR (AdminComment)" wait_until 60 sacct_ratio
ok "checkpoints were written in --elastic-checkpoint-dir" test -n "$(ls "$W/ckpt/$base" 2>/dev/null)"
diag "timeline:" && grep -E 'elastic-run: .*event=(launch|relaunch|event|ranks-up|done)' "$out" | sed 's/^/#   /' || true
# No false alarm through imports, checkpoints, resizes and a loaded
# machine: the crashed node alone was named, no rank hung.
is "no rank was taken as hung" "$(log 'elastic-run: .* event=hang ' | wc -l)" 0
like "no node but the crashed one was named lost" "$(log 'cause=node-lost ' | sed -E 's/.* node=([^ ]+) .*/\1/' | sort -u | tr '\n' ' ')" "^($node )?$"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
