#!/bin/bash
# The environment of an elastic job's ranks, read from inside the tasks of
# real multi-node steps: torchrun's variables, ELASTIC_*, per-size
# settings, and worlds that span several allocations (launcher offsets).
. "$(dirname "$0")/lib.sh"
require_cluster

plan 26

make_tmp tmp
chmod 755 "$tmp"
VARS="RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK MASTER_ADDR MASTER_PORT ELASTIC_JOB_ID ELASTIC_RESTART_COUNT ELASTIC_NNODES ELASTIC_PREV_NNODES ELASTIC_CHECKPOINT_DIR ELASTIC_PREV_CHECKPOINT ELASTIC_SIGNAL"
# One line per task: node, then each variable as NAME=value (unset: NAME!).
cat >"$tmp/show" <<EOS
#!/bin/bash
line="\$SLURMD_NODENAME \$SLURM_JOB_ID"
for v in $VARS \$EXTRA; do
	if [ -n "\${!v+x}" ]; then line="\$line \$v=\${!v}"; else line="\$line \$v!"; fi
done
echo "\$line"
EOS
chmod 755 "$tmp/show"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
# The first task's line: srun may print a notice first (a step that waits
# for the previous one's nodes says so on stderr).
first_task() { grep -m1 '^n[0-9]'; }

# --- one allocation, 4 nodes x 2 tasks -------------------------------------
out=$(timeout 60 srun -N4 --ntasks-per-node=2 --elastic-min=4 --elastic-max=4 "$tmp/show" 2>&1)
jid=$(printf '%s\n' "$out" | awk '/^n[0-9]/ {print $2}' | sort -u)
is "8 tasks report" "$(printf '%s\n' "$out" | grep -c '^n[0-9]')" 8
is "RANK is 0..7, each once" "$(printf '%s\n' "$out" | field RANK | sort -n | tr '\n' ' ')" "0 1 2 3 4 5 6 7 "
is "WORLD_SIZE=8 everywhere" "$(printf '%s\n' "$out" | field WORLD_SIZE | sort -u)" 8
is "LOCAL_WORLD_SIZE=2 everywhere" "$(printf '%s\n' "$out" | field LOCAL_WORLD_SIZE | sort -u)" 2
is "LOCAL_RANK is 0 and 1 on each node" "$(printf '%s\n' "$out" | awk '{print $1}' | sort | uniq -c | awk '{print $1}' | sort -u)" 2
is "GROUP_RANK is 0..3, two tasks each" \
	"$(printf '%s\n' "$out" | field GROUP_RANK | sort -n | uniq -c | awk '{print $1"x"$2}' | tr '\n' ' ')" "2x0 2x1 2x2 2x3 "
is "one GROUP_RANK per node" "$(printf '%s\n' "$out" | awk '{print $1}' | sort -u | wc -l)/$(printf '%s\n' "$out" | awk '{print $1, $0}' | sed -n 's/^\(n[0-9]*\) .* GROUP_RANK=\([0-9]*\).*/\1 \2/p' | sort -u | wc -l)" "4/4"
ranks_ok=$(printf '%s\n' "$out" | awk '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["RANK"] != v["GROUP_RANK"] * 2 + v["LOCAL_RANK"]) print "bad: " $0 }')
is "RANK = GROUP_RANK * 2 + LOCAL_RANK (block distribution)" "$ranks_ok" ""
rank0=$(printf '%s\n' "$out" | grep ' RANK=0 ' | awk '{ print $1 }')
is "MASTER_ADDR is the step's first node, where rank 0 runs ($rank0), not srun's host" \
	"$(printf '%s\n' "$out" | field MASTER_ADDR | sort -u)" "${rank0:-none}"
is "MASTER_PORT is the job's, the same for all" "$(printf '%s\n' "$out" | field MASTER_PORT | sort -u)" "$((20000 + jid % 10000))"
is "ELASTIC_JOB_ID is the job id" "$(printf '%s\n' "$out" | field ELASTIC_JOB_ID | sort -u)" "$jid"
is "ELASTIC_NNODES=4, RESTART_COUNT=0, PREV_NNODES=0, SIGNAL=URG" \
	"$(printf '%s\n' "$out" | first_task | tr ' ' '\n' | grep -E '^ELASTIC_(NNODES|RESTART_COUNT|PREV_NNODES|SIGNAL)=' | tr '\n' ' ')" \
	"ELASTIC_RESTART_COUNT=0 ELASTIC_NNODES=4 ELASTIC_PREV_NNODES=0 ELASTIC_SIGNAL=URG "
is "ELASTIC_CHECKPOINT_DIR is the default, expanded" "$(printf '%s\n' "$out" | field ELASTIC_CHECKPOINT_DIR | sort -u)" "$HOME/elastic-checkpoints/$jid"
is "ELASTIC_PREV_CHECKPOINT is set, empty" "$(printf '%s\n' "$out" | first_task | grep -o ' ELASTIC_PREV_CHECKPOINT=[^ ]*')" " ELASTIC_PREV_CHECKPOINT="

# --- a batch job: size config and a world across allocations ---------------
printf 'default BATCH=64 LR=0.1\n2 BATCH=32\n4 LR=0.05\n' >"$tmp/sizes.conf"
cat >"$tmp/job.sh" <<EOS
#!/bin/bash
export EXTRA="BATCH LR"
srun -N2 --ntasks-per-node=1 $tmp/show >$tmp/plain.out 2>&1
# As the launcher does for the second allocation of a 4-node world:
ELASTIC_RANK_OFFSET=2 ELASTIC_WORLD_SIZE=4 ELASTIC_NODE_OFFSET=2 ELASTIC_WORLD_NNODES=4 \\
ELASTIC_MASTER_ADDR=10.1.2.3 ELASTIC_MASTER_PORT=29400 ELASTIC_JOB_ID=77 \\
ELASTIC_RESTART_COUNT=3 ELASTIC_PREV_NNODES=2 ELASTIC_PREV_CHECKPOINT=/ck/77/step-9 \\
	srun -N2 --ntasks-per-node=1 $tmp/show >$tmp/offset.out 2>&1
ELASTIC_WORLD_SIZE=1 srun -N2 --ntasks-per-node=1 $tmp/show >$tmp/bad.out 2>&1
echo "exit \$?" >>$tmp/bad.out
ELASTIC_PREV_CHECKPOINT=/\$(head -c 5000 /dev/zero | tr '\\0' x) srun -N2 --ntasks-per-node=1 $tmp/show >$tmp/long.out 2>&1
EOS
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=4 --elastic-size-config="$tmp/sizes.conf" \
	--elastic-checkpoint-dir="$tmp/ck-%u-%j" -o "$tmp/batch.out" "$tmp/job.sh")
ok "the batch job finishes" wait_until 90 job_gone_or_done "$jid"
plain=$(cat "$tmp/plain.out")
is "per-size settings at size 2: the size's BATCH, the default LR" \
	"$(printf '%s\n' "$plain" | grep -o 'BATCH=[^ ]* LR=[^ ]*' | sort -u)" "BATCH=32 LR=0.1"
is "--elastic-checkpoint-dir expands %u and %j" "$(printf '%s\n' "$plain" | field ELASTIC_CHECKPOINT_DIR | sort -u)" "$tmp/ck-$(id -un)-$jid"
off=$(cat "$tmp/offset.out")
is "launcher offsets: RANK 2 and 3 of WORLD_SIZE 4" "$(printf '%s\n' "$off" | field RANK | sort -n | tr '\n' ' ')/$(printf '%s\n' "$off" | field WORLD_SIZE | sort -u)" "2 3 /4"
is "... GROUP_RANK 2 and 3" "$(printf '%s\n' "$off" | field GROUP_RANK | sort -n | tr '\n' ' ')" "2 3 "
is "... the launcher's rendezvous, group id, restart count and previous size" \
	"$(printf '%s\n' "$off" | first_task | tr ' ' '\n' | grep -E '^(MASTER_ADDR|MASTER_PORT|ELASTIC_JOB_ID|ELASTIC_RESTART_COUNT|ELASTIC_NNODES|ELASTIC_PREV_NNODES|ELASTIC_PREV_CHECKPOINT)=' | tr '\n' ' ')" \
	"MASTER_ADDR=10.1.2.3 MASTER_PORT=29400 ELASTIC_JOB_ID=77 ELASTIC_RESTART_COUNT=3 ELASTIC_NNODES=4 ELASTIC_PREV_NNODES=2 ELASTIC_PREV_CHECKPOINT=/ck/77/step-9 "
is "... per-size settings of the world's size (4), and %j is the group's id" \
	"$(printf '%s\n' "$off" | first_task | grep -o 'ELASTIC_CHECKPOINT_DIR=[^ ]*.*BATCH=[^ ]* LR=[^ ]*' | sed 's/ELASTIC_PREV_CHECKPOINT=[^ ]* ELASTIC_SIGNAL=[^ ]* //')" \
	"ELASTIC_CHECKPOINT_DIR=$tmp/ck-$(id -un)-77 BATCH=64 LR=0.05"
like "an inconsistent launcher variable fails the step with a clear error" "$(cat "$tmp/bad.out")" "elastic: ELASTIC_WORLD_SIZE=1 is smaller than ELASTIC_RANK_OFFSET=0 \+ 2 tasks"

like "an over-long launcher variable fails the step, not silently unset" "$(cat "$tmp/long.out")" "elastic: ELASTIC_PREV_CHECKPOINT: longer than 1024 characters"

# --export=NONE: the per-size settings come from Slurm's copy.
printf '#!/bin/bash\n/usr/bin/srun -N2 --ntasks-per-node=1 /bin/bash -c '"'"'echo "BATCH=$BATCH LR=$LR"'"'"' >%s/noexport.out 2>&1\n' "$tmp" >"$tmp/noexport.sh"
jid=$(sbatch --parsable --export=NONE --elastic-min=2 --elastic-size-config="$tmp/sizes.conf" -o /dev/null "$tmp/noexport.sh")
ok "a --export=NONE job finishes" wait_until 60 job_gone_or_done "$jid"
is "... and its ranks still get the per-size settings" "$(sort -u "$tmp/noexport.out")" "BATCH=32 LR=0.1"

# --- not elastic: nothing added --------------------------------------------
out=$(timeout 60 srun -N2 "$tmp/show" 2>&1)
is "a non-elastic step's tasks get none of these variables" "$(printf '%s\n' "$out" | grep -o '[A-Z_]*=' | sort -u | tr '\n' ' ')" ""

cleanup_jobs
done_testing
