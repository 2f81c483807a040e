#!/bin/bash
# A group's account in elasticd (elasticd-api(7), ACCOUNT): the reports
# its launcher sends (here by hand, as its owner, with the API's own
# credentials) are taken from the owner alone, checked (every argument
# bounded, the causes adding up to held), served back to the owner and
# admins only, shown in /metrics (which promtool check metrics passes
# whole), written to ElasticdStateDir/accounts/JOB.json (0600) and read
# back after the group ended and after elasticd restarted.  The final
# report puts the ratios after the base's tag in its AdminComment, which
# sacct shows once the job ended; the tag still parses.  Files past
# AccountRetention or AccountMaxJobs are removed when elasticd starts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 33

command -v promtool >/dev/null || bail "promtool is missing (Debian's prometheus package)"
ALICE=$TEST_USER
BOB=$OTHER_USER
ACC=$ED_STATE/accounts
# A file past the retention, made before elasticd starts.
mkdir -p "$ACC" && chmod 700 "$ACC"
echo '{}' >"$ACC/4000000001.json"
touch -d '40 days ago' "$ACC/4000000001.json"
echo '{}' >"$ACC/4000000002.json"
ok "elasticd starts" ed_start
ok "... and removes the account past AccountRetention (30 days), not the others" \
	test ! -e "$ACC/4000000001.json" -a -e "$ACC/4000000002.json"

base=$(submit_group "$ALICE" --elastic-min=1 --elastic-max=2 --elastic-scale-delay=1)
like "$ALICE's group of min 1, max 2 is accepted" "$base" '^[0-9]+$'
ok "it runs at 2 nodes" gwait 60 "$base" 'world == 2'

t0=$(date +%s%3N)
# report T WALL [ARG...]: the query of a report at unix ms T after WALL
# ms: 2 nodes held, 80% training (at 1 and 2 nodes), the rest waiting
# and resizing; the args after it replace those of the same name, or
# are added.
report() {
	local t=$1 wall=$2 held tr
	shift 2
	held=$((2 * wall)) tr=$((2 * wall * 8 / 10))
	local q="v=1&t=$t&wall_ms=$wall&train_wall_ms=$((wall * 9 / 10))&held_nms=$held&training_nms=$tr"
	q+="&waiting_nms=$((held - tr - 1000))&resize_restart_nms=1000&resize_inplace_nms=0&resize_swap_nms=0"
	q+="&detect_nms=0&redo_nms=0&checkpoint_nms=0&outside_nms=0&at=1:1000,2:$((tr - 1000))"
	q+="&steps=$((wall / 100))&redone=0&world=2&held=2&phase=training"
	local a
	for a in "$@"; do
		case "&$q&" in
		*"&${a%%=*}="*) q=$(sed -E "s/(^|&)${a%%=*}=[^&]*/\1$a/" <<<"$q") ;;
		*) q+="&$a" ;;
		esac
	done
	printf '%s\n' "$q"
}
post() { api POST "/v1/groups/$base/account?$1" "${2:-$ALICE}"; }
out=$(post "$(report "$t0" 10000 event=growth)")
like "$ALICE's launcher's report is kept: 202" "$(tr '\n' ' ' <<<"$out")" "^202 .*\"account\": *\"kept\""
is "... and one ending its resize" "$(post "$(report "$((t0 + 4700))" 14700 resize=growth:restart:4700:1)" | head -n1)" 202
is "$BOB's report on her group: 404" "$(post "$(report "$t0" 10000)" "$BOB" | head -n1)" 404
like "a report whose causes do not add up: 400, saying so" \
	"$(post "$(report "$t0" 10000 outside_nms=5000)" | tr '\n' ' ')" '^400 .*causes do not add up to held'
like "a bad number: 400 naming the argument" "$(post "$(report "$t0" 10000 steps=-1)" | tr '\n' ' ')" '^400 .*steps: '
like "a bad event: 400 naming it" "$(post "$(report "$t0" 10000 event=boom)" | tr '\n' ' ')" '^400 .*event: '
like "no version: 400" "$(api POST "/v1/groups/$base/account?t=1" "$ALICE" | tr '\n' ' ')" '^400 .*v: '

doc=$(api_get "/v1/groups/$base/account" "$ALICE")
ok "$ALICE reads her group's account" test -n "$doc"
acct() { jq_py "$1" <<<"$doc"; }
is "... held, training, the ratios as reported" \
	"$(acct '"%s %s %s %s %s" % (d["node_seconds"]["held"], d["node_seconds"]["training"], d["goodput"], d["ettr"], d["ended"])')" \
	"29.4 23.52 0.8 0.9 False"
is "... the series (2 points) and the events (growth, its resize by restart)" \
	"$(acct '"%d %s" % (len(d["series"]), ",".join("%s:%s:%s" % (e["kind"], e.get("path", "-"), e.get("seconds", "-")) for e in d["events"]))')" \
	"2 growth:-:-,growth:restart:4.7"
is "... the causes add up to held" "$(acct '"yes" if abs(sum(v for k, v in d["node_seconds"].items() if k != "held") - d["node_seconds"]["held"]) < 1 else "no"')" yes
is "$BOB cannot read it: 404" "$(api_code GET "/v1/groups/$base/account" "$BOB")" 404
is "root (an admin) can" "$(api_code GET "/v1/groups/$base/account" root)" 200

metrics=$(curl -fsS -m 5 "http://$ED_SERVER/metrics")
like "/metrics: the group's goodput" "$metrics" "elasticd_group_goodput_ratio\\{job_id=\"$base\",user=\"$ALICE\",account=\"[^\"]*\",partition=\"[a-z]+\"\\} 0\\.8"
like "... its node-seconds training" "$metrics" "elasticd_group_node_seconds_total\\{job_id=\"$base\",[^}]*cause=\"training\"\\} 23\\.520"
like "... the resize in the histogram" "$metrics" 'elasticd_resize_seconds_bucket\{kind="growth",path="restart",le="5"\} 1'
promtool_out=$(promtool check metrics <<<"$metrics" 2>&1)
rc=$?
ok "promtool check metrics passes on the whole of /metrics" test "$rc" = 0 -a -z "$promtool_out"
[ -z "$promtool_out" ] || diag "$promtool_out"

file=$ACC/$base.json
ok "the account is written to $file" wait_until 10 test -s "$file"
is "... mode 0600" "$(stat -c %a "$file")" 600

tag=$(admin_comment "$base")
is "the final report: 202" "$(post "$(report "$((t0 + 20000))" 20000 phase=ended final=1)" | head -n1)" 202
noted() { admin_comment "$base" | grep -qF "$tag | goodput=0.800 ettr=0.900 held_s=40"; }
ok "... puts the ratios after the base's tag in its AdminComment" wait_until 10 noted
diag "AdminComment: $(admin_comment "$base")"
ok "... and the account is written at once, ended" wait_until 10 grep -q '"ended":true' "$file"
scancel "$base"
ok "the group's base ends" wait_until 60 job_gone_or_done "$base"
sacct_noted() { sacct -n -X -j "$base" -o AdminComment%300 2>/dev/null | grep -q ' | goodput=0.800 ettr=0.900 held_s=40'; }
ok "sacct -o AdminComment shows the ratios once the job ended" wait_until 60 sacct_noted
diag "sacct: $(sacct -n -X -j "$base" -o AdminComment%300 2>&1 | sed 's/  */ /g')"

ok "elasticd stops" ed_stop
ok "elasticd starts again" ed_start
doc=$(api_get "/v1/groups/$base/account" "$ALICE")
is "after the restart $ALICE reads the ended group's account from its file" \
	"$(acct '"%s %s %s" % (d["ended"], d["node_seconds"]["held"], len(d["series"]))')" "True 40.0 3"
is "... $BOB still cannot: 404" "$(api_code GET "/v1/groups/$base/account" "$BOB")" 404
ok "elasticd stops" ed_stop
done_testing
