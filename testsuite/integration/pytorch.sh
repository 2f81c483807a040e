# For the tests that run the PyTorch example under elastic-run and
# elasticd (t0300, t0310; make chaos): read its output ($out) and wait for the ranks
# to train at a given world size.  Source it after elasticd.sh; set out
# (the job's output file) and PHASE_FIGURE (the figures' prefix).
# shellcheck shell=bash

# pytorch_setup: RUN (elastic-run), EX (the example's directory), and W, a
# directory the test user's job writes samples/ and ckpt/ in; after
# ed_setup.
pytorch_setup() {
	RUN="$ELASTIC_BUILDDIR/src/elastic-run/elastic-run"
	EX="$ELASTIC_SRCDIR/contribs/examples/pytorch"
	W=$ED_TMP/w
	mkdir -p "$W/samples" "$W/ckpt" && chmod -R 777 "$W"
	"$PYTHON" -c 'import torch' 2>/dev/null || bail "python3-torch is not installed"
}

log() { grep -E -- "$1" "$out" 2>/dev/null; }
log_has() { grep -qE -- "$1" "$out" 2>/dev/null; }
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
phase() {
	local w=$1 desc=$2 secs=${3:-90} r
	if ! wait_until "$secs" eval "[ -n \"\$(resumed_at $w)\" ] && [ \"\$(resumed_at $w)\" -gt $last_r ]"; then
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
