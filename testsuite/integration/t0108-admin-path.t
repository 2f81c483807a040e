#!/bin/bash
# The README's "Installing on a cluster" as an admin follows it, on the
# packages installed by its own apt-get lines (quickstart's leg_installed,
# in a root of its own): its plugstack.conf line, slurm.conf line and
# elastic.conf, read from the README (never copied here), with this
# cluster's configuration directory for /etc/slurm and its address and
# munge socket for the README's ctl:6830 and libmunge's default;
# `elasticd --check-config` says OK, and elasticd starts by elasticd(8)'s
# lines for a host without systemd, SLURM_CONF in /etc/default/elasticd.
# Then a researcher's job, spank_elastic(8)'s train.sh and the README's
# train.py on the installed slurm_elastic module, grows into the idle
# nodes, goes on through a preemption and finishes.
# Installed files only: run with ELASTIC_INSTALLED=1 (not in make check's
# list; quickstart's leg_installed names it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
[ "$ELASTIC_INSTALLED" = 1 ] || bail "the admin's path runs on the installed packages (ELASTIC_INSTALLED=1)"
ed_setup

plan 19

ETC=$(dirname "$SLURM_CONF")
EX=$ED_TMP/ex
mkdir -p "$EX"
"$ELASTIC_SRCDIR/testsuite/docs/extract-examples" "$EX" "$ELASTIC_SRCDIR/README.md" \
	"$ELASTIC_SRCDIR/doc/man/elasticd.8" "$ELASTIC_SRCDIR/doc/man/spank_elastic.8" >"$EX/list"
# site NAME: an example's lines without comments, this cluster's
# configuration directory for /etc/slurm.
site() { grep -v '^#' "$EX/$1" | sed "s|/etc/slurm/|$ETC/|g"; }

# --- plugstack.conf and slurm.conf ------------------------------------------
line=$(site plugstack.conf)
so=$(awk '{ print $2 }' <<<"$line")
ok "the README's plugstack.conf line names the installed plugin ($so)" \
	bash -c "dpkg -S '$so' | grep -q '^slurm-elastic-plugins:'"
cp "$ETC/plugstack.conf" "$ED_TMP/plugstack.conf.orig"
restore_plugstack() { cp "$ED_TMP/plugstack.conf.orig" "$ETC/plugstack.conf"; }
at_exit restore_plugstack
printf '%s\n' "$line" >"$ETC/plugstack.conf"
while read -r l; do
	ok "the cluster's slurm.conf has the README's '$l'" grep -qx "$l" "$SLURM_CONF"
done < <(site slurm.conf)
example=/usr/share/doc/slurm-elastic-plugins/examples/slurm.conf.example
ok "the package's $example is there" test -f "$example"
ok "... and the cluster's slurm.conf has its preemption lines" bash -c "
	grep -E '^(PreemptType|PreemptMode)=' '$example' | while read -r l; do
		grep -qxF \"\$l\" '$SLURM_CONF' || { echo \"missing: \$l\"; exit 1; }; done"
for p in $(sed -n 's/^PartitionName=\([^ ]*\).*/\1/p' "$example"); do
	ok "... and its partition $p" bash -c "scontrol show partition '$p' >/dev/null 2>&1"
done

# --- elastic.conf: this cluster's elasticd address and munged ---------------
mapfile -t conf < <(site elastic.conf | sed -E \
	-e "s/^ElasticdListen=\*:[0-9]+$/ElasticdListen=*:$ED_PORT/" \
	-e "s/^ElasticdServer=.*/ElasticdServer=$ED_SERVER/")
set_policy "${conf[@]}" "ElasticdMungeSocket=$MC_MUNGE_SOCKET"
like "the README's elastic.conf, with the cluster's address" "$(printf '%s ' "${conf[@]}")" \
	"^MaxNodes=64 BasePartitions=base PreemptiblePartitions=preempt MaxGrace=120 ElasticdListen=\*:$ED_PORT ElasticdServer=$ED_SERVER $"

# --- elasticd, as the README and elasticd(8) start it -----------------------
check=$(site start-elasticd.sh | sed 's/[[:space:]]*#.*//' | grep '^elasticd ')
said=$(sed -n 's/.*# prints "\(.*\)"$/\1/p' "$EX/start-elasticd.sh" | sed "s|/etc/slurm/|$ETC/|")
is "'$check' prints what the README says" \
	"$("${ED_ON[@]}" env SLURM_CONF="$SLURM_CONF" bash -c "$check" 2>&1)" "$said"
# No systemctl here: elasticd(8)'s lines, the site's SLURM_CONF in the
# unit's environment file.
defaults=/etc/default/elasticd
[ ! -e "$defaults" ] || bail "$defaults exists: not a clean root"
echo "SLURM_CONF=$SLURM_CONF" >"$defaults"
ED_LOG=/var/log/elasticd.log
by_hand_clean() { rm -f "$defaults" "$ED_LOG"; }
at_exit by_hand_clean
"${ED_ON[@]}" bash -c "cd / && . '$EX/elasticd-by-hand.sh' && echo \$! >'$ED_TMP/elasticd.pid'"
ED_PID=$(cat "$ED_TMP/elasticd.pid" 2>/dev/null)
ok "elasticd starts as elasticd(8) says, and answers" wait_until 10 _ed_up

# --- a researcher's job ------------------------------------------------------
# spank_elastic(8)'s train.sh as written but for the time limit and the
# checkpoint directory (this cluster has no /scratch: the same pattern in
# a directory of its shared file system, the user's own to make).
W=$ED_TMP/w
mkdir -p "$W/ckpt/$TEST_USER"
cp "$EX/train.sh" "$EX/train.py" "$EX/sizes.conf" "$W/"
chown -R "$TEST_USER" "$W"
out=$W/py.out
jid=$(cd "$W" && runuser -u "$TEST_USER" -- env OMP_NUM_THREADS=1 \
	sbatch --parsable --time=30 --elastic-scale-delay=1 \
	--elastic-checkpoint-dir="$W/ckpt/%u/%j" -o "$out" train.sh)
like "train.sh is accepted" "$jid" '^[0-9]+$'
ok "it grows into the idle nodes: 4 ranks over the base and a unit" \
	wait_until 120 log_has "$out" '^step [0-9]+ loss .* world 4$' || {
	diag "the job's output:" "$(tail -n 40 "$out" 2>&1)"
	show_group "$jid"
}
starts2() { grep -cE '^rank 0/2: starting at step [0-9]+$' "$out"; }
n2=$(starts2)
restarted2() { [ "$(starts2)" -gt "$n2" ]; }
hjid=$(sbatch --parsable -p high -N2 -J preemptor -D "$ED_TMP" -o /dev/null -t 30 --wrap 'exec sleep 1800')
ok "a 2-node high-priority job preempts the unit: it goes on at 2 ranks" wait_until 120 restarted2
ok "it runs to its last step" wait_until 300 log_has "$out" '^rank 0: done at step 2000$'
ok "... elastic-run reports success, with no failure counted" \
	eval 'wait_until 30 log_has "$out" "elastic-run: .* event=done .*result=success" && [ "$(grep -c event=failure "$out")" = 0 ]'
ok "the job completes" wait_until 30 eval '[ "$(job_field "$jid" JobState)" = COMPLETED ]'
scancel "$hjid"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
