# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # the suite's variables, shared with chaos
# faults.sh: the chaos suite's schedule and its faults, each real, and
# their inverses.  Sourced by chaos.
KINDS=(preempt crash-unit crash-base cut kill9 restart-elasticd restart-slurmctld restart-slurmdbd
	hang partition slow fullfs)
# draw_schedule SEED: K (kind), M (moment), P (pick), N (number), D
# (delay, tenths of s), H (hold before the inverse, s) for faults 1..FAULTS.
draw_schedule() {
	local i r base_nodes=2
	K=() M=() P=() N=() D=() H=()
	RANDOM=$1
	for ((i = 1; i <= FAULTS; i++)); do
		K[i]=${KINDS[RANDOM % ${#KINDS[@]}]}
		# A slow MPI rank is not found: its peers spin in the collective
		# and look as busy as it (elastic-run(1), "Slow nodes").
		[ "${K[i]}" != slow ] || (($1 % 2 == 0)) || K[i]=hang
		# The base has one node besides the batch host; once lost, it is gone.
		if [ "${K[i]}" = crash-base ]; then
			if [ "$base_nodes" = 1 ]; then K[i]=crash-unit; else base_nodes=1; fi
		fi
		r=$((RANDOM % 10))
		if ((r < 3)); then M[i]=resize; elif ((r < 6)); then M[i]=checkpoint; else M[i]=collective; fi
		# A launch prunes old checkpoints (--elastic-keep): during one, the
		# filesystem filled would not stay full.
		[ "${K[i]}" != fullfs ] || [ "${M[i]}" != resize ] || M[i]=collective
		P[i]=$((RANDOM % 16))
		case ${K[i]} in
		preempt) N[i]=$((1 + RANDOM % 2)) ;;
		cut) N[i]=$((2 + RANDOM % 5)) ;;
		*) N[i]=0 ;;
		esac
		D[i]=$((RANDOM % 40))
		H[i]=$((2 + RANDOM % 6))
	done
}

SICK="" HIGH_N=0 HIGH_BLOCKED="" STOPPED="" SPLIT_NODE="" SPLIT_PEERS="" THROTTLED="" FILLED="" FILLER="" LAST_CUT=""
pick() { # pick INDEX WORD...: one of the words, by index
	local i=$1
	shift
	[ $# -gt 0 ] || return 1
	shift $((i % $#))
	echo "$1"
}
kills=0
# rank_pids NODE: the ranks' processes on NODE, oldest first.
rank_pids() {
	ip netns pids "mc$MC_PORT_BASE-$1" 2>/dev/null | while read -r pid; do
		[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -d' ' -f"$RANK_ARGS")" = "$RANK_CMD" ] && echo "$pid"
	done | sort -n
}
apply_fault() { # apply_fault I: prints what it did; sets the pending recovery
	local i=$1 kind=${K[$1]}
	WHAT=""
	echo "$(date +%s.%N) fault - $kind" >>"$R/targets"
	case $kind in
	preempt) fault_preempt "$i" ;;
	crash-unit | crash-base) fault_crash "$i" ;;
	cut) fault_cut "$i" ;;
	kill9) fault_kill9 "$i" ;;
	hang | partition | slow) fault_sick "$i" ;;
	fullfs) fault_fullfs "$i" ;;
	restart-elasticd)
		expect "$kind" 90 0
		mc_ed_restart || run_fail "elasticd did not come back"
		WHAT="elasticd restarted (pid $ED_PID)"
		;;
	restart-slurmctld | restart-slurmdbd)
		# slurmctld saves a job's start a few seconds after it: killed
		# before, it starts the running base again, whose launch fails and
		# leaves it "launch failed requeued held" (Slurm 22.05).  Not that.
		[ "$kind" = restart-slurmdbd ] || wait_until 30 base_ran 10
		expect "$kind" 150 0
		"$MINICLUSTER" restart "${kind#restart-}" >/dev/null || run_fail "minicluster restart ${kind#restart-} failed"
		WHAT="${kind#restart-} restarted"
		;;
	esac || return 1
	[ -z "$WHAT" ] || say "  $(ts) fault $i/$FAULTS $kind: $WHAT"
}

fault_preempt() {
	local i=$1 hj
	HIGH_N=${N[i]}
	hj=$(sbatch --parsable -p high -N "${N[i]}" -J preemptor -D "$R" -o /dev/null -t 30 --wrap 'exec sleep 1800') ||
		{ run_fail "the preemptor was not accepted: $hj"; HIGH_N=0; return 1; }
	HIGH_JOBS="$HIGH_JOBS $hj"
	WHAT="high job $hj, ${N[i]} node(s)"
	HIGH_BLOCKED=""
	preemptor_blocked "${N[i]}" && HIGH_BLOCKED=1
	if [ -n "$HIGH_BLOCKED" ]; then
		WHAT="$WHAT: it cannot start (fewer than ${N[i]} nodes in service outside the base), the world stays"
		expect preempt 90 0
	else
		expect preempt 90 1
	fi
}

fault_crash() {
	local i=$1 kind=${K[$1]} node u
	if [ "$kind" = crash-unit ]; then
		# shellcheck disable=SC2046 # the unit ids
		u=$(pick "${P[i]}" $(running_units "$BASE"))
		node=${u:+$(job_hosts "$u")}
	else
		# shellcheck disable=SC2046 # the node names
		node=$(pick 0 $(job_hosts "$BASE" | grep -vxF "$(batch_host)"))
	fi
	# No such target now (the world is still growing): any node of
	# the group but the batch host.
	# shellcheck disable=SC2046 # the node names
	[ -n "$node" ] || node=$(pick "${P[i]}" $(group_nodes | grep -vxF "$(batch_host)"))
	[ -n "$node" ] || { run_fail "$kind: no node to crash"; return 1; }
	target_start "$node" "$kind"
	node_fail "$node" || { run_fail "minicluster crash $node failed"; return 1; }
	SICK=$node kills=$((kills + 1))
	WHAT="crash $node${u:+ (unit $u)}"
	expect "$kind" 150 1
}

fault_cut() {
	local i=$1 node u
	# shellcheck disable=SC2046 # the unit ids
	u=$(pick "${P[i]}" $(running_units "$BASE") ctl)
	if [ "$u" = ctl ]; then node=ctl; else node=$(job_hosts "$u"); fi
	[ -n "$node" ] || node=ctl
	target_start "$node" cut
	"$MINICLUSTER" cut "$node" >/dev/null || { run_fail "minicluster cut $node failed"; return 1; }
	CUT_HOST=$node LAST_CUT=$node
	kills=$((kills + 1))
	# The link is down for N seconds: a timed fault, not a wait.  Timed
	# apart from what follows: a command to a cut-off controller waits
	# some 25 s for it.
	(
		sleep "${N[i]}"
		exec "$MINICLUSTER" heal "$node" >/dev/null
	) &
	local healer=$!
	expect cut 90 0
	say "  $(ts) fault $i/$FAULTS cut: cut $node for ${N[i]} s"
	wait "$healer" || run_fail "minicluster heal $node failed"
	CUT_HOST=""
	target_end "$node" cut
	REC_OFF=$(lines)
}

# unit_rank_node I KIND: a node of a running unit (by pick) whose ranks
# run, waiting for one (60 s): never the batch host, which the world
# keeps whatever befalls it.
unit_rank_node() {
	local i=$1 u n deadline=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$deadline" ]; do
		# shellcheck disable=SC2046 # the unit ids
		for u in $(pick "${P[i]}" $(running_units "$BASE")) $(running_units "$BASE"); do
			n=$(job_hosts "$u")
			[ -n "$n" ] && [ -n "$(rank_pids "$n")" ] && { echo "$n"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

fault_kill9() {
	# A rank, not the launcher or an srun that names the program: on
	# the picked node of the group, else on another; during a resize
	# there is none until the relaunch, so wait for one (60 s).
	local i=$1 node pid="" deadline=$((SECONDS + 60)) n
	# shellcheck disable=SC2046 # the node names
	node=$(pick "${P[i]}" $(group_nodes))
	while [ -z "$pid" ] && [ "$SECONDS" -lt "$deadline" ]; do
		for n in $node $(group_nodes | grep -vxF "$node"); do
			pid=$(rank_pids "$n" | head -n1)
			[ -n "$pid" ] && node=$n && break
		done
		[ -n "$pid" ] || sleep 0.2
	done
	[ -n "$pid" ] || { run_fail "kill9: no rank on any node of the group for 60 s"; return 1; }
	expect kill9 90 1
	kill -KILL "$pid"
	kills=$((kills + 1))
	WHAT="kill -9 rank pid $pid on $node"
}

# fault_sick I: a unit's node that stays up and in Slurm's good books
# but leaves the world: its ranks stopped (hang), its routes to the other
# compute nodes but the batch host gone (partition), its ranks held to
# 1% of a CPU (slow: a fifth of the others' pace or less).  The launcher finds it and lets it go; elasticd
# drains it.  At the group's min, a slow node is only reported.
fault_sick() {
	local i=$1 kind=${K[$1]} node p a world
	node=$(unit_rank_node "$i") || { run_fail "$kind: no unit's node with ranks for 60 s"; return 1; }
	world=$(gq "$BASE" world 2>/dev/null)
	target_start "$node" "$kind"
	case $kind in
	hang)
		STOPPED=$(rank_pids "$node" | tr '\n' ' ')
		# shellcheck disable=SC2086 # the pids
		kill -STOP $STOPPED
		WHAT="SIGSTOP to the ranks on $node (pids $STOPPED)"
		;;
	partition)
		SPLIT_NODE=$node SPLIT_PEERS=""
		for p in $(group_nodes); do
			[ "$p" = "$node" ] || [ "$p" = "$(batch_host)" ] ||
				SPLIT_PEERS="$SPLIT_PEERS $("$MINICLUSTER" exec "$node" getent hosts "$p" | awk '{ print $1 }')"
		done
		for a in $SPLIT_PEERS; do "$MINICLUSTER" exec "$node" ip route add blackhole "$a/32"; done
		WHAT="$node split from$SPLIT_PEERS (all reach the batch host $(batch_host))"
		;;
	slow)
		for p in $(rank_pids "$node"); do cpu_throttle "$p" 1 || run_fail "slow: cannot throttle pid $p"; done
		THROTTLED=1
		WHAT="the ranks on $node held to 1% of a CPU"
		;;
	esac
	if [ "$kind" = slow ] && [ "${world:-0}" -le "$MINN" ]; then
		WHAT="$WHAT (the world at its min $world: reported, not evicted)"
		expect slow-at-min 120 0
		REC_PRED="said 'event=straggler .*node=$node .*action=report'"
	else
		SICK=$node
		expect "$kind" $((HANG_S + 120)) 1
	fi
	kills=$((kills + 1))
}

# fault_fullfs I: the checkpoint filesystem filled by root: the next
# save fails, loudly, and the training goes on from the last good
# checkpoint, which stays.
fault_fullfs() {
	LAST_GOOD=$(find "$CKPT" -maxdepth 1 -name 'ckpt-*' 2>/dev/null | sort | tail -n1)
	FILLED=$CKPTFS/.fill
	# shellcheck disable=SC2016 # for the shell that fills
	head -c "$(($(stat -f -c '%a * %S' "$CKPTFS")))" /dev/zero >"$FILLED" 2>/dev/null
	cat /dev/zero >>"$FILLED" 2>/dev/null
	# Kept full, as by another job writing there: the space elastic-run's
	# pruning of old checkpoints frees is taken again within 50 ms.
	(while :; do cat /dev/zero >>"$FILLED" 2>/dev/null; sleep 0.05; done) &
	FILLER=$!
	expect fullfs 120 0
	# A save fails, loudly, and the training steps on; or one got through
	# in the moment the pruning freed (a whole checkpoint, newer).
	REC_PRED="said_then_step '^$TAG: checkpoint not saved at step .*training goes on' || ckpt_after '${LAST_GOOD##*/}'"
	WHAT="$CKPTFS filled ($(df -h --output=avail "$CKPTFS" | tail -n1 | tr -d ' ') left; the newest checkpoint ${LAST_GOOD##*/})"
}

# has_inverse I / apply_inverse I: what undoes fault I (the growth, or
# the space given back); an admin's return to service of the node
# elasticd drained for it.
has_inverse() {
	case ${K[$1]} in
	preempt | crash-* | hang | partition | slow | fullfs) return 0 ;;
	cut) [ -n "$(ours_drained "$LAST_CUT")" ] ;;
	*) return 1 ;;
	esac
}
apply_inverse() {
	local i=$1 what relaunch=1 node=$SICK
	case ${K[i]} in
	preempt)
		# A preemptor that never ran took nothing: nothing grows back.
		# shellcheck disable=SC2086 # job ids
		[ -n "$(squeue -h -t R -j "$(echo $HIGH_JOBS | tr ' ' ,)" -o %i 2>/dev/null)" ] || relaunch=0
		# shellcheck disable=SC2086 # job ids
		scancel $HIGH_JOBS
		what="scancel$HIGH_JOBS"
		HIGH_JOBS="" HIGH_N=0 HIGH_BLOCKED=""
		;;
	crash-*)
		node_resume "$node" || run_fail "minicluster boot $node failed"
		what="boot $node"
		;;
	cut) node=$LAST_CUT what="" ;;
	hang | partition | slow)
		undo_sick
		what=$UNDONE
		;;
	fullfs)
		inverse_fullfs "$i"
		return
		;;
	esac
	[ -z "$node" ] || target_end "$node" "${K[i]}"
	SICK=""
	what="$what$(resume_ours "$node")"
	expect grow 120 "$relaunch"
	say "  $(ts) fault $i/$FAULTS inverse: ${what#; }"
}
# undo_sick: the node of a hang, partition or slow fault as it was
# (UNDONE: what was done).
undo_sick() {
	local a
	UNDONE=""
	if [ -n "$STOPPED" ]; then
		# shellcheck disable=SC2086 # the pids (gone, mostly: let go)
		kill -CONT $STOPPED 2>/dev/null
		UNDONE="SIGCONT to what is left of $STOPPED"
		STOPPED=""
	fi
	if [ -n "$SPLIT_NODE" ]; then
		for a in $SPLIT_PEERS; do "$MINICLUSTER" exec "$SPLIT_NODE" ip route del blackhole "$a/32" 2>/dev/null; done
		UNDONE="routes of $SPLIT_NODE back"
		SPLIT_NODE="" SPLIT_PEERS=""
	fi
	if [ -n "$THROTTLED" ]; then
		cpu_unthrottle
		UNDONE="CPU of $SICK given back"
		THROTTLED=""
	fi
}
# ours_drained NODE: NODE if elasticd drained it (its reason ours).
ours_drained() {
	[ -n "$1" ] && sinfo -h -N -n "$1" -t drain,drained,draining -o '%N %E' 2>/dev/null |
		awk '/slurm-elastic:/ { print $1; exit }'
}
# resume_ours NODE: as an admin would, NODE back in service if elasticd
# drained it ("; resume NODE" said).
resume_ours() {
	local why
	[ -n "$(ours_drained "$1")" ] || return 0
	why=$(sinfo -h -N -n "$1" -o %E | head -n1)
	scontrol update NodeName="$1" State=RESUME && echo "; resume $1 (drained by elasticd: $why)"
}
stop_filler() {
	[ -z "$FILLER" ] || { kill "$FILLER" 2>/dev/null; wait "$FILLER" 2>/dev/null; }
	FILLER=""
}
inverse_fullfs() { # inverse_fullfs I
	local c now
	stop_filler
	rm -f "$FILLED"
	FILLED=""
	# The newest checkpoint is whole and no older than the last good one
	# (elastic-run may have pruned that one, --elastic-keep, once a save
	# got through the space the pruning freed).
	now=$(find "$CKPT" -maxdepth 1 -name 'ckpt-*' 2>/dev/null | sort | tail -n1)
	if [ -n "$LAST_GOOD" ] && { [ ! -s "$now" ] || [[ ${now##*/} < ${LAST_GOOD##*/} ]]; }; then
		run_fail "fullfs: the newest checkpoint is ${now:-none}, older than the last good one ${LAST_GOOD##*/} or empty"
	fi
	c=$(find "$CKPT" -maxdepth 1 -name '.*tmp*' 2>/dev/null | head -n3 | tr '\n' ' ')
	[ -z "$c" ] || run_fail "fullfs: partial checkpoint files left: $c"
	expect fullfs-space 60 0
	REC_PRED="ckpt_after '${now##*/}'"
	say "  $(ts) fault $1/$FAULTS inverse: space back in $CKPTFS (the newest checkpoint ${now##*/}; ${LAST_GOOD##*/} when it filled)"
}
