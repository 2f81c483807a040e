#!/bin/bash
# job_submit/elastic under many submissions at once (from Slurm 23.02 on,
# slurmctld calls job_submit concurrently, under its read lock): 24
# clients without the SPANK plugin submit together, each with a size
# config of its own; every valid one is accepted, every invalid one is
# refused with its own file's error, never another's.
. "$(dirname "$0")/lib.sh"
require_cluster

N=24
plan 3

raw="$ELASTIC_BUILDDIR/testsuite/integration/submit_raw"
[ -x "$raw" ] || bail "not built: $raw (make -C testsuite/integration submit_raw)"
make_tmp tmp
at_exit cleanup_jobs

# Client i: even, a valid config for size 4 (sizes 1,2,4); odd, a config
# whose second line is malformed with i in it.
pids=()
for ((i = 0; i < N; i++)); do
	if ((i % 2 == 0)); then
		cfg="4 A=$i"
	else
		cfg="4 A=$i;w$i B=1"
	fi
	"$raw" _SLURM_SPANK_OPTION_elastic_elastic_sizes=1,2,4 "ELASTIC_SIZE_CONFIG=$cfg" \
		>"$tmp/$i.out" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

ok_valid=0 ok_invalid=0 wrong=""
for ((i = 0; i < N; i++)); do
	out=$(cat "$tmp/$i.out")
	if ((i % 2 == 0)); then
		if [[ $out =~ ^[0-9]+$ ]]; then ok_valid=$((ok_valid + 1)); else wrong+=" $i:[$out]"; fi
	elif [[ $out == *"--elastic-size-config:2: 'w$i': a line starts with a node count"* ]] &&
		[[ $(grep -o "'w[0-9]*'" <<<"$out" | sort -u) == "'w$i'" ]]; then
		ok_invalid=$((ok_invalid + 1))
	else
		wrong+=" $i:[$out]"
	fi
done
is "every valid size config is accepted" "$ok_valid" $((N / 2))
is "every invalid one is refused with its own line" "$ok_invalid" $((N / 2))
is "no answer is another submission's" "$wrong" ""

done_testing
