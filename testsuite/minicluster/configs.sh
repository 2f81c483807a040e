# shellcheck shell=bash
# minicluster's configuration files: slurm.conf, slurmdbd.conf, cgroup.conf,
# plugstack.conf and elastic.conf, for this machine's Slurm packages.
# Sourced by minicluster after its settings; defines functions only.

debian_plugin_dir() {
	local so
	so=$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep '/auth_munge\.so$' | head -n 1) || true
	[[ -n $so ]] || so=/usr/lib/x86_64-linux-gnu/slurm-wlm/auth_munge.so
	[[ -f $so ]] || die "Slurm plugins not found (auth_munge.so); install slurm-wlm-basic-plugins"
	dirname "$so"
}

# What differs between the Slurm releases the cluster runs (22.05 to
# 24.11), in one place, as slurm_compat.h is for the C code.
# slurm_at_least MAJOR MINOR: this machine's slurmd is that release or later.
# The release is asked once per process.
SLURM_RELEASE=""
slurm_at_least() {
	if [[ -z $SLURM_RELEASE ]]; then
		SLURM_RELEASE=$(slurmd -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
		[[ -n $SLURM_RELEASE ]] || die "cannot tell the Slurm release from 'slurmd -V'"
	fi
	# shellcheck disable=SC2086 # MAJOR MINOR
	set -- "$1" "$2" $SLURM_RELEASE
	(($3 > $1 || ($3 == $1 && $4 >= $2)))
}
# The site's lines in this release's spelling: from 23.02 the documented
# spelling of preempt_send_user_signal is PreemptParameters=send_user_signal
# (22.05 refuses that key).
site_lines_for_release() {
	if slurm_at_least 23 2; then
		sed -E 's/^SlurmctldParameters=preempt_send_user_signal$/PreemptParameters=send_user_signal/'
	else
		cat
	fi
	# 25.11: what ExpeditedRequeue=yes needs (t0022), the option the
	# example names for that release.
	! slurm_at_least 25 11 || echo "SlurmctldParameters=enable_expedited_requeue"
	# 25.11: slurmctld's OpenMetrics, the example's commented line.
	! slurm_at_least 25 11 || echo "MetricsType=metrics/openmetrics"
}
# From 23.11 priority/multifactor is the default, and with no weights
# every job's priority is 1, which a unit's nice (UnitNice) cannot lower:
# a base every job has (its partition's factor) and age to keep the queue
# in submission order, as priority/basic does.
priority_lines() {
	slurm_at_least 23 11 || return 0
	printf '%s\n' PriorityType=priority/multifactor PriorityWeightPartition=100000 \
		PriorityWeightAge=1000 PriorityMaxAge=1-0
}
# cgroup.conf: from 24.05 slurmd starts a cgroup plugin whatever the
# ProctrackType and TaskPlugin, and fails without a cgroup file system;
# the cluster uses none (proctrack/linuxproc, task/none).
write_cgroup_conf() {
	if slurm_at_least 24 5; then
		echo "CgroupPlugin=disabled"
	fi >"$ETC/cgroup.conf"
	chmod 644 "$ETC/cgroup.conf"
}

write_configs() {
	local host plugindir site_lines ec nodes_hi ctl_addr node_lines n elasticd_addr
	local slurmd_timeout=30 dbd_host=localhost priority tier_base=1 tier_high=10
	# MC_TIERS=site: the tiers of etc/slurm.conf.example.
	[[ ${MC_TIERS:-test} != site ]] || tier_base=10 tier_high=100
	host=$(hostname -s)
	nodes_hi=$((PORT_SLURMD + MC_NODES - 1))
	# Where the controller and the nodes are: this machine's loopback under
	# its hostname, or hosts of their own.
	if ((MC_HOSTS)); then
		host=ctl
		ctl_addr=$(addr_of ctl)
		node_lines=$(for ((n = 1; n <= MC_NODES; n++)); do
			echo "NodeName=n$n NodeAddr=$(addr_of "n$n") NodeHostname=n$n CPUs=$MC_CPUS RealMemory=1000 State=UNKNOWN"
		done)
		elasticd_addr=$ctl_addr
		slurmd_timeout=10 dbd_host=ctl
		# 24.11 (measured) pings no node while a ping to a dead one waits
		# out MessageTimeout (10 s); with SlurmdTimeout=10 the live nodes
		# then look silent too, are set DOWN with the dead one and their
		# jobs requeued.  Three times the MessageTimeout, as Slurm's own
		# defaults (SlurmdTimeout=300) are far above it.
		! slurm_at_least 23 11 || slurmd_timeout=30
		# MC_SLURMD_TIMEOUT: a site's own (make bench-faults: Slurm's
		# default, 300).
		slurmd_timeout=${MC_SLURMD_TIMEOUT:-$slurmd_timeout}
	else
		ctl_addr=127.0.0.1
		node_lines="NodeName=n[1-$MC_NODES] NodeAddr=127.0.0.1 NodeHostname=$host Port=[$PORT_SLURMD-$nodes_hi] CPUs=$MC_CPUS RealMemory=1000 State=UNKNOWN"
		elasticd_addr=127.0.0.1
	fi
	plugindir=$(debian_plugin_dir)
	# The cluster-wide settings a site adds (etc/slurm.conf.example), as
	# they are there: the tests prove the documented configuration.
	site_lines=$(grep -E '^(JobSubmitPlugins|PreemptType|PreemptMode|SlurmctldParameters)=' \
		"$ELASTIC_SRCDIR/etc/slurm.conf.example") ||
		die "$ELASTIC_SRCDIR/etc/slurm.conf.example: missing or without the elastic settings"
	site_lines=$(site_lines_for_release <<<"$site_lines")
	priority=$(priority_lines)
	if [[ $MC_NO_PLUGINS != 1 ]]; then
		# Installed plugins (ELASTIC_INSTALLED=1) are in Slurm's own
		# directory: no other one.
		((ELASTIC_INSTALLED)) || plugindir=$(dirname "$JS_SO"):$(dirname "$SPANK_SO"):$plugindir
	else
		site_lines=$(grep -v '^JobSubmitPlugins=' <<<"$site_lines")
	fi

	# Always our own plugstack.conf (otherwise Slurm reads /etc/slurm's):
	# etc/plugstack.conf.example with the build tree's plugin (or the
	# installed one) and the cluster's elastic.conf.
	if [[ $MC_NO_PLUGINS == 1 ]]; then
		echo "# empty: MC_NO_PLUGINS=1" >"$ETC/plugstack.conf"
	else
		sed -E "s|^(required[[:space:]]+).*/spank_elastic\.so elastic_conf=.*|\1$SPANK_SO elastic_conf=$ETC/elastic.conf|" \
			"$ELASTIC_SRCDIR/etc/plugstack.conf.example" >"$ETC/plugstack.conf"
		grep -q "^required[[:space:]]*$SPANK_SO elastic_conf=$ETC/elastic.conf\$" "$ETC/plugstack.conf" ||
			die "$ELASTIC_SRCDIR/etc/plugstack.conf.example: no 'required .../spank_elastic.so elastic_conf=...' line"
	fi

	# job_submit/elastic reads elastic.conf beside slurm.conf.  An explicit
	# MC_ELASTIC_CONF wins over the repo's default policy.
	if [[ -n ${MC_ELASTIC_CONF:-} ]]; then
		[[ -f $MC_ELASTIC_CONF ]] || die "MC_ELASTIC_CONF=$MC_ELASTIC_CONF: no such file"
		ec=$MC_ELASTIC_CONF
	elif [[ -f $ELASTIC_SRCDIR/etc/elastic.conf ]]; then
		ec=$ELASTIC_SRCDIR/etc/elastic.conf
	fi
	if [[ -n ${ec:-} ]]; then
		grep -viE '^[[:space:]]*(ElasticdListen|ElasticdServer|ElasticdMungeSocket|ElasticdUnitProgram)[[:space:]]*=' "$ec" >"$ETC/elastic.conf"
	else
		echo "# elastic.conf: built-in defaults (written by $PROG)" >"$ETC/elastic.conf"
	fi
	# Where this cluster's elasticd listens (when one is started), where
	# launchers and elasticctl reach it (an address: it resolves on every
	# host and on this machine), and its munge socket.
	# The tests' jobs keep checkpoints in directories of MC_DIR, the
	# cluster's shared file system, made per test and per job: this site
	# vouches for them (t0252 shows a pattern without %u refused).
	grep -qiE '^[[:space:]]*SharedCheckpointDirs[[:space:]]*=' "$ETC/elastic.conf" ||
		echo "SharedCheckpointDirs=yes" >>"$ETC/elastic.conf"
	{
		echo "ElasticdListen=$elasticd_addr:$((MC_PORT_BASE + 50))"
		echo "ElasticdServer=$elasticd_addr:$((MC_PORT_BASE + 50))"
		echo "ElasticdMungeSocket=$MUNGE_SOCK"
		# What units run: this build's elastic-run (installed: its
		# own default).
		((ELASTIC_INSTALLED)) || echo "ElasticdUnitProgram=$ELASTIC_BUILDDIR/src/elastic-run/elastic-run"
	} >>"$ETC/elastic.conf"
	chmod 644 "$ETC/elastic.conf" "$ETC/plugstack.conf"

	# The nodes' prolog: a test makes a job's launch fail (Slurm then
	# drains the node, requeues the job and holds it) with a file
	# prolog-fail/JOBID.K per failure; each launch takes one.
	mkdir -p "$MC_DIR/prolog-fail"
	chmod 755 "$MC_DIR/prolog-fail"
	cat >"$ETC/prolog" <<EOF
#!/bin/sh
for f in "$MC_DIR/prolog-fail/\$SLURM_JOB_ID".*; do
	rm "\$f" 2>/dev/null && exit 1
done
exit 0
EOF
	chmod 755 "$ETC/prolog"

	cat >"$CONF" <<EOF
# Written by $PROG up; rewritten on every up.
ClusterName=mini
SlurmctldHost=$host($ctl_addr)
SlurmctldPort=$PORT_CTLD
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# Honoured by slurmctld, slurmd, slurmstepd and all clients.  A requeued
# job waits cred_expire + 1 s before it may start again (MC_CRED_EXPIRE).
AuthInfo=socket=$MUNGE_SOCK,cred_expire=$MC_CRED_EXPIRE
StateSaveLocation=$MC_DIR/state
SlurmctldPidFile=$RUN/daemon/slurmctld.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdSpoolDir=$MC_DIR/spool/%n
SlurmdPidFile=$RUN/daemon/slurmd-%n.pid
SlurmdLogFile=$LOG/slurmd-%n.log
PluginDir=$plugindir
PlugStackConfig=$ETC/plugstack.conf
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Accept the configured CPUs/RealMemory whatever the machine has.
SlurmdParameters=config_overrides
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$ctl_addr
AccountingStoragePort=$PORT_DBD
# Connections to slurmdbd (slurmctld, sacct, sacctmgr) ignore AuthInfo and
# take their munge socket from here.
AccountingStoragePass=$MUNGE_SOCK
# Fast tests: schedule often, kill quickly, keep finished jobs visible.
SchedulerParameters=sched_interval=2,bf_interval=1
$priority
MessageTimeout=10
# With hosts a crashed node is noticed within seconds, as a site would.
SlurmdTimeout=$slurmd_timeout
InactiveLimit=0
KillWait=5
Prolog=$ETC/prolog
MinJobAge=300
MaxJobCount=$MC_MAX_JOBS
# Set by up: continues after the last job id in slurmdbd.
FirstJobId=1
# From etc/slurm.conf.example:
$site_lines
$node_lines
PartitionName=base Nodes=$MC_PART_BASE Default=YES PriorityTier=$tier_base PreemptMode=OFF OverSubscribe=$MC_OVERSUBSCRIBE
PartitionName=preempt Nodes=$MC_PART_PREEMPT PriorityTier=1 PreemptMode=REQUEUE GraceTime=10 OverSubscribe=$MC_OVERSUBSCRIBE
PartitionName=spare Nodes=$MC_PART_PREEMPT PriorityTier=0 PreemptMode=REQUEUE GraceTime=10 OverSubscribe=$MC_OVERSUBSCRIBE
PartitionName=ondemand Nodes=$MC_PART_ONDEMAND PriorityTier=$tier_base PreemptMode=OFF OverSubscribe=$MC_OVERSUBSCRIBE
PartitionName=high Nodes=$MC_PART_HIGH PriorityTier=$tier_high PreemptMode=OFF OverSubscribe=$MC_OVERSUBSCRIBE
EOF
	chmod 644 "$CONF"
	write_cgroup_conf

	# slurmdbd reads slurmdbd.conf beside SLURM_CONF and insists on mode 600.
	(
		umask 077
		cat >"$ETC/slurmdbd.conf" <<EOF
# Written by $PROG up; rewritten on every up.
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
DbdHost=$dbd_host
DbdPort=$PORT_DBD
SlurmUser=root
PidFile=$RUN/daemon/slurmdbd.pid
LogFile=$LOG/slurmdbd.log
StorageType=accounting_storage/mysql
# 127.0.0.1, not localhost: with localhost the client uses the default socket.
StorageHost=127.0.0.1
StoragePort=$PORT_MYSQL
StorageUser=slurm
StoragePass=$(cat "$ETC/dbpass")
StorageLoc=slurm_acct_db
EOF
	)
	chmod 600 "$ETC/slurmdbd.conf"
}
