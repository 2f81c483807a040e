#!/bin/bash
# Which elastic.conf slurmstepd reads: the one plugstack.conf's
# elastic_conf= names (from Slurm 23.02 on, slurmstepd has no slurm.conf
# path to look beside).  A second elastic.conf with another
# DefaultCheckpointDir: named there, the ranks get its directory; without
# the argument, the one beside slurm.conf again.  A bad argument fails
# the command at once, naming the argument.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 6

stack=$MC_DIR/etc/plugstack.conf
alt=$MC_DIR/etc/elastic-alt.conf
cp "$stack" "$stack.orig"
at_exit "mv -f '$stack.orig' '$stack'; rm -f '$alt'"
sed -E 's|^DefaultCheckpointDir=.*|DefaultCheckpointDir=/var/tmp/alt-ckpt/%j|' "$MC_DIR/etc/elastic.conf" >"$alt"
grep -q '^DefaultCheckpointDir=/var/tmp/alt-ckpt/%j$' "$alt" || bail "no DefaultCheckpointDir in $MC_DIR/etc/elastic.conf to change"
chmod 644 "$alt"

# use_stack ARGS: the plugin's line in plugstack.conf, with ARGS.
use_stack() {
	sed -E "s|^(required[[:space:]]+[^[:space:]]*/spank_elastic\\.so).*|\\1${1:+ $1}|" "$stack.orig" >"$stack"
}
# The checkpoint dir a rank of a new elastic step gets.
ckdir() { timeout 60 srun -N1 --elastic-min=1 --elastic-max=1 printenv ELASTIC_CHECKPOINT_DIR 2>&1; }

like "the cluster's plugstack.conf names the cluster's elastic.conf" \
	"$(grep spank_elastic "$stack")" "spank_elastic\\.so elastic_conf=$MC_DIR/etc/elastic\\.conf\$"
like "... and the ranks get its DefaultCheckpointDir" "$(ckdir)" "^$HOME/elastic-checkpoints/[0-9]+\$"

use_stack "elastic_conf=$alt"
like "elastic_conf= naming another file: the ranks get that file's" "$(ckdir)" '^/var/tmp/alt-ckpt/[0-9]+$'

use_stack ""
like "no argument: the file beside slurm.conf again" "$(ckdir)" "^$HOME/elastic-checkpoints/[0-9]+\$"

use_stack "conf=$alt"
out=$(ckdir)
like "an unknown argument fails the command" "$out" 'error'
like "... saying which argument and what is allowed" "$out" \
	"elastic: plugstack.conf: spank_elastic.so: unknown argument 'conf=$alt' \\(allowed: elastic_conf=PATH\\)"

done_testing
