#!/bin/bash
# Notifications from a group's launcher, with a read of Slurm a minute
# (ElasticdPollInterval=60000): elastic-run in the base tells elasticd when
# its world lost a member (fault) and when it ends (end), and elasticd
# reads the group at every cycle for a while after each.
#   1. a unit's node crashes (minicluster crash): once slurmctld declares
#      the node down, the launcher tells, and elasticd replaces the unit
#      long before its next read of Slurm;
#   2. the ranks finish: the launcher ends and tells, and elasticd cancels
#      the group's units as soon as the base has ended, not a poll later.
# elasticd is restarted before each, so that its next read of Slurm is a
# minute away.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 18

# told EVENT: elasticd took the launcher's notification EVENT (its debug
# log, elasticd -v) since the log's line FROM.
told() { tail -n +"$2" "$ED_LOG" | grep -q "notified: job $base, $1 "; }

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
# A rank: on the event exits 0 (checkpointed); once $W/finish exists, ends.
cat >"$ED_TMP/worker.sh" <<'EOS'
#!/bin/bash
trap 'ev=1' URG
while [ ! -e "$W/finish" ]; do
	[ -z "${ev:-}" ] || exit 0
	sleep 0.5 & wait $!
done
EOS
chmod 755 "$ED_TMP/worker.sh"
out=$W/out

ed_write_conf ElasticdPollInterval=60000 ElasticdNotify=yes
ok "elasticd starts, reading Slurm once a minute" ed_start -v
like "... as it says" "$(grep 'started:' "$ED_LOG" | tail -n1)" 'Slurm read every 60000 ms, notifications yes'

base=$(ED_WRAP="exec $RUN -- $ED_TMP/worker.sh" \
	submit_group "$TEST_USER" --elastic-min=1 --elastic-max=3 --elastic-step=1 \
	--elastic-scale-delay=1 --elastic-fault-timeout=5 --elastic-grace=5 \
	-o "$out" --export=ALL,W="$W")
like "a min=1 max=3 group running elastic-run is accepted" "$base" '^[0-9]+$'
ok "its ranks run on 3 nodes" wait_until 90 log_has "$out" 'event=ranks-up restart=[0-9]+ nnodes=3 '

# --- 1. a unit's node crashes ---------------------------------------------
ok "elasticd restarts: its next read of Slurm is a minute away" \
	eval 'ed_stop && ed_start -v'
t_ed=$ED_STARTED
ok "... and adopts the group of 3" gwait 20 "$base" 'world == 3 and state == "RUNNING"' ||
	show_group "$base"
gen0=$(gq "$base" gen)
from=$(wc -l <"$ED_LOG")
unit=$(running_units "$base")
unit=${unit%% *}
node=$(job_hosts "$unit")
ups() { grep -cE 'event=ranks-up restart=[0-9]+ nnodes=3 ' "$out"; }
ups0=$(ups)
node_fail "$node"
ok "slurmctld declares $node (unit $unit) down" wait_until 90 node_down_seen "$node"
t_down=$(now)
ok "the launcher told elasticd of the fault" wait_until 20 told fault "$from"
ok "a new world without the lost unit, then with its replacement" \
	gwait 30 "$base" "gen > $gen0 and world == 3 and $unit not in [m.get('job_id') for m in members(in_world=True)]" ||
	show_group "$base"
figure "notify-launcher: node declared down to a new world of 3: $(secs_since "$t_down") s (fault timeout 5 s, reads of Slurm every 60 s)"
took=$(secs_since "$t_ed")
ok "... before elasticd's next read of Slurm ($took s after its start)" below "$took" 55
ups_more() { [ "$(ups)" -gt "$ups0" ]; }
ok "the ranks run on 3 nodes again" wait_until 60 ups_more
node_resume "$node"

# --- 2. the launcher ends ---------------------------------------------------
ok "elasticd restarts again" eval 'ed_stop && ed_start -v'
t_ed=$ED_STARTED
ok "... and adopts the group of 3" gwait 20 "$base" 'world == 3 and len(units()) == 2' ||
	show_group "$base"
from=$(wc -l <"$ED_LOG")
touch "$W/finish"
ok "the ranks finish and the launcher ends with success" \
	wait_until 60 log_has "$out" 'event=done .*result=success'
t_end=$(now)
ok "the launcher told elasticd of its end" wait_until 10 told end "$from"
no_units() { [ -z "$(slurm_units "$base" RUNNING)" ] && ! job_running "$base"; }
ok "the base ended and elasticd cancelled its units" wait_until 30 no_units ||
	squeue -h -o '%i %j %T %N' >&2
figure "notify-launcher: launcher's end to the units cancelled: $(secs_since "$t_end") s (reads of Slurm every 60 s)"
took=$(secs_since "$t_ed")
ok "... before elasticd's next read of Slurm ($took s after its start)" below "$took" 55
ok "elasticd stops" ed_stop
done_testing
