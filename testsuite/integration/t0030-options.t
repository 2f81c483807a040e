#!/bin/bash
# Every --elastic-* option reaches slurmctld, lands in the job's tag, and is
# rejected with one line naming it when bad; the job becomes a base job.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 67

make_tmp tmp
at_exit restore_policy

tag_has() { # tag_has DESC SBATCH-ARGS... -- WORD...
	local desc=$1 args=() jid tag w miss=""
	shift
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	jid=$(sbatch --parsable -H "${args[@]}" --wrap true 2>&1)
	tag=$(admin_comment "$jid")
	for w in "$@"; do
		case " $tag " in *" $w "*) ;; *) miss="$miss $w" ;; esac
	done
	is "$desc" "$miss" ""
	[ -z "$miss" ] || diag "job: $jid" "tag: $tag"
	scancel "$jid" 2>/dev/null
}


# --- each option, good -----------------------------------------------------
tag_has "--elastic-step" --elastic-min=2 --elastic-max=6 --elastic-step=2 -- min=2 max=6 step=2
tag_has "--elastic-sizes, which also bound min and max" --elastic-sizes=1,2,4 -- min=1 max=4 sizes=1,2,4
tag_has "--elastic-grace" --elastic-min=1 --elastic-grace=45 -- grace=45
tag_has "--elastic-scale-delay" --elastic-min=1 --elastic-scale-delay=5 -- delay=5
tag_has "--elastic-fault-timeout" --elastic-min=1 --elastic-fault-timeout=7 -- fault=7
tag_has "--elastic-heartbeat-timeout" --elastic-min=1 --elastic-heartbeat-timeout=9 -- hb=9
tag_has "--elastic-hang-timeout" --elastic-min=1 --elastic-hang-timeout=90 -- hang=90
tag_has "--elastic-ondemand" --elastic-min=1 --elastic-ondemand=below-min -- ondemand=below-min
tag_has "--elastic-signal" --elastic-min=1 --elastic-signal=SIGUSR2 -- signal=USR2
tag_has "--elastic-checkpoint-dir (%-encoded in the tag)" --elastic-min=1 "--elastic-checkpoint-dir=/tmp/my ck/%j" -- "ckpt=/tmp/my%20ck/%25j"
tag_has "--elastic-keep" --elastic-min=1 --elastic-keep=7 -- keep=7
tag_has "--elastic-spares" --elastic-min=1 --elastic-max=4 --elastic-spares=2 -- max=4 spares=2
printf '# per-size settings\ndefault BATCH=64 LR=0.1\n2 BATCH=32\n' >"$tmp/sizes.conf"
tag_has "--elastic-size-config" --elastic-min=1 --elastic-max=2 --elastic-size-config="$tmp/sizes.conf" -- min=1 max=2
tag_has "--elastic-resume-from (%-encoded in the tag)" --elastic-min=1 "--elastic-resume-from=/tmp/my ck@40" -- "resume=/tmp/my%20ck@40"
tag_has "--elastic-resume-from=JOBID@STEP" --elastic-min=1 --elastic-resume-from=123@50 -- resume=123@50
tag_has "--elastic-eval (%-encoded in the tag)" --elastic-min=1 "--elastic-eval=python3 eval.py --top=5" -- "eval=python3%20eval.py%20--top=5"
jid=$(sbatch --parsable -H --elastic-min=1 --wrap true)
like "no resume= nor eval= in the tag of a job without them" "$(admin_comment "$jid")" "^elastic:v1 [^%]*keep=3 hb=5 hang=0 slow=report ckpt="
scancel "$jid"
tag_has "defaults from elastic.conf fill the rest" --elastic-max=2 -- min=1 step=1 grace=30 delay=10 fault=20 ondemand=never signal=URG keep=3 "ckpt=%25h/elastic-checkpoints/%25j"

# --- each option, bad: rejected in sbatch, naming the option ---------------
rejected "heartbeat timeout too short" '^sbatch: error: elastic: --elastic-heartbeat-timeout=1: too short \(allowed: seconds, 2 to 3600, or 0 for none\)$' --elastic-heartbeat-timeout=1
rejected "spares above MaxSpares" '^sbatch: error: elastic: --elastic-spares=3 is above this site.s limit of 2 \(MaxSpares in elastic.conf\)$' --elastic-min=1 --elastic-max=2 --elastic-spares=3
rejected "spares counted in the node cap" '^sbatch: error: elastic: --elastic-spares=1: the spares. 1 nodes beside --elastic-max=8 make 9, above this site.s limit of 8 nodes \(MaxNodes in elastic.conf\)$' --elastic-min=1 --elastic-max=8 --elastic-spares=1
rejected "step: not a number" '^sbatch: error: elastic: --elastic-step=x: not a whole number \(allowed: a node count from 1 to 65535\)$' --elastic-step=x
rejected "an elastic job array" '^sbatch: error: elastic: --array: an elastic job cannot be a job array \(submit one elastic job per training\)$' --array=1-3 --elastic-min=1
arr=$(sbatch --parsable -H --array=1-2 -N1 --wrap true 2>&1)
like "... a plain job array is none of our business" "$arr" '^[0-9]+$'
scancel "$arr" 2>/dev/null
rejected "step and sizes together" 'elastic: --elastic-step and --elastic-sizes cannot be used together$' --elastic-step=1 --elastic-sizes=1,2
rejected "sizes not increasing" '^sbatch: error: elastic: --elastic-sizes=2,1: not strictly increasing \(allowed: strictly increasing node counts, e.g. 1,2,4\)$' --elastic-sizes=2,1
rejected "sizes with an empty entry" 'elastic: --elastic-sizes=1,,2: empty entry' --elastic-sizes=1,,2
rejected "sizes outside min..max" 'elastic: --elastic-sizes: every size must be within --elastic-min=2 and --elastic-max=4$' --elastic-min=2 --elastic-max=4 --elastic-sizes=1,2
rejected "min not the smallest size" 'elastic: --elastic-min=1 must be the smallest of --elastic-sizes \(2\): the job starts at --elastic-min$' --elastic-min=1 --elastic-sizes=2,4
rejected "grace: negative" 'elastic: --elastic-grace=-1: not a whole number \(allowed: seconds, 0 to 86400\)$' --elastic-grace=-1
rejected "grace: too large" 'elastic: --elastic-grace=86401: out of range \(allowed: seconds, 0 to 86400\)$' --elastic-grace=86401
rejected "scale delay: garbage" 'elastic: --elastic-scale-delay=10s: not a whole number' --elastic-scale-delay=10s
rejected "fault timeout: empty" 'elastic: --elastic-fault-timeout=: empty value' --elastic-fault-timeout=
rejected "ondemand: unknown word" '^sbatch: error: elastic: --elastic-ondemand=sometimes: not valid \(allowed: never, below-min, always\)$' --elastic-ondemand=sometimes
rejected "signal: not accepted" '^sbatch: error: elastic: --elastic-signal=KILL: not valid \(allowed: URG, WINCH, USR1, USR2, HUP, INT, TERM\)$' --elastic-signal=KILL
rejected "checkpoint dir: relative" 'elastic: --elastic-checkpoint-dir=ck: must be an absolute path or start with %h' --elastic-checkpoint-dir=ck
rejected "checkpoint dir: unknown escape" 'elastic: --elastic-checkpoint-dir=/ck/%x: unknown %x' --elastic-checkpoint-dir=/ck/%x
rejected "keep: zero" 'elastic: --elastic-keep=0: out of range \(allowed: a count from 1 to 1000\)$' --elastic-keep=0
rejected "resume-from: neither a job id nor an absolute path" '^sbatch: error: elastic: --elastic-resume-from=ck/1: not a job id nor an absolute path \(allowed: JOBID, JOBID@STEP, PATH, PATH@STEP \(PATH absolute\)\)$' --elastic-resume-from=ck/1
rejected "resume-from: a step that is not a number" "elastic: --elastic-resume-from=12@x: a step after '@' is a whole number" --elastic-resume-from=12@x
rejected "eval: empty" 'elastic: --elastic-eval=: empty value \(allowed: a command line\)$' --elastic-eval=
rejected "size config: missing file" "elastic: --elastic-size-config: $tmp/none: cannot open: No such file or directory" --elastic-size-config="$tmp/none"
printf 'default BATCH=64\nfour BATCH=32\n' >"$tmp/bad.conf"
rejected "size config: malformed, with file:line" "elastic: $tmp/bad.conf:2: 'four': a line starts with a node count \(1 to 65535\) or 'default'" --elastic-size-config="$tmp/bad.conf"
printf 'default RANK=3\n' >"$tmp/reserved.conf"
rejected "size config: a reserved variable" "elastic: $tmp/reserved.conf:1: RANK is set by Slurm or slurm-elastic and cannot be overridden" --elastic-size-config="$tmp/reserved.conf"
printf '3 BATCH=1\n' >"$tmp/size3.conf"
rejected "size config: a size the job cannot take" 'elastic: --elastic-size-config: size 3 is not a size this job can take' --elastic-sizes=1,2,4 --elastic-size-config="$tmp/size3.conf"

# --- validated in slurmctld too, against the site's policy -----------------
rejected "grace above MaxGrace" '^sbatch: error: elastic: --elastic-grace=601 is above this site.s limit of 600 seconds \(MaxGrace in elastic.conf\)$' --elastic-grace=601
rejected "keep above MaxKeep" 'elastic: --elastic-keep=21 is above this site.s limit of 20 \(MaxKeep in elastic.conf\)$' --elastic-keep=21
rejected "a partition that may not hold base jobs" '^sbatch: error: elastic: partition high cannot hold elastic jobs \(allowed: base, preempt; BasePartitions in elastic.conf\)$' -p high --elastic-min=1
rejected "-N that contradicts --elastic-min" 'elastic: -N/--nodes=3 conflicts with --elastic-min=2' -N3 --elastic-min=2
raw="$ELASTIC_BUILDDIR/testsuite/integration/submit_raw"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_sizes=4,2 2>&1)
like "slurmctld checks sizes itself" "$out" "elastic: --elastic-sizes=4,2: not strictly increasing"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_min=1 "ELASTIC_SIZE_CONFIG=default RANK=1" 2>&1)
like "slurmctld checks the size config itself" "$out" "elastic: --elastic-size-config:1: RANK is set by Slurm"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_size_config=/x 2>&1)
like "slurmctld refuses a size config whose content did not arrive" "$out" "elastic: --elastic-size-config: the file's content did not arrive"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_signal=KILL 2>&1)
like "slurmctld checks the signal itself" "$out" "elastic: --elastic-signal=KILL: not valid"
out=$("$raw" _SLURM_SPANK_OPTION_elastic_elastic_resume_from=ck 2>&1)
like "slurmctld checks resume-from itself" "$out" "elastic: --elastic-resume-from=ck: not a job id nor an absolute path"
out=$("$raw" "_SLURM_SPANK_OPTION_elastic_elastic_eval=$(printf 'a\tb')" 2>&1)
like "slurmctld checks eval itself" "$out" "elastic: --elastic-eval: control character in the command"
out=$("$raw" "_SLURM_SPANK_OPTION_elastic_elastic_step=$(printf '1\nslurmctld: forged')" 2>&1)
like "a newline in a value is escaped in the refusal" "$out" 'elastic: --elastic-step=1\\nslurmctld: forged: not a whole number'
ctld_log=$MC_DIR/log/slurmctld.log
ok "... and in slurmctld's log: escaped, no line of its own" \
	bash -c "grep -aq 'step=1.nslurmctld: forged' '$ctld_log' &&
		! grep -a forged '$ctld_log' | grep -qv 'step=1.nslurmctld: forged'"

# --- changing a job's elastic fields (AdminComment) is checked too ---------
jid=$(sbatch --parsable -H --elastic-min=1 --wrap true)
tag=$(admin_comment "$jid")
out=$(scontrol update JobId="$jid" AdminComment="${tag/min=1 /min=9 }" 2>&1)
rc=$?
ok "an inconsistent elastic tag is refused by job_modify" test "$rc" -ne 0
ok "... with the reason in slurmctld's log" grep -q "job refused: --elastic-min=9 is greater than --elastic-max=8" "$MC_DIR/log/slurmctld.log"
scontrol update JobId="$jid" AdminComment="${tag/keep=3/keep=5}"
like "... a consistent change is accepted" "$(admin_comment "$jid")" " keep=5 "
scancel "$jid"

# --- the base job -----------------------------------------------------------
jid=$(sbatch --parsable --elastic-min=2 --elastic-max=4 --wrap 'sleep 300')
ok "the base job starts" wait_until 30 job_running "$jid"
is "... in the first base partition" "$(job_field "$jid" Partition)" base
is "... on --elastic-min nodes" "$(job_field "$jid" NumNodes)" 2
is "... requeued rather than lost" "$(job_field "$jid" Requeue)" 1
jid2=$(sbatch --parsable -p preempt --elastic-min=1 --wrap true)
is "another allowed base partition can be chosen" "$(job_field "$jid2" Partition)" preempt

# --no-kill: a failed node only shrinks the base job.
node=$(scontrol show hostnames "$(job_field "$jid" NodeList)" | tail -n1)
"$MINICLUSTER" crash "$node" >/dev/null
shrunk() { [ "$(job_field "$jid" NumNodes)" = 1 ] && [ "$(job_field "$jid" JobState)" = RUNNING ]; }
ok "a node failure (its host crashes) leaves the base job running on the rest (no-kill)" wait_until 90 shrunk
"$MINICLUSTER" boot "$node" >/dev/null
ok "the node comes back when it boots" wait_until 30 all_nodes_idle_or_alloc
scancel "$jid"
wait_until 60 job_gone_or_done "$jid"
heal_nodes

cleanup_jobs
done_testing
