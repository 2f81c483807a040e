#!/bin/bash
# The API authenticates with munge and shows a group to its owner and to
# admins only: elastic-bob can neither see (status, events) nor change
# (raise) elastic-alice's group, through elasticctl or HTTP; alice can;
# root (an admin by elasticd's own rule) sees all.  No credential, a forged one or a
# replayed one gets 401.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 38

ALICE=$TEST_USER
BOB=$OTHER_USER
# ctl_groups USER: the ids of the groups elasticctl --json status lists.
ctl_groups() { ctl "$1" --json status | jq_py '[g.get("id") for g in as_list(d, "groups")]' | sort -n | tr '\n' ' '; }
fails() { ! "$@" >/dev/null 2>&1; }
ok "elasticd starts" ed_start

# Alice's rank records every elastic event (SIGURG, the default) it gets.
ED_WRAP="srun -N1 -n1 /bin/bash -c 'trap \"echo raised >>$ED_TMP/raised\" URG; touch $ED_TMP/ready; while :; do sleep 0.5 & wait \$!; done'"
ga=$(submit_group "$ALICE" --elastic-min=1 --elastic-max=2 --elastic-scale-delay=1)
ED_WRAP=""
gb=$(submit_group "$BOB" --elastic-min=1 --elastic-max=2 --elastic-scale-delay=1)
like "$ALICE's group is accepted" "$ga" '^[0-9]+$'
like "$BOB's group is accepted" "$gb" '^[0-9]+$'
both_run() {
	gwait 60 "$ga" 'world == 2 and state == "RUNNING"' && gwait 60 "$gb" 'world == 2 and state == "RUNNING"'
}
ok "both groups run at their size, 2 nodes" both_run
ready() { [ -e "$ED_TMP/ready" ]; }
raised() { if [ -e "$ED_TMP/raised" ]; then wc -l <"$ED_TMP/raised"; else echo 0; fi; }
raised_since() { [ "$(raised)" -gt "$1" ]; }
ok "$ALICE's rank is ready for events" wait_until 30 ready

# --- who is asking ------------------------------------------------------------
is "no credential: 401" "$(api_code GET /v1/groups -)" 401
is "a forged credential: 401" "$(api_code GET /v1/groups - 'MUNGE:AwQFAAAAdGhpcyBpcyBub3QgYSBjcmVkZW50aWFs:')" 401
cred=$(munge_cred "$ALICE" GET "/v1/groups/$ga")
is "$ALICE's credential: 200" "$(api_code GET "/v1/groups/$ga" - "$cred")" 200
is "... replayed: 401" "$(api_code GET "/v1/groups/$ga" - "$cred")" 401
cred=$(munge_cred "$ALICE" GET "/v1/groups/$ga")
out=$(api POST "/v1/groups/$ga/raise" - "$cred")
like "... made for another request (GET of her group, sent as its raise): 401" "$(head -n1 <<<"$out") $(tail -n +2 <<<"$out")" '^401 .*made for another request'
is "... and once elasticd saw it, not even for its own request" "$(api_code GET "/v1/groups/$ga" - "$cred")" 401
like "an unbound credential (munge -n): 401, saying so" "$(api GET /v1/groups - "$(munge -n -S "$MC_MUNGE_SOCKET")" | tr '\n' ' ')" '^401 .*not bound to the request'
ok "/metrics needs no credential (Prometheus scrapes it)" curl -fsS -m 5 -o /dev/null "http://$ED_SERVER/metrics"

# --- bob ------------------------------------------------------------------------
list=$(api_get /v1/groups "$BOB" | jq_py '[g.get("id") for g in as_list(d, "groups")]' | tr '\n' ' ')
is "HTTP: $BOB's list of groups is his own" "$list" "$gb "
like "HTTP: $BOB cannot read $ALICE's group" "$(api_code GET "/v1/groups/$ga" "$BOB")" '^(403|404)$'
like "HTTP: ... nor its events" "$(api_code GET "/v1/groups/$ga/events" "$BOB")" '^(403|404)$'
out=$(ctl "$BOB" status 2>&1)
rc=$?
is "elasticctl status as $BOB succeeds" "$rc" 0
is "... and lists his group only (--json)" "$(ctl_groups "$BOB")" "$gb "
out=$(ctl "$BOB" status "$ga" 2>&1)
rc=$?
ok "elasticctl status $ALICE's-group as $BOB fails" test "$rc" -ne 0
diag "elasticctl status as $BOB: $out"
ok "... without telling anything of it" fails grep -qwE "RUNNING|preemptible|$ALICE" <<<"$out"
out=$(ctl "$BOB" events "$ga" 2>&1)
rc=$?
ok "elasticctl events of $ALICE's group as $BOB fails" test "$rc" -ne 0
# Her rank has seen the events of her group's growth: count from here.
gen=$(gq "$ga" gen)
seen=$(raised)
out=$(ctl "$BOB" raise "$ga" 2>&1)
rc=$?
ok "elasticctl raise of $ALICE's group as $BOB fails" test "$rc" -ne 0
diag "elasticctl raise as $BOB: $out"
# elasticd raises a requested event at its next cycle (200 ms): give it 10.
ok "... her ranks got no event" fails wait_until 2 raised_since "$seen"
is "... and her group did not change" "$(gq "$ga" gen)" "$gen"

# --- alice ------------------------------------------------------------------------
out=$(ctl "$ALICE" status 2>&1)
rc=$?
is "elasticctl status as $ALICE succeeds" "$rc" 0
is "... and lists her group only (--json)" "$(ctl_groups "$ALICE")" "$ga "
out=$(ctl "$ALICE" status "$ga" 2>&1)
rc=$?
is "elasticctl status JOB as its owner succeeds" "$rc" 0
like "... showing its state" "$out" 'RUNNING'
out=$(ctl "$ALICE" --json status "$ga" 2>&1)
is "elasticctl --json status JOB gives the group as JSON" \
	"$(printf '%s\n' "$out" | jq_py 'as_group(d).get("id")' 2>&1)" "$ga"
out=$(ctl "$ALICE" events "$ga" 2>&1)
rc=$?
is "elasticctl events JOB as its owner succeeds" "$rc" 0
like "... showing the timeline" "$out" 'start'
ok "$ALICE cannot read $BOB's group" fails ctl "$ALICE" status "$gb"
seen=$(raised)
out=$(ctl "$ALICE" raise "$ga" 2>&1)
rc=$?
is "elasticctl raise JOB as its owner succeeds" "$rc" 0
diag "elasticctl raise as $ALICE: $out"
ok "... and her rank gets the event" wait_until 5 raised_since "$seen"

# --- root, an admin ------------------------------------------------------------------
list=$(api_get /v1/groups root | jq_py '[g.get("id") for g in as_list(d, "groups")]' | sort -n | tr '\n' ' ')
is "HTTP: root lists every group" "$list" "$(printf '%s\n' "$ga" "$gb" | sort -n | tr '\n' ' ')"
root_sees() { ctl root status "$1" >/dev/null 2>&1 && ctl root events "$1" >/dev/null 2>&1; }
ok "elasticctl status and events of $ALICE's group as root" root_sees "$ga"
ok "... and of $BOB's" root_sees "$gb"

ok "elasticd stops on SIGTERM" ed_stop
done_testing
