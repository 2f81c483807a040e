#!/bin/bash
# elasticctl check, the admin's preflight (elasticctl(1), CHECK): the
# embedded cluster as the tests run it, with elasticd up, has no finding;
# each setting broken one at a time (slurm.conf, the partitions, Slurm's
# preemption signal, JobSubmitPlugins, elastic.conf, plugstack.conf,
# elasticd, munge, the clock) is found, one line with its fix and exit
# status 1, on this host and on a compute node; put back, none again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup
ed_start || bail "elasticd did not start"

plan 25

make_tmp T
CTL=$ELASTICCTL
stack=$MC_DIR/etc/plugstack.conf
conf=$MC_DIR/etc/slurm.conf
P='elasticctl check: '
ALL='slurmctld, elastic.conf, partitions, preemption, grace, signal, job_submit, plugstack, elasticd, clock, munge'

# What the tests change, put back at the end (the last registered first).
cp "$stack" "$stack.orig"
at_exit "mv -f '$stack.orig' '$stack'"
ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }
reconfigure() {
	scontrol reconfigure
	wait_until 60 ctld_up || diag "slurmctld not answering after reconfigure"
}
restore_conf() {
	[ -f "$conf.orig" ] && mv -f "$conf.orig" "$conf" && reconfigure
	return 0
}
at_exit restore_conf
# A partition's field, as slurmctld has it.
part_field() { scontrol show partition -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
grace=$(part_field preempt GraceTime)
tier=$(part_field high PriorityTier)
mode=$(part_field preempt PreemptMode)
{ [ -n "$grace" ] && [ -n "$tier" ] && [ -n "$mode" ]; } || bail "cannot read the partitions preempt and high"
at_exit "scontrol update PartitionName=preempt PreemptMode=$mode GraceTime=$grace; scontrol update PartitionName=high PriorityTier=$tier"

# elastic.conf for the check: where the cluster's elasticd is and its
# munge socket (the cluster's own lines), the README's partitions, and a
# grace the preemptible partition gives; then the test's lines.
mapfile -t site < <(grep -E '^[[:space:]]*(Elasticd|SharedCheckpointDirs)' "$POLICY")
good_policy() {
	set_policy "${site[@]}" BasePartitions=base PreemptiblePartitions=preempt \
		OnDemandPartitions=ondemand OnDemand=yes "MaxGrace=$grace" "DefaultGrace=$grace" "$@"
}

# run_check [OPTION...]: elasticctl check's standard output in OUT, its
# exit status in RC (its standard error in $T/err).
run_check() {
	OUT=$(timeout 300 "$CTL" "$@" check 2>"$T/err")
	RC=$?
}
# finds DESC ERE [OPTION...]: the check exits 1 and one of its lines is
# "elasticctl check: ERE...".
finds() {
	local desc=$1 want=$2
	shift 2
	run_check "$@"
	if [ "$RC" = 1 ] && printf '%s\n' "$OUT" | grep -Eq -- "^$P$want"; then
		_report 0 "$desc"
	else
		_report 1 "$desc"
		diag "exit $RC, output:" "$OUT" "stderr: $(cat "$T/err")" "want a line: $P$want"
	fi
}
# passes DESC [OPTION...]: no finding, every check run, exit 0.
passes() {
	local desc=$1
	shift
	run_check "$@"
	is "$desc" "$RC $(tail -n1 <<<"$OUT")" "0 ${P}no findings (checked: $ALL)"
	[ "$RC" = 0 ] || diag "output:" "$OUT" "stderr: $(cat "$T/err")"
}

good_policy
passes "the embedded cluster with elasticd up: no finding, every check run"
run_check --json
is "... --json: an empty list of findings, every check run" \
	"$("$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print(len(d["findings"]), ",".join(d["checked"]), d["not_checked"])' <<<"$OUT")" \
	"0 ${ALL//, /,} []"

# elastic.conf
good_policy PreemptiblePartitions=spot
finds "a partition elastic.conf names and slurm.conf has not" \
	'PreemptiblePartitions=spot: no such partition in slurm.conf \(partitions: [^)]*preempt[^)]*\); name a partition of slurm.conf'
good_policy PreemptiblePartitions=
finds "no PreemptiblePartitions: groups never grow" \
	'PreemptiblePartitions: empty in .*never grows; set PreemptiblePartitions'
good_policy Colour=blue
finds "an invalid elastic.conf" \
	"$POLICY: $POLICY:[0-9]+: unknown key 'Colour'.*job_submit/elastic refuses every elastic job"
good_policy MaxGrace=600 "DefaultGrace=$grace"
finds "a GraceTime shorter than MaxGrace" \
	"PartitionName=preempt: GraceTime=$grace is shorter than MaxGrace=600: .*; set GraceTime=600 on PartitionName=preempt in slurm.conf, or lower MaxGrace"
good_policy

# The partitions, changed in slurmctld as an admin would.
scontrol update PartitionName=preempt PreemptMode=OFF
finds "a preemptible partition with PreemptMode=OFF" \
	'PartitionName=preempt: PreemptMode=OFF: Slurm never preempts its jobs.*; set PreemptMode=REQUEUE on PartitionName=preempt'
scontrol update PartitionName=preempt PreemptMode="$mode"
scontrol update PartitionName=high PriorityTier="$(part_field preempt PriorityTier)"
finds "no partition above the preemptible one's PriorityTier" \
	'PartitionName=preempt: no partition with a PriorityTier above its [0-9]+ shares its nodes'
scontrol update PartitionName=high PriorityTier="$tier"
scontrol update PartitionName=preempt GraceTime=0
finds "a preemptible partition without GraceTime" \
	'PartitionName=preempt: no GraceTime: Slurm ends a preempted unit at once'
scontrol update PartitionName=preempt GraceTime="$grace"
passes "... each put back: no finding"

# slurm.conf, read again by slurmctld.
cp "$conf" "$conf.orig"
sed -i '/send_user_signal/d' "$conf"
reconfigure
finds "Slurm not sending the elastic signal at a preemption" \
	'(SlurmctldParameters|PreemptParameters)=[^:]*: no (preempt_)?send_user_signal: .*; add (preempt_)?send_user_signal to (SlurmctldParameters|PreemptParameters)'
restore_conf
cp "$conf" "$conf.orig"
sed -i '/^JobSubmitPlugins=/d' "$conf"
reconfigure
finds "JobSubmitPlugins without elastic" \
	'JobSubmitPlugins=[^:]*: no elastic: .*; add elastic to JobSubmitPlugins'
restore_conf

# plugstack.conf, read here as SPANK reads it.
line=$(grep -E '^[[:space:]]*required[[:space:]].*spank_elastic\.so' "$stack.orig") || bail "no spank_elastic.so line in $stack"
grep -v spank_elastic "$stack.orig" >"$stack"
finds "plugstack.conf without the plugin" \
	"PlugStackConfig=$stack: no line loads spank_elastic\\.so: .*; add to it the line: required spank_elastic\\.so elastic_conf="
finds "... and on a compute node, through srun" \
	"on n1: PlugStackConfig=$stack: no line loads spank_elastic\\.so" --node=n1
sed -E 's|^([[:space:]]*required[[:space:]]+)[^[:space:]]+|\1/nonexistent/spank_elastic.so|' "$stack.orig" >"$stack"
finds "plugstack.conf naming a plugin that is not there" \
	"$stack:[0-9]+: required /nonexistent/spank_elastic\\.so: no such plugin: every sbatch, salloc and srun fails here"
cp "$POLICY" "$T/other.conf"
sed -E "s|elastic_conf=[^[:space:]]*|elastic_conf=$T/other.conf|" "$stack.orig" >"$stack"
finds "the plugin reading another elastic.conf than slurmctld" \
	"$stack:[0-9]+: elastic_conf=$T/other\\.conf: slurmstepd reads another file than slurmctld and elasticd \\($POLICY\\); set elastic_conf=$POLICY"
mkdir -p "$T/stack.d"
printf '%s\n' "$line" >"$T/stack.d/elastic.conf"
{ grep -v spank_elastic "$stack.orig"; echo "include $T/stack.d/*.conf"; } >"$stack"
passes "the plugin loaded from an included file: no finding"
cp "$stack.orig" "$stack"
passes "... and from the compute node" --node=n1

# This host: munge, its clock, elasticd.
finds "a munge socket that is not there" \
	'munge \(--munge-socket: /nonexistent/munge\.sock\): no credential made and read back: .*; start munged' \
	--munge-socket=/nonexistent/munge.sock
like "... and elasticd, unasked, says so too" "$OUT" \
	"${P}elasticd at [^ ]+ \\(ElasticdServer\\): no request made \\("
cat >"$T/skew.c" <<'EOF'
/* This program's wall clock, two minutes ahead. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
int clock_gettime(clockid_t id, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int rc = real(id, ts);

	if (rc == 0 && id == CLOCK_REALTIME)
		ts->tv_sec += 120;
	return rc;
}
EOF
var() { sed -n "s/^$1 = //p" "$ELASTIC_BUILDDIR/Makefile"; }
$(var CC) -shared -fPIC -o "$T/skew.so" "$T/skew.c" -ldl 2>"$T/cc.out" || { cat "$T/cc.out"; bail "cannot build the clock shim"; }
# Under ASan (CI's elasticctl), a library preloaded before its runtime is
# refused unless asked for.
OUT=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	LD_PRELOAD=$T/skew.so timeout 300 "$CTL" check 2>"$T/err")
RC=$?
like "a clock two minutes ahead of slurmctld's (exit 1)" "$RC:$(grep -m1 "^${P}clock:" <<<"$OUT")" \
	"^1:${P}clock: this host's clock is 1(19|20|21) s ahead of slurmctld's \\(more than 5 s\\): .*; keep every host's clock in step"
like "... and of elasticd's" "$OUT" "${P}clock: this host's clock is 1(19|20|21) s ahead of elasticd's"
mapfile -t site < <(grep -E '^[[:space:]]*(Elasticd|SharedCheckpointDirs)' "$POLICY.orig" | grep -vE '^[[:space:]]*Elasticd(Server|Listen)[[:space:]]*=')
good_policy
finds "no ElasticdServer: the launchers cannot find elasticd" \
	"ElasticdServer: not set in elastic\\.conf: launchers on the compute nodes cannot reach elasticd.*; set ElasticdServer=HOST:PORT in $POLICY"
mapfile -t site < <(grep -E '^[[:space:]]*(Elasticd|SharedCheckpointDirs)' "$POLICY.orig")
good_policy
ed_stop
finds "elasticd not running" \
	'elasticd at [^ ]+ \(ElasticdServer\): no answer \(.*\): groups run at --elastic-min and never grow; start elasticd on its host'
ed_start || bail "elasticd did not start again"
passes "all put back: no finding"

done_testing
