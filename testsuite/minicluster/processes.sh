# shellcheck shell=bash
# minicluster's daemons: pid files with their start times, alive or not,
# stopped by pid (never by name), the slurmstepds of our jobs.  Sourced by
# minicluster after its settings; defines functions only.

# The command name a recorded daemon must have; guards against pid reuse
# for pid files without a recorded start time.
comm_of() { case $1 in slurmd-*) echo slurmd ;; munged-*) echo munged ;; *) echo "$1" ;; esac; }

# start_time PID: the process's start time in clock ticks since boot. Unlike
# its command name it stays through the setsid/nsenter/unshare execs before
# the daemon's own, so a daemon is never taken for dead while it starts.
start_time() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split the fields
	set -- $stat
	echo "${20}"
}

# pid_alive PID [COMM]: running (zombies count as dead: they are not our
# children, and init may reap them late) and, if given, named COMM.
pid_alive() {
	local stat comm
	[[ $1 =~ ^[0-9]+$ ]] || return 1
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[[ ${stat:0:1} != Z ]] || return 1
	[[ -z ${2:-} ]] && return 0
	read -r comm 2>/dev/null <"/proc/$1/comm" && [[ $comm == "$2" ]]
}

read_pid() { cat "$RUN/$1.pid" 2>/dev/null || true; }
# forget NAME...: the daemons' records (pid and start time) go.
forget() {
	local n
	for n in "$@"; do rm -f "$RUN/$n.pid" "$RUN/$n.start"; done
}
# daemon_alive NAME: NAME's recorded process runs, the very one start began.
daemon_alive() {
	local pid t
	pid=$(read_pid "$1")
	pid_alive "$pid" || return 1
	if [[ -s $RUN/$1.start ]]; then
		t=$(start_time "$pid") && [[ $t == "$(cat "$RUN/$1.start" 2>/dev/null)" ]]
	else
		pid_alive "$pid" "$(comm_of "$1")"
	fi
}

# Recorded daemons in start order (slurmd by node number, whatever MC_NODES
# was when they were started).
recorded() {
	local n f
	for n in munged munged-ctl munged-login mariadbd slurmdbd slurmctld elasticd; do
		if [[ -e $RUN/$n.pid ]]; then echo "$n"; fi
	done
	for f in "$RUN"/munged-n*.pid; do
		if [[ -e $f ]]; then basename "$f" .pid; fi
	done | sort -V
	for f in "$RUN"/slurmd-n*.pid; do
		if [[ -e $f ]]; then basename "$f" .pid; fi
	done | sort -V
}

# The freshest account of a daemon's failure: its stderr (truncated at each
# start; Slurm daemons under -D log everything there too), but MariaDB's
# own error log.
log_tail() {
	local f=$LOG/$1.out
	[[ $1 != mariadbd && -s $f ]] || f=$LOG/$1.log
	[[ -s $f ]] || return 0
	echo "--- tail of $f" >&2
	tail -n 15 "$f" | sed 's/^/  | /' >&2
}

# stop_daemons NAME...: TERM all, wait (deadline), KILL what is left.
stop_daemons() {
	local n pid deadline
	local -a left
	local -a pids=()
	for n in "$@"; do
		pid=$(read_pid "$n")
		if daemon_alive "$n"; then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	deadline=$(($(now) + 30000000))
	while :; do
		left=()
		for pid in "${pids[@]}"; do
			if pid_alive "$pid"; then left+=("$pid"); fi
		done
		((${#left[@]})) || break
		if (($(now) > deadline)); then
			echo "$PROG: $* still alive after 30 s, sending KILL" >&2
			kill -KILL "${left[@]}" 2>/dev/null || true
			deadline=$(($(now) + 5000000))
			pids=("${left[@]}")
			continue
		fi
		sleep 0.1
	done
	forget "$@"
}

# slurmstepd double-forks away from slurmd, so find ours by the SLURM_CONF
# they inherit from the slurmd we started.
our_stepds() {
	local p comm
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		[[ $comm == slurmstepd ]] || continue
		pid_alive "${p#/proc/}" || continue
		grep -qzxF "SLURM_CONF=$CONF" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
	done
	return 0
}

# with_descendants PID...: the PIDs and all their descendants.
with_descendants() {
	ps -eo pid=,ppid= | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) in_tree[r[i]] = 1 }
		{ parent[$1] = $2 }
		END {
			do {
				grew = 0
				for (p in parent)
					if (!(p in in_tree) && (parent[p] in in_tree)) { in_tree[p] = 1; grew = 1 }
			} while (grew)
			for (p in in_tree) print p
		}'
}
