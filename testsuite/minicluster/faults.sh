# shellcheck shell=bash
# minicluster's fault commands, each with its inverse: exec, crash/boot,
# cut/heal, partition/join, restart, and elasticd (started so that restart
# can restart it).  Sourced by minicluster; defines functions only.

cmd_exec() {
	(($# >= 2)) || die "usage: $PROG exec HOST CMD..."
	need_hosts exec
	check_host exec "$1"
	host_argv "$1"
	shift
	exec "${HOST_ARGV[@]}" "$@"
}

# The host dies: SIGKILL to everything on it, its link down.  Slurm finds
# out as it would on a real cluster: the node stops answering.
cmd_crash() {
	(($# == 1)) || die "usage: $PROG crash NODE"
	need_hosts crash
	check_host crash "$1" node
	local at
	ip link set "$(veth_of "$1")" down
	at=${EPOCHREALTIME/,/.} # the fault's instant, for who times it
	host_kill "$1"
	forget "slurmd-$1" "munged-$1"
	echo "$PROG: crash: $1 is down: its processes killed, its link down at $at"
}

# A crashed node comes back as after a reboot: link up, fresh daemons.
cmd_boot() {
	local t0 h=${1:-}
	(($# == 1)) || die "usage: $PROG boot NODE"
	need_hosts boot
	check_host boot "$h" node
	t0=$(now)
	if daemon_alive "slurmd-$h"; then die "boot: $h is up (slurmd pid $(read_pid "slurmd-$h")); crash it first"; fi
	host_kill "$h"
	ip link set "$(veth_of "$h")" up
	trap up_cleanup EXIT
	start_munged "$h"
	wait_until "munged-$h" 10 "a credential of $h decoded on ctl" host_munge_ok "$h"
	start_slurmd "$h"
	# Registered: the node answers again (no '*' in sinfo's state).
	wait_until "slurmd-$h" 60 "$h registered with slurmctld" node_answers "$h"
	UP_DONE=1
	trap - EXIT
	echo "$PROG: boot: $h is up in $(elapsed "$t0") s"
}
node_answers() {
	local st
	st=$(sinfo -h -n "$1" -N -o '%t' 2>/dev/null) && [[ -n $st && $st != *'*' && $st != down* ]]
}

# Cut off the network, processes alive; heal brings the link back.
cmd_cut() {
	(($# == 1)) || die "usage: $PROG cut HOST"
	need_hosts cut
	check_host cut "$1"
	ip link set "$(veth_of "$1")" down
	echo "$PROG: cut: $1 is off the network (its processes run on)"
}
cmd_heal() {
	(($# == 1)) || die "usage: $PROG heal HOST"
	need_hosts heal
	check_host heal "$1"
	ip link set "$(veth_of "$1")" up
	echo "$PROG: heal: $1 is back on the network"
}

# The named hosts move to a bridge of their own: they reach each other,
# not the rest (nor this machine).
cmd_partition() {
	local h
	(($# >= 1)) || die "usage: $PROG partition HOST..."
	need_hosts partition
	for h in "$@"; do check_host partition "$h"; done
	if ! ip link show "$BRIDGE_CUT" >/dev/null 2>&1; then
		ip link add "$BRIDGE_CUT" type bridge
		ip link set "$BRIDGE_CUT" up
	fi
	for h in "$@"; do ip link set "$(veth_of "$h")" master "$BRIDGE_CUT"; done
	echo "$PROG: partition: $* cut off from the other hosts"
}
cmd_join() {
	local h
	need_hosts join
	while read -r h; do
		ip link set "$(veth_of "$h")" master "$BRIDGE" 2>/dev/null || true
	done < <(cluster_hosts)
	ip link del "$BRIDGE_CUT" 2>/dev/null || true
	echo "$PROG: join: every host on one network again"
}

# kill -9 a daemon and start it again from its saved state, as systemd's
# Restart= would.
cmd_restart() {
	local what=${1:-} h=${2:-} name pid t0 cmd
	((EUID == 0)) || die "must run as root"
	[[ $what == elasticd ]] || need_hosts restart
	t0=$(now)
	case $what in
	slurmctld | slurmdbd) name=$what h=ctl ;;
	munged)
		check_host restart "$h"
		name=munged-$h
		;;
	elasticd) name=elasticd h=ctl ;;
	*) die "usage: $PROG restart slurmctld|slurmdbd|elasticd | restart munged HOST" ;;
	esac
	pid=$(read_pid "$name")
	daemon_alive "$name" || die "restart: $name is not running"
	kill -KILL "$pid"
	while pid_alive "$pid"; do sleep 0.05; done
	trap up_cleanup EXIT
	case $name in
	slurmctld)
		start_on ctl slurmctld slurmctld -D
		wait_until slurmctld 30 "slurmctld answering scontrol ping" ctld_up
		;;
	slurmdbd)
		start_on ctl slurmdbd slurmdbd -D
		wait_until slurmdbd 120 "slurmdbd answering sacctmgr" sacctmgr -n list cluster
		;;
	munged-*)
		start_munged "$h"
		wait_until "$name" 10 "a credential of $h decoded on ctl" host_munge_ok "$h"
		;;
	elasticd)
		mapfile -d '' -t cmd <"$RUN/elasticd.cmd"
		start_on ctl elasticd "${cmd[@]}"
		;;
	esac
	UP_DONE=1
	trap - EXIT
	echo "$PROG: restart: $name restarted in $(elapsed "$t0") s (pid $(read_pid "$name"))"
}

# elasticd ARGS...: the build tree's elasticd (the installed one with
# ELASTIC_INSTALLED=1) on ctl (on this machine without hosts), recorded so
# that down stops it and restart restarts it.
cmd_elasticd() {
	local bin=$ELASTIC_BUILDDIR/src/elasticd/elasticd
	((EUID == 0)) || die "must run as root"
	if ((ELASTIC_INSTALLED)); then
		bin=/usr/sbin/elasticd
		[[ -x $bin ]] || die "elasticd: ELASTIC_INSTALLED=1: not installed: $bin (install elasticd)"
	fi
	[[ -x $bin ]] || die "elasticd: not built: $bin"
	daemon_alive slurmctld || die "elasticd: the cluster is not up in $MC_DIR"
	if daemon_alive elasticd; then die "elasticd: already running (pid $(read_pid elasticd))"; fi
	printf '%s\0' "$bin" "$@" >"$RUN/elasticd.cmd"
	start_on ctl elasticd "$bin" "$@"
	UP_DONE=1
	echo "$PROG: elasticd: started (pid $(read_pid elasticd), log $LOG/elasticd.out)"
}
