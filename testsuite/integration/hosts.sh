# For the tests on a cluster of hosts (MC_HOSTS=1, minicluster(1)): a
# cluster of their own beside the shared one, elasticd on its host ctl.
# Source it after lib.sh, then call hosts_setup; everything after (lib.sh's
# and elasticd.sh's helpers) talks to that cluster.
# shellcheck shell=bash

# hosts_setup NODES FIRST-JOB-ID: up, the clients' environment, elasticd's
# settings (ed_setup), and an EXIT trap that also brings the cluster down.
hosts_setup() {
	local up
	export MC_HOSTS=1 MC_DIR=$MC_DIR-hosts MC_PORT_BASE=$((MC_PORT_BASE + 700)) MC_NODES=$1 MC_FIRST_JOB_ID=$2
	"$MINICLUSTER" down >/dev/null 2>&1
	up=$("$MINICLUSTER" up 2>&1) || bail "minicluster up with MC_HOSTS=1 failed: $up"
	# Each host has a /tmp of its own: files the jobs share live in MC_DIR,
	# the cluster's shared file system.
	export TMPDIR=$MC_DIR/tmp
	mkdir -p "$TMPDIR" && chmod 1777 "$TMPDIR"
	eval "$("$MINICLUSTER" env)"
	. "$(dirname "$0")/elasticd.sh"
	ED_SERVER=$MC_SUBNET.2:$ED_PORT
	ed_setup
	ED_LOG=$MC_DIR/log/elasticd.out
	trap hosts_cleanup EXIT
}

hosts_cleanup() {
	ed_cleanup
	local rc=$?
	"$MINICLUSTER" down >/dev/null 2>&1
	return $rc
}

# hosts_ed_start: elasticd on ctl, as systemd would run it there.
hosts_ed_start() {
	"$MINICLUSTER" elasticd -f "$ED_CONF" >/dev/null || return 1
	ED_PID=$(cat "$MC_DIR/run/elasticd.pid")
	wait_until 10 _ed_up
}

# hosts_ed_restart: kill -9 and start again (minicluster restart elasticd).
hosts_ed_restart() {
	"$MINICLUSTER" restart elasticd >/dev/null || return 1
	ED_PID=$(cat "$MC_DIR/run/elasticd.pid")
	ED_STARTED=$(now)
	wait_until 10 _ed_up
}
