#!/bin/bash
# The cluster simulator holds on the real cluster: a short workload
# (testsuite/bench/workloads/short.txt, about 3 minutes: rigid jobs of
# elastic-dave, four groups of elastic-alice, -bob and -carol that all
# want the idle nodes, a preemptor) replayed through real slurmctld and
# elasticd on 16 nodes (bench_cluster_replay), and its report from sacct
# within 10% of the simulator's (bench_cluster) on the same workload:
# utilization, each group's node-seconds and share, the rigid jobs' wait
# and completion (small values within a floor of 10 s: the preempt
# partition's GraceTime).  The same workload without slurm-elastic (each
# group one rigid job at its min) agrees with the simulator's run without
# it, and the rigid jobs' wait p95 with slurm-elastic is no more than the
# units' grace above it.  A cluster of its own (MC_HOSTS=0, ports from
# MC_PORT_BASE + 100), side by side with the one the other tests share.
. "$(dirname "$0")/lib.sh"

plan 9

RDIR=$MC_DIR-replay
RPORT=$((MC_PORT_BASE + 100))
BENCH=$ELASTIC_SRCDIR/testsuite/bench/bench_cluster_replay
WORKLOAD=$ELASTIC_SRCDIR/testsuite/bench/workloads/short.txt
# TEST_BENCH_CLUSTER: another simulator to hold the replay to.
SIM=${TEST_BENCH_CLUSTER:-$ELASTIC_BUILDDIR/src/goodsim/bench_cluster}
[ -x "$SIM" ] || bail "not built: $SIM (run make in $ELASTIC_BUILDDIR)"
# The replay stops the cluster it starts; this stops it if the replay
# could not.
at_exit 'MC_DIR=$RDIR MC_PORT_BASE=$RPORT MC_HOSTS=0 "$MINICLUSTER" down >/dev/null 2>&1'
MC_DIR=$RDIR MC_PORT_BASE=$RPORT MC_HOSTS=0 "$MINICLUSTER" down >/dev/null 2>&1

t0=$SECONDS
out=$(MC_DIR=$RDIR MC_PORT_BASE=$RPORT BENCH_OUT=$RDIR/out WORKLOAD=$WORKLOAD SIM=$SIM \
	TOLERANCE=10 FLOOR_S=10 "$BENCH" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
run=$(ls -td "$RDIR"/out/*/ 2>/dev/null | head -n1)
diag "the replay took $((SECONDS - t0)) s; its files in ${run:-nowhere}"

ok "the workload replayed: every job submitted and ended, the report from sacct" test -s "${run}replay.json"
rep() { /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "${run}$1" "$2" 2>&1; }
is "the replay's report: 4 groups, 2 rigid jobs" "$(rep replay.json '"%d groups, %d rigid" % (len(d["groups"]), d["rigid"]["n"])')" \
	"4 groups, 2 rigid"
ok "the simulator ran on the same workload and cluster" test -s "${run}sim.json"
ok "the replay agrees with the simulator within 10% (or the floors)" grep -q '^agreement: yes' "${run}compare"
is "... on every row compared" "$(grep -c DISAGREE "${run}compare" 2>/dev/null)" 0
ok "the workload replayed without slurm-elastic, its report from sacct" test -s "${run}replay-without.json"
ok "... agrees with the simulator's run without it" grep -q '^agreement: yes' "${run}compare-without"
ok "the rigid jobs' wait p95 with slurm-elastic is no more than the units' grace above without" \
	grep -q ': pass$' "${run}harm"
ok "the replay's exit says all of it" test "$rc" = 0
diag "figure: cluster replay: $(grep -E '^(utilization|rigid\.wait_p95_s|rigid\.completion_mean_s) ' "${run}compare" 2>/dev/null |
	awk '{ printf "%s%s replay %s sim %s", (NR > 1 ? "; " : ""), $1, $2, $3 }')"
diag "figure: cluster replay: $(cat "${run}harm" 2>/dev/null)"
diag "figure: cluster replay: groups' shares replay $(rep replay.json '" ".join("%.2f" % g["share"] for g in d["groups"])')\
 sim $(rep sim.json '" ".join("%.2f" % g["share"] for g in d["groups"])'); jain replay $(rep replay.json 'd["jain"]') sim $(rep sim.json 'd["jain"]')"
done_testing
