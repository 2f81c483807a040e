#!/bin/bash
# Stop the shared cluster and check that nothing it started is left.
. "$(dirname "$0")/lib.sh"

plan 3
pids=$(cat "$MC_DIR"/run/*.pid 2>/dev/null)
ok "minicluster down succeeds" "$MINICLUSTER" down
left=""
# A zombie has exited; it waits only for its parent (or init) to reap it.
alive() { [ -e "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
for p in $pids; do
	alive "$p" && left="$left $p"
done
is "no process the cluster started is still alive" "$left" ""
ok "minicluster status now fails" bash -c '! "$0" status >/dev/null 2>&1' "$MINICLUSTER"
done_testing
