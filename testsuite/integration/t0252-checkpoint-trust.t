#!/bin/bash
# A job's checkpoints are its owner's alone.  On a site that does not vouch
# for shared directories (no SharedCheckpointDirs), a checkpoint dir with
# no per-user part is refused at sbatch.  Where shared directories are
# allowed, elastic-bob makes elastic-alice's next job's directory before
# her job starts: filled with a "newer" checkpoint of his, or as a link to
# her older job's checkpoints.  Her launcher uses neither: it fails with
# one line naming the directory's owner, launches no rank with his file,
# and deletes none of her older job's checkpoints.
. "$(dirname "$0")/lib.sh"
require_cluster
require_users

plan 10

ALICE=$TEST_USER
BOB=$OTHER_USER
SHARED=$MC_DIR/shared-ckpt.$$
mkdir -p "$SHARED" && chmod 1777 "$SHARED"
cleanup() {
	local rc=$?
	restore_policy
	cleanup_jobs
	[ "${KEEP_TMP:-}" ] || rm -rf "$SHARED"
	return $rc
}

# --- a site without SharedCheckpointDirs --------------------------------------
mapfile -t lines < <(grep -viE '^[[:space:]]*SharedCheckpointDirs[[:space:]]*=' "$POLICY")
set_policy "${lines[@]}"
at_exit cleanup
out=$(runuser -u "$ALICE" -- sbatch --parsable --elastic-min=1 "--elastic-checkpoint-dir=$SHARED/%j" --wrap true 2>&1)
rc=$?
diag "sbatch: $out"
ok "sbatch refuses a shared checkpoint dir without %u or %h" test "$rc" -ne 0
like "... in one line naming the option and what is allowed" "$out" \
	"^sbatch: error: elastic: --elastic-checkpoint-dir=$SHARED/%j: no per-user part, so another user could make the job's directory first \\(allowed: a path with %u, %h or your user name; SharedCheckpointDirs=yes in elastic.conf allows any\\)"
jid=$(runuser -u "$ALICE" -- sbatch --parsable -H --elastic-min=1 "--elastic-checkpoint-dir=$SHARED/%u/%j" --wrap true 2>&1)
like "... and takes one with %u" "$jid" '^[0-9]+$'
scancel "$jid" 2>/dev/null
restore_policy

# --- bob makes her job's directory first ---------------------------------------
# Her older job left checkpoints 1..3 in its own directory.
old=$SHARED/old
runuser -u "$ALICE" -- mkdir -m 700 "$old"
for s in 1 2 3; do runuser -u "$ALICE" -- sh -c "echo mine-$s >'$old/ckpt-$s.pt'"; done
# A rank prints what it would resume from.
rank="/bin/sh -c 'echo rank-prev=\$ELASTIC_PREV_CHECKPOINT'"
submit_held() { # submit_held OUT: her job, held, with keep=1
	runuser -u "$ALICE" -- sbatch --parsable -H --elastic-min=1 --elastic-max=1 --elastic-keep=1 \
		"--elastic-checkpoint-dir=$SHARED/%j" -D "$SHARED" -o "$1" -t 5 --wrap "exec $RUN -- $rank"
}
j1=$(submit_held "$SHARED/run1.out")
like "her job is submitted (held)" "$j1" '^[0-9]+$'
runuser -u "$BOB" -- mkdir -m 755 "$SHARED/$j1"
runuser -u "$BOB" -- sh -c "echo evil >'$SHARED/$j1/ckpt-99999999.pt'"
scontrol release "$j1"
wait_until 90 job_gone_or_done "$j1"
is "with his directory in its place, her launcher fails (exit 1)" "$(job_field "$j1" ExitCode)" "1:0"
like "... saying whose the directory is" "$(grep '^elastic-run:' "$SHARED/run1.out" | tr '\n' ' ')" \
	"elastic-run: $SHARED/$j1: owned by uid $(id -u "$BOB"), not by uid $(id -u "$ALICE"): not used"
ok "... and no rank ran with his file" test -z "$(grep 'rank-prev=' "$SHARED/run1.out")"

j2=$(submit_held "$SHARED/run2.out")
runuser -u "$BOB" -- ln -s "$old" "$SHARED/$j2"
scontrol release "$j2"
wait_until 90 job_gone_or_done "$j2"
is "with his link to her older job's directory there, her launcher fails (exit 1)" "$(job_field "$j2" ExitCode)" "1:0"
like "... not following it" "$(grep '^elastic-run:' "$SHARED/run2.out" | tr '\n' ' ')" \
	"elastic-run: $SHARED/$j2: a symbolic link owned by uid $(id -u "$BOB"), not followed"
is "... and her older job's checkpoints are all there (keep=1 deleted none)" "$(cd "$old" && ls | tr '\n' ' ')" "ckpt-1.pt ckpt-2.pt ckpt-3.pt "
done_testing
