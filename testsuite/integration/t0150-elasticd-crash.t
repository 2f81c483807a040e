#!/bin/bash
# elasticd keeps no state of its own that matters: killed with SIGKILL in
# the middle of a resize and started again, it rebuilds the group from
# slurmctld (the jobs' tags) in under 5 s, with the same members and a
# generation that does not go backwards, and finishes the resize; a base
# that ended while elasticd was dead leaves no orphan unit once it is back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 20

ok "elasticd starts" ed_start
two_of_four

# --- kill -9 during a resize --------------------------------------------------
scancel "$fill"
ok "freeing the 2 nodes starts a resize (a running unit outside the world)" wait_until 30 resizing "$base"
state_before=$(gq "$base" state)
gen_before=$(gq "$base" gen)
members_before=$(gq "$base" 'ids(members())')
slurm_before=$(printf '%s\n' "$base" $(running_units "$base") | sort -n | tr '\n' ' ')
ed_kill9
diag "killed elasticd with SIGKILL in state $state_before, generation $gen_before" \
	"members it showed: $members_before; running in Slurm: $slurm_before"
ok "... and elasticd is gone" test -z "$(ed_listening)"
ok "elasticd starts again" ed_start
rebuilt_cond="gen >= $gen_before and all(j in ids(members()).split() for j in '$members_before'.split())"
ok "it rebuilds the group: every member it had, generation not behind $gen_before" \
	gwait 10 "$base" "$rebuilt_cond" || show_group "$base"
took=$(secs_since "$ED_STARTED")
figure "crash: restart to group rebuilt in $took s (target < 5 s)"
ok "... in under 5 s" below "$took" 5
ok "it finishes the resize: a world of 4" gwait 60 "$base" 'world == 4 and len(units()) == 3' || show_group "$base"
gens=$(awk '$2 != "-" { print $2 }' "$ED_SAMPLES" | tr '\n' ' ')
ok "the generation never went backwards, across the crash too" \
	awk -v s="$gens" 'BEGIN { n = split(s, g, " "); for (i = 2; i <= n; i++) if (g[i] + 0 < g[i-1] + 0) exit 1 }'
is "the units that ran before the crash still run" \
	"$(for j in $slurm_before; do [ "$(job_field "$j" JobState)" = RUNNING ] || echo "$j"; done)" ""
ok "no unit was submitted twice: 3 live units" test "$(slurm_units "$base" | wc -l)" = 3 ||
	diag "units: $(slurm_units "$base" | tr '\n' ';')"
is "no orphan units" "$(orphan_units)" ""

# --- the base ends while elasticd is dead --------------------------------------
ed_kill9
runuser -u "$TEST_USER" -- scancel "$base"
ok "the base job ends while elasticd is dead" wait_until 30 job_gone_or_done "$base"
like "... leaving its units behind for now" "$(slurm_units "$base" | wc -l)" '^[1-9]'
ok "elasticd starts again" ed_start
no_orphans() { [ -z "$(orphan_units)" ]; }
ok "it cancels the dead group's units" wait_until 10 no_orphans || diag "orphans: $(orphan_units | tr '\n' ';')"
took=$(secs_since "$ED_STARTED")
figure "crash: restart to orphans cancelled in $took s (target < 5 s)"
ok "... in under 5 s" below "$took" 5

ok "elasticd stops on SIGTERM" ed_stop
done_testing
