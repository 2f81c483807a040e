#!/bin/bash
# Which elastic.conf slurmstepd reads: the one plugstack.conf's
# elastic_conf= names (from Slurm 23.02 on, slurmstepd has no slurm.conf
# path to look beside).  A second elastic.conf with another
# DefaultCheckpointDir: named there, the ranks get its directory; without
# the argument, the one beside slurm.conf again.  A bad argument fails
# the command at once, naming the argument.  An error only slurmstepd
# meets (no elastic.conf on the node): the elastic step fails with its
# line and the node stays in service, other steps run; with
# on_error=drain, Slurm drains the node, as for any required plugin.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 13

stack=$MC_DIR/etc/plugstack.conf
alt=$MC_DIR/etc/elastic-alt.conf
cp "$stack" "$stack.orig"
at_exit "mv -f '$stack.orig' '$stack'; rm -f '$alt'; scontrol update NodeName=n1 State=RESUME 2>/dev/null; true"
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
	"elastic: plugstack.conf: spank_elastic.so: unknown argument 'conf=$alt' \\(allowed: elastic_conf=PATH, on_error=fail-job\\|drain\\)"

# Only slurmstepd reads elastic.conf there (the client and slurmctld
# read theirs): an error of the nodes alone.
bad=$MC_DIR/etc/elastic-bad.conf
printf 'MaxNodes=many\n' >"$bad" && chmod 644 "$bad"
at_exit "rm -f '$bad'"
use_stack "elastic_conf=$bad"
out=$(timeout 60 srun -N1 -w n1 --elastic-min=1 --elastic-max=1 true 2>&1)
like "a bad elastic.conf on the node: the elastic step fails, saying why" "$out" \
	"elastic: this elastic step cannot run here: .*MaxNodes"
like "... and the node stays in service" "$(sinfo -h -N -n n1 -o %t | head -n1)" '^(idle|mix|alloc|plnd)$'
ok "... where a step of another job runs" timeout 60 srun -N1 -w n1 true
# A batch job: its script fails as the step did (Slurm drains the node
# of a batch step whose plugins failed).
j=$(sbatch --parsable -N1 -w n1 --elastic-min=1 --elastic-max=1 -o /dev/null --wrap true)
ok "... an elastic batch job there ends FAILED" wait_until 30 eval '[ "$(job_field "$j" JobState)" = FAILED ]'
# plnd (PLANNED, from 23.02): backfill holds it for a pending job, in service.
like "... and the node stays in service" "$(sinfo -h -N -n n1 -o %t | head -n1)" '^(idle|mix|alloc|plnd)$'
use_stack "elastic_conf=$bad on_error=drain"
j=$(sbatch --parsable -N1 -w n1 --elastic-min=1 --elastic-max=1 -o /dev/null --wrap true)
ok "on_error=drain: Slurm drains the node instead" wait_until 30 bash -c "sinfo -h -N -n n1 -o %t | grep -q '^drain'"
scancel "$j" 2>/dev/null
scontrol update NodeName=n1 State=RESUME
use_stack "on_error=reboot"
like "on_error= takes fail-job or drain" "$(ckdir)" \
	"spank_elastic.so: on_error=reboot: not fail-job or drain"
done_testing
