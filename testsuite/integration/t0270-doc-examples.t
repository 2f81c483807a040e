#!/bin/bash
# The documentation's training loops, as written (extracted from the pages
# by testsuite/docs/extract-examples, never copied), through a real
# preemption under elasticd:
#   - spank_elastic(8)'s batch script and size config with the PyTorch
#     loop of the README (the same text as spank_elastic(8)'s train.py),
#   - libelastic(3)'s MPI loop under elastic-run --launcher=mpirun.
# Each resumes at the step of the checkpoint written at the event and
# runs to its last step; elastic-run counts the preemption as an elastic
# event, never as a failure, and reports success at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

W=$ED_TMP/w
# The user's own directories: theirs to make (the loops make only the
# job's checkpoint dir in it).
mkdir -p "$W/bin" "$W/ckpt" && chmod 777 "$W" "$W/ckpt"
"$ELASTIC_SRCDIR/testsuite/docs/extract-examples" "$W" "$ELASTIC_SRCDIR/README.md" \
	"$ELASTIC_SRCDIR/doc/man/libelastic.3" "$ELASTIC_SRCDIR/doc/man/spank_elastic.8" >"$W/list"
is "the pages hold the loops: train.py twice (the same), rank.c, train.sh, sizes.conf" \
	"$(awk '$1 ~ /^(train|rank|sizes)\./ { print $1 }' "$W/list" | sort | tr '\n' ' ')" "rank.c sizes.conf train.py train.py train.sh "
chmod a+r "$W"/*
# What a user's PATH has: elastic-run, and a python3 that sees Debian's
# torch (DESIGN: call Debian's interpreter).
ln -s "$RUN" "$W/bin/elastic-run"
ln -s /usr/bin/python3 "$W/bin/python3"
command -v mpicc >/dev/null || bail "mpicc not found (apt-get install libopenmpi-dev)"
has_torch || bail "python3-torch is not installed"
# starts FILE W: how many times rank 0 started in a world of W ranks;
# start_step FILE W: the step the newest of them started at.
starts() { grep -cE "^rank 0/$2: starting at step [0-9]+$" "$1" 2>/dev/null; }
start_step() { sed -nE "s/^rank 0\/$2: starting at step ([0-9]+)$/\1/p" "$1" 2>/dev/null | tail -n1; }

ok "elasticd starts" ed_start

# --- the PyTorch loop, from spank_elastic(8)'s batch script ---------------
# As written but for the time limit and the checkpoint dir: this cluster
# has no /scratch.  Its 4 nodes hold the base and one unit of 2 (the page's
# max is 8: further units wait).
out=$W/py.out
jid=$(cd "$W" && runuser -u "$TEST_USER" -- env PATH="$W/bin:$PATH" \
	PYTHONPATH="$ELASTIC_SRCDIR/contribs/python" OMP_NUM_THREADS=1 \
	sbatch --parsable --time=30 --elastic-scale-delay=1 \
	--elastic-checkpoint-dir="$W/ckpt/%j" -o "$out" train.sh)
like "spank_elastic(8)'s train.sh is accepted, with its sizes.conf" "$jid" '^[0-9]+$'
ok "the README's loop trains at 4 ranks over the base and a unit" \
	wait_until 120 log_has "$out" '^step [0-9]+ loss .* world 4$' || {
	diag "the job's output:" "$(tail -n 40 "$out" 2>&1)" "its steps:" "$(squeue -s -h 2>&1)"
	show_group "$jid"
}
# (The first world may have been the base's 2 nodes alone: a new start.)
n2=$(starts "$out" 2)
t0=$(now)
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a 2-node high-priority job preempts the unit: the loop goes on at 2 ranks" \
	wait_until 120 eval '[ "$(starts "$out" 2)" -gt "$n2" ]'
figure "docs: train.py: preemptor submitted to the ranks up at 2: $(secs_since "$t0") s"
s2=$(start_step "$out" 2)
ok "... from the checkpoint written at the event, step $s2 (steps done)" \
	test -n "$s2" -a "${s2:-0}" -gt 0 -a -f "$W/ckpt/$jid/ckpt-$(printf %08d "${s2:-0}").pt"
ok "it runs to its last step" wait_until 300 log_has "$out" '^rank 0: done at step 2000$'
ok "... and elastic-run reports success" wait_until 30 log_has "$out" 'elastic-run: .* event=done .*result=success'
is "... with the preemption an elastic event, not a failure" "$(grep -c 'event=failure' "$out")" 0
ok "the job completes" wait_until 30 eval '[ "$(job_field "$jid" JobState)" = COMPLETED ]'
scancel "$hjid"
wait_until 30 job_gone_or_done "$hjid"

# --- the MPI loop of libelastic(3) ------------------------------------------
mkdir -p "$W/inc/slurm-elastic"
cp "$ELASTIC_SRCDIR/src/libelastic/elastic.h" "$W/inc/slurm-elastic/"
LIBDIR=$ELASTIC_BUILDDIR/src/libelastic/.libs
ok "libelastic(3)'s rank.c builds with mpicc" \
	mpicc -Wall -Wextra -Werror -I"$W/inc" "$W/rank.c" -L"$LIBDIR" -lelastic \
	-Wl,-rpath,"$LIBDIR" -o "$W/rank"
chmod 755 "$W/rank"
# Open MPI's traffic on the cluster's network (see t0235).
out=$W/mpi.out
jid=$(ED_WRAP="export PMIX_MCA_gds=hash OMPI_MCA_pml=ob1 \
OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=$CLUSTER_NET OMPI_MCA_oob_tcp_if_include=$CLUSTER_NET OMPI_MCA_rtc=^hwloc OMPI_MCA_mpi_yield_when_idle=1
cd $W && exec $W/bin/elastic-run --launcher=mpirun -- ./rank 20000" \
	submit_group "$TEST_USER" --elastic-min=1 --elastic-max=2 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-grace=20 --elastic-checkpoint-dir="$W/ckpt/%j" -o "$out")
like "an MPI job of min 1, max 2 is accepted" "$jid" '^[0-9]+$'
ok "the loop runs as one MPI world of 2 over the base and a unit" \
	wait_until 120 eval '[ -n "$(start_step "$out" 2)" ]'
n1=$(starts "$out" 1)
t0=$(now)
# The base's node and the unit's, and the 2 idle: the preemptor takes the
# idle ones and the unit's.
hjid=$(sbatch --parsable -p high -N3 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a 3-node high-priority job preempts the unit: the loop goes on at 1 rank" \
	wait_until 120 eval '[ "$(starts "$out" 1)" -gt "$n1" ]'
figure "docs: rank.c: preemptor submitted to the rank up at 1: $(secs_since "$t0") s"
s1=$(start_step "$out" 1)
ok "... from the checkpoint written at the event, step $s1" \
	test -n "$s1" -a "${s1:-0}" -gt 0 -a -f "$W/ckpt/$jid/ckpt-$(printf %08d "${s1:-0}").bin"
ok "it runs to its last step" wait_until 300 log_has "$out" '^done at step 20000, '
ok "... and elastic-run reports success, with no failure counted" \
	eval 'wait_until 30 log_has "$out" "elastic-run: .* event=done .*result=success" && [ "$(grep -c event=failure "$out")" = 0 ]'
scancel "$hjid"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
