#!/bin/bash
# The README's sharded loop (shard.py), extracted from the README as
# written, on the cluster of hosts: at 4 ranks (tensor parallel in groups
# of 2, FSDP2 over the data-parallel ranks where it runs on the CPU),
# preempted to 2, resumed from the DCP checkpoint the 4 ranks wrote at
# the event, run to its last step.  The loop trains flat out (no
# simulated compute): it runs in the unstable leg alone, the lane of the
# lowest priority.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

plan 9
pytorch_setup

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"
require_dcp
ok "elasticd starts" ed_start
"$ELASTIC_SRCDIR/testsuite/docs/extract-examples" "$W" "$ELASTIC_SRCDIR/README.md" >"$W/list"
ok "the README holds shard.py" grep -q '^shard\.py ' "$W/list"
chmod a+r "$W/shard.py"
starts() { grep -cE "^rank 0/$1: starting at step [0-9]+$" "$out" 2>/dev/null; }
start_step() { sed -nE "s/^rank 0\/$1: starting at step ([0-9]+)$/\1/p" "$out" 2>/dev/null | tail -n1; }
out=$W/shard.out
# Started on 4 idle nodes: the loop's 2500 steps take a minute or more
# at 4 ranks, and the story needs seconds of them.
LOOP_STEPS=${T0340_LOOP_STEPS:-2500}
idle4() { [ "$(sinfo -h -N -p preempt -o '%N %T' | sort -u | awk '$2 == "idle"' | wc -l)" = 4 ]; }
ok "the 4 nodes are idle" wait_until 180 idle4 || diag "$(sinfo -N -p preempt -o '%N %T')"
ED_WRAP="export OMP_NUM_THREADS=1 PYTHONPATH=$ELASTIC_SRCDIR/contribs/python
cd $W && exec $RUN -- $PYTHON shard.py $LOOP_STEPS"
jid=$(submit_group "$TEST_USER" --elastic-sizes=2,4 --elastic-scale-delay=1 --elastic-grace=30 \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
at_exit "scancel $jid 2>/dev/null; true"
ok "shard.py trains at 4 ranks (dp 2 x tp 2)" wait_until 120 eval '[ "$(starts 4)" -gt 0 ]' ||
	diag "$(tail -n 20 "$out")"
# shellcheck disable=SC2034 # read by the eval
n2=$(starts 2)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
at_exit "scancel $hjid 2>/dev/null; true"
ok "a high-priority job takes its unit: it goes on at 2 ranks" wait_until 120 eval '[ "$(starts 2)" -gt "$n2" ]'
s2=$(start_step 2)
ok "... from the DCP checkpoint saved by 4 ranks at the event, step $s2" \
	test -n "$s2" -a "${s2:-0}" -gt 0 -a -f "$W/ckpt/$jid/ckpt-$(printf %08d "${s2:-0}")/.metadata"
scancel "$hjid"
ok "it runs to its last step" wait_until 300 log_has "$out" "^rank 0: done at step $LOOP_STEPS\$"
ok "... and elastic-run reports success, no failure counted" \
	eval 'wait_until 30 log_has "$out" "elastic-run: .* event=done .*result=success" && [ "$(grep -c event=failure "$out")" = 0 ]'
ok "elasticd stops on SIGTERM" ed_stop
done_testing
