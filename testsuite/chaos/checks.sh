# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # the suite's variables, shared with chaos
# checks.sh: the chaos suite's checks at the end of a run.  Sourced by
# chaos.

# Step 3: the checks at the end of seed $1's run (run_fail for each that
# fails) and its figures.
run_checks() {
	local seed=$1 acct_ok loss steps cs window units_seen requeues
	wait_until 900 job_gone_or_done "$BASE" || run_fail "the job did not end: $(job_field "$BASE" JobState)"
	[ "$(job_field "$BASE" JobState)" = COMPLETED ] || run_fail "the job ended $(job_field "$BASE" JobState)"
	wait_until 30 no_units || run_fail "units left after the run: $(slurm_units "$BASE" | tr '\n' ';')"
	stop_sampler
	[ -z "$(orphan_units)" ] || run_fail "orphan units: $(orphan_units | tr '\n' ';')"
	steps=$(sed -n "s/^$TAG: done: [0-9]* epochs, \([0-9]*\) steps.*/\1/p" "$out" | tail -n1)
	[ "$steps" = "$TOTAL_STEPS" ] || run_fail "the last step: ${steps:-none}, want $TOTAL_STEPS"
	grep -qE 'elastic-run: .* event=done .*result=success' "$out" || run_fail "elastic-run did not report success"
	loss=$(sed -n 's/^final loss \([0-9.e+-]*\)$/\1/p' "$out" | tail -n1)
	if [ -z "$loss" ] || ! awk -v f="$loss" -v r="$ref" 'BEGIN { d = f - r; if (d < 0) d = -d; exit !(d <= 1e-3 * r + 1e-6) }'; then
		run_fail "final loss ${loss:-none}, uninterrupted $ref"
	fi
	# Each requeue of the base by Slurm (a new elastic-run: its launch
	# restart=0 in the output, kept with --open-mode=append) starts the
	# world again from a checkpoint, as a crash does.
	requeues=$(($(grep -c '^elastic-run: .* event=launch restart=0 ' "$out" || true) - 1))
	[ "$requeues" -ge 0 ] || requeues=0
	window=$(((kills + requeues) * (EVERY + 1) * BATCH))
	cs=$(runuser -u "$TEST_USER" -- "$PYTHON" "$CHECK" "$R/samples" "$SAMPLES" "$EPOCHS" --window "$window" 2>&1) ||
		run_fail "samples: $cs"
	grep -q ' BAD ' "$R/units" && run_fail "sampler: $(grep -c ' BAD ' "$R/units") violation(s), first: $(grep -m1 ' BAD ' "$R/units")"
	# sacct: every unit seen, ended, of the group, of the base's user.
	units_seen=$(grep -oE '[0-9]+:[A-Z_]+' "$R/units" | cut -d: -f1 | sort -nu | tr '\n' ' ')
	sacct_ok() {
		local u rec
		sacct -a -X -D -P -n -j "$(echo "$BASE $units_seen" | tr -s ' ' ',' | sed 's/,$//')" \
			-o JobID,User,State,End,AdminComment >"$R/sacct" 2>&1 || return 1
		buser=$(awk -F'|' -v b="$BASE" '$1 == b { print $2; exit }' "$R/sacct")
		[ -n "$buser" ] || return 1
		for u in $units_seen; do
			rec=$(awk -F'|' -v u="$u" '$1 == u' "$R/sacct")
			[ -n "$rec" ] || { acct_why="unit $u not in sacct"; return 1; }
			echo "$rec" | grep -q '|Unknown|' && { acct_why="unit $u has no end in sacct"; return 1; }
			echo "$rec" | grep -qF "group=$BASE" || { acct_why="unit $u not tagged group=$BASE in sacct"; return 1; }
			echo "$rec" | awk -F'|' -v b="$buser" '$2 != b { exit 1 }' || { acct_why="unit $u owned by $(echo "$rec" | cut -d'|' -f2), base by $buser"; return 1; }
		done
	}
	acct_why="sacct did not answer"
	wait_until 60 sacct_ok || run_fail "sacct: $acct_why"
	acct_ok=$(echo "$units_seen" | wc -w)
	say "  seed $seed: last step ${steps:-none}/$TOTAL_STEPS, final loss ${loss:-none} (uninterrupted $ref), $requeues requeue(s) by Slurm, $cs"
	say "  seed $seed: $acct_ok units seen, in sacct; $(grep -c ' base-nodes=' "$R/units") samples of the units, $(grep -c ' BAD ' "$R/units") violations"
	run_alarms
	# Samples never processed (check_samples' "N missing"), for the report.
	echo "$cs" | sed -n 's/.* \([0-9]*\) missing.*/\1/p' | head -n1 >>"$OUT/samples-lost"
	rm -rf "${CKPT:?}"
	after_run
	BASE=""
	cleanup_jobs >/dev/null
}

# run_alarms: the run's suspect nodes against its faults (alarms.py):
# a false alarm, or a healthy node drained, fails the run.
run_alarms() {
	local a f h
	a=$("$PYTHON" "$HERE/alarms.py" "$out" "$ED_LOG" "$R/targets" "$BASE" 2>&1)
	echo "$a" >"$R/alarms"
	read -r f h < <(echo "$a" | sed -n 's/^alarms: [0-9]* suspect reports, \([0-9]*\) false alarms, \([0-9]*\) healthy.*/\1 \2/p')
	say "  seed $seed: $(echo "$a" | tail -n1 | sed 's/^alarms: //')"
	# Per kind of the fault before each (the report's columns).
	echo "$a" | awk '/ FALSE / { k = $NF; sub(/^after=/, "", k); print k " false"
		if (/ drained /) print k " healthy-drained" }' >>"$FIGS"
	[ "${f:-x}" = 0 ] || run_fail "false alarms: ${f:-alarms.py failed}: $(echo "$a" | grep -m3 ' FALSE' | tr '\n' ';')"
	[ "${h:-x}" = 0 ] || run_fail "healthy nodes drained: ${h:-?}"
}
