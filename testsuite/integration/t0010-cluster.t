#!/bin/bash
# The embedded cluster is a real multi-node Slurm with accounting.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 11

is "5 nodes, all idle" "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" \
	"n1 idle n2 idle n3 idle n4 idle n5 idle "
is "partitions model a shared cluster" \
	"$(sinfo -h -o '%R' | sort | tr '\n' ' ')" "base high ondemand preempt spare "
# base, preempt and high share n[1-4]; n5 is on-demand capacity only, so a
# full preemptible partition and free on-demand nodes can coexist.
is "... base, preempt and high on n[1-4], ondemand on n5" \
	"$(sinfo -h -o '%R=%N' | sort | tr '\n' ' ')" "base=n[1-4] high=n[1-4] ondemand=n5 preempt=n[1-4] spare=n[1-4] "

nodes=$(timeout 60 srun -N4 -n4 --ntasks-per-node=1 printenv SLURMD_NODENAME 2>&1 | sort | tr '\n' ' ')
is "a 4-node step runs one task on each of the base partition's four nodes" "$nodes" "n1 n2 n3 n4 "

jid=$(sbatch --parsable -N1 --wrap true) || jid=""
like "a batch job is accepted" "$jid" '^[0-9]+$'
ok "it completes" wait_until 60 job_gone_or_done "$jid"
acct() { sacct -n -X -P -j "$jid" -o JobID,State 2>/dev/null | grep -q "^$jid|COMPLETED"; }
ok "slurmdbd records it (sacct)" wait_until 60 acct

out=$("$MINICLUSTER" up 2>&1)
rc=$?
ok "a second up while one runs fails" test "$rc" -ne 0
like "... with a clear one-line error" "$out" "already running"

# Another cluster whose links and addresses (named by the port base)
# collide with this one's must refuse to start.
out=$(MC_DIR=$(mktemp -d) "$MINICLUSTER" up 2>&1)
like "a cluster on the same MC_PORT_BASE gives a clear error naming it" "$out" "MC_PORT_BASE=$MC_PORT_BASE is up"
ok "... and leaves this one running" "$MINICLUSTER" status

done_testing
