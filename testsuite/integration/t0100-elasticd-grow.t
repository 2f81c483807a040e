#!/bin/bash
# elasticd grows a group onto idle nodes: elastic-alice's min=1 max=4
# step=1 job on the 4 idle nodes of the base/preempt partitions reaches a
# world of 4 nodes, the base and 3 one-node preemptible units that elasticd
# submitted as her; cancelling the base releases every unit.  elasticd
# reads the whole queue at every poll here (ElasticdResyncInterval=0; the
# other tests run with the groups' jobs read by id).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup
ed_write_conf ElasticdResyncInterval=0

plan 33

# -v: the debug lines of the cycles and of the API's requests.
ok "elasticd starts and answers /healthz" ed_start -v
is "/healthz needs no credential" "$(api_code GET /healthz -)" 200

uid=$(id -u "$TEST_USER")
t0=$(now)
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 --elastic-scale-delay=1)
like "$TEST_USER's elastic job (min=1 max=4 step=1) is accepted" "$base" '^[0-9]+$'
ok "its base job starts" wait_until 30 job_running "$base"
ok "elasticd shows the group" gwait 10 "$base" True
ok "the group grows to a world of 4 nodes with 3 running units" \
	gwait 60 "$base" 'world == 4 and len(units()) == 3 and len(members(in_world=True)) == 4 and state == "RUNNING"' ||
	show_group "$base"
figure "grow: base submitted to a world of 4 nodes in $(span_to "$t0" '$3 == 4') s," \
	"RUNNING again $(span_to "$t0" '$3 == 4 && $4 == "RUNNING"') s (scale delay 1 s, grace 5 s, poll ${ED_POLL_MS} ms);" \
	"worlds seen: $(worlds_seen "$t0")"

# --- what elasticd says ----------------------------------------------------
is "the group's id is the base job's id" "$(gq "$base" 'g.get("id")')" "$base"
is "... its owner is $TEST_USER" "$(gq "$base" '"%s %s" % (g.get("uid"), g.get("user"))')" "$uid $TEST_USER"
is "... min 1, max 4" "$(gq "$base" '"%s %s" % (g.get("min"), g.get("max"))')" "1 4"
is "... the base is a running member of the world" \
	"$(gq "$base" 'ids(members(kind="base", state="running", in_world=True))')" "$base"
is "... 3 preemptible one-node units, all in the world" \
	"$(gq "$base" '"%d %s" % (len(units(kind="preemptible")), sorted(set(m.get("nnodes") for m in units(kind="preemptible"))))')" "3 [1]"
ok "... a generation number above 0" test "$(gq "$base" gen)" -gt 0
like "... a rendezvous address" "$(gq "$base" 'g.get("master_addr")')" '.'
causes=$(gq "$base" '" ".join(e.get("cause", "?") for e in events)')
like "the timeline starts the world, then only grows it" "$causes" '^start( grow)*$'
is "... its last event is the world of 4" "$(gq "$base" 'events[-1].get("world_nodes") if events else None')" 4
gens=$(awk -v a="$t0" '$1 >= a && $2 != "-" { print $2 }' "$ED_SAMPLES" | tr '\n' ' ')
ok "the generation never went backwards while it grew" awk -v s="$gens" 'BEGIN { n = split(s, g, " "); for (i = 2; i <= n; i++) if (g[i] + 0 < g[i-1] + 0) exit 1 }'

# --- what Slurm has --------------------------------------------------------
units=$(slurm_units "$base")
printf '%s\n' "$units" | sed 's/^/# unit /'
is "Slurm runs 3 unit jobs of the group, none pending (no surplus)" \
	"$(printf '%s\n' "$units" | awk '{ print $2 }' | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')" "3 RUNNING "
is "... the same jobs elasticd shows" "$(running_units "$base")" "$(gq "$base" 'ids(units())') "
is "... each named elastic-unit-$base" \
	"$(for j in $(running_units "$base"); do job_field "$j" JobName; done | sort -u)" "elastic-unit-$base"
is "... submitted as $TEST_USER, in the preempt partition" \
	"$(printf '%s\n' "$units" | awk '{ print $6, $3 }' | sort -u)" "$TEST_USER preempt"
tags=$(for j in $(running_units "$base"); do admin_comment "$j"; done)
is "... tagged elastic-unit:v1 group=$base kind=preemptible nodes=1 req=N" \
	"$(printf '%s\n' "$tags" | sed -E 's/ req=[1-9][0-9]*$/ req=N/' | sort -u)" \
	"elastic-unit:v1 group=$base kind=preemptible nodes=1 req=N"
is "... each with its own submission number" \
	"$(printf '%s\n' "$tags" | sed -E 's/.* req=//' | sort -u | wc -l)" 3
ok "... with a time limit no longer than the base's (30 min)" \
	awk -v s="$(printf '%s\n' "$units" | sed -n 's/.* limit=//p' | tr '\n' ' ')" \
	'BEGIN { n = split(s, l, " "); if (n != 3) exit 1; for (i = 1; i <= n; i++) if (l[i] + 0 < 1 || l[i] + 0 > 30) exit 1 }'
is "the group holds all of n[1-4], one node each" \
	"$({ job_hosts "$base"; for j in $(running_units "$base"); do job_hosts "$j"; done; } | sort | tr '\n' ' ')" "n1 n2 n3 n4 "

# --- CLI and metrics -------------------------------------------------------
out=$(ctl "$TEST_USER" status "$base" 2>&1)
printf '%s\n' "$out" | sed 's/^/# elasticctl: /'
like "elasticctl status JOB shows the group RUNNING to its owner" "$out" "RUNNING"
metrics=$(curl -fsS -m 5 "http://$ED_SERVER/metrics" 2>&1)
like "/metrics is Prometheus text" "$metrics" '^# (HELP|TYPE) '
like "... counting 3 preemptible nodes" "$metrics" 'preemptible[^ ]* 3(\.0*)?$'

# --- the base ends: every unit goes -----------------------------------------
t1=$(now)
runuser -u "$TEST_USER" -- scancel "$base"
no_units() { [ -z "$(slurm_units "$base")" ]; }
ok "when the base is cancelled, elasticd cancels every unit" wait_until 15 no_units ||
	diag "left: $(slurm_units "$base" | tr '\n' ';')"
figure "grow: base cancelled to last unit gone: $(secs_since "$t1") s"
# Ended: out of the list, still readable one by one (for an hour).
group_ended() {
	[ "$(gq "$base" state)" = ENDED ] &&
		! api_get /v1/groups | grep -q "\"id\":$base,"
}
ok "... and the group is ENDED: out of the list, its status still read" wait_until 15 group_ended

ok "elasticd stops on SIGTERM" ed_stop
like "elasticd -v logs its cycles" "$(grep -m1 'debug: cycle ' "$ED_LOG")" \
	"^elasticd: [0-9:.]+ debug: cycle [0-9]+: Slurm's state changed, [0-9]+ groups, [0-9]+ actions, [0-9]+ RPCs, reconcile [0-9.]+ ms$"
# (An answer 200: with ED_RESYNC the first may be a 404, the group not read
# yet.)
like "... and the API's requests, with the caller's uid" "$(grep -m1 "debug: API: GET /v1/groups/$base .*: 200$" "$ED_LOG")" \
	"debug: API: GET /v1/groups/$base from uid [0-9]+: 200$"
like "... and the units it submitted, at info" "$(grep -m1 "group $base: submit" "$ED_LOG")" "^elasticd: [0-9:.]+ group $base: submit"
done_testing
