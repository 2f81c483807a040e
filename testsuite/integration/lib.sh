# Shared by the integration tests: TAP output, waiting on conditions with
# deadlines, and the embedded cluster's environment.  Tests source it.
# shellcheck shell=bash

set -u

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

# ok DESC CMD...: passes if CMD exits 0.
ok() {
	local desc=$1
	shift
	"$@"
	_report $? "$desc"
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

# wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds or the
# deadline passes; returns CMD's last status.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	while :; do
		"$@" && return 0
		[ "$SECONDS" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

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
}

# job_field JOBID FIELD: one field of scontrol show job (may contain spaces
# only for fields at the end of a line, such as AdminComment).
job_field() {
	scontrol show job "$1" 2>/dev/null | grep -oE "(^| )$2=[^ ]*( [^=]*$)?" | head -n1 | sed -E "s/^ ?$2=//"
}

job_state() {
	squeue -h -j "$1" -o '%T' 2>/dev/null || true
}

job_gone_or_done() {
	local s
	s=$(scontrol show job "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
	case "$s" in COMPLETED | FAILED | CANCELLED | TIMEOUT | "") return 0 ;; *) return 1 ;; esac
}
