#!/bin/bash
# slurmctld and elasticd (on ctl, as the cluster runs it) die (kill -9) in
# the middle of a resize and are started again from their saved state, as
# systemd would: the group ends at the right size, with no orphan and no
# duplicate unit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 17

ok "elasticd starts on ctl" mc_ed_start
two_of_four

# units_ok N: N units running, no more live units (running or pending)
# than max - min = 3 (none submitted twice), none orphaned.
units_ok() {
	[ "$(running_units "$base" | wc -w)" = "$1" ] && [ "$(slurm_units "$base" | wc -l)" -le 3 ] &&
		[ -z "$(orphan_units)" ]
}

# --- slurmctld dies mid-resize ------------------------------------------------
# What slurmctld has not saved yet, a kill -9 loses: a base submitted a
# few seconds ago would be gone, as on any cluster.  The resize, not the
# submission, is what dies here: a job change makes slurmctld save (within
# its 5 s save delay); wait for that save.
saved() { stat -c %.9Y "$MC_DIR/state/job_state" 2>/dev/null; }
s0=$(saved)
scontrol update JobId="$fill" Comment=saved
ok "slurmctld has saved the group's jobs" wait_until 30 eval '[ "$(saved)" != "$s0" ]'

scancel "$fill"
ok "freeing 2 nodes starts a resize" wait_until 30 resizing "$base"
t0=$(now)
ok "slurmctld is killed (-9) and started again mid-resize" "$MINICLUSTER" restart slurmctld
# A kill -9 loses what slurmctld had not saved yet: the units it had just
# started come back PENDING while their nodes run them, and Slurm sorts
# that out in about a minute.  The group must end right all the same.
ok "... the group ends at a world of 4 with 3 units" gwait 180 "$base" 'world == 4 and len(units()) == 3 and state == "RUNNING"' ||
	show_group "$base"
figure "restarts: slurmctld restart mid-resize to a world of 4: $(secs_since "$t0") s"
ok "... 3 units run in Slurm, none orphaned, none twice" wait_until 30 units_ok 3 ||
	diag "units: $(slurm_units "$base" | tr '\n' ';') orphans: $(orphan_units)"

# --- elasticd dies mid-resize -------------------------------------------------
hjid=$(sbatch --parsable -p high -N2 -J preemptor -o /dev/null -t 30 --wrap 'exec sleep 1800')
preempting() { [ "$(running_units "$base" | wc -w)" -lt 3 ] || [ "$(gq "$base" state 2>/dev/null)" = RESIZING ]; }
ok "a 2-node high-priority job starts a shrink" wait_until 30 preempting
t0=$(now)
ok "elasticd is killed (-9) and started again mid-resize" mc_ed_restart
ok "... the group ends at a world of 2 with 1 unit" gwait 90 "$base" 'world == 2 and len(units()) == 1 and state == "RUNNING"' ||
	show_group "$base"
figure "restarts: elasticd restart mid-resize to a world of 2: $(secs_since "$t0") s"
ok "... the preemptor runs" wait_until 60 job_running "$hjid"
ok "... 1 unit runs in Slurm, none orphaned, none twice" wait_until 30 units_ok 1 ||
	diag "units: $(slurm_units "$base" | tr '\n' ';') orphans: $(orphan_units)"
scancel "$hjid"
ok "the preemptor ends: back to a world of 4 with 3 units" gwait 90 "$base" 'world == 4 and len(units()) == 3' ||
	show_group "$base"
ok "... none orphaned, none twice" wait_until 30 units_ok 3

# --- the end ------------------------------------------------------------------
runuser -u "$TEST_USER" -- scancel "$base"
ok "the base ends: no unit of the group is left" wait_until 30 eval '[ -z "$(running_units "$base")" ] && [ -z "$(orphan_units)" ]'

done_testing
