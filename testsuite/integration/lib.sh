# Shared by the integration tests: TAP output, waiting on conditions with
# deadlines, and the embedded cluster's environment.  Tests source it.
# shellcheck shell=bash

set -u
# No test reads its standard input; srun loses its tasks' output when the
# input is closed (fd 0 is then the first file it opens).
exec </dev/null

: "${ELASTIC_SRCDIR:?run the integration tests through make check}"
: "${ELASTIC_BUILDDIR:?run the integration tests through make check}"
MINICLUSTER="$ELASTIC_SRCDIR/testsuite/minicluster/minicluster"
export MC_DIR MC_PORT_BASE

_t_count=0
_t_failed=0
_t_planned=0

plan() {
	_t_planned=$1
	echo "1..$1"
}

_report() { # _report STATUS DESC
	_t_count=$((_t_count + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_t_count - $2"
	else
		_t_failed=$((_t_failed + 1))
		echo "not ok $_t_count - $2"
	fi
}

diag() { printf '# %s\n' "$@"; }

# ok DESC CMD...: passes if CMD exits 0; returns CMD's status, so that
# "ok ... || diag ..." says more on a failure.
ok() {
	local desc=$1 rc
	shift
	"$@"
	rc=$?
	_report "$rc" "$desc"
	return "$rc"
}

# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then
		_report 0 "$1"
	else
		_report 1 "$1"
		diag "got:  '$2'" "want: '$3'"
	fi
}

# like DESC GOT EXTENDED-REGEX
like() {
	if printf '%s' "$2" | grep -Eq -- "$3"; then
		_report 0 "$1"
	else
		_report 1 "$1"
		diag "got:  '$2'" "want match: '$3'"
	fi
}

bail() {
	echo "Bail out! $*"
	exit 1
}

# has_torch: $PYTHON finds the torch module (a look-up, not an import:
# importing it costs a second or two of CPU, and the test's ranks import
# it anyway).
has_torch() { "$PYTHON" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' 2>/dev/null; }

# at_exit CMD: run CMD (a shell command, eval'ed) when the test ends, the
# last registered first.  The one EXIT trap of every test: a test and the
# libraries it sources each add their cleanups here, none replaces
# another's.  Each cleanup sees the test's exit status in $?.
_t_at_exit=()
at_exit() { _t_at_exit=("$1" "${_t_at_exit[@]}"); }
_t_exit() {
	local rc=$? c
	for c in "${_t_at_exit[@]}"; do
		(exit "$rc")
		eval "$c"
	done
	return "$rc"
}
trap _t_exit EXIT

# make_tmp VAR [NAME]: a private temporary directory in VAR, removed at
# exit unless KEEP_TMP is set.
make_tmp() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/${2:-${0##*/}}.XXXXXX") || bail "mktemp failed"
	printf -v "$1" '%s' "$d"
	at_exit "[ -n \"\${KEEP_TMP:-}\" ] || rm -rf '$d'"
}

# log_has FILE ERE: FILE has a line matching ERE (for wait_until).
log_has() { grep -qE -- "$2" "$1" 2>/dev/null; }

# nfiles GLOB [DIR]: how many entries of DIR (default $W) match GLOB;
# have GLOB N: at least N.
nfiles() { find "${2:-$W}" -maxdepth 1 -name "$1" | wc -l; }
have() { [ "$(nfiles "$1")" -ge "$2" ]; }

# The programs under test: the build tree's, or with ELASTIC_INSTALLED=1
# the installed ones (the packages': elastic-run, elastic-event and
# elasticctl in PATH, the rsh agent of --launcher=mpirun where elastic-run
# finds it; elasticd.sh: elasticd).  The tests' helper programs
# (submit_raw, ckpt_tool, event_rank) are the build tree's either way; so
# are the plugins unless the cluster was started with ELASTIC_INSTALLED=1
# too (make check passes it to both).
ELASTIC_INSTALLED=${ELASTIC_INSTALLED:-0}
export ELASTIC_INSTALLED
# installed VAR NAME [PATH]: VAR is the installed program NAME (at PATH,
# default: found in PATH), or the test bails out naming it.
installed() {
	local p=${3:-$(command -v "$2" 2>/dev/null)}
	if [ -z "$p" ] || [ ! -x "$p" ]; then
		bail "ELASTIC_INSTALLED=1: $2 is not installed (${3:-not in PATH})"
	fi
	printf -v "$1" '%s' "$p"
}
# shellcheck disable=SC2034 # used by the tests
case $ELASTIC_INSTALLED in
1)
	installed RUN elastic-run
	installed ELASTIC_EVENT elastic-event
	installed ELASTIC_CTL elasticctl
	installed RSH_AGENT elastic-run-rsh /usr/libexec/slurm-elastic/elastic-run-rsh
	;;
0)
	RUN=$ELASTIC_BUILDDIR/src/elastic-run/elastic-run
	ELASTIC_EVENT=$ELASTIC_BUILDDIR/src/elastic-event/elastic-event
	ELASTIC_CTL=$ELASTIC_BUILDDIR/src/elasticctl/elasticctl
	RSH_AGENT=$ELASTIC_SRCDIR/src/elastic-run/elastic-run-rsh
	;;
*) bail "ELASTIC_INSTALLED must be 0 or 1, not '$ELASTIC_INSTALLED'" ;;
esac

# nap SECONDS: a sleep without a process (the tests poll a lot, and on
# two busy cores the forks cost more than the polls): read times out on
# a pipe this shell holds both ends of.
exec {_nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$_nap_fd" _ || :; }

# poll SECONDS SLOW CMD...: run CMD until it succeeds (0) or the deadline
# passes (1): every 0.1 s for 2 s, then every SLOW s, so that a long wait
# costs the cluster it waits on less.
poll() {
	local deadline=$((SECONDS + $1)) fast=$((SECONDS + 2)) slow=$2
	shift 2
	while :; do
		"$@" && return 0
		[ "$SECONDS" -ge "$deadline" ] && return 1
		if [ "$SECONDS" -lt "$fast" ]; then nap 0.1; else nap "$slow"; fi
	done
}
# wait_until SECONDS CMD...: poll CMD, every 0.25 s after its first 2 s.
wait_until() { poll "$1" 0.25 "${@:2}"; }

done_testing() {
	if [ "$_t_count" != "$_t_planned" ]; then
		diag "planned $_t_planned tests but ran $_t_count"
		exit 1
	fi
	[ "$_t_failed" = 0 ]
}

# The cluster every test talks to; started by t0000, stopped by t9999.
require_cluster() {
	"$MINICLUSTER" status >/dev/null 2>&1 || bail "the embedded cluster is not up (see t0000-cluster-up.log)"
	eval "$("$MINICLUSTER" env)"
	# Each host has a /tmp of its own: files that jobs share live in
	# MC_DIR, the cluster's shared file system.
	export TMPDIR=$MC_DIR/tmp
	mkdir -p "$TMPDIR" && chmod 1777 "$TMPDIR"
	# The hosts' network, for Open MPI's if_include (lo without hosts).
	CLUSTER_NET=lo
	[ "${MC_HOSTS:-0}" != 1 ] || CLUSTER_NET=$MC_SUBNET.0/24
	# Jobs write slurm-N.out where they were submitted: keep those with
	# the cluster, out of the source tree.
	mkdir -p "$MC_DIR/jobs" && cd "$MC_DIR/jobs" || bail "no $MC_DIR/jobs"
	cleanup_jobs
}

# admin_comment JOBID: the job's AdminComment (where the elastic tag lives).
admin_comment() {
	# 26.05 ends the line without the space earlier releases put there.
	scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'
}

# job_fields JOBID FIELD...: Key=Value fields of one reading of scontrol
# show job -o, a line each (empty for a FIELD the job lacks), so that they
# agree; nothing for a job Slurm no longer knows.  Read in the shell:
# polls call it, and a process costs the machine.
job_fields() {
	local o f k
	local -a fs
	o=$(scontrol show job -o "$1" 2>/dev/null) || return 0
	read -ra fs <<<"$o"
	shift
	for k in "$@"; do
		for f in "${fs[@]}" "$k="; do
			[[ $f == "$k="* ]] && printf '%s\n' "${f#*=}" && break
		done
	done
}
# job_field JOBID FIELD: one of them.
job_field() { job_fields "$1" "$2"; }

# epoch T: a time as scontrol shows it, as seconds since the epoch, or
# nothing for none (Unknown, None, N/A).
epoch() {
	case $1 in '' | Unknown | None | N/A) return 0 ;; esac
	date -d "$1" +%s
}
# job_time JOBID FIELD: a time field of scontrol show job, as epoch gives it.
job_time() { epoch "$(job_field "$1" "$2")"; }

job_state() {
	squeue -h -j "$1" -o '%T' 2>/dev/null || true
}

job_gone_or_done() {
	case "$(job_field "$1" JobState)" in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | "") return 0 ;;
	*) return 1 ;;
	esac
}

queue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

# Cancel every job, whoever owns it (the elasticd tests submit as the test
# users, and elasticd submits units as them), and wait until the queue is
# empty, so that each test file starts with all nodes free.
cleanup_jobs() {
	local ids
	ids=$(squeue -h -o %A 2>/dev/null)
	# shellcheck disable=SC2086 # a list of job ids
	[ -z "$ids" ] || scancel $ids 2>/dev/null
	wait_until 60 queue_empty || diag "jobs still queued: $(squeue -h 2>&1)"
	wait_until 60 all_nodes_idle || diag "nodes not idle: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')"
}

all_nodes_idle() { [ -z "$(sinfo -h -N -o '%t' | grep -v '^idle$')" ]; }

# heal_nodes: call after a test failed a node that a --no-kill job held.
# Slurm 22.05.8 then keeps that node out of its main scheduler's reach (the
# job after the next one to need it waits for the backfill scheduler,
# 7-15 s here) until slurmctld rebuilds its node state, which
# 'scontrol reconfigure' does.
heal_nodes() {
	scontrol reconfigure 2>/dev/null
	wait_until 30 bash -c 'scontrol ping | grep -q UP' || diag "slurmctld not answering after reconfigure"
	wait_until 60 all_nodes_idle_or_alloc || diag "nodes not back: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')"
}

# The elastic.conf every daemon of the cluster reads; tests that change
# it restore it with restore_policy (also on exit).
POLICY="$MC_DIR/etc/elastic.conf"
set_policy() {
	[ -f "$POLICY.orig" ] || cp "$POLICY" "$POLICY.orig"
	printf '%s\n' "$@" >"$POLICY"
	[ -n "${_t_policy_hooked:-}" ] || at_exit restore_policy
	_t_policy_hooked=1
}
restore_policy() {
	[ -f "$POLICY.orig" ] && mv -f "$POLICY.orig" "$POLICY"
	return 0
}

all_nodes_idle_or_alloc() { [ -z "$(sinfo -h -N -o '%t' | grep -vE '^(idle|alloc|mix)$')" ]; }
job_running() { [ "$(job_field "$1" JobState)" = RUNNING ]; }

# The unprivileged users the elasticd tests submit as (quickstart creates
# them).  Missing users are a failure, never a skip.
TEST_USER=elastic-alice
OTHER_USER=elastic-bob
require_users() {
	local u
	for u in "$TEST_USER" "$OTHER_USER"; do
		id -u "$u" >/dev/null 2>&1 ||
			bail "test user $u does not exist (./quickstart check creates it: useradd --create-home --user-group $u)"
	done
}

rejected() { # rejected DESC REGEX SBATCH-ARGS...
	local desc=$1 want=$2 out rc
	shift 2
	out=$(sbatch -H "$@" --wrap true 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -Eq -- "$want"; then
		_report 0 "$desc"
	else
		_report 1 "$desc"
		diag "exit $rc, output:" "$out" "want: $want"
		[ "$rc" -eq 0 ] && scancel "$out" 2>/dev/null
	fi
}

# cpu_throttle PID PERCENT: hold PID (its threads) to PERCENT of one CPU,
# as a site's noisy neighbour or a throttled CPU would: a cpu cgroup of
# the test's own (v1 where the cpu controller is mounted alone, else the
# unified hierarchy's cpu.max).  cpu_unthrottle puts it back and removes
# the cgroup (also at exit).  A machine with neither fails the test.
_t_cpu_cg=
cpu_throttle() {
	local pid=$1 pct=$2 v1 t
	v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$v1" ]; then
		_t_cpu_cg=$v1/elastic-test-$$
		mkdir -p "$_t_cpu_cg" || return 1
		echo 100000 >"$_t_cpu_cg/cpu.cfs_period_us" &&
			echo $((pct * 1000)) >"$_t_cpu_cg/cpu.cfs_quota_us" || return 1
	else
		v1=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
		[ -n "$v1" ] && grep -qw cpu "$v1/cgroup.controllers" || return 1
		echo +cpu >"$v1/cgroup.subtree_control" 2>/dev/null
		_t_cpu_cg=$v1/elastic-test-$$
		mkdir -p "$_t_cpu_cg" && echo "$((pct * 1000)) 100000" >"$_t_cpu_cg/cpu.max" || return 1
	fi
	[ -n "${_t_cpu_hooked:-}" ] || at_exit cpu_unthrottle
	_t_cpu_hooked=1
	for t in /proc/"$pid"/task/*; do
		echo "${t##*/}" >"$_t_cpu_cg/tasks" 2>/dev/null || echo "${t##*/}" >"$_t_cpu_cg/cgroup.threads" 2>/dev/null ||
			echo "$pid" >"$_t_cpu_cg/cgroup.procs" || return 1
	done
}
cpu_unthrottle() {
	local root t
	[ -n "$_t_cpu_cg" ] && [ -d "$_t_cpu_cg" ] || return 0
	root=${_t_cpu_cg%/*}
	for t in $(cat "$_t_cpu_cg/tasks" "$_t_cpu_cg/cgroup.procs" 2>/dev/null); do
		echo "$t" >"$root/tasks" 2>/dev/null || echo "$t" >"$root/cgroup.procs" 2>/dev/null
	done
	rmdir "$_t_cpu_cg" 2>/dev/null
	return 0
}

# account_of FILE: the pairs of elastic-run's account line in FILE
# (elastic-run(1), ACCOUNTING); account_field PAIRS KEY: a value of them.
account_of() { sed -n 's/^elastic-run: account: //p' "$1"; }
account_field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# account_adds_up PAIRS: held is the sum of the causes, within 1000
# node-ms (both said).  The causes are the pairs NAME_nms but held_nms,
# as the launcher names them from the contract's table
# (src/common/acctnames.c): no list here to fall behind it.
account_adds_up() {
	local c sum=0 held
	for c in $(printf '%s\n' "$1" | tr ' ' '\n' | sed -n 's/^\([a-z_]*\)_nms=.*/\1/p'); do
		[ "$c" = held ] || sum=$((sum + $(account_field "$1" "${c}_nms")))
	done
	account_field "$1" training_nms | grep -q . || return 1
	held=$(account_field "$1" held_nms)
	diag "held: $held node-ms; the sum of the causes: $sum"
	[ -n "$held" ] && [ $((held > sum ? held - sum : sum - held)) -le 1000 ]
}
