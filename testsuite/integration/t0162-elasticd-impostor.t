#!/bin/bash
# Whoever answers in elasticd's place learns nothing it can use and is not
# believed.  elastic-bob listens where elastic-alice's clients look for
# elasticd (a wrong --server, as a misconfigured ElasticdServer would be)
# and answers with a made-up world that names another of her jobs:
# elasticctl refuses the answer (it is not signed by elasticd's user);
# elastic-run ignores it and launches over its own allocation, never into
# the named job; the credentials bob received cannot be read by him and,
# replayed to the real elasticd for anything but their own request, are
# refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 15

ALICE=$TEST_USER
BOB=$OTHER_USER
IMP_PORT=$((MC_PORT_BASE + 57))
IMP_LOG=$ED_TMP/impostor.log
IMP_PIDFILE=$ED_TMP/impostor.pid
# On the login host, as every user's clients run there; without hosts,
# on this machine's loopback, which every daemon shares.
IMP_ON=()
IMP_HOST=127.0.0.1
if [ "${MC_HOSTS:-0}" = 1 ]; then
	IMP_ON=("$MINICLUSTER" exec login)
	IMP_HOST=$MC_SUBNET.3
fi

ok "elasticd starts" ed_start
# Alice's other job: what the made-up world sends her launcher into.
victim=$(runuser -u "$ALICE" -- sbatch --parsable -D "$ED_TMP" -o /dev/null -t 10 -J victim --wrap 'exec sleep 600')
ok "$ALICE has a plain job running" wait_until 60 job_running "$victim"

# The impostor: any request gets a plausible group whose world is the
# victim job; it writes down what it was sent, and its pid.
: >"$IMP_LOG"
chmod 666 "$IMP_LOG"
"${IMP_ON[@]}" runuser -u "$BOB" -- "$PYTHON" -c '
import http.server, json, os, sys
port, log, pidfile, victim = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
body = json.dumps({"id": victim, "generation": 7, "state": "RUNNING", "world_nodes": 1,
    "master_addr": "evil.example", "members": [{"job_id": victim, "kind": "base",
    "state": "running", "nnodes": 1, "nodes": "n1", "in_world": True}]}).encode()
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        with open(log, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Authorization", "-")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("0.0.0.0", port), H)
with open(pidfile + ".new", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename(pidfile + ".new", pidfile)
srv.serve_forever()' "$IMP_PORT" "$IMP_LOG" "$IMP_PIDFILE" "$victim" &
impostor_stop() {
	local pid
	pid=$(cat "$IMP_PIDFILE" 2>/dev/null) && kill "$pid" 2>/dev/null
	rm -f "$IMP_PIDFILE"
}
impostor_up() { [ -s "$IMP_PIDFILE" ] && curl -s -m 2 -o /dev/null "http://$IMP_HOST:$IMP_PORT/"; }
# Before ed_cleanup (at_exit: last added, first run).
at_exit impostor_stop
ok "$BOB's impostor listens" wait_until 20 impostor_up
: >"$IMP_LOG"

# --- elasticctl -------------------------------------------------------------------
out=$(runuser -u "$ALICE" -- "$ELASTICCTL" --server="$IMP_HOST:$IMP_PORT" --munge-socket="$MC_MUNGE_SOCKET" status "$victim" 2>&1)
rc=$?
diag "elasticctl against the impostor: $out"
is "elasticctl refuses the impostor's answer (exit 3)" "$rc" 3
like "... saying it is not elasticd's" "$out" 'answered 200, but not as elasticd: the answer carries no Elastic-Server-Auth'
ok "... and shows none of it" test -z "$(grep -E 'evil|generation 7|RUNNING' <<<"$out")"
cred=$(awk '$3 == "Munge" { print $4; exit }' "$IMP_LOG")
like "$BOB received a credential of $ALICE's" "$cred" '^MUNGE:'
out=$(printf '%s' "$cred" | runuser -u "$BOB" -- unmunge -S "$MC_MUNGE_SOCKET" 2>&1)
like "... which he cannot read (it is for elasticd's user alone)" "$out" 'nauthorized'
# Her group is the victim's id for elasticd too: nothing of hers there.
ga=$(submit_group "$ALICE" --elastic-min=1 --elastic-max=1)
ok "$ALICE's elastic group runs" gwait 60 "$ga" 'world == 1 and state == "RUNNING"'
out=$(api POST "/v1/groups/$ga/raise" - "$cred")
like "... replayed by him to elasticd as a raise of her group: 401" "$(tr '\n' ' ' <<<"$out")" '^401 .*(made for another request|not bound)'

# --- elastic-run --------------------------------------------------------------------
: >"$IMP_LOG"
jid=$(runuser -u "$ALICE" -- sbatch --parsable --elastic-min=1 --elastic-max=1 -D "$ED_TMP" -o "$ED_TMP/run.out" -t 5 \
	--wrap "exec $RUN --elasticd=$IMP_HOST:$IMP_PORT -- /bin/sh -c 'echo ranks-of \$SLURM_JOB_ID'")
like "$ALICE's launcher, told to ask the impostor, is submitted" "$jid" '^[0-9]+$'
wait_until 90 job_gone_or_done "$jid"
diag "elastic-run: $(grep -E '^elastic-run:' "$ED_TMP/run.out" | tr '\n' '|')"
like "it was asked and refused the answer" "$(grep -E '^elastic-run:' "$ED_TMP/run.out" | tr '\n' ' ')" 'not as elasticd'
is "it ran over its own allocation, never in the victim job" "$(grep '^ranks-of' "$ED_TMP/run.out" | sort -u | tr '\n' ' ')" "ranks-of $jid "
is "the victim job is untouched (running, no step of hers launched in it)" \
	"$(job_field "$victim" JobState) $(squeue -h -s -j "$victim" -o %i 2>/dev/null | grep -c "^$victim\.[0-9]")" "RUNNING 0"
scancel "$victim" "$ga" 2>/dev/null
ok "elasticd stops on SIGTERM" ed_stop
done_testing
