#!/bin/bash
# The elastic.conf of the README's "Installing on a cluster", as an admin
# copies it: read from the README (not copied here), used by slurmctld's
# job_submit/elastic and by elasticd, with this cluster's elasticd address
# for the README's.  As written, a group grows into its preemptible
# partition; without its PreemptiblePartitions line, a group cannot grow
# but still forms its first world at min at once, so that its launcher
# starts on the base.  Without its ElasticdServer line, and ElasticdListen
# a wildcard, elasticctl and elastic-run refuse to guess where elasticd is
# (their loopback is not elasticd's host) and say to set ElasticdServer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

plan 14

# The settings lines of the README's elastic.conf example.
readme_conf() {
	"$ELASTIC_SRCDIR/testsuite/docs/extract-examples" "$ED_TMP" "$ELASTIC_SRCDIR/README.md" >/dev/null &&
		grep -v '^#' "$ED_TMP/elastic.conf"
}
conf=$(readme_conf)
like "the README shows an elastic.conf with MaxNodes, BasePartitions, PreemptiblePartitions, MaxGrace, ElasticdListen and ElasticdServer" \
	"$(printf '%s\n' "$conf" | cut -d= -f1 | tr '\n' ' ')" '^MaxNodes BasePartitions PreemptiblePartitions MaxGrace ElasticdListen ElasticdServer $'
# This cluster's elasticd for the admin's controller (ctl:6830).
conf=$(printf '%s\n' "$conf" | sed -E "s/^(ElasticdListen|ElasticdServer)=.*/\1=$ED_SERVER/")

# use_conf LINES...: the cluster's elastic.conf and elasticd's are LINES,
# plus, for elasticd, where it listens and keeps its state.
use_conf() {
	set_policy "$@"
	{
		printf '%s\n' "$@"
		echo "ElasticdListen=$ED_SERVER"
		echo "ElasticdPollInterval=$ED_POLL_MS"
		echo "ElasticdMungeSocket=$MC_MUNGE_SOCKET"
		echo "ElasticdStateDir=$ED_STATE"
	} >"$ED_CONF"
}

# --- as written: the group grows into the preemptible partition -----------
mapfile -t lines < <(printf '%s\n' "$conf")
use_conf "${lines[@]}"
ok "elasticd starts with the README's elastic.conf" ed_start
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4 --elastic-scale-delay=1)
like "a min=1 max=4 job is accepted by job_submit/elastic with it" "$base" '^[0-9]+$'
ok "... and grows to 4 nodes with preemptible units" \
	gwait 60 "$base" 'world == 4 and len(units(kind="preemptible")) == 3' || show_group "$base"
scancel "$base"
wait_until 30 job_gone_or_done "$base"
ed_stop

# --- without PreemptiblePartitions: no growth, but a world at once --------
mapfile -t lines < <(printf '%s\n' "$conf" | grep -v '^PreemptiblePartitions=')
use_conf "${lines[@]}"
: >"$ED_LOG"
ok "elasticd starts with only MaxNodes and BasePartitions" ed_start
t0=$(now)
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=4)
like "a min=1 max=4 job is accepted" "$base" '^[0-9]+$'
ok "its first world forms at min (the base alone), without waiting the 30 s scale delay" \
	gwait 20 "$base" 'gen >= 1 and world == 1 and state == "RUNNING"' || show_group "$base"
figure "elasticd: base submitted to its first world with no PreemptiblePartitions: $(secs_since "$t0") s"
is "... with no unit asked for" "$(gq "$base" 'len(members()) - 1')" 0
like "elasticd says why it cannot grow" "$(grep "group $base" "$ED_LOG")" 'no PreemptiblePartitions in elastic.conf: no units'
scancel "$base"
ok "elasticd stops on SIGTERM" ed_stop

# --- without ElasticdServer, ElasticdListen a wildcard: no address --------
# No elasticd runs: the clients must fail on the configuration alone.
mapfile -t lines < <(printf '%s\n' "$conf" | grep -vE '^(ElasticdListen|ElasticdServer)=')
set_policy "${lines[@]}" "ElasticdListen=*:$ED_PORT"
no_server="no ElasticdServer in $POLICY, and ElasticdListen=\\*:$ED_PORT is not an address other hosts can reach: set ElasticdServer=HOST:PORT"
out=$("$ELASTICCTL" status 2>&1)
rc=$?
is "elasticctl without --server fails (exit 1) with one line" "$rc $(printf '%s\n' "$out" | wc -l)" "1 1"
like "... naming ElasticdServer and ElasticdListen" "$out" "^elasticctl: $no_server"
jid=$(sbatch --parsable --elastic-min=1 --elastic-max=1 -D "$ED_TMP" -o "$ED_TMP/run.out" -t 5 \
	--wrap "$RUN -- touch $ED_TMP/launched")
wait_until 60 job_gone_or_done "$jid"
is "elastic-run in a job exits 2, launching nothing" \
	"$(job_field "$jid" ExitCode) $([ -e "$ED_TMP/launched" ] && echo launched || echo none)" "2:0 none"
like "... with one line naming ElasticdServer" "$(grep '^elastic-run:' "$ED_TMP/run.out" 2>&1 | tr '\n' '|')" \
	"^elastic-run: $no_server[^|]* \\(or --elasticd=none\\)\\|$"
done_testing
