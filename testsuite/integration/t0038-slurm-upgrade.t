#!/bin/bash
# A Slurm upgrade that leaves the job_submit plugin built for the release
# before (check-slurm-version(8), job_submit_elastic(8)): slurmctld does
# not start, with Slurm's own "Incompatible Slurm plugin" line, and
# check-slurm-version, which the packages' systemd drop-in runs first,
# stops it sooner with the fix in one line.  With the plugin of its own
# release, the check is silent and slurmctld loads the plugin.
#
# The plugin is built here for this Slurm's previous micro release.  The
# slurmctld started is a second one, on this cluster's configuration but
# for its own port, state, pid file and no accounting: the cluster's own
# keeps running.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 6

make_tmp T
have=$(slurmctld -V | awk '{ print $NF }')
IFS=. read -r ma mi mu <<<"$have"
# The release before: 22.05.8 -> 22.05.7 (x.y.0 -> the previous minor's .9).
if ((mu > 0)); then old=$ma.$mi.$((mu - 1)); else old=$ma.$((10#$mi - 1)).9; fi
IFS=. read -r oa oi ou <<<"$old"
oldnum=$(printf '0x%02x%02x%02x' "$oa" $((10#$oi)) "$ou")

# The plugin of the release before: this tree's, with another version.
var() { sed -n "s/^$1 = //p" "$ELASTIC_BUILDDIR/src/plugins/job_submit/Makefile"; }
mkdir -p "$T/old"
$(var CC) -shared -fPIC -DELASTIC_BUILT_FOR="$oldnum" $(var SLURM_CPPFLAGS) \
	-I"$ELASTIC_BUILDDIR" -I"$ELASTIC_SRCDIR/src" \
	"$ELASTIC_SRCDIR/src/plugins/job_submit/job_submit_elastic.c" \
	"$ELASTIC_BUILDDIR/src/common/.libs/libcommonio.a" "$ELASTIC_BUILDDIR/src/common/.libs/libcommon.a" \
	-o "$T/old/job_submit_elastic.so" >"$T/cc.out" 2>&1 ||
	{ cat "$T/cc.out"; bail "cannot build the plugin for Slurm $old"; }

# conf_with PLUGINDIR: this cluster's slurm.conf for a second slurmctld on
# this host, with PLUGINDIR.
conf_with() {
	sed -E -e "s|^SlurmctldHost=.*|SlurmctldHost=$(hostname -s)|" \
		-e "s|^SlurmctldPort=.*|SlurmctldPort=$((MC_PORT_BASE + 60))|" \
		-e "s|^StateSaveLocation=.*|StateSaveLocation=$T/state|" \
		-e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$T/slurmctld.pid|" \
		-e '/^SlurmctldLogFile=/d' -e '/^AccountingStorage/d' \
		-e "s|^PluginDir=.*|PluginDir=$1|" "$MC_DIR/etc/slurm.conf" >"$T/slurm.conf"
	echo "AccountingStorageType=accounting_storage/none" >>"$T/slurm.conf"
	cp "$MC_DIR/etc/elastic.conf" "$T/elastic.conf"
	mkdir -p "$T/state"
}
# The cluster's PluginDir; the same without any job_submit_elastic.so
# (Slurm tries each directory in turn and loads the first plugin of its
# release: the old one must be the only one).
dirs=$(sed -n 's/^PluginDir=//p' "$MC_DIR/etc/slurm.conf")
others=$(tr ':' '\n' <<<"$dirs" | while read -r d; do [ -e "$d/job_submit_elastic.so" ] || printf '%s:' "$d"; done)
check() { SLURM_CONF=$T/slurm.conf "$ELASTIC_BUILDDIR/src/plugins/check-slurm-version" slurmctld 2>&1; }

conf_with "$T/old:${others%:}"
out=$(check)
is "check-slurm-version stops slurmctld with the plugin of Slurm $old (exit 1)" "$(check >/dev/null; echo $?)" 1
like "... in one line naming both releases and the fix" "$out" \
	"^check-slurm-version: $T/old/job_submit_elastic\\.so is built for Slurm $old and slurmctld is $have: .*install slurm-elastic built for Slurm $have .*or take elastic out of JobSubmitPlugins in $T/slurm\\.conf\$"
# Slurm's own behaviour, which the check anticipates: no start.
timeout 60 slurmctld -D -f "$T/slurm.conf" >"$T/old.out" 2>&1
rc=$?
ok "slurmctld itself does not start with it (exit $rc)" test "$rc" != 0 -a "$rc" != 124
like "... saying only that the plugin's version is incompatible" "$(cat "$T/old.out")" \
	"Incompatible Slurm plugin $T/old/job_submit_elastic\\.so version \\($old\\)"

conf_with "$dirs"
is "with the plugin of its own release the check is silent (exit 0)" "$(check; echo $?)" 0
setsid slurmctld -D -f "$T/slurm.conf" >"$T/new.out" 2>&1 &
pid=$!
at_exit "kill -KILL $pid 2>/dev/null"
ok "... and slurmctld loads the plugin" wait_until 60 log_has "$T/new.out" 'job_submit/elastic: loaded'
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null || true
done_testing
