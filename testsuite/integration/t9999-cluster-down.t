#!/bin/bash
# Stop the shared cluster and check that nothing it started is left.
. "$(dirname "$0")/lib.sh"

plan 3
pids=$(cat "$MC_DIR"/run/*.pid 2>/dev/null)
ok "minicluster down succeeds" "$MINICLUSTER" down
left=""
for p in $pids; do
	kill -0 "$p" 2>/dev/null && left="$left $p"
done
is "no process the cluster started is still alive" "$left" ""
ok "minicluster status now fails" bash -c '! "$0" status >/dev/null 2>&1' "$MINICLUSTER"
done_testing
