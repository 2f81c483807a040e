#!/bin/bash
# The launcher's account of a job's node-time (elastic-run(1),
# ACCOUNTING), without elasticd: Python ranks (account_rank.py) that
# report each step and checkpoint every 40 steps (an announced 1 s save),
# relaunched by an elastic event at step 60 or more, resume from their
# checkpoint (steps redone) and finish at step 120.  The final line on
# standard error adds up (held = the sum of the causes, within a second of
# a node), its steps are the training's, and each cause the run went
# through has its share.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 16

PYTHON=/usr/bin/python3
make_tmp tmp
chmod 755 "$tmp"
LAST=120

RANK_PY=$ELASTIC_SRCDIR/testsuite/integration/account_rank.py

# step_at RESTART: the highest step rank 0 wrote in that launch.
step_at() { cat "$W/step.$1.0" 2>/dev/null || echo 0; }
past() { [ "$(step_at "$1")" -ge "$2" ]; }

W="$tmp/run" && mkdir -p "$W" && chmod 777 "$W"
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 --elastic-grace=10 -o "$W/out" \
	--export=ALL,W="$W",LAST=$LAST,CKPT_EVERY=40,ELASTIC_ACCOUNT_INTERVAL=2 \
	--wrap "export PYTHONPATH=$ELASTIC_SRCDIR/contribs/python; exec $RUN --elasticd=none -- $PYTHON $RANK_PY")
ok "the ranks step past their first checkpoint (40) to 60" wait_until 90 past 0 60
ok "... which is on disk" test "$(cat "$W/ckpt" 2>/dev/null)" = 40
scancel --full --signal=URG "$jid"
ok "on the event they are relaunched" wait_until 40 have "start.1.*" 2
is "... and resume from step 40" "$(cat "$W"/start.1.* | sort -u)" 40
ok "the job completes when they reach step $LAST" wait_until 90 job_gone_or_done "$jid"
is "... COMPLETED" "$(job_field "$jid" JobState)" COMPLETED
is "one account line at the end" "$(grep -c '^elastic-run: account: ' "$W/out")" 1
acct=$(account_of "$W/out")
diag "$acct"

ok "held = the sum of the causes, within 1000 node-ms" account_adds_up "$acct"
at=$(account_field "$acct" at | tr ',' '\n' | awk -F: '{ s += $2 } END { print s + 0 }')
is "training by world size adds up to training" "$at" "$(account_field "$acct" training_nms)"
is "steps: the training's" "$(account_field "$acct" steps)" "$(step_at 1)"
# Resumed from 40 after 60 or more: the steps from 40 to the highest the
# heartbeats saw before the event are redone (they pass the steps on every
# second: the last few before the event may go unseen).
hi=$(step_at 0)
redone=$(account_field "$acct" redone)
ok "redone: from the checkpoint to the highest step seen before the event ($redone; the ranks reached $hi)" \
	test "$redone" -le $((hi - 40)) -a "$redone" -ge $((hi - 40 - 25))
none=""
for c in waiting training resize_restart redo checkpoint; do
	[ "$(account_field "$acct" "${c}_nms")" -gt 0 ] || none="$none $c"
done
is "each cause the run went through has its share (none without:)" "$none" ""
like "the resize: an event at the same size by restart, the first" "$acct" \
	' resize=preemption:restart:[0-9]+:1 '
like "the line: ended, final, 2 nodes, goodput and ettr as fractions" "$acct" \
	' world=2 held=2 phase=ended .*final=1 goodput=0\.[0-9]{3} ettr=0\.[0-9]{3}$'

# --- a bad interval: the job fails at once, naming the variable --------------
W="$tmp/bad" && mkdir -p "$W"
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=2 -o "$W/out" \
	--export=ALL,ELASTIC_ACCOUNT_INTERVAL=0 --wrap "exec $RUN --elasticd=none -- true")
ok "ELASTIC_ACCOUNT_INTERVAL=0: the job fails" wait_until 60 job_gone_or_done "$jid"
like "... saying why in one line" "$(cat "$W/out")" \
	'elastic-run: ELASTIC_ACCOUNT_INTERVAL=0: .*\(allowed: 1\.\.3600 seconds\)'

cleanup_jobs
done_testing
