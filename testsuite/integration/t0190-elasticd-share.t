#!/bin/bash
# Groups of several users share idle nodes by the policy (elasticd(8),
# Sharing), on a cluster of their own: 9 nodes, the bases on n[1-3], units
# and rigid jobs of the partition 'high' (which preempts units) on n[4-9].
#   1. Three equal groups (alice, bob, carol: min 1, max 7) wait while a
#      rigid job of dave holds the 6 unit nodes; when it ends the 6 idle
#      nodes go 2, 2 and 2 (Jain's index 1), not to the first group; each
#      unit's nice is its group's rank.
#   2. A rigid job of dave that needs the 6 nodes starts within the units'
#      grace (GraceTime=10 s) of its submission: units do not delay it.
#   3. No unit moves between running groups by default; with
#      Rebalance=yes (RebalanceInterval=10) alice, alone on the 6 nodes
#      first, gives one unit at a time to bob until 4 and 4, and none
#      moves back.
. "$(dirname "$0")/lib.sh"

# The cluster of this test, side by side with the one the others share.
MC_DIR=$MC_DIR-share
MC_PORT_BASE=$((MC_PORT_BASE + 800))
export MC_DIR MC_PORT_BASE MC_HOSTS=0 MC_NODES=9 MC_FIRST_JOB_ID=800000 \
	MC_PART_BASE='n[1-3]' MC_PART_PREEMPT='n[4-9]' MC_PART_HIGH='n[4-9]' \
	MC_PART_ONDEMAND='n3'
. "$(dirname "$0")/elasticd.sh"

plan 29

ed_own_cluster
ok "elasticd starts" ed_start

RIGID=elastic-dave
USERS=(elastic-alice elastic-bob elastic-carol)
rigid() { # rigid NODES: a job of dave in 'high' on NODES nodes
	runuser -u "$RIGID" -- sbatch --parsable -p high -N "$1" -D "$ED_TMP" -o /dev/null -t 30 \
		-J rigid --wrap 'exec sleep 1800'
}
worlds() { # worlds GROUP...: their world sizes, space-separated
	local g
	for g in "$@"; do printf '%s ' "$(gq "$g" world)"; done
}
worlds_are() { [ "$(worlds "${@:2}")" = "$1" ]; }

# --- 1. equal groups level ---------------------------------------------------
block=$(rigid 6)
ok "a rigid job of $RIGID holds the 6 unit nodes" wait_until 30 job_running "$block"
g=()
for u in "${USERS[@]}"; do
	g+=("$(submit_group "$u" --elastic-min=1 --elastic-max=7 --elastic-step=1)")
done
like "three groups of three users are accepted" "${g[*]}" '^[0-9]+ [0-9]+ [0-9]+$'
for k in 0 1 2; do
	ok "${USERS[k]}'s group runs at 1 node with 6 units pending" \
		gwait 60 "${g[k]}" 'world == 1 and len(units(state="pending")) == 6' ||
		show_group "${g[k]}"
done
# The nice of a group's pending units: UnitNice + 1 + ShareNiceStep x the
# size each brings the group to (10000 + 1 + 100 x 2..7), the same for
# every group.
nices() {
	squeue -h -u "$1" -t PD -o '%y' | sort -n | tr '\n' ' '
}
want="10201 10301 10401 10501 10601 10701 "
for k in 0 1 2; do
	is "${USERS[k]}'s units carry the nice of the sizes they bring" "$(nices "${USERS[k]}")" "$want"
done

t0=$(now)
scancel "$block"
ok "once the rigid job ends the 6 idle nodes go 2, 2, 2: worlds of 3" \
	wait_until 90 worlds_are "3 3 3 " "${g[@]}" || diag "worlds: $(worlds "${g[@]}")"
figure "share: 6 idle nodes to three equal groups in $(secs_since "$t0") s, worlds $(worlds "${g[@]}")"
is "each group has a third of the groups' nodes" \
	"$(for k in 0 1 2; do gq "${g[k]}" '"%.3f" % g["share"]'; done | tr '\n' ' ')" "0.333 0.333 0.333 "
jain=$(for k in 0 1 2; do gq "${g[k]}" world; done | awk '{ s += $1; q += $1 * $1; n++ } END { printf "%.3f", s * s / (n * q) }')
is "Jain's index over the three groups' worlds is 1" "$jain" "1.000"
ok "each waits to grow (units pending, below max): growth_wait_seconds is set" \
	gq "${g[0]}" 'g["growth_wait_seconds"] is not None and g["growth_wait_seconds"] >= 0'
out=$(ctl "${USERS[0]}" status 2>&1)
like "elasticctl status shows the owner's group with its share and wait" "$out" "${g[0]} +${USERS[0]} .* 3 +1 +7 +33% +[0-9]+[smh] "
out=$(curl -fsS -m 5 "http://$ED_SERVER/metrics")
like "/metrics: each group's share" "$out" "elasticd_group_share\\{group=\"${g[1]}\",user=\"${USERS[1]}\"\\} 0\\.333"

# --- 2. a rigid job is not delayed by units ------------------------------
r=$(rigid 6)
ok "a rigid job of $RIGID on the 6 unit nodes starts" wait_until 60 job_running "$r"
wait_s=$(($(job_time "$r" StartTime) - $(job_time "$r" SubmitTime)))
figure "share: a rigid job of 6 nodes waited $wait_s s for the units' nodes (GraceTime 10 s)"
ok "... within the units' grace (10 s) and Slurm's 5 s to schedule and kill" test "$wait_s" -le 15
ok "the groups are back at their bases" wait_until 60 worlds_are "1 1 1 " "${g[@]}" ||
	diag "worlds: $(worlds "${g[@]}")"
scancel "$r" "${g[@]}"
ok "everything ends" wait_until 60 queue_empty

# --- 3. no churn, then Rebalance=yes -----------------------------------
# alice first, alone on the 6 unit nodes; then bob.
two_groups() {
	a=$(submit_group "${USERS[0]}" --elastic-min=1 --elastic-max=7 --elastic-step=1)
	ok "alone, alice's group takes the 6 unit nodes: a world of 7" gwait 60 "$a" 'world == 7'
	b=$(submit_group "${USERS[1]}" --elastic-min=1 --elastic-max=7 --elastic-step=1)
	ok "bob's group runs at 1 node, its units pending" \
		gwait 60 "$b" 'world == 1 and len(units(state="pending")) == 6'
}
two_groups
gen=$(gq "$a" gen)
gwatch 25 "$a"
is "by default no unit of alice's leaves for bob (25 s, 2.5 intervals)" "$(worlds "$a" "$b")gen $(gq "$a" gen)" "7 1 gen $gen"
ed_stop
scancel "$a" "$b"
wait_until 60 queue_empty

ed_write_conf Rebalance=yes RebalanceInterval=10
ok "elasticd starts with Rebalance=yes, RebalanceInterval=10" ed_start
two_groups
t0=$(now)
ok "with Rebalance=yes, one unit at a time moves until 4 and 4" \
	wait_until 150 worlds_are "4 4 " "$a" "$b" || diag "worlds: $(worlds "$a" "$b")"
figure "rebalance: 7 and 1 to 4 and 4 in $(secs_since "$t0") s (RebalanceInterval 10 s, grace 5 s)"
gen=$(gq "$a" gen)
gwatch 25 "$a"
is "and none moves back (25 s)" "$(worlds "$a" "$b")gen $(gq "$a" gen)" "4 4 gen $gen"
# alice's three rebalance events, an interval apart at least.
ev=$(gq "$a" '[e["time"] for e in events if e["cause"] == "rebalance"]' |
	while read -r t; do date -d "$t" +%s; done | tr '\n' ' ')
like "alice's timeline: three rebalance events" "$ev" '^[0-9]+ [0-9]+ [0-9]+ $'
ok "... at least RebalanceInterval apart" awk -v e="$ev" 'BEGIN { n = split(e, t, " "); for (i = 2; i <= n; i++) if (t[i] - t[i-1] < 10) exit 1 }'

done_testing
