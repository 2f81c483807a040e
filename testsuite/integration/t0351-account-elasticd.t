#!/bin/bash
# The launcher's account with elasticd (elastic-run(1), ACCOUNTING): a
# group of min=2 max=3 whose Python ranks (account_rank.py) report each
# step, reporting its ledger every second (ELASTIC_ACCOUNT_INTERVAL=1).  The reports never get
# in the launcher's way: an elasticd that keeps no accounts (404) is said
# once, nothing else is said of them; one that keeps them has the final
# report.  The line at the end adds up as without elasticd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 9

W=$ED_TMP/w
mkdir -p "$W" && chmod 777 "$W"
out=$W/out
cp "$ELASTIC_SRCDIR/testsuite/integration/account_rank.py" "$ED_TMP/rank.py"
chmod 644 "$ED_TMP/rank.py"

stepping_at_3() {
	local r
	r=$(grep -E 'event=ranks-up restart=[0-9]+ nnodes=3 ' "$out" 2>/dev/null | tail -n1 |
		sed -E 's/.* restart=([0-9]+) .*/\1/')
	[ -n "$r" ] && [ "$(cat "$W/step.$r.0" 2>/dev/null || echo 0)" -ge 20 ]
}

ok "elasticd starts" ed_start
base=$(py_group -o "$out" --export=ALL,W="$W",ELASTIC_ACCOUNT_INTERVAL=1)
like "a min=2 max=3 group is accepted" "$base" '^[0-9]+$'
ok "it grows to 3 nodes, whose ranks step" wait_until 120 stepping_at_3
touch "$W/finish"
ok "the job completes when the ranks finish" wait_until 60 job_gone_or_done "$base"
is "one account line at the end" "$(grep -c '^elastic-run: account: ' "$out")" 1
acct=$(account_of "$out")
diag "$acct"
ok "held = the sum of the causes, within 1000 node-ms" account_adds_up "$acct"
like "... ended at 3 nodes, having trained" "$acct" ' world=3 held=3 phase=ended .*final=1 '
said=$(grep 'the account to elasticd' "$out")
is "no report failed (a 404 is no failure)" "$said" ""
if grep -q "keeps no account of job $base (404)" "$out"; then
	is "an elasticd that keeps no accounts: said once" "$(grep -c 'keeps no account of job' "$out")" 1
else
	# The final report, as elasticd keeps it: its steps and node-seconds
	# held (the line's, to the millisecond).
	doc=$(api_get "/v1/groups/$base/account")
	is "elasticd kept the final report: ended, its steps and node-seconds held" \
		"$(printf '%s' "$doc" | jq_py '[d["ended"], d["steps"], round(d["node_seconds"]["held"] * 1000)]')" \
		"$(printf '%s\n' true "$(account_field "$acct" steps)" "$(account_field "$acct" held_nms)")"
fi
done_testing
