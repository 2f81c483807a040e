# For the tests that run the PyTorch example under elastic-run and
# elasticd (t0300, t0310; make chaos): read its output ($out) and wait for the ranks
# to train at a given world size.  Source it after elasticd.sh; set out
# (the job's output file) and PHASE_FIGURE (the figures' prefix).
# shellcheck shell=bash

# pytorch_setup: EX (the example's directory), and W, a directory the test
# user's job writes samples/ and ckpt/ in; after ed_setup.
pytorch_setup() {
	EX="$ELASTIC_SRCDIR/contribs/examples/pytorch"
	W=$ED_TMP/w
	mkdir -p "$W/samples" "$W/ckpt" && chmod -R 777 "$W"
	has_torch || bail "python3-torch is not installed"
	at_exit pytorch_said
}

# require_dcp: bail unless this PyTorch has the distributed checkpoint
# with async saves and tensor parallel (the sharded tests, t0340, t0341).
require_dcp() {
	"$PYTHON" -c 'import torch.distributed.checkpoint as d, torch.distributed.tensor.parallel; d.async_save' 2>/dev/null ||
		bail "this PyTorch has no distributed checkpoint with async saves (torch 2.4 or later; Debian 13's python3-torch)"
}

# pytorch_said: after a failure, what the job printed besides its timeline
# and its progress (a rank's traceback, srun's word on a task's end).
pytorch_said() {
	[ "$_t_failed" = 0 ] || [ ! -s "${out:-}" ] && return 0
	diag "the job's errors ($out; the last line of each traceback, srun's and elastic-run's words):"
	grep -aE '^(\[rank[0-9]+\]: )*[A-Za-z_.]*(Error|Exception): |^srun: error: |^elastic-run: (warning|error)' "$out" |
		head -n 40 | sed 's/^/#   /'
	diag "the job's last words, timeline and progress left out:"
	grep -avE ' event=|^step [0-9]+ ' "$out" | tail -n 40 | sed 's/^/#   /'
	return 0
}

# submit_ddp MIN TIMEOUT: the test user's min=MIN max=4 group training
# the example under elastic-run ($SAMPLES, $BATCH, $EPOCHS, a checkpoint
# every $EVERY steps, the samples logged in $W/samples, output to $out);
# its base job id.
submit_ddp() {
	ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
exec $RUN -- $PYTHON $EX/train_ddp.py --samples $SAMPLES --global-batch $BATCH --epochs $EPOCHS \
	--epochs-file $W/epochs --step-sleep 0.05 --checkpoint-every $EVERY --log-every 5 --sample-log-dir $W/samples --timeout $2" \
		submit_group "$TEST_USER" --elastic-min="$1" --elastic-max=4 --elastic-step=1 \
		--elastic-scale-delay=2 --elastic-grace=30 --elastic-fault-timeout=5 \
		--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out"
}

log() { grep -E -- "$1" "$out" 2>/dev/null; }
# relaunch_whys: why the launcher left the in-place path, one word each:
# fallback:WHY for a resize that fell back, relaunch-after:CAUSE for a
# relaunch and the event it followed.  A check's name carries them, so
# that a failure's summary line says why.
relaunch_whys() {
	log 'elastic-run: .* event=(event|relaunch|fallback) ' | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^(cause|why)=/) w = substr($i, index($i, "=") + 1) }
		/ event=event / { cause = w } / event=fallback / { printf "fallback:%s ", w }
		/ event=relaunch / { printf "relaunch-after:%s ", cause }'
}
# relaunch_errors: the ranks' error lines, when the launcher left the
# in-place path.
relaunch_errors() { diag "$(grep -E 'Error|Traceback|timed out|not in place' "$out" | head -n 12)"; }

# finish_soon: the story told, the training ends 3 epochs after the last
# one rank 0 logged, not after all $EPOCHS (a cap far above any story's
# length: a training that ended before its story ends the story's resizes
# with it): train_ddp.py --epochs-file $W/epochs, written whole and at
# least an epoch ahead (rank 0 logs every few steps).  EPOCHS follows.
finish_soon() {
	local e
	! log '^train_ddp: done: ' >/dev/null ||
		diag "the training ended before its story did: EPOCHS=$EPOCHS is too few at this machine's pace"
	e=$(sed -n 's/^step [0-9]* epoch \([0-9]*\) .*/\1/p' "$out" | tail -n1)
	e=$((${e:-0} + 3))
	[ "$e" -lt "$EPOCHS" ] || return 0
	echo "$e" >"$W/epochs.new" && mv "$W/epochs.new" "$W/epochs" && EPOCHS=$e
	diag "the training ends after epoch $e"
}

# trained_well WHAT: at the end, three tests: every (epoch, sample)
# processed once, none repeated beyond the window of one checkpoint
# interval (the steps a world redid after WHAT), none missing; the loss
# divided by more than 10.
trained_well() {
	local window=$(((EVERY + 1) * BATCH)) cs init final
	cs=$(runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window")
	ok "every sample of every epoch processed, none repeated beyond the $window of $1: $cs" \
		runuser -u "$TEST_USER" -- "$PYTHON" "$EX/check_samples.py" "$W/samples" "$SAMPLES" "$EPOCHS" --window "$window"
	like "... and nothing missing" "$cs" ' 0 missing, 0 unexpected'
	init=$(log '^initial loss ' | awk '{ print $3 }')
	final=$(log '^final loss ' | awk '{ print $3 }')
	ok "the loss decreased ($init -> $final)" awk -v a="$init" -v b="$final" 'BEGIN { exit !(b < a / 10) }'
}
# resumed_at W: the restart count of the newest start of a world of W ranks.
resumed_at() { log "^train_ddp: world $1 restart [0-9]+ " | tail -n1 | sed -E 's/^train_ddp: world [0-9]+ restart ([0-9]+) .*/\1/'; }
# trains_at W R: rank 0 of restart R (world W) logged a training step.
trains_at() { awk -v w="$1" -v r="$2" '
	/^train_ddp: world / { cur = ($3 == w && $5 == r) }
	cur && /^step / && $NF == w { found = 1 } END { exit !found }' "$out"; }
# phase W DESC [SECONDS]: one test: within SECONDS (90) the ranks resume
# at a world of W after the last phase's, and train a step; a figure of
# the time since t_phase.
last_r=-1
# resumed_after W R: a launch at a world of W after launch R.
resumed_after() { local r; r=$(resumed_at "$1"); [ -n "$r" ] && [ "$r" -gt "$2" ]; }
phase() {
	local w=$1 desc=$2 secs=${3:-90} r
	if ! wait_until "$secs" resumed_after "$w" "$last_r"; then
		_report 1 "$desc"
		diag "$(grep -E 'elastic-run:|^train_ddp' "$out" | tail -n 15)"
		return 1
	fi
	r=$(resumed_at "$w")
	wait_until 60 trains_at "$w" "$r"
	_report $? "$desc"
	last_r=$r
	figure "${PHASE_FIGURE:-pytorch}: $desc: $(secs_since "$t_phase") s"
}

# The in-place stories (t0330, t0331): the ranks' "up" and "resized" lines.
# world_at W: the in-place world number of the newest world of W ranks
# (rank 0's "up" or "resized" line); pids_in N: the rank processes of
# in-place world N, sorted.
world_at() { log "^train_ddp: .* event=(up|resized) rank=0 world=$1 " | tail -n1 | sed -nE 's/.* world_no=([0-9]+).*/\1/p'; }
pids_in() { log "^train_ddp: .* event=(up|resized) .* world_no=$1 " | sed -nE 's/.* pid=([0-9]+).*/\1/p' | sort -n | tr '\n' ' '; }
# steps_in N: the steps the ranks of world N started it at, one per line.
steps_in() { log "^train_ddp: .* event=(up|resized) .* world_no=$1 " | sed -nE 's/.* step=([0-9]+) .*/\1/p' | sort -u; }
subset() { [ -n "$1" ] || return 1; local p; for p in $1; do case " $2 " in *" $p "*) ;; *) return 1 ;; esac; done; }
last_world=1 # the newest world seen (inplace_phase)
# inplace_phase W DESC [SECONDS]: within SECONDS (90) a world of W ranks
# after the last one, resized in place, trains a step; a figure.
inplace_phase() {
	# shellcheck disable=SC2034 # n is the eval's
	local w=$1 desc=$2 secs=${3:-90} n
	if ! wait_until "$secs" eval "n=\$(world_at $w); [ -n \"\$n\" ] && [ \"\$n\" -gt $last_world ] &&
		log '^train_ddp: .* event=stepped rank=0 world=$w ' | grep -q ."; then
		_report 1 "$desc"
		diag "$(grep -E 'elastic-run:|^train_ddp' "$out" | tail -n 20)"
		return 1
	fi
	last_world=$(world_at "$w")
	_report 0 "$desc"
	figure "$PHASE_FIGURE: $desc: $(secs_since "$t_phase") s"
}

# sharded_as_ref [OPTIONS]: two tests: the sharded example ($ARGS, $EPOCHS,
# OPTIONS) trained without a resize at 2 ranks, outside Slurm; the job's
# final loss ($out) is that run's within 5%.
sharded_as_ref() {
	local r pids=() rc=0 ref final
	for r in 0 1; do
		# shellcheck disable=SC2086 # options
		runuser -u "$TEST_USER" -- env RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
			MASTER_PORT=$((MC_PORT_BASE + 97)) OMP_NUM_THREADS=1 USE_LIBUV=0 \
			PYTHONPATH="$ELASTIC_SRCDIR/contribs/python" "$PYTHON" "$EX/train_sharded.py" $ARGS \
			--epochs "$EPOCHS" --log-every 0 --checkpoint-dir "$W/ref" "$@" >"$W/ref.$r" 2>&1 &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	_report $rc "the uninterrupted run at 2 ranks ($EPOCHS epochs)"
	[ $rc = 0 ] || diag "$(tail -n 5 "$W/ref.0")"
	ref=$(sed -n 's/^final loss //p' "$W/ref.0")
	final=$(log '^final loss ' | awk '{ print $3 }')
	ok "the final loss ($final) is the uninterrupted run's ($ref) within 5%" \
		awk -v a="$final" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.05 * b) }'
}
