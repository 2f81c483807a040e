#!/bin/bash
# --elastic-min/--elastic-max end to end: sbatch, salloc and srun parse them,
# job_submit/elastic validates them in slurmctld and tags good jobs.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 27

jobs_now() { squeue -h -o %i | sort | tr '\n' ' '; }
# What the example elastic.conf gives every job that says nothing else.
DEFAULTS="step=1 grace=30 delay=10 fault=20 ondemand=never signal=URG keep=3 hb=5 hang=0 slow=report ckpt=%25h/elastic-checkpoints/%25j"

# --- accepted and tagged --------------------------------------------------
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=4 --wrap 'sleep 30')
like "an elastic job is accepted" "$jid" '^[0-9]+$'
is "... and tagged for elasticd in AdminComment" "$(admin_comment "$jid")" \
	"elastic:v1 min=2 max=4 $DEFAULTS"
scancel "$jid"

script=$(mktemp)
printf '#!/bin/sh\n#SBATCH --elastic-min=1\n#SBATCH --elastic-max=3\ntrue\n' >"$script"
jid=$(sbatch --parsable "$script")
is "#SBATCH lines work" "$(admin_comment "$jid")" "elastic:v1 min=1 max=3 $DEFAULTS"
rm -f "$script"

jid=$(sbatch --parsable --elastic-min=2 --wrap true)
like "an omitted --elastic-max defaults to the site's MaxNodes (8)" "$(admin_comment "$jid")" "^elastic:v1 min=2 max=8 "
jid=$(sbatch --parsable --elastic-max=3 --wrap true)
like "an omitted --elastic-min defaults to DefaultMinNodes (1)" "$(admin_comment "$jid")" "^elastic:v1 min=1 max=3 "

out=$(timeout 60 srun --elastic-min=1 --elastic-max=2 bash -c 'scontrol show job $SLURM_JOB_ID' 2>&1)
like "srun takes the options and its job is tagged" "$out" "AdminComment=elastic:v1 min=1 max=2 "

out=$(timeout 60 salloc --no-shell --elastic-min=1 --elastic-max=2 2>&1)
jid=$(printf '%s\n' "$out" | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
like "salloc takes the options and its job is tagged" "$(admin_comment "$jid")" "^elastic:v1 min=1 max=2 "
[ -n "$jid" ] && scancel "$jid"

# --- untouched ------------------------------------------------------------
jid=$(sbatch --parsable --comment=mine -N1 --wrap true)
show=$(scontrol show job "$jid")
is "a non-elastic job has no AdminComment" "$(admin_comment "$jid")" ""
like "... its Comment is the user's" "$show" "Comment=mine([[:space:]]|\$)"
ok "... and job_submit/elastic did not log it" bash -c "! grep -q 'job_submit/elastic: uid .*Comment=mine' '$MC_DIR/log/slurmctld.log'"

# --- rejected in the client (sbatch), one line naming the options ---------
reject() { # reject DESC EXPECTED-REGEX SBATCH-ARGS...
	local desc=$1 want=$2 before out rc
	shift 2
	before=$(jobs_now)
	out=$(sbatch "$@" --wrap true 2>&1)
	rc=$?
	ok "$desc: sbatch fails" test "$rc" -ne 0
	like "$desc: message" "$(printf '%s\n' "$out" | grep -E -- "$want" | head -n1)" "$want"
	[ "$(jobs_now)" = "$before" ] || diag "a job was created: $out"
}

reject "min > max" '^sbatch: error: elastic: --elastic-min=5 is greater than --elastic-max=2' \
	--elastic-min=5 --elastic-max=2
reject "not a number" '^sbatch: error: elastic: --elastic-min=abc: not a whole number \(allowed: a node count from 1 to 65535\)$' \
	--elastic-min=abc
reject "zero" '--elastic-max=0: out of range \(allowed: a node count from 1 to 65535\)$' \
	--elastic-max=0
reject "overflow" '--elastic-max=99999999999999999999: out of range' \
	--elastic-max=99999999999999999999
reject "empty" '--elastic-min=: empty value' --elastic-min=

# --- rejected by the site's policy in slurmctld ---------------------------
reject "above MaxNodes" '^sbatch: error: elastic: --elastic-max=9 is above this site.s limit of 8 nodes \(MaxNodes in elastic.conf\)$' \
	--elastic-max=9

out=$(srun --elastic-min=3 --elastic-max=2 true 2>&1)
like "srun rejects min > max too" "$out" "elastic: --elastic-min=3 is greater than --elastic-max=2"

# A client without the SPANK plugin (or a hand-made RPC) cannot get past
# slurmctld: submit_raw sends the forwarded options directly.
raw="$ELASTIC_BUILDDIR/testsuite/integration/submit_raw"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_min=5 _SLURM_SPANK_OPTION_elastic_elastic_max=2 2>&1)
like "slurmctld itself rejects min > max" "$out" "elastic: --elastic-min=5 is greater than --elastic-max=2"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_min=-1 2>&1)
like "slurmctld itself rejects a bad value" "$out" "elastic: --elastic-min=-1: not a whole number"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_size=2 2>&1)
like "slurmctld rejects an unknown elastic option" "$out" "elastic: unknown elastic option 'elastic_size'"
jid=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_min=2 2>&1)
like "slurmctld tags a good raw submission" "$(admin_comment "$jid")" "^elastic:v1 min=2 max=8 "

cleanup_jobs
done_testing
