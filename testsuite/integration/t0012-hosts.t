#!/bin/bash
# The embedded cluster as hosts (MC_HOSTS=1): every host its own network
# and UTS namespace, its own /tmp and munged; and the faults of a real
# cluster as commands: crash/boot, cut/heal, partition/join, restart.
# A cluster of its own, side by side with the one the other tests share.
. "$(dirname "$0")/lib.sh"

plan 51

HDIR=$MC_DIR-hosts
HPORT=$((MC_PORT_BASE + 700))
mch() {
	MC_HOSTS=1 MC_DIR=$HDIR MC_PORT_BASE=$HPORT MC_NODES=3 MC_FIRST_JOB_ID=700000 \
		MC_PART_BASE='n[1-3]' "$MINICLUSTER" "$@"
}
TAG=mc$HPORT
SUBNET=$(mch env | sed -n 's/.* MC_SUBNET=//p')
[ -n "$SUBNET" ] || bail "minicluster env gives no MC_SUBNET with MC_HOSTS=1"

# The cluster's processes, by the paths they were started with.
hdir_processes() { ps -eo pid=,args= | grep -F -- "$HDIR/" | grep -v grep; }
# Everything of the cluster this test may leave: its processes,
# namespaces, links and mounts.
leftovers() {
	{
		hdir_processes
		ip netns list | grep "^$TAG-"
		ip -o link show | grep ": $TAG"
		grep -F -- "$HDIR/" /proc/self/mountinfo
	} 2>/dev/null
}
cleanup() { mch down >/dev/null 2>&1; }
at_exit cleanup

mch down >/dev/null 2>&1
t0=$(date +%s.%N)
out=$(mch up 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "minicluster up with MC_HOSTS=1 succeeds" "$rc" 0
diag "figure: hosts: up in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (ctl, login, 3 nodes)"
ok "status: every daemon alive" mch status
like "... hosts with their own addresses" "$(mch status)" "n3 +$SUBNET\.13 +linked"
eval "$(mch env)"
export SLURM_CONF MC_MUNGE_SOCKET
mkdir -p "$HDIR/jobs" && cd "$HDIR/jobs" || bail "no $HDIR/jobs"
is "sinfo from this machine, through the bridge" "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" \
	"n1 idle n2 idle n3 idle "

# --- each host is a host ------------------------------------------------------
# shellcheck disable=SC2016 # expanded in the tasks
steps=$(timeout 60 srun -Q -N3 -p base bash -c 'echo "$SLURMD_NODENAME $(hostname) $(ip -4 -o addr show eth0 | awk "{ print \$4 }")"' 2>&1 | sort | tr '\n' ' ')
is "in a 3-node step, each task sees its node's own hostname and address" "$steps" \
	"n1 n1 $SUBNET.11/24 n2 n2 $SUBNET.12/24 n3 n3 $SUBNET.13/24 "
# (srun -Q: a node still completing the last step's job makes srun say it
# waits for resources, which is not the step's output.)
# What the writing step said, when it failed, names the fault.
w=$(timeout 60 srun -Q -N1 -w n1 bash -c 'echo mine >/tmp/t0012-private' 2>&1) ||
	diag "the step writing on n1 failed ($?): $w"
is "... /tmp is the host's own: a file written on n1 is there on n1" \
	"$(timeout 60 srun -Q -N1 -w n1 cat /tmp/t0012-private 2>&1)" mine
ok "... not on n2" timeout 30 srun -N1 -w n2 test ! -e /tmp/t0012-private
ok "... nor on this machine" test ! -e /tmp/t0012-private
is "exec: login is a host of its own" "$(mch exec login hostname)" login
like "... where host names resolve to the hosts' addresses" "$(mch exec login getent hosts n2)" "^$SUBNET\.12 +n2"
is "... and Slurm's clients work" "$(mch exec login sinfo -h -N -n n3 -o %N | sort -u)" n3
munge_across() { mch exec n2 munge -n -S "$MC_MUNGE_SOCKET" | mch exec ctl unmunge -S "$MC_MUNGE_SOCKET" >/dev/null; }
ok "munge credentials made on a node decode on ctl" munge_across

# --- crash and boot -----------------------------------------------------------
# A 2-node job whose tasks keep a heartbeat file each; n2's will die.
hb=$HDIR/jobs/hb && mkdir -p "$hb" && rm -f "$hb"/*
jid=$(sbatch --parsable -N2 -w n1,n2 --no-kill -o "$HDIR/jobs/crash.out" \
	--wrap "srun --no-kill bash -c 'while :; do date +%s.%N >$hb/\$SLURMD_NODENAME; sleep 0.2; done'")
ok "a 2-node job with a task beating on each node" wait_until 60 eval '[ -s "$hb/n1" ] && [ -s "$hb/n2" ]'
ok "... n2 runs slurmd, slurmstepd and the task" \
	bash -c "ip netns pids $TAG-n2 | xargs -r ps -o comm= -p | sort -u | tr '\n' ' ' | grep -q 'slurmd slurmstepd'"
t_crash=$(date +%s.%N)
out=$(mch crash n2 2>&1)
ok "crash n2" test $? = 0
# n2's task may beat once more while crash starts; none after it returned.
t_dead=$(date +%s.%N)
is "... no process is left on n2" "$(ip netns pids "$TAG-n2" | wc -l)" 0
after() { awk -v a="$(cat "$hb/$1")" -v b="$2" 'BEGIN { exit !(a > b) }'; }
ok "... n1's task beats on, a second after the crash" wait_until 30 after n1 "$(awk -v t="$t_crash" 'BEGIN { printf "%.3f", t + 1 }')"
ok "... n2's has not beaten since" bash -c "! awk -v a=\"\$(cat '$hb/n2')\" -v b='$t_dead' 'BEGIN { exit !(a > b) }'"
node_down() { sinfo -h -N -n n2 -o %t | grep -q '^down'; }
ok "slurmctld sees n2 down (SlurmdTimeout=10)" wait_until 90 node_down
diag "figure: hosts: crash to node down in slurmctld $(awk -v a="$t_crash" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
ok "... the --no-kill job goes on without it" \
	wait_until 30 eval '[ "$(job_field "$jid" NodeList)" = n1 ] && [ "$(job_field "$jid" JobState)" = RUNNING ]'
out=$(mch boot n2 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "boot n2" "$rc" 0
is "... n2 is idle again" "$(sinfo -h -N -n n2 -o %t | sort -u)" idle
is "... and runs steps" "$(timeout 30 srun -Q -N1 -w n2 hostname 2>&1)" n2
scancel "$jid"

# --- restarts -----------------------------------------------------------------
# On n1, as the checks below say: without -w the job may start on n2 while
# n1 still ends the job before.
jid=$(sbatch --parsable -N1 -w n1 -o /dev/null --wrap 'exec sleep 300')
ok "a job runs" wait_until 60 job_running "$jid"
# slurmctld writes its state a moment after a change: what a kill -9
# takes with it before that is lost, as on any cluster.  Wait for it.
t_run=$(date +%s)
saved() { [ "$(stat -c %Y "$HDIR/state/job_state" 2>/dev/null || echo 0)" -gt "$t_run" ]; }
ok "... and slurmctld saved its state since" wait_until 30 saved
ok "restart slurmctld (kill -9, start from its saved state)" mch restart slurmctld
is "... the running job survives it" "$(job_field "$jid" JobState)" RUNNING
# Until its nodes have registered again, slurmctld holds new steps.
step_in_job() { [ "$(timeout 10 srun --jobid="$jid" --overlap -N1 hostname 2>/dev/null)" = n1 ]; }
t_ctld=$(date +%s.%N)
ok "... and steps start in it again" wait_until 120 step_in_job
diag "figure: hosts: slurmctld restart to a new step in a running job $(awk -v a="$t_ctld" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
ok "restart slurmdbd" mch restart slurmdbd
ok "restart munged n1" mch restart munged n1
is "... the job's node still runs its steps" "$(timeout 30 srun -Q --jobid="$jid" --overlap -N1 hostname 2>&1)" n1
scancel "$jid"

# --- cut and heal -------------------------------------------------------------
slurmd3=$(cat "$HDIR/run/slurmd-n3.pid")
ok "cut n3" mch cut n3
ok "... a step on n3 cannot start" bash -c '! timeout 30 srun -N1 -w n3 true >/dev/null 2>&1'
ok "... its slurmd lives on" kill -0 "$slurmd3"
ok "heal n3" mch heal n3
# slurmctld set it DOWN if the cut outlasted SlurmdTimeout; it pings such
# a node again only now and then (about a minute here).
node_answers() { [ "$(sinfo -h -N -n "$1" -o %t | sort -u)" = idle ]; }
t_heal=$(date +%s.%N)
ok "... n3 answers slurmctld again" wait_until 180 node_answers n3
diag "figure: hosts: heal to node idle in slurmctld $(awk -v a="$t_heal" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
is "... and runs steps" "$(timeout 30 srun -Q -N1 -w n3 hostname 2>&1)" n3

# --- partition and join -------------------------------------------------------
ok "partition ctl from the others" mch partition ctl
like "... a node cannot reach slurmctld" "$(mch exec n1 timeout 20 scontrol ping 2>&1)" 'is DOWN'
like "... ctl still reaches itself" "$(mch exec ctl timeout 20 scontrol ping 2>&1)" 'is UP'
ok "join" mch join
ok "... the node reaches slurmctld again" wait_until 30 eval 'mch exec n1 scontrol ping 2>/dev/null | grep -q "is UP"'

# --- down leaves nothing ------------------------------------------------------
ok "down" mch down
is "... no process, namespace, link or mount of the cluster is left" "$(leftovers)" ""

# --- a run cut short ----------------------------------------------------------
# Every process killed before down ran (a run ended from outside): the
# namespaces and links stay, and the next up takes their place.
cluster_pids() {
	{
		hdir_processes | awk '{ print $1 }'
		for ns in $(ip netns list | awk -v t="$TAG-" 'index($1, t) == 1 { print $1 }'); do
			ip netns pids "$ns"
		done
	} 2>/dev/null | sort -u
}
kill_all() {
	local p
	for p in $(cluster_pids); do kill -KILL "$p" 2>/dev/null; done
	[ -z "$(cluster_pids)" ]
}
mch up >/dev/null 2>&1 || bail "the cluster does not come up again"
ok "every process of the cluster killed" wait_until 20 kill_all
ok "... its namespaces and links stay" eval 'ip netns list | grep -q "^$TAG-ctl" && ip link show "${TAG}br" >/dev/null'
out=$(mch up 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "up again succeeds" "$rc" 0
like "... saying what it removed" "$out" "removing the namespaces and links of $TAG, left by a cluster whose processes are gone"
ok "... every daemon alive" mch status
ok "down" mch down
is "... nothing of the cluster is left" "$(leftovers)" ""

done_testing
