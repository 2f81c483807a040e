# shellcheck shell=bash
# minicluster's hosts: a network and UTS namespace per host, veth links on
# a bridge, /etc/hosts of the cluster, entering a host, starting a host's
# munged and slurmd.  Sourced by minicluster after its settings; defines
# functions and the names of links and files only.

BRIDGE=${TAG}br
# The far side of a partition: hosts moved to this bridge reach only
# each other.
BRIDGE_CUT=${TAG}pt
NS_DIR=/run/netns
HOSTS_FILE=$RUN/hosts.list
ENTER=$RUN/enter

netns_of() { echo "$TAG-$1"; }
# The bridge's end of HOST's link.
veth_of() { echo "$TAG$1"; }
addr_of() {
	case $1 in
	ctl) echo "$MC_SUBNET.2" ;;
	login) echo "$MC_SUBNET.3" ;;
	n*) echo "$MC_SUBNET.$((10 + ${1#n}))" ;;
	esac
}
# The hosts of the running cluster (recorded by up, whatever MC_NODES is now).
cluster_hosts() { cat "$HOSTS_FILE" 2>/dev/null || true; }

need_hosts() {
	((EUID == 0)) || die "must run as root"
	((MC_HOSTS)) || die "$1: only for a cluster of hosts (MC_HOSTS=1)"
	[[ -s $HOSTS_FILE ]] || die "$1: no cluster of hosts in $MC_DIR (run '$PROG up' first)"
}
check_host() { # check_host CMD HOST [node]
	grep -qx -- "$2" "$HOSTS_FILE" || die "$1: no host '$2' (hosts: $(paste -sd' ' "$HOSTS_FILE"))"
	[[ ${3:-} != node || $2 == n* ]] || die "$1: '$2' is not a compute node (n1..nN)"
}

# Paths under /tmp that this machine shares with every host (each host
# has a /tmp of its own): the trees and MC_DIR, as a cluster's shared file
# system would hold them.
shared_tmp_dirs() {
	local d rel
	for d in "$MC_DIR" "$ELASTIC_SRCDIR" "$ELASTIC_BUILDDIR"; do
		[[ $d == /tmp/?* ]] || continue
		rel=${d#/tmp/}
		echo "/tmp/${rel%%/*}"
	done | sort -u
}

# RUN/enter HOST CMD...: run as HOST.  Called inside HOST's network
# namespace and a new, private mount and UTS namespace, so everything it
# sets up goes away with the last process of that namespace.
write_enter() {
	local shared
	shared=$(shared_tmp_dirs | tr '\n' ' ')
	cat >"$ENTER" <<EOF
#!/bin/sh
# Written by $PROG up.  enter HOST CMD...: its name, the cluster's
# /etc/hosts, its munged's socket directory, its own /tmp; then CMD.
set -e
h=\$1
shift
hostname "\$h"
mount --bind "$ETC/hosts" /etc/hosts
t="$MC_DIR/hosts/\$h/tmp"
for d in $shared; do
	mkdir -p "\$t\${d#/tmp}"
	mount --bind "\$d" "\$t\${d#/tmp}"
done
mount --rbind "\$t" /tmp
# After /tmp: MC_DIR may lie there.
mount --bind "$MC_DIR/hosts/\$h/munge" "$RUN/munge"
exec "\$@"
EOF
	chmod 755 "$ENTER"
}

# host_argv HOST: HOST_ARGV, the command prefix that runs a command as HOST.
host_argv() {
	HOST_ARGV=(nsenter --net="$NS_DIR/$(netns_of "$1")"
		unshare --mount --uts --propagation private "$ENTER" "$1")
}

host_net_add() {
	local h=$1 ns veth
	ns=$(netns_of "$h") veth=$(veth_of "$h")
	ip netns add "$ns"
	ip link add "$veth" type veth peer name eth0 netns "$ns"
	ip link set "$veth" master "$BRIDGE" up
	ip -n "$ns" addr add "$(addr_of "$h")/24" dev eth0
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
}

write_hosts_file() {
	local h me
	{
		echo "# Written by $PROG up: the cluster's hosts."
		echo "127.0.0.1 localhost"
		echo "::1 localhost ip6-localhost ip6-loopback"
		while read -r h; do echo "$(addr_of "$h") $h"; done < <(cluster_hosts)
		# This machine, whose clients (sbatch, srun) the daemons call
		# back by its name, as a login node's name resolves on a cluster.
		me=$(hostname)
		grep -qx -- "$me" "$HOSTS_FILE" || echo "$MC_SUBNET.1 $me"
	} >"$ETC/hosts"
	chmod 644 "$ETC/hosts"
}

# Hosts: the bridge (this machine's address .1 on it), a namespace and a
# link for each host, a directory of its own (munge socket, /tmp).
hosts_up() {
	local h
	if [[ -e $NS_DIR/$(netns_of ctl) ]] || ip link show "$BRIDGE" >/dev/null 2>&1; then
		hosts_have_processes &&
			die "namespaces or links of $TAG exist already: a cluster with MC_PORT_BASE=$MC_PORT_BASE is up"
		# Its processes were killed before its down ran (a run cut
		# short): nothing lives there, what is left goes.
		echo "$PROG: removing the namespaces and links of $TAG, left by a cluster whose processes are gone" >&2
		hosts_down || die "the namespaces and links of $TAG left by a cluster whose processes are gone do not go"
	fi
	if ip -4 -o addr show | grep -q " inet $MC_SUBNET\\."; then
		die "addresses of $MC_SUBNET.0/24 are in use on this machine; set MC_SUBNET"
	fi
	# From here on a failed up removes what it made (not another cluster's).
	HOSTS_MADE=1
	{ echo ctl; echo login; seq -f 'n%g' 1 "$MC_NODES"; } >"$HOSTS_FILE"
	write_hosts_file
	write_enter
	mkdir -p "$RUN/munge"
	chmod 755 "$RUN/munge"
	ip link add "$BRIDGE" type bridge
	ip addr add "$MC_SUBNET.1/24" dev "$BRIDGE"
	ip link set "$BRIDGE" up
	while read -r h; do
		mkdir -p "$MC_DIR/hosts/$h/munge" "$MC_DIR/hosts/$h/tmp"
		chmod 755 "$MC_DIR/hosts" "$MC_DIR/hosts/$h" "$MC_DIR/hosts/$h/munge"
		chmod 1777 "$MC_DIR/hosts/$h/tmp"
		host_net_add "$h"
	done < <(cluster_hosts)
}

# Whether a process lives in a namespace of the hosts.
hosts_have_processes() {
	local ns
	for ns in "$NS_DIR/$TAG"-*; do
		[[ -e $ns ]] || continue
		[[ -z $(ip netns pids "${ns##*/}" 2>/dev/null) ]] || return 0
	done
	return 1
}

# host_kill HOST: SIGKILL every process in HOST's network namespace,
# until none is left (a dying slurmstepd may still fork).
host_kill() {
	local ns pids deadline
	ns=$(netns_of "$1")
	[[ -e $NS_DIR/$ns ]] || return 0
	deadline=$(($(now) + 10000000))
	while pids=$(ip netns pids "$ns" 2>/dev/null) && [[ -n $pids ]]; do
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $pids 2>/dev/null || true
		if (($(now) > deadline)); then
			echo "$PROG: processes of $1 survive SIGKILL: $pids" >&2
			return 1
		fi
		sleep 0.05
	done
}

# Everything of the hosts goes: processes, namespaces, links; their mounts
# lived in the processes' own mount namespaces and went with them.
hosts_down() {
	local ns h
	for ns in "$NS_DIR/$TAG"-*; do
		[[ -e $ns ]] || continue
		h=${ns##*/}
		host_kill "${h#"$TAG"-}" || true
		# A dead process's TCP sockets to a peer that is gone (a crashed
		# node) live on, retrying, for minutes, and keep the namespace
		# and its link: closed here, as a host's reboot would.
		ip netns exec "$h" ss -K -t -a >/dev/null 2>&1 || true
		ip netns del "$h" 2>/dev/null || true
	done
	ip link del "$BRIDGE" 2>/dev/null || true
	ip link del "$BRIDGE_CUT" 2>/dev/null || true
	rm -f "$HOSTS_FILE"
	# The kernel removes a deleted namespace's links a moment later.
	local deadline=$(($(now) + 5000000))
	while ip -o link show | grep -q ": ${TAG}[a-z0-9]*[@:]"; do
		(($(now) < deadline)) || { echo "$PROG: links of $TAG still there after 5 s" >&2; return 1; }
		sleep 0.05
	done
}

start_munged() { # start_munged HOST
	local h=$1 d=$MC_DIR/hosts/$1
	start_on "$h" "munged-$h" munged -F --num-threads=10 --socket="$MUNGE_SOCK" \
		--key-file="$MC_DIR/munge/munge.key" --seed-file="$d/munged.seed" \
		--pid-file="$d/munged.pid" --log-file="$LOG/munged-$h.log"
}
start_slurmd() { # start_slurmd NODE
	if ((MC_HOSTS)); then
		# Its name from its hostname, as on a real node.
		start_on "$1" "slurmd-$1" slurmd -D
	else
		start "slurmd-$1" slurmd -D -N "$1"
	fi
}
# host_munge_ok HOST: a credential made on HOST decodes on ctl.
host_munge_ok() {
	local -a a b
	host_argv "$1" && a=("${HOST_ARGV[@]}")
	host_argv ctl && b=("${HOST_ARGV[@]}")
	"${a[@]}" munge -n -S "$MUNGE_SOCK" | "${b[@]}" unmunge -S "$MUNGE_SOCK"
}
