#!/bin/bash
# A job without elastic options is byte-for-byte what it would be without
# job_submit/elastic: the same submission with and without the plugin must
# give the same job record (ids and times aside).
. "$(dirname "$0")/lib.sh"
require_cluster

plan 4
conf="$MC_DIR/etc/slurm.conf"
restore_conf() {
	[ -f "$conf.orig" ] && mv -f "$conf.orig" "$conf" && scontrol reconfigure
	return 0
}
at_exit restore_conf

submit() {
	sbatch --parsable -H -N1 -J untouched --comment=mine -p ondemand \
		-t 5 --requeue --signal=USR1@20 -o /tmp/untouched-%j.out --wrap 'echo hi'
}
record() { # the job as scontrol shows it, ids and times normalized
	scontrol show job -o "$1" | tr ' ' '\n' |
		sed -E "s/=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+$/=TIME/; s/\\b$1\\b/JOBID/g" | sort
}

with=$(submit)
cp "$conf" "$conf.orig"
sed -i '/^JobSubmitPlugins=/d' "$conf"
scontrol reconfigure
jid=$(sbatch --parsable -H --elastic-min=1 --wrap true)
is "with the plugin removed, an elastic job is not tagged (the plugin is really off)" "$(admin_comment "$jid")" ""
scancel "$jid"
without=$(submit)
restore_conf
jid=$(sbatch --parsable -H --elastic-min=1 --wrap true)
like "with the plugin back, elastic jobs are tagged again" "$(admin_comment "$jid")" "^elastic:v1 "
scancel "$jid"

a=$(record "$with")
b=$(record "$without")
ok "both jobs exist" test -n "$a" -a -n "$b"
is "the non-elastic job is identical with and without the plugin" "$(diff <(echo "$a") <(echo "$b"))" ""

cleanup_jobs
done_testing
