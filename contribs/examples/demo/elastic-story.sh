#!/bin/bash
# The elastic story on a running cluster (quickstart demo starts the
# embedded one): a PyTorch DDP job starts at its minimum while the other
# nodes are busy, grows into them when they go idle, loses two nodes to a
# high-priority job, grows back, loses a node to failure, grows back and
# finishes; then its timeline, its loss, and the proof that every sample
# was processed once.
#
# usage: elastic-story.sh BUILDDIR SRCDIR WORKDIR USER
# Needs SLURM_CONF, an elasticd at the ElasticdServer of the cluster's
# elastic.conf, root, and the embedded cluster of hosts (minicluster: its
# partitions preempt (units) and high, and 'crash' and 'boot' to fail and
# bring back a node).
set -uo pipefail
build=$1 src=$2 work=$3 user=$4
MC=$src/testsuite/minicluster/minicluster
RUN=$build/src/elastic-run/elastic-run
CTL=$build/src/elasticctl/elasticctl
PY=/usr/bin/python3
EX=$src/contribs/examples/pytorch
SAMPLES=2048 BATCH=64 EPOCHS=${DEMO_EPOCHS:-40} EVERY=10
t0=${EPOCHREALTIME/,/.}

say() { printf '\n== %s\n' "$*"; }
at() { awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%6.1f s", b - a }'; }
die() {
	echo "elastic-story: $*" >&2
	[ -n "${jid:-}" ] && grep -E '^(elastic-run|train_ddp):' "$out" | tail -n 15 >&2
	exit 1
}
# wait_for SECONDS DESC CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	local secs=$1 desc=$2 end=$((SECONDS + $1))
	shift 2
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || die "timed out after $secs s waiting for: $desc"
		sleep 0.2
	done
}
state() { scontrol show job "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2; }
running() { [ "$(state "$1")" = RUNNING ]; }
# world W: tell each start of the ranks as it comes ("train_ddp: world
# ..."), until the newest is at W ranks.  Slurm may start a resize's units
# a few seconds apart: then the world passes through a size on the way.
seen=0
world() {
	local w=$1 end=$((SECONDS + 120)) n line
	while :; do
		n=$(grep -c '^train_ddp: world ' "$out" 2>/dev/null)
		while [ "$seen" -lt "${n:-0}" ]; do
			seen=$((seen + 1))
			line=$(grep '^train_ddp: world ' "$out" | sed -n "${seen}p")
			printf '%s  %s\n' "$(at)" "$line"
			case $line in "train_ddp: world $w "*) [ "$seen" = "$n" ] && return 0 ;; esac
		done
		[ "$SECONDS" -lt "$end" ] || die "timed out after 120 s waiting for the ranks at world size $w"
		# A run that ended (or whose launcher gave up) cannot reach it.
		grep -q '^train_ddp: done:' "$out" &&
			die "the training finished before the ranks were at world size $w (raise DEMO_EPOCHS)"
		grep -q '^elastic-run: .* event=done' "$out" &&
			die "elastic-run ended before the ranks were at world size $w: $(grep '^elastic-run: .* event=done' "$out")"
		sleep 0.2
	done
}

mkdir -p "$work" && chmod 1777 "$work" && cd "$work" || exit 1
out=$work/train.out
rm -rf "$work/samples" "$out"
mkdir -p "$work/samples" && chmod 1777 "$work/samples"

say "someone else's job holds 3 of the 4 preemptible nodes"
fill=$(sbatch --parsable -p preempt -N3 -J other-work -o /dev/null --wrap 'exec sleep 3600') || die "sbatch failed"
wait_for 30 "the other job to run" running "$fill"
squeue -o '%.6i %.10P %.12j %.8u %.2t %.4D %R'

say "$user submits: sbatch --elastic-min=1 --elastic-max=4 train.sh   (elastic-run python3 train_ddp.py)"
cat >"$work/train.sh" <<EOS
#!/bin/bash
#SBATCH --elastic-min=1 --elastic-max=4 --elastic-scale-delay=2
#SBATCH --elastic-grace=30 --elastic-fault-timeout=5
export OMP_NUM_THREADS=1 PYTHONPATH=$src/contribs/python
exec $RUN -- $PY $EX/train_ddp.py --samples $SAMPLES --global-batch $BATCH \\
	--epochs $EPOCHS --step-sleep 0.05 --checkpoint-every $EVERY --log-every 200 \\
	--sample-log-dir $work/samples --timeout 60
EOS
chmod 755 "$work/train.sh"
sed 's/^/    /' "$work/train.sh"
jid=$(runuser -u "$user" -- sbatch --parsable -D "$work" -o "$out" \
	"--elastic-checkpoint-dir=$work/ckpt/%j" "$work/train.sh") || die "sbatch failed"
echo "Submitted batch job $jid"
world 1
"$CTL" status "$jid" 2>/dev/null | sed 's/^/    /'

say "the other job ends: its nodes go idle"
scancel "$fill"
world 4
"$CTL" status "$jid" 2>/dev/null | sed 's/^/    /'

say "a high-priority job needs 2 nodes: sbatch -p high -N2"
hi=$(sbatch --parsable -p high -N2 -J urgent -o /dev/null --wrap 'exec sleep 3600')
world 2
wait_for 30 "the high-priority job to run" running "$hi"
printf '%s  the high-priority job %s runs\n' "$(at)" "$hi"

say "the high-priority job ends"
scancel "$hi"
world 4

unit=$(squeue -h -u "$user" -p preempt -t R -o '%i %N' | sort -n | tail -n1)
node=${unit#* }
say "node $node crashes: every process on it dies, its link goes down (minicluster crash)"
"$MC" crash "$node" >/dev/null || die "minicluster crash $node failed"
world 3
say "node $node boots again (minicluster boot); elasticd drained it as lost, the admin returns it: scontrol update NodeName=$node State=RESUME"
"$MC" boot "$node" >/dev/null || die "minicluster boot $node failed"
# Once its slurmd answers (a resume before that leaves it down).
back() {
	scontrol update NodeName="$node" State=RESUME 2>/dev/null
	sinfo -h -n "$node" -o '%t' | grep -qE '^(idle|mix|alloc)$'
}
wait_for 60 "$node back in service" back
world 4

say "training runs to the end"
done_() { grep -q '^train_ddp: done:' "$out" && [ "$(state "$jid")" = COMPLETED ]; }
wait_for 600 "the job to finish" done_
printf '%s  %s\n' "$(at)" "$(grep '^train_ddp: done:' "$out")"

say "elastic-run's timeline"
grep -E '^elastic-run: .* event=(launch|relaunch|event|ranks-up|done)' "$out" |
	sed -E 's/^elastic-run: [0-9-]+T([0-9:.]+)Z event=/\1  /; s/ nproc_per_node=[0-9]+//; s/ master=[^ ]+//' | sed 's/^/    /'

say "the result"
grep -E '^(initial|final) loss' "$out" | sed 's/^/    /'
cs=$("$PY" "$EX/check_samples.py" "$work/samples" "$SAMPLES" "$EPOCHS" --window $(((EVERY + 1) * BATCH)))
rc=$?
echo "    $cs"
total=$((SAMPLES * EPOCHS))
if [ $rc = 0 ]; then
	echo "    $total samples ($SAMPLES x $EPOCHS epochs) processed over worlds of" \
		"$(grep '^train_ddp: world ' "$out" | awk '{ print $3 }' | tr '\n' ' ')rank(s):" \
		"none lost, none repeated beyond the last-checkpoint window."
else
	die "the sample check failed"
fi

say "the job's accounting: elasticctl report $jid"
# elastic-run's last report reaches elasticd as the job ends.
final_() { "$CTL" report --json "$jid" 2>/dev/null | grep -q '"ended": *true'; }
wait_for 30 "the job's final account" final_
"$CTL" report "$jid" | sed 's/^/    /'
"$CTL" report --png "$work/report.png" --svg "$work/report.svg" "$jid" >/dev/null ||
	die "elasticctl report --png --svg failed"
echo "    its picture: $work/report.png and $work/report.svg"
echo "    in sacct: $(sacct -n -X -j "$jid" -o AdminComment%300 | sed 's/.* | //; s/ *$//')"
