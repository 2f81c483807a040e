#!/bin/bash
# Stop the shared cluster and check that nothing it started is left.
. "$(dirname "$0")/lib.sh"

plan 3
# Each daemon by pid and start time: pids are reused (pid_max is often
# 32768), and a daemon a test stopped on purpose leaves its pid to others.
started=()
for f in "$MC_DIR"/run/*.pid; do
	[ -e "$f" ] || continue
	started+=("$(cat "$f" 2>/dev/null):$(cat "${f%.pid}.start" 2>/dev/null)")
done
ok "minicluster down succeeds" "$MINICLUSTER" down
# A zombie has exited; it waits only for its parent (or init) to reap it.
# alive PID [START]: PID runs, not a zombie, with that start time if one
# was recorded (else the pid alone says it).
alive() {
	local stat t=$2
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split the fields
	set -- $stat
	[ "$1" != Z ] && { [ -z "$t" ] || [ "${20}" = "$t" ]; }
}
left=""
for ps in "${started[@]}"; do
	p=${ps%%:*} t=${ps#*:}
	if [ -n "$p" ] && alive "$p" "$t"; then left="$left $p"; fi
done
is "no process the cluster started is still alive" "$left" ""
ok "minicluster status now fails" bash -c '! "$0" status >/dev/null 2>&1' "$MINICLUSTER"
done_testing
