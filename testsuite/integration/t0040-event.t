#!/bin/bash
# The elastic event reaches every rank of every step of a job on every
# node, quickly, and does not kill helper processes that have no handler:
# raised with elastic-event(1), and sent by Slurm when it preempts the job.
#
# Each job runs two steps side by side on its four nodes, one rank per
# node: C ranks (event_rank, linked to libelastic) and Python ranks
# (event_rank.py, with slurm_elastic).  Every rank forks a helper without a
# handler and reports through files in a shared directory (see
# event_rank.c for the protocol).
. "$(dirname "$0")/lib.sh"
require_cluster

plan 29

EE=$ELASTIC_EVENT
RANK_C=$ELASTIC_BUILDDIR/testsuite/integration/event_rank
RANK_PY=$ELASTIC_SRCDIR/testsuite/integration/event_rank.py
PYTHON=/usr/bin/python3
NODES=4
RANKS=$((2 * NODES)) # C and Python
SIGURG_NUM=$(kill -l URG)

now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }
count() { # count DIR SUFFIX: report files of that kind
	local f n=0
	for f in "$1"/*."$2"; do [ -e "$f" ] && n=$((n + 1)); done
	echo "$n"
}
all_reported() { [ "$(count "$1" "$2")" -eq "$RANKS" ]; }
# span DIR KIND T0 first|last: seconds from T0 to the first/last rank of
# KIND (c, py, or * for both) that saw the event.
span() {
	cat "$1"/$2.*.seen 2>/dev/null | awk -v t0="$3" -v which="$4" '
		{ d = $1 - t0; if (NR == 1 || d > max) max = d; if (NR == 1 || d < min) min = d }
		END { printf "%.3f", which == "first" ? min : max }'
}
signals_seen() { cat "$1"/*.seen 2>/dev/null | awk '{ print $2 }' | sort -u | tr '\n' ' '; }
children() { cat "$1"/*.child 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' '; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# start_job DIR SBATCH-ARGS...: submit the ranks' job; prints its id.  The
# batch shell records any signal it gets: the event is for the steps only.
start_job() {
	local d=$1
	shift
	cat >"$d/job.sh" <<EOF
#!/bin/bash
trap 'echo \$EPOCHREALTIME >>$d/batch-got-signal' URG TERM
srun --overlap -N$NODES --ntasks-per-node=1 $RANK_C $d c &
PYTHONPATH=$ELASTIC_SRCDIR/contribs/python srun --overlap -N$NODES --ntasks-per-node=1 $PYTHON $RANK_PY $d py &
wait
wait
EOF
	sbatch --parsable -N$NODES --ntasks-per-node=1 --elastic-min=$NODES \
		--elastic-max=$NODES -o "$d/job.out" "$@" "$d/job.sh"
}

# show_failure DIR JOBID: what went wrong, as TAP comments.
show_failure() {
	diag "job $2: $(squeue -h -j "$2" -o '%T %r' 2>/dev/null)"
	for f in "$1"/*.ready "$1"/*.seen "$1"/job.out; do
		[ -e "$f" ] && sed "s|^|${f##*/}: |" "$f" | head -n 5 | sed 's/^/# /'
	done
	return 0
}

# --- elastic-event's command line -----------------------------------------
out=$("$EE" raise 2>&1)
rc=$?
is "raise without a job id is a usage error (exit 2)" "$rc" 2
like "... and says so" "$out" "^elastic-event raise: no job id given"
out=$("$EE" raise 12x 2>&1)
is "a malformed job id: one line naming it" "$out" \
	"elastic-event: 12x: not a job id (not a whole number; allowed: 1 to 4294967295)"
out=$("$EE" raise --signal=KILL 1 2>&1)
is "--signal=KILL is refused" "$out" \
	"elastic-event: --signal=KILL: not valid (allowed: URG, WINCH, USR1, USR2, HUP, INT, TERM)"
out=$("$EE" raise 4000000000 2>&1)
rc=$?
is "a job that does not exist: exit 1" "$rc" 1
is "... and one line with Slurm's reason" "$out" \
	"elastic-event: job 4000000000: Invalid job id specified"

# --- raised by hand: elastic-event raise JOBID ----------------------------
d=$(mktemp -d "${TMPDIR:-/tmp}/t0040-raise.XXXXXX")
chmod 755 "$d"
jid=$(start_job "$d")
like "an elastic job with C and Python ranks on $NODES nodes is accepted" "$jid" '^[0-9]+$'
ok "all $RANKS ranks start and fork their helpers" wait_until 60 all_reported "$d" ready
all_reported "$d" ready || show_failure "$d" "$jid"
diag "C rank 0: $(cat "$d/c.0.ready" 2>/dev/null)" "Python rank 0: $(cat "$d/py.0.ready" 2>/dev/null)"
is "no rank has seen an event yet" "$(count "$d" seen)" 0

t0=$(now)
out=$("$EE" raise "$jid" 2>&1)
rc=$?
is "elastic-event raise JOBID succeeds" "$rc" 0
is "... and prints nothing" "$out" ""
ok "every rank sees the event" wait_until 10 all_reported "$d" seen
all_reported "$d" seen || show_failure "$d" "$jid"
is "... by SIGURG (the default event signal)" "$(signals_seen "$d")" "$SIGURG_NUM "
lat_c=$(span "$d" c "$t0" last)
lat_py=$(span "$d" py "$t0" last)
diag "event latency: C $lat_c s, Python $lat_py s (target < 1 s)"
ok "the last C rank saw it within 1 s" below "$lat_c" 1
ok "the last Python rank saw it within 1 s" below "$lat_py" 1

touch "$d/finish"
ok "every rank reports on its helper" wait_until 30 all_reported "$d" child
is "every helper without a handler survived" "$(children "$d")" "$RANKS alive=1 default=1 "
ok "the job completes" wait_until 60 job_gone_or_done "$jid"
is "... successfully (the ranks went on after the event)" \
	"$(job_field "$jid" JobState) $(job_field "$jid" ExitCode)" "COMPLETED 0:0"
ok "the batch shell got no signal (steps only)" test ! -e "$d/batch-got-signal"
rm -rf "$d"

# --- sent by Slurm at preemption ------------------------------------------
# job_submit/elastic gives an elastic job the event signal as its warn
# signal (--signal=URG@grace, steps only); with preempt_send_user_signal
# Slurm sends it when GraceTime starts instead of SIGTERM.
grace=$(scontrol show partition preempt | grep -oE 'GraceTime=[0-9]+' | cut -d= -f2)
d=$(mktemp -d "${TMPDIR:-/tmp}/t0040-preempt.XXXXXX")
chmod 755 "$d"
jid=$(start_job "$d" -p preempt)
like "an elastic job in the preemptible partition is accepted" "$jid" '^[0-9]+$'
ok "all $RANKS ranks start" wait_until 60 all_reported "$d" ready
all_reported "$d" ready || show_failure "$d" "$jid"

t0=$(now)
hjid=$(sbatch --parsable -p high -N$NODES --wrap true)
like "a job in the high partition that needs its nodes is accepted" "$hjid" '^[0-9]+$'
ok "every rank of the preempted job sees the event" wait_until $((grace + 5)) all_reported "$d" seen
all_reported "$d" seen || show_failure "$d" "$jid"
is "... by SIGURG, the job's warn signal (not SIGTERM)" "$(signals_seen "$d")" "$SIGURG_NUM "
first=$(span "$d" '*' "$t0" first)
last=$(span "$d" '*' "$t0" last)
diag "preemption: ranks saw the event $first s to $last s after the preemptor was submitted" \
	"(C last $(span "$d" c "$t0" last) s, Python last $(span "$d" py "$t0" last) s; GraceTime=$grace s)"
ok "... all before the grace time ends" below "$last" "$grace"

touch "$d/finish"
wait_until 30 all_reported "$d" child
is "every helper without a handler survived the preemption" "$(children "$d")" "$RANKS alive=1 default=1 "
started() { case $(job_field "$hjid" JobState) in RUNNING | COMPLETED) return 0 ;; *) return 1 ;; esac; }
ok "the preemptor gets the nodes" wait_until 60 started
ok "the batch shell got no signal during the grace time" test ! -e "$d/batch-got-signal"

scancel "$jid" "$hjid" 2>/dev/null
wait_until 60 job_gone_or_done "$jid"
wait_until 60 job_gone_or_done "$hjid"
rm -rf "$d"

done_testing
