#!/bin/bash
# --elastic-sizes=1,2,4 never yields a world of 3: with only 3 of the 4
# preemptible nodes free (a base-partition job holds the fourth) the group
# stops at 2 and does not take the third node; when the fourth is freed it
# goes to 4.  The group is sampled all along, several times per elasticd
# poll, and every event of its timeline is checked too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 13

ok "elasticd starts" ed_start
fill=$(filler base 1)
ok "a base-partition job holds one of the 4 nodes" wait_until 30 job_running "$fill"
t0=$(now)
base=$(submit_group "$TEST_USER" --elastic-sizes=1,2,4 --elastic-scale-delay=1)
like "a --elastic-sizes=1,2,4 group is accepted" "$base" '^[0-9]+$'
sampler_start "$base"
ok "with 3 nodes free it reaches a world of 2" gwait 60 "$base" 'world == 2 and state == "RUNNING"' ||
	show_group "$base"
figure "sizes: base submitted to a world of 2: $(span_to "$t0" '$3 == 2') s"
# Several scale delays and polls: enough for a wrong controller to take
# the third node.
gwatch 5 "$base"
is "... and stays at 2 although a third node is free" "$(gq "$base" world)" 2
is "... holding 2 nodes in Slurm: no running unit beyond the world" \
	"$({ job_hosts "$base"; for j in $(running_units "$base"); do job_hosts "$j"; done; } | wc -l)" 2
is "... one node still idle" "$(sinfo -h -N -p preempt -t idle -o '%N' | wc -l)" 1

t1=$(now)
scancel "$fill"
ok "when the fourth node is freed the group reaches 4" gwait 60 "$base" 'world == 4 and state == "RUNNING"' ||
	show_group "$base"
figure "sizes: fourth node freed to a world of 4: $(span_to "$t1" '$3 == 4') s"
is "... held as the base and units that add up to 4 nodes" \
	"$({ job_hosts "$base"; for j in $(running_units "$base"); do job_hosts "$j"; done; } | sort -u | wc -l)" 4

sampler_stop
ws=$(worlds_seen "$t0")
n=$(awk -v a="$t0" '$1 >= a' "$ED_SAMPLES" | wc -l)
figure "sizes: worlds sampled: $ws in $n samples over $(secs_since "$t0") s (elasticd polls every $ED_POLL_MS ms)"
ok "no sample ever showed a world of 3 (or any size outside 1,2,4)" \
	bash -c '! printf "%s\n" $0 | grep -qvxE "0|1|2|4"' "$ws"
evs=$(gq "$base" '" ".join(str(e.get("world_nodes")) for e in events)')
diag "world sizes in the timeline: $evs"
ok "no event of the timeline has a world of 3" bash -c '! printf "%s\n" $0 | grep -qvxE "0|1|2|4"' "$evs"
like "... and the timeline reaches 4" "$evs" '(^| )4$'

ok "elasticd stops on SIGTERM" ed_stop
done_testing
