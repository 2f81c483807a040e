#!/bin/bash
# The site's policy in elastic.conf: each cap rejects with its message, and
# a bad file disables elastic jobs with a clear reason without harming
# slurmctld or other jobs.  job_submit/elastic re-reads the file when it
# changes.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 19
at_exit restore_policy

accepted() { # accepted DESC SBATCH-ARGS...
	local desc=$1 out
	shift
	out=$(sbatch --parsable -H "$@" --wrap true 2>&1)
	like "$desc" "$out" '^[0-9]+$'
	scancel "$out" 2>/dev/null
}
me=$(id -un)

set_policy "MaxNodes=8" "UserMaxNodes=$me:2,nobody:6" "AccountMaxNodes=physics:3"
rejected "UserMaxNodes caps this user" "^sbatch: error: elastic: --elastic-max=3 is above this site.s limit of 2 nodes \(UserMaxNodes in elastic.conf\)$" --elastic-max=3
accepted "... at its value" --elastic-max=2
set_policy "MaxNodes=8" "UserMaxNodes=nobody:6" "AccountMaxNodes=physics:3"
rejected "AccountMaxNodes caps the account" "elastic: --elastic-max=4 is above this site.s limit of 3 nodes \(AccountMaxNodes in elastic.conf\)$" -A physics --elastic-max=4
accepted "... other accounts get MaxNodes" -A chemistry --elastic-max=8
set_policy "MaxNodes=4" "UserMaxNodes=$me:6"
accepted "the most specific cap wins (user above MaxNodes)" --elastic-max=6

set_policy "OnDemand=no"
rejected "on-demand fallback off" "^sbatch: error: elastic: --elastic-ondemand=below-min: this site does not allow on-demand fallback \(OnDemand in elastic.conf\)$" --elastic-min=1 --elastic-ondemand=below-min
accepted "... 'never' is always fine" --elastic-min=1 --elastic-ondemand=never
set_policy "OnDemand=yes" "OnDemandUsers=nobody" "OnDemandAccounts=physics"
rejected "on-demand for other users only" "elastic: --elastic-ondemand=always: not allowed for user $me account \(default\) \(OnDemandUsers, OnDemandAccounts in elastic.conf\)$" --elastic-min=1 --elastic-ondemand=always
accepted "... but for an allowed account" -A physics --elastic-min=1 --elastic-ondemand=always

set_policy "BasePartitions=ondemand"
jid=$(sbatch --parsable -H --elastic-min=1 --wrap true)
is "BasePartitions: the first is the default partition" "$(job_field "$jid" Partition)" ondemand
scancel "$jid"
# A list as long as elastic.conf takes (32 names on a line of 1024 bytes)
# is longer joined by ", ": the refusal's list of allowed partitions,
# written inside slurmctld, is cut short.
long=$(for i in $(seq 10 41); do printf 'p%s%.*d,' "$i" $((i < 28 ? 28 : 27)) 0; done)
set_policy "BasePartitions=${long%,}"
is "... the line is 1024 bytes" "$(head -n1 "$POLICY" | tr -d '\n' | wc -c)" 1024
rejected "a partition not in a long BasePartitions: the list is cut short" \
	"partition base cannot hold elastic jobs \(allowed: p100+, p110+, .*, \.\.\.; BasePartitions in elastic.conf\)$" \
	-p base --elastic-min=1
ok "... slurmctld keeps running" bash -c "scontrol ping | grep -q UP"

set_policy "MaxNodes=8" "Colour=blue"
rejected "a bad elastic.conf disables elastic jobs, saying why" "^sbatch: error: elastic: elastic jobs are disabled: $POLICY:2: unknown key 'Colour' \(see elastic.conf\(5\) for the keys\) \(tell your admin\)$" --elastic-min=1
ok "... slurmctld keeps running" bash -c "scontrol ping | grep -q UP"
accepted "... and other jobs are accepted" -N1
ok "... and the reason is in slurmctld's log" grep -q "error: job_submit/elastic: $POLICY:2: unknown key 'Colour'" "$MC_DIR/log/slurmctld.log"
set_policy "MaxNodes=8" "MaxGrace=notanumber"
rejected "a bad value names the key and the allowed range" "elastic jobs are disabled: $POLICY:2: MaxGrace=notanumber: not a whole number \(allowed: 0 to 86400\)" --elastic-min=1
restore_policy
accepted "fixing the file brings elastic jobs back, no restart" --elastic-min=1

cleanup_jobs
done_testing
