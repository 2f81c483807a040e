#!/bin/bash
# Health before use: a spare joins a world only once its nodes are fit in
# Slurm and the site's SpareCheck (elastic.conf) passed on them.  A min=1
# max=2 group (a base of 1 node and a unit) with one spare on the cluster
# of hosts, ranks that sleep, heartbeat timeout 3 s, fault timeout 10 s;
# SpareCheck takes 20 s and fails (exit 3) on the nodes listed in a file:
#   1. the first spare's node listed, the world unit's node crashes while
#      the spare's check runs: the
#      spare is not taken (the world goes on at 1, then grows on another
#      node); the check fails: elastic-run names the node, cancels the
#      spare, elasticd drains the node saying why and counts it;
#   2. the crashed node boots and is resumed, the list is emptied: the
#      next spare passes;
#   3. its node is drained in Slurm as the site's HealthCheckProgram would:
#      elastic-run finds it within its reread, cancels the spare, the
#      site's reason is kept; the node back, the next spare passes;
#   4. the world unit's node crashes: the checked spare takes its place,
#      one relaunch at 2 nodes.
# No spare that failed is ever in a world (elastic-run's launches,
# elasticd's generations); no unit is left after.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 34

[ "${MC_HOSTS:-0}" = 1 ] || bail "needs the cluster of hosts (MC_HOSTS=1)"

W=$ED_TMP/w
mkdir -p "$W" && chmod 755 "$ED_TMP" "$W"
out=$W/out
touch "$out" && chmod 666 "$out"
check=$ED_TMP/sparecheck
cat >"$check" <<EOF
#!/bin/sh
# The site's check of a spare's node: slow, failing where listed.
sleep "\$(cat $W/delay 2>/dev/null || echo 0)"
if grep -qx "\$SLURMD_NODENAME" $W/bad; then
	echo "\$SLURMD_NODENAME: GPU 0: uncorrectable ECC errors" >&2
	exit 3
fi
exit 0
EOF
chmod 755 "$check"
echo 20 >"$W/delay"
: >"$W/bad"
chmod 644 "$W/delay" "$W/bad"

world_unit() { gq "$base" 'ids([m for m in members(in_world=True) if m.get("kind") != "base"])'; }
spare_unit() { gq "$base" 'ids([m for m in members(state="running") if m.get("spare")])'; }
since() { tail -n +"$((mark + 1))" "$out" | grep -cE -- "$1"; }
job_gone() { case $(job_field "$1" JobState) in RUNNING | PENDING | "") return 1 ;; esac; }
# in_a_world JOB: elastic-run launched over it, or elasticd took it in.
in_a_world() {
	grep -qE "event=(launch|relaunch) .*jobs=([^ ]*,)?$1:" "$out" ||
		grep -qE "generation [0-9]+: .*\+$1([^0-9]|$)" "$ED_LOG"
}

set_policy "$(grep -viE '^[[:space:]]*SpareCheck' "$POLICY")" "SpareCheck=$check" "SpareCheckTimeout=30"
ed_start_draining SparePartitions=spare
base=$(ED_WRAP="exec $RUN -- sleep 3600" submit_group "$TEST_USER" --elastic-spares=1 \
	--elastic-min=1 --elastic-max=2 --elastic-scale-delay=2 --elastic-fault-timeout=10 \
	--elastic-heartbeat-timeout=3 -o "$out")
like "a min=1 max=2 group with a spare is accepted" "$base" '^[0-9]+$'
at_exit "scancel $base 2>/dev/null; true"
ok "it runs at 2 nodes" wait_until 90 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=2 '
ok "its spare runs" gwait 90 "$base" 'g.get("spares") == 1' || show_group "$base"
s1=$(spare_unit)
n1=$(job_hosts "$s1")
echo "$n1" >"$W/bad"
unit=$(world_unit)
lost=$(job_hosts "$unit")

# --- 1. a loss while the spare's check runs; the check fails --------------------
mark=$(wc -l <"$out")
ok "1: the world unit's node ($lost) crashes while SpareCheck runs on $n1" node_fail "$lost"
at_exit "node_resume $lost 2>/dev/null; true"
ok "1: elastic-run finds $lost lost" wait_until 30 log_has "$out" "cause=node-lost node=$lost "
ok "1: SpareCheck fails on $n1: elastic-run names it" \
	wait_until 60 log_has "$out" "event=spare-failed .*job=$s1 node=$n1 why=SpareCheck exited 3"
ok "1: ... and cancels the spare" wait_until 30 job_gone "$s1"
is "1: the spare was in no world" "$(in_a_world "$s1" && echo "in one")" ""
ok "1: elasticd drained $n1, saying why (spare-check)" wait_until 30 drained_by "$n1" "$base" spare-check
like "1: /metrics counts it" "$(curl -fsS -m 5 "http://$ED_SERVER/metrics")" \
	'elasticd_suspect_nodes_total\{fault="spare-check",action="drained"\} 1'
like "1: elasticctl shows it among the group's events" "$(ctl "$TEST_USER" events "$base" 2>&1)" "suspect.*node $n1 spare-check: drained"
ok "1: the group trains at 2 again, on another node" \
	wait_until 120 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up restart=[0-9]+ nnodes=2 '"

# --- 2. the node back, the list empty: the next spare passes ---------------------
: >"$W/bad"
echo 1 >"$W/delay"
ok "2: the crashed node boots" node_resume "$lost"
# Drained as lost by elasticd (SuspectNodes=drain): the admin resumes it.
ok "2: ... and is resumed" scontrol update NodeName="$lost" State=RESUME
ok "2: a new spare runs" gwait 120 "$base" "g.get('spares') == 1 and '$s1' not in ids([m for m in members() if m.get('spare')]).split()" ||
	show_group "$base"
s2=$(spare_unit)
n2=$(job_hosts "$s2")
ok "2: SpareCheck passes on $n2: elastic-run says so" wait_until 60 log_has "$out" "event=spare-checked .*job=$s2 "

# --- 3. the site's health check drains the spare's node ---------------------------
reason="NHC: check_hw_ib failed"
ok "3: $n2 drained as HealthCheckProgram does" scontrol update NodeName="$n2" State=DRAIN Reason="$reason"
at_exit "scontrol update NodeName=$n2 State=RESUME 2>/dev/null; true"
ok "3: elastic-run finds it drained" \
	wait_until 30 log_has "$out" "event=spare-failed .*job=$s2 node=$n2 why=drained in Slurm \($reason\)"
ok "3: ... and cancels the spare" wait_until 30 job_gone "$s2"
like "3: the site's reason is kept" "$(drained_for "$n2")" "^drain[a-z*]*\|$reason\$"
ok "3: the node back in service" scontrol update NodeName="$n2" State=RESUME
ok "3: a new spare runs" gwait 120 "$base" "g.get('spares') == 1 and '$s2' not in ids([m for m in members() if m.get('spare')]).split()" ||
	show_group "$base"
s3=$(spare_unit)
ok "3: SpareCheck passes on it: elastic-run says so" wait_until 60 log_has "$out" "event=spare-checked .*job=$s3 "

# --- 4. a loss with a checked spare: the swap ---------------------------------------
unit=$(world_unit)
lost=$(job_hosts "$unit")
mark=$(wc -l <"$out")
ok "4: the world unit's node ($lost) crashes" node_fail "$lost"
at_exit "node_resume $lost 2>/dev/null; true"
ok "4: relaunched at 2 nodes on the checked spare $s3" \
	wait_until 90 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=relaunch restart=[0-9]+ nnodes=2 .*jobs=([^ ]*,)?$s3:'"
ok "4: its ranks are up" wait_until 60 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up restart=[0-9]+ nnodes=2 '"
is "4: never a world of 1" "$(since 'event=(relaunch|ranks-up) restart=[0-9]+ nnodes=1 ')" 0
ok "4: elasticd's world is the launcher's, the spare in it" \
	gwait 30 "$base" "world == 2 and '$s3' in ids(members(in_world=True)).split()" || show_group "$base"
ok "4: the crashed node boots" node_resume "$lost"

# --- the end ---------------------------------------------------------------------
is "no spare that failed its check was ever in a world" \
	"$(for j in $s1 $s2; do in_a_world "$j" && echo "$j"; done)" ""
ok "the group ends" scancel "$base"
no_units() { [ -z "$(slurm_units "$base" RUNNING; slurm_units "$base" PENDING)" ]; }
ok "no unit is left" wait_until 60 no_units
ok "elasticd stops on SIGTERM" ed_stop
done_testing
