# For the tests of elasticd (t01xx): start and stop the daemon by pid, read
# its API (JSON through /usr/bin/python3), submit elastic groups as the
# test users, look at their unit jobs in Slurm, fail and resume nodes, and
# clean all of it up.  Source it after lib.sh, then call ed_setup.
# shellcheck shell=bash

# TEST_ELASTICD, TEST_ELASTICCTL: other binaries to test (e.g. a sanitized
# build's); else the build tree's, or the installed ones with
# ELASTIC_INSTALLED=1 (lib.sh).
if [ -n "${TEST_ELASTICD:-}" ]; then
	ELASTICD=$TEST_ELASTICD
elif [ "$ELASTIC_INSTALLED" = 1 ]; then
	installed ELASTICD elasticd /usr/sbin/elasticd
else
	ELASTICD=$ELASTIC_BUILDDIR/src/elasticd/elasticd
fi
ELASTICCTL=${TEST_ELASTICCTL:-$ELASTIC_CTL}
PYTHON=/usr/bin/python3
ED_PORT=$((MC_PORT_BASE + 50))
ED_SERVER=127.0.0.1:$ED_PORT
# elasticd runs where a site runs it, on ctl (ed_setup sets these).
ED_ON=()
ED_POLL_MS=200
ED_NAME=$(basename "$0" .t)
ED_PID=""
ED_DOWNED=""
ED_HEAL=""

now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }
# secs_since T0: seconds from T0 (now's format) to now, 1 decimal.
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# figure TEXT...: a measurement, one line; quickstart check collects them.
figure() { diag "figure: $*"; }

# ed_setup: everything a test of elasticd needs, or bail out (a missing
# binary or user is a failure, not a skip); then a private temporary
# directory ED_TMP (writable by the test users), the daemon's config and
# log, and the cleanup at exit.
ed_setup() {
	require_cluster
	require_users
	if [ "${MC_HOSTS:-0}" = 1 ]; then
		ED_SERVER=$MC_SUBNET.2:$ED_PORT
		ED_ON=("$MINICLUSTER" exec ctl)
	fi
	local b
	for b in "$ELASTICD" "$ELASTICCTL"; do
		[ -x "$b" ] || bail "not built: $b (run make in $ELASTIC_BUILDDIR)"
	done
	command -v curl >/dev/null || bail "curl not found"
	[ -z "$(ed_listening)" ] ||
		bail "port $ED_PORT (ElasticdListen of the tests) is in use: a leftover elasticd? $(ed_listening -p)"
	ED_TMP=$(mktemp -d "${TMPDIR:-/tmp}/$ED_NAME.XXXXXX")
	chmod 1777 "$ED_TMP"
	ED_SAMPLES=$ED_TMP/samples
	: >"$ED_SAMPLES"
	mkdir -p "$MC_DIR/elasticd"
	ED_CONF=$MC_DIR/elasticd/$ED_NAME.conf
	ED_LOG=$MC_DIR/log/elasticd-$ED_NAME.log
	: >"$ED_LOG"
	ED_STATE=$MC_DIR/elasticd/$ED_NAME.state
	rm -rf "$ED_STATE"
	mkdir -p "$ED_STATE"
	ed_write_conf
	at_exit ed_cleanup
}

# ed_write_conf [KEY=VALUE...]: elasticd's own copy of the cluster's
# elastic.conf, fast for tests, with the given keys replaced or added.
ed_write_conf() {
	local kv keys="ElasticdListen ElasticdServer ElasticdPollInterval ElasticdAdmins ElasticdMungeSocket ElasticdStateDir DefaultScaleDelay"
	for kv in "$@"; do keys="$keys ${kv%%=*}"; done
	{
		echo "# $ED_NAME: the cluster's elastic.conf, then the test's settings"
		grep -viE "^[[:space:]]*($(echo "$keys" | tr ' ' '|'))[[:space:]]*=" "$MC_DIR/etc/elastic.conf"
		echo "ElasticdListen=$ED_SERVER"
		echo "ElasticdServer=$ED_SERVER"
		echo "ElasticdPollInterval=$ED_POLL_MS"
		# No ElasticdAdmins: root is an admin by elasticd's own rule.
		echo "ElasticdMungeSocket=$MC_MUNGE_SOCKET"
		echo "ElasticdStateDir=$ED_STATE"
		echo "DefaultScaleDelay=1"
		# ED_NOTIFY=no|drop: every test without notifications, or
		# with them lost (make check ED_NOTIFY=drop); ED_RESYNC=N:
		# the owners' jobs read every N s (default 60), the groups'
		# jobs by id between; ED_QUEUE=M: the whole queue every M s
		# (10 here, not the default hour: the tests' groups run no
		# launcher that would ask for them).  Suspect nodes are
		# reported, not drained: the tests boot crashed nodes and
		# want them back (t0122 and t0124 drain).  A test's own keys
		# win.
		for kv in "ElasticdNotify=${ED_NOTIFY:-}" "ElasticdResyncInterval=${ED_RESYNC:-}" \
			"ElasticdQueueInterval=${ED_QUEUE:-10}" "SuspectNodes=report"; do
			case " $* " in *" ${kv%%=*}="*) continue ;; esac
			[ -z "${kv#*=}" ] || echo "$kv"
		done
		for kv in "$@"; do echo "$kv"; done
	} >"$ED_CONF"
}

# ed_own_cluster: the test's own cluster (the MC_DIR, MC_PORT_BASE and
# other MC_* it exported before sourcing this file), a leftover of it
# stopped first; up or bail out, down at exit.  Then ed_setup.
_ed_own_down() { "$MINICLUSTER" down >/dev/null 2>&1; }
ed_own_cluster() {
	_ed_own_down
	at_exit _ed_own_down
	"$MINICLUSTER" up >"$MC_DIR.up.log" 2>&1 || {
		sed 's/^/# /' "$MC_DIR.up.log" | tail -n 20
		bail "minicluster up ($MC_NODES nodes) failed"
	}
	ed_setup
}

# ---------------------------------------------------------------- daemon

pid_alive() { # not a zombie
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	[ "${stat:0:1}" != Z ]
}
# ed_listening [SS-OPTION]: what listens on elasticd's port on its host.
ed_listening() { "${ED_ON[@]}" ss -Hltn "$@" "sport = :$ED_PORT" 2>/dev/null; }
ed_alive() { [ -n "$ED_PID" ] && pid_alive "$ED_PID"; }
ed_healthz() { curl -fsS -m 2 -o /dev/null "http://$ED_SERVER/healthz" 2>/dev/null; }
_ed_up() { ed_alive && ed_healthz; }

# ed_start [OPTION...]: start elasticd in the foreground (as systemd
# would), by pid, with -f ED_CONF and the options, and wait (30 s: its
# first cycle reads Slurm, which a loaded machine slows) until /healthz
# answers.  Sets ED_PID and ED_STARTED (now).  How fast it starts is
# t0150's figure.
ed_start() {
	echo "=== $(date +%T.%N) elasticd -f $ED_CONF $*" >>"$ED_LOG"
	ED_STARTED=$(now)
	# exec all the way down: $! is elasticd's own pid, on ctl too.
	# A sanitized elasticd reports leaks of ours, not libslurm's.
	"${ED_ON[@]}" env LSAN_OPTIONS="suppressions=$ELASTIC_SRCDIR/testsuite/lsan.supp:print_suppressions=0" \
		"$ELASTICD" -f "$ED_CONF" "$@" </dev/null >>"$ED_LOG" 2>&1 &
	ED_PID=$!
	local deadline=$((SECONDS + 30))
	until _ed_up; do
		if ! ed_alive; then
			diag "elasticd (pid $ED_PID) exited at start; its log:"
			tail -n 20 "$ED_LOG" | sed 's/^/#   /'
			return 1
		fi
		[ "$SECONDS" -lt "$deadline" ] || {
			diag "elasticd (pid $ED_PID) not answering /healthz on $ED_SERVER within 30 s"
			return 1
		}
		nap 0.05
	done
}

# mc_ed_start: elasticd on ctl as the cluster runs it ('minicluster
# elasticd', which 'minicluster restart elasticd' restarts); its log is the
# cluster's.
mc_ed_start() {
	ED_LOG=$MC_DIR/log/elasticd.out
	"$MINICLUSTER" elasticd -f "$ED_CONF" >/dev/null || return 1
	ED_PID=$(cat "$MC_DIR/run/elasticd.pid")
	wait_until 10 _ed_up
}

# mc_ed_restart: kill -9 and start again (minicluster restart elasticd).
mc_ed_restart() {
	"$MINICLUSTER" restart elasticd >/dev/null || return 1
	ED_PID=$(cat "$MC_DIR/run/elasticd.pid")
	ED_STARTED=$(now)
	wait_until 10 _ed_up
}

# ed_stop: SIGTERM and wait (10 s); SIGKILL if it does not go.  Returns 1
# if it had to be killed.
ed_stop() {
	[ -n "$ED_PID" ] || return 0
	local pid=$ED_PID rc=0
	kill -TERM "$pid" 2>/dev/null
	wait_until 10 eval '! pid_alive '"$pid" || {
		diag "elasticd (pid $pid) still running 10 s after SIGTERM; killing it"
		kill -KILL "$pid" 2>/dev/null
		rc=1
	}
	wait "$pid" 2>/dev/null
	ED_PID=""
	# A sanitized elasticd (TEST_ELASTICD of ./configure
	# --enable-sanitizers) says what it found in its log.
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$ED_LOG" 2>/dev/null; then
		diag "elasticd: the sanitizers found: $(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$ED_LOG")"
		rc=1
	fi
	# One 'minicluster elasticd' started: the cluster is whole without it.
	[ "$(cat "$MC_DIR/run/elasticd.pid" 2>/dev/null)" != "$pid" ] || rm -f "$MC_DIR/run/elasticd.pid" "$MC_DIR/run/elasticd.start"
	return $rc
}

# ed_kill9: what a crash does.
ed_kill9() {
	[ -n "$ED_PID" ] || return 0
	kill -KILL "$ED_PID" 2>/dev/null
	wait "$ED_PID" 2>/dev/null
	ED_PID=""
}

ed_cleanup() {
	local rc=$? n
	sampler_stop
	if ed_alive; then ed_stop || true; fi
	for n in $ED_DOWNED; do node_resume "$n" || diag "$n did not boot"; done
	cleanup_jobs
	[ -z "$ED_HEAL" ] || heal_nodes
	if [ "$_t_failed" != 0 ] || [ "$rc" != 0 ]; then
		diag "tail of $ED_LOG:"
		tail -n 40 "$ED_LOG" 2>/dev/null | sed 's/^/#   /'
	fi
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$ED_TMP"
	return $rc
}

# ---------------------------------------------------------------- API

# munge_cred USER METHOD TARGET: a credential minted by USER (root for
# root or ""), bound to that one request as elasticd-api(7) says.
munge_cred() {
	local nonce payload
	nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	payload="elastic-api/1 request $2 $3 $nonce"
	if [ -z "${1:-}" ] || [ "$1" = root ]; then
		munge -s "$payload" -S "$MC_MUNGE_SOCKET"
	else
		runuser -u "$1" -- munge -s "$payload" -S "$MC_MUNGE_SOCKET"
	fi
}

# api METHOD PATH [USER|-] [CRED]: HTTP status code on the first line, the
# body after it.  USER mints the credential (default root); - sends none;
# CRED sends that credential as is.
api() {
	local method=$1 path=$2 user=${3:-root} cred=${4:-} body code
	local -a auth=()
	if [ -n "$cred" ]; then
		auth=(-H "Authorization: Munge $cred")
	elif [ "$user" != - ]; then
		auth=(-H "Authorization: Munge $(munge_cred "$user" "$method" "$path")")
	fi
	body=$(mktemp "$ED_TMP/body.XXXXXX")
	code=$(curl -sS -m 5 -X "$method" -o "$body" -w '%{http_code}' "${auth[@]}" "http://$ED_SERVER$path" 2>/dev/null) || code=000
	echo "$code"
	cat "$body"
	rm -f "$body"
}
api_code() { api "$@" | head -n1; }
# api_get PATH [USER]: the body of a 200 answer; fails otherwise.
api_get() {
	local out
	out=$(api GET "$@")
	[ "${out%%$'\n'*}" = 200 ] || return 1
	printf '%s\n' "${out#*$'\n'}"
}

# The Python every JSON helper runs.  The API's documents: GET /v1/groups
# {"published", "groups": [group...]}; /v1/groups/ID a group {"id", "user",
# "uid", "account", "state", "min", "max", "generation", "world_nodes",
# "master_addr", "members": [{"job_id", "kind", "state", "nnodes", "nodes",
# "in_world"}]}; /v1/groups/ID/events {"id", "events": [{"time" (ISO
# 8601), "cause", "generation", "world_nodes", "detail"}]}.  A group or a
# list wrapped in an object is tolerated, times as seconds too.
_ED_PY_LIB='
import json, sys, time, datetime
def as_group(d):
    if isinstance(d, dict) and isinstance(d.get("group"), dict):
        return d["group"]
    return d
def as_list(d, key):
    if isinstance(d, list):
        return d
    if isinstance(d, dict) and isinstance(d.get(key), list):
        return d[key]
    return []
def as_time(t):
    if isinstance(t, (int, float)):
        return float(t)
    if isinstance(t, dict):
        return float(t.get("sec", t.get("tv_sec", 0))) + float(t.get("nsec", t.get("tv_nsec", 0))) / 1e9
    if isinstance(t, str):
        try:
            return float(t)
        except ValueError:
            return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
    return 0.0
def out(v):
    if v is None:
        return
    if isinstance(v, bool):
        print("true" if v else "false")
    elif isinstance(v, (list, tuple)):
        for x in v:
            out(x)
    elif isinstance(v, dict):
        print(json.dumps(v, sort_keys=True))
    else:
        print(v)
# A job of squeue --json as Slurm 22.05 writes it.  From 23.02 numbers
# come as {"set", "infinite", "number"} (an unset or infinite one: None)
# and job_state as a list, the base state and its flags (the flag that
# 22.05 would name first wins).
_STATE_FLAGS = ("COMPLETING", "CONFIGURING", "RESIZING", "REQUEUED", "REQUEUE_FED",
                "REQUEUE_HOLD", "SPECIAL_EXIT", "STOPPED", "REVOKED", "SIGNALING", "STAGE_OUT")
def plain_job(j):
    p = {}
    for k, v in j.items():
        if isinstance(v, dict) and "number" in v and "set" in v:
            v = v["number"] if v.get("set") and not v.get("infinite") else None
        p[k] = v
    st = p.get("job_state")
    if isinstance(st, list):
        p["job_state"] = next((f for f in _STATE_FLAGS if f in st), st[0] if st else None)
    return p
def read_group(text):
    # the group, then optionally RS and the events document
    parts = text.split("\x1e")
    g = as_group(json.loads(parts[0]))
    if len(parts) > 1:
        g = dict(g, events=as_list(json.loads(parts[1]), "events"))
    return g
def group_env(g):
    M = g.get("members") or []
    def members(kind=None, state=None, in_world=None):
        return [m for m in M if (kind is None or m.get("kind") == kind)
                and (state is None or m.get("state") == state)
                and (in_world is None or bool(m.get("in_world")) == in_world)]
    def units(kind=None, state="running"):
        return [m for m in members(state=state) if m.get("kind") != "base"
                and (kind is None or m.get("kind") == kind)]
    def ids(ms):
        return " ".join(str(m.get("job_id")) for m in sorted(ms, key=lambda m: m.get("job_id", 0)))
    events = as_list(g.get("events"), "events")
    return dict(g=g, members=members, units=units, ids=ids, events=events,
                world=g.get("world_nodes"), gen=g.get("generation"), state=g.get("state"))
'

# jq_py EXPR: EXPR evaluated on the JSON document on stdin (d); lists print
# one item per line, objects as JSON, None as nothing.
jq_py() {
	"$PYTHON" -c "$_ED_PY_LIB"'
d = json.load(sys.stdin)
out(eval(sys.argv[1]))' "$1"
}

# group_json ID [USER]: the group as USER sees it (GET /v1/groups/ID).
group_json() { api_get "/v1/groups/$1" "${2:-root}"; }
# group_doc ID EXPR: the group (root's view) and, if EXPR looks at events,
# a record separator and its events.
group_doc() {
	local g e
	g=$(group_json "$1") || return 1
	printf '%s\n' "$g"
	case $2 in *events*)
		e=$(api_get "/v1/groups/$1/events") || return 1
		printf '\036\n%s\n' "$e"
		;;
	esac
}

# gq ID EXPR: EXPR on the group (root's view), with g, world, gen, state,
# members(kind, state, in_world), units(kind, state="running"), ids(ms),
# events.
gq() {
	group_doc "$1" "$2" | "$PYTHON" -c "$_ED_PY_LIB"'
env = group_env(read_group(sys.stdin.read()))
out(eval(sys.argv[1], env))' "$2"
}

# gsample ID EXPR: one sample of the group, appended to ED_SAMPLES as
# "time generation world_nodes state running-units in-world-ids", then
# EXPR: exit 0 if true, 1 if false, 2 if the group cannot be read.
gsample() {
	group_doc "$1" "$2" 2>/dev/null | "$PYTHON" -c "$_ED_PY_LIB"'
try:
    env = group_env(read_group(sys.stdin.read()))
except Exception:
    with open(sys.argv[2], "a") as f:
        f.write("%.3f - - UNREADABLE - -\n" % time.time())
    sys.exit(2)
with open(sys.argv[2], "a") as f:
    f.write("%.3f %s %s %s %d %s\n" % (time.time(), env["gen"], env["world"], env["state"],
            len(env["units"]()), env["ids"](env["members"](in_world=True)).replace(" ", ",") or "-"))
sys.exit(0 if eval(sys.argv[1], env) else 1)' "$2" "$ED_SAMPLES"
}

# gwait SECONDS ID EXPR: sample the group until EXPR holds, every 0.1 s
# for 2 s, then every 0.2 s (a sample costs a credential, a request and a
# Python: still one per elasticd poll, ED_POLL_MS); every sample lands in
# ED_SAMPLES.
gwait() { poll "$1" 0.2 gsample "$2" "$3"; }

# gwatch SECONDS ID: sample for SECONDS whatever happens (to catch a state
# that must never appear).
gwatch() { gwait "$1" "$2" False; return 0; }

# sampler_start ID: sample the group continuously in the background (one
# Python process, about every 100 ms: two samples per elasticd poll)
# into ED_SAMPLES, until sampler_stop.
ED_SAMPLER=""
sampler_start() {
	"$PYTHON" -c "$_ED_PY_LIB"'
import os, subprocess, urllib.parse, urllib.request
url, sock, path = sys.argv[1], sys.argv[2], sys.argv[3]
target = urllib.parse.urlsplit(url).path
while True:
    try:
        payload = "elastic-api/1 request GET %s %s" % (target, os.urandom(16).hex())
        cred = subprocess.run(["munge", "-s", payload, "-S", sock], capture_output=True, text=True).stdout.strip()
        req = urllib.request.Request(url, headers={"Authorization": "Munge " + cred})
        with urllib.request.urlopen(req, timeout=5) as f:
            env = group_env(as_group(json.load(f)))
        line = "%.3f %s %s %s %d %s\n" % (time.time(), env["gen"], env["world"], env["state"],
            len(env["units"]()), env["ids"](env["members"](in_world=True)).replace(" ", ",") or "-")
    except Exception:
        line = "%.3f - - UNREADABLE - -\n" % time.time()
    with open(path, "a") as out:
        out.write(line)
    time.sleep(0.1)' "http://$ED_SERVER/v1/groups/$1" "$MC_MUNGE_SOCKET" "$ED_SAMPLES" &
	ED_SAMPLER=$!
}
sampler_stop() {
	[ -n "$ED_SAMPLER" ] || return 0
	kill "$ED_SAMPLER" 2>/dev/null
	wait "$ED_SAMPLER" 2>/dev/null
	ED_SAMPLER=""
}

# worlds_seen SINCE [UNTIL]: the distinct world sizes sampled in that span.
worlds_seen() {
	awk -v a="$1" -v b="${2:-1e12}" '$1 >= a && $1 <= b && $3 != "-" { print $3 }' "$ED_SAMPLES" | sort -nu | tr '\n' ' '
}
# first_sample_time SINCE EXPR-ON-FIELDS: time of the first sample at or
# after SINCE where the awk condition holds ($2 gen, $3 world, $4 state).
first_sample_time() {
	awk -v a="$1" '$1 >= a && $3 != "-" && ('"$2"') { print $1; exit }' "$ED_SAMPLES"
}

# span_to T0 AWK-CONDITION: seconds from T0 to the first sample where the
# condition on its fields holds ($2 gen, $3 world, $4 state), or "never".
span_to() {
	local t
	t=$(first_sample_time "$1" "$2")
	if [ -n "$t" ]; then awk -v a="$1" -v b="$t" 'BEGIN { printf "%.1f", b - a }'; else echo never; fi
}

# show_group ID: the group as TAP comments.
show_group() {
	diag "group $1: $(gq "$1" '"%s gen=%s world=%s" % (state, gen, world)' 2>&1)"
	gq "$1" '["  %s %s %s %s nodes=%s in_world=%s" % (m.get("job_id"), m.get("kind"), m.get("state"), m.get("nnodes"), m.get("nodes"), m.get("in_world")) for m in members()]' 2>&1 | sed 's/^/# /'
	gq "$1" '["  event %s %s gen=%s world=%s %s" % (e.get("time"), e.get("cause"), e.get("generation"), e.get("world_nodes"), e.get("detail")) for e in events]' 2>&1 | tail -n 8 | sed 's/^/# /'
	diag "Slurm: $(squeue -h -o '%i:%j:%u:%P:%T:%D:%N' 2>&1 | tr '\n' ' ')"
}

# ctl USER ARGS...: elasticctl as USER against the test's daemon.
ctl() {
	local u=$1
	shift
	if [ "$u" = root ]; then
		"$ELASTICCTL" --server="$ED_SERVER" --munge-socket="$MC_MUNGE_SOCKET" "$@"
	else
		runuser -u "$u" -- "$ELASTICCTL" --server="$ED_SERVER" --munge-socket="$MC_MUNGE_SOCKET" "$@"
	fi
}

# ---------------------------------------------------------------- Slurm

# submit_group USER SBATCH-ARGS...: an elastic base job as USER that runs
# ED_WRAP (default: sleep until cancelled), 30 min limit; prints its id.
# --elastic-grace=5 unless given: these jobs have no ranks to checkpoint,
# and a group is RESIZING for the grace after each new world.
submit_group() {
	local u=$1 grace=--elastic-grace=5
	shift
	case " $* " in *" --elastic-grace="*) grace="" ;; esac
	runuser -u "$u" -- sbatch --parsable -D "$ED_TMP" -o /dev/null -t 30 $grace "$@" \
		--wrap "${ED_WRAP:-exec sleep 1800}"
}

# filler PARTITION NODES [NODELIST]: a root job holding NODES whole nodes
# until cancelled; prints its id.
filler() {
	sbatch --parsable -p "$1" -N "$2" ${3:+-w "$3"} -J filler -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800'
}

# two_of_four: the set-up of the tests that kill a daemon mid-resize: a
# base-partition job ($fill) on 2 of the 4 nodes, and a min=1 max=4 group
# ($base) at a world of 2 on the others, with a scale delay (10 s) long
# enough to see the resize that scancel "$fill" starts (one look at
# Slurm's queue and at elasticd takes seconds on a busy machine: 4 s
# were missed) and to kill or restart a daemon inside it.  Three tests.
two_of_four() {
	fill=$(filler base 2)
	ok "a base-partition job holds 2 of the 4 nodes" wait_until 30 job_running "$fill"
	base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-step=1 --elastic-scale-delay=10)
	like "a min=1 max=4 group is accepted" "$base" '^[0-9]+$'
	ok "with 2 nodes free it reaches a world of 2" gwait 60 "$base" 'world == 2 and len(units()) == 1 and state == "RUNNING"' ||
		show_group "$base"
}

# squeue_py EXPR: EXPR over every job slurmctld knows (squeue --json: jobs
# still listed after they ended too), with jobs, live(j), unit(j) (the
# parsed elastic-unit:v1 tag or None) and base_tag(j).
squeue_py() {
	squeue --json 2>/dev/null | "$PYTHON" -c "$_ED_PY_LIB"'
import re
jobs = [plain_job(j) for j in json.load(sys.stdin).get("jobs", [])]
ENDED = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
         "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}
def live(j):
    return j.get("job_state") not in ENDED
def unit(j):
    m = re.match(r"elastic-unit:v1 (.*)", j.get("admin_comment") or "")
    if not m:
        return None
    return dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
def base_tag(j):
    return (j.get("admin_comment") or "").startswith("elastic:v1 ")
def units_of(base, only_live=True):
    return [j for j in jobs if unit(j) and unit(j).get("group") == str(base) and (live(j) or not only_live)]
def fmt(j):
    u = unit(j) or {}
    return "%s %s %s %s %s %s kind=%s nodes=%s limit=%s" % (j["job_id"], j.get("job_state"), j.get("partition"),
        j.get("node_count"), j.get("nodes") or "-", j.get("user_name"), u.get("kind"), u.get("nodes"), j.get("time_limit"))
out(eval(sys.argv[1]))' "$1"
}

# slurm_units BASE [STATE]: the group's live unit jobs as Slurm has them,
# one per line: id state partition nodecount nodelist user kind= nodes= limit=.
slurm_units() {
	squeue_py "[fmt(j) for j in units_of($1) if ${2:+j.get(\"job_state\") == \"$2\" and} True]"
}
running_units() { slurm_units "$1" RUNNING | awk '{ print $1 }' | sort -n | tr '\n' ' '; }
# orphan_units: unit jobs nobody cancelled (neither ended nor completing)
# whose group is not a live elastic base job.  A completing unit has been
# cancelled: how long its processes take to go is Slurm's KillWait, not
# elasticd's doing.
orphan_units() {
	squeue_py '[fmt(j) for j in jobs if unit(j) and live(j) and j.get("job_state") != "COMPLETING" and not any(
		str(b["job_id"]) == unit(j).get("group") and base_tag(b) and live(b) for b in jobs)]'
}

# job_hosts JOBID: its nodes, one per line.
# resizing BASE: a resize of BASE's group is under way: Slurm runs a unit
# that is not in the world.
resizing() {
	local r w
	r=$(running_units "$1" | wc -w)
	w=$(gq "$1" 'len([m for m in units() if m.get("in_world")])' 2>/dev/null)
	[ "$r" -gt "${w:-99}" ]
}
job_hosts() { scontrol show hostnames "$(job_field "$1" NodeList)" 2>/dev/null; }

# node_fail NODE: the node's host crashes (minicluster crash: every process
# on it killed, its link down) and stays down until node_resume boots it;
# the cleanup at exit boots it too.  Slurm finds out as on a real cluster, when
# the node stops answering (SlurmdTimeout): its jobs end (NODE_FAIL) or
# lose it (--no-kill).
# ED_FAULT_AT is the instant its link went down (a loaded machine may take
# a second to start minicluster: a time taken before node_fail counts it).
node_fail() {
	local o
	o=$("$MINICLUSTER" crash "$1") || return 1
	ED_FAULT_AT=${o##* link down at }
	ED_DOWNED="$ED_DOWNED $1" && ED_HEAL=1
}
# node_resume NODE: the crashed node boots; with ReturnToService=2 it is
# back when its slurmd registers.
node_resume() {
	"$MINICLUSTER" boot "$1" >/dev/null && ED_DOWNED=$(printf '%s\n' $ED_DOWNED | grep -vxF "$1" | tr '\n' ' ')
}
# node_down_seen NODE: slurmctld has marked NODE down.
node_down_seen() { case $(node_state "$1") in down*) return 0 ;; esac; return 1; }
# drained_for NODE: "STATE|REASON" (drained|slurm-elastic: job 12: lost ...).
drained_for() { sinfo -h -N -n "$1" -o '%T|%E' 2>/dev/null | head -n1; }
# drained_by NODE BASE WHY: elasticd drained NODE for group BASE, saying WHY.
drained_by() { drained_for "$1" | grep -qE "^drain[a-z*]*\|slurm-elastic: job $2: $3 "; }
# resume_suspects: every node elasticd drained back in service (at exit
# of the tests that let it drain).
resume_suspects() {
	local n
	for n in $(sinfo -h -N -R -o '%N %E' 2>/dev/null | awk '/slurm-elastic:/ { print $1 }' | sort -u); do
		scontrol update NodeName="$n" State=RESUME 2>/dev/null
	done
	return 0
}
# node_state NODE: sinfo's short state (idle, alloc, drain, down*...).
node_state() { sinfo -h -N -n "$1" -o '%t' | head -n1; }

# The tests' Python ranks write DIR/pid.RESTART.RANK ("PID NODE").
# rank_on DIR RESTART NODE: "RANK PID" of the rank on NODE; rank_off: of
# one not on NODE, "RANK PID ITS-NODE".
rank_on() {
	local f p n
	for f in "$1"/pid."$2".*; do
		read -r p n <"$f"
		[ "$n" = "$3" ] && echo "${f##*.} $p" && return 0
	done
	return 1
}
rank_off() {
	local f p n
	for f in "$1"/pid."$2".*; do
		read -r p n <"$f"
		[ "$n" != "$3" ] && echo "${f##*.} $p $n" && return 0
	done
	return 1
}

# left_world OUT MARK NODE UNIT BASE NNODES WHY: after the launcher named
# NODE (in OUT past line MARK), four tests: its unit UNIT let go, ranks up
# at NNODES without it, no failure counted against --max-restarts, and
# elasticd drained NODE for group BASE saying WHY (SuspectNodes=drain).
left_world() {
	local out=$1 mark=$2 node=$3 unit=$4 base=$5 n=$6 why=$7
	ok "the unit on $node is let go" wait_until 20 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=released .*node=$node job=$unit slurm=cancelled'"
	ok "it trains on at $n nodes" wait_until 60 bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=ranks-up restart=[0-9]+ nnodes=$n '"
	is "no failure counted against --max-restarts" "$(grep -c 'event=failure' "$out")" 0
	ok "elasticd drained $node, saying why ($why)" wait_until 10 drained_by "$node" "$base" "$why" ||
		diag "$(drained_for "$node")"
}

# split_prepare NODE BASE: the addresses of every other compute node of
# group BASE but its batch host, for split_apply to cut NODE off from
# (blackhole routes in its network namespace; Slurm sees nothing);
# split_heal gives them back (at exit too).
SPLIT_NODE="" SPLIT_PEERS=""
split_prepare() {
	local h batch
	batch=$(job_field "$2" BatchHost)
	[ -n "$SPLIT_NODE" ] || at_exit split_heal
	SPLIT_NODE=$1
	SPLIT_PEERS=$(for h in $(scontrol show hostnames "$(squeue -h -o %N -j "$2")") $(for u in $(running_units "$2"); do job_hosts "$u"; done); do
		[ "$h" = "$1" ] || [ "$h" = "$batch" ] || "$MINICLUSTER" exec "$1" getent hosts "$h" | awk '{ print $1 }'
	done | sort -u)
	diag "split: $1 from $(echo $SPLIT_PEERS) (the batch host $batch reached by all)"
}
# split_found NODE BASE WHAT SECS: NODE cut off (split_prepare, split_apply),
# then the test WHAT: within SECS the launcher names the split, NODE left
# and 3 kept.  Sets mark (the lines of $out before) and t_phase.
split_found() {
	split_prepare "$1" "$2"
	mark=$(wc -l <"$out")
	t_phase=$(now)
	split_apply
	ok "$3" wait_until "$4" bash -c "tail -n +$((mark + 1)) '$out' | grep -qE 'event=split .*left=$1 kept=3'" ||
		diag "$(tail -n +$((mark + 1)) "$out" | grep -E 'elastic-run:' | tail -n 15)"
}
split_apply() { local a; for a in $SPLIT_PEERS; do "$MINICLUSTER" exec "$SPLIT_NODE" ip route add blackhole "$a/32"; done; }
split_heal() {
	local a
	for a in $SPLIT_PEERS; do "$MINICLUSTER" exec "$SPLIT_NODE" ip route del blackhole "$a/32" 2>/dev/null; done
	SPLIT_PEERS=""
	return 0
}

# slurmd_timeout_for_test S: SlurmdTimeout=S in slurm.conf (Slurm's
# default, 300, for the tests that show faults found before Slurm finds
# them), the cluster's own restored at the test's end.
slurmd_timeout() {
	sed -i "s/^SlurmdTimeout=.*/SlurmdTimeout=$1/" "$MC_DIR/etc/slurm.conf"
	scontrol reconfigure
	wait_until 30 bash -c "scontrol show config | grep -q '^SlurmdTimeout *= $1 sec'"
}
slurmd_timeout_for_test() {
	[ -n "${_t_old_slurmd_timeout:-}" ] || {
		_t_old_slurmd_timeout=$(sed -n 's/^SlurmdTimeout=//p' "$MC_DIR/etc/slurm.conf")
		at_exit '{ slurmd_timeout "$_t_old_slurmd_timeout" >/dev/null 2>&1 || true; }'
	}
	slurmd_timeout "$1"
}

# ed_start_draining [KEY=VALUE...]: one test, elasticd starts with
# SuspectNodes=drain (and the keys given); what it drains is resumed at
# the test's end.
ed_start_draining() {
	ed_write_conf SuspectNodes=drain "$@"
	at_exit resume_suspects
	ok "elasticd starts" ed_start
}
# py_group ARGS...: the test user's group of min=2 max=3 (a 2-node base
# and a unit) running $ED_TMP/rank.py under elastic-run, with a 1 s scale
# delay, a 2 s fault timeout, a 10 s grace and ARGS; its base job's id.
py_group() {
	ED_WRAP="export PYTHONPATH=$ELASTIC_SRCDIR/contribs/python; exec $RUN -- $PYTHON $ED_TMP/rank.py" \
		submit_group "$TEST_USER" --elastic-min=2 --elastic-max=3 --elastic-step=1 \
		--elastic-scale-delay=1 --elastic-fault-timeout=2 --elastic-grace=10 "$@"
}
