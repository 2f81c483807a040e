# For scripts that run a cluster of their own beside the shared one (e.g.
# make chaos): source it after lib.sh, then call hosts_setup; everything
# after (lib.sh's and elasticd.sh's helpers) talks to that cluster.
# shellcheck shell=bash

# hosts_setup NODES FIRST-JOB-ID: up, the clients' environment, elasticd's
# settings (ed_setup), and an EXIT trap that also brings the cluster down.
hosts_setup() {
	local up
	export MC_HOSTS=1 MC_DIR=$MC_DIR-hosts MC_PORT_BASE=$((MC_PORT_BASE + 700)) MC_NODES=$1 MC_FIRST_JOB_ID=$2
	"$MINICLUSTER" down >/dev/null 2>&1
	up=$("$MINICLUSTER" up 2>&1) || bail "minicluster up failed: $up"
	. "$(dirname "$0")/elasticd.sh"
	ed_setup
	trap hosts_cleanup EXIT
}

hosts_cleanup() {
	ed_cleanup
	local rc=$?
	"$MINICLUSTER" down >/dev/null 2>&1
	return $rc
}

# elasticd on ctl, as the cluster runs it (elasticd.sh).
hosts_ed_start() { mc_ed_start; }
hosts_ed_restart() { mc_ed_restart; }
