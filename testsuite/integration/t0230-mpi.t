#!/bin/bash
# One MPI_COMM_WORLD across several Slurm jobs: mpirun (Open MPI, plm rsh)
# in the base job's batch script starts an orted on each node through
# elastic-run-rsh, which runs it as a step of the job holding that node
# (srun --jobid=JOB --overlap -w NODE).  elastic-alice's train_mpi runs on
# her elastic base job (2 nodes), grows onto her unit job (a third node, another
# Slurm job) and shrinks back, each time after the elastic event (on the
# base's steps, on the unit's step, to mpirun) and a checkpoint; then, on
# a second unit, a rank crashes and later the unit's node fails, and each
# time the world restarts from the newest checkpoint.  Every sample once
# (but the steps after the checkpoint before a failure), the loss down.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 39

AGENT="$RSH_AGENT"
TRAIN="$ELASTIC_BUILDDIR/contribs/examples/mpi/train_mpi"
CHECK="$ELASTIC_SRCDIR/contribs/examples/pytorch/check_samples.py"
for f in "$AGENT" "$TRAIN"; do [ -x "$f" ] || bail "not built or not executable: $f"; done
command -v mpirun >/dev/null || bail "mpirun not found (apt-get install openmpi-bin)"

# --- the agent on its own -----------------------------------------------------
out=$(ELASTIC_RUN_HOSTMAP="n1=7,n2=7" "$AGENT" n9 orted 2>&1)
rc=$?
is "the agent refuses a host outside ELASTIC_RUN_HOSTMAP: exit 1" "$rc" 1
like "... with one clear line" "$out" "^elastic-run-rsh: host n9 is in no job of ELASTIC_RUN_HOSTMAP='n1=7,n2=7' \(want NODE=JOBID,...\)$"
out=$(ELASTIC_RUN_HOSTMAP="n1=7" ELASTIC_RUN_SRUN=echo "$AGENT" -x -o BatchMode=yes n1 ' orted' -mca ess '"env"' 2>&1)
is "... and turns mpirun's ssh-style call into a one-task step of the host's job" "$out" \
	"--jobid=7 --overlap -N1 -n1 -w n1 --kill-on-bad-exit=0 --mpi=none --export=ALL -Q /bin/sh -c unset RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK;  orted -mca ess \"env\""

# --- the launcher: a batch script that relaunches mpirun after each event ----
# It reads the world's members (job ids, base first; "base" for its own
# job) from $W/members at
# each launch, as elastic-run will read them from elasticd, maps each node
# to its job for the agent, and relaunches, once the last launch's steps are
# gone, until train_mpi says it is done (up to 2 failed launches).
W=$ED_TMP
SAMPLES=4096 EPOCHS=5
# Open MPI 4 starts its daemons with plm rsh, 5 (PRRTE) with plm ssh.
PLM=rsh
[[ $(mpirun --version) =~ \(Open\ MPI\)\ ([0-9]+) ]] && ((BASH_REMATCH[1] >= 5)) && PLM=ssh
cat >"$W/launch.sh" <<EOF
#!/bin/bash
restart=0 failures=0
while :; do
	map="" hosts="" n=0
	for j in \$(sed "s/\\<base\\>/\$SLURM_JOB_ID/" "$W/members"); do
		for h in \$(scontrol show hostnames "\$(squeue -h -j "\$j" -o %N)"); do
			map="\$map,\$h=\$j" hosts="\$hosts,\$h:1" n=\$((n + 1))
		done
	done
	echo "launch restart=\$restart nnodes=\$n hosts=\${hosts#,} map=\${map#,}"
	ELASTIC_RUN_HOSTMAP=\${map#,} ELASTIC_RESTART_COUNT=\$restart ELASTIC_JOB_ID=\$SLURM_JOB_ID \\
	ELASTIC_CHECKPOINT_DIR="$W/ckpt" PMIX_MCA_gds=hash \\
	mpirun --host "\${hosts#,}" --mca ras ^slurm --leave-session-attached \\
		--mca plm $PLM --mca plm_${PLM}_agent "$AGENT" --mca plm_${PLM}_no_tree_spawn 1 \\
		--mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include $CLUSTER_NET --mca oob_tcp_if_include $CLUSTER_NET \\
		--mca rtc ^hwloc --mca mpi_yield_when_idle 1 \\
		-x ELASTIC_JOB_ID -x ELASTIC_RESTART_COUNT -x ELASTIC_CHECKPOINT_DIR \\
		"$TRAIN" --samples $SAMPLES --epochs $EPOCHS --batch 64 --step-sleep 0.05 \\
		--log-every 8 --checkpoint-every 8 --sample-log-dir "$W/ranklogs" >"$W/mpirun.\$restart.out" 2>&1
	rc=\$?
	echo "exit restart=\$restart rc=\$rc"
	# Relaunch only once the orted steps of this launch are gone (30 s).
	jobs=\$(printf '%s\\n' "\${map#,}" | tr , '\\n' | sed 's/.*=//' | sort -u | paste -sd, -)
	for k in \$(seq 300); do
		[ -z "\$(squeue -h -s -j "\$jobs" -o %i 2>/dev/null | grep -v '\\.batch\$')" ] && break
		sleep 0.1
	done
	# ... and its ranks on this host (a killed mpirun leaves them to end
	# on their own, maybe writing a checkpoint).
	for k in \$(seq 300); do
		pgrep -s 0 -f "$TRAIN" >/dev/null || break
		sleep 0.1
	done
	# The newest checkpoint as the next launch starts: the one it resumes
	# from (the next world soon writes newer ones).
	ls "$W/ckpt" 2>/dev/null | grep '^ckpt-' | sort | tail -n 1 >"$W/newest.\$restart"
	if [ \$rc = 0 ] && grep -q '^train_mpi: done' "$W/mpirun.\$restart.out"; then exit 0; fi
	# 75: the ranks stopped for an elastic event; anything else failed.
	if [ \$rc != 0 ] && [ \$rc != 75 ]; then
		failures=\$((failures + 1))
		[ \$failures -le 2 ] || { echo "launch: mpirun failed \$failures times"; exit 1; }
	fi
	restart=\$((restart + 1))
done
EOF
chmod 755 "$W/launch.sh"

# steps_at R N: launch R's rank 0 printed at least N loss lines.
steps_at() {
	local n
	n=$(grep -c '^step [0-9]* epoch' "$W/mpirun.$1.out" 2>/dev/null)
	[ "${n:-0}" -ge "$2" ]
}
event_step() { sed -n 's/.*elastic event at step \([0-9]*\) .*/\1/p' "$W/mpirun.$1.out"; }
other_steps() { squeue -h -s -j "$1" -o %i 2>/dev/null | grep -v '\.batch$'; }
no_other_steps() { [ -z "$(other_steps "$1")" ]; }
as_user() { runuser -u "$TEST_USER" -- "$@"; }

unit=$(as_user sbatch --parsable -N1 -J mpi-unit -D "$W" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "$TEST_USER's unit job (1 node) runs" wait_until 30 job_running "$unit"
# The first world: the base job alone ("base" is the batch's own job).
echo base >"$W/members"
base=$(as_user sbatch --parsable --elastic-min=2 --elastic-max=3 -J mpi-base -D "$W" -o "$W/base.out" -t 30 "$W/launch.sh")
ok "her elastic base job (min 2 nodes) runs" wait_until 30 job_running "$base"

# --- world of 2: the base job's nodes ---------------------------------------
ok "2 ranks train in the base job" wait_until 60 steps_at 0 3
like "... a fresh start at world 2" "$(cat "$W/mpirun.0.out")" 'train_mpi: world 2 restart 0 fresh start at step 0'

# Grow: the unit joins the world; the event raised on the base job's steps
# (as elasticd raises it).
echo "$base $unit" >"$W/members"
"$ELASTIC_EVENT" raise "$base"
ok "the event on the base's steps: mpirun exits 75 (the event status) after a checkpoint" wait_until 30 log_has "$W/base.out" 'exit restart=0 rc=75'
step_a=$(event_step 0)
ok "... at step $step_a" test -f "$W/ckpt/ckpt-$(printf %08d "${step_a:-0}").bin"

# --- world of 3: two Slurm jobs, one MPI_COMM_WORLD ---------------------------
ok "3 ranks train across the base and the unit job" wait_until 60 steps_at 1 3
like "... resumed at step $step_a at world 3" "$(cat "$W/mpirun.1.out")" \
	"train_mpi: world 3 restart 1 resumed from $W/ckpt/ckpt-0*$step_a.bin at step $step_a,"
is "... an orted step in the unit job" "$(other_steps "$unit" | wc -l)" 1
is "... and one in the base job (mpirun's own node needs none)" "$(other_steps "$base" | wc -l)" 1
like "... mpirun's hosts: the base's two nodes and the unit's" "$(grep '^launch restart=1' "$W/base.out")" \
	"nnodes=3 hosts=[^ ]*:1,[^ ]*:1,[^ ]*:1 map=[^ ]*=$base,[^ ]*=$base,[^ ]*=$unit$"

# Shrink, as when the unit is preempted: the event reaches only the unit
# job's step (its one rank); the allreduce stops every rank.
echo "$base" >"$W/members"
t0=$(now)
scancel --signal=URG "$unit"
ok "the event on the unit's step alone: mpirun exits 75 after a checkpoint" wait_until 30 log_has "$W/base.out" 'exit restart=1 rc=75'
figure "mpi: event on one job's step to mpirun out across 2 jobs: $(secs_since "$t0") s"
step_b=$(event_step 1)
ok "... at step $step_b" test -f "$W/ckpt/ckpt-$(printf %08d "${step_b:-0}").bin"
last=$(for f in "$W"/ranklogs/samples.rank*.world3.*.log; do tail -n 1 "$f" | cut -d' ' -f1; done | sort -u | tr '\n' ' ')
is "... all 3 ranks stopped after that step" "$last" "$step_b "
ok "... and the unit's orted step ended" wait_until 10 no_other_steps "$unit"
scancel "$unit"

# --- world of 2 again ---------------------------------------------------------
ok "2 ranks resume in the base job alone" wait_until 60 steps_at 2 3
like "... at step $step_b" "$(cat "$W/mpirun.2.out")" \
	"train_mpi: world 2 restart 2 resumed from $W/ckpt/ckpt-0*$step_b.bin at step $step_b,"

# Grow again onto a new unit; this time the event goes to mpirun, as a
# launcher in the batch script sends it: mpirun forwards SIGURG to every
# rank.
unit2=$(as_user sbatch --parsable -N1 -J mpi-unit -D "$W" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a second unit job runs" wait_until 30 job_running "$unit2"
echo "$base $unit2" >"$W/members"
# This job's mpirun (its batch script's), not another cluster's.  Open
# MPI 5's mpirun execs PRRTE's prterun.
job_mpirun() {
	local p
	for p in $(pgrep -u "$TEST_USER" -x 'mpirun|prterun'); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$base" && echo "$p" && return 0
	done
	return 1
}
mpirun_pid=$(job_mpirun)
like "mpirun runs in the base job's batch script" "$mpirun_pid" '^[0-9]+$'
[[ $mpirun_pid =~ ^[0-9]+$ ]] && kill -URG "$mpirun_pid"
ok "SIGURG to mpirun: it exits 75 after a checkpoint" wait_until 30 log_has "$W/base.out" 'exit restart=2 rc=75'
step_c=$(event_step 2)
ok "3 ranks train across the base and the new unit" wait_until 60 steps_at 3 3
like "... resumed at step $step_c at world 3" "$(cat "$W/mpirun.3.out")" \
	"train_mpi: world 3 restart 3 resumed from $W/ckpt/ckpt-0*$step_c.bin at step $step_c,"

# world_logs: the sample logs of the running world of 3 (the newest three).
world_logs() { ls -t "$W"/ranklogs/samples.rank*.world3.*.log | head -n 3; }
# last_step FILE...: the highest step in those logs.
last_step() { for f in "$@"; do tail -n 1 "$f" | cut -d' ' -f1; done | sort -n | tail -n 1; }
# resumed_at R: the step launch R resumed at.
resumed_at() { sed -n 's/.* restart '"$1"' resumed from .* at step \([0-9]*\),.*/\1/p' "$W/mpirun.$1.out"; }

# --- a rank crashes: no event; Open MPI ends the whole world ------------------
# mpirun exits non-zero and the launcher relaunches from the newest
# checkpoint, periodic here (--checkpoint-every 8): the steps since it are
# trained again.
logs=$(world_logs)
victim=$(printf '%s\n' "$logs" | sed -n 's/.*samples\.rank2\.world3\.pid\([0-9]*\)\.log$/\1/p')
like "the unit's rank (rank 2) is known by its pid" "$victim" '^[0-9]+$'
t0=$(now)
[[ $victim =~ ^[0-9]+$ ]] && kill -KILL "$victim"
ok "it crashes (SIGKILL): mpirun exits non-zero" wait_until 30 log_has "$W/base.out" 'exit restart=3 rc=[1-9]'
figure "mpi: rank crash to mpirun out: $(secs_since "$t0") s"
ok "3 ranks resume across the base and the unit" wait_until 60 steps_at 4 3
# shellcheck disable=SC2086 # a list of files
lost_d=$(last_step $logs) step_d=$(resumed_at 4)
diag "the crashed world had reached step $lost_d; resumed from step $step_d ($(cat "$W/newest.3"))"
like "... from the newest checkpoint" "$(grep ' restart 4 resumed' "$W/mpirun.4.out")" "resumed from $W/ckpt/$(cat "$W/newest.3") at"
ok "... at most 8 steps back" awk -v d="${step_d:-0}" -v l="${lost_d:-999}" -v c="${step_c:-0}" 'BEGIN { exit !(d > c && d <= l && l - d <= 8) }'

# --- the unit's node fails ------------------------------------------------------
# Slurm ends the unit's step with SIGTERM first, which libelastic counts as
# the event; whether the ranks checkpoint before the world ends is a race.
echo "$base" >"$W/members"
logs=$(world_logs)
node=$(job_field "$unit2" NodeList)
t0=$(now)
node_fail "$node"
ok "the unit's node $node fails: mpirun exits non-zero" wait_until 90 log_has "$W/base.out" 'exit restart=4 rc=[1-9]'
figure "mpi: node failure to mpirun out: $(secs_since "$t0") s"
ok "2 ranks resume in the base job alone" wait_until 60 log_has "$W/mpirun.5.out" 'train_mpi: world 2 restart 5'
# shellcheck disable=SC2086 # a list of files
lost_e=$(last_step $logs) step_e=$(resumed_at 5)
diag "the failed world had reached step $lost_e; resumed from step $step_e"
like "... from the newest checkpoint" "$(grep ' restart 5 resumed' "$W/mpirun.5.out")" "resumed from $W/ckpt/$(cat "$W/newest.4") at"
ok "... at most 8 steps back" awk -v d="${step_e:-0}" -v l="${lost_e:-999}" -v c="${step_d:-0}" 'BEGIN { exit !(d > c && d <= l && l - d <= 8) }'

ok "the base job completes" wait_until 120 job_gone_or_done "$base"
is "... COMPLETED, after 6 launches" "$(job_field "$base" JobState) $(grep -c '^launch ' "$W/base.out")" "COMPLETED 6"

window=$(((${lost_d:-0} - ${step_d:-0} + ${lost_e:-0} - ${step_e:-0}) * 64))
res=$(/usr/bin/python3 "$CHECK" "$W/ranklogs" $SAMPLES $EPOCHS --window "$window" 2>&1)
rc=$?
diag "$res"
is "every sample trained on once, but at most the $window after the checkpoints before the failures" "$rc" 0
# Every rank logs a step after its allreduce: all steps before the last one
# logged were logged by every rank, hence trained on again.
low=0
for k in "${lost_d:-0} ${step_d:-0}" "${lost_e:-0} ${step_e:-0}"; do
	set -- $k
	[ "$1" -gt "$(($2 + 1))" ] && low=$((low + ($1 - $2 - 1) * 64))
done
repeated=$(printf '%s\n' "$res" | sed -n 's/.* \([0-9]*\) repeated .*/\1/p')
ok "... and at least the $low of the steps every rank had logged" test "${repeated:-0}" -ge "$low"
init=$(sed -n 's/^initial loss //p' "$W/mpirun.5.out")
final=$(sed -n 's/^final loss //p' "$W/mpirun.5.out")
diag "initial loss $init, final loss $final"
ok "the loss decreased tenfold" awk -v i="${init:-0}" -v f="${final:-1}" 'BEGIN { exit !(i > 0 && f < i / 10) }'

if [ "$_t_failed" != 0 ]; then
	diag "base job output:"
	sed 's/^/#   /' "$W/base.out"
	for f in "$W"/mpirun.*.out; do
		diag "$f:"
		grep -v '^step ' "$f" | head -n 40 | sed 's/^/#   /'
	done
fi
done_testing
