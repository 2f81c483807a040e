#!/bin/bash
# Start the embedded cluster the other tests share.  An earlier interrupted
# run may have left one up from this directory: stop it first.
. "$(dirname "$0")/lib.sh"

plan 2
"$MINICLUSTER" down >/dev/null 2>&1
out=$("$MINICLUSTER" up 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "minicluster up succeeds" "$rc" 0
ok "minicluster status reports every daemon alive" "$MINICLUSTER" status
done_testing
